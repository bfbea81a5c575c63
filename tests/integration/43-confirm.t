#!/usr/bin/env bash
# 43-confirm.t: `apply --confirm SECONDS` (as nmstatectl --no-commit
# --timeout). Without `commit` the detached watchdog rolls back, even when
# the shell that ran apply is killed right after it (an MTU change can cut
# the operator's SSH session); with `commit` in time the changes stay.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 43

P=$WORK/profiles/mtu-jumbo.yaml

# The watchdog is held at its start (CX5PROF_TEST_PAUSE=watchdog, util.h)
# while the test looks at the pending transaction, so no check races its
# deadline; the deadline is read from the history, never assumed.
mkfifo "$WORK/wd.fifo"
deadline_s() { sqlite3 "$DB" "SELECT (confirm_deadline_usec - started_usec + 500000) / 1000000 FROM transactions WHERE id = $1"; }
past_deadline() { [ "$(date +%s%6N)" -gt "$(sqlite3 "$DB" "SELECT confirm_deadline_usec FROM transactions WHERE id = $1")" ]; }
watchdog_pid() { # the pid apply printed; 1 when there is none
	wd=$(printf '%s' "$1" | sed -n 's/.*watchdog pid \([0-9][0-9]*\)).*/\1/p')
	[ -n "$wd" ] && TXN_PIDS="$TXN_PIDS $wd"
}
gone() { ! kill -0 "$1" 2>/dev/null; }

# ---- no commit: rolled back, even though the shell that ran apply dies
(setsid bash -c 'CX5PROF_TEST_PAUSE=watchdog:$7 ip netns exec "$1" "$2" --sysroot "$3" --db "$4" apply --confirm 2 "$5" >"$6/out" 2>&1; kill -9 $$' \
	_ "$HOST_NS" "$CX5PROF" "$SR" "$DB" "$P" "$WORK" "$WORK/wd.fifo"; true) 2>/dev/null # its shell is killed: that is the point
out=$(cat "$WORK/out")
case $out in
*"applied 2 changes (transaction 1): run \`cx5prof commit\` within 2 s to keep them, else they are rolled back (watchdog pid "*)
	ok 0 "apply --confirm 2: says commit is needed within 2 s" ;;
*) ok 1 "apply --confirm 2: says commit is needed within 2 s"; diag "$out" ;;
esac
watchdog_pid "$out"
ok $? "apply --confirm 2: names the watchdog's pid"
is "$(deadline_s 1)" 2 "the history's deadline is 2 s after the start"
is "$(mtu_of ens1f0) $(txn_status 1)" "9000 pending_confirm" "applied, pending confirmation"
run cx apply "$WORK/profiles/udp-jumbo.yaml"
is "$rc" 9 "another apply while pending: exit 9"
is "$err" "cx5prof: error: transaction 1 (apply mtu-jumbo) waits for confirmation: run \`cx5prof commit\` to keep it or \`cx5prof rollback\` to undo it" \
	"and says commit or rollback"
is "$(pause_wait "$WORK/wd.fifo")" "watchdog $wd" "the watchdog is that pid, held at its start"
pause_release "$WORK/wd.fifo"
wait_until 60 eval '[ "$(txn_status 1)" = rolled_back ]'
is "$(txn_status 1)" rolled_back "no commit: the watchdog rolled back"
is "$(sqlite3 "$DB" "SELECT r.started_usec >= t.confirm_deadline_usec FROM transactions r JOIN transactions t ON t.id = r.rolls_back_txn WHERE t.id = 1")" 1 \
	"the watchdog's rollback started after the deadline, not before"
host_as_before
ok $? "the host is as before"
is "$(sqlite3 "$DB" "SELECT error FROM transactions WHERE id = 1")" \
	"not confirmed in time (--confirm): rolled back by the watchdog" "history says why"
wait_until 30 gone "$wd"
ok $? "the watchdog has exited"
run cx commit
is "$rc" 1 "a late commit: exit 1"
is "$err" "cx5prof: error: transaction 1 was not confirmed in time and has been rolled back: apply it again" \
	"a late commit says it was too late"

# ---- commit in time: kept. --confirm 10 leaves the commit plenty of time;
# the watchdog is held until its deadline has passed, then sees the commit
# and leaves the changes alone.
run env CX5PROF_TEST_PAUSE=watchdog:$WORK/wd.fifo ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
	apply --confirm 10 "$P"
is "$rc" 0 "apply --confirm 10"
watchdog_pid "$out"
ok $? "apply --confirm 10: names the watchdog's pid"
run cx commit
is "$rc:$out" "0:committed transaction 3" "commit: exit 0"
wait_until 60 past_deadline 3
ok $? "the deadline (from the history) has passed"
is "$(pause_wait "$WORK/wd.fifo")" "watchdog $wd" "the watchdog, held until after its deadline"
pause_release "$WORK/wd.fifo"
wait_until 30 gone "$wd"
ok $? "the watchdog exits: the transaction is committed"
is "$(mtu_of ens1f0) $(txn_status 3)" "9000 committed" "after the deadline: still applied, committed"
is "$(txn_count "WHERE rolls_back_txn = 3")" 0 "nothing rolled it back"
run cx commit
is "$rc:$out" "0:nothing to commit" "a second commit: nothing to commit"

# ---- rollback of a pending transaction also works (and stops the watchdog)
run cx rollback
is "$rc" 0 "rollback of the committed one"
run cx apply --confirm 30 "$P"
watchdog_pid "$out"
ok $? "apply --confirm 30: names the watchdog's pid"
run cx rollback
is "$rc" 0 "rollback while pending confirmation"
host_as_before
ok $? "host as before"
wait_until 30 gone "$wd"
ok $? "the watchdog exits when the transaction is rolled back"

# ---- the --confirm setup fails after every change landed: no change is
# left unguarded: all are undone (exit 6), as for a failed step.
last_id() { sqlite3 "$DB" "SELECT max(id) FROM transactions"; }
for k in 1 2; do
	run env CX5PROF_FAILPOINT=confirm-setup:$k ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
		apply --confirm 30 "$P"
	id=$(last_id)
	case $k in
	1) why="cannot record transaction $id as pending_confirm in $DB: Input/output error" ;;
	2) why="cannot start the --confirm watchdog: Resource temporarily unavailable" ;;
	esac
	msg="every change was undone: the host is back as it was (transaction $id rolled back)"
	is "$rc:$err" "6:cx5prof: error: apply failed after its last change: $why
cx5prof: error: $msg" "confirm setup failure $k: exit 6, says why and that all was undone"
	is "$(printf '%s\n' "$out" | tail -n 1)" "$msg" "confirm setup failure $k: the result line is that message"
	host_as_before
	ok $? "confirm setup failure $k: host as before"
	is "$(txn_status "$id")" rolled_back "confirm setup failure $k: history: rolled_back"
	is "$(sqlite3 "$DB" "SELECT group_concat(state, ' ') FROM changes WHERE txn = $id")" "undone undone" \
		"confirm setup failure $k: both changes undone"
	run cx apply "$P"
	is "$rc" 0 "confirm setup failure $k: the next apply is allowed"
	run cx rollback
	is "$rc" 0 "confirm setup failure $k: and rolled back"
done

# The same with a real failure: fork() of the watchdog fails with EAGAIN
# (strace fault injection into clone): undone, exit 6.
run ip netns exec "$HOST_NS" $STRACE -f -qq -o /dev/null -e trace=clone,clone3,fork,vfork \
	-e inject=clone,clone3,fork,vfork:error=EAGAIN "$CX5PROF" --sysroot "$SR" --db "$DB" apply --confirm 30 "$P"
id=$(last_id)
is "$rc:$(printf '%s\n' "$err" | grep error:)" "6:cx5prof: error: apply failed after its last change: cannot start the --confirm watchdog: Resource temporarily unavailable
cx5prof: error: every change was undone: the host is back as it was (transaction $id rolled back)" \
	"fork EAGAIN for the watchdog: exit 6, all undone"
host_as_before
ok $? "fork EAGAIN: host as before"
is "$(txn_status "$id")" rolled_back "fork EAGAIN: history: rolled_back"

run cx --json apply --confirm 0 "$P"
is "$rc" 64 "--confirm 0: usage error"

done_testing
