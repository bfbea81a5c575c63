#!/usr/bin/env bash
# 173-undo-log-compat-cpufreq.t: an undo log written before cpufreq
# recorded the governor's tunables still rolls back.
# tests/fixtures/undo-log/cpufreq-name-only.db was recorded by cx5prof
# c682eab applying host.cpufreq {governor: performance, cpus: "8"} in the
# lab, on cx5-2port with cpu8 on schedutil (rate_limit_us 500): its one
# change holds the old governor's name alone, "schedutil". This binary
# rolls it back: the governor is restored, its tunables stay as the
# kernel made them (10000, its default, here), as that log never held
# them; and the history records the rollback as for any transaction.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 173

CPU=/sys/devices/system/cpu
echo 'performance powersave schedutil' >"$SR$CPU/cpu8/cpufreq/scaling_available_governors"
mkdir -p "$SR$CPU/cpu8/cpufreq/schedutil" && echo 10000 >"$SR$CPU/cpu8/cpufreq/schedutil/rate_limit_us"
cp "$FIXTURES/undo-log/cpufreq-name-only.db" "$DB"
is "$(sqlite3 "$DB" "SELECT kind || ' ' || object || ' ' || key || ' ' || old_value || ' -> ' || new_value FROM changes")" \
	"cpufreq cpu8 scaling_governor schedutil -> performance" "fixture: the governor's name alone"
is "$(cat "$SR$CPU/cpu8/cpufreq/scaling_governor")" performance "before: cpu8 on performance, as the old apply left it"
run cx rollback
is "$rc" 0 "rollback of the old undo log: exit 0"
is "$(cat "$SR$CPU/cpu8/cpufreq/scaling_governor") $(cat "$SR$CPU/cpu8/cpufreq/schedutil/rate_limit_us")" "schedutil 10000" \
	"the governor restored, its tunables as the kernel made them"
is "$(sqlite3 "$DB" "SELECT group_concat(id || ' ' || kind || ' ' || status, ', ') FROM transactions")" \
	"1 apply rolled_back, 2 rollback committed" "history: the old apply rolled back"
done_testing
