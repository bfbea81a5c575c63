#!/usr/bin/env bash
# 32-verify-drift-fallback.t: verify does not benchmark a host that differs
# from its profile unless asked (--bench-anyway), and the runner list
# (`runner: [netperf, iperf3, builtin]`) falls through to the next runner
# when a runner's server does not answer, saying so. In the lab: iperf3 and
# `cx5prof serve --once` in the peer namespace, each bounded by timeout.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
need_root_netns
vsetup v32

profile() { # profile FILE RUNNERS
	cat >"$1" <<YAML
version: 1
name: lab-fallback
match:
  interfaces: [ens1f0]
link:
  mtu: 9000
verify:
  peer: 198.18.0.2
  runner: [$2]
  duration: 1
  message_size: 8000
  thresholds:
    throughput_mbps: 1
    loss_percent: 100
YAML
}
runs() { "$PY" -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from runs").fetchone()[0])' "$DB"; }
serve_once() {
	timeout -k 1 900 ip netns exec "$PEER_NS" "$CX5PROF" serve --once --bind 198.18.0.2 2>>"$WORK/serve.log" &
	V_PIDS="$V_PIDS $!"
	wait_listen 12866
}
profile "$WORK/iperf3.yaml" iperf3
profile "$WORK/all.yaml" "netperf, iperf3, builtin"
profile "$WORK/two.yaml" "iperf3, builtin"

# ---- a drifted host: no benchmark unless asked
set_mtu 1500 9000
iperf3_server
run cx verify "$WORK/iperf3.yaml"
is "$rc" 3 "drift: exit 3"
is "$out" "verify      lab-fallback ($WORK/iperf3.yaml)
state       1 drift
  ens1f0 mtu: current 1500, expected 9000
benchmark   skipped: the host differs from the profile: apply it first, or pass --bench-anyway to measure it as it is
thresholds  not evaluated: nothing was measured
result      drift" "drift: the benchmark is skipped, saying why"
is "$(runs)" 0 "drift: no run recorded"
run cx --json verify "$WORK/iperf3.yaml"
is "$rc|$(printf '%s' "$out" | jq -c '.benchmark | {ran, skipped}')" \
	'3|{"ran":false,"skipped":"the host differs from the profile: apply it first, or pass --bench-anyway to measure it as it is"}' \
	"drift --json: benchmark.skipped says why"
run cx verify "$WORK/iperf3.yaml" --bench-anyway
is "$rc" 3 "--bench-anyway: still exit 3 (drift comes first)"
printf '%s\n' "$out" | grep -qx 'benchmark   iperf3 to 198.18.0.2, 1 s, 8000-byte messages, 1 stream'
ok $? "--bench-anyway: the benchmark ran"
is "$(runs)" 1 "--bench-anyway: the run is recorded"
run cx verify "$WORK/iperf3.yaml" --bench-anyway --no-bench
is "$rc|$err" "64|cx5prof: error: verify: --no-bench and --bench-anyway contradict each other: choose one" \
	"--bench-anyway with --no-bench: usage"
set_mtu 9000 9000

# ---- netperf and iperf3 do not answer: builtin runs, and the report says why
wait_closed 5201
serve_once
run cx verify "$WORK/all.yaml"
is "$rc" 0 "fallback: exit 0"
is "$(printf '%s\n' "$out" | sed -n '/^benchmark/,/^  command/p' | sed 's/^\(  command   cx5prof bench\).*/\1/')" \
	"benchmark   builtin to 198.18.0.2, 1 s, 8000-byte messages, 1 stream
  not used: netperf: no netserver on 198.18.0.2:12865: start \`netserver -p 12865\` on the peer and check its firewall
  not used: iperf3: no iperf3 server on 198.18.0.2:5201: start \`iperf3 -s -p 5201\` on the peer and check its firewall
  command   cx5prof bench" "fallback: netperf and iperf3 skipped, each with its reason; builtin ran"
is "$err" "" "fallback: nothing on stderr"

# ---- no server at all: the last runner's failure, the others listed
wait_closed 12866
run cx --json verify "$WORK/two.yaml"
is "$rc|$(printf '%s' "$out" | jq -c '.benchmark | {runner, runners_skipped}')" \
	'1|{"runner":"builtin","runners_skipped":["iperf3: no iperf3 server on 198.18.0.2:5201: start `iperf3 -s -p 5201` on the peer and check its firewall"]}' \
	"no server answers: the last runner's error, the skipped ones listed"

done_testing
