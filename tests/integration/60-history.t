#!/usr/bin/env bash
# 60-history.t: `history`, `history show`, `compare` on a real SQLite file.
#
# The database holds the seed's three rounds (defaults / MTU only / MTU +
# IRQ + driver) and one apply transaction, made by `test_runs --make-db`
# through runs_record() and history_txn_create() (tests/unit/test_runs.c).
# Exact human output, JSON checked against schemas/history.schema.json,
# exit codes, and the database unchanged by these read-only verbs.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
tt_setup
SCHEMA=$TOP/schemas/history.schema.json
# JSON documents are collected and validated in one python run at the end
# (importing jsonschema is slow on a busy machine).
njson=0
keep_json() { njson=$((njson + 1)); printf '%s\n' "$1" >"$TT/doc-$njson-$2.json"; }
before=$(sha256sum "$DB" | cut -d' ' -f1)

run "$CX5PROF" --db "$DB" history
is "$rc" 0 "history: exit 0"
is "$out" "2025-12-02 13:20:00  run 3     netperf  udp-jumbo ens1f0 mtu 9000 msg 8000: 23802.2 Mbps, loss 0.02%, pass
2025-12-02 13:18:20  txn 1     apply    udp-jumbo committed
2025-12-02 13:10:00  run 2     netperf  mtu-jumbo ens1f0 mtu 9000 msg 8000: 7742.8 Mbps, loss 15.66%, FAIL
2025-12-02 13:00:00  run 1     netperf  baseline ens1f0 mtu 1500 msg 8000: 3278.6 Mbps, loss 64.29%, FAIL" \
	"history: transactions and runs, newest first"
is "$err" "" "history: nothing on stderr"

run "$CX5PROF" --db "$DB" history --limit 2
is "$(echo "$out" | cut -c22-31)" "run 3     
txn 1     " "history --limit 2: the two newest entries"

run "$CX5PROF" --db "$DB" history --json
is "$rc" 0 "history --json: exit 0"
keep_json "$out" history
is "$(echo "$out" | /usr/bin/python3 -c 'import json,sys; print(" ".join("%s:%d" % (e["type"], e["id"]) for e in json.load(sys.stdin)["history"]))')" \
	"run:3 transaction:1 run:2 run:1" "history --json: order and types"

run "$CX5PROF" --db "$DB" history show 3
is "$rc" 0 "history show 3: exit 0"
is "$(echo "$out" | head -n 12)" "run 3  2025-12-02 13:20:00  (10.0 s)
transaction  1
runner       netperf
command      netperf -H 198.18.0.2 -t UDP_STREAM -l 10 -- -m 8000 -s 4M -S 4M
profile      udp-jumbo (fnv1a64:0123456789abcdef)
interface    ens1f0  peer 198.18.0.2  test UDP_STREAM
parameters   mtu 9000  message 8000  sndbuf 4194304  rcvbuf 4194304  streams 1  duration 10.0 s
irq          policy numa-local  map mlx5_comp0-7 -> 8-15
driver       mlx5_core 5.8-1.0.1  firmware 16.35.2000 (MT_0000000080)
results      sent 3720000  received 3719100  lost 900 (0.02%)
             send 23808.0 Mbps  recv 23802.2 Mbps  pass: recv 23802.2 Mbps >= floor 23000 Mbps
mirror: pending, 0 attempt(s), reply -" "history show: the round's facts and its mirror state"
is "$(echo "$out" | grep '^--- ')" "--- command (64 bytes) ---
--- irq_map (20 bytes) ---
--- runner_output (109 bytes) ---
--- ethtool_i (82 bytes) ---
--- counters_before (19 bytes) ---
--- counters_after (19 bytes) ---
--- interrupts_before (8 bytes) ---
--- interrupts_after (13 bytes) ---" "history show: every artifact, in recorded order"
echo "$out" | grep -qx '98: 0 371910'
ok $? "history show: artifact content printed (interrupts after)"

run "$CX5PROF" --db "$DB" history show 3 --json
keep_json "$out" history-show
is "$(echo "$out" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["run"]["parameters"]["mtu"], len(d["run"]["artifacts"]), d["mirror"]["status"])')" \
	"9000 8 pending" "history show --json: parameters, artifacts, mirror state"

run "$CX5PROF" --db "$DB" history show 42
is "$rc" 66 "history show 42: not found exit code"
is "$err" "cx5prof: error: run 42 not found in $DB: see 'cx5prof history'" "history show 42: message"
run "$CX5PROF" --db "$DB" history show abc
is "$rc" 64 "history show abc: usage"
is "$err" "cx5prof: error: 'abc' is not a run id (a positive number, as listed by 'cx5prof history')" "history show abc: message"
run "$CX5PROF" --db "$DB" history list
is "$rc" 64 "history list: unknown subcommand"
run "$CX5PROF" --db "$TT/none.db" history
is "$rc" 66 "history on a missing database: not found"
is "$err" "cx5prof: error: no history database at $TT/none.db: check --db (apply, verify, bench, campaign and tune create one)" \
	"history on a missing database: message with the remedy"
[ ! -e "$TT/none.db" ]
ok $? "history does not create a missing database"

run "$CX5PROF" --db "$DB" compare 1 2 3
is "$rc" 0 "compare 1 2 3: exit 0"
is "$out" "                    run 1                      run 2                      run 3
parameters
  runner            netperf                    netperf                    netperf
* profile           baseline                   mtu-jumbo                  udp-jumbo
  interface         ens1f0                     ens1f0                     ens1f0
  peer              198.18.0.2                 198.18.0.2                 198.18.0.2
  test              UDP_STREAM                 UDP_STREAM                 UDP_STREAM
* mtu               1500                       9000                       9000
  message_size      8000                       8000                       8000
* send_buffer       212992                     212992                     4194304
* recv_buffer       212992                     212992                     4194304
  streams           1                          1                          1
  duration_s        10.00                      10.00                      10.00
* irq_policy        irqbalance                 irqbalance                 numa-local
* irq_map           mlx5_comp0-7 -> 0          mlx5_comp0-7 -> 0          mlx5_comp0-7 -> 8-15
  driver            mlx5_core                  mlx5_core                  mlx5_core
* driver_version    5.15.0-91-generic          5.15.0-91-generic          5.8-1.0.1
* firmware_version  16.27.2008                 16.27.2008                 16.35.2000
                    (MT_0000000080)            (MT_0000000080)            (MT_0000000080)
results
* sent              1434567                    1434600 (+0.0%)            3720000 (+159.3%)
* received          512345                     1209876 (+136.1%)          3719100 (+625.9%)
* lost              922222                     224724 (-75.6%)            900 (-99.9%)
* send_mbps         9180.20                    9180.40 (+0.0%)            23808.00 (+159.3%)
* recv_mbps         3278.60                    7742.80 (+136.2%)          23802.20 (+626.0%)
* loss_pct          64.29                      15.66 (-48.63 pp)          0.02 (-64.27 pp)
* pass              FAIL                       FAIL                       pass
(* differs; in parentheses: change against run 1, of the loss in percentage points)" \
	"compare: the seed's three groups side by side with deltas (loss in percentage points), a long value wrapped"
is "$(printf '%s\n' "$out" | awk 'length($0) > 100' | wc -l)" 0 "compare of 3 runs: within 100 columns"

run "$CX5PROF" --db "$DB" compare 2 3 --json
keep_json "$out" compare
is "$(echo "$out" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
print(",".join(r["name"] for r in d["parameters"] if r["differs"]))
r = [r for r in d["results"] if r["name"] == "recv_mbps"][0]
print(r["values"], r["deltas"], r["delta_unit"], round(r["delta_pct"][1], 1))
r = [r for r in d["results"] if r["name"] == "loss_pct"][0]
print(r["values"], [None if x is None else round(x, 2) for x in r["deltas"]], r["delta_unit"])')" \
	"profile,send_buffer,recv_buffer,irq_policy,irq_map,driver_version,firmware_version
[7742.8, 23802.2] [None, 16059.400000000001] value 207.4
[15.66, 0.02] [None, -15.64] pp" "compare --json: what differed, and the deltas (the loss in percentage points)"

run "$CX5PROF" --db "$DB" compare 1
is "$rc" 64 "compare with one run: usage"
run "$CX5PROF" --db "$DB" compare 1 9
is "$rc" 66 "compare with a missing run: not found"
is "$err" "cx5prof: error: run 9 not found in $DB: see 'cx5prof history'" "compare with a missing run: message"

is "$(sha256sum "$DB" | cut -d' ' -f1)" "$before" "read-only verbs left the database file unchanged"
run /usr/bin/python3 "$TESTS_DIR/helpers/validate_json.py" "$SCHEMA" "$TT"/doc-*.json
is "$out" "3 documents valid" "--json outputs (history, history show, compare) valid against history.schema.json"
[ -n "$err" ] && diag "$err"
done_testing
