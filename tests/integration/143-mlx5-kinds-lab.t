#!/usr/bin/env bash
# 143-mlx5-kinds-lab.t: link.rss, link.flow_hash, link.private_flags and
# host.cpufreq in the lab (veths + a private copy of cx5-2port, whose
# ethtool/ens1f0/ files answer for the port as `ethtool` prints them):
# plan (order, notes, the ports warning), apply read back from those files
# and the cpufreq sysfs, idempotent, show --json against the schema, drift
# seen by verify, rollback byte for byte (the udp6 hash and the RSS table's
# drift on their own profiles too); and what plan refuses: a private
# flag the device does not have (exit 65, at the key), more RSS queues than
# rings (5), an RSS table set by hand with a channel change (69), a
# governor the CPUs do not offer (69), a host without any cpufreq driver
# (a warning, nothing changed) and a CPU without cpufreq on a host that
# has a driver (69); rss equal: numa-local on a node with fewer CPUs than
# the driver's default spread.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
need_tool jq
need_python_module jsonschema
txn_setup 143

E=$SR/ethtool/ens1f0
P=$WORK/profiles/knobs.yaml
cat >"$P" <<'YAML'
version: 1
name: knobs
match:
  interfaces: [ens1f0]
link:
  rss: {equal: 8}
  flow_hash: {udp4: ds, udp6: sdfn}
  private_flags: {rx_cqe_compress: on, rx_striding_rq: false}
host:
  cpufreq: {governor: powersave, cpus: "8-9"}
YAML

# ---- plan
run cx plan --runtime-only "$P"
is "$rc:$out" "2:cpu8  scaling_governor  performance -> powersave
cpu9  scaling_governor  performance -> powersave
ens1f0  private_flags.rx_cqe_compress  off -> on  (after channels; rx_cqe_compress and rx_striding_rq reopen the channels (a short gap))
ens1f0  private_flags.rx_striding_rq  on -> off  (after channels; rx_cqe_compress and rx_striding_rq reopen the channels (a short gap))
ens1f0  rss.indir  default -> equal 8  (after channels: the driver rebuilds a table nobody set when the channel count changes)
ens1f0  flow_hash.udp4  sdfn -> sd
6 changes pending" "plan: governors, private flags, the RSS table, the udp4 hash, in apply order"
printf '%s\n' "$err" | grep -qx 'cx5prof: warning: ens1f0: link.flow_hash.udp4 ds leaves out the UDP ports: every flow between two hosts lands on one receive queue'
ok $? "plan: warns that udp4 without the ports puts every flow between two hosts on one queue"
run cx --json plan --runtime-only "$P"
printf '%s' "$out" >"$WORK/plan.json"
is "$rc:$(jq -c '[.changes[].kind] | unique' "$WORK/plan.json")" '2:["cpufreq","flow_hash","private_flags","rss"]' \
	"plan --json: the governors, private flags, RSS table and flow hash as changes of their kinds"
run /usr/bin/python3 "$TESTS_DIR/helpers/validate_json.py" "$TOP/schemas/plan.schema.json" "$WORK/plan.json"
is "$rc:$out" "0:1 documents valid" "plan --json with those changes validates against schemas/plan.schema.json"

# ---- apply: read back from the sysroot's ethtool texts and cpufreq files
run cx apply --runtime-only "$P"
is "$rc:$(printf '%s\n' "$out" | tail -n 1)" "0:applied 6 changes (transaction 1)" "apply: exit 0"
is "$(grep -E '^rx_(cqe_compress|striding_rq)' "$E/show-priv-flags")" "rx_cqe_compress    : on
rx_striding_rq     : off" "apply: ethtool --show-priv-flags text rewritten"
is "$(sed -n '2,3p' "$E/show-rxfh")" "    0:      0     1     2     3     4     5     6     7
    8:      0     1     2     3     4     5     6     7" "apply: the RSS table over queues 0-7"
is "$(sed -n '/^RSS hash key:/,$p' "$E/show-rxfh")" "$(sed -n '/^RSS hash key:/,$p' "$PRISTINE/ethtool/ens1f0/show-rxfh")" \
	"apply: the hash key and function left as they were"
is "$(cat "$E/rx-flow-hash-udp4")" "UDP over IPV4 flows use these fields for computing Hash flow key:
IP SA
IP DA" "apply: udp4 hashed on the addresses only"
is "$(cat "$SR"/sys/devices/system/cpu/cpu{8,9,10}/cpufreq/scaling_governor | tr '\n' ' ')" "powersave powersave performance " \
	"apply: CPUs 8 and 9 on powersave, 10 untouched"
run cx apply --runtime-only "$P"
is "$rc:$out" "0:nothing to change" "second apply: nothing to change"

# ---- show --json
run cx --json show ens1f0
is "$(printf '%s' "$out" | jq -c '.interfaces[0] | [.rss.default, .rss.rings, .rss.table[9], .flow_hash.udp4.fields, .flow_hash.udp4.ports, .flow_hash.udp6.ports, .private_flags.flags.rx_cqe_compress, .private_flags.flags.rx_striding_rq]')" \
	'[false,16,1,"sd",false,true,true,false]' "show --json: rss, flow_hash, private_flags"
is "$(printf '%s' "$out" | jq -c '.cpufreq.governors')" '{"performance":"0-7,10-31","powersave":"8-9"}' \
	"show --json: the governors and their CPUs"
printf '%s' "$out" >"$WORK/show.json"
python3 -c 'import json, sys, jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
	"$TOP/schemas/state.schema.json" "$WORK/show.json"
ok $? "show --json validates against schemas/state.schema.json"

# ---- drift: the hash, the private flags and a governor put back by hand
cp "$PRISTINE/ethtool/ens1f0/rx-flow-hash-udp4" "$PRISTINE/ethtool/ens1f0/show-priv-flags" "$E/"
echo performance >"$SR/sys/devices/system/cpu/cpu9/cpufreq/scaling_governor"
run cx verify --no-bench "$P"
is "$rc:$(printf '%s\n' "$out" | grep ': current ')" "3:  cpu9 scaling_governor: current performance, expected powersave
  ens1f0 private_flags.rx_cqe_compress: current off, expected on
  ens1f0 private_flags.rx_striding_rq: current on, expected off
  ens1f0 flow_hash.udp4: current sdfn, expected sd" "verify: each setting changed by hand is drift"

# ---- rollback: byte for byte
run cx rollback
is "$rc:$(printf '%s\n' "$out" | head -n 1)" "0:ens1f0  flow_hash.udp4  sdfn -> sdfn  applied" "rollback: newest first"
host_as_before
ok $? "rollback: every ethtool text, governor and sysroot file as before"

# ---- udp6: written, read back, rolled back byte for byte
printf 'version: 1\nname: u6\nmatch:\n  interfaces: [ens1f0]\nlink:\n  flow_hash: {udp6: sd}\n' >"$WORK/u6.yaml"
run cx plan --runtime-only "$WORK/u6.yaml"
is "$rc:$out" "2:ens1f0  flow_hash.udp6  sdfn -> sd
1 change pending" "udp6: plan"
run cx apply --runtime-only "$WORK/u6.yaml"
is "$rc:$(cat "$E/rx-flow-hash-udp6")" "0:UDP over IPV6 flows use these fields for computing Hash flow key:
IP SA
IP DA" "udp6: applied, hashed on the addresses only"
cp "$PRISTINE/ethtool/ens1f0/rx-flow-hash-udp6" "$E/"
run cx verify --no-bench "$WORK/u6.yaml"
is "$rc:$(printf '%s\n' "$out" | grep ': current ')" "3:  ens1f0 flow_hash.udp6: current sdfn, expected sd" \
	"udp6: put back by hand is drift"
run cx rollback
is "$rc" 0 "udp6: rollback exit 0"
cmp -s "$E/rx-flow-hash-udp6" "$PRISTINE/ethtool/ens1f0/rx-flow-hash-udp6"
ok $? "udp6: rolled back byte for byte"

# ---- what plan refuses
refused() { # refused NAME YAML CODE STDERR-LINE
	printf 'version: 1\nname: r\nmatch:\n  interfaces: [ens1f0]\n%s\n' "$2" >"$WORK/r.yaml"
	run cx apply --runtime-only "$WORK/r.yaml"
	is "$rc:$(printf '%s\n' "$err" | grep -F "$4")" "$3:$4" "$1: exit $3"
}
refused "a private flag the device does not have" "link:
  private_flags: {rx_cqe_compresss: on}" 65 \
	"cx5prof: error: ens1f0: $WORK/r.yaml:6:37: link.private_flags: ens1f0 has no private flag \"rx_cqe_compresss\" (it has rx_cqe_moder, tx_cqe_moder, rx_cqe_compress, rx_striding_rq, rx_no_csum_complete, xdp_tx_mpwqe, skb_tx_mpwqe, tx_port_ts): use one of the device's names (ethtool --show-priv-flags)"
refused "more RSS queues than rings" "link:
  rss: {equal: 32}" 5 \
	"cx5prof: error: ens1f0: link.rss: 32 receive queues asked for, ens1f0 has 16: spread over at most as many queues as the port has, or raise link.channels"
refused "a governor the CPUs do not offer" "host:
  cpufreq: {governor: ondemand, cpus: all}" 69 \
	"cx5prof: error: cpufreq: host.cpufreq: CPUs 0-31: the governor ondemand is not offered (they offer: performance powersave): choose one of the offered governors (scaling_available_governors)"
printf 'version: 1\nname: w\nmatch:\n  interfaces: [ens1f0]\nlink:\n  rss: {weights: [1, 1, 2]}\n' >"$WORK/w.yaml"
run cx plan --runtime-only "$WORK/w.yaml"
is "$rc:$out" "2:ens1f0  rss.indir  default -> weights 1 1 2  (after channels: the driver rebuilds a table nobody set when the channel count changes)
1 change pending" "weights: the table as the undo log keeps it"
run cx apply --runtime-only "$WORK/w.yaml"
is "$rc:$(grep -E '^ +(56|64|192):' "$E/show-rxfh")" "0:   56:      0     0     0     0     0     0     0     0
   64:      1     1     1     1     1     1     1     1
  192:      2     2     2     2     2     2     2     2" "weights 1 1 2: a quarter, a quarter, a half of the table"
# drift of the table: the driver's default spread put back by hand
cp "$E/show-rxfh" "$WORK/show-rxfh.weights"
cp "$PRISTINE/ethtool/ens1f0/show-rxfh" "$E/show-rxfh"
run cx verify --no-bench "$WORK/w.yaml"
is "$rc:$(printf '%s\n' "$out" | grep ': current ')" "3:  ens1f0 rss.indir: current default, expected weights 1 1 2" \
	"verify: an RSS table put back by hand is drift"
cp "$WORK/show-rxfh.weights" "$E/show-rxfh"
printf 'version: 1\nname: c\nmatch:\n  interfaces: [ens1f0]\nlink:\n  channels: {combined: 8}\n  rss: {equal: 4}\n' >"$WORK/c.yaml"
run cx plan --runtime-only "$WORK/c.yaml"
printf '%s\n' "$err" | grep -qF "cx5prof: error: ens1f0: link.rss with link.channels in one run: the RSS table was set by hand, and its undo could name receive queues the channel change removes: apply link.channels first, then link.rss: two profiles or two runs"
ok $? "a table set by hand and a channel change in one run: refused"
key=$(sed -n '/^RSS hash key:/{n;p}' "$E/show-rxfh" | tr '0-9a-f' '1-9a-f0')
printf 'version: 1\nname: k\nmatch:\n  interfaces: [ens1f0]\nlink:\n  rss: {key: "%s"}\n' "$key" >"$WORK/k.yaml"
run cx apply --runtime-only "$WORK/k.yaml"
is "$rc:$(sed -n '/^RSS hash key:/{n;p}' "$E/show-rxfh")" "0:$key" "rss.key: the hash key written, the table kept"
printf 'version: 1\nname: k\nmatch:\n  interfaces: [ens1f0]\nlink:\n  rss: {key: "7c:9c"}\n' >"$WORK/k2.yaml"
run cx plan --runtime-only "$WORK/k2.yaml"
is "$rc:$err" "5:cx5prof: error: ens1f0: link.rss.key: 2 bytes, the device's key has 40: give as many bytes as ethtool -x shows" \
	"rss.key of another size: exit 5"
run cx rollback
is "$rc" 0 "rollback of the key: exit 0"
run cx rollback
is "$rc" 0 "rollback of the weights: exit 0"
host_as_before
ok $? "after the refused profiles and the weights' rollback: host as before"

# equal: numa-local where the port's node has fewer CPUs than the driver's
# default spreads over (16 rings): 4 local CPUs, the table over queues 0-3.
LOCAL=$(readlink -f "$SR/sys/class/net/ens1f0/device")/local_cpulist
cp "$LOCAL" "$WORK/local_cpulist"
echo 8-11 >"$LOCAL"
printf 'version: 1\nname: nl\nmatch:\n  interfaces: [ens1f0]\nlink:\n  rss: {equal: numa-local}\n' >"$WORK/nl.yaml"
run cx plan --runtime-only "$WORK/nl.yaml"
is "$rc:$out" "2:ens1f0  rss.indir  default -> equal 4  (after channels: the driver rebuilds a table nobody set when the channel count changes)
1 change pending" "numa-local with 4 local CPUs: equal 4, not the driver's 16"
run cx apply --runtime-only "$WORK/nl.yaml"
is "$rc:$(sed -n '2,3p' "$E/show-rxfh")" "0:    0:      0     1     2     3     0     1     2     3
    8:      0     1     2     3     0     1     2     3" "numa-local: the table over queues 0-3"
run cx rollback
is "$rc" 0 "numa-local: rollback exit 0"
cp "$WORK/local_cpulist" "$LOCAL"
host_as_before
ok $? "numa-local: rolled back, host as before"

# A host without a cpufreq driver (cx5-nonuma, as a VM, or firmware that
# sets the frequency): a warning, nothing to change, exit 0.
printf 'version: 1\nname: v\nhost:\n  cpufreq: {governor: performance, cpus: all}\n' >"$WORK/v.yaml"
run ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$FIXTURES/sysroot/cx5-nonuma" --db "$DB" plan "$WORK/v.yaml"
is "$rc:$out:$err" "0:nothing to change:cx5prof: warning: host.cpufreq not applied: CPUs 0-3: no cpufreq driver (no /sys/devices/system/cpu/cpufreq/policyN): the firmware or the hypervisor sets the frequency" \
	"no cpufreq driver: a warning, no change, exit 0"
# A host with a driver where a listed CPU has no cpufreq: exit 69.
mv "$SR/sys/devices/system/cpu/cpu31/cpufreq" "$WORK/cpu31-cpufreq"
printf 'version: 1\nname: v\nhost:\n  cpufreq: {governor: performance, cpus: "30-31"}\n' >"$WORK/v.yaml"
run cx plan "$WORK/v.yaml"
is "$rc:$err" "69:cx5prof: error: cpufreq: host.cpufreq: CPUs 31: no cpufreq (cpuN/cpufreq absent, though the host has a cpufreq driver): load the CPU's cpufreq driver, or list only the CPUs that have one in host.cpufreq.cpus" \
	"a driver, and a CPU without cpufreq: exit 69"
mv "$WORK/cpu31-cpufreq" "$SR/sys/devices/system/cpu/cpu31/cpufreq"

# A sysroot without the ethtool texts: the veth answers, and the problem
# names the file that would have answered.
mv "$SR/ethtool" "$WORK/ethtool"
printf 'version: 1\nname: s\nmatch:\n  interfaces: [ens1f0]\nlink:\n  rss: {equal: 4}\n' >"$WORK/s.yaml"
run cx plan --runtime-only "$WORK/s.yaml"
is "$rc:$err" "69:cx5prof: error: ens1f0: link.rss: the driver has no RSS table: Operation not supported (the sysroot has no $SR/ethtool/ens1f0/show-rxfh: the kernel's ens1f0 answered): remove link.rss from the profile for this port" \
	"a sysroot without ethtool/ens1f0/show-rxfh: the problem names it"
mv "$WORK/ethtool" "$SR/ethtool"

done_testing
