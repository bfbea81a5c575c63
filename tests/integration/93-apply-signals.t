#!/usr/bin/env bash
# 93-apply-signals.t: SIGTERM and SIGHUP (a shutdown, a closed SSH session)
# during apply undo everything, as SIGINT does (42-kill9.t): apply, held
# before step K by the apply-pause failpoint, gets the signal there; it
# undoes steps 1..K-1 in reverse, exits 6, names the signal, records the
# transaction rolled back, and the host is exactly as before. Steps from K
# on are never touched. K = 1 (nothing landed yet), 3, and the last step.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 93
txn_short_profile 3

P=$WORK/profiles/one-port.yaml
n=6 # steps of the short profile: 2 sysctls, the MTU, 3 IRQs
states() { # the states of a transaction's steps, in order
	sqlite3 "$DB" "SELECT group_concat(state, ' ') FROM (SELECT state FROM changes WHERE txn = $1 ORDER BY seq)"
}
for sig in TERM HUP; do
	for k in 1 3 $n; do
		CX5PROF_FAILPOINT=apply-pause:$k ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P" \
			>"$WORK/out" 2>"$WORK/err" &
		bg=$!
		TXN_PIDS="$TXN_PIDS $bg"
		wait_for "$WORK/err" "apply-pause: paused before step $k"
		ok $? "SIG$sig before step $k: apply is held there"
		kill "-$sig" "$(sed -n 's/.*paused before step [0-9]* (pid \([0-9]*\)).*/\1/p' "$WORK/err")"
		wait "$bg"
		is "$?" 6 "SIG$sig before step $k: exit 6 (rolled back)"
		id=$(sqlite3 "$DB" "SELECT max(id) FROM transactions WHERE kind = 'apply'")
		is "$(grep 'error:' "$WORK/err")" "cx5prof: error: apply interrupted by SIG$sig before step $k
cx5prof: error: every change was undone: the host is back as it was (transaction $id rolled back)" \
			"SIG$sig before step $k: names the signal, says everything was undone"
		host_as_before
		ok $? "SIG$sig before step $k: host exactly as before"
		is "$(txn_status "$id")" rolled_back "SIG$sig before step $k: history: rolled_back"
		want=
		for ((s = 1; s <= n; s++)); do
			[ "$s" -lt "$k" ] && want="$want undone" || want="$want planned"
		done
		is "$(states "$id")" "${want# }" "SIG$sig before step $k: steps 1..$((k - 1)) undone, the rest never touched"
		is "$(txn_count "WHERE status IN ('open', 'pending_confirm', 'rollback_failed')")" 0 \
			"SIG$sig before step $k: nothing left for a rollback"
	done
done

done_testing
