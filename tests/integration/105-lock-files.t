#!/usr/bin/env bash
# 105-lock-files.t: the apply lock names its holder and leaves no file.
#
# Ten times, two applies start together: the one that loses names the
# other's pid (never "pid 0": the winner writes its pid right after taking
# the lock, and the loser waits for it). The per-host lock file
# (/run/lock/cx5prof-host-DEV-INO.lock) is removed by its holder when it
# lets go, and one left by a holder killed with kill -9, or by a sysroot
# deleted since, is removed by the next apply or rollback; one that another
# process holds is never removed. The test's own stand-in lock files are
# named with an inode that cannot be a sysroot's (0) and removed at exit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
command -v flock >/dev/null || skip_all "needs flock (util-linux)"
txn_setup 105
P=$WORK/profiles/one-port.yaml
HOST_LOCK=/run/lock/cx5prof-host-$(stat -c '%d-%i' "$SR").lock
STALE=/run/lock/cx5prof-host-0-$$1.lock
HELD=/run/lock/cx5prof-host-0-$$2.lock
FLOCK_PID=
trap 'stop_pid "$FLOCK_PID" sleep; rm -f "$STALE" "$HELD"; txn_cleanup' EXIT

losers=0 named=0
for round in $(seq 10); do
	ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P" >"$WORK/a.out" 2>"$WORK/a.err" &
	a=$!
	ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P" >"$WORK/b.out" 2>"$WORK/b.err" &
	b=$!
	wait "$a"; ra=$?
	wait "$b"; rb=$?
	for side in "a $ra $b" "b $rb $a"; do
		set -- $side
		[ "$2" = 8 ] || continue
		losers=$((losers + 1))
		if grep -qE "locked by pid $3 \(" "$WORK/$1.err"; then
			named=$((named + 1))
		else
			diag "round $round: $(cat "$WORK/$1.err")"
		fi
	done
	cx rollback >/dev/null 2>&1
done
is "$named" "$losers" "every apply that lost the race named the winner's pid ($losers of 20 lost)"
host_as_before
ok $? "the host is as before"
[ ! -e "$HOST_LOCK" ]
ok $? "no host lock file is left once the applies are done"

# A holder killed with kill -9 cannot remove its file: the next one does.
CX5PROF_FAILPOINT=apply-pause:2 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P" \
	>"$WORK/out" 2>"$WORK/err" &
bg=$!
TXN_PIDS="$TXN_PIDS $bg"
wait_until 120 grep -q "paused before step 2" "$WORK/err"
ok $? "an apply holds the host lock, paused before its step 2"
kill -9 "$bg"
wait "$bg" 2>/dev/null
[ -e "$HOST_LOCK" ]
ok $? "a holder killed with kill -9 leaves its host lock file"

# Stand-ins: one nobody holds (as a deleted sysroot's), one held by a
# process of the test's own (a shell that takes the lock with flock(1) on
# its fd 9, then sleeps 600 s: the PID the test stops at its end).
: >"$STALE"
(
	exec 9>"$HELD" && flock 9 && exec sleep 600
) </dev/null >/dev/null 2>&1 &
FLOCK_PID=$!
held() { ! flock -n "$HELD" true; }
wait_until 60 held
ok $? "the stand-in holder holds $HELD"
run cx rollback
is "$rc" 0 "rollback resolves the killed apply"
host_as_before
ok $? "the host is as before"
[ ! -e "$HOST_LOCK" ] && [ ! -e "$STALE" ]
ok $? "the killed holder's host lock file and one nobody holds are removed"
[ -e "$HELD" ] && held
ok $? "a host lock file another process holds is left alone"
stop_pid "$FLOCK_PID" sleep
done_testing
