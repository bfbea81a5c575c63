#!/usr/bin/env bash
# 144-rss-hash.t: link.rss_hash, the RSS hash function (`ethtool -X DEV
# hfunc xor`), in the lab (veths + a private copy of cx5-2port, whose
# ethtool/ens1f0/show-rxfh answers for the port as `ethtool -x` prints
# it): plan names the current function, apply writes the "RSS hash
# function" lines and keeps the table and the key, idempotent, verify sees
# a change by hand, rollback byte for byte; a failure at the step and a
# kill -9 before it leave the host as before after rollback; a value
# that is no function (65), a text that names none (69), a port without
# RSS (69).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 144

E=$SR/ethtool/ens1f0
P=$WORK/profiles/xor.yaml
printf 'version: 1\nname: xor\nmatch:\n  interfaces: [ens1f0]\nlink:\n  rss_hash: xor\n' >"$P"
hfunc() { sed -n '/^RSS hash function:/,$p' "$E/show-rxfh" | tr -s ' \n' ' '; }
table_and_key() { sed '/^RSS hash function:/,$d' "$E/show-rxfh" | sha256sum; }

is "$(hfunc)" "RSS hash function: toeplitz: on xor: off crc32: off " "(the fixture: toeplitz)"
before=$(table_and_key)

run cx plan --runtime-only "$P"
is "$rc:$out" "2:ens1f0  rss_hash  toeplitz -> xor
1 change pending" "plan: the current function and the new one"

run cx apply --runtime-only "$P"
is "$rc:$(hfunc)" "0:RSS hash function: toeplitz: off xor: on crc32: off " "apply: xor on, the others off"
is "$(table_and_key)" "$before" "apply: the table and the key kept"
run cx plan --runtime-only "$P"
is "$rc:$out" "0:nothing to change" "plan after apply: nothing to change"
run cx verify "$P"
is "$rc" 0 "verify: as the profile says"
sed -i 's/^    xor: on$/    xor: off/; s/^    crc32: off$/    crc32: on/' "$E/show-rxfh"
run cx verify "$P"
is "$rc:$(printf '%s\n' "$out" | grep ': current ')" "3:  ens1f0 rss_hash: current crc32, expected xor" \
	"verify: a function changed by hand is drift"
sed -i 's/^    xor: off$/    xor: on/; s/^    crc32: on$/    crc32: off/' "$E/show-rxfh"
run cx rollback
is "$rc:$(printf '%s\n' "$out" | head -n 1)" "0:ens1f0  rss_hash  xor -> toeplitz  applied" "rollback: back to toeplitz"
host_as_before
ok $? "rollback: the host (and ethtool/ens1f0/show-rxfh) byte for byte as before" || diag "$(diff -r "$PRISTINE" "$SR")"

run env CX5PROF_FAILPOINT=apply-step:1 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
	apply --runtime-only "$P"
is "$rc" 6 "a failure at the step: exit 6 (rolled back)"
host_as_before
ok $? "a failure at the step: host as before"
if kill9_before_step 1 "$P"; then
	run cx rollback
	is "$rc" 0 "kill -9 before the step: rollback exits 0"
	host_as_before
	ok $? "kill -9 before the step: host as before"
else
	ok 0 "apply did not reach step 1"
fi

# ---- what plan refuses
printf 'version: 1\nname: b\nmatch:\n  interfaces: [ens1f0]\nlink:\n  rss_hash: jenkins\n' >"$WORK/b.yaml"
run cx plan "$WORK/b.yaml"
is "$rc:$err" "65:cx5prof: error: $WORK/b.yaml:6:13: link.rss_hash: \"jenkins\" is not one of toeplitz, xor, crc32" \
	"a value that is no hash function: exit 65, at the value"
cp "$E/show-rxfh" "$WORK/show-rxfh"
sed -i '/^RSS hash function:/,$d' "$E/show-rxfh"
run cx plan --runtime-only "$P"
is "$rc:$err" "69:cx5prof: error: ens1f0: link.rss_hash: the driver does not report its RSS hash function: remove link.rss_hash from the profile for this port" \
	"a port whose text names no function: exit 69"
cp "$WORK/show-rxfh" "$E/show-rxfh"
printf 'version: 1\nname: v\nmatch:\n  interfaces: [ens1f1]\nlink:\n  rss_hash: xor\n' >"$WORK/v.yaml"
mv "$SR/ethtool/ens1f1" "$WORK/ens1f1-ethtool"
run cx plan --runtime-only "$WORK/v.yaml"
is "$rc:$err" "69:cx5prof: error: ens1f1: link.rss_hash: the driver has no RSS: Operation not supported (the sysroot has no $SR/ethtool/ens1f1/show-rxfh: the kernel's ens1f1 answered): remove link.rss_hash from the profile for this port" \
	"a port without RSS (the veth answers): exit 69, naming the file"
mv "$WORK/ens1f1-ethtool" "$SR/ethtool/ens1f1"
host_as_before
ok $? "after the refused profiles: host as before"

done_testing
