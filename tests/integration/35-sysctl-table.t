#!/usr/bin/env bash
# 35-sysctl-table.t: the sysctls added to the one table (sysctl.h):
# net.core.netdev_budget, netdev_budget_usecs, busy_read, busy_poll,
# net.ipv4.udp_mem (three values), udp_rmem_min and ipfrag_high_thresh, through the lab's
# sysroot copy: shown, planned, applied (the files as the kernel writes
# them), idempotent, rolled back byte for byte; a failure at each step
# undoes them, and after a kill -9 before each step rollback restores them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 35

P=$WORK/profiles/sysctls.yaml
cat >"$P" <<'YAML'
version: 1
name: sysctls
sysctl:
  net.core.netdev_budget: 600
  net.core.netdev_budget_usecs: 4000
  net.core.busy_read: 50
  net.core.busy_poll: ">= 50"
  net.ipv4.udp_mem: [262144, 524288, 1048576]
  net.ipv4.udp_rmem_min: 16K
YAML
SYS=$SR/proc/sys

run cx show
printf '%s\n' "$out" | grep -A12 '^sysctl$' | grep -E 'budget|busy|udp' >"$WORK/lines"
is "$(cat "$WORK/lines")" "  net.core.netdev_budget       300
  net.core.netdev_budget_usecs 8000
  net.core.busy_read           0
  net.core.busy_poll           0
  net.ipv4.udp_mem             188010 250681 376020
  net.ipv4.udp_rmem_min        4096" "show: the new sysctls"
run cx --json show
is "$(printf '%s' "$out" | jq -c '.sysctl | [."net.core.netdev_budget", ."net.ipv4.udp_mem", ."net.ipv4.udp_rmem_min"]')" \
	'[300,[188010,250681,376020],4096]' "show --json: udp_mem is a list"

run cx plan "$P"
is "$rc:$out" "2:sysctl  net.core.netdev_budget  300 -> 600
sysctl  net.core.netdev_budget_usecs  8000 -> 4000
sysctl  net.core.busy_read  0 -> 50
sysctl  net.core.busy_poll  0 -> 50
sysctl  net.ipv4.udp_mem  188010 250681 376020 -> 262144 524288 1048576
sysctl  net.ipv4.udp_rmem_min  4096 -> 16384
6 changes pending" "plan: one line per sysctl, udp_mem's three values in one"

run cx apply --runtime-only "$P"
is "$rc:$(printf '%s\n' "$out" | tail -n 1)" "0:applied 6 changes (transaction 1)" "apply: exit 0"
is "$(cat "$SYS/net/core/netdev_budget" "$SYS/net/core/netdev_budget_usecs" "$SYS/net/core/busy_read" \
	"$SYS/net/core/busy_poll" "$SYS/net/ipv4/udp_rmem_min" | tr '\n' ' ')" "600 4000 50 50 16384 " \
	"apply: the sysroot files hold the new values"
is "$(tr '\t\n' 'T|' <"$SYS/net/ipv4/udp_mem")" "262144T524288T1048576|" \
	"apply: udp_mem written as the kernel shows it (tabs)"
is "$(sqlite3 "$DB" "SELECT old_value || '|' || new_value FROM changes WHERE txn = 1 AND key = 'net.ipv4.udp_mem'")" \
	"188010 250681 376020|262144 524288 1048576" "history: the undo log holds udp_mem's three old values"
run cx plan "$P"
is "$rc:$out" "0:nothing to change" "plan after apply: nothing to change"

run cx rollback
is "$rc" 0 "rollback: exit 0"
sysroot_as_before
ok $? "rollback: the sysroot is byte for byte as before" || diag "$(diff -r "$PRISTINE" "$SR")"

for k in 1 2 3 4 5 6; do
	run env CX5PROF_FAILPOINT=apply-step:$k ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
		apply --runtime-only "$P"
	is "$rc" 6 "failure at step $k: exit 6 (rolled back)"
	sysroot_as_before
	ok $? "failure at step $k: the sysroot is byte for byte as before"
done

# kill -9 before each step: the transaction stays open, rollback restores
for k in 1 2 3 4 5 6; do
	if ! kill9_before_step "$k" "$P"; then
		ok 1 "apply did not reach step $k"
		continue
	fi
	id=$(sqlite3 "$DB" "SELECT max(id) FROM transactions WHERE kind = 'apply'")
	is "$(txn_status "$id")" open "kill -9 before step $k: the transaction is left open"
	run cx rollback
	is "$rc" 0 "kill -9 before step $k: rollback exits 0"
	sysroot_as_before
	ok $? "kill -9 before step $k: the sysroot is byte for byte as before" || diag "$(diff -r "$PRISTINE" "$SR")"
done

# net.ipv4.ipfrag_high_thresh (one row of the table, nothing else): shown,
# planned, applied, idempotent, rolled back byte for byte; a floor at or
# below the current value changes nothing
F=$WORK/profiles/ipfrag.yaml
printf 'version: 1\nname: ipfrag\nsysctl:\n  net.ipv4.ipfrag_high_thresh: 8M\n' >"$F"
run cx show
printf '%s\n' "$out" | grep -qx '  net.ipv4.ipfrag_high_thresh  4194304'
ok $? "ipfrag_high_thresh: shown"
run cx plan "$F"
is "$rc:$out" "2:sysctl  net.ipv4.ipfrag_high_thresh  4194304 -> 8388608
1 change pending" "ipfrag_high_thresh: planned"
run cx apply --runtime-only "$F"
is "$rc:$(cat "$SYS/net/ipv4/ipfrag_high_thresh")" "0:8388608" "ipfrag_high_thresh: applied"
run cx plan "$F"
is "$rc:$out" "0:nothing to change" "ipfrag_high_thresh: nothing to change after apply"
run cx rollback
is "$rc" 0 "ipfrag_high_thresh: rollback exits 0"
sysroot_as_before
ok $? "ipfrag_high_thresh: the sysroot is byte for byte as before" || diag "$(diff -r "$PRISTINE" "$SR")"
printf 'version: 1\nname: ipfrag-floor\nsysctl:\n  net.ipv4.ipfrag_high_thresh: ">= 4M"\n' >"$F"
run cx plan "$F"
is "$rc:$out" "0:nothing to change" "ipfrag_high_thresh: a floor the host meets changes nothing"

# busy_poll is a floor: a larger value is left alone
printf '100\n' >"$SYS/net/core/busy_poll"
run cx plan "$P"
printf '%s\n' "$out" | grep -q busy_poll
ok $((!$?)) "a larger busy_poll meets the floor: not planned"

done_testing
