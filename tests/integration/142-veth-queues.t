#!/usr/bin/env bash
# 142-veth-queues.t: link.xps and link.txqueuelen on a real veth with two
# queues in a network namespace, without a sysroot (under `ip netns exec`
# /sys is the namespace's own): plan, apply read back from
# queues/tx-N/xps_cpus and `ip link`, idempotent, verify drift, show
# --json, rollback to the exact bytes. What a veth does not have: link.xps
# auto (no completion IRQs), link.rss, link.flow_hash and
# link.private_flags are plan problems, exit 69, with the kernel's answer;
# nothing changed.
. "$(dirname "$0")/lib.sh"
need_root_netns
need_tool jq
need_python_module

NS=cx5t-142-$$
WORK=$(mktemp -d /tmp/cx5t-142.XXXXXX)
DB=$WORK/history.db
cleanup() { ip netns del "$NS" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
ip netns add "$NS" || { echo "Bail out! cannot create namespace"; exit 1; }
ip -n "$NS" link add v142a numtxqueues 2 numrxqueues 2 type veth peer name v142b numtxqueues 2 numrxqueues 2 ||
	{ echo "Bail out! cannot create veth"; exit 1; }
cx() { ip netns exec "$NS" "$CX5PROF" --db "$DB" "$@"; }
nsh() { ip netns exec "$NS" sh -c "$1"; }
Q=/sys/class/net/v142a/queues
masks() { nsh "cat $Q/tx-0/xps_cpus $Q/tx-1/xps_cpus" | tr '\n' ' '; }
qlen() { ip -n "$NS" -o link show v142a | sed -n 's/.* qlen \([0-9]*\).*/\1/p'; }
before="$(masks)|$(qlen)"

# The first two online CPUs (one on a single-CPU machine): tx-0 on the
# first, tx-1 on the second.
read -r c0 c1 <<<"$(nsh 'cat /sys/devices/system/cpu/online' | python3 -c '
import sys
cpus = []
for part in sys.stdin.read().strip().split(","):
    a, _, b = part.partition("-")
    cpus += range(int(a), int(b or a) + 1)
print(cpus[0], cpus[1] if len(cpus) > 1 else cpus[0])')"
P=$WORK/veth.yaml
printf 'version: 1\nname: veth-queues\nmatch:\n  interfaces: [v142a]\nlink:\n  txqueuelen: 2000\n  xps: "%s,%s"\n' \
	"$c0" "$c1" >"$P"

# ---- plan and apply
run cx plan --runtime-only "$P"
is "$rc:$out" "2:v142a  txqueuelen  1000 -> 2000
v142a  xps tx-0  none -> $c0
v142a  xps tx-1  none -> $c1
3 changes pending" "plan: the queue length and one XPS change per tx queue (none: no XPS yet)"
run cx apply --runtime-only "$P"
is "$rc:$(printf '%s\n' "$out" | tail -n 1)" "0:applied 3 changes (transaction 1)" "apply: exit 0"
is "$(masks | python3 -c 'import sys; print(" ".join(str(int(m.replace(",", ""), 16)) for m in sys.stdin.read().split()))')" \
	"$((1 << c0)) $((1 << c1))" "apply: xps_cpus of tx-0 and tx-1 read back from sysfs"
is "$(qlen)" 2000 "apply: ip link shows qlen 2000"
run cx apply --runtime-only "$P"
is "$rc:$out" "0:nothing to change" "second apply: nothing to change"
run cx --json show v142a
is "$(printf '%s' "$out" | jq -c '.interfaces[0] | [.xps.status, .xps.rx_queues, .xps.tx, .link.txqueuelen, .rss.status, .private_flags.status]')" \
	"[\"ok\",2,[\"$c0\",\"$c1\"],2000,\"unsupported\",\"unsupported\"]" "show --json: the masks; RSS and private flags unsupported"

# ---- drift
nsh "echo 0 > $Q/tx-1/xps_cpus"
run cx verify --no-bench "$P"
is "$rc:$(printf '%s\n' "$out" | grep 'xps tx-1')" "3:  v142a xps tx-1: current none, expected $c1" \
	"verify: a cleared mask is drift (exit 3)"

# ---- rollback: the masks and the queue length as they were
run cx rollback
is "$rc" 0 "rollback: exit 0"
is "$(masks)|$(qlen)" "$before" "rollback: xps_cpus byte for byte and qlen as before"

# ---- what a veth cannot do: exit 69, the kernel's answer, nothing changed
unsupported() { # unsupported NAME LINK-YAML EXPECTED-STDERR
	printf 'version: 1\nname: u\nmatch:\n  interfaces: [v142a]\nlink:\n%s\n' "$2" >"$WORK/u.yaml"
	run cx apply --runtime-only "$WORK/u.yaml"
	is "$rc:$err" "69:$3" "$1: exit 69 with the reason"
}
unsupported "xps auto" "  xps: auto" \
	"cx5prof: error: v142a: link.xps: auto follows the completion IRQs, and the port has none: give link.xps a CPU list for this port, or match only ports with a PCI function (on a test host: a --sysroot that has it)"
unsupported "rss" "  rss: {equal: 2}" \
	"cx5prof: error: v142a: link.rss: the driver has no RSS table: Operation not supported: remove link.rss from the profile for this port"
unsupported "flow hash" "  flow_hash: {udp4: sdfn}" \
	"cx5prof: error: v142a: link.flow_hash.udp4: the driver does not report its flow hash: Operation not supported: remove link.flow_hash from the profile for this port"
unsupported "private flags" "  private_flags: {rx_cqe_compress: on}" \
	"cx5prof: error: v142a: link.private_flags: the driver has no private flags: Operation not supported: remove link.private_flags from the profile for this port"
is "$(masks)|$(qlen)" "$before" "after the refused profiles: nothing changed"

done_testing
