#!/usr/bin/env bash
# 121-report-rounds.t: a failed threshold, a skipped group and an
# interrupted round each show with their reason, in the terminal table and
# in report.html.
#
# A lab campaign (2 s rounds of netperf in the namespace lab, repeat 2) of
# three groups: the shipped baseline; the gate (tests/fixtures/campaign/:
# udp-jumbo's lab changes, NUMA-local IRQ pins over both ports, with a
# throughput threshold no veth pair reaches); and newer-driver, which needs
# kernel 99.0 and is skipped. SIGINT (to the campaign's
# process group, as Ctrl-C at a terminal) while gate's second round runs:
# the campaign stops (exit 6) and writes its report. Then `compare` of a
# baseline and a gate run prints gate's long IRQ map whole, wrapped at its
# items, and the loss change in percentage points.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/campaign-lib.sh"
csetup c121
GATE=gate-with-a-floor-no-veth-pair-reaches

cfile lab-rounds "$TOP/profiles/baseline.yaml" "$TOP/tests/fixtures/campaign/gate.yaml" \
	"$TOP/tests/fixtures/campaign/newer-driver.yaml" >"$WORK/rounds.yaml"
# the file's order in every repetition (order: fixed), so that the 4th
# benchmark is the gate's second round
printf 'repeat: 2\norder: fixed\n' >>"$WORK/rounds.yaml"

# rounds: baseline 1, gate 1, newer-driver skipped, baseline 2, gate 2 (the
# 4th run, held at its bench-running test pause while netperf runs)
mkfifo "$WORK/fifo"
CX5PROF_TEST_PAUSE=bench-running:$WORK/fifo setsid ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
	campaign "$WORK/rounds.yaml" --duration 2 --report "$WORK/report" >"$WORK/out" 2>"$WORK/err" &
pid=$!
at_run "$WORK/fifo" 4
ok $? "gate's second round runs (process group $pid)"
pause_signal "$WORK/fifo" INT "-$pid"
wait "$pid"
is "$?" 6 "SIGINT: exit 6"
diag "$(cat "$WORK/err")"
out=$(cat "$WORK/out")

# ---- the terminal table
printf '%s\n' "$out" | grep -qE '^newer-driver +- +skipped \(exit 5\): ens1f0: .*99\.0'
ok $? "table: the skipped group's row, with exit 5 and why"
printf '%s\n' "$out" | grep -qE "^failed      $GATE round 1: receive throughput >= 100000 Mbps: [0-9]+\\.[0-9]{2} Mbps\$"
ok $? "table: the failed threshold, with the limit and the value"
printf '%s\n' "$out" | grep -qE "^excluded    $GATE round 2: interrupted: SIGINT during the run"
ok $? "table: the interrupted round, with the reason"

# ---- report.html
page=$WORK/report/report.html
grep -qE '<td class="grp">newer-driver</td><td colspan="5" class="long fail">skipped \(exit 5\): ens1f0: [^<]*99\.0' "$page"
ok $? "report: the skipped group's row says exit 5 and why"
grep -qE '<span class="fail">receive throughput &gt;= 100000 Mbps: [0-9]+\.[0-9]{2} Mbps FAIL</span>' "$page"
ok $? "report: gate's round 1 fails its threshold, with the value"
grep -qE "<td class=\"grp\">$GATE</td><td class=\"num\">2</td><td class=\"num\">(<a [^>]*>)?[0-9]+(</a>)?</td><td class=\"fail\">interrupted</td>.*<td class=\"long\">SIGINT during the run" "$page"
ok $? "report: gate's round 2 interrupted, with the reason"
grep -q '>1 round, 1 not counted</text>' "$page"
ok $? "report: the chart counts gate's rounds (one counted, one not)"

# ---- compare: gate's IRQ map whole, the loss change in pp
base=$(q "SELECT id FROM runs WHERE profile_name = 'baseline' ORDER BY id LIMIT 1")
gate=$(q "SELECT id FROM runs WHERE profile_name = '$GATE' ORDER BY id LIMIT 1")
run cx compare "$base" "$gate"
is "$rc" 0 "compare BASELINE GATE: exit 0"
map=$(q "SELECT content FROM artifacts WHERE run = $gate AND name = 'irq_map'")
missing=0
while IFS= read -r item; do
	printf '%s\n' "$out" | grep -qF -- "$item" || { missing=$((missing + 1)); diag "not whole: $item"; }
done < <(printf '%s\n' "$map" | sed 's/[,;] /\n/g')
is "$missing/$(printf '%s\n' "$map" | wc -c)" "0/$(printf '%s\n' "$map" | wc -c)" \
	"compare: every item of gate's IRQ map on one line, none cut (a map of $(printf '%s' "$map" | wc -c) bytes)"
row=$(printf '%s\n' "$out" | grep -E '^[* ] loss_pct ')
printf '%s\n' "$row" | grep -qE '^(  loss_pct +([0-9]+\.[0-9]{2}) +\2|\* loss_pct +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} \([+-][0-9]+\.[0-9]{2} pp\))$'
ok $? "compare: a change of the loss is in percentage points: $row"
is "$(printf '%s\n' "$out" | awk 'length($0) > 100' | wc -l)" 0 "compare: within 100 columns"

same_sysroot && [ "$(mtus)" == "$MTUS_BEFORE" ]
ok $? "afterwards: the host is as before"

done_testing
