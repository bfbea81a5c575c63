#!/usr/bin/env bash
# 140-xps-96cpu.t: the shipped profiles/udp-jumbo.yaml on a generated
# 96-CPU host (2 nodes, 2 ConnectX-5 ports of 16 channels on node 1, every
# completion IRQ on CPU0, XPS where the driver put it when the device
# opened, the powersave governor), veths named like its ports in the lab's
# namespaces. apply leaves every tx queue's XPS mask on the CPU of its
# completion IRQ (the CPUs irq.policy pins in the same run), the NIC-local
# CPUs on the performance governor, RSS and the udp4 hash as they were
# (already so); verify sees an XPS mask moved as drift; rollback restores
# the sysroot byte for byte (diff -r).
. "$(dirname "$0")/lib.sh"
need_root_netns
need_tool jq
need_python_module

export CX5LAB_PREFIX=cx5t-140-$$
LAB=$TOP/contrib/lab/lab.sh
WORK=$(mktemp -d /tmp/cx5t-140.XXXXXX)
SR=$WORK/sysroot
DB=$WORK/history.db
cleanup() {
	"$LAB" down >/dev/null 2>&1
	rm -f "/run/lock/cx5prof-host-$(stat -c '%d-%i' "$SR" 2>/dev/null).lock"
	rm -rf "$WORK"
}
trap cleanup EXIT

"$FIXTURES/gen-sysroot.py" --nodes 2 --cpus 96 --ports 2 --channels 16 --nic-node 1 "$SR" >/dev/null ||
	{ echo "Bail out! gen-sysroot.py failed"; exit 1; }
cp -a "$SR" "$WORK/pristine"
"$LAB" up --sysroot "$SR" >/dev/null || { echo "Bail out! lab.sh up failed"; exit 1; }
cx() { ip netns exec "$CX5LAB_PREFIX-host" "$CX5PROF" --sysroot "$SR" --db "$DB" "$@"; }
P=$TOP/profiles/udp-jumbo.yaml

# Each port's tx queues whose mask is not the CPU of its completion IRQ
# (mlx5_comp<N>@pci:<BDF>, queue N = channel N), as "ens1f0 tx-3 mask->cpu".
xps_off() {
	python3 - "$SR" <<'EOF'
import os, re, sys
root = sys.argv[1]
irq_of = {}
for line in open(root + "/proc/interrupts"):
    m = re.match(r"\s*(\d+):.*\smlx5_comp(\d+)@pci:(\S+)$", line)
    if m:
        irq_of[(m.group(3), int(m.group(2)))] = m.group(1)
for ifname in sorted(os.listdir(root + "/sys/class/net")):
    dev = root + "/sys/class/net/" + ifname + "/device"
    if not os.path.exists(dev + "/vendor"):
        continue
    bdf = os.path.basename(os.readlink(dev))
    for q in range(16):
        cpu = int(open("%s/proc/irq/%s/smp_affinity_list" % (root, irq_of[(bdf, q)])).read())
        mask = open("%s/sys/class/net/%s/queues/tx-%d/xps_cpus" % (root, ifname, q)).read().strip()
        if int(mask.replace(",", ""), 16) != 1 << cpu:
            print("%s tx-%d %s->%d" % (ifname, q, mask, cpu))
EOF
}
is "$(xps_off | wc -l)" 32 "before: all 32 tx queues off their completion IRQ's CPU (IRQs on CPU0)"
is "$(cat "$SR/sys/class/net/ens1f0/queues/tx-0/xps_cpus")" "00000000,00000000,01000000" \
	"before: a 96-bit mask, tx-0 on CPU 24 (the node's first CPU at open)"

# ---- plan
run cx plan "$P"
is "$rc" 2 "plan: changes pending"
is "$(printf '%s\n' "$out" | grep -c '^cpu[0-9]*  scaling_governor  powersave -> performance$')" 48 \
	"plan: the governor of node 1's 48 CPUs"
is "$(printf '%s\n' "$out" | grep -c '^irq ')" 32 "plan: 32 IRQ pins"
is "$(printf '%s\n' "$out" | grep -c '^ens1f[01]  xps tx-')" 31 \
	"plan: every tx queue follows its IRQ's planned CPU (ens1f0 tx-0 is there already: CPU 24)"
is "$(printf '%s\n' "$out" | grep -E '^(irq ens1f0 q5 |ens1f0  xps tx-5 )')" "irq ens1f0 q5  smp_affinity_list 211  0 -> 34
ens1f0  xps tx-5  29 -> 34" "plan: tx-5 goes where its IRQ is planned, not where the IRQ is now"
is "$(printf '%s\n' "$out" | grep -cE '  (rss|flow_hash)\.')" 0 "plan: RSS (16 queues = the default) and the udp4 hash (sdfn) already so"

# ---- apply: every mask on its IRQ's CPU
run cx apply --runtime-only "$P"
is "$rc:$(printf '%s\n' "$out" | tail -n 1)" "0:applied 115 changes (transaction 1)" \
	"apply: 2 sysctls, 48 governors, 2 MTUs, 32 IRQs, 31 XPS masks"
is "$(xps_off)" "" "apply: every tx queue's XPS mask is on the CPU of its completion IRQ"
is "$(cat "$SR/sys/class/net/ens1f0/queues/tx-5/xps_cpus")" "00000000,00000004,00000000" \
	"apply: written in the kernel's format (CPU 34, 96 bits)"
is "$(cat "$SR/sys/devices/system/cpu/cpu24/cpufreq/scaling_governor") $(cat "$SR/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")" \
	"performance powersave" "apply: NIC-local CPU 24 on performance, CPU 0 (node 0) untouched"
run cx apply --runtime-only "$P"
is "$rc:$out" "0:nothing to change" "second apply: nothing to change"
run cx --json show ens1f0
is "$(printf '%s' "$out" | jq -c '.interfaces[0].xps | [.status, .rx_queues, .tx[5]]')" '["ok",16,"34"]' \
	"show --json: the xps masks as CPU lists"

# ---- verify: a mask moved by hand is drift
run cx verify --no-bench "$P"
is "$rc" 0 "verify: in the profile's state"
Q=$SR/sys/class/net/ens1f1/queues/tx-2/xps_cpus
applied=$(cat "$Q")
printf '00000000,00000000,00000001\n' >"$Q"
run cx verify --no-bench "$P"
is "$rc" 3 "verify: a moved XPS mask is drift (exit 3)"
printf '%s\n' "$out" | grep -q '^  ens1f1 xps tx-2: current 0, expected [0-9]*$'
ok $? "verify: names the queue, its CPUs and the expected ones"
printf '%s\n' "$applied" >"$Q"

# ---- rollback: the sysroot byte for byte as before
run cx rollback
is "$rc:$(printf '%s\n' "$out" | tail -n 1)" "0:rolled back transaction 1 (recorded as transaction 2)" "rollback: exit 0"
run diff -r --no-dereference "$WORK/pristine" "$SR"
is "$rc:$out" "0:" "rollback: every XPS mask, governor, IRQ pin and sysctl byte for byte as before"

done_testing
