#!/usr/bin/env bash
# 84-txn-commit-faults.t: a failure after the last change has landed (the
# commit cannot be recorded: a failpoint, EIO on any fdatasync of the
# history, a really full file system) never leaves the host changed: the
# changes are undone (exit 6), or nothing was changed (exit 1: no undo log),
# or the apply went through (exit 0, committed). Never a changed host with a
# transaction that nothing will roll back.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 84
txn_short_profile 2
P=$WORK/profiles/one-port.yaml
applied_mtu=9000

# ---- the commit record fails (failpoint commit:1): undone, exit 6
run env CX5PROF_FAILPOINT=commit:1 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P"
is "$rc:$(printf "%s\n" "$err" | grep error:)" "6:cx5prof: error: apply failed after its last change: cannot record transaction 1 as committed in $DB: No space left on device
cx5prof: error: every change was undone: the host is back as it was (transaction 1 rolled back)" \
	"commit fails: exit 6, says why and that every change was undone"
host_as_before
ok $? "commit fails: host exactly as before"
is "$(txn_status 1):$(sqlite3 "$DB" "SELECT group_concat(state, ' ') FROM changes WHERE txn = 1")" \
	"rolled_back:undone undone undone undone undone" "commit fails: history: rolled_back, every step undone"
run cx apply "$P"
is "$rc" 0 "the next apply is allowed"
run cx rollback
is "$rc" 0 "and rolled back"

# ---- the --confirm watchdog cannot start, and the history cannot be
# reopened to undo (EIO on its next opens: the apply opens the history
# once, 186-db-open-once.t): the host stays changed, which exit 7 says
# (exit 1 says the host is as before), and rollback undoes it
run env CX5PROF_FAILPOINT=confirm-setup:2 ip netns exec "$HOST_NS" $STRACE -f -qq -o /dev/null -P "$DB" -e trace=openat \
	-e inject=openat:error=EIO:when=2+ "$CX5PROF" --sysroot "$SR" --db "$DB" apply --confirm 60 "$P"
id=$(sqlite3 "$DB" "SELECT max(id) FROM transactions WHERE kind = 'apply'")
is "$rc/$(txn_status "$id")/$(printf '%s\n' "$err" | grep -c "^cx5prof: error: transaction $id applied 5 changes but cannot start the --confirm watchdog: Resource temporarily unavailable; run \`cx5prof rollback\` to undo it$")" \
	"7/pending_confirm/1" "no watchdog and no history to undo with: exit 7, the transaction left for rollback"
run cx rollback
host_as_before
ok $? "then rollback: host exactly as before"

# One outcome of an apply under a fault, checked against the host.
# outcome RC ERR LABEL
outcome() {
	local id st
	id=$(sqlite3 "$DB" "SELECT max(id) FROM transactions WHERE kind = 'apply'")
	st=$(txn_status "$id")
	case $1 in
	0) [ "$st" = committed ] && [ "$(mtu_of ens1f0)" = $applied_mtu ] ;;
	1) host_as_before ;;
	6) host_as_before && { [ "$st" = rolled_back ] || printf '%s\n' "$2" | grep -q 'stays open there'; } ;;
	*) false ;;
	esac
	ok $? "$3: exit $1, host as the exit code says (transaction $id $st)"
	[ "$1" = 0 ] || [ "$st" = open ] && { cx rollback >/dev/null 2>&1 || true; }
	[ "$1" = 0 ] && cx rollback >/dev/null 2>&1
	return 0
}

# ---- EIO on each fdatasync of an apply in turn (strace fault injection)
ip netns exec "$HOST_NS" $STRACE -f -qq -o "$WORK/trace" -e trace=fdatasync "$CX5PROF" --sysroot "$SR" --db "$DB" \
	apply "$P" >/dev/null 2>&1
cx rollback >/dev/null 2>&1
n=$(grep -c fdatasync "$WORK/trace")
ok $((n < 2)) "an apply makes $n fdatasync calls"
hit_commit=1
for ((k = 1; k <= n; k++)); do
	run ip netns exec "$HOST_NS" $STRACE -f -qq -o /dev/null -e trace=fdatasync \
		-e inject=fdatasync:error=EIO:when=$k "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P"
	case $err in *"apply failed after its last change: cannot record transaction "*" as committed"*) hit_commit=0 ;; esac
	outcome "$rc" "$err" "EIO on fdatasync $k"
done
ok $hit_commit "one of them hit the commit record, and it was undone"

# ---- a really full file system: the history on a small tmpfs in a private
# mount namespace, filled to leave less and less room.
if unshare -m true 2>/dev/null; then
	cat >"$WORK/full.sh" <<-'INNER'
	set -u
	mount -t tmpfs -o size=4m cx5full "$FS" || exit 90
	cp "$DB" "$FS/h.db"
	for free in 256 $(seq 160 -4 40) 8; do
		rm -f "$FS/fill"
		avail=$(($(stat -f -c '%a*%S' "$FS") / 1024))
		[ "$avail" -gt "$free" ] && fallocate -l $(((avail - free) * 1024)) "$FS/fill" 2>/dev/null
		ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$FS/h.db" apply "$P" >/dev/null 2>"$WORK/full-err"
		rc=$?
		printf '%s %s\n' "$free" "$rc" >>"$WORK/full-rc"
		cp "$WORK/full-err" "$WORK/full-err.$free"
		rm -f "$FS/fill"
		sqlite3 "$FS/h.db" "SELECT status FROM transactions WHERE kind = 'apply' ORDER BY id DESC LIMIT 1" \
			>"$WORK/full-st.$free"
		"$STATE" "$WORK/full-now.$free"
		ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$FS/h.db" rollback >/dev/null 2>&1
	done
	INNER
	mkdir -p "$WORK/fs"
	cat >"$WORK/state.sh" <<-EOF2
	#!/usr/bin/env bash
	. "$TOP/tests/integration/lib.sh"; . "$TOP/tests/integration/txn-lib.sh"
	HOST_NS=$HOST_NS SR=$SR WORK=$WORK; state_snapshot "\$1"
	EOF2
	chmod +x "$WORK/state.sh"
	FS=$WORK/fs DB=$DB HOST_NS=$HOST_NS SR=$SR P=$P WORK=$WORK CX5PROF=$CX5PROF STATE=$WORK/state.sh \
		unshare -m --propagation private bash "$WORK/full.sh"
	is "$?" 0 "the full file system runs in a private mount namespace"
	is "$(wc -l <"$WORK/full-rc")" "$(echo 256 $(seq 160 -4 40) 8 | wc -w)" "the full file system: every level was tried"
	while read -r free rc; do
		st=$(cat "$WORK/full-st.$free")
		e=$(cat "$WORK/full-err.$free")
		case $rc in
		0) [ "$st" = committed ] ;;
		1) cmp -s "$WORK/before.json" "$WORK/full-now.$free" ;;
		6) cmp -s "$WORK/before.json" "$WORK/full-now.$free" &&
			{ [ "$st" = rolled_back ] || printf '%s\n' "$e" | grep -q 'stays open there'; } ;;
		*) false ;;
		esac
		ok $? "$free KiB free: exit $rc, host as the exit code says ($st)"
		[ "$rc" = 0 ] || diag "$e"
	done <"$WORK/full-rc"
	grep -q ' 6$' "$WORK/full-rc"
	ok $? "at some level the commit record itself found the disk full, and the apply was undone"
	host_as_before
	ok $? "after the full file system: host as before"
else
	skip 4 "unshare -m is not permitted here"
fi

done_testing
