#!/usr/bin/env bash
# 75-campaign-peer.t: a campaign tunes both ends. The campaign's `peer:`
# names the peer namespace's sshd (peer-ssh-lib.sh); each round applies
# the group on the peer after this host, benchmarks with the builtin
# runner against `serve` there (whose STATE answers give the peer's MTU
# and drops to the campaign's table), and rolls both back. During the
# jumbo round both ends are at MTU 9000 (the run's MTU here, the peer's
# MTU from its state); afterwards both are at 1500 and both sysroot copies
# are byte-identical. --keep keeps both ends; SIGTERM, SIGINT while the
# peer applies (twice: the first is held for the peer's answer) and kill
# -9 (then rollback, or the next campaign) leave both ends as before and
# the campaign interrupted. A peer that cannot be
# tuned: the group is undone here and skipped with the reason, and once
# ssh itself failed, the later groups are not tried.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
. "$(dirname "$0")/peer-ssh-lib.sh"
need_root_netns
need_tool sqlite3
vsetup v75
peer_ssh_setup
copy_sysroot cx5-2port "$WORK/pristine"
same_sysroots() { diff -r --no-dereference "$SR" "$WORK/pristine" >/dev/null && diff -r --no-dereference "$PSR" "$WORK/pristine" >/dev/null; }
timeout -k 1 900 ip netns exec "$PEER_NS" "$CX5PROF" serve --bind 198.18.0.2 2>"$WORK/serve.log" &
V_PIDS="$V_PIDS $!"
wait_listen 12866 || { echo "Bail out! serve did not start: $(cat "$WORK/serve.log")"; exit 1; }

for g in baseline:1500 jumbo:9000; do
	cat >"$WORK/${g%:*}.yaml" <<YAML
version: 1
name: ${g%:*}
match:
  interfaces: [ens1f0]
link:
  mtu: ${g#*:}
YAML
done
campaign() { # campaign FILE SSH_CONFIG
	cat >"$1" <<YAML
version: 1
name: both-ends
groups: [baseline.yaml, jumbo.yaml]
verify: {peer: 198.18.0.2, runner: builtin, duration: 1, message_size: 1400}
peer:
  ssh: root@198.18.0.2
  ssh_config: $2
  command: /usr/sbin/cx5prof
YAML
}
campaign "$WORK/both.yaml" "$WORK/ssh_config"
client_config "$WORK/ssh_config_closed" 2223 "$WORK/known_hosts"
campaign "$WORK/closed.yaml" "$WORK/ssh_config_closed"

# ---- --check names the peer each round tunes
run hcx campaign --check "$WORK/both.yaml"
is "$rc/$(printf '%s\n' "$out" | grep '^group')" "0/group       baseline ($WORK/baseline.yaml): builtin 1 s to 198.18.0.2, tuning root@198.18.0.2 there too
group       jumbo ($WORK/jumbo.yaml): builtin 1 s to 198.18.0.2, tuning root@198.18.0.2 there too" \
	"--check: each group names the peer it tunes"
run hcx --json campaign --check "$WORK/both.yaml"
printf '%s' "$out" >"$WORK/check.json"
run "$PY" -c 'import json, sys, jsonschema
d = json.load(open(sys.argv[1])); jsonschema.validate(d, json.load(open(sys.argv[2])))
print([g["tune_peer"] for g in d["groups"]])' "$WORK/check.json" "$TOP/schemas/campaign.schema.json"
is "$out" "['root@198.18.0.2', 'root@198.18.0.2']" "--check --json: tune_peer per group (valid)"

# ---- both ends, each round
run hcx --json campaign "$WORK/both.yaml"
is "$rc" 0 "campaign with peer.ssh: exit 0"
diag "$err"
printf '%s' "$out" >"$WORK/both.json"
run "$PY" -c 'import json, sys, jsonschema
d = json.load(open(sys.argv[1])); jsonschema.validate(d, json.load(open(sys.argv[2])))
print([(g["group"], g["peer_mtu"], g["peer_drops"] is not None, [r["peer_mtu"] for r in g["rounds"]]) for g in d["groups"]])' \
	"$WORK/both.json" "$TOP/schemas/campaign.schema.json"
is "$out" "[('baseline', 1500, True, [1500]), ('jumbo', 9000, True, [9000])]" \
	"the peer's MTU per group from its state: 9000 during the jumbo round (document valid)"
is "$(sqlite3 "$DB" "SELECT group_concat(profile_name || ':' || mtu, ' ') FROM runs WHERE campaign = 1")" \
	"baseline:1500 jumbo:9000" "this host's MTU during the rounds (the runs' records): 9000 during the jumbo round"
is "$(peer_txns)" "apply:rolled_back rollback:committed" \
	"the peer: the jumbo round's transaction rolled back (baseline changed nothing there)"
is "$(mtus)" "mtu 1500 mtu 1500" "afterwards: both ends back at MTU 1500"
same_sysroots
ok $? "afterwards: both sysroot copies are byte-identical to before"

# ---- the table and the report show the peer's state per group
run hcx campaign "$WORK/both.yaml" --report "$WORK/report"
printf '%s\n' "$out" | grep -qE '^peer        baseline mtu 1500 drops (none|\+[0-9]+), jumbo mtu 9000 drops (none|\+[0-9]+)$'
ok $? "the table: a peer line with its MTU and drops per group"
is "$(grep -oE '<td>mtu [0-9]+, drops (none|\+[0-9]+)</td>' "$WORK/report/report.html" | sed 's/drops.*/drops/' | tr '\n' ' ')" \
	"<td>mtu 1500, drops <td>mtu 9000, drops " "the report: the peer's MTU and drops in each group's row"

# ---- --keep last: the group stays applied on both ends; rollback undoes both
run hcx campaign "$WORK/both.yaml" --keep last
is "$rc/$(mtus)/$(peer_txns | awk '{print $NF}')" "0/mtu 9000 mtu 9000/apply:committed" \
	"--keep last: jumbo stays on both ends, committed on the peer"
run hcx rollback
is "$rc/$(mtus)/$(peer_txns | awk '{print $NF}')" "0/mtu 1500 mtu 1500/rollback:committed" \
	"--keep last + rollback: both ends restored"

# ---- the peer cannot be reached: each group is undone here and skipped
run hcx campaign "$WORK/closed.yaml"
is "$rc" 6 "unreachable peer: every group skipped (exit 6)"
printf '%s\n' "$out" | grep -qE '^baseline +- +skipped \(exit 6\): peer root@198.18.0.2: ssh failed \(exit 255\).*; nothing was changed on this host$' &&
	printf '%s\n' "$out" | grep -qE '^jumbo +- +skipped \(exit 6\): peer root@198.18.0.2: ssh failed \(exit 255\).* \(group baseline\); not tried again: nothing was changed on this host$'
ok $? "unreachable peer: the first group's row says why; ssh is not tried again for the next"
is "$(mtus)" "mtu 1500 mtu 1500" "unreachable peer: both ends as they were"
same_sysroots
ok $? "unreachable peer: both sysroot copies are byte-identical to before"

# ---- SIGTERM during the jumbo round: both ends rolled back. The campaign
# is held after a benchmark (CX5PROF_TEST_PAUSE=bench-done, one FIFO per
# run) at the round the test wants, and signalled there.
bg_campaign() { # bg_campaign FIFO
	mkfifo "$1"
	CX5PROF_TEST_PAUSE=bench-done:$1 HOME=$WORK ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
		campaign "$WORK/both.yaml" >/dev/null 2>"$WORK/bg.err" &
}
peer_pending() { [ "$(peer_txns | awk '{print $NF}')" = apply:pending_confirm ]; }
campaign_status() { sqlite3 "$DB" "SELECT status FROM campaigns WHERE id = $1"; }
bg_campaign "$WORK/term.fifo"
pid=$!
held_when "$WORK/term.fifo" peer_pending
ok $? "SIGTERM: the jumbo round is applied on the peer, waiting for its end"
pause_signal "$WORK/term.fifo" TERM "$pid"
wait "$pid"
is "$?" 6 "SIGTERM: exit 6"
is "$(mtus)/$(peer_txns | awk '{print $(NF-1), $NF}')/$(campaign_status 5)" \
	"mtu 1500 mtu 1500/apply:rolled_back rollback:committed/interrupted" \
	"SIGTERM: both ends rolled back, the campaign recorded as interrupted"

# ---- SIGINT while the peer's apply is slow: held while its answer is
# awaited; a second one ends ssh, this host's round undone once, the
# campaign interrupted, the peer's state unknown until `rollback` here
printf 'version: 1\nname: jumbo-only\ngroups: [jumbo.yaml]\nverify: {peer: 198.18.0.2, runner: builtin, duration: 1}\npeer: {ssh: root@198.18.0.2, ssh_config: %s}\n' \
	"$WORK/ssh_config" >"$WORK/jumbo-only.yaml"
touch "$WORK/hang-before-apply"
rm -f "$WORK/peer-started" "$WORK/peer-release" "$WORK/peer-finished"
HOME=$WORK ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" campaign "$WORK/jumbo-only.yaml" >/dev/null 2>"$WORK/int.err" &
pid=$!
wait_until 60 test -e "$WORK/peer-started"
ok $? "SIGINT while the peer applies: the peer's apply has started"
kill -INT "$pid"
wait_until 60 grep -q 'waiting up to 10 s for its answer' "$WORK/int.err"
ok $? "SIGINT while the peer applies: held while its answer is awaited"
kill -INT "$pid"
wait "$pid"
is "$?" 7 "a second SIGINT while the peer applies: exit 7 (the peer's state unknown)"
rm -f "$WORK/hang-before-apply"
[ ! -e "$WORK/peer-finished" ]
ok $? "a second SIGINT while the peer applies: this host did not wait for the peer"
touch "$WORK/peer-release"
grep -q 'interrupted by SIGINT: ssh ended before its answer' "$WORK/int.err" && [ "$(grep -c 'NOT restored' "$WORK/int.err")" = 0 ]
ok $? "SIGINT while the peer applies: ssh ended, this host's round rolled back once"
is "$(mtus)/$(campaign_status 6)/$(sqlite3 "$DB" "SELECT COUNT(*) FROM transactions WHERE kind = 'apply' AND status != 'rolled_back'")" \
	"mtu 1500 mtu 1500/interrupted/0" "SIGINT while the peer applies: this host as before, the campaign interrupted"
wait_until 60 test -e "$WORK/peer-finished"
run hcx rollback
is "$rc/$(mtus)" "0/mtu 1500 mtu 1500" "then rollback here: the peer's apply left nothing there, both ends as before"

# ---- kill -9 during the jumbo round: the next rollback restores both ends
bg_campaign "$WORK/kill.fifo"
pid=$!
held_when "$WORK/kill.fifo" peer_pending
ok $? "kill -9: the jumbo round is applied on the peer, waiting for its end"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
is "$(mtus)/$(campaign_status 7)" "mtu 9000 mtu 9000/running" "kill -9: both ends left at 9000, the campaign says running"
run hcx rollback
is "$rc" 0 "kill -9: rollback exit 0"
is "$(mtus)/$(peer_txns | awk '{print $(NF-1), $NF}')/$(campaign_status 7)" \
	"mtu 1500 mtu 1500/apply:rolled_back rollback:committed/interrupted" \
	"kill -9 + rollback: both ends restored, the campaign recorded as interrupted"

# ---- kill -9 between transactions (held after the baseline round's
# benchmark: it changes nothing): the next campaign records the dead one as
# interrupted
bg_campaign "$WORK/kill2.fifo"
pid=$!
baseline_round() { [ "$(sqlite3 "$DB" "SELECT COUNT(*) FROM transactions WHERE status = 'open'")" = 0 ]; }
held_when "$WORK/kill2.fifo" baseline_round
ok $? "kill -9 in the baseline round: held after its benchmark, no transaction open"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
is "$(campaign_status 8)/$(sqlite3 "$DB" "SELECT COUNT(*) FROM transactions WHERE status = 'open'")" "running/0" \
	"kill -9 in the baseline round: the campaign says running, no transaction open"
run hcx campaign "$WORK/closed.yaml"
is "$(campaign_status 8)" interrupted "the next campaign recorded the dead one as interrupted"
same_sysroots && [ "$(mtus)" = "mtu 1500 mtu 1500" ]
ok $? "after the kills: both ends as before, both sysroot copies byte-identical"

# ---- the campaign's peer section is checked like a profile's
printf 'version: 1\nname: bad\ngroups: [baseline.yaml]\npeer:\n  confirm: 5\n' >"$WORK/no-ssh.yaml"
run hcx campaign --check "$WORK/no-ssh.yaml"
is "$rc $err" "65 cx5prof: error: $WORK/no-ssh.yaml:5:3: peer: missing required key \"ssh\" (the peer to tune, [user@]host)" \
	"a campaign's peer section without ssh: refused with its place"
done_testing
