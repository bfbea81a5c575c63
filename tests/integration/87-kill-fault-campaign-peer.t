#!/usr/bin/env bash
# 87-kill-fault-campaign-peer.t: the kill/fault loop of 85-kill-fault-loop.t
# on the campaign and peer paths. kill -9 at the entry of a system call
# that changes or records state (fdatasync, pwrite64, sendmsg, the ssh
# child's clone and wait4), then an I/O error in one, during a local
# campaign and a campaign that tunes the peer over ssh (the peer
# namespace's sshd, peer-ssh-lib.sh; `serve` there for the benchmark).
# Each case ends restored on both hosts after `cx5prof rollback` (run as an
# operator would): both sysroot copies byte-identical to before, both MTUs
# back, nothing unfinished in either history and no peer rollback pending.
# A kill between the peer's apply and its record here leaves the intent
# recorded here (the peer's transaction unknown): `cx5prof rollback` asks
# the peer for it (or the peer's own --confirm watchdog undoes it; the
# case waits for it, bounded). Then SIGINT, SIGTERM and SIGHUP to the
# campaign's process group (cx5prof and ssh) at points of the peer's
# apply window.
# `make check` runs CX5PROF_TORTURE_CASES (default 2) points per loop
# (the signal loop: 2 of its 9 cases),
# spread over the trace; `make torture` (CX5PROF_TORTURE_STRIDE=1) every one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
. "$(dirname "$0")/peer-ssh-lib.sh"
need_root_netns
need_tool strace
why=$(strace -f -qq -o /dev/null true 2>&1) || skip_all "strace cannot trace here (ptrace denied?): $why"
need_tool sqlite3
need_tool setsid
STRIDE=${CX5PROF_TORTURE_STRIDE:-7}
CASES=${CX5PROF_TORTURE_CASES:-2}
[ "$STRIDE" = 1 ] && LIFE=3600 || LIFE=600
PEER_SSHD_SECONDS=$LIFE
vsetup v87
peer_ssh_setup
copy_sysroot cx5-2port "$WORK/pristine"
timeout -k 1 "$LIFE" ip netns exec "$PEER_NS" "$CX5PROF" serve --bind 198.18.0.2 2>"$WORK/serve.log" &
V_PIDS="$V_PIDS $!"
wait_listen 12866 || { echo "Bail out! serve did not start: $(cat "$WORK/serve.log")"; exit 1; }
STRACE="env ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace"

printf 'version: 1\nname: jumbo\nmatch:\n  interfaces: [ens1f0]\nlink:\n  mtu: 9000\nsysctl:\n  net.core.rmem_max: 4194304\n' >"$WORK/jumbo.yaml"
printf 'version: 1\nname: local\ngroups: [jumbo.yaml]\nverify: {peer: 198.18.0.2, runner: builtin, duration: 1}\n' >"$WORK/local.yaml"
printf 'version: 1\nname: peer\ngroups: [jumbo.yaml]\nverify: {peer: 198.18.0.2, runner: builtin, duration: 1}\npeer: {ssh: root@198.18.0.2, ssh_config: %s, command: /usr/sbin/cx5prof, confirm: 1}\n' \
	"$WORK/ssh_config" >"$WORK/peer.yaml"

unfinished() { sqlite3 "$1" "SELECT count(*) FROM transactions WHERE status IN ('open','pending_confirm','rollback_failed') OR peer_undo_pending IS NOT NULL" 2>/dev/null || echo 0; }
restored() {
	diff -r --no-dereference "$WORK/pristine" "$SR" >/dev/null &&
		diff -r --no-dereference "$WORK/pristine" "$PSR" >/dev/null &&
		[ "$(mtus)" = "mtu 1500 mtu 1500" ] && [ "$(unfinished "$DB")" = 0 ] && [ "$(unfinished "$PDB")" = 0 ]
}
# The peer's watchdog: a round killed before the peer's transaction was
# recorded here is undone there by it (peer.confirm 1 + 1 s + 30 s).
peer_open() { [ "$(sqlite3 "$PDB" "SELECT count(*) FROM transactions WHERE status IN ('open','pending_confirm')" 2>/dev/null || echo 0)" = 0 ]; }
peer_settled() { wait_until 120 peer_open; }

# points TRACE: "SYSCALL N" for each call in the trace (the N-th of that
# system call); pick: all of them under `make torture`, else CASES spread
# evenly over the trace.
points() {
	# (the pid first: `t` must see only the name's substitution, else a
	# "--- SIGCHLD" line of a child would pass as a system call)
	sed -E 's/^[0-9]+ +//' "$1" | sed -E 's/^([a-z0-9_]+)\(.*/\1/; t; d' | awk '{ n[$1]++; print $1, n[$1] }'
}
pick() {
	if [ "$STRIDE" = 1 ]; then cat; else awk -v k="$CASES" '{ a[NR] = $0 } END { for (i = 1; i <= k && i <= NR; i++) print a[int((i - 0.5) * NR / k) + 1] }'; fi
}
SET=fdatasync,pwrite64,sendmsg,clone,clone3,wait4
traced() { HOME=$WORK ip netns exec "$HOST_NS" $STRACE -f -qq -o /dev/null "$@"; }
settle() { hcx rollback >/dev/null 2>"$WORK/rb.err"; peer_settled; restored || hcx rollback >/dev/null 2>>"$WORK/rb.err"; }

bad=0
fail_case() {
	bad=$((bad + 1))
	[ "$bad" -le 5 ] && diag "$1"
}

# What exit 0 of a campaign (no --keep) promises: the campaign is done, and
# every round's apply was rolled back, here and on the peer. (An I/O error
# while the campaign's summary is written is exit 1, never 0.)
applied_left() { sqlite3 "$1" "SELECT count(*) FROM transactions WHERE kind = 'apply' AND status != 'rolled_back'" 2>/dev/null || echo 0; }
campaign_done() {
	[ "$(sqlite3 "$DB" "SELECT status FROM campaigns ORDER BY id DESC LIMIT 1")" = done ] &&
		[ "$(applied_left "$DB")" = 0 ] && [ "$(applied_left "$PDB")" = 0 ]
}

for c in local peer; do
	HOME=$WORK ip netns exec "$HOST_NS" $STRACE -f -qq -o "$WORK/trace.$c" -e trace="$SET" \
		"$CX5PROF" --sysroot "$SR" --db "$DB" campaign "$WORK/$c.yaml" >/dev/null 2>"$WORK/err"
	rc=$?
	is "$rc" 0 "the traced $c campaign exits 0"
	[ "$rc" = 0 ] || diag "$(cat "$WORK/err")"
	campaign_done
	ok $? "the traced $c campaign is done, every round rolled back"
	settle
	diag "$c campaign: $(points "$WORK/trace.$c" | wc -l) points in its trace ($SET)"
	points "$WORK/trace.$c" | pick >"$WORK/points.$c"
	# the EIO loop picks among its own calls (a pick over every call may
	# hold none of them, and the loop would run no case)
	points "$WORK/trace.$c" | grep -E '^(fdatasync|pwrite64) ' | pick >"$WORK/eio-points.$c"
	missing=
	for sc in fdatasync pwrite64 sendmsg; do grep -Eq "^[0-9]+ +$sc\(" "$WORK/trace.$c" || missing="$missing $sc"; done
	is "$missing" "" "$c campaign: its trace holds the history's writes and fdatasync, and netlink"

	# ---- kill -9 at each point, then rollback
	bad=0 cases=0
	while read -r sc n; do
		cases=$((cases + 1))
		traced -e trace="$sc" -e inject="$sc":signal=KILL:when="$n" \
			"$CX5PROF" --sysroot "$SR" --db "$DB" campaign "$WORK/$c.yaml" >/dev/null 2>"$WORK/err"
		settle
		restored || fail_case "$c campaign killed at $sc #$n: not restored after rollback: $(cat "$WORK/rb.err")"
	done <"$WORK/points.$c"
	[ "$cases" -ge "$CASES" ]
	ok $? "kill -9 in a $c campaign: $cases cases (at least $CASES)"
	is "$bad" 0 "kill -9 in a $c campaign at $cases points: each restored by rollback"

	# ---- EIO at each fdatasync and pwrite64 point: the exit code tells
	# the truth (0, 1, 6: as before already, the kept nothing; 7: rollback
	# restores what is listed)
	bad=0 cases=0
	while read -r sc n; do
		case $sc in fdatasync | pwrite64) ;; *) continue ;; esac
		cases=$((cases + 1))
		traced -e trace="$sc" -e inject="$sc":error=EIO:when="$n" \
			"$CX5PROF" --sysroot "$SR" --db "$DB" campaign "$WORK/$c.yaml" >/dev/null 2>"$WORK/err"
		rc=$?
		case $rc in
		0) peer_settled # (a peer round cut between its apply and its record here: its watchdog)
		   campaign_done || fail_case "$c campaign, EIO at $sc #$n: exit 0 but the campaign is not done with every round rolled back: $(sqlite3 "$DB" "SELECT status FROM campaigns ORDER BY id DESC LIMIT 1"), applies not rolled back: $(applied_left "$DB") here, $(applied_left "$PDB") on the peer; $(grep -i 'error\|warning' "$WORK/err" | head -3)"
		   settle ;;
		7) settle ;;
		*) peer_settled
		   grep -q 'stays open\|run `cx5prof rollback' "$WORK/err" && settle ;;
		esac
		restored || fail_case "$c campaign, EIO at $sc #$n: exit $rc, not restored: $(grep error: "$WORK/err" | head -3)"
		restored || settle
	done <"$WORK/eio-points.$c"
	[ "$cases" -ge "$CASES" ]
	ok $? "EIO in a $c campaign: $cases cases (at least $CASES)"
	is "$bad" 0 "EIO in a $c campaign at $cases points: each exit code as the hosts are"
done

# ---- SIGINT, SIGTERM, SIGHUP to the campaign's process group (cx5prof
# and its ssh child: setsid gives it a group of its own) in the peer's
# apply window: before ssh starts (the intent recorded: pause point
# peer-apply-start), while the peer applies (its apply held at its start:
# hold-apply), and after its answer before its record here (pause point
# peer-apply-answer). Exit 6 only when both ends are as before, and then
# the last line says so; else exit 7, its last line says NOT, and
# `cx5prof rollback` restores both ends.
AS_BEFORE='host        every group rolled back: as before the campaign'
for sig in INT TERM HUP; do for at in applying start answer; do echo "$at $sig"; done; done | pick >"$WORK/sig-points"
bad=0 cases=0
while read -r at sig; do
	cases=$((cases + 1))
	fifo=$WORK/sig.$cases.fifo # (one per case: a releaser left behind must not free the next)
	mkfifo "$fifo"
	rm -f "$WORK/peer-started" "$WORK/peer-release" "$WORK/peer-finished"
	pause=
	case $at in
	applying) touch "$WORK/hold-apply" ;;
	*) pause=peer-apply-$at:$fifo ;;
	esac
	CX5PROF_TEST_PAUSE=$pause HOME=$WORK setsid ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
		campaign "$WORK/peer.yaml" >"$WORK/sig.out" 2>"$WORK/err" &
	pid=$!
	if [ "$at" = applying ]; then
		wait_until 60 test -e "$WORK/peer-started"
		kill "-$sig" -- "-$pid"
		wait_until 60 eval 'grep -q "waiting up to 10 s for its answer" "$WORK/err" || ! kill -0 "$pid" 2>/dev/null'
		touch "$WORK/peer-release"
		wait_until 60 test -e "$WORK/peer-finished"
		rm -f "$WORK/hold-apply"
	else
		pause_wait "$fifo" >/dev/null
		kill "-$sig" -- "-$pid"
		timeout 120 sh -c ': >"$1"' sh "$fifo" >/dev/null 2>&1 &
	fi
	wait "$pid"
	rc=$?
	last=$(tail -n 1 "$WORK/sig.out")
	case $rc in
	6) { [ "$last" = "$AS_BEFORE" ] && restored; } ||
		fail_case "SIG$sig to the group at $at: exit 6 but the hosts are not as before ($(mtus)), or its last line is '$last'" ;;
	7) case $last in "host        NOT as before the campaign: "*) ;; *) fail_case "SIG$sig at $at: exit 7, its last line is '$last'" ;; esac ;;
	*) fail_case "SIG$sig to the group at $at: exit $rc: $(grep error: "$WORK/err" | head -3)" ;;
	esac
	settle
	restored || fail_case "SIG$sig to the group at $at: exit $rc, not restored after rollback: $(mtus); $(cat "$WORK/rb.err")"
	restored || settle
done <"$WORK/sig-points"
[ "$cases" -ge "$CASES" ]
ok $? "signals to the process group in the peer's apply window: $cases cases (at least $CASES)"
is "$bad" 0 "signals to the process group in the peer's apply window at $cases points: each exit code and last line as the hosts are, each restored by rollback"
done_testing
