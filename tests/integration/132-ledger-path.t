#!/usr/bin/env bash
# 132-ledger-path.t: a path that drops the datagrams where neither host
# counts it: host and peer at MTU 9000 joined through a "switch" (a
# bridge in a namespace of its own) whose port towards the peer has MTU
# 1500. 8000-byte datagrams go out with DF set and vanish in the switch;
# the peer does not answer ICMP echo (its namespace's
# icmp_echo_ignore_all), so the DF probe cannot see it either, and TCP
# (the control connections) is kept below 1500 bytes by the routes' advmss.
# The ledger, with both hosts' counters read, calls the loss unaccounted
# and names the path. Real counters; every namespace is the test's own.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
. "$(dirname "$0")/ledger-lib.sh"
need_root_netns

export CX5LAB_PREFIX=cx5t-v132-$$
HOST_NS=$CX5LAB_PREFIX-host
PEER_NS=$CX5LAB_PREFIX-peer
SW_NS=$CX5LAB_PREFIX-sw
WORK=$(mktemp -d /tmp/cx5t-verify.XXXXXX)
SR=$WORK/sysroot
DB=$WORK/history.db
V_PIDS=
path_cleanup() {
	v_cleanup
	ip netns del "$SW_NS" 2>/dev/null
}
trap path_cleanup EXIT
copy_sysroot cx5-nonuma "$SR"

setup_path() {
	local n
	for n in "$HOST_NS" "$SW_NS" "$PEER_NS"; do
		ip netns add "$n" && ip -n "$n" link set lo up || return 1
	done
	ip -n "$HOST_NS" link add ens1f0 mtu 9000 type veth peer name sw-h mtu 9000 netns "$SW_NS" &&
		ip -n "$PEER_NS" link add peer0 mtu 9000 type veth peer name sw-p mtu 1500 netns "$SW_NS" &&
		ip -n "$SW_NS" link add br0 type bridge &&
		ip -n "$SW_NS" link set sw-h master br0 && ip -n "$SW_NS" link set sw-p master br0 &&
		ip -n "$SW_NS" link set sw-h up && ip -n "$SW_NS" link set sw-p up && ip -n "$SW_NS" link set br0 up &&
		ip -n "$HOST_NS" addr add 198.18.0.1/30 dev ens1f0 && ip -n "$HOST_NS" link set ens1f0 up &&
		ip -n "$PEER_NS" addr add 198.18.0.2/30 dev peer0 && ip -n "$PEER_NS" link set peer0 up &&
		ip -n "$HOST_NS" route replace 198.18.0.0/30 dev ens1f0 src 198.18.0.1 advmss 1400 &&
		ip -n "$PEER_NS" route replace 198.18.0.0/30 dev peer0 src 198.18.0.2 advmss 1400 &&
		ip netns exec "$PEER_NS" sh -c 'echo 1 >/proc/sys/net/ipv4/icmp_echo_ignore_all'
}
setup_path
ok $? "host - switch (port to the peer at MTU 1500) - peer, both hosts at MTU 9000"

ledger_profile "$WORK/path.yaml" lab-path builtin 1 4M

serve_start
ok $? "cx5prof serve listens in the peer"
run cx verify "$WORK/path.yaml" --json
exit0 "exit 0 (loss ceiling 100%)"
printf '%s' "$out" >"$WORK/path.json"
read -r by sent received lost sb reasm unacc adds known schema < <(ledger_facts "$WORK/path.json")
diag "limited by $by; sent $sent, received $received, lost $lost, unaccounted $unacc"
is "$by" path "the ledger names the path"
[ "$lost" -gt 0 ] && [ $((2 * unacc)) -gt "$lost" ]
ok $? "most of the loss is unaccounted ($unacc of $lost)"
is "$adds $known $schema" "adds-up receiver-known schema-ok" "the lines add up, both hosts' counters read"
"$PY" - "$WORK/path.json" <<'PYEOF'
import json, re, sys
b = json.load(open(sys.argv[1]))["ledger"]["bottleneck"]
sys.exit(0 if re.fullmatch(r"path: [0-9.]+% unaccounted (with no counter rising on either host|that no counter "
                           r"on either host explains); check the switches and the path between the hosts "
                           r"\(MTU, congestion, filters\)", b) else (print(b), 1)[1])
PYEOF
ok $? "the bottleneck line names the path"

done_testing
