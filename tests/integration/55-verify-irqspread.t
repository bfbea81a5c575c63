#!/usr/bin/env bash
# 55-verify-irqspread.t: the IRQ spread and softirq thresholds end to end.
# A veth has no IRQs, so while iperf3 runs across the lab's veth pair the
# test plays the NIC: it adds completion interrupts of ens1f0 (the sysroot
# copy's /proc/interrupts) and softirq time (/proc/stat), all on CPU0, the
# seed's "single core at 100%" picture, and verify must see it from the
# deltas alone.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
need_root_netns
vsetup v55

profile() { # profile FILE IRQ_SECTION
	cat >"$1" <<YAML
version: 1
name: lab-spread
match:
  interfaces: [ens1f0]
$2
verify:
  peer: 198.18.0.2
  runner: [iperf3]
  duration: 2
  message_size: 1400
  thresholds:
    irq_planned_percent: 90
    irq_max_cpu_percent: 50
    softirq_max_percent: 90
YAML
}
profile "$WORK/pinned.yaml" ""
profile "$WORK/numa.yaml" "irq:
  policy: numa-local"

# During the run: +1000 interrupts per ens1f0 completion queue on CPU0,
# and on CPU0 950 of 1000 jiffies in softirq (every other CPU idle). verify
# is held after its benchmark (CX5PROF_TEST_PAUSE=bench-done), between its
# two snapshots, while the test plays the NIC, then released.
mkfifo "$WORK/bench.fifo"
play_nic() {
	pause_wait "$WORK/bench.fifo" >/dev/null || return 1
	"$PY" - "$SR" <<'PYEOF'
import os, re, sys
sr = sys.argv[1]
p = sr + "/proc/interrupts"
out = []
for line in open(p):
    if re.search(r"mlx5_comp\d+@pci:0000:af:00\.0$", line.rstrip()):
        m = re.match(r"(\s*\d+:\s+)(\d+)", line)
        line = m.group(1) + str(int(m.group(2)) + 1000).rjust(len(m.group(2))) + line[m.end():]
    out.append(line)
open(p + ".new", "w").write("".join(out))
os.rename(p + ".new", p)
p = sr + "/proc/stat"
out = []
for line in open(p):
    f = line.split()
    if f and re.fullmatch(r"cpu\d+", f[0]):
        v = [int(x) for x in f[1:]]
        if f[0] == "cpu0":
            v[0] += 50; v[6] += 950
        else:
            v[3] += 1000
        line = f[0] + " " + " ".join(map(str, v)) + "\n"
    out.append(line)
open(p + ".new", "w").write("".join(out))
os.rename(p + ".new", p)
PYEOF
	pause_release "$WORK/bench.fifo"
}
cxp() { CX5PROF_TEST_PAUSE=bench-done:$WORK/bench.fifo cx "$@"; }

# ---- IRQs where they are pinned (CPU0): planned share passes, the rest fails
cp -a "$SR/proc/interrupts" "$WORK/interrupts.orig"
cp -a "$SR/proc/stat" "$WORK/stat.orig"
iperf3_server
play_nic &
V_PIDS="$V_PIDS $!"
run cxp verify "$WORK/pinned.yaml"
is "$rc" 4 "all on CPU0: thresholds fail, exit 4"
is "$(printf '%s\n' "$out" | sed -n '/^thresholds/,/^irq spread/p')" "thresholds
  interrupts on planned CPUs >= 90 %: 100.00 %  pass
  interrupts on the busiest CPU <= 50 %: 100.00 %  fail
  softirq time on the busiest CPU <= 90 %: 95.00 %  fail
irq spread  16000 interrupts, 100.0% on planned CPUs, busiest CPU 0 with 100.0%; softirq busiest CPU 0 at 95.0%" \
	"all on CPU0: 16 queues x 1000 interrupts, one CPU took them all, softirq 95%"

# ---- the profile wants them NUMA-local: drift, and (--bench-anyway) the share on planned CPUs is 0
cp -a "$WORK/interrupts.orig" "$SR/proc/interrupts"
cp -a "$WORK/stat.orig" "$SR/proc/stat"
wait_closed 5201
iperf3_server
play_nic &
V_PIDS="$V_PIDS $!"
run cxp verify "$WORK/numa.yaml" --json --bench-anyway
is "$rc" 3 "numa-local profile: drift first, exit 3"
is "$(printf '%s\n' "$out" | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
irq = [x for x in d["state"]["drifts"] if x["object"].startswith("irq ens1f0")]
s = d["irq_spread"]
print(len(irq), irq[0]["current"], s["interrupts"], s["planned_percent"], s["max_cpu"],
      [(t["name"], t["status"]) for t in d["thresholds"]])')" \
	"16 0 16000 0.0 0 [('irq_planned_percent', 'fail'), ('irq_max_cpu_percent', 'fail'), ('softirq_max_percent', 'fail')]" \
	"numa-local profile: 16 IRQ pins drift, none of the interrupts on the planned CPUs"

done_testing
