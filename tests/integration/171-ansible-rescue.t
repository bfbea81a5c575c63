#!/usr/bin/env bash
# 171-ansible-rescue.t: the fleet playbook's rescue and its summary row
# when a step fails and may have left changes, with real ansible-playbook
# against the lab's host namespace (connection local, as 81-ansible.t).
# cx5prof_binary is a wrapper that runs the real binary, logs each verb,
# and on request sets a failpoint for apply (CX5PROF_FAILPOINT) or makes
# net.core.rmem_max unwritable (a directory) before a rollback.
#
#   apply exits 7 (a write failed, its undo too): the rescue rolls the
#   transaction back; the row says changed no, exit 6 (the host is as
#   before), and why. Apply exits 6: the rescue's rollback finds it undone
#   already. Apply passes, verify fails and the rescue's rollback
#   exits 7: the row says changed yes, exit 7 and what is left. The next
#   apply is refused (exit 9, the open transaction): the rescue rolls
#   nothing back (that transaction is not this play's).
. "$(dirname "$0")/lib.sh"
need_root_netns
need_tool ansible-playbook "contrib/install-deps.sh installs ansible-core"
need_tool iperf3
need_tool jq

export CX5LAB_PREFIX=cx5t-resc-$$
HOST_NS=$CX5LAB_PREFIX-host
PEER_NS=$CX5LAB_PREFIX-peer
LAB=$TOP/contrib/lab/lab.sh
W=$(mktemp -d /tmp/cx5t-rescue.XXXXXX)
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
ip -n "$PEER_NS" link set dev peer0 mtu 9000
timeout -k 1 900 ip netns exec "$PEER_NS" iperf3 -s -B 198.18.0.2 >/dev/null 2>&1 &
SRV=$!

# lab-udp plus a sysctl (two steps: rmem_max, then the MTU), with a floor
# any machine meets and one none does.
sed -e 's/throughput_mbps: 100$/throughput_mbps: 1/' -e 's/loss_percent: 90$/loss_percent: 100/' \
	-e 's/^  duration: 2$/  duration: 1/' -e 's/^link:$/sysctl:\n  net.core.rmem_max: ">= 4M"\nlink:/' \
	"$TOP/profiles/lab-udp.yaml" >"$W/lab-udp.yaml"
sed -e 's/^name: lab-udp$/name: lab-udp-floor/' -e 's/throughput_mbps: 1$/throughput_mbps: 900000/' \
	"$W/lab-udp.yaml" >"$W/lab-udp-floor.yaml"
grep -q 'rmem_max: ">= 4M"' "$W/lab-udp.yaml" && grep -q 'throughput_mbps: 900000' "$W/lab-udp-floor.yaml" ||
	{ echo "Bail out! could not make the profiles"; exit 1; }

cat >"$W/cx5prof" <<EOS
#!/bin/sh
verb=
for a in "\$@"; do case \$a in apply|rollback|verify|commit|plan|export|history) verb=\$a; break ;; esac; done
echo "\$verb" >>"$W/verbs.log"
if [ "\$verb" = apply ] && [ -e "$W/fail-apply" ]; then CX5PROF_FAILPOINT=\$(cat "$W/fail-apply"); export CX5PROF_FAILPOINT; fi
if [ "\$verb" = rollback ] && [ -e "$W/fail-rollback" ]; then rm -f "$SR/proc/sys/net/core/rmem_max" && mkdir -p "$SR/proc/sys/net/core/rmem_max"; fi
exec "$CX5PROF" "\$@"
EOS
chmod +x "$W/cx5prof"

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
          cx5prof_binary: $W/cx5prof
          cx5prof_sysroot: $SR
          cx5prof_db: $DB
          cx5prof_profile: $W/lab-udp.yaml
          cx5prof_peer: 198.18.0.2
EOI
: >"$W/ansible.cfg"
PLAYBOOK=$TOP/contrib/ansible/playbooks/cx5prof-fleet.yml
n=0
ap() {
	n=$((n + 1))
	J=$W/run-$n.json S=$W/summary-$n
	: >"$W/verbs.log"
	ip netns exec "$HOST_NS" env HOME="$W/home" ANSIBLE_CONFIG="$W/ansible.cfg" \
		ANSIBLE_COLLECTIONS_PATH="$W/collections" ANSIBLE_LOCAL_TEMP="$W/tmp" ANSIBLE_REMOTE_TMP="$W/tmp" \
		ANSIBLE_CALLBACK_PLUGINS="$TESTS_DIR/integration/ansible" ANSIBLE_STDOUT_CALLBACK=cx5json ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
		ANSIBLE_DEPRECATION_WARNINGS=0 timeout -k 5 240 ansible-playbook -i "$W/inventory.yml" "$PLAYBOOK" \
		-e cx5prof_summary_dir="$S" "$@" >"$J" 2>"$W/run-$n.err"
	rc=$?
}
# task NAME JQ-PATH: a field of the host's result of the task called NAME, in any
# play (cx5prof-fleet.yml's first play installs from a package).
task() { jq -cS --arg n "$1" ".plays[].tasks[] | select(.task.name == \$n) | .hosts.labhost | $2" "$J"; }
row() { jq -c '{changed, exit_code, transaction}' "$S/labhost/host.json"; }
reason() { jq -r .reason "$S/labhost/host.json" | sed -E 's/measured [0-9.]+/measured N/'; }
mtu() { ip -n "$HOST_NS" -o link show dev ens1f0 | sed -E 's/.* mtu ([0-9]+) .*/\1/'; }
rmem() { cat "$SR/proc/sys/net/core/rmem_max" 2>/dev/null || echo unreadable; }
txns() { sqlite3 "$DB" "SELECT group_concat(id || ' ' || kind || ' ' || status, ', ') FROM transactions"; }
verbs() { paste -sd' ' "$W/verbs.log"; }

# ---- apply exits 7: step 2 (the MTU) fails, and undoing step 1 too
echo apply-step:2,undo-step:1 >"$W/fail-apply"
ap
rm "$W/fail-apply"
is "$rc" 2 "apply exit 7: the playbook fails the host"
is "$(task 'Apply the profile (on probation until committed)' '{exit_code, changed, txn}')" '{"changed":true,"exit_code":7,"txn":1}' \
	"apply exit 7: the module says the host is changed (a change is left)"
is "$(task 'Roll back what this play applied' '{changed, txn}')" '{"changed":true,"txn":1}' \
	"apply exit 7: the rescue rolls transaction 1 back"
is "$(mtu) $(rmem) | $(txns)" "1500 212992 | 1 apply rolled_back, 2 rollback committed" "apply exit 7: the host is as before"
is "$(row)" '{"changed":false,"exit_code":6,"transaction":1}' "apply exit 7, rolled back: the row says unchanged, exit 6"
is "$(reason)" "apply failed at step 2: ens1f0 mtu 1500 -> 9000: read back differs or write failed (EIO); NOT restored: sysctl net.core.rmem_max 4194304 -> 212992: read back differs or write failed (EIO); the host is NOT fully restored (transaction 1): fix the above, then run \`cx5prof rollback 1\`; rolled back transaction 1" \
	"apply exit 7, rolled back: the row's reason is the engine's, and the rescue's rollback"

# ---- apply exits 6 (step 2 fails, step 1 undone): the rescue's rollback
# finds nothing left to undo
echo apply-step:2 >"$W/fail-apply"
ap
rm "$W/fail-apply"
is "$(task 'Apply the profile (on probation until committed)' '{exit_code, changed, txn}')" '{"changed":false,"exit_code":6,"txn":3}' \
	"apply exit 6: not changed"
is "$(task 'Roll back what this play applied' '{changed, msg}')" '{"changed":false,"msg":"nothing to roll back"}' \
	"apply exit 6: the rescue's rollback of transaction 3 finds it undone already"
is "$(mtu) $(rmem) | $(txns)" "1500 212992 | 1 apply rolled_back, 2 rollback committed, 3 apply rolled_back" \
	"apply exit 6: the host as before, no rollback transaction recorded"
is "$(row)" '{"changed":false,"exit_code":6,"transaction":3}' "apply exit 6: the row says unchanged, exit 6"
is "$(task 'Mark the host failed' '.msg')" \
	'"labhost failed (apply failed at step 2: ens1f0 mtu 1500 -> 9000: read back differs or write failed (EIO); every change was undone: the host is back as it was (transaction 3 rolled back)); nothing to roll back"' \
	"apply exit 6: the host is marked failed with the engine's words"

# ---- apply passes, verify fails, the rescue's rollback exits 7
touch "$W/fail-rollback"
ap -e cx5prof_profile="$W/lab-udp-floor.yaml"
rm "$W/fail-rollback"
is "$rc" 2 "verify fails: the playbook fails the host"
is "$(task 'Roll back what this play applied' '{failed, exit_code, txn}')" '{"exit_code":7,"failed":true,"txn":4}' \
	"verify fails: the rescue's rollback exits 7"
is "$(mtu) $(rmem)" "1500 unreadable" "verify fails: the MTU restored, rmem_max left (unwritable)"
is "$(row)" '{"changed":true,"exit_code":7,"transaction":4}' "failed rollback: the row says changed, exit 7"
is "$(reason)" "receive throughput below >= 900000.0 Mbps (measured N); rollback of transaction 4 failed: NOT restored: sysctl net.core.rmem_max 4194304 -> 212992: Is a directory; rollback of transaction 4 is incomplete: the host is NOT as before" \
	"failed rollback: the row says what is left"
is "$(task 'Mark the host failed' '.msg | sub("measured [0-9.]+"; "measured N")')" \
	'"labhost failed (receive throughput below >= 900000.0 Mbps (measured N)); rollback of transaction 4 FAILED, the host is NOT as before: NOT restored: sysctl net.core.rmem_max 4194304 -> 212992: Is a directory; rollback of transaction 4 is incomplete: the host is NOT as before"' \
	"failed rollback: the host is marked failed, saying so"

# ---- the next apply is refused (exit 9): nothing of it to roll back
before=$(txns)
ap
is "$(task 'Apply the profile (on probation until committed)' '{exit_code, changed}')" '{"changed":false,"exit_code":9}' \
	"open transaction: apply refused (exit 9)"
is "$(task 'Roll back what this play applied' '.skipped')" true "exit 9: the rescue rolls nothing back"
is "$(verbs)" "apply" "exit 9: no rollback was run"
is "$(txns)" "$before" "exit 9: the history as it was (the open transaction left to its owner)"
is "$(row)" '{"changed":false,"exit_code":9,"transaction":null}' "exit 9: the row says unchanged, exit 9"
done_testing
