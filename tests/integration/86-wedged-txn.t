#!/usr/bin/env bash
# 86-wedged-txn.t: a step that could not reach its file (removed, or a
# path out of the sysroot) never wrote: apply reports it exactly and undoes
# the steps before it (exit 6, not "NOT restored", exit 7). A transaction
# that can never be restored (an IRQ gone after the apply, as a driver
# reload does) has a documented way out after reading what is left:
# `rollback --abandon TXN --reason TEXT`, recorded with who and why.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 86
txn_short_profile 3
P=$WORK/profiles/one-port.yaml
irqs=$(cx plan "$P" 2>/dev/null | sed -n 's/^irq .*smp_affinity_list \([0-9]*\) .*/\1/p')
first=$(printf '%s\n' "$irqs" | head -n 1)
last=$(printf '%s\n' "$irqs" | tail -n 1)

# ---- the last IRQ's affinity file is gone: step 6 never wrote
mv "$SR/proc/irq/$last/smp_affinity_list" "$WORK/saved_list"
run cx apply "$P"
is "$rc" 6 "a removed affinity file: exit 6 (rolled back), not 7"
is "$(printf '%s\n' "$err" | grep error:)" "cx5prof: error: apply failed at step 6: irq ens1f0 q2 smp_affinity_list $last 0 -> 10: No such file or directory
cx5prof: error: every change was undone: the host is back as it was (transaction 1 rolled back)" \
	"says which step could not be written, and that the rest was undone"
mv "$WORK/saved_list" "$SR/proc/irq/$last/smp_affinity_list"
host_as_before
ok $? "host exactly as before"
is "$(txn_status 1):$(sqlite3 "$DB" "SELECT group_concat(state, ' ') FROM changes WHERE txn = 1")" \
	"rolled_back:undone undone undone undone undone failed" "history: rolled_back, steps 1-5 undone, step 6 failed"

# ---- the IRQ's directory a symlink out of the sysroot: never followed
mv "$SR/proc/irq/$first" "$WORK/irq-outside"
ln -s "$WORK/irq-outside" "$SR/proc/irq/$first"
cp -a "$WORK/irq-outside" "$WORK/irq-outside-before"
run cx apply "$P"
is "$rc:$(printf '%s\n' "$err" | grep error:)" \
	"1:cx5prof: error: irq: cannot discover the IRQs: Invalid cross-device link: check /proc/interrupts and the sysroot" \
	"proc/irq/$first out of the sysroot: refused before any change (exit 1), names EXDEV"
is "$(txn_count)" 1 "no transaction was started"
diff -r "$WORK/irq-outside-before" "$WORK/irq-outside" >/dev/null
ok $? "the file outside the sysroot is neither read into the plan nor written"
rm "$SR/proc/irq/$first"
mv "$WORK/irq-outside" "$SR/proc/irq/$first"
host_as_before
ok $? "host exactly as before"
run cx apply "$P"
is "$rc" 0 "apply with the sysroot repaired"

# ---- an IRQ gone after the apply (driver reload): rollback cannot restore it
id=$(sqlite3 "$DB" "SELECT max(id) FROM transactions")
mv "$SR/proc/irq/$last" "$WORK/irq-gone"
run cx rollback
is "$rc" 7 "rollback with an IRQ gone: exit 7"
printf '%s\n' "$err" | grep -q "^cx5prof: error: NOT restored: irq ens1f0 q2 smp_affinity_list $last 10 -> 0: "
ok $? "names the change left"
run cx apply "$P"
is "$rc" 9 "apply refuses while it is unfinished"
run cx rollback --force
is "$rc" 7 "rollback --force cannot restore it either"

# ---- the way out
run cx rollback --abandon "$id"
is "$rc:$err" "64:cx5prof: error: rollback --abandon: expected one TXN and --reason TEXT (and no --force)" \
	"--abandon needs a reason"
run cx rollback --reason x
is "$rc" 64 "--reason without --abandon: usage error"
run cx rollback --abandon 1 --reason "wrong one"
is "$rc:$err" "1:cx5prof: error: rollback --abandon: transaction 1 is rolled_back, not unfinished: there is nothing to abandon" \
	"a finished transaction cannot be abandoned"
before_abandon=$(cat "$SR/proc/irq/$first/smp_affinity_list")
run env SUDO_USER=alice ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
	rollback --abandon "$id" --reason "mlx5 reloaded: IRQ $last is gone"
is "$rc" 0 "rollback --abandon: exit 0"
aid=$(sqlite3 "$DB" "SELECT max(id) FROM transactions")
is "$out" "left  irq ens1f0 q2  smp_affinity_list $last  10 (recorded old value 0)
abandoned transaction $id (recorded as transaction $aid): nothing was written; 1 change is left as it is on the host" \
	"says what is left, and that nothing was written"
is "$(cat "$SR/proc/irq/$first/smp_affinity_list")" "$before_abandon" "nothing written by --abandon"
is "$(sqlite3 "$DB" "SELECT status || '|' || error FROM transactions WHERE id = $id")" \
	"failed|abandoned by alice (\`cx5prof rollback --abandon\`, transaction $aid): mlx5 reloaded: IRQ $last is gone" \
	"history: the target is failed, with who and why"
is "$(sqlite3 "$DB" "SELECT kind || '|' || status || '|' || user || '|' || rolls_back_txn || '|' || error FROM transactions WHERE id = $aid")" \
	"rollback|failed|alice|$id|abandoned transaction $id: abandoned by alice (\`cx5prof rollback --abandon\`, transaction $aid): mlx5 reloaded: IRQ $last is gone" \
	"history: the abandon is a recorded transaction, by alice"
is "$(sqlite3 "$DB" "SELECT count(*) FROM transactions WHERE status IN ('open','rollback_failed','pending_confirm')")" 0 \
	"no transaction is left unfinished (the failed rollbacks are superseded)"
is "$(sqlite3 "$DB" "SELECT state || '|' || error FROM changes WHERE txn = $aid")" \
	"failed|abandoned: left as it is on the host, not restored" "history: the change left, recorded as such"
mv "$WORK/irq-gone" "$SR/proc/irq/$last"
run cx --json rollback --abandon "$id" --reason again
is "$rc:$(printf '%s' "$out" | jq -c '[.changed, .failed]')" "1:[false,true]" "--json: abandoning it again is refused"
run cx rollback
is "$rc:$out" "0:nothing to roll back" "rollback afterwards: the abandoned transaction is closed"

# ---- --json: the same way out, as one document of the plan schema
# (a fresh host and history: the abandoned changes above are still on it)
rm -f "/run/lock/cx5prof-host-$(stat -c '%d-%i' "$SR").lock"
rm -rf "$SR" "$DB" "$DB-wal" "$DB-shm"
cp -a "$PRISTINE" "$SR"
ip -n "$HOST_NS" link set ens1f0 mtu 1500
run cx apply "$P"
is "$rc" 0 "another apply"
id=$(sqlite3 "$DB" "SELECT max(id) FROM transactions WHERE kind = 'apply'")
mv "$SR/proc/irq/$last" "$WORK/irq-gone"
cx rollback >/dev/null 2>&1
ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" --json rollback --abandon "$id" --reason "gone" \
	>"$WORK/abandon.json"
is "$?:$(jq -c '[.abandoned, .changed, .txn, (.changes | length), .changes[0].state]' "$WORK/abandon.json")" \
	"0:[true,false,$id,1,\"failed\"]" "--json: abandoned, nothing changed, the change left"
run /usr/bin/python3 "$TESTS_DIR/helpers/validate_json.py" "$TOP/schemas/plan.schema.json" "$WORK/abandon.json"
is "$rc:$out" "0:1 documents valid" "--json: valid against schemas/plan.schema.json"
mv "$WORK/irq-gone" "$SR/proc/irq/$last"
cx rollback >/dev/null 2>&1
run cx apply "$P"
is "$rc" 0 "apply is allowed again"
is "$(mtu_of ens1f0)" 9000 "and the host is as the profile says"

done_testing
