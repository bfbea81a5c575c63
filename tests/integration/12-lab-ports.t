#!/usr/bin/env bash
# 12-lab-ports.t: contrib/lab/lab.sh takes port names or a sysroot, so any
# fixture gets its lab without building namespaces by hand (cx5-8node:
# enp216s0f0np0), and `show` and `doctor` agree on the link speed there (one
# source: the sysroot's sys/class/net/IFACE/speed for a port it describes).
. "$(dirname "$0")/lib.sh"
need_root_netns

LAB=$TOP/contrib/lab/lab.sh
FIX8=$FIXTURES/sysroot/cx5-8node
export CX5LAB_PREFIX=cx5t12-$$
H=$CX5LAB_PREFIX-host
P=$CX5LAB_PREFIX-peer
cleanup() { "$LAB" down >/dev/null 2>&1; ip netns del "$H" 2>/dev/null; ip netns del "$P" 2>/dev/null; }
trap cleanup EXIT
links() { ip -n "$1" -o link show | cut -d: -f2 | sed 's/@.*//' | tr -d ' ' | sort | tr '\n' ' '; }

# ---- the 8-node fixture's ConnectX port (eno1, an Intel port, is not one)
run "$LAB" up --sysroot "$FIX8"
is "$rc" 0 "up --sysroot cx5-8node: exit 0"
is "$out" "lab $CX5LAB_PREFIX: created namespace $H
lab $CX5LAB_PREFIX: set lo up in $H
lab $CX5LAB_PREFIX: created namespace $P
lab $CX5LAB_PREFIX: set lo up in $P
lab $CX5LAB_PREFIX: created veth $H/enp216s0f0np0 <-> $P/peer0 (mtu 1500)
lab $CX5LAB_PREFIX: added 198.18.0.1/30 to $H/enp216s0f0np0
lab $CX5LAB_PREFIX: set $H/enp216s0f0np0 up
lab $CX5LAB_PREFIX: added 198.18.0.2/30 to $P/peer0
lab $CX5LAB_PREFIX: set $P/peer0 up
lab $CX5LAB_PREFIX: up: ip netns exec $H cx5prof --sysroot $FIX8 <command>" \
	"up --sysroot: one veth per ConnectX port of the fixture, named like it"
is "$(links "$H")|$(links "$P")" "enp216s0f0np0 lo |lo peer0 " "up --sysroot: exactly the fixture's ConnectX port"
run "$LAB" status --sysroot "$FIX8"
is "$rc" 0 "status --sysroot: up"
run ip netns exec "$H" ping -c 1 -W 1 198.18.0.2
is "$rc" 0 "enp216s0f0np0 pings peer0"

# show and doctor: the same link speed, from the same source
run ip netns exec "$H" "$CX5PROF" --sysroot "$FIX8" show enp216s0f0np0
is "$(printf '%s\n' "$out" | grep '^  link ')" "  link      up  mtu 1500 (68-65535)  txqueuelen 1000  25000Mb/s full (sysroot)  [veth]" \
	"show: the fixture's 25000 Mb/s, its source named"
run ip netns exec "$H" "$CX5PROF" --sysroot "$FIX8" --json show enp216s0f0np0
is "$(printf '%s' "$out" | jq -c '.interfaces[0].link | {speed, duplex, speed_source}')" \
	'{"speed":25000,"duplex":"full","speed_source":"sysroot"}' "show --json: speed, duplex and their source"
run ip netns exec "$H" "$CX5PROF" --sysroot "$FIX8" doctor
is "$(printf '%s\n' "$out" | grep ' link  ')" "PASS  enp216s0f0np0   link        25000 Mb/s full duplex" \
	"doctor: the same 25000 Mb/s"
run "$LAB" down
is "$rc" 0 "down: exit 0"

# ---- ports named on the command line
run "$LAB" up p1p1 p1p2
is "$rc|$(links "$H")|$(links "$P")" "0|lo p1p1 p1p2 |lo peer0 peer1 " "up NAME NAME: those ports, peer0 and peer1"
is "$(ip -n "$H" -o -4 addr show dev p1p2 | awk '{print $4}')" "198.18.1.1/30" "the second port: 198.18.1.0/30"
run "$LAB" up p1p1 p1p2
is "$rc|$out" "0|lab $CX5LAB_PREFIX: already up (namespaces $H, $P)" "up again: idempotent"
"$LAB" down >/dev/null

# ---- bad input: refused, nothing created
run "$LAB" up --sysroot "$FIX8" ens1f0
is "$rc|${err%%$'\n'*}" "64|lab.sh: name the ports or give --sysroot, not both" "names and --sysroot: usage"
run "$LAB" up "a-name-longer-than-15"
is "$rc|${err%%$'\n'*}" '64|lab.sh: "a-name-longer-than-15" is not an interface name (letters, digits, _ . -; at most 15)' \
	"a name too long: usage"
run "$LAB" up eth0 eth0
is "$rc|${err%%$'\n'*}" '64|lab.sh: port "eth0" named twice' "a port named twice: usage"
run "$LAB" up --sysroot /nonexistent/sysroot
is "$rc|$err" "1|lab.sh: --sysroot /nonexistent/sysroot: no sys/class/net in it (is it a cx5prof sysroot?)" \
	"a sysroot that is none: exit 1"
ip netns list | grep -q "^$CX5LAB_PREFIX-"
is "$?" 1 "bad input: no namespace created"

done_testing
