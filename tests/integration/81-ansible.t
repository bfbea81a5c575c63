#!/usr/bin/env bash
# 81-ansible.t: the Ansible module (contrib/ansible) with real
# ansible-playbook (Debian's ansible-core) against the lab's host namespace:
# connection local inside `ip netns exec <prefix>-host`, a private sysroot
# copy and history database, profiles/lab-udp.yaml (and a copy with an
# impossible throughput floor), iperf3 serving in the peer namespace.
#
# The example playbook contrib/ansible/playbooks/cx5prof-fleet.yml:
# check mode changes nothing and shows the diff; the first run applies,
# verifies and commits; the second run changes nothing; a failing verify
# rolls the host back and marks it failed; each host's peer comes from the
# inventory (cx5prof_peer). The module alone: rolled_back
# (check mode, real, idempotent), committed in check mode, and a failure
# carrying the engine's own message.
. "$(dirname "$0")/lib.sh"
need_root_netns
need_tool ansible-playbook "contrib/install-deps.sh installs ansible-core"
need_tool iperf3

export CX5LAB_PREFIX=cx5t-ans-$$
HOST_NS=$CX5LAB_PREFIX-host
PEER_NS=$CX5LAB_PREFIX-peer
LAB=$TOP/contrib/lab/lab.sh
W=$(mktemp -d /tmp/cx5t-ansible.XXXXXX)
SR=$W/sysroot
DB=$W/history.db
SRV=
cleanup() {
	[ -n "$SRV" ] && { kill "$SRV" && wait "$SRV"; } 2>/dev/null
	"$LAB" down >/dev/null 2>&1
	[ "${CX5T_KEEP:-0}" = 1 ] || rm -rf "$W"
}
trap cleanup EXIT
copy_sysroot cx5-2port "$SR"
"$LAB" up >/dev/null || { echo "Bail out! lab.sh up failed"; exit 1; }
# The peer is tuned too (its own profile, in a real fleet): jumbo frames
# need both ends of the veth at MTU 9000.
ip -n "$PEER_NS" link set dev peer0 mtu 9000
timeout -k 1 900 ip netns exec "$PEER_NS" iperf3 -s -B 198.18.0.2 >/dev/null 2>&1 &
SRV=$!

# Copies of profiles/lab-udp.yaml: thresholds any loaded 2-core machine
# meets (the pass path must not depend on load), and an impossible floor.
# Their verify.peer is another benchmarking address: the host's own peer
# comes from the inventory (cx5prof_peer -> verify --peer).
sed -e 's/throughput_mbps: 100$/throughput_mbps: 1/' -e 's/loss_percent: 90$/loss_percent: 100/' \
	-e 's/^  peer: 198.18.0.2$/  peer: 198.19.0.99/' "$TOP/profiles/lab-udp.yaml" >"$W/lab-udp.yaml"
sed -e 's/^name: lab-udp$/name: lab-udp-floor/' -e 's/throughput_mbps: 100$/throughput_mbps: 900000/' -e 's/loss_percent: 90$/loss_percent: 100/' \
	-e 's/^  peer: 198.18.0.2$/  peer: 198.19.0.99/' "$TOP/profiles/lab-udp.yaml" >"$W/lab-udp-floor.yaml"
grep -q 'peer: 198.19.0.99' "$W/lab-udp.yaml" || { echo "Bail out! could not set the profiles' peer"; exit 1; }
grep -q 'throughput_mbps: 1$' "$W/lab-udp.yaml" && grep -q 'loss_percent: 100$' "$W/lab-udp.yaml" &&
	grep -q 'throughput_mbps: 900000' "$W/lab-udp-floor.yaml" && grep -q 'loss_percent: 100$' "$W/lab-udp-floor.yaml" ||
	{ echo "Bail out! could not make the profiles"; exit 1; }

# The collection, as ansible-galaxy would install it.
mkdir -p "$W/collections/ansible_collections/cx5prof" "$W/home" "$W/tmp"
ln -s "$TOP/contrib/ansible" "$W/collections/ansible_collections/cx5prof/fleet"
cat >"$W/inventory.yml" <<EOI
all:
  children:
    cx5_hosts:
      hosts:
        labhost:
          ansible_connection: local
          ansible_python_interpreter: /usr/bin/python3
          cx5prof_binary: $CX5PROF
          cx5prof_sysroot: $SR
          cx5prof_db: $DB
          cx5prof_profile: $W/lab-udp.yaml
          cx5prof_peer: 198.18.0.2
          cx5prof_confirm_timeout: 60
EOI
cat >"$W/states.yml" <<'EOI'
- hosts: cx5_hosts
  gather_facts: false
  tasks:
    - name: module
      cx5prof.fleet.cx5prof:
        state: "{{ st }}"
        profile: "{{ prof | default(omit) }}"
        binary: "{{ cx5prof_binary }}"
        sysroot: "{{ cx5prof_sysroot }}"
        db: "{{ cx5prof_db }}"
EOI
: >"$W/ansible.cfg"
PLAYBOOK=$TOP/contrib/ansible/playbooks/cx5prof-fleet.yml
n=0
# ap ARGS...: ansible-playbook in the host namespace; JSON report in $J.
ap() {
	n=$((n + 1))
	J=$W/run-$n.json
	ip netns exec "$HOST_NS" env HOME="$W/home" ANSIBLE_CONFIG="$W/ansible.cfg" \
		ANSIBLE_COLLECTIONS_PATH="$W/collections" ANSIBLE_LOCAL_TEMP="$W/tmp" ANSIBLE_REMOTE_TMP="$W/tmp" \
		ANSIBLE_CALLBACK_PLUGINS="$TESTS_DIR/integration/ansible" ANSIBLE_STDOUT_CALLBACK=cx5json ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
		ANSIBLE_DEPRECATION_WARNINGS=0 ansible-playbook -i "$W/inventory.yml" "$@" >"$J" 2>"$W/run-$n.err"
	rc=$?
}
# task NAME JQ-PATH: a field of the host's result of the task called NAME, in
# any play (cx5prof-fleet.yml's first play installs from a package).
task() { jq -cS --arg n "$1" ".plays[].tasks[] | select(.task.name == \$n) | .hosts.labhost | $2" "$J"; }
js() { jq -cS . <<<"$1"; } # JSON with sorted keys, as task prints it
stats() { jq -c '.stats.labhost | {changed, failures, ok, rescued, skipped}' "$J"; }
mtu() { ip -n "$HOST_NS" -o link show dev ens1f0 | sed -E 's/.* mtu ([0-9]+) .*/\1/'; }
txns() { "$CX5PROF" --db "$DB" --json history --limit 0 |
	jq -r '[.history[] | select(.type == "transaction") | "\(.id) \(.kind) \(.status)"] | reverse | join(", ")'; }

# ---- check mode: the plan, its diff, nothing changed
ap "$PLAYBOOK" --check --diff
is "$rc" 0 "check mode: exit 0"
is "$(task 'Apply the profile (on probation until committed)' '{changed, pending_confirm, exit_code, diff}')" \
	"$(js '{"changed":true,"pending_confirm":false,"exit_code":2,"diff":{"before":{"ens1f0":{"mtu":"1500"}},"after":{"ens1f0":{"mtu":"9000"}}}}')" \
	"check mode: changed, with diff.before/after from the plan"
is "$(task 'Verify against this host'"'"'s peer' '.skipped')" true "check mode: verify skipped"
is "$(task 'Keep the change' '{changed, msg}')" "$(js '{"changed":false,"msg":"nothing would be committed (no history yet)"}')" \
	"check mode: commit previews from the history"
is "$(mtu)" 1500 "check mode: the MTU is untouched"
[ ! -e "$DB" ]
ok $? "check mode: no history database was created"

# ---- rolled_back and committed where nothing was ever applied: reached
ap "$W/states.yml" -e st=rolled_back
is "$rc|$(task module '{changed, msg}')" "0|$(js '{"changed":false,"msg":"nothing to roll back (no history yet)"}')" \
	"rolled_back, no history database: nothing to roll back"
ap "$W/states.yml" -e st=committed
is "$rc|$(task module '{changed, msg}')" "0|$(js '{"changed":false,"msg":"nothing to commit (no history yet)"}')" \
	"committed, no history database: nothing to commit"
[ ! -e "$DB" ]
ok $? "rolled_back and committed create no history database"

# ---- first run: applied on probation, verified, committed
ap "$PLAYBOOK"
is "$rc" 0 "first run: exit 0"
is "$(task 'Apply the profile (on probation until committed)' '{changed, pending_confirm, txn, exit_code}')" \
	"$(js '{"changed":true,"pending_confirm":true,"txn":1,"exit_code":0}')" "first run: applied (transaction 1, pending confirm)"
is "$(task 'Apply the profile (on probation until committed)' '.changes | map("\(.object) \(.key) \(.before) -> \(.after)") | join("; ")')" \
	'"ens1f0 mtu 1500 -> 9000"' "first run: the change list"
is "$(task 'Apply the profile (on probation until committed)' '{persistent, boot_unit}')" \
	'{"boot_unit":null,"persistent":false}' "first run: runtime only (a lab sysroot has no service manager)"
is "$(task 'Verify against this host'"'"'s peer' '{changed, result, exit_code, runner, drifts}')" \
	"$(js '{"changed":false,"result":"pass","exit_code":0,"runner":"iperf3","drifts":[]}')" "first run: verify passed"
is "$(task 'Verify against this host'"'"'s peer' '(.throughput_mbps > 0 and .loss_percent <= 100 and (.run_id | type) == "number" and .verify.result == "pass")')" \
	true "first run: verify figures returned (throughput, loss, run id, the document)"
is "$(task 'Keep the change' '{changed, txn}')" "$(js '{"changed":true,"txn":1}')" "first run: committed"
is "$(stats)" '{"changed":2,"failures":0,"ok":4,"rescued":0,"skipped":1}' "first run: recap (the fleet summary's row skipped: no cx5prof_summary_dir)"
is "$(mtu)" 9000 "first run: MTU 9000 in the kernel"
is "$(txns)" "1 apply committed" "first run: history holds the committed transaction"
is "$(sqlite3 "$DB" 'SELECT group_concat(DISTINCT peer) FROM runs')" 198.18.0.2 \
	"first run: verified against the host's peer from the inventory (verify --peer), not the profile's"
wait_until 60 eval '[ -z "$(ip netns pids "$HOST_NS")" ]'
is "$(ip netns pids "$HOST_NS")" "" "first run: the confirm watchdog exited after the commit"

# ---- second run: nothing to change
ap "$PLAYBOOK" --diff
is "$rc" 0 "second run: exit 0"
is "$(task 'Apply the profile (on probation until committed)' '{changed, pending_confirm, msg, diff}')" \
	"$(js '{"changed":false,"pending_confirm":false,"msg":"nothing to change","diff":{"before":{},"after":{}}}')" \
	"second run: unchanged"
is "$(task 'Keep the change' '.skipped')" true "second run: nothing to commit"
is "$(stats)" '{"changed":0,"failures":0,"ok":3,"rescued":0,"skipped":2}' "second run: recap, changed=0"
is "$(txns)" "1 apply committed" "second run: no new transaction"

# ---- the module alone: rolled_back and committed
ap "$W/states.yml" -e st=rolled_back --check
is "$(task module '{changed, txn, msg}')" "$(js '{"changed":true,"txn":1,"msg":"transaction 1 would be rolled back"}')" \
	"rolled_back, check mode: would roll back transaction 1"
is "$(mtu)" 9000 "rolled_back, check mode: nothing changed"
ap "$W/states.yml" -e st=rolled_back
is "$(task module '{changed, txn, msg, changes}')" \
	"$(js '{"changed":true,"txn":1,"msg":"rolled back transaction 1 (recorded as transaction 2)","changes":[{"object":"ens1f0","key":"mtu","before":"9000","after":"1500","state":"applied"}]}')" \
	"rolled_back: transaction 1 undone"
is "$(mtu)" 1500 "rolled_back: MTU back to 1500"
ap "$W/states.yml" -e st=rolled_back
is "$(task module '{changed, msg}')" "$(js '{"changed":false,"msg":"nothing to roll back"}')" "rolled_back again: unchanged"
ap "$W/states.yml" -e st=committed --check
is "$(task module '{changed, msg}')" "$(js '{"changed":false,"msg":"nothing would be committed"}')" "committed, check mode: nothing pending"
ap "$W/states.yml" -e st=applied -e prof="$W/missing.yaml"
is "$rc" 2 "applied with a missing profile: playbook fails"
engine_err=$(ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" --json apply "$W/missing.yaml" 2>&1 >/dev/null |
	sed 's/^cx5prof: error: //' | paste -sd';' | sed 's/;/; /g')
is "$(task module '{failed, exit_code, msg}')" "$(jq -cnS --arg m "$engine_err" '{failed: true, exit_code: 66, msg: $m}')" \
	"applied with a missing profile: failed with the engine's message and exit code"

# ---- a failing verify: the playbook rolls the host back and fails it
ap "$PLAYBOOK" -e cx5prof_profile="$W/lab-udp-floor.yaml"
is "$rc" 2 "failing verify: playbook exit 2"
is "$(task 'Apply the profile (on probation until committed)' '{changed, txn}')" "$(js '{"changed":true,"txn":3}')" \
	"failing verify: applied (transaction 3)"
is "$(task 'Verify against this host'"'"'s peer' '{failed, result, exit_code}')" "$(js '{"failed":true,"result":"fail","exit_code":4}')" \
	"failing verify: verify failed (exit 4)"
is "$(task 'Verify against this host'"'"'s peer' '.msg | test("^receive throughput below >= 900000.0 Mbps \\(measured [0-9.]+\\)$")')" \
	true "failing verify: the message names the threshold and the figure"
is "$(task 'Verify against this host'"'"'s peer' '(.throughput_mbps > 0 and (.thresholds | map(.status) == ["fail", "pass"]))')" \
	true "failing verify: figures returned with the failure"
is "$(task 'Roll back what this play applied' '{changed, txn}')" "$(js '{"changed":true,"txn":3}')" \
	"failing verify: transaction 3 rolled back"
is "$(task 'Mark the host failed' '.msg | sub("measured [0-9.]+"; "measured N")')" \
	'"labhost failed (receive throughput below >= 900000.0 Mbps (measured N)); rolled back transaction 3"' \
	"failing verify: the host is marked failed, saying why"
is "$(stats)" '{"changed":2,"failures":1,"ok":2,"rescued":1,"skipped":1}' "failing verify: recap"
is "$(mtu)" 1500 "failing verify: MTU back to 1500"
is "$(txns)" "1 apply rolled_back, 2 rollback committed, 3 apply rolled_back, 4 rollback committed" \
	"failing verify: history"

# ---- the verify runs, as node_exporter would collect them
"$CX5PROF" --db "$DB" history --format prometheus >"$W/cx5prof.prom"
/usr/bin/python3 "$TESTS_DIR/integration/prom-check.py" "$W/cx5prof.prom" >/dev/null
ok $? "history --format prometheus after real runs: valid exposition text"
is "$(grep '^cx5prof_run_passed' "$W/cx5prof.prom")" 'cx5prof_run_passed{interface="ens1f0",profile="lab-udp"} 1
cx5prof_run_passed{interface="ens1f0",profile="lab-udp-floor"} 0' "prometheus: pass/fail per interface/profile"

# ---- rolled_back in check mode names what the real run rolls back: the
# newest apply still in effect, not the newest apply (rolled back already).
cxh() { ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" "$@" >/dev/null 2>&1; }
sed -e 's/^  mtu: 9000$/  mtu: 8000/' -e 's/^name: lab-udp$/name: lab-udp-8000/' "$W/lab-udp.yaml" >"$W/lab-udp-8000.yaml"
cxh apply "$W/lab-udp.yaml" && cxh apply "$W/lab-udp-8000.yaml" && cxh rollback
is "$(mtu):$(txns | sed 's/^.*, 5 /5 /')" "9000:5 apply committed, 6 apply rolled_back, 7 rollback committed" \
	"transaction 5 in effect, the newer 6 rolled back"
ap "$W/states.yml" -e st=rolled_back --check
is "$(task module '{changed, txn, msg}')" "$(js '{"changed":true,"txn":5,"msg":"transaction 5 would be rolled back"}')" \
	"rolled_back, check mode: transaction 5 would be rolled back (it said nothing would)"
ap "$W/states.yml" -e st=rolled_back
is "$(task module '{changed, txn}'):$(mtu)" "$(js '{"changed":true,"txn":5}'):1500" "rolled_back: the real run rolls back transaction 5"

# ---- no history database on the host: rolled_back and committed are no-ops
ap "$W/states.yml" -e st=rolled_back -e cx5prof_db="$W/none.db"
is "$rc:$(task module '{changed, msg}')" "0:$(js '{"changed":false,"msg":"nothing to roll back (no history yet)"}')" \
	"rolled_back without a history database: unchanged, not failed"
ap "$W/states.yml" -e st=committed -e cx5prof_db="$W/none.db"
is "$rc:$(task module '{changed, msg}')" "0:$(js '{"changed":false,"msg":"nothing to commit (no history yet)"}')" \
	"committed without a history database: unchanged, not failed"
[ ! -e "$W/none.db" ]
ok $? "no history database was created"
done_testing
