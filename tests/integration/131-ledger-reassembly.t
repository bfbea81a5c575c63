#!/usr/bin/env bash
# 131-ledger-reassembly.t: 8000-byte datagrams over the lab at MTU 1500 on
# both ends, fragmentation allowed: the ledger's IP reassembly line shows
# the peer reassembling them (IpReasmReqds, IpReasmOKs, read by `cx5prof
# serve`). With the peer namespace's reassembly memory taken away
# (net.ipv4.ipfrag_high_thresh 0: a sysctl of the test's own network
# namespace, never the host's), every datagram fails to reassemble: the
# ledger names IP reassembly (IpReasmFails) and the size that fits. Real
# counters, no fixture; the lines add up.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
. "$(dirname "$0")/ledger-lib.sh"
need_root_netns
vsetup v131 cx5-nonuma
set_mtu 1500 1500

ledger_profile "$WORK/frag.yaml" lab-fragments builtin 1 4M

serve_start
ok $? "cx5prof serve listens in the peer"

run cx verify "$WORK/frag.yaml"
exit0 "fragmented datagrams: exit 0"
printf '%s\n' "$out" | grep -qE '^  IP reassembly +[0-9,]+  IpReasmReqds \+[0-9,]+, IpReasmOKs \+[0-9,]+'
ok $? "the reassembly line shows the peer reassembling the datagrams"
diag "$(printf '%s\n' "$out" | grep -E '^  (IP reassembly|sent|received|unaccounted) ')"

host_thresh=$(cat /proc/sys/net/ipv4/ipfrag_high_thresh)
ip netns exec "$PEER_NS" sh -c 'echo 0 >/proc/sys/net/ipv4/ipfrag_low_thresh && echo 0 >/proc/sys/net/ipv4/ipfrag_high_thresh'
ok $? "the peer namespace keeps no fragments (its own sysctl)"
run cx verify "$WORK/frag.yaml" --json
exit0 "reassembly impossible: exit 0 (loss ceiling 100%)"
printf '%s' "$out" >"$WORK/fail.json"
read -r by sent received lost sb reasm unacc adds known schema < <(ledger_facts "$WORK/fail.json")
diag "limited by $by; sent $sent, received $received, lost $lost, reassembly $reasm, unaccounted $unacc"
is "$by" reassembly "the ledger names IP reassembly"
[ "$lost" -gt 0 ] && [ $((2 * reasm)) -gt "$lost" ]
ok $? "IpReasmFails account for most of the loss ($reasm of $lost)"
is "$adds $known $schema" "adds-up receiver-known schema-ok" "the lines add up"
"$PY" - "$WORK/fail.json" <<'PYEOF'
import json, re, sys
b = json.load(open(sys.argv[1]))["ledger"]["bottleneck"]
sys.exit(0 if re.fullmatch(r"IP reassembly: IpReasmFails \+[0-9,]+.* = [0-9.]+% of the lost datagrams; "
                           r"8000-byte datagrams are cut into fragments at MTU 1500: send datagrams that fit "
                           r"\(verify\.message_size <= 1472\) or raise the MTU on both hosts \(link\.mtu\)", b)
         else (print(b), 1)[1])
PYEOF
ok $? "the bottleneck line: the evidence and the datagram size that fits"
is "$(cat /proc/sys/net/ipv4/ipfrag_high_thresh)" "$host_thresh" "the host's own ipfrag_high_thresh is untouched"

done_testing
