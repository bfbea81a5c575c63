#!/usr/bin/env bash
# 170-old-value-unrestorable.t: an old value the kind could never write
# back is a plan problem (exit 5) naming the object and its value, and
# apply changes nothing: a CPU whose scaling_governor is empty, holds an
# ESC byte, or names a governor the CPU does not offer
# (scaling_available_governors), or an IRQ whose affinity is empty. Before,
# apply took it as the old value (exit 0) and rollback failed on it
# (exit 7).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
need_tool jq
txn_setup 170

P=$WORK/profiles/governor.yaml
cat >"$P" <<'YAML'
version: 1
name: governor
match:
  interfaces: [ens1f0]
host:
  cpufreq: {governor: powersave, cpus: "8-9"}
YAML
G9=$SR/sys/devices/system/cpu/cpu9/cpufreq/scaling_governor
remedy="set it by hand to a value cx5prof can write back, or leave it out of the profile"

# refused VALUE-TO-WRITE SHOWN WHY: cpu9's governor is VALUE; plan and
# apply refuse with exit 5, nothing changed, nothing recorded.
refused() {
	local value=$1 shown=$2 why=$3 msg
	printf '%s\n' "$value" >"$G9"
	printf '%s\n' "$value" >"$PRISTINE/sys/devices/system/cpu/cpu9/cpufreq/scaling_governor"
	msg="cx5prof: error: cpu9: scaling_governor is $shown now, which cpufreq could not write back ($why): $remedy"
	run cx plan --runtime-only "$P"
	is "$rc|$err" "5|$msg" "plan, governor $shown: exit 5 naming the CPU and its value"
	run cx apply --runtime-only "$P"
	is "$rc|$err" "5|$msg" "apply, governor $shown: exit 5 naming the CPU and its value"
	sysroot_as_before
	ok $? "apply, governor $shown: nothing changed"
	is "$(txn_count)" 0 "apply, governor $shown: no transaction"
}
refused '' '""' "not a governor name"
refused "$(printf 'perf\033[2Jormance')" '"perf\x1b[2Jormance"' "not a governor name"
refused ondemand '"ondemand"' "not a governor this CPU offers (performance powersave)"
run cx --json plan --runtime-only "$P"
printf '%s' "$out" >"$WORK/plan.json"
is "$rc|$(jq -c '[.changed, (.problems[] | [.object, .exit_code, .message])]' "$WORK/plan.json")" \
	'5|[false,["cpu9",5,"scaling_governor is \"ondemand\" now, which cpufreq could not write back (not a governor this CPU offers (performance powersave))"]]' \
	"plan --json: the problem names the CPU, exit code 5 and the value"
run /usr/bin/python3 "$TESTS_DIR/helpers/validate_json.py" "$TOP/schemas/plan.schema.json" "$WORK/plan.json"
is "$rc:$out" "0:1 documents valid" "plan --json with that problem validates against schemas/plan.schema.json"

# a governor the CPU offers: applied, rolled back byte for byte
printf 'performance\n' >"$G9"
printf 'performance\n' >"$PRISTINE/sys/devices/system/cpu/cpu9/cpufreq/scaling_governor"
run cx apply --runtime-only "$P"
is "$rc|$(cat "$G9")" "0|powersave" "a governor the CPU offers: applied"
run cx rollback
is "$rc" 0 "rolled back"
sysroot_as_before
ok $? "rolled back: the sysroot as before"

# an IRQ whose affinity is empty (the kernel refuses to write no CPU)
P1=$WORK/profiles/one-port.yaml
irq=$(cx plan "$P1" 2>/dev/null | grep '^irq ' | head -n 1 | sed -n 's/.*smp_affinity_list \([0-9]*\) .*/\1/p')
for d in "$SR" "$PRISTINE"; do printf '0\n' >"$d/proc/irq/$irq/smp_affinity" && printf '\n' >"$d/proc/irq/$irq/smp_affinity_list"; done
before=$(txn_count)
run cx apply --runtime-only "$P1"
is "$rc|$(printf '%s\n' "$err" | grep "smp_affinity_list $irq ")" \
	"5|cx5prof: error: irq ens1f0 q0: smp_affinity_list $irq is \"\" now, which irq could not write back (no CPU: the kernel refuses an IRQ affinity of no CPU): $remedy" \
	"apply, IRQ $irq with an empty affinity: exit 5 naming the IRQ and its value"
sysroot_as_before
ok $? "apply, empty IRQ affinity: nothing changed"
is "$(txn_count)" "$before" "apply, empty IRQ affinity: no transaction"
done_testing
