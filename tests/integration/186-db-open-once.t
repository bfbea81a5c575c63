#!/usr/bin/env bash
# 186-db-open-once.t: one command opens the history database file once
# (strace, counting the openat calls that name the file itself), in the
# lab: the first apply creates it private (O_EXCL, 0600) and then opens it
# once; an apply on an existing history, rollback, history, commit open it
# once; an apply --confirm opens it once, and its watchdog (a process of
# its own, which outlives the apply) once more, whether it rolls back at
# the deadline or finds the transaction committed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
need_tool strace
txn_setup 186

P=$WORK/profiles/mtu-jumbo.yaml
# trace OUT ARGS...: cx5prof ARGS in the lab under strace -f, the openat
# calls into OUT (every process: the watchdog too, which strace waits for).
trace() {
	local o=$1
	shift
	ip netns exec "$HOST_NS" timeout 120 $STRACE -f -e trace=openat,open -o "$o" \
		"$CX5PROF" --sysroot "$SR" --db "$DB" "$@"
}
# opens OUT: "N" per process that opened the database file, in pid order
# ("1 1": two processes, once each).
last_apply() { sqlite3 "$DB" "SELECT max(id) FROM transactions WHERE rolls_back_txn IS NULL"; }
opens() { grep -F "\"$DB\"," "$1" | awk '{print $1}' | sort -n | uniq -c | awk '{print $1}' | tr '\n' ' ' | sed 's/ $//'; }

run trace "$WORK/st1" apply --runtime-only "$P"
is "$rc" 0 "the first apply applies"
is "$(opens "$WORK/st1")" 2 "the first apply: the file named twice, by one process"
is "$(grep -F "\"$DB\"," "$WORK/st1" | grep -c 'O_CREAT|O_EXCL')" 1 "once to create it private (O_EXCL)"
is "$(grep -F "\"$DB\"," "$WORK/st1" | grep -vc 'O_CREAT')" 1 "and once to open it"
is "$(stat -c %a "$DB")" 600 "the history is private (0600)"

run trace "$WORK/st2" rollback
is "$rc" 0 "rollback"
is "$(opens "$WORK/st2")" 1 "rollback opens the history once"

run trace "$WORK/st3" apply --runtime-only "$P"
is "$rc" 0 "apply on an existing history"
is "$(opens "$WORK/st3")" 1 "an apply opens the existing history once"

run trace "$WORK/st4" history
is "$rc" 0 "history"
is "$(opens "$WORK/st4")" 1 "history opens it once"

run trace "$WORK/st5" rollback
is "$rc" 0 "rollback again"

# ---- --confirm, no commit: the watchdog rolls back at the deadline. It is
# held at its start (CX5PROF_TEST_PAUSE) until the apply has returned.
mkfifo "$WORK/wd.fifo"
CX5PROF_TEST_PAUSE=watchdog:$WORK/wd.fifo trace "$WORK/st6" apply --runtime-only --confirm 2 "$P" \
	>"$WORK/out6" 2>&1 &
tracer=$!
wd=$(pause_wait "$WORK/wd.fifo")
is "${wd%% *}" watchdog "the watchdog is held at its start"
pause_release "$WORK/wd.fifo"
wait "$tracer"
is "$?" 0 "apply --confirm and its watchdog have ended"
is "$(txn_status "$(last_apply)")" rolled_back "the watchdog rolled back"
is "$(opens "$WORK/st6")" "1 1" "apply --confirm opens the history once, its watchdog once"

# ---- --confirm, then commit: the watchdog finds it committed.
CX5PROF_TEST_PAUSE=watchdog:$WORK/wd.fifo trace "$WORK/st7" apply --runtime-only --confirm 60 "$P" \
	>"$WORK/out7" 2>&1 &
tracer=$!
wd=$(pause_wait "$WORK/wd.fifo")
is "${wd%% *}" watchdog "the watchdog is held at its start"
wait_until 60 eval '[ "$(txn_status "$(last_apply)")" = pending_confirm ]'
run trace "$WORK/st8" commit
is "$rc" 0 "commit"
is "$(opens "$WORK/st8")" 1 "commit opens the history once"
pause_release "$WORK/wd.fifo"
wait "$tracer"
is "$?" 0 "apply --confirm and its watchdog have ended"
is "$(txn_status "$(last_apply)")" committed "committed, and the watchdog left it so"
is "$(opens "$WORK/st7")" "1 1" "apply --confirm opens the history once, its watchdog once"

done_testing
