#!/usr/bin/env bash
# 42-kill9.t: `kill -9` of apply before step k, for every k: the undo log
# was durable before the first change, the next command reports the open
# transaction and refuses to apply, and `cx5prof rollback` restores the host
# exactly (idempotent: it restores every change whether it had landed or not).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 42
txn_short_profile 3

P=$WORK/profiles/one-port.yaml
n=6
for ((k = 1; k <= n; k++)); do
	CX5PROF_FAILPOINT=apply-pause:$k ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P" \
		>"$WORK/out" 2>"$WORK/err" &
	bg=$!
	TXN_PIDS="$TXN_PIDS $bg"
	if wait_for "$WORK/err" "apply-pause: paused before step $k"; then
		pid=$(sed -n 's/.*paused before step [0-9]* (pid \([0-9]*\)).*/\1/p' "$WORK/err")
		kill -9 "$pid"
		wait "$bg" 2>/dev/null
		ok 0 "kill -9 before step $k"
	else
		ok 1 "apply did not reach step $k"; diag "$(cat "$WORK/err")"
		continue
	fi
	id=$(sqlite3 "$DB" "SELECT max(id) FROM transactions WHERE kind = 'apply'")
	is "$(txn_status "$id")" open "step $k: the transaction is left open"
	is "$(sqlite3 "$DB" "SELECT count(*) FROM changes WHERE txn = $id AND old_value IS NOT NULL")" "$n" \
		"step $k: the undo log holds every old value"
	run cx apply "$P"
	is "$rc" 9 "step $k: the next apply refuses (exit 9)"
	is "$err" "cx5prof: error: transaction $id (apply udp-jumbo) was interrupted and may have left changes on the host: run \`cx5prof rollback\` first" \
		"step $k: and says what to do"
	run cx rollback
	is "$rc" 0 "step $k: rollback exits 0"
	host_as_before
	ok $? "step $k: host exactly as before"
	is "$(txn_status "$id")" rolled_back "step $k: history: rolled_back"
done

# SIGINT before step 3: steps 1 and 2 are undone, step 3 (never started)
# and later are left alone, and the message names the signal, not a step.
CX5PROF_FAILPOINT=apply-pause:3 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P" \
	>"$WORK/out" 2>"$WORK/err" &
bg=$!
TXN_PIDS="$TXN_PIDS $bg"
wait_for "$WORK/err" "apply-pause: paused before step 3"
ok $? "apply paused before step 3"
kill -INT "$(sed -n 's/.*(pid \([0-9]*\)).*/\1/p' "$WORK/err")"
wait "$bg"
is "$?" 6 "SIGINT: exit 6 (rolled back)"
id=$(sqlite3 "$DB" "SELECT max(id) FROM transactions WHERE kind = 'apply'")
is "$(grep 'error:' "$WORK/err")" "cx5prof: error: apply interrupted by SIGINT before step 3
cx5prof: error: every change was undone: the host is back as it was (transaction $id rolled back)" \
	"SIGINT: says interrupted before step 3, and that everything was undone"
host_as_before
ok $? "SIGINT: host exactly as before"
is "$(txn_status "$id")" rolled_back "SIGINT: history: rolled_back"
is "$(sqlite3 "$DB" "SELECT group_concat(state, ' ') FROM (SELECT state FROM changes WHERE txn = $id ORDER BY seq)")" \
	"undone undone planned planned planned planned" "SIGINT: steps 1-2 undone, step 3 on never touched"

# A rollback killed midway is finished by the next rollback.
run cx apply "$P"
is "$rc" 0 "apply"
CX5PROF_FAILPOINT=rollback-pause:3 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" rollback \
	>"$WORK/out" 2>"$WORK/err" &
bg=$!
TXN_PIDS="$TXN_PIDS $bg"
wait_for "$WORK/err" "rollback-pause: paused before step 3"
ok $? "rollback paused before its step 3"
kill -9 "$(sed -n 's/.*(pid \([0-9]*\)).*/\1/p' "$WORK/err")"
wait "$bg" 2>/dev/null
is "$(sqlite3 "$DB" "SELECT status FROM transactions ORDER BY id DESC LIMIT 1")" open "the killed rollback is left open"
rid=$(sqlite3 "$DB" "SELECT max(id) FROM transactions")
run cx apply "$P"
is "$rc:$err" "9:cx5prof: error: transaction $rid (rollback of transaction $((rid - 1))) was interrupted: run \`cx5prof rollback\` to finish it" \
	"apply refuses while it is open, and says how to finish it"
run cx rollback
is "$rc" 0 "a rollback after a killed rollback exits 0"
host_as_before
ok $? "host as before"
is "$(sqlite3 "$DB" "SELECT count(*) FROM transactions WHERE status = 'open'")" 0 "no transaction left open"

done_testing
