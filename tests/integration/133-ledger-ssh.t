#!/usr/bin/env bash
# 133-ledger-ssh.t: the loss ledger with a peer tuned through SSH and no
# `cx5prof serve` on it: the receiver's counters come from the peer's own
# `cx5prof counters --address 198.18.0.2 --json` through OpenSSH (an sshd
# in the peer namespace, peer-ssh-lib.sh), before and after the run. With
# a 4K receive buffer (netperf -S), the ledger reads them and names the
# receiver socket buffer. Also `counters` itself: its document, and the
# errors for an address and an interface that are not there.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
. "$(dirname "$0")/peer-ssh-lib.sh"
. "$(dirname "$0")/ledger-lib.sh"
need_root_netns
command -v netperf >/dev/null && command -v netserver >/dev/null ||
	skip_all "needs netperf and netserver (contrib/install-deps.sh)"
vsetup v133
peer_ssh_setup
ip -n "$HOST_NS" link set ens1f0 mtu 9000 && ip -n "$PEER_NS" link set ens1f0 mtu 9000

# ---- counters on the peer, as ssh runs it
run ip netns exec "$PEER_NS" "$CX5PROF" --json counters --address 198.18.0.2
is "$rc" 0 "counters --address: exit 0"
printf '%s' "$out" >"$WORK/counters.json"
run "$PY" - "$WORK/counters.json" "$TOP/schemas/counters.schema.json" <<'PYEOF'
import json, sys, jsonschema
d = json.load(open(sys.argv[1]))
jsonschema.validate(d, json.load(open(sys.argv[2])))
c = d["counters"]
print(d["interface"], all(k in c for k in ("UdpRcvbufErrors", "IpReasmFails", "softnet.dropped", "qdisc.drops",
                                           "link.rx_dropped")))
PYEOF
is "$rc $out" "0 ens1f0 True" "counters --json: the interface that owns the address, every source, the schema"
run ip netns exec "$PEER_NS" "$CX5PROF" counters --address 198.18.9.9
is "$rc $err" "66 cx5prof: error: counters: no interface of this network namespace has the address 198.18.9.9" \
	"counters --address of no interface: exit 66"
run ip netns exec "$PEER_NS" "$CX5PROF" counters ens9f9
is "$rc $err" "66 cx5prof: error: counters: no interface ens9f9 in this network namespace" \
	"counters IFACE that is not there: exit 66"
run "$CX5PROF" counters --address not-an-address
is "$rc" 64 "counters --address that is not numeric: usage (64)"

# ---- verify: netperf, the peer's counters through ssh
netserver_start 12865
ok $? "netserver listens in the peer (no cx5prof serve there)"
cat >"$WORK/ssh.yaml" <<YAML
version: 1
name: lab-ledger-ssh
match:
  interfaces: [ens1f0]
peer:
  ssh: root@198.18.0.2
  ssh_config: $WORK/ssh_config
verify:
  peer: 198.18.0.2
  runner: netperf
  duration: 2
  message_size: 8000
  socket_buffer:
    send: 4M
    receive: 4K
  thresholds:
    loss_percent: 100
YAML
run hcx verify "$WORK/ssh.yaml" --json
is "$rc" 0 "verify with peer.ssh and no serve: exit 0"
printf '%s' "$out" >"$WORK/v.json"
read -r by sent received lost sb reasm unacc adds known schema < <(ledger_facts "$WORK/v.json")
diag "limited by $by; sent $sent, received $received, lost $lost, socket buffer $sb, unaccounted $unacc"
is "$adds $known $schema" "adds-up receiver-known schema-ok" "the receiver's counters were read through ssh; the lines add up"
is "$(jq -r '.ledger.hosts.receiver.source' "$WORK/v.json")" "\`cx5prof counters\` through ssh root@198.18.0.2" \
	"the ledger says where the receiver's counters came from"
is "$by" receiver-socket-buffer "the receiver socket buffer is the bottleneck"
[ "$lost" -gt 0 ] && [ $((2 * sb)) -gt "$lost" ]
ok $? "UdpRcvbufErrors account for most of the loss ($sb of $lost)"

done_testing
