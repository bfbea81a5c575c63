#!/usr/bin/env bash
# 41-fault-injection.t: a write that fails at step k of the apply, for every
# k: every change already made is undone in reverse, the host is exactly as
# before (show --json, kernel MTUs, sysroot files), exit 6 says so, and the
# history records the transaction rolled back. Then an undo that fails too:
# exit 7, what is left is named, the next apply refuses, rollback repairs.
# Failpoints: CX5PROF_FAILPOINT (engine/apply.h).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 41
txn_short_profile 3

P=$WORK/profiles/one-port.yaml
run cx plan "$P"
is "$rc" 2 "plan: changes pending"
n=$(printf '%s\n' "$out" | grep -c ' -> ')
is "$n" 6 "one port: 6 steps (2 sysctls, 1 MTU, 3 IRQs)"
step_line() { printf '%s\n' "$out" | grep ' -> ' | sed -n "${1}p"; }
plan_out=$out

for ((k = 1; k <= n; k++)); do
	line=$(out=$plan_out step_line "$k")
	read -r -a w <<<"$line"
	run env CX5PROF_FAILPOINT=apply-step:$k ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P"
	is "$rc" 6 "failure at step $k: exit 6 (rolled back)"
	first=$(printf '%s\n' "$err" | grep 'apply failed' | head -n 1)
	case $first in
	"cx5prof: error: apply failed at step $k: "*"read back differs or write failed (EIO)") ok 0 "step $k: names the failed step ($line)" ;;
	*) ok 1 "step $k: names the failed step"; diag "$err" ;;
	esac
	printf '%s\n' "$err" | grep -qx "cx5prof: error: every change was undone: the host is back as it was (transaction $k rolled back)"
	ok $? "step $k: says the host is back as it was"
	host_as_before
	ok $? "step $k: host exactly as before"
	is "$(txn_status "$k")" rolled_back "step $k: history: rolled_back"
	is "$(sqlite3 "$DB" "SELECT group_concat(state, ' ') FROM (SELECT state FROM changes WHERE txn = $k AND seq <= $k ORDER BY seq)")" \
		"$(for ((j = 1; j < k; j++)); do printf 'undone '; done)failed" "step $k: steps before k undone, step k failed"
done

# --json after a failed apply that undid everything: nothing changed.
t=$((n + 1))
run env CX5PROF_FAILPOINT=apply-step:1 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" --json apply "$P"
is "$rc:$(printf '%s' "$out" | jq -c '[.changed, .failed, .txn, .msg]')" \
	"6:[false,true,$t,\"every change was undone: the host is back as it was (transaction $t rolled back)\"]" \
	"--json, failure at step 1, all undone: exit 6, changed false"
host_as_before
ok $? "--json failure: host as before"

# An undo that fails as well: step 3 fails, undoing step 1 fails.
run env CX5PROF_FAILPOINT=apply-step:3,undo-step:1 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P"
t=$((n + 2))
is "$rc" 7 "failing undo: exit 7"
printf '%s\n' "$err" | grep -qx "cx5prof: error: NOT restored: sysctl net.core.rmem_max 4194304 -> 212992: read back differs or write failed (EIO)"
ok $? "failing undo: names exactly what is left"
printf '%s\n' "$err" | grep -qx "cx5prof: error: the host is NOT fully restored (transaction $t): fix the above, then run \`cx5prof rollback $t\`"
ok $? "failing undo: says what to do"
is "$(cat "$SR/proc/sys/net/core/rmem_max") $(cat "$SR/proc/sys/net/core/wmem_max")" "4194304 212992" \
	"failing undo: step 1 left applied, step 2 undone"
is "$(txn_status $t)" rollback_failed "history: rollback_failed"
run cx apply "$P"
is "$rc" 9 "the next apply refuses (exit 9)"
is "$err" "cx5prof: error: transaction $t (apply udp-jumbo) could not be fully undone: fix the cause reported then, and run \`cx5prof rollback $t\`" \
	"the next apply says why"
# commit is for a --confirm apply only: never for a transaction left half undone.
run cx commit
is "$rc:$err" "9:cx5prof: error: transaction $t (apply udp-jumbo) could not be fully undone: fix the cause reported then, and run \`cx5prof rollback $t\`" \
	"commit refuses it (exit 9) with the same guidance as apply"
is "$(txn_status $t)" rollback_failed "commit: the transaction is still rollback_failed"
run cx rollback
is "$rc" 0 "rollback repairs it"
# The same with --json: some change stayed, so changed is true.
run env CX5PROF_FAILPOINT=apply-step:3,undo-step:1 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" --json apply "$P"
is "$rc:$(printf '%s' "$out" | jq -c '[.changed, .failed]')" "7:[true,true]" "--json, an undo failed: exit 7, changed true"
run cx rollback
is "$rc" 0 "rollback repairs it again"
host_as_before
ok $? "after the rollback: host as before"
run cx apply "$P"
is "$rc" 0 "apply works again"

done_testing
