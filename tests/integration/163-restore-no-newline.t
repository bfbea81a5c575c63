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
printf '212992\n' | tee "$SR/proc/sys/net/core/rmem_max" >"$PRISTINE/proc/sys/net/core/rmem_max"
run cx apply "$P"; [ "$rc" = 0 ] || diag "$out" "$err"
is "$rc|$(od -An -c "$SR/proc/sys/net/core/rmem_max" | tr -s ' ')" "0| 4 1 9 4 3 0 4 \\n" \
	"a file that ends in a newline is written with one"
cx rollback >/dev/null 2>&1
is "$(od -An -c "$SR/proc/sys/net/core/rmem_max" | tr -s ' ')" " 2 1 2 9 9 2 \\n" "and restored with it"

# ---- ethtool texts without their final newline: a private flag, a flow
# hash and the RSS table changed and rolled back, each text byte for byte
E=ethtool/ens1f0
for f in show-priv-flags rx-flow-hash-udp4 show-rxfh; do
	for d in "$SR" "$PRISTINE"; do
		head -c -1 "$d/$E/$f" >"$d/$E/$f.tmp" && mv "$d/$E/$f.tmp" "$d/$E/$f"
	done
done
printf 'version: 1\nname: texts\nmatch:\n  interfaces: [ens1f0]\nlink:\n  rss: {equal: 8}\n  flow_hash: {udp4: sd}\n  private_flags: {rx_cqe_compress: on}\n' >"$WORK/texts.yaml"
state_snapshot "$WORK/before.json"
run cx apply "$WORK/texts.yaml"; [ "$rc" = 0 ] || diag "$out" "$err"
is "$rc|$(grep -c "^applied 3 changes" <<<"$out")" "0|1" "apply: the flag, the flow hash and the table"
[ -n "$(tail -c 1 "$SR/$E/show-priv-flags")" ]
ok $? "the changed private flags text still has no final newline"
run cx rollback
is "$rc" 0 "rollback: exit 0"
for f in show-priv-flags rx-flow-hash-udp4 show-rxfh; do
	cmp -s "$PRISTINE/$E/$f" "$SR/$E/$f"
	ok $? "$f: byte for byte as before"
done
host_as_before
ok $? "host exactly as before"
diff "$WORK/before.json" "$WORK/now.json" | head -n 20 | sed 's/^/# /'
diff -r --no-dereference "$PRISTINE" "$SR" | head -n 20 | sed 's/^/# /'
done_testing
