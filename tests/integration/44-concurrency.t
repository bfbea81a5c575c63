#!/usr/bin/env bash
# 44-concurrency.t: two applies never interleave. While one holds the lock
# (paused mid-transaction by a failpoint), a second apply, a rollback and a
# commit fail at once with "locked by pid N" (exit 8) and change nothing;
# applies started together end with one transaction, never a mix.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 44

P=$WORK/profiles/one-port.yaml

CX5PROF_FAILPOINT=apply-pause:2 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P" \
	>"$WORK/out" 2>"$WORK/err" &
bg=$!
TXN_PIDS="$TXN_PIDS $bg"
wait_for "$WORK/err" "apply-pause: paused before step 2"
ok $? "first apply holds the lock, paused before step 2"
pid=$(sed -n 's/.*(pid \([0-9]*\)).*/\1/p' "$WORK/err")
rmem=$(cat "$SR/proc/sys/net/core/rmem_max")

for verb in "apply $WORK/profiles/mtu-jumbo.yaml" rollback; do
	# shellcheck disable=SC2086
	run cx $verb
	is "$rc" 8 "$verb while locked: exit 8"
	is "$err" "cx5prof: error: another apply or rollback is running: locked by pid $pid ($DB.lock): wait for it to finish" \
		"$verb while locked: names the holder"
done
is "$(mtu_of ens1f0) $(cat "$SR/proc/sys/net/core/rmem_max")" "1500 $rmem" "the refused commands changed nothing"
is "$(txn_count)" 1 "only the first apply recorded a transaction"

kill -9 "$pid"
wait "$bg" 2>/dev/null
run cx rollback
is "$rc" 0 "after the holder died the lock is free: rollback works"
host_as_before
ok $? "host as before"

# Started together: one applies, the other is refused or finds nothing to do.
for round in 1 2 3; do
	ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P" >"$WORK/a.out" 2>"$WORK/a.err" &
	a=$!
	ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P" >"$WORK/b.out" 2>"$WORK/b.err" &
	b=$!
	wait "$a"; ra=$?
	wait "$b"; rb=$?
	codes=$(printf '%s\n' "$ra" "$rb" | sort | tr '\n' ' ')
	case $codes in
	"0 8 " | "0 0 ") ok 0 "round $round: exit codes $codes" ;;
	*) ok 1 "round $round: exit codes $codes"; diag "$(cat "$WORK/a.err" "$WORK/b.err")" ;;
	esac
	is "$(txn_count "WHERE kind = 'apply' AND status = 'committed'")" 1 "round $round: exactly one committed apply"
	is "$(sqlite3 "$DB" "SELECT count(*) FROM changes c JOIN transactions t ON t.id = c.txn WHERE t.status = 'committed' AND t.kind = 'apply' AND c.state <> 'applied'")" \
		0 "round $round: no half-applied transaction"
	run cx rollback
	host_as_before
	ok $? "round $round: rollback restores the host"
done

done_testing
