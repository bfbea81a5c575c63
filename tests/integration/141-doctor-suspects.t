#!/usr/bin/env bash
# 141-doctor-suspects.t: doctor names the suspects of a UDP collapse on the
# stock cx5-2port fixture (the lab: veths + a private copy of the sysroot)
# with udp-jumbo.yaml: irq-placement fails (every completion IRQ on CPU0,
# off node 1, with the count and the fix), buffers warns (rmem_max 212992
# below verify.socket_buffer 4M), xps warns (masks where the driver put
# them at open), pcie-mrrs warns (512); after `apply` irq-placement,
# buffers and xps pass; after rollback they fail and warn again. --json
# validates against schemas/doctor.schema.json.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
need_python_module jsonschema
txn_setup 141

P=$WORK/profiles/udp-jumbo.yaml
check() { printf '%s\n' "$out" | sed -n "/^[A-Z]*  $1 *$2 /{p;n;/^  *fix: /p}"; }

run cx doctor "$P"
is "$rc" 5 "stock fixture: a failed check, exit 5"
is "$(check ens1f0 irq-placement)" "FAIL  ens1f0          irq-placement 16 of 16 completion IRQs misplaced: 16 may run on CPU0, 16 off node 1 (8-15,24-31)
                                  fix: pin them with irq.policy: numa-local (and irq.irqbalance: stop) in the profile, then apply it" \
	"irq-placement fails: the count, CPU0, the node, the fix"
is "$(check host buffers)" "WARN  host            buffers     net.core.rmem_max 212992 < verify.socket_buffer.receive 4194304, net.core.wmem_max 212992 < verify.socket_buffer.send 4194304: the benchmark's socket buffers would be clamped silently (netperf -s/-S)
                                  fix: raise them with sysctl floors (net.core.rmem_max: \">= 4M\") in the profile and apply it" \
	"buffers warns: both limits below the profile's socket buffers"
is "$(check ens1f1 xps | head -n 1)" "WARN  ens1f1          xps         16 of 16 transmit queues send from other CPUs than their completion IRQ's (stale XPS: tx-0 on CPU 8, its IRQ on 0)" \
	"xps warns: stale masks"
is "$(check ens1f0 pcie-mrrs | head -n 1)" "WARN  ens1f0          pcie-mrrs   PCIe MaxReadReq 512 bytes, below 4096: each transmitted frame takes more read requests" \
	"pcie-mrrs: read from the PCI config space"
is "$(check ens1f0 flow-hash)$(check host cpufreq)" "PASS  ens1f0          flow-hash   udp4 flows hashed on addresses and ports (sdfn)PASS  host            cpufreq     the performance governor on the NIC-local CPUs 8-15,24-31" \
	"flow-hash and cpufreq pass"
cx doctor --json "$P" >"$WORK/doctor.json"
python3 -c 'import json, sys, jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
	"$TOP/schemas/doctor.schema.json" "$WORK/doctor.json"
ok $? "doctor --json validates against schemas/doctor.schema.json"

run cx apply --runtime-only "$P"
is "$rc" 0 "apply udp-jumbo: exit 0"
run cx doctor "$P"
is "$(check ens1f0 irq-placement)$(check ens1f1 irq-placement)" "PASS  ens1f0          irq-placement 16 completion IRQs on node 1 (8-15,24-31), none on CPU0PASS  ens1f1          irq-placement 16 completion IRQs on node 1 (8-15,24-31), none on CPU0" \
	"after apply: irq-placement passes"
is "$(check host buffers)" "PASS  host            buffers     net.core.rmem_max 4194304 >= verify.socket_buffer.receive 4194304, net.core.wmem_max 4194304 >= verify.socket_buffer.send 4194304" \
	"after apply: buffers passes"
is "$(check ens1f0 xps)$(check ens1f1 xps)" "PASS  ens1f0          xps         each of 16 transmit queues sends from its completion IRQ's CPUPASS  ens1f1          xps         each of 16 transmit queues sends from its completion IRQ's CPU" \
	"after apply: xps passes (the masks followed the IRQs)"

run cx rollback
is "$rc" 0 "rollback: exit 0"
host_as_before
ok $? "rollback: host exactly as before"
run cx doctor "$P"
is "$rc:$(check ens1f0 irq-placement | head -n 1 | cut -c1-4):$(check host buffers | head -n 1 | cut -c1-4)" "5:FAIL:WARN" \
	"after rollback: irq-placement fails and buffers warns again"

done_testing
