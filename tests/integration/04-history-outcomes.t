#!/usr/bin/env bash
# 04-history-outcomes.t: how `history`, `history show`, `compare` and the
# Prometheus export print the runs that went wrong before (issue 16): one
# rule, no datagram sent = an error run whose loss is null (never 0, never
# 100); error and drift are not both FAIL; "pass: pass" is not printed; a
# command line per stream keeps its indent; an unknown MTU or buffer is
# n/a (JSON null), not 0. The runs come from `test_runs --make-edge-db`
# (tests/unit/test_runs.c), recorded through runs_record().
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"

runs=$(tt_test_runs) || skip_all "build/tests/unit/test_runs missing: run 'make units' first"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export TZ=UTC
DB=$TMP/edge.db
"$runs" --make-edge-db "$DB" || exit 1
cx() { "$CX5PROF" --db "$DB" "$@"; }

run cx history
is "$rc:$out" "0:2025-12-02 13:04:00  run 5     builtin  - - mtu - msg 8000: 16.0 Mbps, loss 0.00%, pass
2025-12-02 13:03:00  run 4     iperf3   drifted ens1f0 mtu 1500 msg 8000: 31.7 Mbps, loss 1.00%, drift
2025-12-02 13:02:00  run 3     iperf3   no-peer ens1f0 mtu 9000 msg 8000: 0.0 Mbps, loss n/a (nothing sent), error
2025-12-02 13:01:00  run 2     netperf  no-peer ens1f0 mtu 9000 msg 8000: 0.0 Mbps, loss n/a (nothing sent), error
2025-12-02 13:00:00  run 1     netperf  two-streams ens1f0 mtu 9000 msg 8000: 3.2 Mbps, loss 0.00%, pass" \
	"history: error and drift named, nothing-sent runs have no loss, an unknown MTU is -"

run cx history --json
is "$(printf '%s' "$out" | jq -c '[.history[] | [.id, .mtu, .loss_pct, .pass, .outcome]]')" \
	'[[5,null,0,true,"pass"],[4,1500,1,false,"drift"],[3,9000,null,false,"error"],[2,9000,null,false,"error"],[1,9000,0,true,"pass"]]' \
	"history --json: mtu null when unknown, loss_pct null when nothing was sent, outcome"
printf '%s\n' "$out" >"$TMP/list.json"

run cx history show 1
is "$(printf '%s\n' "$out" | sed -n '1,11p')" "run 1  2025-12-02 13:00:00  (2.1 s)
runner       netperf
command      netperf -H 198.18.0.2 -t UDP_STREAM -l 2 -T 8 -- -m 8000
             netperf -H 198.18.0.2 -t UDP_STREAM -l 2 -T 9 -- -m 8000
profile      two-streams
interface    ens1f0  peer 198.18.0.2  test UDP_STREAM
parameters   mtu 9000  message 8000  sndbuf n/a  rcvbuf n/a  streams 2  duration 2.0 s
irq          policy n/a  map ens1f0: mlx5_comp0-7 -> 8-15; ens1f1: mlx5_comp0-1 -> 24-25, mlx5_comp2-3 -> 0-15, mlx5_comp4 -> 3
driver       n/a n/a  firmware n/a
results      sent 100  received 100  lost 0 (0.00%)
             send 3.2 Mbps  recv 3.2 Mbps  pass" \
	"history show: the second stream's command indented, 'pass' once, unknown buffers n/a"

run cx history show 2
is "$(printf '%s\n' "$out" | sed -n '9,10p')" "results      sent 0  received 0  lost 0 (loss n/a: nothing sent)
             send 0.0 Mbps  recv 0.0 Mbps  error: netperf sent nothing" \
	"history show: netperf sent nothing: error, no loss figure"
run cx history show 3 --json
is "$(printf '%s' "$out" | jq -c '.run.results | [.loss_pct, .outcome]')" '[null,"error"]' \
	"history show --json: iperf3 sent nothing: loss_pct null (it said 0), outcome error"
printf '%s\n' "$out" >"$TMP/show.json"
run cx history show 5
is "$(printf '%s\n' "$out" | sed -n '4,6p')" "profile      n/a
interface    n/a  peer 198.18.0.2  test UDP_STREAM
parameters   mtu n/a  message 8000  sndbuf n/a  rcvbuf n/a  streams 1  duration 2.0 s" \
	"history show: an ad-hoc bench run: n/a where JSON has null, not 0"

run cx compare 1 2
is "$(printf '%s\n' "$out" | grep loss_pct)" "* loss_pct            0.00                                    n/a" \
	"compare: the loss of a run that sent nothing is n/a"

# compare: the IRQ map whole, wrapped between tokens in its column; the
# host tuning rows (sysctls, irqbalance, the benchmark's CPUs); 3 runs in
# 100 columns.
run cx compare 1 4 5
is "$out" "$(cat <<'EOT'
                      run 1                     run 4              run 5
parameters
* runner              netperf                   iperf3             builtin
* profile             two-streams               drifted            -
* interface           ens1f0                    ens1f0             -
  peer                198.18.0.2                198.18.0.2         198.18.0.2
  test                UDP_STREAM                UDP_STREAM         UDP_STREAM
* mtu                 9000                      1500               -
  message_size        8000                      8000               8000
  send_buffer         -                         -                  -
  recv_buffer         -                         -                  -
* streams             2                         1                  1
  duration_s          2.00                      2.00               2.00
  irq_policy          -                         -                  -
* irq_map             ens1f0: mlx5_comp0-7 ->   mlx5_comp0-7 -> 0  -
                      8-15; ens1f1:
                      mlx5_comp0-1 -> 24-25,
                      mlx5_comp2-3 -> 0-15,
                      mlx5_comp4 -> 3
* irqbalance          stopped                   running            -
* bench_cpus          8-9                       none               -
* rmem_max            4194304                   212992             -
* wmem_max            4194304                   212992             -
* rmem_default        212992                    212992             -
* wmem_default        212992                    212992             -
* netdev_max_backlog  1000                      1000               -
* udp_mem             188010 250681 376020      -                  -
  driver              -                         -                  -
  driver_version      -                         -                  -
  firmware_version    -                         -                  -
results
* sent                100                       1000 (+900.0%)     500 (+400.0%)
* received            100                       990 (+890.0%)      500 (+400.0%)
* lost                0                         10 (+10.00)        0 (+0.00)
* send_mbps           3.20                      32.00 (+900.0%)    16.00 (+400.0%)
* recv_mbps           3.20                      31.70 (+890.6%)    16.00 (+400.0%)
* loss_pct            0.00                      1.00 (+1.00)       0.00 (+0.00)
* pass                pass                      drift              pass
(* differs; in parentheses: change against run 1)
EOT
)" "compare 1 4 5: the IRQ map wrapped, not cut; tuning rows"
is "$(printf '%s\n' "$out" | awk 'length($0) > 100' | wc -l)" 0 "compare of 3 runs: within 100 columns"
run cx compare 1 4 --json
is "$(printf '%s' "$out" | jq -c '[.parameters[] | select(.name == "irqbalance" or .name == "net.core.rmem_max" or .name == "bench_cpus") | [.name, .values]]')" \
	'[["irqbalance",["stopped","running"]],["bench_cpus",["8-9","none"]],["net.core.rmem_max",["4194304","212992"]]]' \
	"compare --json: the tuning rows, with the sysctl's full name"
run cx compare 1 2 --json
is "$(printf '%s' "$out" | jq -c '.results[] | select(.name == "loss_pct") | [.values, .deltas]')" '[[0,null],[null,null]]' \
	"compare --json: null value and delta"

run cx history --format prometheus
is "$(printf '%s\n' "$out" | grep '^cx5prof_run_loss_ratio')" 'cx5prof_run_loss_ratio{interface="",profile=""} 0
cx5prof_run_loss_ratio{interface="ens1f0",profile="drifted"} 0.01
cx5prof_run_loss_ratio{interface="ens1f0",profile="no-peer"} NaN
cx5prof_run_loss_ratio{interface="ens1f0",profile="two-streams"} 0' "Prometheus: NaN for the run that sent nothing, never 0"
printf '%s\n' "$out" >"$TMP/metrics.prom"
/usr/bin/python3 "$TESTS_DIR/integration/prom-check.py" "$TMP/metrics.prom" >/dev/null
ok $? "prom-check.py accepts the NaN sample"

# compare: a run's measured length (builtin, iperf3) is microseconds off
# the requested one; duration_s differs only when its printed value does.
if command -v sqlite3 >/dev/null; then
	sqlite3 "$DB" "UPDATE runs SET duration_s = 1.99977 WHERE id = 1; UPDATE runs SET duration_s = 2.000086 WHERE id = 4"
	run cx compare 1 4
	is "$rc/$(printf '%s\n' "$out" | grep duration_s)" "0/  duration_s          2.00                                    2.00" \
		"compare: 1.99977 s and 2.000086 s print 2.00, no *"
	run cx compare 1 4 --json
	is "$(printf '%s' "$out" | jq -c '.parameters[] | select(.name == "duration_s") | [.differs, .values]')" \
		'[false,[1.99977,2.000086]]' "compare --json: duration_s differs false, the exact values kept"
else
	skip 2 "needs sqlite3"
fi

if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	run /usr/bin/python3 -c '
import json, sys, jsonschema
s = json.load(open(sys.argv[1]))
for f in sys.argv[2:]:
    jsonschema.Draft202012Validator(s).validate(json.load(open(f)))
' "$TOP/schemas/history.schema.json" "$TMP/list.json" "$TMP/show.json"
	is "$rc" 0 "the JSON documents follow schemas/history.schema.json"
else
	skip 1 "needs python3-jsonschema"
fi

done_testing
