#!/usr/bin/env bash
# 48-irq-renumbered.t: the undo log keys an IRQ change by its number ("irq
# ens1f0 q3", "smp_affinity_list 111"), but IRQ numbers are handed out at
# boot and driver load. When queue 3 of ens1f0 is another IRQ at rollback
# time (here: the sysroot is edited as a reboot would renumber it), the
# rollback must not write queue 3's old CPU list into IRQ 111 (now someone
# else's, or nobody's): that step fails with the reason, every other step
# is restored, and rollback exits 7 (not fully restored).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 48

P=$WORK/profiles/one-port.yaml
PCI=$SR/sys/devices/pci0000:ae/0000:ae:00.0/0000:af:00.0

run cx apply "$P"
is "$rc" 0 "apply: exit 0"
is "$(sqlite3 "$DB" "SELECT key, new_value FROM changes WHERE object = 'irq ens1f0 q3'"):$(cat "$SR/proc/irq/111/smp_affinity_list")" \
	"smp_affinity_list 111|11:11" "apply: queue 3 (IRQ 111) pinned to CPU 11"

# ---- a reboot renumbers queue 3: IRQ 111 -> 200
sed -i 's/^ 111:/ 200:/' "$SR/proc/interrupts"
mv "$PCI/msi_irqs/111" "$PCI/msi_irqs/200"
mv "$SR/proc/irq/111" "$SR/proc/irq/200"
cp -a "$SR/proc/irq/200" "$WORK/irq200-before"

run cx rollback
is "$rc" 7 "rollback: exit 7 (the host is not fully restored)"
is "$err" "cx5prof: error: NOT restored: irq ens1f0 q3 smp_affinity_list 111 11 -> 0: ens1f0 queue 3 is now IRQ 200, not 111: the IRQ numbers changed (reboot or driver reload) since the transaction; nothing written
cx5prof: error: rollback of transaction 1 is incomplete: the host is NOT as before" \
	"rollback: the failed step says why, and that the host is not as before"
diff -r "$WORK/irq200-before" "$SR/proc/irq/200" >/dev/null
ok $? "rollback: queue 3's new IRQ 200 untouched"
is "$(sqlite3 "$DB" "SELECT count(*) FROM changes WHERE txn = 2 AND state = 'failed'")" 1 \
	"history: exactly one rollback step failed"

is "$(mtu_of ens1f0)" 1500 "rollback: the MTU is restored in the kernel"
# every other step is restored: undo the renumbering and compare
sed -i 's/^ 200:/ 111:/' "$SR/proc/interrupts"
mv "$PCI/msi_irqs/200" "$PCI/msi_irqs/111"
mv "$SR/proc/irq/200" "$SR/proc/irq/111"
is "$(diff -r --no-dereference "$PRISTINE" "$SR" | grep '^diff' | sed "s|$PRISTINE/||; s| $SR/.*||")" \
	"diff -r --no-dereference proc/irq/111/smp_affinity_list" \
	"rollback: every file but IRQ 111's affinity (queue 3, not restored) is as before"

done_testing
