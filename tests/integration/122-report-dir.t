#!/usr/bin/env bash
# 122-report-dir.t: the report directory is written whole or not at all,
# and stored text reaches report.html only escaped.
#
# A lab campaign (1 s rounds of netperf in the namespace lab) whose group
# describes itself with terminal escapes and control characters: its
# report.html holds none of those bytes ('?' instead). `report RUN...
# --dir`: a run named twice gets one bundle (it failed "Directory not
# empty" and left a half-written directory); the page of single runs
# speaks of runs, not medians. A write that fails (failpoint
# report-write:1, after the bundles) leaves no directory, nor a temporary
# one beside it, and an empty directory given stays empty; a directory
# that is not empty is refused (exit 73), untouched. `campaign --report`
# likewise: the host is restored, the report is not half there.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
need_root_netns
need_tool netserver "contrib/install-deps.sh enables Debian non-free for it"
vsetup v122 cx5-2port
copy_sysroot cx5-2port "$WORK/pristine"
netserver_start 12865
ok $? "netserver listens in the peer namespace"
leftovers() { find "$WORK" -maxdepth 1 -name '.*.tmp-*' | wc -l; }

cat >"$WORK/escapes.yaml" <<YAML
version: 1
name: escapes
description: "pwn \e]0;PWNED\a\e[2J \x01 end"
extends: $TOP/profiles/baseline.yaml
YAML
cat >"$WORK/c.yaml" <<YAML
version: 1
name: lab-dir
groups: [$TOP/profiles/baseline.yaml, escapes.yaml]
verify: {peer: 198.18.0.2, runner: netperf, duration: 1}
YAML
run cx campaign "$WORK/c.yaml" --report "$WORK/camp"
is "$rc" 0 "campaign --report: exit 0"
is "$(LC_ALL=C grep -c $'[\x01\x07\x1b]' "$WORK/camp/report.html")" 0 \
	"report.html: no control character of the description reaches the page"
grep -qF '<td class="grp">escapes<br><span class="note">pwn ?]0;PWNED??[2J ? end</span></td>' "$WORK/camp/report.html"
ok $? "report.html: the description with '?' for each control character"

# ---- report RUN RUN: a run named twice, one bundle
run cx report 1 1 --dir "$WORK/twice"
is "$rc/$out" "0/report      $WORK/twice/report.html" "report 1 1 --dir NEWDIR: exit 0 (was: Directory not empty)"
is "$(ls "$WORK/twice" | tr '\n' ' ')/$(ls "$WORK/twice/runs" | tr '\n' ' ')" \
	"report.html report.json report.svg runs /run-1 " "report 1 1: the page, the document, the picture and one bundle"
is "$(grep -o '<td class="grp">run 1<' "$WORK/twice/report.html" | wc -l)" 6 \
	"report 1 1: run 1 twice in the results, the runs and the commands"
grep -q '<h2>Receive throughput of each run</h2>' "$WORK/twice/report.html" &&
	! grep -q 'median' "$WORK/twice/report.html"
ok $? "report of runs: single-run labels, no median"
is "$(leftovers)" 0 "no temporary directory left beside it"

# ---- a write that fails: nothing half-written, nothing left
run ip netns exec "$HOST_NS" env CX5PROF_FAILPOINT=report-write:1 "$CX5PROF" --sysroot "$SR" --db "$DB" \
	report 1 2 --dir "$WORK/failed"
is "$rc/$err" "1/cx5prof: error: report: cannot write the report into $WORK/failed: No space left on device" \
	"a failing write: exit 1, said so"
[ ! -e "$WORK/failed" ]
ok $? "a failing write: no directory"
is "$(leftovers)" 0 "a failing write: no temporary directory left"
mkdir "$WORK/empty"
run ip netns exec "$HOST_NS" env CX5PROF_FAILPOINT=report-write:1 "$CX5PROF" --sysroot "$SR" --db "$DB" \
	report 1 --dir "$WORK/empty"
is "$rc/$(ls -A "$WORK/empty" | wc -l)/$(leftovers)" "1/0/0" "a failing write into an empty directory: it stays empty"
run cx report 1 --dir "$WORK/empty"
is "$rc/$(ls "$WORK/empty" | tr '\n' ' ')" "0/report.html report.json report.svg runs " \
	"an empty directory given: filled"
run cx report 1 --dir "$WORK/empty"
is "$rc/$err" "73/cx5prof: error: report: cannot write the report into $WORK/empty: Directory not empty: choose a new or empty directory" \
	"a directory that is not empty: exit 73"
is "$(ls "$WORK/empty" | tr '\n' ' ')" "report.html report.json report.svg runs " "... and untouched"

# ---- campaign --report with a failing write: the host restored, no report
run ip netns exec "$HOST_NS" env CX5PROF_FAILPOINT=report-write:1 "$CX5PROF" --sysroot "$SR" --db "$DB" \
	campaign "$WORK/c.yaml" --report "$WORK/camp2"
is "$rc" 1 "campaign whose report cannot be written: exit 1"
printf '%s\n' "$err" | grep -qx "cx5prof: error: campaign: cannot write the report into $WORK/camp2: No space left on device"
ok $? "... said so"
! printf '%s\n' "$out" | grep -q '^report '
ok $? "... and names no report"
[ ! -e "$WORK/camp2" ] && [ "$(leftovers)" = 0 ] && diff -r --no-dereference "$SR" "$WORK/pristine" >/dev/null
ok $? "... no directory, no temporary one, the sysroot copy as before"

done_testing
