#!/usr/bin/env bash
# 78-peer-never-untracked.t: the peer is never left changed without a
# record (issue 26 items 1, 2, 4, 5, 6, 7, 11). The peer is the peer
# namespace's sshd (peer-ssh-lib.sh), its benchmark side `serve`.
#  - a login that prints to stdout before cx5prof's JSON: the step fails,
#    both ends are rolled back, the peer's transaction recorded here;
#  - a peer rollback that fails is recorded as pending, shown by `history
#    show txn`, and retried by the next `rollback`;
#  - SIGINT while the peer's rollback hangs is honoured at once: this host
#    restored, the peer's rollback pending; a campaign so interrupted says
#    on its last line what is not restored;
#  - a peer that accepts TCP but never speaks SSH fails in seconds, and a
#    campaign does not try it again for its next group;
#  - peer.ssh_config writable by group, or running commands, is refused
#    before anything changes, unless --allow-ssh-commands;
#  - a round's peer watchdog covers the round, and a round whose peer was
#    rolled back under it is marked and does not count.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
. "$(dirname "$0")/peer-ssh-lib.sh"
need_root_netns
need_tool sqlite3
PEER_SSHD_SECONDS=400
vsetup v78
peer_ssh_setup
timeout -k 1 400 ip netns exec "$PEER_NS" "$CX5PROF" serve --bind 198.18.0.2 2>"$WORK/serve.log" &
V_PIDS="$V_PIDS $!"
wait_listen 12866 || { echo "Bail out! serve did not start: $(cat "$WORK/serve.log")"; exit 1; }

printf 'version: 1\nname: jumbo\nmatch:\n  interfaces: [ens1f0]\nlink:\n  mtu: 9000\n' >"$WORK/jumbo.yaml"
printf 'version: 1\nname: mtu4000\nmatch:\n  interfaces: [ens1f0]\nlink:\n  mtu: 4000\n' >"$WORK/mtu4000.yaml"
both() { # both FILE SSH_CONFIG [CONFIRM]
	printf 'version: 1\nname: both-ends\nextends: jumbo.yaml\npeer:\n  ssh: root@198.18.0.2\n  ssh_config: %s\n  command: /usr/sbin/cx5prof\n  confirm: %s\n' \
		"$2" "${3:-30}" >"$1"
}
campaign() { # campaign FILE SSH_CONFIG GROUPS [DURATION] [CONFIRM]
	printf 'version: 1\nname: c\ngroups: [%s]\nverify: {peer: 198.18.0.2, runner: builtin, duration: %s}\npeer: {ssh: root@198.18.0.2, ssh_config: %s, command: /usr/sbin/cx5prof, confirm: %s}\n' \
		"$3" "${4:-1}" "$2" "${5:-30}" >"$1"
}
both "$WORK/both.yaml" "$WORK/ssh_config"
last_apply() { sqlite3 "$DB" "SELECT max(id) FROM transactions WHERE kind = 'apply'"; }
peer_last_apply() { sqlite3 "$PDB" "SELECT max(id) FROM transactions WHERE kind = 'apply'"; }
peer_status() { sqlite3 "$PDB" "SELECT status FROM transactions WHERE id = $1"; }

# ---- 1: a login that prints to stdout
touch "$WORK/motd"
run hcx apply "$WORK/both.yaml"
is "$rc/$(mtus)" "6/mtu 1500 mtu 1500" "a login printing to stdout: exit 6, both ends as before"
printf '%s\n' "$err" | grep -q "the answer of \`cx5prof apply\` is not its JSON document (a login script or motd printing to stdout?), it begins 'Welcome to the peer"
ok $? "a login printing to stdout: says the answer is unreadable and shows its start"
ptxn=$(peer_last_apply)
is "$(sqlite3 "$DB" "SELECT peer_txn || ' ' || status FROM transactions WHERE id = $(last_apply)")/$(peer_status "$ptxn")" \
	"$ptxn rolled_back/rolled_back" \
	"a login printing to stdout: the peer's transaction is recorded here, and rolled back on both ends"
campaign "$WORK/c-motd.yaml" "$WORK/ssh_config" "$WORK/jumbo.yaml"
run hcx campaign "$WORK/c-motd.yaml"
is "$rc/$(mtus)" "6/mtu 1500 mtu 1500" "campaign, a login printing: the group skipped (exit 6), both ends as before"
printf '%s\n' "$out" | grep -q '^host        every group rolled back: as before the campaign$'
ok $? "campaign, a login printing: the last line says so (both ends were restored)"
is "$(peer_status "$(peer_last_apply)")" rolled_back "campaign, a login printing: the peer's round rolled back"
rm -f "$WORK/motd"

# ---- 2: a failed peer rollback is recorded, shown and retried
run hcx apply "$WORK/both.yaml"
txn=$(last_apply) ptxn=$(peer_last_apply)
is "$rc/$(mtus)" "0/mtu 9000 mtu 9000" "apply: both ends"
cp "$WORK/ssh_config" "$WORK/ssh_config.good"
sed -i 's/Port 2222/Port 2223/' "$WORK/ssh_config" # nothing listens there
run hcx rollback
is "$rc/$(mtus)" "7/mtu 1500 mtu 9000" "peer unreachable: exit 7, this host restored, the peer not"
run hcx history show txn "$txn"
printf '%s\n' "$out" | grep -q "^peer         txn $ptxn (the peer's, applied with it); its rollback is PENDING: peer root@198.18.0.2: ssh failed (exit 255)"
ok $? "history show txn: the peer's rollback is pending, and why"
run hcx --json history show txn "$txn"
printf '%s' "$out" >"$WORK/show.json"
run "$PY" -c 'import json, sys, jsonschema
d = json.load(open(sys.argv[1])); jsonschema.validate(d, json.load(open(sys.argv[2])))
print(d["transaction"]["peer_txn"], d["transaction"]["peer_undo_pending"] is not None)' "$WORK/show.json" "$TOP/schemas/history.schema.json"
is "$out" "$ptxn True" "history show txn --json: peer_txn and peer_undo_pending (valid)"
# a stack: a later apply is rolled back before the older pending one
run hcx apply "$WORK/mtu4000.yaml"
cp "$WORK/ssh_config.good" "$WORK/ssh_config"
run hcx rollback
is "$rc/$(mtus)/$(peer_status "$ptxn")" "0/mtu 1500 mtu 9000/committed" \
	"an apply after it: the next rollback undoes that later one first, the peer's stays pending"
run hcx rollback
is "$rc/$(mtus)/$(peer_status "$ptxn")" "0/mtu 1500 mtu 1500/rolled_back" "the next rollback: retries the peer's, exit 0"
is "$out" "rolled back the peer's transaction $ptxn of transaction $txn (its rollback was pending)" \
	"the next rollback: says what it did"
run hcx history show txn "$txn"
printf '%s\n' "$out" | grep -q PENDING
ok $((!$?)) "history show txn: no longer pending"
run hcx rollback
is "$rc/$out" "0/nothing to roll back" "then nothing is left to roll back"

# ---- 6: SIGINT while the peer's rollback hangs
run hcx apply "$WORK/both.yaml"
txn=$(last_apply) ptxn=$(peer_last_apply)
touch "$WORK/hang-rollback"
rm -f "$WORK/rollback-started" "$WORK/rollback-release" "$WORK/rollback-finished"
HOME=$WORK ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" rollback >"$WORK/int.out" 2>"$WORK/int.err" &
pid=$!
wait_until 60 test -e "$WORK/rollback-started"
ok $? "the peer's rollback has started (and hangs)"
kill -INT "$pid"
wait "$pid"
rc=$?
is "$rc/$([ -e "$WORK/rollback-finished" ] && echo after || echo before)/$(mtus)" "7/before/mtu 1500 mtu 9000" \
	"SIGINT during the peer's rollback (which hangs): exit 7 at once, before the peer's end, this host restored"
touch "$WORK/rollback-release"
grep -q "interrupted by SIGINT: ssh ended" "$WORK/int.err"
ok $? "SIGINT during the peer's rollback: said so"
is "$(sqlite3 "$DB" "SELECT peer_undo_pending IS NOT NULL FROM transactions WHERE id = $txn")" 1 \
	"SIGINT during the peer's rollback: its rollback recorded as pending"
rm -f "$WORK/hang-rollback"
# a peer that is gone for good: its pending rollback is abandoned
run hcx rollback --abandon "$txn" --reason "peer decommissioned"
is "$rc/$out" "0/abandoned the pending rollback of the peer's transaction $ptxn of transaction $txn: nothing was written; the peer is left as it is" \
	"rollback --abandon of a pending peer rollback: exit 0, says what is left"
is "$(sqlite3 "$DB" "SELECT peer_undo_pending IS NULL AND error LIKE '%the rollback of the peer''s transaction $ptxn abandoned by % (\`cx5prof rollback --abandon\`): peer decommissioned' FROM transactions WHERE id = $txn")" 1 \
	"rollback --abandon: no longer pending, recorded with who and why"
run hcx rollback
is "$rc/$out/$(mtus)" "0/nothing to roll back/mtu 1500 mtu 9000" "then nothing is left to roll back here, the peer as it was left"
ip netns exec "$PEER_NS" "$CX5PROF" --sysroot "$PSR" --db "$PDB" rollback "$ptxn" >/dev/null 2>&1
is "$(mtus)/$(peer_status "$ptxn")" "mtu 1500 mtu 1500/rolled_back" "(rolled back on the peer by hand)"

# ---- 4 with a hung peer rollback: the campaign's last line
campaign "$WORK/c-jumbo.yaml" "$WORK/ssh_config" "$WORK/jumbo.yaml"
touch "$WORK/hang-rollback"
rm -f "$WORK/rollback-started" "$WORK/rollback-release" "$WORK/rollback-finished"
HOME=$WORK ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" campaign "$WORK/c-jumbo.yaml" >"$WORK/c.out" 2>"$WORK/c.err" &
pid=$!
wait_until 60 test -e "$WORK/rollback-started"
ok $? "campaign: the peer's round rollback has started (and hangs)"
kill -INT "$pid"
wait "$pid"
rc=$?
ptxn=$(peer_last_apply)
is "$rc/$(mtus)" "7/mtu 1500 mtu 9000" "campaign, SIGINT while the peer's round rollback hangs: exit 7, this host restored"
is "$(tail -n 1 "$WORK/c.out")" "host        NOT as before the campaign: the peer: its transaction $ptxn (\`cx5prof rollback\` here tries again)" \
	"campaign: the last line says the peer is NOT restored (never 'as before the campaign')"
rm -f "$WORK/hang-rollback"
touch "$WORK/rollback-release"
run hcx rollback
is "$rc/$(mtus)" "0/mtu 1500 mtu 1500" "the next rollback restores the peer"

# ---- 5: peer.confirm shorter than the round: the watchdog covers it
campaign "$WORK/c-short.yaml" "$WORK/ssh_config" "$WORK/jumbo.yaml" 2 1
run hcx --json campaign "$WORK/c-short.yaml"
ptxn=$(peer_last_apply)
is "$rc" 0 "peer.confirm 1 s, a 2 s benchmark: exit 0"
is "$(sqlite3 "$PDB" "SELECT (confirm_deadline_usec - started_usec + 500000) / 1000000 >= 33 FROM transactions WHERE id = $ptxn")" 1 \
	"the peer's watchdog covers the round (peer.confirm + duration + 30 s)"
printf '%s' "$out" >"$WORK/short.json"
run "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1])); r = d["groups"][0]["rounds"][0]
print(r["peer_mtu"], r["peer_reverted"], r["recv_mbps"] is not None)' "$WORK/short.json"
is "$out" "9000 False True" "the peer stayed at 9000 for the whole round, which counts"
# ... and a round whose peer is rolled back under it is marked: the
# campaign is held after the round's benchmark (CX5PROF_TEST_PAUSE) while
# the peer is rolled back behind its back
campaign "$WORK/c-long.yaml" "$WORK/ssh_config" "$WORK/jumbo.yaml" 4
mkfifo "$WORK/long.fifo"
CX5PROF_TEST_PAUSE=bench-done:$WORK/long.fifo HOME=$WORK ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
	--json campaign "$WORK/c-long.yaml" >"$WORK/long.json" 2>"$WORK/long.err" &
pid=$!
peer_pending() { [ "$(peer_status "$(peer_last_apply)")" = pending_confirm ]; }
held_when "$WORK/long.fifo" peer_pending
ok $? "the campaign is held after the round's benchmark, the peer waiting for its end"
ip netns exec "$PEER_NS" "$CX5PROF" --sysroot "$PSR" --db "$PDB" rollback >/dev/null 2>&1
pause_release "$WORK/long.fifo"
wait "$pid"
crc=$?
run "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1])); r = d["groups"][0]["rounds"][0]
print(r["peer_reverted"], r["recv_mbps"], d["restored"])' "$WORK/long.json"
is "$crc/$out" "1/True None True" "the peer rolled back under the round: marked, not counted (exit 1), both ends restored"
grep -q "was rolled back during the round" "$WORK/long.err"
ok $? "the peer rolled back under the round: a warning says so"

# ---- 7: a peer that accepts TCP but never speaks SSH
timeout -k 1 200 ip netns exec "$PEER_NS" "$PY" -c '
import socket, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("198.18.0.2", 2224))
s.listen(16)
held = []
while True:
    c, _ = s.accept()
    held.append(c)
' >/dev/null 2>&1 &
V_PIDS="$V_PIDS $!"
wait_listen 2224 || { echo "Bail out! the mute listener did not start"; exit 1; }
client_config "$WORK/ssh_config_mute" 2224 "$WORK/known_hosts"
sed -i '/ConnectTimeout/d' "$WORK/ssh_config_mute"
both "$WORK/mute.yaml" "$WORK/ssh_config_mute"
# (a hang until peer.confirm + 60 s = 90 s would be cut by the timeout: 124)
run timeout 80 env HOME="$WORK" ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$WORK/mute.yaml"
is "$rc/$(mtus)" "6/mtu 1500 mtu 1500" \
	"a peer that never speaks SSH: exit 6 after ssh's ConnectTimeout (not a wait for confirm + 60 s), both ends as before"
campaign "$WORK/c-mute.yaml" "$WORK/ssh_config_mute" "$WORK/jumbo.yaml, $WORK/mtu4000.yaml"
run timeout 80 env HOME="$WORK" ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" campaign "$WORK/c-mute.yaml"
is "$rc/$(mtus)" "6/mtu 1500 mtu 1500" "campaign, a peer that never speaks SSH: exit 6, both ends as before"
printf '%s\n' "$out" | grep -qE '^mtu4000 +- +skipped \(exit 6\): peer root@198.18.0.2: ssh failed \(exit 255\).* \(group jumbo\); not tried again: nothing was changed on this host$'
ok $? "campaign: the next group is not tried again, and says why"

# ---- 11: peer.ssh_config owned and written as OpenSSH requires, no commands
cp "$WORK/ssh_config" "$WORK/cfg-gw" && chmod 664 "$WORK/cfg-gw"
both "$WORK/gw.yaml" "$WORK/cfg-gw"
n=$(sqlite3 "$DB" "SELECT count(*) FROM transactions")
run hcx apply "$WORK/gw.yaml"
is "$rc/$err" "77/cx5prof: error: peer.ssh_config $WORK/cfg-gw: writable by its group (mode 0664): refused, as OpenSSH refuses such a config; chmod go-w $WORK/cfg-gw; nothing was changed" \
	"ssh_config writable by its group: exit 77, refused"
cp "$WORK/ssh_config" "$WORK/cfg-other" && chmod 600 "$WORK/cfg-other" && chown nobody "$WORK/cfg-other"
both "$WORK/other.yaml" "$WORK/cfg-other"
run hcx apply "$WORK/other.yaml"
is "$rc" 77 "ssh_config owned by another user: exit 77"
{ cat "$WORK/ssh_config"; printf '  PermitLocalCommand yes\n  LocalCommand touch %s/local-ran\n' "$WORK"; } >"$WORK/cfg-cmd"
chmod 600 "$WORK/cfg-cmd"
both "$WORK/cmd.yaml" "$WORK/cfg-cmd"
run hcx apply "$WORK/cmd.yaml"
is "$rc/$err" "65/cx5prof: error: peer.ssh_config $WORK/cfg-cmd:9: PermitLocalCommand runs a command on this host: refused (pass --allow-ssh-commands to allow it); nothing was changed" \
	"ssh_config with a LocalCommand: exit 65, refused with its line"
is "$(sqlite3 "$DB" "SELECT count(*) FROM transactions")/$(mtus)/$([ -e "$WORK/local-ran" ] && echo ran)" \
	"$n/mtu 1500 mtu 1500/" "refused: nothing recorded, nothing changed, no command ran"
{ cat "$WORK/ssh_config"; printf '  PKCS11Provider %s/p11.so\n' "$WORK"; } >"$WORK/cfg-p11"
chmod 600 "$WORK/cfg-p11"
both "$WORK/p11.yaml" "$WORK/cfg-p11"
run hcx apply "$WORK/p11.yaml"
is "$rc/$err" "65/cx5prof: error: peer.ssh_config $WORK/cfg-p11:9: PKCS11Provider loads a library into ssh on this host: refused (pass --allow-ssh-commands to allow it); nothing was changed" \
	"ssh_config with a PKCS11Provider: exit 65, refused with its line"
printf '  Match exec "true"\n' >"$WORK/cfg-match" && chmod 600 "$WORK/cfg-match"
both "$WORK/match.yaml" "$WORK/cfg-match"
run hcx apply "$WORK/match.yaml"
is "$rc" 65 "ssh_config with Match exec: exit 65"
run hcx apply --allow-ssh-commands "$WORK/cmd.yaml"
is "$rc/$(mtus)/$([ -e "$WORK/local-ran" ] && echo ran)" "0/mtu 9000 mtu 9000/ran" \
	"--allow-ssh-commands: the commands are allowed"
run hcx rollback --allow-ssh-commands
is "$rc/$(mtus)" "0/mtu 1500 mtu 1500" "rollback --allow-ssh-commands: both ends restored"
done_testing
