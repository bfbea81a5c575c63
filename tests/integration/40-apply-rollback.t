#!/usr/bin/env bash
# 40-apply-rollback.t: plan, apply --check, apply, idempotent re-apply,
# rollback, in the lab: veths in namespaces + a private copy of the cx5-2port
# sysroot. After the rollback, `show --json` and every sysroot file are as
# before.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 40

P=$WORK/profiles/udp-jumbo.yaml

# ---- plan
run cx plan "$P"
is "$rc" 2 "plan: exit 2 (changes pending)"
is "$(printf '%s\n' "$out" | head -n 5)" "sysctl  net.core.rmem_max  212992 -> 4194304
sysctl  net.core.wmem_max  212992 -> 4194304
ens1f0  mtu  1500 -> 9000
ens1f1  mtu  1500 -> 9000
irq ens1f0 q0  smp_affinity_list 99  0 -> 8" "plan: one line per change, in apply order"
is "$(printf '%s\n' "$out" | tail -n 1)" "66 changes pending" \
	"plan: every difference (2 sysctls, 2 MTUs, 32 IRQs, 30 XPS masks that follow them)"
is "$(printf '%s\n' "$err" | head -n 1)" \
	"cx5prof: warning: irqbalance is running and left alone: it may overwrite the IRQ pins" \
	"plan: warns that irqbalance may overwrite the pins"

run cx --json plan "$P"
is "$rc" 2 "plan --json: exit 2"
is "$(printf '%s' "$out" | jq -c '[.changed, (.changes|length), (.diff.before.ens1f0|{mtu}), (.diff.after.ens1f0|{mtu}), .msg]')" \
	'[true,66,{"mtu":"1500"},{"mtu":"9000"},"66 changes pending"]' "plan --json: changed, changes, diff before/after, msg"
is "$(printf '%s' "$out" | jq -c '.changes[2]')" \
	'{"object":"ens1f0","kind":"mtu","key":"mtu","before":"1500","after":"9000","resets_link":false,"note":null}' \
	"plan --json: a change object"
if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	printf '%s' "$out" >"$WORK/plan.json"
	/usr/bin/python3 - "$TOP/schemas/plan.schema.json" "$WORK/plan.json" <<'EOF'
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
EOF
	ok $? "plan --json validates against schemas/plan.schema.json"
else
	skip 1 "plan --json against its schema: needs python3-jsonschema (contrib/install-deps.sh)"
fi

# ---- apply --check changes nothing
run cx apply --check "$P"
is "$rc" 2 "apply --check: exit 2 like plan"
is "$(printf '%s\n' "$out" | tail -n 1)" "changes pending (--check: nothing was changed)" "apply --check says so"
host_as_before
ok $? "apply --check: host unchanged"

# ---- apply
run cx apply "$P"
is "$rc" 0 "apply: exit 0"
is "$(printf '%s\n' "$out" | tail -n 1)" "applied 66 changes (transaction 1)" "apply: summary line"
is "$(mtu_of ens1f0) $(mtu_of ens1f1)" "9000 9000" "apply: both MTUs are 9000 in the kernel"
is "$(cat "$SR/proc/irq/99/smp_affinity_list") $(cat "$SR/proc/irq/146/smp_affinity_list")" "8 31" \
	"apply: IRQ affinity written under the sysroot"
is "$(cat "$SR/proc/sys/net/core/rmem_max" "$SR/proc/sys/net/core/wmem_max" | tr '\n' ' ')" "4194304 4194304 " \
	"apply: sysctl floors raised"
is "$(txn_status 1)" committed "history: transaction 1 committed"
is "$(sqlite3 "$DB" "SELECT count(*), min(state), max(state) FROM changes WHERE txn = 1")" "66|applied|applied" \
	"history: 66 changes recorded applied, with their old values"
is "$(sqlite3 "$DB" "SELECT old_value || ' ' || new_value FROM changes WHERE txn = 1 AND key = 'mtu' LIMIT 1")" \
	"1500 9000" "history: the undo log holds the old MTU"

# ---- idempotent
run cx apply "$P"
is "$rc" 0 "second apply: exit 0"
is "$(printf '%s\n' "$out")" "nothing to change" "second apply: says nothing to change"
run cx --json apply "$P"
is "$(printf '%s' "$out" | jq -c '[.changed, (.changes|length), .msg]')" '[false,0,"nothing to change"]' \
	"second apply --json: changed false"
run cx plan "$P"
is "$rc" 0 "plan after apply: exit 0"
is "$(txn_count)" 1 "no transaction recorded for a no-op apply"

# ---- rollback
run cx rollback
is "$rc" 0 "rollback: exit 0"
is "$(printf '%s\n' "$out" | head -n 1)" "ens1f1  xps tx-14  29 -> 30  applied" \
	"rollback: undoes in reverse order"
is "$(printf '%s\n' "$out" | tail -n 1)" "rolled back transaction 1 (recorded as transaction 2)" "rollback: summary"
host_as_before
ok $? "after rollback: show --json, link MTUs and sysroot files are as before"
is "$(txn_status 1) $(txn_status 2)" "rolled_back committed" "history: apply rolled back, rollback recorded"
is "$(sqlite3 "$DB" "SELECT kind, rolls_back_txn FROM transactions WHERE id = 2")" "rollback|1" \
	"history: the rollback is itself a transaction"

run cx rollback
is "$rc:$out" "0:nothing to roll back" "a second rollback: nothing to roll back, exit 0"

# ---- rollback of an older transaction is refused when a later one touched the same keys
sed 's/^name: .*/name: mtu-4000/; s/^  mtu: .*/  mtu: 4000/' "$WORK/profiles/mtu-jumbo.yaml" >"$WORK/profiles/mtu-4000.yaml"
run cx apply "$WORK/profiles/mtu-jumbo.yaml"
is "$rc" 0 "apply mtu-jumbo (txn 3)"
run cx apply "$WORK/profiles/mtu-4000.yaml"
is "$rc:$(mtu_of ens1f0)" "0:4000" "apply mtu-4000 on top (txn 4)"
run cx rollback 3
is "$rc" 1 "rollback 3: refused"
is "$err" "cx5prof: error: rollback: transaction 4 changed the same settings later: roll it back first, or use --force to roll back the later ones first, then transaction 3" \
	"rollback 3: says why and what to do"
is "$(mtu_of ens1f0)" 4000 "rollback 3 refused: nothing changed"
run cx rollback
is "$rc:$(mtu_of ens1f0)" "0:9000" "rollback (the last: 4) restores 9000"
run cx rollback
is "$rc" 0 "rollback (then 3)"
host_as_before
ok $? "after rolling back both: host as before"

# --force: transactions are a stack: 8 (on top of 7) is rolled back
# first, then 7, so the host ends as before both (not at what 8 found, a
# state nobody applied), and each printed "from" is the live value.
run cx apply "$WORK/profiles/mtu-jumbo.yaml"
run cx apply "$WORK/profiles/mtu-4000.yaml"
run cx rollback --force 7
is "$rc:$(mtu_of ens1f0)" "0:1500" "rollback --force 7: as before 7"
printf '%s\n' "$err" | grep -q "rolling back transaction 8 first: it changed the same settings later"
ok $? "rollback --force 7: says it rolls back 8 first"
is "$(printf '%s\n' "$out" | grep '^ens1f0')" "ens1f0  mtu  9000 -> 1500  applied" \
	"rollback --force 7: from the live value (9000, left by rolling back 8) to 7's old one"
is "$(sqlite3 "$DB" "SELECT status FROM transactions WHERE id IN (7, 8) ORDER BY id" | tr '\n' ' ')" \
	"rolled_back rolled_back " "rollback --force 7: both 8 and 7 rolled back"
run cx rollback
is "$rc:$out:$(mtu_of ens1f0)" "0:nothing to roll back:1500" "then nothing is left to roll back"
run cx rollback 99
is "$rc:$err" "66:cx5prof: error: rollback: no transaction 99 in $DB" "rollback of an unknown transaction: exit 66"

# ---- a failed rollback is settled by the rollback that succeeds after it
# (review finding: it stayed rollback_failed, every apply refused with exit 9,
# and the advised `cx5prof rollback` rolled back an unrelated transaction).
printf 'version: 1\nname: a\nsysctl:\n  net.core.rmem_max: ">= 4M"\n' >"$WORK/profiles/a.yaml"
printf 'version: 1\nname: b\nsysctl:\n  net.core.wmem_max: ">= 4M"\n' >"$WORK/profiles/b.yaml"
sysctls() { cat "$SR/proc/sys/net/core/rmem_max" "$SR/proc/sys/net/core/wmem_max" | tr '\n' ' '; }
last_id() { sqlite3 "$DB" "SELECT max(id) FROM transactions"; }
run cx apply "$WORK/profiles/a.yaml"
t1=$(last_id)
is "$rc:$(printf '%s\n' "$out" | tail -n 1)" "0:applied 1 change (transaction $t1)" "apply a (rmem_max)"
run cx apply "$WORK/profiles/b.yaml"
t2=$(last_id)
is "$rc:$(printf '%s\n' "$out" | tail -n 1)" "0:applied 1 change (transaction $t2)" "apply b (wmem_max)"
WM=$SR/proc/sys/net/core/wmem_max
rm "$WM" && mkdir "$WM"
run cx rollback
t3=$(last_id)
is "$rc" 7 "rollback of b with wmem_max unwritable: exit 7"
is "$(printf '%s\n' "$err" | tail -n 1)" \
	"cx5prof: error: rollback of transaction $t2 is incomplete: the host is NOT as before" "and says so"
is "$(txn_status "$t2") $(txn_status "$t3")" "rollback_failed rollback_failed" "history: b and its rollback failed"
run cx apply "$WORK/profiles/b.yaml"
is "$rc:$err" "9:cx5prof: error: transaction $t3 (rollback of transaction $t2) failed: the host is NOT as before: fix the cause reported then, and run \`cx5prof rollback\` to finish it" \
	"apply refuses (exit 9): the failed rollback is named as failed, not interrupted"
rmdir "$WM" && printf '4194304\n' >"$WM"
run cx rollback
t4=$(last_id)
is "$rc:$(printf '%s\n' "$out" | tail -n 1)" "0:rolled back transaction $t2 (recorded as transaction $t4)" \
	"rollback after the fix: rolls back b again, exit 0"
is "$(sysctls)" "4194304 212992 " "b undone, a's rmem_max untouched"
is "$(sqlite3 "$DB" "SELECT status || ': ' || error FROM transactions WHERE id = $t3")" \
	"failed: superseded by rollback $t4" "history: the failed rollback is superseded"
is "$(txn_status "$t1") $(txn_status "$t2") $(txn_status "$t4")" "committed rolled_back committed" \
	"history: a committed, b rolled back, the rollback committed"
run cx apply "$WORK/profiles/b.yaml"
t5=$(last_id)
is "$rc:$(printf '%s\n' "$out" | tail -n 1)" "0:applied 1 change (transaction $t5)" "apply b works again (no exit 9)"
is "$(sysctls)" "4194304 4194304 " "a and b applied"

# `rollback` without TXN finishes the unfinished rollback's target, even
# when a newer apply exists.
RM=$SR/proc/sys/net/core/rmem_max
rm "$RM" && mkdir "$RM"
run cx rollback "$t1"
t6=$(last_id)
is "$rc" 7 "rollback $t1 with rmem_max unwritable: exit 7"
rmdir "$RM" && printf '4194304\n' >"$RM"
run cx rollback
is "$rc:$(printf '%s\n' "$out" | tail -n 1)" "0:rolled back transaction $t1 (recorded as transaction $((t6 + 1)))" \
	"rollback: targets the failed rollback's transaction ($t1), not the newest apply ($t5)"
is "$(sysctls)" "212992 4194304 " "a undone, b untouched"
is "$(txn_status "$t5") $(txn_status "$t6")" "committed failed" "history: b still committed, the failed rollback superseded"

done_testing
