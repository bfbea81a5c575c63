#!/usr/bin/env bash
# 85-kill-fault-loop.t: kill -9 at the entry of a system call of apply,
# then of rollback, and an I/O error injected into one (strace), for every
# CX5PROF_TORTURE_STRIDE-th call (default 12; `make torture`: 1, every one).
# Each case ends restored: after the fault, `cx5prof rollback` (run as an
# operator would) leaves the host exactly as before, with no transaction
# unfinished; an apply that says it undid everything (exit 6) or changed
# nothing (exit 1) has the host as before already, and one that says it
# applied (exit 0) is committed and changed. Each loop checks that its
# trace holds the system calls of a transaction (the locks, the history's
# fdatasync, netlink) and that it ran a minimum of cases: an empty or cut
# trace fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
need_tool strace
why=$(strace -f -qq -o /dev/null true 2>&1) || skip_all "strace cannot trace here (ptrace denied?): $why"
txn_setup 85
txn_short_profile 2
P=$WORK/profiles/one-port.yaml
STRIDE=${CX5PROF_TORTURE_STRIDE:-12}

restored() {
	diff -r --no-dereference "$PRISTINE" "$SR" >/dev/null &&
		[ "$(mtu_of ens1f0)" = 1500 ] &&
		[ "$(sqlite3 "$DB" "SELECT count(*) FROM transactions WHERE status IN ('open','pending_confirm','rollback_failed')")" = 0 ]
}

# points TRACE: "SYSCALL N" for every STRIDE-th call in the trace (the N-th
# call of that system call: strace counts each one on its own).
points() {
	sed -E 's/^[0-9]+ +//; s/^([a-z0-9_]+)\(.*/\1/; t; d' "$1" |
		awk -v s="$STRIDE" '{ n[$1]++; if (NR % s == 1 || s == 1) print $1, n[$1] }'
}

traced() { ip netns exec "$HOST_NS" $STRACE -f -qq -o /dev/null "$@"; }

# trace_holds TRACE SYSCALL...: the trace made each of these calls.
trace_holds() {
	local t=$1 sc missing=
	shift
	for sc in "$@"; do
		grep -Eq "^[0-9]+ +$sc\(" "$t" || missing="$missing $sc"
	done
	[ -z "$missing" ] || diag "$(basename "$t") lacks:$missing"
	[ -z "$missing" ]
}

bad=0 cases=0
fail_case() {
	bad=$((bad + 1))
	[ "$bad" -le 5 ] && diag "$1"
}

# ---- kill -9 during apply
ip netns exec "$HOST_NS" $STRACE -f -qq -o "$WORK/trace.apply" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P" >/dev/null 2>&1
is "$?" 0 "the traced apply exits 0"
trace_holds "$WORK/trace.apply" flock fdatasync sendmsg openat2 pwrite64
ok $? "its trace holds the locks, the history's fdatasync, netlink and the sysroot writes"
cx rollback >/dev/null 2>&1
points "$WORK/trace.apply" >"$WORK/points.apply"
while read -r sc n; do
	cases=$((cases + 1))
	traced -e trace="$sc" -e inject="$sc":signal=KILL:when="$n" \
		"$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P" >/dev/null 2>"$WORK/err"
	cx rollback >/dev/null 2>"$WORK/rb.err"
	restored || fail_case "apply killed at $sc #$n: not restored after rollback: $(cat "$WORK/rb.err")"
done <"$WORK/points.apply"
[ "$cases" -ge 50 ]
ok $? "kill -9 in apply: $cases cases (at least 50: the trace holds hundreds of calls)"
is "$bad" 0 "kill -9 in apply at $cases system calls (every ${STRIDE}th): each restored by rollback"

# ---- kill -9 during rollback
bad=0 cases=0
cx apply "$P" >/dev/null 2>&1
ip netns exec "$HOST_NS" $STRACE -f -qq -o "$WORK/trace.rollback" "$CX5PROF" --sysroot "$SR" --db "$DB" rollback >/dev/null 2>&1
is "$?" 0 "the traced rollback exits 0"
trace_holds "$WORK/trace.rollback" flock fdatasync sendmsg
ok $? "its trace holds the locks, the history's fdatasync and netlink"
points "$WORK/trace.rollback" >"$WORK/points.rollback"
while read -r sc n; do
	cases=$((cases + 1))
	cx apply "$P" >/dev/null 2>&1
	traced -e trace="$sc" -e inject="$sc":signal=KILL:when="$n" \
		"$CX5PROF" --sysroot "$SR" --db "$DB" rollback >/dev/null 2>&1
	cx rollback >/dev/null 2>"$WORK/rb.err"
	restored || fail_case "rollback killed at $sc #$n: not restored by the next rollback: $(cat "$WORK/rb.err")"
done <"$WORK/points.rollback"
[ "$cases" -ge 10 ]
ok $? "kill -9 in rollback: $cases cases (at least 10)"
is "$bad" 0 "kill -9 in rollback at $cases system calls (every ${STRIDE}th): each finished by the next rollback"

# ---- an I/O error in apply (the history, the sysroot, netlink, the locks;
# every third point of the kill loop, every one under `make torture`): the
# exit code tells the truth at once. 0: applied and committed, the MTU
# changed (as 84-txn-commit-faults.t checks; rollback restores it); 7:
# what is left is listed (rollback restores it); anything else (1, 6, a
# plan problem, the loader failing): nothing changed or every change was
# undone, so the host is as before already.
bad=0 cases=0 i=0
while read -r sc n; do
	case $sc in
	openat | openat2 | read | write | pwrite64 | pread64 | fdatasync | ftruncate | sendmsg | recvmsg | flock | fcntl) ;;
	*) continue ;;
	esac
	i=$((i + 1))
	[ "$STRIDE" = 1 ] || [ $((i % 3)) = 1 ] || continue
	cases=$((cases + 1))
	traced -e trace="$sc" -e inject="$sc":error=EIO:when="$n" \
		"$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P" >/dev/null 2>"$WORK/err"
	rc=$?
	case $rc in
	0)
		id=$(sqlite3 "$DB" "SELECT max(id) FROM transactions WHERE kind = 'apply'")
		[ "$(txn_status "$id")" = committed ] && [ "$(mtu_of ens1f0)" = 9000 ] ||
			fail_case "EIO at $sc #$n: exit 0 but transaction $id is $(txn_status "$id"), MTU $(mtu_of ens1f0)"
		cx rollback >/dev/null 2>&1
		restored || fail_case "EIO at $sc #$n: exit 0, not restored by rollback" ;;
	7) cx rollback >/dev/null 2>&1
		restored || fail_case "EIO at $sc #$n: exit 7, not restored by rollback" ;;
	*)
		# a transaction the history could not close stays open (the
		# message says so): the host is restored, rollback closes it
		grep -q 'stays open there' "$WORK/err" && cx rollback >/dev/null 2>&1
		restored || fail_case "EIO at $sc #$n: exit $rc but the host is not as before: $(grep error: "$WORK/err")" ;;
	esac
	restored || cx rollback >/dev/null 2>&1
done <"$WORK/points.apply"
[ "$cases" -ge 10 ]
ok $? "EIO in apply: $cases cases (at least 10)"
is "$bad" 0 "EIO in apply at $cases system calls: each exit code as the host is"

done_testing
