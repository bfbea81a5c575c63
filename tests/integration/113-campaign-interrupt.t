#!/usr/bin/env bash
# 113-campaign-interrupt.t: rounds that were cut short never count. In the
# namespace lab (campaign-lib.sh), 3 s rounds:
# - SIGINT to the campaign's process group (Ctrl-C at a terminal: netperf
#   gets it too) while the third round's netperf runs: exit 6, that round
#   recorded as interrupted with the reason (its run's outcome too), absent
#   from every median and comparison; the host restored.
# - SIGTERM to the process alone mid-round: netperf is stopped at once,
#   the round is interrupted the same way.
# - `cx5prof campaign FILE | head -c 1`: the reader goes away; the campaign
#   finishes the round's undo and stops as at a signal (exit 6, recorded
#   as interrupted, no transaction left open, the host as before).
# A round is "in progress" when the campaign is held at its bench-running
# test pause (netperf started, not yet waited for): no sleeps decide it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/campaign-lib.sh"
csetup c113

cfile lab-int "$TOP/profiles/baseline.yaml" "$TOP/profiles/mtu-jumbo.yaml" >"$WORK/int.yaml"
# the file's order in every repetition (order: fixed), so that the third
# round is the baseline's second
printf 'repeat: 3\norder: fixed\n' >>"$WORK/int.yaml"

# ---- SIGINT to the process group, in the third round (baseline, 2nd time)
mkfifo "$WORK/int.fifo" "$WORK/term.fifo"
CX5PROF_TEST_PAUSE=bench-running:$WORK/int.fifo setsid ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
	campaign "$WORK/int.yaml" --duration 3 >"$WORK/int.out" 2>"$WORK/int.err" &
pid=$!
at_run "$WORK/int.fifo" 3
ok $? "the third round's netperf runs (process group $pid)"
pause_signal "$WORK/int.fifo" INT "-$pid"
wait "$pid"
is "$?" 6 "SIGINT to the process group: exit 6"
grep -q '^cx5prof: error: campaign 1 interrupted by SIGINT: the round in progress was rolled back; the host is as before the campaign$' "$WORK/int.err"
ok $? "SIGINT: said so"
q "SELECT summary FROM campaigns WHERE id = 1" >"$WORK/int.json"
run cjson "$WORK/int.json" '
b = d["groups"][0]
r = b["rounds"]
counted = [x["recv_mbps"] for x in r if x["counted"]]
print(d["status"], d["stopped"], [x["result"] for x in r], [x["counted"] for x in r], r[1]["error"].startswith("SIGINT during the run"),
      b["rounds_counted"], b["rounds_excluded"], b["median_recv_mbps"] == counted[0], b["max_recv_mbps"] == counted[0])'
is "$rc/$out" "0/interrupted interrupted ['recorded', 'interrupted'] [True, False] True 1 1 True True" \
	"the interrupted round: recorded with its reason, not counted, absent from the median and the range"
run cx --json history show "$(q "SELECT max(id) FROM runs")"
printf '%s' "$out" | grep -q '"outcome": "interrupted"'
ok $? "the interrupted round's run: outcome interrupted"
grep -qE '^excluded    baseline round 2: interrupted: SIGINT during the run' "$WORK/int.out"
ok $? "the table lists the round as excluded, with the reason"
is "$(q "SELECT COUNT(*) FROM transactions WHERE kind = 'apply' AND status != 'rolled_back'")" 0 \
	"SIGINT: no transaction left applied"
same_sysroot && [ "$(mtus)" == "$MTUS_BEFORE" ]
ok $? "SIGINT: the host is as before"

# ---- SIGTERM to the process alone: netperf is stopped, not waited for
CX5PROF_TEST_PAUSE=bench-running:$WORK/term.fifo setsid ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
	campaign "$WORK/int.yaml" --duration 3 >"$WORK/term.out" 2>"$WORK/term.err" &
pid=$!
at_run "$WORK/term.fifo" 1
ok $? "the first round's netperf runs"
pause_signal "$WORK/term.fifo" TERM "$pid"
wait "$pid"
is "$?" 6 "SIGTERM to the process: exit 6"
q "SELECT summary FROM campaigns WHERE id = 2" >"$WORK/term.json"
run cjson "$WORK/term.json" '
r = d["groups"][0]["rounds"]
print(d["status"], [(x["result"], x["counted"]) for x in r], r[0]["error"].startswith("SIGTERM during the run"), d["groups"][0]["median_recv_mbps"])'
is "$rc/$out" "0/interrupted [('interrupted', False)] True None" "SIGTERM: the round is interrupted and counts nowhere"
same_sysroot && [ "$(mtus)" == "$MTUS_BEFORE" ]
ok $? "SIGTERM: the host is as before"

# ---- the reader goes away: EPIPE on stdout is an interruption
ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" campaign "$WORK/int.yaml" 2>"$WORK/pipe.err" | head -c 1 >"$WORK/pipe.out"
is "${PIPESTATUS[0]}/$(cat "$WORK/pipe.out")" "6/e" "| head -c 1: exit 6 (interrupted), after the first byte of the estimate"
grep -q '^cx5prof: error: campaign 3 interrupted by a closed output (EPIPE): the round in progress was rolled back; the host is as before the campaign$' "$WORK/pipe.err"
ok $? "| head -c 1: said so on stderr"
is "$(q "SELECT status FROM campaigns WHERE id = 3")/$(q "SELECT COUNT(*) FROM transactions WHERE status IN ('open', 'pending_confirm') OR (kind = 'apply' AND status != 'rolled_back')")" \
	"interrupted/0" "| head -c 1: the campaign recorded as interrupted, no transaction left open"
same_sysroot && [ "$(mtus)" == "$MTUS_BEFORE" ]
ok $? "| head -c 1: the host is as before"

done_testing
