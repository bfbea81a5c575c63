#!/usr/bin/env bash
# 34-doctor-runner.t: doctor probes the benchmark port of the runner verify
# would use, the first available one of verify.runner with verify's own
# parameters (verify_bench_params), not the first one listed; and it says
# why a runner listed earlier was passed over. In the lab: nothing, then a
# listener on iperf3's port, then one on netperf's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
need_root_netns
vsetup d34

cat >"$WORK/p.yaml" <<YAML
version: 1
name: lab-doctor-runner
match:
  interfaces: [ens1f0]
verify:
  peer: 198.18.0.2
  runner: [netperf, iperf3]
YAML
line() { printf '%s\n' "$out" | grep -E "^[A-Z]{4}  [^ ]+ +$1 "; }
SKIPPED='netperf: no netserver on 198.18.0.2:12865: start `netserver -p 12865` on the peer and check its firewall'

run cx doctor "$WORK/p.yaml"
is "$(line peer-port)" "FAIL  198.18.0.2      peer-port   nothing listens on 198.18.0.2:5201 (iperf3; $SKIPPED)" \
	"no netserver: doctor probes iperf3's port, as verify would run iperf3"

tcp_listener 5201
run cx doctor "$WORK/p.yaml"
is "$(line peer-port)" "PASS  198.18.0.2      peer-port   198.18.0.2:5201 accepts connections (iperf3; $SKIPPED)" \
	"iperf3's port open: passes, naming the runner"

tcp_listener 12865
run cx doctor "$WORK/p.yaml"
is "$(line peer-port)" "PASS  198.18.0.2      peer-port   198.18.0.2:12865 accepts connections" \
	"netserver's port open: netperf, the first listed, is the one probed"
stop_servers

done_testing
