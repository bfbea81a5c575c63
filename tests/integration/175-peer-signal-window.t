#!/usr/bin/env bash
# 175-peer-signal-window.t: a signal to the whole process group (Ctrl-C,
# `kill -- -PGID`: cx5prof and its ssh child alike) while the peer applies
# over ssh never leaves the peer changed without a record here (issue 33
# item 11). The peer's apply is held at its start (peer-ssh-lib.sh's
# hold-apply) until the test has signalled this host, then applies for
# real, also when this host's ssh is gone by then.
#  - one signal (INT, TERM, HUP) is held while the peer's answer is
#    awaited: the peer's transaction is recorded here and both ends are
#    rolled back; exit 6, and only then "as before the campaign";
#  - a second signal, or a peer that does not answer within the hold:
#    ssh is ended, the peer's state is unknown: exit 7, the last line says
#    so, the record here says so (`history show txn`), and `cx5prof
#    rollback` here finds the peer's transaction and rolls it back;
#  - `rollback` here while the cut-short apply has not reached the peer's
#    history: with the peer's lock held it says busy and keeps the record;
#    then it fences the apply's origin token there, and the apply that
#    arrives later is refused (nothing changed there);
#  - ssh killed alone (no signal here) after it sent the profile: the peer
#    is asked at once (`rollback --origin`), exit 6 only as it is;
#  - kill -9 of the group while the peer applies: the intent recorded
#    before ssh started lets `cx5prof rollback` here undo both ends;
#  - `apply` the same: interrupted while the peer applies, never
#    committed, both ends as before.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
. "$(dirname "$0")/peer-ssh-lib.sh"
need_root_netns
need_tool sqlite3
need_tool setsid
PEER_SSHD_SECONDS=400
vsetup v175
peer_ssh_setup
timeout -k 1 400 ip netns exec "$PEER_NS" "$CX5PROF" serve --bind 198.18.0.2 2>"$WORK/serve.log" &
V_PIDS="$V_PIDS $!"
wait_listen 12866 || { echo "Bail out! serve did not start: $(cat "$WORK/serve.log")"; exit 1; }

printf 'version: 1\nname: jumbo\nmatch:\n  interfaces: [ens1f0]\nlink:\n  mtu: 9000\n' >"$WORK/jumbo.yaml"
printf 'version: 1\nname: c\ngroups: [%s]\nverify: {peer: 198.18.0.2, runner: builtin, duration: 1}\npeer: {ssh: root@198.18.0.2, ssh_config: %s, command: /usr/sbin/cx5prof, confirm: 30}\n' \
	"$WORK/jumbo.yaml" "$WORK/ssh_config" >"$WORK/c.yaml"
printf 'version: 1\nname: both-ends\nextends: jumbo.yaml\npeer:\n  ssh: root@198.18.0.2\n  ssh_config: %s\n  command: /usr/sbin/cx5prof\n  confirm: 30\n' \
	"$WORK/ssh_config" >"$WORK/both.yaml"
last_apply() { sqlite3 "$DB" "SELECT max(id) FROM transactions WHERE kind = 'apply'"; }
peer_last_apply() { sqlite3 "$PDB" "SELECT coalesce(max(id), 0) FROM transactions WHERE kind = 'apply'"; }
peer_status() { sqlite3 "$PDB" "SELECT status FROM transactions WHERE id = $1"; }
peer_unfinished() { sqlite3 "$PDB" "SELECT count(*) FROM transactions WHERE status IN ('open','pending_confirm','rollback_failed')"; }
AS_BEFORE='host        every group rolled back: as before the campaign'
UNKNOWN='host        NOT as before the campaign: the peer: its state is unknown, its apply was cut short (`cx5prof rollback` here finds out and undoes it)'

# start VERB FILE: cx5prof in a process group of its own (setsid), the
# peer's apply held at its start; $pid is also the group's id
start() {
	rm -f "$WORK/peer-started" "$WORK/peer-release" "$WORK/peer-finished"
	touch "$WORK/hold-apply"
	HOME=$WORK setsid ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" "$@" \
		>"$WORK/s.out" 2>"$WORK/s.err" &
	pid=$!
	wait_until 60 test -e "$WORK/peer-started"
	ok $? "$1: the peer's apply has started (held)"
	is "$(ps -o pgid= "$pid" | tr -d ' ')" "$pid" "$1: in a process group of its own"
}
# holding: cx5prof said it holds the signal, or is gone (it did not)
holding() { grep -q 'waiting up to 10 s for its answer' "$WORK/s.err" || ! kill -0 "$pid" 2>/dev/null; }
# finish: the peer's apply goes on; its end is waited for
finish() {
	touch "$WORK/peer-release"
	wait_until 60 test -e "$WORK/peer-finished"
	rm -f "$WORK/hold-apply"
}

# ---- one signal to the group, the peer answers within the hold
for sig in INT TERM HUP; do
	n=$(peer_last_apply)
	start campaign "$WORK/c.yaml"
	kill "-$sig" -- "-$pid"
	wait_until 60 holding
	finish
	wait "$pid"
	rc=$?
	ptxn=$(peer_last_apply)
	is "$rc/$(mtus)" "6/mtu 1500 mtu 1500" "SIG$sig to the group while the peer applies: exit 6, both ends as before"
	is "$(tail -n 1 "$WORK/s.out")" "$AS_BEFORE" "SIG$sig: the last line says as before (it is)"
	is "$([ "$ptxn" -gt "${n:-0}" ] && echo new)/$(sqlite3 "$DB" "SELECT peer_txn || ' ' || status FROM transactions WHERE id = $(last_apply)")/$(peer_status "$ptxn")" \
		"new/$ptxn rolled_back/rolled_back" \
		"SIG$sig: the peer's transaction is recorded here with the round's, both rolled back"
	grep -q "interrupted by SIG$sig while the peer root@198.18.0.2 applied (its transaction $ptxn, recorded here)" "$WORK/s.err"
	ok $? "SIG$sig: says the signal was held until the peer's transaction was recorded"
	run hcx rollback
	is "$rc/$out/$(mtus)" "0/nothing to roll back/mtu 1500 mtu 1500" "SIG$sig: then rollback has nothing left to do"
done

# ---- a second signal ends ssh at once: the peer's state is unknown
start campaign "$WORK/c.yaml"
kill -TERM -- "-$pid"
wait_until 60 holding
kill -INT -- "-$pid"
wait "$pid"
rc=$?
is "$rc/$([ -e "$WORK/peer-finished" ] && echo after || echo before)" "7/before" \
	"TERM then INT to the group: exit 7 at once, before the peer's apply ended"
is "$(tail -n 1 "$WORK/s.out")" "$UNKNOWN" "TERM then INT: the last line says the peer's state is unknown"
txn=$(last_apply)
is "$(sqlite3 "$DB" "SELECT peer_txn || ' ' || status || ' ' || (peer_undo_pending IS NOT NULL) FROM transactions WHERE id = $txn")" \
	"-1 rolled_back 1" "TERM then INT: the record here: the peer's transaction unknown, its rollback pending"
finish
ptxn=$(peer_last_apply)
is "$(mtus)/$(peer_status "$ptxn")" "mtu 1500 mtu 9000/pending_confirm" \
	"(the peer's apply went on without ssh: changed, under its own watchdog)"
run hcx history show txn "$txn"
printf '%s\n' "$out" | grep -q "^peer         txn unknown (the peer's apply with it was cut short); its rollback is PENDING: "
ok $? "history show txn: the peer's transaction unknown, its rollback pending"
run hcx rollback
is "$rc/$(mtus)/$(peer_status "$ptxn")" "0/mtu 1500 mtu 1500/rolled_back" \
	"rollback here: finds the peer's transaction and rolls it back"
is "$out" "rolled back the peer's transaction $ptxn of transaction $txn (its apply had been cut short)" \
	"rollback here: says which transaction it found"
is "$(sqlite3 "$DB" "SELECT peer_txn || ' ' || (peer_undo_pending IS NULL) FROM transactions WHERE id = $txn")" "$ptxn 1" \
	"rollback here: the peer's transaction now recorded, nothing pending"

# ---- `rollback` here while the cut-short apply has not reached the peer's
# history yet (its cx5prof not even started): first with the peer's lock
# held (as by an apply running there): "busy", the record kept; then it
# fences the origin token there, and the apply that arrives later is
# refused there: nothing changed, nothing left unknown
start campaign "$WORK/c.yaml"
kill -TERM -- "-$pid"
wait_until 60 holding
kill -INT -- "-$pid"
wait "$pid"
is "$?" 7 "rollback before the peer's apply started: the campaign exited 7 (the peer's state unknown)"
txn=$(last_apply)
n=$(peer_last_apply)
timeout 60 python3 -c 'import fcntl, sys, time; f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX); time.sleep(60)' "$PDB.lock" &
locker=$!
wait_until 30 eval '! flock -xn "$PDB.lock" true'
run hcx rollback
is "$rc/$(sqlite3 "$DB" "SELECT peer_txn || ' ' || (peer_undo_pending IS NOT NULL) FROM transactions WHERE id = $txn")" "7/-1 1" \
	"the peer's lock held: rollback here exits 7 and keeps the peer's state unknown, its rollback pending"
printf '%s\n' "$err" | grep -q "peer root@198.18.0.2: another apply or rollback is running there (the apply that was cut short, or someone else's): try again when it has ended"
ok $? "the peer's lock held: says the peer is busy"
stop_pid "$locker" fcntl
run hcx rollback
is "$rc/$out" "0/the peer's apply with transaction $txn was cut short and left nothing there: both ends are as before" \
	"then rollback here: the peer has no transaction of that origin, and fences it"
is "$(sqlite3 "$PDB" "SELECT origin FROM fences")" "$(sqlite3 "$DB" "SELECT peer_origin FROM transactions WHERE id = $txn")" \
	"the peer recorded this host's origin token as fenced"
finish
is "$(mtus)/$(peer_last_apply)/$(peer_unfinished)" "mtu 1500 mtu 1500/$n/0" \
	"the cut-short apply reaching the peer afterwards is refused there: nothing changed, nothing recorded"

# ---- this host's ssh dies by itself (kill -9 of ssh alone) after it sent
# the profile, before the peer's cx5prof started: no signal here, so the
# peer is asked at once; it has no transaction of that origin and fences
# it: exit 6, both ends as before, and the apply arriving later is refused
start campaign "$WORK/c.yaml"
n=$(peer_last_apply)
sshpid=$(ps -o pid=,comm= --ppid "$pid" | awk '$2 == "ssh" {print $1}')
case $(tr '\0' ' ' <"/proc/$sshpid/cmdline" 2>/dev/null) in
*"ssh "*"apply --confirm"*) kill -KILL "$sshpid" ;;
*) echo "# no ssh child of $pid to kill" ;;
esac
wait "$pid"
rc=$?
is "$rc/$(tail -n 1 "$WORK/s.out")" "6/$AS_BEFORE" "ssh killed alone while the peer's apply is on its way: exit 6, as before (it is)"
grep -q "whether the peer applied is unknown: asking the peer for the apply that carried this host's origin token" "$WORK/s.err"
ok $? "ssh killed alone: the peer's state unknown, the peer asked at once"
is "$(sqlite3 "$DB" "SELECT peer_txn || ' ' || (peer_undo_pending IS NULL) FROM transactions WHERE id = $(last_apply)")" "0 1" \
	"ssh killed alone: the record here says the peer has nothing of it, nothing pending"
finish
is "$(mtus)/$(peer_last_apply)/$(peer_unfinished)" "mtu 1500 mtu 1500/$n/0" \
	"ssh killed alone: the apply reaching the peer afterwards is refused there"

# ---- one signal, a peer that does not answer within the hold
start campaign "$WORK/c.yaml"
kill -HUP -- "-$pid"
wait "$pid"
rc=$?
is "$rc/$([ -e "$WORK/peer-finished" ] && echo after || echo before)/$(tail -n 1 "$WORK/s.out")" "7/before/$UNKNOWN" \
	"SIGHUP, the peer silent for the whole hold: exit 7, the peer's state unknown"
grep -q "peer root@198.18.0.2: \`cx5prof apply\` interrupted by SIGHUP: ssh ended before its answer" "$WORK/s.err"
ok $? "SIGHUP, the peer silent: says ssh was ended before its answer"
finish
is "$(mtus)/$(peer_unfinished)" "mtu 1500 mtu 9000/1" "(the peer applied after all)"
run hcx rollback
is "$rc/$(mtus)/$(peer_unfinished)" "0/mtu 1500 mtu 1500/0" "rollback here: the peer restored"

# ---- the peer's apply cut short, and it then fails there (undone
# there): rollback here finds nothing and says both ends are as before
echo apply-step:1 >"$WORK/peer-failpoint" # (the held apply then fails there, undone there)
start campaign "$WORK/c.yaml"
kill -TERM -- "-$pid"
wait_until 60 holding
kill -TERM -- "-$pid"
wait "$pid"
rc=$?
finish
rm -f "$WORK/peer-failpoint"
is "$rc/$(peer_unfinished)" "7/0" "two signals, the peer's apply then changing nothing: exit 7, nothing unfinished there"
run hcx rollback
is "$rc/$(mtus)" "0/mtu 1500 mtu 1500" "rollback here: exit 0"
is "$out" "the peer's apply with transaction $(last_apply) was cut short; its transaction $(peer_last_apply) there was already rolled back: both ends are as before" \
	"rollback here: says the peer was left as before (its failed apply undone there)"

# ---- kill -9 of the group while the peer applies: the intent recorded
# before ssh started is what `rollback` here acts on
start campaign "$WORK/c.yaml"
kill -KILL -- "-$pid"
wait "$pid"
txn=$(last_apply)
is "$(sqlite3 "$DB" "SELECT peer_txn || ' ' || status FROM transactions WHERE id = $txn")" "-1 open" \
	"kill -9 while the peer applies: the round's transaction open here, the peer's recorded as unknown"
finish
ptxn=$(peer_last_apply)
is "$(mtus)/$(peer_status "$ptxn")" "mtu 9000 mtu 9000/pending_confirm" "(both ends changed)"
run hcx rollback
is "$rc/$(mtus)/$(peer_status "$ptxn")" "0/mtu 1500 mtu 1500/rolled_back" \
	"kill -9: rollback here finds the peer's transaction and rolls back both ends"
is "$(sqlite3 "$DB" "SELECT peer_txn || ' ' || status FROM transactions WHERE id = $txn")" "$ptxn rolled_back" \
	"kill -9: the peer's transaction now recorded with the round's"

# ---- apply: a signal held while the peer applies, never committed
start apply "$WORK/both.yaml"
kill -INT -- "-$pid"
wait_until 60 holding
finish
wait "$pid"
rc=$?
ptxn=$(peer_last_apply)
is "$rc/$(mtus)/$(peer_status "$ptxn")" "6/mtu 1500 mtu 1500/rolled_back" \
	"apply, SIGINT to the group while the peer applies: exit 6, both ends rolled back, nothing committed"
is "$(tail -n 1 "$WORK/s.err")" "cx5prof: error: interrupted: every change was undone here (transaction $(last_apply) rolled back)" \
	"apply, SIGINT: its last line"
done_testing
