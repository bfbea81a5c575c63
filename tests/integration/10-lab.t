#!/usr/bin/env bash
# 10-lab.t: contrib/lab/lab.sh up|down|status on real network namespaces.
. "$(dirname "$0")/lib.sh"
need_root_netns

LAB=$TOP/contrib/lab/lab.sh
export CX5LAB_PREFIX=cx5t10-$$
H=$CX5LAB_PREFIX-host
P=$CX5LAB_PREFIX-peer

cleanup() { "$LAB" down >/dev/null 2>&1; ip netns del "$H" 2>/dev/null; ip netns del "$P" 2>/dev/null; }
trap cleanup EXIT

root_links() { ip -o link | sed -E 's/ (link-netnsid|alias) .*//'; }
ns_list() { ip netns list | cut -d' ' -f1 | grep -xF -e "$H" -e "$P" | sort | tr '\n' ' '; }
link_line() { ip -n "$1" -d -o link show dev "$2" 2>/dev/null; }
mtu_of() { [[ $(link_line "$1" "$2") =~ \ mtu\ ([0-9]+) ]] && echo "${BASH_REMATCH[1]}"; }
ifindex_of() { link_line "$1" "$2" | cut -d: -f1; }
peer_index_of() { [[ $(link_line "$1" "$2") =~ @if([0-9]+): ]] && echo "${BASH_REMATCH[1]}"; }
inet_of() { ip -n "$1" -o -4 addr show dev "$2" 2>/dev/null | awk '{print $4}' | tr '\n' ' '; }

root_before=$(root_links)

# ---- up
run "$LAB" up
is "$rc" 0 "up exits 0"
is "$out" "lab $CX5LAB_PREFIX: created namespace $H
lab $CX5LAB_PREFIX: set lo up in $H
lab $CX5LAB_PREFIX: created namespace $P
lab $CX5LAB_PREFIX: set lo up in $P
lab $CX5LAB_PREFIX: created veth $H/ens1f0 <-> $P/peer0 (mtu 1500)
lab $CX5LAB_PREFIX: added 198.18.0.1/30 to $H/ens1f0
lab $CX5LAB_PREFIX: set $H/ens1f0 up
lab $CX5LAB_PREFIX: added 198.18.0.2/30 to $P/peer0
lab $CX5LAB_PREFIX: set $P/peer0 up
lab $CX5LAB_PREFIX: created veth $H/ens1f1 <-> $P/peer1 (mtu 1500)
lab $CX5LAB_PREFIX: added 198.18.1.1/30 to $H/ens1f1
lab $CX5LAB_PREFIX: set $H/ens1f1 up
lab $CX5LAB_PREFIX: added 198.18.1.2/30 to $P/peer1
lab $CX5LAB_PREFIX: set $P/peer1 up
lab $CX5LAB_PREFIX: up: ip netns exec $H <command>" "up prints each action"
is "$err" "" "up prints nothing on stderr"
is "$(ns_list)" "$H $P " "both namespaces exist"

for ns in "$H" "$P"; do
	link_line "$ns" lo | grep -q '[<,]UP[,>]'
	ok $? "lo is up in $ns"
	is "$(ip -n "$ns" -o link show | cut -d: -f2 | sed 's/@.*//' | sort | tr -d ' ' | tr '\n' ' ')" \
		"$([ "$ns" = "$H" ] && echo "ens1f0 ens1f1 lo " || echo "lo peer0 peer1 ")" \
		"$ns holds exactly the lab's links"
done

for pair in "ens1f0 peer0 198.18.0.1/30 198.18.0.2/30" "ens1f1 peer1 198.18.1.1/30 198.18.1.2/30"; do
	read -r hd pd ha pa <<<"$pair"
	for side in "$H $hd $ha" "$P $pd $pa"; do
		read -r ns dev addr <<<"$side"
		link_line "$ns" "$dev" | grep -q ' veth '
		ok $? "$ns/$dev is a veth"
		is "$(mtu_of "$ns" "$dev")" 1500 "$ns/$dev mtu 1500"
		link_line "$ns" "$dev" | grep -q '[<,]UP[,>]'
		ok $? "$ns/$dev is up"
		is "$(inet_of "$ns" "$dev")" "$addr " "$ns/$dev has exactly $addr"
	done
	is "$(peer_index_of "$H" "$hd")" "$(ifindex_of "$P" "$pd")" "$H/$hd is paired with $P/$pd"
done

run ip netns exec "$H" ping -c 1 -W 1 198.18.0.2
is "$rc" 0 "host ens1f0 pings peer0 (198.18.0.2)"
run ip netns exec "$H" ping -c 1 -W 1 198.18.1.2
is "$rc" 0 "host ens1f1 pings peer1 (198.18.1.2)"
run ip netns exec "$P" ping -c 1 -W 1 198.18.0.1
is "$rc" 0 "peer0 pings host ens1f0 (198.18.0.1)"
run ip netns exec "$P" ping -c 1 -W 1 198.18.1.1
is "$rc" 0 "peer1 pings host ens1f1 (198.18.1.1)"

run "$LAB" status
is "$rc" 0 "status exits 0 when up"
is "$out" "$(printf '%-24s %-8s %-4s mtu %-6s %s\n' \
	"$H" ens1f0 up 1500 198.18.0.1/30 "$P" peer0 up 1500 198.18.0.2/30 \
	"$H" ens1f1 up 1500 198.18.1.1/30 "$P" peer1 up 1500 198.18.1.2/30)
lab $CX5LAB_PREFIX: up" "status lists the four ends"

# ---- up again: nothing to do, and nothing reset (tests change MTUs by hand)
ip -n "$H" link set dev ens1f0 mtu 9000
run "$LAB" up
is "$rc" 0 "second up exits 0"
is "$out" "lab $CX5LAB_PREFIX: already up (namespaces $H, $P)" "second up says the lab is already up"
is "$(mtu_of "$H" ens1f0)" 9000 "second up leaves a changed MTU alone"

# ---- down
run "$LAB" down
is "$rc" 0 "down exits 0"
is "$out" "lab $CX5LAB_PREFIX: deleted namespace $H
lab $CX5LAB_PREFIX: deleted namespace $P" "down prints what it removed"
is "$(ns_list)" "" "down removed both namespaces"
run "$LAB" status
is "$rc" 3 "status exits 3 when the lab is not up"
run "$LAB" down
is "$rc" 0 "down on a removed lab exits 0"
is "$out" "lab $CX5LAB_PREFIX: not up (nothing to remove)" "down on a removed lab says so"

# ---- half-failed up: a stranger in the host namespace stops `up` midway
ip netns add "$H"
ip -n "$H" link add ens1f1 type bridge
run "$LAB" up
is "$rc" 1 "up fails when ens1f1 is not a lab veth"
is "$err" "lab.sh: ens1f1 in $H is not a veth made by lab.sh; run \"lab.sh down\" and \"lab.sh up\"" \
	"up names the conflicting link and the remedy"
link_line "$H" ens1f0 | grep -q ' veth '
ok $? "the half-failed up had created ens1f0"
run "$LAB" status
is "$rc" 1 "status exits 1 on a half-up lab"
run "$LAB" down
is "$rc" 0 "down after a half-failed up exits 0"
is "$(ns_list)" "" "down after a half-failed up removes both namespaces"

# a veth pair whose peer end is not where the lab wants it
ip netns add "$H"
ip -n "$H" link add ens1f0 type veth peer name stray0
run "$LAB" up
is "$rc" 1 "up fails when ens1f0's peer is not peer0 in $P"
is "$err" "lab.sh: peer0 is missing from $P while ens1f0 exists; run \"lab.sh down\" and \"lab.sh up\"" \
	"up explains the broken pair"
run "$LAB" down
is "$(ns_list)" "" "down removes that half-made lab too"

# ---- bad input
run env CX5LAB_PREFIX=../x "$LAB" up
is "$rc" 1 "a prefix with a slash is refused"
is "$err" 'lab.sh: CX5LAB_PREFIX "../x" is not a valid name (letters, digits, _ . -; at most 40)' \
	"the refusal names the prefix"
run setpriv --reuid 65534 --regid 65534 --clear-groups "$LAB" up
is "$rc:$err" "77:lab.sh: run as root (network namespaces need CAP_SYS_ADMIN)" "up as an unprivileged user exits 77 and says why"
run "$LAB" frobnicate
is "$rc" 64 "an unknown command exits 64 (usage)"
is "${err%%$'\n'*}" "usage: lab.sh up|status [PORT... | --sysroot DIR]" "an unknown command prints the usage"

# ---- demo.sh: runs in its own lab and removes it on every exit path
DEMO_TMP=$(mktemp -d)
trap 'cleanup; rm -rf "$DEMO_TMP"' EXIT
DEMO_REPORT=$(mktemp -d)
trap 'cleanup; rm -rf "$DEMO_TMP" "$DEMO_REPORT"' EXIT
run env CX5LAB_PREFIX="$CX5LAB_PREFIX" TMPDIR="$DEMO_TMP" CX5PROF="$CX5PROF" CX5PROF_DEMO_REPORT="$DEMO_REPORT" \
	"$TOP/contrib/lab/demo.sh"
is "$rc" 0 "demo.sh exits 0"
grep -q "^+ ip netns exec $H cx5prof --sysroot \$SYSROOT show$" <<<"$out"
ok $? "demo.sh runs show inside the lab's host namespace"
# repeat: auto, 3 groups, at most 8 rounds a group: decided from the 6th.
runs=$(ls "$DEMO_REPORT/runs" 2>/dev/null | wc -l)
printf '%s\n' "$out" | grep -qx "report: $DEMO_REPORT/report.html (open it in a browser; campaign.json and runs/ are next to it)" &&
	[ -s "$DEMO_REPORT/report.html" ] && [ "$runs" -ge 18 ] && [ "$runs" -le 24 ] && [ $((runs % 3)) = 0 ]
ok $? "demo.sh ends with the demo campaign (18 to 24 runs: $runs) and prints where its report is"
printf '%s\n' "$out" | grep -Eq '^mtu-jumbo vs baseline +\+[0-9.]+% \[[0-9.]+\.\.[0-9.]+\] better ' &&
	! printf '%s\n' "$out" | grep -q 'needs [0-9]* rounds'
ok $? "demo.sh's campaign decides: MTU 9000 better than baseline with its interval, no interval waiting for rounds"
is "$(ns_list):$(ls "$DEMO_TMP")" ":" "demo.sh removed its lab and its temporary sysroot (the report is kept where asked)"
fake=$DEMO_TMP/fake-cx5prof
printf '#!/bin/sh\nexit 64\n' >"$fake" && chmod +x "$fake"
run env CX5LAB_PREFIX="$CX5LAB_PREFIX" TMPDIR="$DEMO_TMP" CX5PROF="$fake" "$TOP/contrib/lab/demo.sh"
is "$rc" 1 "demo.sh fails when cx5prof has no show verb"
is "$err" "demo: cx5prof has no 'show' verb yet ('cx5prof help show' failed): the demo cannot continue" \
	"demo.sh says clearly that show is missing"
is "$(ns_list):$(ls "$DEMO_TMP")" ":fake-cx5prof" "demo.sh cleaned up after the failure too"

is "$(root_links)" "$root_before" "the root namespace's links are unchanged"

done_testing
