#!/usr/bin/env bash
# 74-peer-ssh.t: tune both ends. A profile with `peer: {ssh: ...}` is
# applied on the peer too, through OpenSSH: an sshd started here inside the
# peer namespace on 198.18.0.2 (its own config, host key and
# authorized_keys; a private mount of /run for its privilege separation
# directory), a client key and known_hosts made for this test and named
# by peer.ssh_config, and a forced command that runs the peer's cx5prof on
# its own sysroot copy and history. apply changes both MTUs, rollback
# restores both; the peer's session killed after its apply, an unknown
# host key or an unreachable peer leave both ends as they were. The sshd
# setup is peer-ssh-lib.sh's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
. "$(dirname "$0")/peer-ssh-lib.sh"
need_root_netns
vsetup v74
peer_ssh_setup
: >"$WORK/no_known_hosts"
client_config "$WORK/ssh_config_unknown" 2222 "$WORK/no_known_hosts"
client_config "$WORK/ssh_config_closed" 2223 "$WORK/known_hosts"
client_config "$WORK/ssh_config_lax" 2222 "$WORK/no_known_hosts"
echo "  StrictHostKeyChecking no" >>"$WORK/ssh_config_lax"

# extends is resolved on this host: the peer gets one flattened profile.
cat >"$WORK/jumbo.yaml" <<'YAML'
version: 1
name: jumbo
match:
  interfaces: [ens1f0]
link:
  mtu: 9000
YAML
both() { # both FILE SSH_CONFIG
	cat >"$1" <<YAML
version: 1
name: both-ends
extends: jumbo.yaml
peer:
  ssh: root@198.18.0.2
  ssh_config: $2
  command: /usr/sbin/cx5prof
  confirm: 3
YAML
}
both "$WORK/both.yaml" "$WORK/ssh_config"
both "$WORK/unknown.yaml" "$WORK/ssh_config_unknown"
both "$WORK/closed.yaml" "$WORK/ssh_config_closed"
both "$WORK/lax.yaml" "$WORK/ssh_config_lax"

# ---- apply: both ends; rollback: both ends
run hcx apply "$WORK/both.yaml"
is "$rc" 0 "apply with peer.ssh: exit 0"
is "$(mtus)" "mtu 9000 mtu 9000" "apply changed the MTU on both ends"
is "$(peer_txns)" "apply:committed" "the peer's own transaction is committed"
run hcx rollback
is "$rc" 0 "rollback: exit 0"
is "$(mtus)" "mtu 1500 mtu 1500" "rollback restored the MTU on both ends"
is "$(peer_txns)" "apply:rolled_back rollback:committed" "the peer rolled its transaction back"

# ---- rollback undoes the peer's transaction applied with this host's
# one, not the peer's last: a later transaction made on the peer alone
# stays.
cat >"$WORK/peer-only.yaml" <<'YAML'
version: 1
name: peer-only
match:
  interfaces: [ens1f0]
sysctl:
  net.core.rmem_max: 4194304
YAML
rmem_before=$(cat "$PSR/proc/sys/net/core/rmem_max")
run hcx apply "$WORK/both.yaml"
is "$rc $(mtus)" "0 mtu 9000 mtu 9000" "apply with peer.ssh again: both ends changed"
peer_apply_txn=$(sqlite3 "$PDB" "SELECT max(id) FROM transactions")
is "$(sqlite3 "$DB" 'SELECT peer_txn FROM transactions ORDER BY id DESC LIMIT 1')" "$peer_apply_txn" \
	"this host's transaction records the peer's transaction"
ip netns exec "$PEER_NS" "$CX5PROF" --sysroot "$PSR" --db "$PDB" apply "$WORK/peer-only.yaml" >/dev/null 2>&1
is "$(cat "$PSR/proc/sys/net/core/rmem_max")" 4194304 "a later transaction on the peer alone"
run hcx rollback
is "$rc $(mtus)" "0 mtu 1500 mtu 1500" "rollback: both MTUs restored"
is "$(cat "$PSR/proc/sys/net/core/rmem_max")" 4194304 "rollback: the peer's later transaction is left alone"
is "$(sqlite3 "$PDB" "SELECT status FROM transactions WHERE id = $peer_apply_txn")" rolled_back \
	"rollback: the peer rolled back exactly its transaction $peer_apply_txn"
printf '%s\n' "$err" | grep -q "peer root@198.18.0.2: rolled back its transaction $peer_apply_txn"
ok $? "rollback: says which transaction of the peer it rolled back"
ip netns exec "$PEER_NS" "$CX5PROF" --sysroot "$PSR" --db "$PDB" rollback >/dev/null 2>&1
is "$(cat "$PSR/proc/sys/net/core/rmem_max")" "$rmem_before" "the peer's own rollback undoes its later transaction"

# ---- this host's commit record fails after the peer committed: both
# ends are undone (failpoint commit:1; ssh passes no environment)
run env CX5PROF_FAILPOINT=commit:1 HOME=$WORK ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
	apply "$WORK/both.yaml"
is "$rc $(mtus)" "6 mtu 1500 mtu 1500" "commit record fails here: exit 6, both ends restored"
is "$(peer_txns | awk '{print $(NF-1), $NF}')" "apply:rolled_back rollback:committed" \
	"commit record fails here: the peer's committed transaction is rolled back"

# ---- the peer's apply fails and cannot undo itself (exit 7 there: no
# watchdog covers it): its transaction is recorded here and rolled back
printf 'version: 1\nname: two-steps\nextends: both.yaml\nsysctl:\n  net.core.rmem_max: 4194304\n' >"$WORK/two.yaml"
echo apply-step:2,undo-step:1 >"$WORK/peer-failpoint"
run hcx apply "$WORK/two.yaml"
rm "$WORK/peer-failpoint"
ptxn=$(sqlite3 "$PDB" "SELECT max(id) FROM transactions WHERE kind = 'apply'")
is "$rc/$(mtus)/$(cat "$PSR/proc/sys/net/core/rmem_max")/$(sqlite3 "$PDB" "SELECT status FROM transactions WHERE id = $ptxn")" \
	"6/mtu 1500 mtu 1500/$rmem_before/rolled_back" \
	"the peer's apply fails and leaves a change there (exit 7 there): rolled back there too, exit 6"
is "$(sqlite3 "$DB" "SELECT peer_txn FROM transactions WHERE kind = 'apply' ORDER BY id DESC LIMIT 1")" "$ptxn" \
	"the peer's failed transaction is recorded with this host's"

# ---- apply --confirm here: the peer waits too, and commit commits both
run hcx apply --confirm 60 "$WORK/both.yaml"
is "$rc" 0 "apply --confirm with peer.ssh: exit 0"
is "$(mtus) $(peer_txns | awk '{print $NF}')" "mtu 9000 mtu 9000 apply:pending_confirm" \
	"apply --confirm: both ends changed, the peer waits for a commit"
is "$(sqlite3 "$PDB" 'SELECT (confirm_deadline_usec - started_usec + 500000) / 1000000 FROM transactions ORDER BY id DESC LIMIT 1')" 60 \
	"apply --confirm 60: the peer's watchdog waits the same 60 s (one commit keeps both)"
run hcx commit
is "$rc" 0 "commit: exit 0"
is "$(peer_txns | awk '{print $NF}')" "apply:committed" "commit here committed the peer too"
run hcx rollback
is "$rc $(mtus)" "0 mtu 1500 mtu 1500" "rollback after commit: both ends restored"

# ---- the peer's session dies after its apply (its answer lost, ssh
# exit 255 after it sent the profile): the peer's state is unknown, so the
# peer is asked at once for the apply that carried this host's origin token
# (`rollback --origin`) and rolls it back; its --confirm watchdog (held at
# its start, CX5PROF_TEST_PAUSE) then finds nothing to do.
touch "$WORK/kill-after-apply" "$WORK/pause-peer-watchdog"
run hcx apply "$WORK/both.yaml"
rm -f "$WORK/kill-after-apply" "$WORK/pause-peer-watchdog"
is "$rc" 6 "ssh killed mid-way: exit 6"
printf '%s\n' "$err" | grep -q "peer root@198.18.0.2: ssh failed (exit 255): see its message above; rolling back this host's transaction [0-9]*; whether the peer applied is unknown: asking the peer for the apply that carried this host's origin token"
ok $? "ssh killed mid-way: the peer's failure is named, and that its state is unknown"
is "$(mtus)" "mtu 1500 mtu 1500" "ssh killed mid-way: both ends restored at once"
ptxn=$(sqlite3 "$PDB" "SELECT max(id) FROM transactions WHERE kind = 'apply'")
is "$(peer_txns | awk '{print $(NF-1), $NF}')" "apply:rolled_back rollback:committed" \
	"ssh killed mid-way: the peer's apply found by its origin token and rolled back there"
is "$(sqlite3 "$DB" "SELECT peer_txn || ' ' || (peer_undo_pending IS NULL) || ' ' || (length(peer_origin) = 32) FROM transactions ORDER BY id DESC LIMIT 1 OFFSET 1")" \
	"$ptxn 1 1" "ssh killed mid-way: the peer's transaction recorded here, nothing pending, the origin token kept"
is "$(sqlite3 "$PDB" "SELECT origin FROM transactions WHERE id = $ptxn")" \
	"$(sqlite3 "$DB" "SELECT peer_origin FROM transactions ORDER BY id DESC LIMIT 1 OFFSET 1")" \
	"ssh killed mid-way: the peer recorded the same origin token with its apply"
pause_wait "$WORK/peer-watchdog.fifo" >/dev/null && pause_release "$WORK/peer-watchdog.fifo"
ok $? "ssh killed mid-way: the peer's watchdog was held at its start, and is let go"
deadline=$(sqlite3 "$PDB" "SELECT confirm_deadline_usec FROM transactions WHERE id = $ptxn")
wait_until 30 eval '[ "$(date +%s%6N)" -gt $((deadline + 2000000)) ]'
is "$(mtus)/$(peer_txns | awk '{print $(NF-1), $NF}')" "mtu 1500 mtu 1500/apply:rolled_back rollback:committed" \
	"ssh killed mid-way: 2 s past its deadline, the watchdog has changed nothing more"

# ---- SIGINT to this host's cx5prof while the peer applies: held while
# the peer's answer is awaited (up to 10 s); a second one ends ssh at once,
# this host rolled back (not committed once the peer is done), the peer's
# state unknown (exit 7) until `cx5prof rollback` here finds out
touch "$WORK/hang-before-apply"
rm -f "$WORK/peer-started" "$WORK/peer-release" "$WORK/peer-finished"
HOME=$WORK ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$WORK/both.yaml" \
	>"$WORK/int.out" 2>"$WORK/int.err" &
apid=$!
wait_until 60 test -e "$WORK/peer-started"
ok $? "SIGINT while the peer applies: the peer's apply has started"
kill -INT "$apid"
wait_until 60 grep -q 'waiting up to 10 s for its answer' "$WORK/int.err"
ok $? "SIGINT while the peer applies: held while its answer is awaited"
kill -INT "$apid"
wait "$apid"
rc=$?
rm -f "$WORK/hang-before-apply"
is "$rc $([ -e "$WORK/peer-finished" ] && echo after || echo before)" "7 before" \
	"a second SIGINT while the peer applies: exit 7 at once (the peer's state unknown), before the peer finished"
touch "$WORK/peer-release"
grep -q "peer root@198.18.0.2: \`cx5prof apply\` interrupted by SIGINT: ssh ended before its answer; rolling back this host's transaction" "$WORK/int.err"
ok $? "SIGINT while the peer applies: said so"
is "$(mtu_of "$HOST_NS") $(sqlite3 "$DB" 'SELECT status FROM transactions WHERE kind = '"'apply'"' ORDER BY id DESC LIMIT 1')" \
	"mtu 1500 rolled_back" "SIGINT while the peer applies: this host's transaction rolled back"
wait_until 60 test -e "$WORK/peer-finished"
run hcx rollback
is "$rc/$(mtus)" "0/mtu 1500 mtu 1500" "then rollback here: the peer's apply left nothing there, both ends as before"

# ---- an unknown host key is refused (never StrictHostKeyChecking=no)
run hcx apply "$WORK/unknown.yaml"
is "$rc" 6 "unknown host key: exit 6"
printf '%s\n' "$err" | grep -q "Host key verification failed"
ok $? "unknown host key: ssh refused it"
is "$(mtus)" "mtu 1500 mtu 1500" "unknown host key: both ends as they were"

# ---- an ssh_config that turns host key checking off does not win
run hcx apply "$WORK/lax.yaml"
is "$rc" 6 "StrictHostKeyChecking no in the ssh_config: exit 6"
printf '%s\n' "$err" | grep -q "Host key verification failed"
ok $? "StrictHostKeyChecking no in the ssh_config: the unknown host key is still refused"
is "$(mtus) $(wc -c <"$WORK/no_known_hosts")" "mtu 1500 mtu 1500 0" \
	"StrictHostKeyChecking no in the ssh_config: both ends as they were, known_hosts untouched"

# ---- nothing listens on the peer's ssh port
run hcx apply "$WORK/closed.yaml"
is "$rc" 6 "unreachable peer: exit 6"
is "$(mtus)" "mtu 1500 mtu 1500" "unreachable peer: both ends as they were"
# ... and when the history cannot record the rollback either, this host is
# still undone (from the undo log read before the first change), and says so
export CX5PROF_FAILPOINT=rollback-record:1
run hcx apply "$WORK/closed.yaml"
unset CX5PROF_FAILPOINT
is "$rc $(mtus)" "6 mtu 1500 mtu 1500" \
	"unreachable peer, the rollback's record fails: exit 6, this host undone all the same"
printf '%s\n' "$err" | grep -q "cannot record the rollback of transaction [0-9]*: Input/output error" &&
	printf '%s\n' "$err" | grep -q "undoing transaction [0-9]* from the undo log read before it began"
ok $? "unreachable peer, the rollback's record fails: says what failed and how this host was undone"
is "$(sqlite3 "$DB" "SELECT status FROM transactions WHERE kind = 'apply' ORDER BY id DESC LIMIT 1")" rolled_back \
	"unreachable peer, the rollback's record fails: the transaction is recorded as rolled back"

# ---- nothing to change here: the peer is still tuned (and committed)
ip -n "$HOST_NS" link set ens1f0 mtu 9000
peer_before=$(peer_txns)
run hcx apply --check "$WORK/both.yaml"
is "$rc $(mtus)" "0 mtu 9000 mtu 1500" "apply --check, nothing to change here: exit 0, the peer left alone"
is "$(peer_txns)" "$peer_before" "apply --check: no transaction on the peer"
run hcx apply "$WORK/both.yaml"
is "$rc" 0 "nothing to change here: exit 0"
is "$(mtus)" "mtu 9000 mtu 9000" "nothing to change here: the peer was tuned"
is "$(peer_txns | awk '{print $NF}')" "apply:committed" "nothing to change here: the peer's transaction is committed"
ptxn=$(sqlite3 "$PDB" "SELECT max(id) FROM transactions")
txn=$(sqlite3 "$DB" "SELECT max(id) FROM transactions")
is "$(sqlite3 "$DB" "SELECT kind || ':' || status || ':' || peer_txn || ':' || (SELECT count(*) FROM changes WHERE txn = $txn) FROM transactions WHERE id = $txn")" \
	"apply:committed:$ptxn:0" "nothing to change here: a transaction of no change here records the peer's"
printf '%s\n' "$out" | grep -qx "nothing to change here; the peer applied its transaction $ptxn (transaction $txn)"
ok $? "nothing to change here: the last line says what the peer did"
# ... so that rollback undoes the peer, and a peer rollback that fails is
# pending on it and retried
sed -i 's/Port 2222/Port 2223/' "$WORK/ssh_config"
run hcx rollback
sed -i 's/Port 2223/Port 2222/' "$WORK/ssh_config"
is "$rc/$(mtus)/$(sqlite3 "$DB" "SELECT peer_undo_pending IS NOT NULL FROM transactions WHERE id = $txn")" \
	"7/mtu 9000 mtu 9000/1" "nothing to change here, the peer unreachable at rollback: exit 7, its rollback pending"
run hcx rollback
is "$rc/$(mtus)/$(sqlite3 "$PDB" "SELECT status FROM transactions WHERE id = $ptxn")" "0/mtu 9000 mtu 1500/rolled_back" \
	"the next rollback rolls back the peer's transaction"
is "$out" "rolled back the peer's transaction $ptxn of transaction $txn (its rollback was pending)" \
	"the next rollback says so"
# ... and --confirm holds the peer as it holds this host
run hcx apply --confirm 60 "$WORK/both.yaml"
is "$rc/$(mtus)/$(peer_txns | awk '{print $NF}')" "0/mtu 9000 mtu 9000/apply:pending_confirm" \
	"nothing to change here, --confirm: the peer waits for commit too"
run hcx commit
is "$rc/$(peer_txns | awk '{print $NF}')" "0/apply:committed" "commit here commits the peer"
run hcx rollback
is "$rc/$(mtus)" "0/mtu 9000 mtu 1500" "rollback: the peer restored"
# ... and when the peer has nothing to change either, nothing is recorded
n=$(sqlite3 "$DB" "SELECT count(*) FROM transactions")
ip -n "$PEER_NS" link set ens1f0 mtu 9000
run hcx apply "$WORK/both.yaml"
is "$rc/$(sqlite3 "$DB" "SELECT count(*) FROM transactions")" "0/$n" "nothing to change on either end: nothing recorded"
ip -n "$PEER_NS" link set ens1f0 mtu 1500

# ---- the profile's peer section is checked by the loader
cat >"$WORK/bad.yaml" <<'YAML'
version: 1
name: bad-peer
peer:
  ssh: -oProxyCommand=x
YAML
run hcx validate "$WORK/bad.yaml"
is "$rc" 65 "an ssh target starting with '-': exit 65"
printf '%s\n' "$err" | grep -q 'an ssh destination'
ok $? "an ssh target starting with '-': refused with the reason"
printf 'version: 1\nname: no-ssh\npeer:\n  confirm: 5\n' >"$WORK/no-ssh.yaml"
run hcx validate "$WORK/no-ssh.yaml"
is "$rc $err" "65 cx5prof: error: $WORK/no-ssh.yaml:4:12: peer: missing required key \"ssh\" (the peer to tune, [user@]host)" \
	"a peer section without ssh: refused with its place"
done_testing
