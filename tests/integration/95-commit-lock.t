#!/usr/bin/env bash
# 95-commit-lock.t: `commit` takes the lock that apply, rollback and the
# --confirm watchdog take, so it never commits a transaction another
# process is undoing. While a rollback holds the lock (held before its
# first step by the rollback-pause failpoint), commit waits (up to 5 s),
# then fails with exit 8 naming the holder, and the transaction still
# waits; a commit waiting when the rollback goes on finds the transaction
# rolled back (exit 1), never commits it (that commit waits up to 600 s,
# CX5PROF_COMMIT_LOCK_WAIT_MS: the rollback it waits for ends when the test
# lets it, whatever the load of the machine).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 95

P=$WORK/profiles/mtu-jumbo.yaml
run cx apply --confirm 600 "$P"
is "$rc" 0 "apply --confirm 600: pending a commit"
CX5PROF_FAILPOINT=rollback-pause:1 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" rollback \
	>"$WORK/rb.out" 2>"$WORK/rb.err" &
bg=$!
TXN_PIDS="$TXN_PIDS $bg"
wait_for "$WORK/rb.err" "rollback-pause: paused before step 1"
ok $? "a rollback holds the lock, held before its first step"
holder=$(sed -n 's/.*paused before step 1 (pid \([0-9]*\)).*/\1/p' "$WORK/rb.err")

run cx commit
is "$rc:$err" "8:cx5prof: error: another apply or rollback is running: locked by pid $holder ($DB.lock): wait for it to finish" \
	"commit while the rollback holds the lock: exit 8, names the holder"
is "$(txn_status 1) $(mtu_of ens1f0)" "pending_confirm 9000" "the transaction still waits, the host still applied"

# A commit waiting for the lock when the rollback goes on.
CX5PROF_COMMIT_LOCK_WAIT_MS=600000 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" commit \
	>"$WORK/c.out" 2>"$WORK/c.err" &
c=$!
TXN_PIDS="$TXN_PIDS $c"
has_history_open() { ls -l "/proc/$c/fd" 2>/dev/null | grep -q -- "-> $DB\$"; }
wait_until 60 has_history_open # commit opens the history, then waits for the lock
ok $? "a second commit has opened the history and waits for the lock"
is "$(txn_status 1)" pending_confirm "while it waits: nothing committed"
kill -INT "$holder" # a caught signal ends the pause: the rollback goes on
wait "$bg"
is "$?" 0 "the rollback finishes (exit 0)"
wait "$c"
rc=$?
grep -q "^cx5prof: error: transaction 1 .*has been rolled back" "$WORK/c.err"
is "$rc:$?" "1:0" "the waiting commit finds the transaction rolled back: exit 1, says so"
is "$(txn_status 1)" rolled_back "the transaction is rolled back, never committed"
is "$(txn_count "WHERE status = 'committed' AND kind = 'apply'")" 0 "no committed apply"
host_as_before
ok $? "the host is as before"

done_testing
