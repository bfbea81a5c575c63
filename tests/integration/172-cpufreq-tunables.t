#!/usr/bin/env bash
# 172-cpufreq-tunables.t: host.cpufreq records the tunables of the
# governor it replaces and the rollback restores the governor first, then
# them: schedutil's rate_limit_us in the policy's own directory
# (cpuN/cpufreq/schedutil/), ondemand's in the directory every policy
# shares (/sys/devices/system/cpu/cpufreq/ondemand/), userspace's
# scaling_setspeed. The kernel makes a governor's tunables afresh with its
# defaults when a policy takes it again; the sysroot keeps its files, so
# the test writes those defaults in between, as the kernel would. An old
# value of the governor's name alone (how an undo log written before
# recorded it, byte for byte) still rolls back: the name is restored.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
need_tool jq
txn_setup 172

CPU=/sys/devices/system/cpu
for d in "$SR" "$PRISTINE"; do
	for c in 8 9 10; do
		echo 'performance powersave schedutil ondemand userspace' >"$d$CPU/cpu$c/cpufreq/scaling_available_governors"
	done
	echo schedutil >"$d$CPU/cpu8/cpufreq/scaling_governor"
	mkdir -p "$d$CPU/cpu8/cpufreq/schedutil" "$d$CPU/cpufreq/ondemand"
	echo 500 >"$d$CPU/cpu8/cpufreq/schedutil/rate_limit_us"
	echo userspace >"$d$CPU/cpu9/cpufreq/scaling_governor"
	echo 1200000 >"$d$CPU/cpu9/cpufreq/scaling_setspeed"
	echo ondemand >"$d$CPU/cpu10/cpufreq/scaling_governor"
	echo 80 >"$d$CPU/cpufreq/ondemand/up_threshold"
	echo 20000 >"$d$CPU/cpufreq/ondemand/sampling_rate"
	echo 10000 >"$d$CPU/cpufreq/ondemand/sampling_rate_min"
	chmod 0444 "$d$CPU/cpufreq/ondemand/sampling_rate_min" # read-only: not a tunable
done
# the kernel's defaults, as a governor that comes back gets them
kernel_defaults() {
	echo 10000 >"$SR$CPU/cpu8/cpufreq/schedutil/rate_limit_us"
	echo '<unsupported>' >"$SR$CPU/cpu9/cpufreq/scaling_setspeed"
	echo 95 >"$SR$CPU/cpufreq/ondemand/up_threshold"
	echo 10000 >"$SR$CPU/cpufreq/ondemand/sampling_rate"
}
P=$WORK/profiles/performance.yaml
printf 'version: 1\nname: performance\nmatch:\n  interfaces: [ens1f0]\nhost:\n  cpufreq: {governor: performance, cpus: "8-10"}\n' >"$P"

run cx plan --runtime-only "$P"
is "$rc:$out" "2:cpu8  scaling_governor  schedutil (rate_limit_us=500) -> performance
cpu9  scaling_governor  userspace (scaling_setspeed=1200000) -> performance
cpu10  scaling_governor  ondemand (sampling_rate=20000 up_threshold=80) -> performance
3 changes pending" "plan: each old governor with its tunables"
run cx --json plan --runtime-only "$P"
is "$(printf '%s' "$out" | jq -c '[.changes[].before]')" \
	'["schedutil rate_limit_us=500","userspace scaling_setspeed=1200000","ondemand sampling_rate=20000 up_threshold=80"]' \
	"plan --json: the old values carry the tunables"

run cx apply --runtime-only "$P"
is "$rc:$(cat "$SR$CPU"/cpu{8,9,10}/cpufreq/scaling_governor | paste -sd' ')" "0:performance performance performance" "apply: performance"
kernel_defaults
run cx rollback
is "$rc" 0 "rollback: exit 0"
is "$(cat "$SR$CPU"/cpu{8,9,10}/cpufreq/scaling_governor | paste -sd' ')" "schedutil userspace ondemand" "rollback: the governors"
is "$(cat "$SR$CPU/cpu8/cpufreq/schedutil/rate_limit_us" "$SR$CPU/cpu9/cpufreq/scaling_setspeed" \
	"$SR$CPU/cpufreq/ondemand/up_threshold" "$SR$CPU/cpufreq/ondemand/sampling_rate" | paste -sd' ')" "500 1200000 80 20000" \
	"rollback: then their tunables (the policy's, userspace's, the shared ones)"
sysroot_as_before
ok $? "rollback: the sysroot byte for byte as before"

# an undo log of the name alone: the tunables appear only after the apply
mv "$SR$CPU/cpu8/cpufreq/schedutil" "$WORK/schedutil"
run cx apply --runtime-only "$P"
is "$rc:$(sqlite3 "$DB" "SELECT old_value FROM changes WHERE object = 'cpu8' ORDER BY txn DESC LIMIT 1")" "0:schedutil" \
	"apply with no schedutil tunables: the old value is the name alone (as before tunables were recorded)"
mv "$WORK/schedutil" "$SR$CPU/cpu8/cpufreq/schedutil"
echo 10000 >"$SR$CPU/cpu8/cpufreq/schedutil/rate_limit_us"
run cx rollback
is "$rc:$(cat "$SR$CPU/cpu8/cpufreq/scaling_governor") $(cat "$SR$CPU/cpu8/cpufreq/schedutil/rate_limit_us")" "0:schedutil 10000" \
	"rollback of the name alone: the governor restored, its tunables left as the kernel made them"

# a tunable that is not a number could not be written back: refused
# before anything changes (exit 5)
printf 'fa\033st\n' >"$SR$CPU/cpu8/cpufreq/schedutil/rate_limit_us"
cp -a "$SR" "$WORK/before-refused"
run cx apply --runtime-only "$P"
is "$rc|$err" '5|cx5prof: error: cpu8: scaling_governor is "schedutil rate_limit_us=fa\x1bst" now, which cpufreq could not write back (a governor'"'"'s tunable that is not NAME=NUMBER): set it by hand to a value cx5prof can write back, or leave it out of the profile' \
	"a tunable that is not a number: apply exits 5 naming the CPU and the value"
diff -r --no-dereference "$WORK/before-refused" "$SR" >/dev/null
ok $? "and changes nothing"
done_testing
