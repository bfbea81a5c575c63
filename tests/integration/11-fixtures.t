#!/usr/bin/env bash
# 11-fixtures.t: the committed sysroots are what gen-sysroot.py writes, and
# they are self-consistent in the ways real hosts are.
. "$(dirname "$0")/lib.sh"

GEN=$FIXTURES/gen-sysroot.py
need_python_module json
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

expand_cpulist() { # "0-2,5" -> "0 1 2 5"
	local part i out=""
	for part in ${1//,/ }; do
		if [[ $part == *-* ]]; then
			for ((i = ${part%-*}; i <= ${part#*-}; i++)); do out+="$i "; done
		else
			out+="$part "
		fi
	done
	echo "${out% }"
}
header_cpus() { head -n 1 "$1/proc/interrupts" | tr -s ' ' '\n' | sed -n 's/^CPU//p' | tr '\n' ' ' | sed 's/ $//'; }
fact() { cat "$1/$2" 2>&1; }

# ---- the committed set is exactly the named topologies
named=$("$GEN" --list | awk '{print $1}' | sort | tr '\n' ' ')
committed=$(ls "$FIXTURES/sysroot" | sort | tr '\n' ' ')
is "$committed" "$named" "every named topology is committed, and nothing else"

for dir in "$FIXTURES"/sysroot/*/; do
	name=$(basename "$dir")
	root=${dir%/}

	# ---- regenerating gives an identical tree (contents and symlink targets)
	run "$GEN" --topology "$name" "$TMP/$name"
	is "$rc:$err" "0:" "$name: regenerates without error"
	run diff -r --no-dereference "$root" "$TMP/$name"
	is "$out" "" "$name: committed tree is identical to a fresh one"

	run find "$root" -type d -empty
	is "$out" "" "$name: no empty directory (git would drop it)"

	run find -L "$root" -maxdepth 6 -type l
	is "$out" "" "$name: no dangling symlink"
	run bash -c 'find "$1" -type l -print0 | xargs -0 readlink -f | grep -v "^$1/"' _ "$root"
	is "$out" "" "$name: every symlink resolves inside the sysroot"

	# ---- /proc/interrupts columns are the online CPUs, by label
	online=$(expand_cpulist "$(cat "$root/sys/devices/system/cpu/online")")
	is "$(header_cpus "$root")" "$online" "$name: /proc/interrupts header has one CPU<n> per online CPU"
	ncol=$(wc -w <<<"$online")
	badrows=$(awk -v n="$ncol" 'NR > 1 && $1 ~ /^[0-9]+:$/ {
		c = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) c++
		if (c != n) print $1 }' "$root/proc/interrupts")
	is "$badrows" "" "$name: every IRQ row has $ncol count columns"
	is "$(grep -c '^ *[0-9]*:' "$root/proc/interrupts")" "$(ls "$root/proc/irq" | grep -c '^[0-9]*$')" \
		"$name: one /proc/irq/<n>/ per IRQ row"

	# ---- every MSI vector of every PCI function has its /proc/irq dir and row
	rows=" $(awk '$1 ~ /^[0-9]+:$/ {sub(":", "", $1); printf "%s ", $1}' "$root/proc/interrupts")"
	missing=""
	for f in "$root"/sys/bus/pci/devices/*/msi_irqs/*; do
		n=${f##*/}
		[ -r "$root/proc/irq/$n/smp_affinity_list" ] || missing+="irq:$n "
		[[ $rows == *" $n "* ]] || missing+="row:$n "
	done
	is "$missing" "" "$name: every msi_irqs entry has /proc/irq/<n>/ and an /proc/interrupts row"
	is "$(cat "$root"/sys/bus/pci/devices/*/msi_irqs/* | sort -u)" msix "$name: msi_irqs files say msix"

	# ---- masks are as wide as the possible CPUs, with a comma every 8 digits
	possible=$(expand_cpulist "$(cat "$root/sys/devices/system/cpu/possible")")
	nbits=$(( $(wc -w <<<"$possible") ))
	digits=$(( (nbits + 3) / 4 ))
	width=$(( digits + (digits - 1) / 8 ))
	badmask=$(awk -v w="$width" 'length($0) != w {print FILENAME}' "$root"/proc/irq/*/smp_affinity \
		"$root"/proc/irq/default_smp_affinity "$root"/sys/bus/pci/devices/*/local_cpus)
	is "$badmask" "" "$name: every mask is $width characters wide"
done

# ---- facts the other tests rely on
R=$FIXTURES/sysroot/cx5-2port
D=$R/sys/class/net/ens1f0/device
is "$(fact "$D" vendor) $(fact "$D" device) $(fact "$D" numa_node) $(fact "$D" local_cpulist)" \
	"0x15b3 0x1017 1 8-15,24-31" "cx5-2port: ens1f0 is a ConnectX-5 on node 1"
is "$(basename "$(readlink "$D")")" 0000:af:00.0 "cx5-2port: ens1f0 is 0000:af:00.0"
is "$(basename "$(readlink "$R/sys/class/net/ens1f1/device")")" 0000:af:00.1 "cx5-2port: ens1f1 is 0000:af:00.1"
is "$(basename "$(readlink "$D/driver")")" mlx5_core "cx5-2port: driver symlink names mlx5_core"
is "$(fact "$D" infiniband/mlx5_0/fw_ver) $(fact "$R" sys/class/infiniband/mlx5_1/fw_ver)" \
	"16.29.1030 16.29.1030" "cx5-2port: firmware 16.29.1030 on both ports"
[ ! -e "$R/sys/module/mlx5_core/version" ]
ok $? "cx5-2port: inbox driver has no module version"
is "$(fact "$R" sys/class/net/ens1f0/speed) $(fact "$R" sys/class/net/ens1f0/duplex) $(fact "$R" sys/class/net/ens1f0/mtu)" \
	"25000 full 1500" "cx5-2port: 25000 full, MTU 1500"
is "$(cat "$R/sys/devices/system/node/node0/cpulist") $(cat "$R/sys/devices/system/node/node1/cpulist")" \
	"0-7,16-23 8-15,24-31" "cx5-2port: node cpulists"
is "$(cat "$R/sys/devices/system/cpu/cpu9/topology/thread_siblings_list")" "9,25" "cx5-2port: siblings N and N+16"
for p in 0000:af:00.0 0000:af:00.1; do
	is "$(grep -c "mlx5_comp[0-9]*@pci:$p\$" "$R/proc/interrupts")" 16 "cx5-2port: 16 completion IRQs for $p"
done
is "$(awk '/mlx5_comp/ {print $1}' "$R/proc/interrupts" | head -n 3 | tr '\n' ' ')" "99: 109: 110: " \
	"cx5-2port: IRQ numbers are not contiguous"
is "$(grep -l '^irqbalance$' "$R"/proc/*/comm | wc -l)" 1 "cx5-2port: irqbalance runs"
is "$(wc -c <"$R/proc/net/ip_tables_names")" 0 "cx5-2port: no firewall"
is "$(cat "$R/proc/irq/99/smp_affinity_list") $(cat "$R/proc/irq/99/smp_affinity")" "0 00000001" \
	"cx5-2port: completion IRQs start on CPU0"
is "$(grep -E '^ *(98|109):' "$R/proc/interrupts" | tr -s ' ' | cut -d' ' -f2,3,35-)" \
	"98: 23274 IR-PCI-MSIX-0000:af:00.0 0-edge mlx5_async0@pci:0000:af:00.0
109: 1207919 IR-PCI-MSIX-0000:af:00.0 2-edge mlx5_comp1@pci:0000:af:00.0" "cx5-2port: async and comp rows"

R=$FIXTURES/sysroot/cx5-8node
is "$(cat "$R/sys/devices/system/cpu/online")" "0-46,48-95" "cx5-8node: CPU 47 is offline"
[[ " $(header_cpus "$R") " != *" 47 "* ]]
ok $? "cx5-8node: CPU47 is absent from the /proc/interrupts header"
is "$(cat "$R/sys/devices/system/node/node0/cpulist")" "0-5,48-53" "cx5-8node: split ranges"
D=$R/sys/class/net/enp216s0f0np0/device
is "$(fact "$D" device) $(fact "$D" numa_node) $(fact "$D" current_link_width)/$(fact "$D" max_link_width) $(fact "$D" infiniband/mlx5_0/fw_ver)" \
	"0x1019 5 8/16 16.21.0106" "cx5-8node: ConnectX-5 Ex on node 5, PCIe x8 of x16, old firmware"
is "$(cat "$R/sys/module/mlx5_core/version")" "5.2-2.0.7" "cx5-8node: OFED driver version"
is "$(grep -oE 'mlx5_(pages|cmd|async)_eq@pci:[0-9a-f:.]+' "$R/proc/interrupts" | tr '\n' ' ')" \
	"mlx5_pages_eq@pci:0000:d8:00.0 mlx5_cmd_eq@pci:0000:d8:00.0 mlx5_async_eq@pci:0000:d8:00.0 " \
	"cx5-8node: older kernel control IRQ names"
is "$(grep -c 'mlx5_comp' "$R/proc/interrupts")" 63 "cx5-8node: 63 completion IRQs"
is "$(cat "$R/proc/irq/170/smp_affinity")" "00000000,00000000,00000001" "cx5-8node: 96-bit affinity mask"
E=$R/sys/class/net/eno1/device
is "$(fact "$E" vendor):$(fact "$E" device) $(basename "$(readlink "$E/driver")") $(fact "$E" numa_node)" \
	"0x8086:0x1521 igb 0" "cx5-8node: eno1 is an Intel I350 on node 0"
is "$(cat "$R/proc/net/ip_tables_names")" filter "cx5-8node: firewall active"

R=$FIXTURES/sysroot/cx5-nonuma
is "$(cat "$R/sys/class/net/ens1f0/device/numa_node") $(cat "$R/sys/class/net/ens1f0/device/local_cpulist")" \
	"-1 0-3" "cx5-nonuma: no NUMA node, all CPUs local"
is "$(grep -oE 'ens1f0-[0-9]+$' "$R/proc/interrupts" | tr '\n' ' ')" "ens1f0-0 ens1f0-1 ens1f0-2 ens1f0-3 " \
	"cx5-nonuma: OFED completion names"

# ---- the generator: parametric form, determinism, safety
args=(--nodes 4 --node-ids 0,1,4,5 --cpus 32 --offline 31 --ports 3 --channels 20 --nic-node 4)
run "$GEN" "${args[@]}" "$TMP/g1"
is "$rc:$err" "0:" "generated topology with a gap in node numbers"
"$GEN" "${args[@]}" "$TMP/g2"
run diff -r --no-dereference "$TMP/g1" "$TMP/g2"
is "$rc:$out" "0:" "generated output is deterministic"
is "$(ls "$TMP/g1/sys/devices/system/node" | grep '^node' | tr '\n' ' ')" "node0 node1 node4 node5 " \
	"generated: node numbers keep their gap"
is "$(cat "$TMP/g1/sys/devices/system/node/node4/cpulist")" "8-11,24-27" "generated: node4 cpulist"
is "$(grep -c 'mlx5_comp' "$TMP/g1/proc/interrupts")" 60 "generated: 3 ports x 20 completion IRQs"
is "$(cat "$TMP/g1/sys/class/net/ens2f0/device/numa_node")" 4 "generated: ports on --nic-node"

run "$GEN" --topology cx5-2port "$TMP/g1"
is "$rc" 1 "refuses to write into a non-empty directory"
is "$err" "gen-sysroot: $TMP/g1 is not empty (use --force to replace it)" "and says how to replace it"
mkdir -p "$TMP/precious" && touch "$TMP/precious/keep"
run "$GEN" --force --topology cx5-2port "$TMP/precious"
is "$rc:$(ls "$TMP/precious")" "1:keep" "--force never removes a directory that is not a sysroot"
run "$GEN" --force --topology cx5-2port "$TMP/g1"
run diff -r --no-dereference "$FIXTURES/sysroot/cx5-2port" "$TMP/g1"
is "$rc" 0 "--force replaces an old sysroot"

done_testing
