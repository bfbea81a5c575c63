#!/usr/bin/env bash
# 44-concurrency.t: two applies never interleave. While one holds the lock
# (paused mid-transaction by a failpoint), a second apply and a rollback
# fail at once, a commit once its 5 s wait for the lock is over, with
# "locked by pid N" (exit 8), and change nothing;
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

for verb in "apply $WORK/profiles/mtu-jumbo.yaml" rollback commit; do
	# shellcheck disable=SC2086
	run cx $verb
	is "$rc" 8 "$verb while locked: exit 8"
	is "$err" "cx5prof: error: another apply or rollback is running: locked by pid $pid ($DB.lock): wait for it to finish" \
		"$verb while locked: names the holder"
done
is "$(mtu_of ens1f0) $(cat "$SR/proc/sys/net/core/rmem_max")" "1500 $rmem" "the refused commands changed nothing"
is "$(txn_count)" 1 "only the first apply recorded a transaction"

# verify without a PROFILE would pick the transaction under way as "the
# last applied" and benchmark a host still being changed (a campaign round
# holds its transaction open the same way): it refuses instead.
run cx verify --no-bench
is "$rc:$err" "9:cx5prof: error: transaction 1 is still open: an apply or a campaign round is running, or one was interrupted (then \`cx5prof rollback\`); verify once it has finished, or name a PROFILE" \
	"verify while an apply is under way: exit 9, says why"

# Another --db on the same host (the same sysroot) is refused too: the lock
# is per host as well as per database.
run ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$WORK/other.db" apply "$P"
is "$rc:$err" "8:cx5prof: error: another apply or rollback is running: locked by pid $pid (/run/lock/cx5prof-host-$(stat -c '%d-%i' "$SR").lock): wait for it to finish" \
	"another --db on the same host while locked: exit 8, names the host's lock"
is "$(mtu_of ens1f0) $(cat "$SR/proc/sys/net/core/rmem_max")" "1500 $rmem" "and changed nothing"
copy_sysroot cx5-2port "$WORK/sysroot2"
run ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$WORK/sysroot2" --db "$WORK/other.db" apply --check "$P"
is "$rc" 2 "a check of another host (sysroot) is not locked out"

kill -9 "$pid"
wait "$bg" 2>/dev/null
run cx rollback
is "$rc" 0 "after the holder died the lock is free: rollback works"
host_as_before
ok $? "host as before"

# race DB LABEL: two applies started together on DB: one applies, the
# other is refused (8) or finds nothing to do; exactly one committed apply
# and no half-applied one; then the rollback restores the host.
race() {
	local a b ra rb codes
	ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$1" apply "$P" >"$WORK/a.out" 2>"$WORK/a.err" &
	a=$!
	ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$1" apply "$P" >"$WORK/b.out" 2>"$WORK/b.err" &
	b=$!
	wait "$a"; ra=$?
	wait "$b"; rb=$?
	codes=$(printf '%s\n' "$ra" "$rb" | sort | tr '\n' ' ')
	case $codes in
	"0 8 " | "0 0 ") ok 0 "$2: exit codes $codes" ;;
	*) ok 1 "$2: exit codes $codes"; diag "$(cat "$WORK/a.err" "$WORK/b.err")" ;;
	esac
	is "$(sqlite3 "$1" "SELECT count(*) FROM transactions WHERE kind = 'apply' AND status = 'committed'")" 1 \
		"$2: exactly one committed apply"
	is "$(sqlite3 "$1" "SELECT count(*) FROM changes c JOIN transactions t ON t.id = c.txn WHERE t.status = 'committed' AND t.kind = 'apply' AND c.state <> 'applied'")" \
		0 "$2: no half-applied transaction"
	ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$1" rollback >/dev/null 2>&1
	host_as_before
	ok $? "$2: rollback restores the host"
}

for round in 1 2 3; do
	race "$DB" "round $round"
done

# On a database that does not exist yet: the lock comes before the
# database, so the loser says "locked" (8), never "busy" or an I/O error.
for round in 1 2 3 4 5 6; do
	race "$WORK/new$round/history.db" "new database, round $round"
done

done_testing
