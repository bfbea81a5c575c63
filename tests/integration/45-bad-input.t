#!/usr/bin/env bash
# 45-bad-input.t: bad input is refused with a clear message and the right
# exit code, and nothing on the host changes: a profile error, a missing
# interface, preconditions (link speed, driver version, channel maximums),
# unsupported settings (rings and combined channels on a veth, irqbalance
# stop without a service manager), an MTU the kernel refuses (a macvlan above its lower device's MTU:
# undone, exit 6), a corrupt history database, --db naming a file that is
# no history (left untouched) or a directory that does not exist.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 45

W=$WORK/profiles
unchanged() { # unchanged NAME: the host is as before and no transaction was recorded
	host_as_before
	ok $? "$1: host unchanged"
	is "$(txn_count)" 0 "$1: no transaction recorded"
}
profile() { # profile FILE BODY
	printf 'version: 1\nname: %s\n%s\n' "$(basename "$1" .yaml)" "$2" >"$1"
}

# ---- a profile error
profile "$W/typo.yaml" 'link:
  mtuu: 9000'
run cx apply "$W/typo.yaml"
is "$rc" 65 "profile error: exit 65"
is "$err" "cx5prof: error: $W/typo.yaml:4:3: unknown key \"mtuu\" in link (did you mean \"mtu\"?)" \
	"profile error: file:line:col and a suggestion"
run cx plan "$W/typo.yaml"
is "$rc" 65 "plan: the same exit 65"
run cx --json apply "$W/typo.yaml"
is "$rc:$(printf '%s' "$out" | jq -c .)" "65:{\"changed\":false,\"failed\":true,\"exit_code\":65,\"msg\":\"$W/typo.yaml:4:3: unknown key \\\"mtuu\\\" in link (did you mean \\\"mtu\\\"?)\"}" \
	"apply --json: still one JSON document saying it failed, with the first error as msg"
run cx apply "$W/nonexistent.yaml"
is "$rc" 66 "missing profile file: exit 66"
unchanged "profile errors"

# ---- a missing interface
profile "$W/ens9.yaml" 'match:
  interfaces: [ens1f0, ens9]
link:
  mtu: 9000'
run cx apply "$W/ens9.yaml"
is "$rc" 66 "missing interface: exit 66"
is "$err" "cx5prof: error: ens9: no such interface: check the interface name in match.interfaces" \
	"missing interface: named, with the remedy"
unchanged "missing interface"

# ---- preconditions: every one reported, not the first
profile "$W/pre.yaml" 'match:
  interfaces: [ens1f0]
requires:
  driver:
    name: mlx5_core
    min_kernel: "99.1"
  firmware:
    min_version: "16.35.2000"
  link:
    speed: 100000
link:
  mtu: 9000
  channels:
    rx: 64'
run cx plan "$W/pre.yaml"
is "$rc" 5 "preconditions: exit 5"
is "$err" "cx5prof: error: ens1f0: inbox driver of kernel 6.12.12-amd64 is older than the required 99.1 (requires.driver.min_kernel): boot a newer kernel, or install MLNX_OFED (then requires.driver.min_version applies)
cx5prof: error: ens1f0: firmware version 16.29.1030 is older than the required 16.35.2000 (requires.firmware.min_version): update the NIC firmware (mlxup or mstflint)
cx5prof: error: ens1f0: link speed is 25000 Mb/s, the profile requires 100000: check the cable, the transceiver and the switch port
cx5prof: error: ens1f0: channels.rx 64 exceeds the device maximum 2: lower the value in the profile" \
	"preconditions: each one with its remedy"
run cx --json apply "$W/pre.yaml"
is "$rc" 5 "apply: exit 5 too"
is "$(printf '%s' "$out" | jq -c '[.changed, (.problems|length), .problems[0].exit_code, .msg]')" \
	'[false,4,5,"cannot apply: nothing was changed"]' "apply --json: the problems, changed false"
unchanged "preconditions"

# ---- unsupported settings are reported, never dropped
profile "$W/rings.yaml" 'match:
  interfaces: [ens1f0]
link:
  mtu: 9000
  channels:
    combined: 2
  rings:
    rx: 1024'
run cx apply "$W/rings.yaml"
is "$rc" 69 "rings/combined on a veth: exit 69"
is "$err" "cx5prof: error: ens1f0: channels.combined: the device has no such setting: remove the key from the profile for this port
cx5prof: error: ens1f0: rings: not supported by the driver: remove the key from the profile for this port" \
	"unsupported: each named"
sed 's/irqbalance: leave/irqbalance: stop/' "$W/udp-jumbo.yaml" >"$W/stop.yaml"
run cx apply "$W/stop.yaml"
is "$rc:$(printf '%s\n' "$err" | grep irqbalance:)" \
	"69:cx5prof: error: irqbalance: irq.irqbalance: stop: no service manager to stop it with: stop it by hand, or with --sysroot set CX5PROF_SYSTEMCTL" \
	"irqbalance stop without a service manager (a sysroot): exit 69, said so"
unchanged "unsupported"

# ---- an MTU the kernel refuses: a macvlan cannot exceed its lower device's MTU
ip -n "$HOST_NS" link add link ens1f0 name mv0 type macvlan
profile "$W/mv.yaml" 'match:
  interfaces: [mv0]
link:
  mtu: 9000
sysctl:
  net.core.rmem_max: ">= 8M"'
state_snapshot "$WORK/before.json"
run cx apply "$W/mv.yaml"
is "$rc" 6 "refused MTU: exit 6 (undone)"
is "$(printf '%s\n' "$err" | head -n 1)" \
	"cx5prof: error: apply failed at step 2: mv0 mtu 1500 -> 9000: Invalid argument" \
	"refused MTU: the object, the change and the kernel's answer"
is "$(printf '%s\n' "$err" | tail -n 1)" \
	"cx5prof: error: every change was undone: the host is back as it was (transaction 1 rolled back)" \
	"refused MTU: says the host is back as it was"
host_as_before
ok $? "refused MTU: the sysctl raised at step 1 is restored"
ip -n "$HOST_NS" link del mv0
state_snapshot "$WORK/before.json"

# ---- a corrupt history database: nothing is changed without the undo log
printf 'this is not a database %.0s' $(seq 100) >"$DB"
run cx apply "$W/mtu-jumbo.yaml"
is "$rc" 1 "corrupt database: exit 1"
is "$err" "cx5prof: error: history $DB: Bad message: check --db: the file is not a cx5prof history, or it is corrupt" \
	"corrupt database: names the file and the remedy"
host_as_before
ok $? "corrupt database: host unchanged"
run cx --db /proc/version apply "$W/mtu-jumbo.yaml"
is "$rc:${err%%: No such file or directory*}" "1:cx5prof: error: cannot lock /proc/version.lock or the host's lock" \
	"a database path where no lock can be made (/proc): exit 1, names the lock"
host_as_before
ok $? "unusable database: host unchanged"

# ---- --db naming some other file (a typo like --db /etc/hosts): refused,
# and the file keeps its mode and content (it used to be chmod'ed to 0600).
printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n%.0s' $(seq 20) >"$WORK/hosts"
chmod 0644 "$WORK/hosts"
cp -p "$WORK/hosts" "$WORK/hosts.orig"
run cx --db "$WORK/hosts" apply "$W/mtu-jumbo.yaml"
is "$rc:$err" "1:cx5prof: error: history $WORK/hosts: Bad message: check --db: the file is not a cx5prof history, or it is corrupt" \
	"a text file as --db: exit 1, names the file and the remedy"
is "$(stat -c %a "$WORK/hosts")" 644 "a text file as --db: its mode is unchanged"
cmp -s "$WORK/hosts" "$WORK/hosts.orig"
ok $? "a text file as --db: its content is unchanged"
is "$(ls "$WORK" | grep -c '^hosts-')" 0 "a text file as --db: no -wal or -shm file left next to it"
host_as_before
ok $? "a text file as --db: host unchanged"
run cx --db "$WORK/new.db" apply --check "$W/mtu-jumbo.yaml"
run cx --db "$WORK/new.db" commit
is "$rc:$(ls "$WORK" | grep -c '^new\.db')" "66:0" "commit creates no history file"
run cx --db "$WORK/new.db" apply "$W/typo.yaml"
is "$rc:$(stat -c %a "$WORK/new.db")" "65:600" "a new history file is created 0600 (by apply)"

# ---- --db in a directory that does not exist: say so (not "no history yet")
run cx --db "$WORK/x/typo/h.db" apply "$W/mtu-jumbo.yaml"
is "$rc:$err" "1:cx5prof: error: history $WORK/x/typo/h.db: the directory $WORK/x/typo does not exist: check --db" \
	"missing directories: exit 1, names the directory"
[ ! -e "$WORK/x" ]
ok $? "missing directories: nothing created"
host_as_before
ok $? "missing directories: host unchanged"

# ---- origin tokens (the peer protocol, docs/peer.md): a bad token or
# combination is a usage error; `rollback --origin` with no transaction of
# that token fences it (creating the history), and an apply carrying a
# fenced token is refused before it records or changes anything
TOKEN=0123456789abcdef0123456789abcdef
run cx rollback --origin xyz
is "$rc:$err" "64:cx5prof: error: --origin expects the token of the host that drives this peer (32 lowercase hex digits), not 'xyz'" \
	"rollback --origin: a bad token, exit 64"
run cx rollback --origin "$TOKEN" 1
is "$rc:$err" "64:cx5prof: error: rollback --origin: takes no TXN, --force or --abandon" "rollback --origin TXN: exit 64"
run cx apply --check --origin "$TOKEN" "$W/mtu-jumbo.yaml"
is "$rc:$err" "64:cx5prof: error: apply: --origin goes with an apply, not with --check" "apply --check --origin: exit 64"
run cx --db "$WORK/fence.db" --json rollback --origin "$TOKEN"
is "$rc/$(printf '%s' "$out" | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["fenced"], d["origin_txn"], d["changed"])')" \
	"0/True None False" "rollback --origin, no transaction of it: exit 0, fenced, nothing changed"
is "$(sqlite3 "$WORK/fence.db" 'SELECT origin FROM fences')" "$TOKEN" "rollback --origin: the token recorded in a new history"
run cx --db "$WORK/fence.db" apply --origin "$TOKEN" "$W/mtu-jumbo.yaml"
is "$rc:$err" "1:cx5prof: error: the host that started this apply (origin $TOKEN) has given it up (\`cx5prof rollback --origin\` ran there first): nothing was changed" \
	"apply with a fenced origin: exit 1, says why"
is "$(sqlite3 "$WORK/fence.db" 'SELECT count(*) FROM transactions')" 0 "apply with a fenced origin: nothing recorded"
host_as_before
ok $? "apply with a fenced origin: host unchanged"
run cx --db "$WORK/fence.db" apply --origin fedcba9876543210fedcba9876543210 "$W/mtu-jumbo.yaml"
is "$rc/$(sqlite3 "$WORK/fence.db" 'SELECT origin FROM transactions')" "0/fedcba9876543210fedcba9876543210" \
	"apply with another origin: applied, its origin recorded"
run cx --db "$WORK/fence.db" --json rollback --origin fedcba9876543210fedcba9876543210
is "$rc/$(printf '%s' "$out" | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["origin_txn"], d["changed"])')" \
	"0/1 True" "rollback --origin of it: its transaction found and rolled back"
host_as_before
ok $? "rollback --origin: host as before"

done_testing
