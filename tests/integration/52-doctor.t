#!/usr/bin/env bash
# 52-doctor.t: `cx5prof doctor` on the sysroot fixtures and on private
# copies made known-bad: degraded PCIe and old firmware (cx5-8node), a
# kernel log with mlx5 firmware command timeouts, a NIC without a NUMA
# node on a NUMA host, and --peer-state comparisons. No privileges needed:
# no interface of the fixtures exists in this namespace.
. "$(dirname "$0")/lib.sh"
FIX=$FIXTURES/sysroot
WORK=$(mktemp -d /tmp/cx5t-doctor.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cxs() { local sr=$1; shift; "$CX5PROF" --sysroot "$sr" "$@"; }

# ---- the stock two-port host: every completion IRQ on CPU0, off the
# NIC's node (irq-placement fails), XPS left where the driver put it at
# open, irqbalance running, PCIe MaxReadReq 512
run cxs "$FIX/cx5-2port" doctor
is "$rc" 5 "cx5-2port: exit 5 (irq-placement fails)"
is "$out" "PASS  ens1f0          model       ConnectX-5 (15b3:1017) at 0000:af:00.0
PASS  ens1f0          link        25000 Mb/s full duplex
PASS  ens1f0          driver      driver mlx5_core 6.12.12-amd64
PASS  ens1f0          firmware    firmware 16.29.1030 (>= 16.26.1040)
PASS  ens1f0          numa        NUMA node 1, local CPUs 8-15,24-31
PASS  ens1f0          pcie        PCIe 8.0 GT/s x8 (its maximum)
WARN  ens1f0          pcie-mrrs   PCIe MaxReadReq 512 bytes, below 4096: each transmitted frame takes more read requests
                                  fix: raise it to 4096 in the BIOS PCIe settings, or with setpci (Device Control of the PCI Express capability, bits 14:12 = 5); mlnx_tune reports it too
FAIL  ens1f0          irq-placement 16 of 16 completion IRQs misplaced: 16 may run on CPU0, 16 off node 1 (8-15,24-31)
                                  fix: pin them with irq.policy: numa-local (and irq.irqbalance: stop) in the profile, then apply it
WARN  ens1f0          xps         16 of 16 transmit queues send from other CPUs than their completion IRQ's (stale XPS: tx-0 on CPU 8, its IRQ on 0)
                                  fix: set link.xps: auto in the profile and apply it: the queues then follow their completion IRQs
PASS  ens1f0          flow-hash   udp4 flows hashed on addresses and ports (sdfn)
SKIP  ens1f0          counters    not in this network namespace
SKIP  ens1f0          idle-drops  not in this network namespace
PASS  ens1f1          model       ConnectX-5 (15b3:1017) at 0000:af:00.1
PASS  ens1f1          link        25000 Mb/s full duplex
PASS  ens1f1          driver      driver mlx5_core 6.12.12-amd64
PASS  ens1f1          firmware    firmware 16.29.1030 (>= 16.26.1040)
PASS  ens1f1          numa        NUMA node 1, local CPUs 8-15,24-31
PASS  ens1f1          pcie        PCIe 8.0 GT/s x8 (its maximum)
WARN  ens1f1          pcie-mrrs   PCIe MaxReadReq 512 bytes, below 4096: each transmitted frame takes more read requests
                                  fix: raise it to 4096 in the BIOS PCIe settings, or with setpci (Device Control of the PCI Express capability, bits 14:12 = 5); mlnx_tune reports it too
FAIL  ens1f1          irq-placement 16 of 16 completion IRQs misplaced: 16 may run on CPU0, 16 off node 1 (8-15,24-31)
                                  fix: pin them with irq.policy: numa-local (and irq.irqbalance: stop) in the profile, then apply it
WARN  ens1f1          xps         16 of 16 transmit queues send from other CPUs than their completion IRQ's (stale XPS: tx-0 on CPU 8, its IRQ on 0)
                                  fix: set link.xps: auto in the profile and apply it: the queues then follow their completion IRQs
PASS  ens1f1          flow-hash   udp4 flows hashed on addresses and ports (sdfn)
SKIP  ens1f1          counters    not in this network namespace
SKIP  ens1f1          idle-drops  not in this network namespace
PASS  host            firewall    no packet filter active
WARN  host            irqbalance  irqbalance is running: it overwrites manual IRQ pins
                                  fix: set irq.irqbalance: stop (or ban) in the profile and apply it
SKIP  host            buffers     no verify.socket_buffer in the profile to compare net.core.rmem_max and wmem_max with
PASS  host            cpufreq     the performance governor on the NIC-local CPUs 8-15,24-31
SKIP  host            kernel-log  no kernel ring buffer (/dev/kmsg) and no kernel log file (/var/log/kern.log, /var/log/dmesg, /var/log/messages)
SKIP  peer            peer-port   no profile and no --peer: the peer is not checked
SKIP  peer            jumbo-path  no profile and no --peer: the peer is not checked
16 pass, 5 warn, 2 fail, 8 skipped" "cx5-2port: the checklist"

# ---- degraded PCIe and old firmware (the 8-node fixture)
run cxs "$FIX/cx5-8node" doctor
is "$rc" 5 "cx5-8node: a failed check: exit 5"
is "$(printf '%s\n' "$out" | grep --no-group-separator -A1 -E '^(FAIL|WARN) ')" "WARN  enp216s0f0np0   firmware    firmware 16.21.0106 is older than 16.26.1040 (cx5prof's recommended minimum)
                                  fix: update the NIC firmware (mlxup or mstflint)
FAIL  enp216s0f0np0   pcie        PCIe link degraded: 16.0 GT/s x8, capable of 16.0 GT/s x16
                                  fix: seat the card in a slot wired for its full width and speed; check BIOS bifurcation and ASPM
FAIL  enp216s0f0np0   irq-placement 63 of 63 completion IRQs misplaced: 63 may run on CPU0, 63 off node 5 (30-35,78-83)
                                  fix: pin them with irq.policy: numa-local (and irq.irqbalance: stop) in the profile, then apply it
WARN  enp216s0f0np0   xps         62 of 63 transmit queues send from other CPUs than their completion IRQ's (stale XPS: tx-0 on CPU 30, its IRQ on 0)
                                  fix: set link.xps: auto in the profile and apply it: the queues then follow their completion IRQs
WARN  enp216s0f0np0   flow-hash   udp4 flows are hashed without the UDP ports (sd): every flow between two hosts lands on one receive queue
                                  fix: set link.flow_hash.udp4: sdfn in the profile and apply it (ethtool -N DEV rx-flow-hash udp4 sdfn)
WARN  host            firewall    a packet filter is active (ip_tables: filter): the benchmark's ports may be blocked
                                  fix: open the benchmark's ports from the peer, keep the filter: TCP 12866 (cx5prof serve), TCP 12865 (netserver), TCP and UDP 5201 (iperf3), and UDP 32768-60999 (their data ports, net.ipv4.ip_local_port_range)
WARN  host            cpufreq     the NIC-local CPUs 30-35,78-83 run the schedutil governor: a core at a low frequency caps a single UDP stream
                                  fix: set host.cpufreq.governor: performance in the profile and apply it (mlnx_tune and tuned set it too)" \
	"cx5-8node: firmware, PCIe, IRQ placement, XPS, flow hash, firewall and governor findings with fixes"

# A profile's firmware minimum turns the warning into a failure.
cat >"$WORK/fw.yaml" <<YAML
version: 1
name: fw-min
requires:
  firmware:
    min_version: "16.26.1040"
  link:
    speed: 25000
    duplex: full
YAML
run cxs "$FIX/cx5-8node" doctor "$WORK/fw.yaml"
printf '%s\n' "$out" | grep -qx 'FAIL  enp216s0f0np0   firmware    firmware version 16.21.0106 is older than the required 16.26.1040 (requires.firmware.min_version)'
ok $? "profile minimum: old firmware fails"

# ---- a kernel log with mlx5 firmware command timeouts (reference section 5)
copy_sysroot cx5-2port "$WORK/klog"
mkdir -p "$WORK/klog/var/log"
cat >"$WORK/klog/var/log/kern.log" <<'LOG'
Dec  2 10:00:01 host kernel: [    1.000000] mlx5_core 0000:af:00.0: firmware version: 16.29.1030
Dec  2 10:00:02 host kernel: [ 4711.123456] mlx5_core 0000:af:00.0: wait_func:1133:(pid 97972): ENABLE_HCA(0x104) timeout. Will cause a leak of a command resource
Dec  2 10:00:03 host kernel: [ 4712.000001] mlx5_core 0000:af:00.0: wait_func_handle_exec_timeout:1159:(pid 72061): cmd[0]: ACCESS_REG(0x805) No done completion
Dec  2 10:00:04 host kernel: [ 4713.000001] mlx5_core 0000:af:00.0: mlx5_cmd_comp_handler:1709:(pid 0): Command completion arrived after timeout (entry idx = 0).
Dec  2 10:00:05 host kernel: [ 4714.000001] mlx5_core 0000:af:00.1: probe_one:1686:(pid 97972): mlx5_init_one failed with error code -110
Dec  2 10:00:06 host kernel: [ 4715.000001] e1000e 0000:00:1f.6: wait_func timeout on another driver (not mlx5)
LOG
run cxs "$WORK/klog" doctor
is "$rc" 5 "kernel log: exit 5"
is "$(printf '%s\n' "$out" | grep -A1 '^FAIL  host ')" "FAIL  host            kernel-log  4 mlx5 firmware command timeouts in /var/log/kern.log, first: Dec  2 10:00:02 host kernel: [ 4711.123456] mlx5_core 0000:af:00.0: wait_func:1133:(pid 97972): ENABLE_HCA(0x104) timeout. Will cause a leak of a command resource
                                  fix: the firmware command interface is stuck: update the NIC firmware and the driver; a reboot or \`mlxfwreset\` recovers it" \
	"kernel log: timeouts counted by function name, first one shown"
printf 'Dec  2 10:00:01 host kernel: mlx5_core 0000:af:00.0: Port module event: module 0, Cable plugged\n' >"$WORK/klog/var/log/kern.log"
run cxs "$WORK/klog" doctor
printf '%s\n' "$out" | grep -qx 'PASS  host            kernel-log  no mlx5 firmware command timeouts in /var/log/kern.log'
ok $? "kernel log without timeouts: pass"

# ---- a NIC that reports no NUMA node on a 2-node host
copy_sysroot cx5-2port "$WORK/nonode"
echo -1 >"$WORK/nonode/sys/bus/pci/devices/0000:af:00.0/numa_node" 2>/dev/null ||
	echo -1 >"$(readlink -f "$WORK/nonode/sys/class/net/ens1f0/device")/numa_node"
run cxs "$WORK/nonode" doctor
printf '%s\n' "$out" | grep -qx 'WARN  ens1f0          numa        the device reports no NUMA node (-1) on a host with 2 nodes'
ok $? "numa_node -1 on a NUMA host: warning"
run cxs "$FIX/cx5-nonuma" doctor
printf '%s\n' "$out" | grep -qx 'PASS  ens1f0          numa        a host without NUMA; local CPUs 0-3'
ok $? "a host without NUMA: pass"

# ---- --peer-state: model, driver and firmware must match
cxs "$FIX/cx5-8node" show --json >"$WORK/peer-8node.json"
cxs "$FIX/cx5-2port" show --json >"$WORK/peer-2port.json"
run cxs "$FIX/cx5-2port" doctor --peer-state "$WORK/peer-8node.json"
is "$rc" 5 "peer differs: exit 5"
is "$(printf '%s\n' "$out" | grep -A1 'peer-state')" "FAIL  ens1f0          peer-state  results are not comparable: model: ConnectX-5 here, ConnectX-5 Ex on the peer; firmware: 16.29.1030 here, 16.21.0106 on the peer
                                  fix: run both ends with the same NIC model, driver and firmware, or compare results only between like hosts" \
	"peer differs: every difference named"
run cxs "$FIX/cx5-2port" doctor --peer-state "$WORK/peer-2port.json"
printf '%s\n' "$out" | grep -qx 'PASS  ens1f0          peer-state  same as the peer: model ConnectX-5, driver mlx5_core, firmware 16.29.1030'
ok $? "peer alike: pass"
echo '{"interfaces": [' >"$WORK/bad.json"
run cxs "$FIX/cx5-2port" doctor --peer-state "$WORK/bad.json"
printf '%s\n' "$out" | grep -q "^FAIL  $WORK/bad.json peer-state  cannot read $WORK/bad.json as JSON"
ok $? "unreadable peer state: a failed check"
is "$rc" 5 "unreadable peer state: exit 5"

# ---- --json against the schema
cxs "$FIX/cx5-8node" doctor --json --peer-state "$WORK/peer-2port.json" >"$WORK/d.json"
run /usr/bin/python3 - "$WORK/d.json" "$TOP/schemas/doctor.schema.json" <<'PYEOF'
import json, sys, jsonschema
d = json.load(open(sys.argv[1]))
jsonschema.validate(d, json.load(open(sys.argv[2])))
print(d["summary"], d["exit_code"], [c["check"] for c in d["checks"] if c["status"] == "fail"])
PYEOF
is "$out" "{'pass': 6, 'warn': 5, 'fail': 3, 'skip': 6} 5 ['pcie', 'irq-placement', 'peer-state']" "--json: valid, summary and failures"

run cxs "$FIX/cx5-2port" doctor a.yaml b.yaml
is "$rc" 64 "two profiles: usage error"

done_testing
