#!/usr/bin/env bash
# 36-plan-problems.t: a plan with problems still lists every change, the
# IRQ pins too (the man page: "still lists every change"), so the operator sees the
# whole of what the profile would do while fixing what stops it. Nothing is
# applied: apply refuses with the same problems and changes nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 36

# udp-jumbo on both ports, with a firmware minimum the fixture (16.29.1030)
# does not meet: one problem per port.
sed 's/min_version: "16.26.1040"/min_version: "16.35.2000"/' "$WORK/profiles/udp-jumbo.yaml" \
	>"$WORK/profiles/old-firmware.yaml"
P=$WORK/profiles/old-firmware.yaml

run cx plan "$P"
is "$rc" 5 "plan: exit 5 (a precondition fails)"
is "$(printf '%s\n' "$err" | grep error:)" \
	"cx5prof: error: ens1f0: firmware version 16.29.1030 is older than the required 16.35.2000 (requires.firmware.min_version): update the NIC firmware (mlxup or mstflint)
cx5prof: error: ens1f1: firmware version 16.29.1030 is older than the required 16.35.2000 (requires.firmware.min_version): update the NIC firmware (mlxup or mstflint)" \
	"plan: both problems, with their remedy"
is "$(printf '%s\n' "$out" | sed -n '1,5p')" "sysctl  net.core.rmem_max  212992 -> 4194304
sysctl  net.core.wmem_max  212992 -> 4194304
ens1f0  mtu  1500 -> 9000
ens1f1  mtu  1500 -> 9000
irq ens1f0 q0  smp_affinity_list 99  0 -> 8" "plan: the changes in apply order, the IRQ pins after the MTU"
is "$(printf '%s\n' "$out" | grep -c '^irq ')" 32 "plan: all 32 IRQ pins are listed"
is "$(printf '%s\n' "$out" | tail -n 1)" "cannot apply: 2 problems" "plan: the summary says it cannot apply"

run cx --json plan "$P"
is "$(printf '%s' "$out" | jq -c '[.changed, (.changes|length), ([.changes[]|select(.kind=="irq")]|length), (.problems|length)]')" \
	'[false,66,32,2]' "plan --json: 66 changes (32 IRQ pins, 30 XPS masks that follow them), 2 problems, changed false"

run cx apply "$P"
is "$rc" 5 "apply: refused with exit 5"
is "$(printf '%s\n' "$out" | tail -n 1)" "cannot apply: nothing was changed" "apply: says nothing was changed"
host_as_before
ok $? "apply: host unchanged"
is "$(txn_count)" 0 "apply: no transaction recorded"

# irq.exclude_cpus without irq.policy pins nothing: the plan says so
# rather than ignore the key in silence.
printf '%s\n' 'version: 1' 'name: exclude-only' 'irq:' '  exclude_cpus: "0-3"' >"$WORK/profiles/exclude-only.yaml"
run cx plan "$WORK/profiles/exclude-only.yaml"
is "$rc:$out" "0:nothing to change" "exclude_cpus alone: nothing to change"
is "$err" "cx5prof: warning: irq.exclude_cpus has no effect without irq.policy: no completion IRQ is pinned" \
	"exclude_cpus alone: the plan warns that it does nothing"

done_testing
