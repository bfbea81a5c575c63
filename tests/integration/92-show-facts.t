#!/usr/bin/env bash
# 92-show-facts.t: the golden files of `show` (tests/expected/, which
# 30-show.t compares byte for byte and CX5PROF_REGEN rewrites from the code
# under test) checked independently: tests/helpers/sysroot_facts.py reads
# each fixture's sysroot with no code of cx5prof (PCI identity, NUMA node
# and local CPUs, driver, firmware, PCIe link, every MSI IRQ's
# /proc/interrupts row, kind, queue, affinities and node, the link speed
# the sysroot gives, the sysctls, irqbalance) and every fact must be stated
# by both the JSON and the human golden file. A golden file regenerated
# from a wrong cx5prof fails here.
. "$(dirname "$0")/lib.sh"
need_python_module json

for fx in cx5-2port cx5-8node cx5-nonuma; do
	run /usr/bin/python3 "$TESTS_DIR/helpers/sysroot_facts.py" "$FIXTURES/sysroot/$fx" \
		"$TESTS_DIR/expected/show-$fx.json" "$TESTS_DIR/expected/show-$fx.txt"
	is "$rc" 0 "$fx: the golden files state every fact of the sysroot"
	[ "$rc" = 0 ] || diag "$out"
	n=$(printf '%s\n' "$out" | sed -n 's/^checked \([0-9]*\) facts$/\1/p')
	[ "${n:-0}" -ge 90 ]
	ok $? "$fx: $n facts checked"
done

# The check itself catches a wrong golden file: an IRQ count, a firmware,
# a sysctl and a CPU list changed by one character each.
T=$(mktemp -d /tmp/cx5t-facts.XXXXXX)
trap 'rm -rf "$T"' EXIT
sed 's/"total": 1207919/"total": 1207918/; s/"firmware": "16.29.1030"/"firmware": "16.29.1031"/' \
	"$TESTS_DIR/expected/show-cx5-2port.json" >"$T/g.json"
sed 's/^  net.core.rmem_max            212992$/  net.core.rmem_max            212993/; s/cpus 8-15,24-31$/cpus 8-15/' \
	"$TESTS_DIR/expected/show-cx5-2port.txt" >"$T/g.txt"
run /usr/bin/python3 "$TESTS_DIR/helpers/sysroot_facts.py" "$FIXTURES/sysroot/cx5-2port" "$T/g.json" "$T/g.txt"
is "$rc
$(printf '%s\n' "$out" | grep -v '^checked')" "1
ens1f0: device.firmware is '16.29.1031' in the golden JSON, the sysroot says '16.29.1030'
ens1f0: IRQ 109: total is 1207918 in the golden JSON, the sysroot says 1207919
ens1f0: text header is not 'ens1f0  ConnectX-5 15b3:1017  pci 0000:af:00.0  numa 1  cpus 8-15,24-31'
ens1f1: device.firmware is '16.29.1031' in the golden JSON, the sysroot says '16.29.1030'
ens1f1: text header is not 'ens1f1  ConnectX-5 15b3:1017  pci 0000:af:00.1  numa 1  cpus 8-15,24-31'
sysctl net.core.rmem_max: the text does not show 212992" "a wrong golden file: each wrong fact named"

done_testing
