#!/usr/bin/env bash
# 163-restore-no-newline.t: a sysroot file without a trailing newline (a
# copied tree, a hand-made fixture: "212992", not "212992\n") is restored
# byte for byte by rollback, not re-rendered with a newline: a write into
# a plain-file sysroot keeps the file's own line ending.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 163
txn_short_profile 1
P=$WORK/profiles/one-port.yaml
irq=$(cx plan "$P" 2>/dev/null | sed -n 's/^irq .*smp_affinity_list \([0-9]*\) .*/\1/p')
[ -n "$irq" ]
ok $? "the plan moves one IRQ ($irq)"
for f in proc/sys/net/core/rmem_max proc/sys/net/core/wmem_max "proc/irq/$irq/smp_affinity_list"; do
	for d in "$SR" "$PRISTINE"; do printf '%s' "$(cat "$d/$f")" >"$d/$f.tmp" && mv "$d/$f.tmp" "$d/$f"; done
done
state_snapshot "$WORK/before.json"
is "$(od -An -c "$SR/proc/sys/net/core/rmem_max" | tr -s ' ')" " 2 1 2 9 9 2" "rmem_max has no newline"

run cx apply "$P"; [ "$rc" = 0 ] || diag "$out" "$err"
is "$rc" 0 "apply: exit 0"
is "$(od -An -c "$SR/proc/sys/net/core/rmem_max" | tr -s ' ')" " 4 1 9 4 3 0 4" \
	"the new value is written as the file has it (no newline)"
run cx rollback
is "$rc" 0 "rollback: exit 0"
is "$(od -An -c "$SR/proc/sys/net/core/rmem_max" | tr -s ' ')" " 2 1 2 9 9 2" "rmem_max byte for byte again"
is "$(od -An -c "$SR/proc/irq/$irq/smp_affinity_list" | tr -s ' ')" \
	"$(od -An -c "$PRISTINE/proc/irq/$irq/smp_affinity_list" | tr -s ' ')" "the IRQ's affinity byte for byte again"
host_as_before
ok $? "host exactly as before (every file byte for byte)"
diff -r --no-dereference "$PRISTINE" "$SR" | head -n 20 | sed 's/^/# /'

# ---- a file with its newline keeps it
printf '212992\n' >"$SR/proc/sys/net/core/rmem_max"
run cx apply "$P"; [ "$rc" = 0 ] || diag "$out" "$err"
is "$rc|$(od -An -c "$SR/proc/sys/net/core/rmem_max" | tr -s ' ')" "0| 4 1 9 4 3 0 4 \\n" \
	"a file that ends in a newline is written with one"
cx rollback >/dev/null 2>&1
is "$(od -An -c "$SR/proc/sys/net/core/rmem_max" | tr -s ' ')" " 2 1 2 9 9 2 \\n" "and restored with it"
done_testing
