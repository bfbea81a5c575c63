#!/usr/bin/env bash
# 39-link-offloads.t: link.features, link.coalesce and link.pause on the
# lab's veths. A profile turning gro off and rx-udp-gro-forwarding on is
# planned, applied (read back with `ethtool -k`), idempotent, and rolled
# back exactly; a failure at each step (CX5PROF_FAILPOINT, apply.h) and a
# kill -9 before each step leave the host as before. A fixed feature, and
# coalescing and pause (which veth does not implement), are unsupported
# (exit 69) with the reason, and nothing changes. An unknown feature is a
# profile error naming the known ones.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
need_tool ethtool
txn_setup 39

ek() { ip netns exec "$HOST_NS" ethtool -k ens1f0 | grep -E "^(generic-receive-offload|rx-udp-gro-forwarding):"; }
# schema_ok NAME FILE: FILE validates against schemas/NAME.schema.json
schema_ok() {
	python3 -c 'import json, sys, jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
		"$TOP/schemas/$1.schema.json" "$2"
}
# veth's defaults differ between kernels: start from gro on, forwarding off.
ip netns exec "$HOST_NS" ethtool -K ens1f0 gro on rx-udp-gro-forwarding off
state_snapshot "$WORK/before.json"
EK_BEFORE="generic-receive-offload: on
rx-udp-gro-forwarding: off"
is "$(ek)" "$EK_BEFORE" "setup: ethtool -k shows gro on, rx-udp-gro-forwarding off"

P=$WORK/profiles/offloads.yaml
cat >"$P" <<'YAML'
version: 1
name: offloads
match:
  interfaces: [ens1f0]
link:
  features:
    gro: off
    rx-udp-gro-forwarding: on
YAML

# ---- plan
run cx plan --runtime-only "$P"
is "$rc:$out" "2:ens1f0  features.gro  on -> off
ens1f0  features.rx-udp-gro-forwarding  off -> on
2 changes pending" "plan: one line per feature"
run cx --json plan --runtime-only "$P"
is "$(printf '%s' "$out" | jq -c '.changes[0]')" \
	'{"object":"ens1f0","kind":"features","key":"features.gro","before":"on","after":"off","resets_link":false,"note":null}' \
	"plan --json: a features change"
printf '%s' "$out" >"$WORK/plan.json"
schema_ok plan "$WORK/plan.json"
ok $? "plan --json validates against schemas/plan.schema.json"

# ---- show: text and JSON
run cx show ens1f0
printf '%s\n' "$out" | grep -qx '  features  gro on  rx-gro-hw off \[fixed\]  rx-gro-list off  rx-udp-gro-forwarding off  lro off \[fixed\]  gso on  tx-udp-segmentation on  sg on  rx-checksum on  rxhash off \[fixed\]  ntuple off \[fixed\]'
ok $? "show: the features line, as ethtool -k has them"
printf '%s\n' "$out" | grep -qx '  coalesce  unsupported'
ok $? "show: coalesce unsupported on veth"
printf '%s\n' "$out" | grep -qx '  pause     unsupported'
ok $? "show: pause unsupported on veth"
run cx --json show ens1f0
is "$(printf '%s' "$out" | jq -c '.interfaces[0] | [.features.status, .features.active.gro, .features.active["rx-udp-gro-forwarding"], .features.fixed, .coalesce, .pause]')" \
	'["ok","on","off",["rx-gro-hw","lro","rxhash","ntuple"],{"status":"unsupported","error":null,"kernel_message":null},{"status":"unsupported","error":null,"kernel_message":null}]' \
	"show --json: features, coalesce, pause"
printf '%s' "$out" >"$WORK/show.json"
schema_ok state "$WORK/show.json"
ok $? "show --json validates against schemas/state.schema.json"

# ---- apply, read back with ethtool -k
run cx apply --runtime-only "$P"
is "$rc:$(printf '%s\n' "$out" | tail -n 1)" "0:applied 2 changes (transaction 1)" "apply: exit 0"
is "$(ek)" "generic-receive-offload: off
rx-udp-gro-forwarding: on" "apply: ethtool -k shows gro off, rx-udp-gro-forwarding on"
is "$(sqlite3 "$DB" "SELECT group_concat(kind || ' ' || key || ' ' || old_value || ' ' || new_value || ' ' || state, '|') FROM changes WHERE txn = 1")" \
	"features features.gro on off applied|features features.rx-udp-gro-forwarding off on applied" \
	"history: the undo log holds the old values"
run cx apply --runtime-only "$P"
is "$rc:$out" "0:nothing to change" "second apply: nothing to change"

# ---- verify: in the profile's state, then drift when gro is turned back on
run cx verify --no-bench "$P"
is "$rc:$(printf '%s\n' "$out" | sed -n 2p)" "0:state       in the profile's state (1 interface)" "verify: no drift"
ip netns exec "$HOST_NS" ethtool -K ens1f0 gro on
run cx verify --no-bench "$P"
is "$rc:$(printf '%s\n' "$out" | sed -n 3p)" "3:  ens1f0 features.gro: current on, expected off" "verify: gro on is drift (exit 3)"
ip netns exec "$HOST_NS" ethtool -K ens1f0 gro off
# the effective profile recorded with the apply loads back (no PROFILE)
run cx verify --no-bench
is "$rc:$(printf '%s\n' "$out" | sed -n 1,2p)" "0:verify      offloads (last applied, transaction 1)
state       in the profile's state (1 interface)" "verify without PROFILE: the last applied features profile"

# ---- rollback
run cx rollback
is "$rc:$(printf '%s\n' "$out" | tail -n 1)" "0:rolled back transaction 1 (recorded as transaction 2)" "rollback: exit 0"
is "$(ek)" "$EK_BEFORE" "rollback: ethtool -k as before"
host_as_before
ok $? "rollback: host exactly as before"

# ---- the ioctl fallback (ETHTOOL_GFEATURES/SFEATURES), as on a kernel
# without ethtool netlink: the same reading, the same apply and rollback
ioctl() { CX5PROF_FAILPOINT=ethnl-absent:1 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" "$@"; }
run cx show ens1f0
nl_lines=$(printf '%s\n' "$out" | grep -E '^  (features|coalesce|pause) ')
run ioctl show ens1f0
is "$(printf '%s\n' "$out" | grep -E '^  (features|coalesce|pause) ')" "$nl_lines" "ioctl: show reads what netlink reads"
run ioctl apply --runtime-only "$P"
is "$rc:$(printf '%s\n' "$out" | tail -n 1)" "0:applied 2 changes (transaction 3)" "ioctl: apply exit 0"
is "$(ek)" "generic-receive-offload: off
rx-udp-gro-forwarding: on" "ioctl: ethtool -k shows gro off, rx-udp-gro-forwarding on"
run ioctl rollback
is "$rc" 0 "ioctl: rollback exit 0"
is "$(ek)" "$EK_BEFORE" "ioctl: rollback: ethtool -k as before"

# ---- a failure at each step: every change already made is undone
t=4
for k in 1 2; do
	t=$((t + 1))
	run env CX5PROF_FAILPOINT=apply-step:$k ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
		apply --runtime-only "$P"
	is "$rc" 6 "failure at step $k: exit 6 (rolled back)"
	is "$(ek)" "$EK_BEFORE" "failure at step $k: ethtool -k as before"
	host_as_before
	ok $? "failure at step $k: host exactly as before"
	is "$(txn_status $t)" rolled_back "failure at step $k: history: rolled_back"
done

# ---- an undo that fails too: what is left is named, rollback repairs
t=$((t + 1))
run env CX5PROF_FAILPOINT=apply-step:2,undo-step:1 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
	apply --runtime-only "$P"
is "$rc" 7 "failing undo: exit 7"
printf '%s\n' "$err" | grep -qx "cx5prof: error: NOT restored: ens1f0 features.gro off -> on: read back differs or write failed (EIO)"
ok $? "failing undo: names the feature left changed"
run cx rollback "$t"
is "$rc" 0 "rollback of the half-undone transaction: exit 0"
is "$(ek)" "$EK_BEFORE" "after the repair: ethtool -k as before"

# ---- kill -9 before each step: rollback restores exactly
for k in 1 2; do
	if ! kill9_before_step "$k" "$P"; then
		ok 1 "apply did not reach step $k"
		continue
	fi
	id=$(sqlite3 "$DB" "SELECT max(id) FROM transactions WHERE kind = 'apply'")
	is "$(txn_status "$id")" open "kill -9 before step $k: the transaction is left open"
	run cx rollback
	is "$rc" 0 "kill -9 before step $k: rollback exits 0"
	is "$(ek)" "$EK_BEFORE" "kill -9 before step $k: ethtool -k as before"
	host_as_before
	ok $? "kill -9 before step $k: host exactly as before"
done

# ---- unsupported: a fixed feature, coalescing, pause; nothing changes
n_txn=$(txn_count)
printf 'version: 1\nname: fixed\nmatch:\n  interfaces: [ens1f0]\nlink:\n  features:\n    gro: off\n    lro: on\n' >"$WORK/fixed.yaml"
run cx apply --runtime-only "$WORK/fixed.yaml"
is "$rc:$err" "69:cx5prof: error: ens1f0: link.features.lro: fixed off on this device (ethtool -k shows it [fixed]): it cannot be turned on: remove it from link.features for this port" \
	"a fixed feature: exit 69, named"
printf 'version: 1\nname: coal\nmatch:\n  interfaces: [ens1f0]\nlink:\n  coalesce:\n    adaptive_rx: false\n    rx_usecs: 8\n' >"$WORK/coal.yaml"
run cx apply --runtime-only "$WORK/coal.yaml"
is "$rc:$err" "69:cx5prof: error: ens1f0: link.coalesce: not supported by the driver: Operation not supported: remove the section from the profile for this port" \
	"coalesce on veth: exit 69 with the kernel's reason"
printf 'version: 1\nname: pause\nmatch:\n  interfaces: [ens1f0]\nlink:\n  pause:\n    rx: true\n' >"$WORK/pause.yaml"
run cx apply --runtime-only "$WORK/pause.yaml"
is "$rc:$err" "69:cx5prof: error: ens1f0: link.pause: not supported by the driver: Operation not supported: remove the section from the profile for this port" \
	"pause on veth: exit 69 with the kernel's reason"
run env CX5PROF_FAILPOINT=ethnl-absent:1 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
	apply --runtime-only "$WORK/coal.yaml"
is "$rc:$err" "69:cx5prof: error: ens1f0: link.coalesce: not supported by the driver: Operation not supported: remove the section from the profile for this port" \
	"coalesce on veth through the ioctl: exit 69 too"
is "$(txn_count)" "$n_txn" "unsupported: no transaction recorded"
is "$(ek)" "$EK_BEFORE" "unsupported: ethtool -k as before"
host_as_before
ok $? "unsupported: host exactly as before"

# ---- a feature the kernel keeps off (gso needs sg): the failed write is
# undone, its request too (ethtool -k shows no "[requested on]")
eg() { ip netns exec "$HOST_NS" ethtool -k ens1f0 | grep -E "^(scatter-gather|generic-segmentation-offload):"; }
ip netns exec "$HOST_NS" ethtool -K ens1f0 sg off gso off >/dev/null
EG_BEFORE="scatter-gather: off
generic-segmentation-offload: off"
is "$(eg)" "$EG_BEFORE" "setup: sg off, gso off"
printf 'version: 1\nname: gso\nmatch:\n  interfaces: [ens1f0]\nlink:\n  features:\n    gso: on\n' >"$WORK/gso.yaml"
run cx apply --runtime-only "$WORK/gso.yaml"
is "$rc:$(printf '%s\n' "$err" | grep -c 'features.gso off -> on')" "6:1" \
	"gso on without sg: the kernel keeps it off, exit 6 (rolled back), the change named"
is "$(eg)" "$EG_BEFORE" "gso on without sg: ethtool -k as before, not [requested on]"
# a request left behind (as by a kill -9 between the write and its read
# back) is withdrawn by the undo, though the feature is already off
ip netns exec "$HOST_NS" ethtool -K ens1f0 gso on >/dev/null 2>&1
is "$(eg)" "scatter-gather: off
generic-segmentation-offload: off [requested on]" "setup: gso off [requested on]"
id=$(sqlite3 "$DB" "SELECT max(id) FROM transactions WHERE kind = 'apply'")
sqlite3 "$DB" "UPDATE transactions SET status = 'open' WHERE id = $id; UPDATE changes SET state = 'applied' WHERE txn = $id"
run cx rollback "$id"
is "$rc:$(eg)" "0:$EG_BEFORE" "rollback: the request is withdrawn, ethtool -k as before"
# a later change that knocks over an earlier one of the same port (sg off
# takes gso with it) fails the apply: each change reads back, and so do the
# earlier ones of the same kind and port
ip netns exec "$HOST_NS" ethtool -K ens1f0 sg on gso off >/dev/null
EG_BEFORE="scatter-gather: on
generic-segmentation-offload: off"
is "$(eg)" "$EG_BEFORE" "setup: sg on, gso off"
printf 'version: 1\nname: gso\nmatch:\n  interfaces: [ens1f0]\nlink:\n  features:\n    gso: on\n    sg: off\n' >"$WORK/gso-sg.yaml"
run cx apply --runtime-only "$WORK/gso-sg.yaml"
is "$rc:$(printf '%s\n' "$err" | head -n 1)" \
	"6:cx5prof: error: apply failed at step 2: ens1f0 features.sg on -> off: the earlier change ens1f0 features.gso off -> on no longer reads back (the settings depend on each other)" \
	"gso on, sg off: the second change undoes the first: exit 6, both named"
is "$(eg)" "$EG_BEFORE" "gso on, sg off: ethtool -k as before"
ip netns exec "$HOST_NS" ethtool -K ens1f0 sg on gso on >/dev/null

# ---- an unknown feature is a profile error naming the known ones
printf 'version: 1\nname: bad\nlink:\n  features:\n    generic-receive-offload: off\n' >"$WORK/bad.yaml"
run cx validate "$WORK/bad.yaml"
is "$rc:$err" "65:cx5prof: error: $WORK/bad.yaml:5:5: link.features: unknown feature \"generic-receive-offload\" (cx5prof manages gro, rx-gro-hw, rx-gro-list, rx-udp-gro-forwarding, lro, gso, tx-udp-segmentation, sg, rx-checksum, rxhash, ntuple)" \
	"unknown feature: exit 65, the known ones named"

done_testing
