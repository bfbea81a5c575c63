#!/usr/bin/env bash
# 88-sysroot-exact.t: a read-back compares the whole sysroot file, so one
# left torn ("212992\n\n": a kill or EIO between the write and the cut to
# length) is never taken for the value: an EIO on each cut of an apply
# fails that step and every change is undone exactly; a rollback over torn
# files rewrites them. Reads stay inside the sysroot as writes do (a
# symlink out of it is refused, EXDEV).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 88
txn_short_profile 1
P=$WORK/profiles/one-port.yaml
RMEM=$SR/proc/sys/net/core/rmem_max
irq=$(cx plan "$P" 2>/dev/null | sed -n 's/^irq .*smp_affinity_list \([0-9]*\) .*/\1/p')

# ---- a torn file is rewritten, not accepted because its first line matches
run cx apply "$P"
is "$rc" 0 "apply"
printf '212992\n\n' >"$RMEM"
printf '0\n0\n' >"$SR/proc/irq/$irq/smp_affinity_list"
run cx rollback
is "$rc" 0 "rollback over torn files: exit 0"
is "$(od -An -c "$RMEM" | tr -s ' ')" " 2 1 2 9 9 2 \\n" "rmem_max is exactly the old value again"
host_as_before
ok $? "host exactly as before (every file byte for byte)"
printf '212992\n\n' >"$RMEM"
run cx plan "$P"
is "$(printf '%s\n' "$out" | grep rmem_max)" "sysctl  net.core.rmem_max  212992 -> 4194304" "plan still reads the value"
printf '212992\n' >"$RMEM"

# ---- EIO on each cut to length (ftruncate after the write) of an apply:
# the file is left torn for a moment, the step fails, all is undone exactly
ip netns exec "$HOST_NS" $STRACE -f -qq -y -o "$WORK/trace" -e trace=ftruncate \
	"$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P" >/dev/null 2>&1
cx rollback >/dev/null 2>&1
# the how-manieth ftruncate call of the apply each sysroot cut is
cuts=$(grep -n 'ftruncate' "$WORK/trace" | grep -F "<$SR/" | cut -d: -f1 | tr '\n' ' ')
is "$(echo $cuts | wc -w)" 3 "an apply of 2 sysctls and 1 IRQ cuts 3 sysroot files to length"
for k in $cuts; do
	run ip netns exec "$HOST_NS" $STRACE -f -qq -o /dev/null -e trace=ftruncate \
		-e inject=ftruncate:error=EIO:when=$k "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P"
	case $rc:$err in
	6:*"read back differs or write failed (EIO)"*) ok 0 "EIO on ftruncate $k: exit 6, the step failed" ;;
	*) ok 1 "EIO on ftruncate $k: exit 6, the step failed"; diag "$rc: $err" ;;
	esac
	host_as_before
	ok $? "EIO on ftruncate $k: host exactly as before (the torn file rewritten)"
	[ "$rc" = 6 ] || cx rollback >/dev/null 2>&1
done

# ---- EIO on the rollback's first cut: "4194304\n" overwritten by
# "212992\n" and not cut leaves "212992\n\n": exit 7 names it, and the next
# rollback writes it exactly (before, the read-back took it for 212992)
cx apply "$P" >/dev/null 2>&1
ip netns exec "$HOST_NS" $STRACE -f -qq -y -o "$WORK/trace" -e trace=ftruncate \
	"$CX5PROF" --sysroot "$SR" --db "$DB" rollback >/dev/null 2>&1
k=$(grep -n 'ftruncate' "$WORK/trace" | grep -F "<$RMEM>" | head -n 1 | cut -d: -f1)
cx apply "$P" >/dev/null 2>&1
run ip netns exec "$HOST_NS" $STRACE -f -qq -o /dev/null -e trace=ftruncate \
	-e inject=ftruncate:error=EIO:when=$k "$CX5PROF" --sysroot "$SR" --db "$DB" rollback
is "$rc:$(printf '%s\n' "$err" | grep 'NOT restored')" \
	"7:cx5prof: error: NOT restored: sysctl net.core.rmem_max 4194304 -> 212992: read back differs or write failed (EIO)" \
	"EIO on the rollback's cut of rmem_max: exit 7, names it"
is "$(od -An -c "$RMEM" | tr -s ' ')" " 2 1 2 9 9 2 \n \n" "the file is torn"
run cx rollback
is "$rc" 0 "the next rollback"
host_as_before
ok $? "writes it again exactly: host as before"

# ---- reads stay inside the sysroot
printf '123456\n' >"$WORK/outside_rmem"
mv "$RMEM" "$WORK/rmem_saved"
ln -s "$WORK/outside_rmem" "$RMEM"
run cx plan "$P"
is "$rc" 1 "a sysctl file linked out of the sysroot: plan fails"
printf '%s\n' "$err" | grep -q 'Invalid cross-device link'
ok $? "and says the path leads out (EXDEV)"
printf '%s\n' "$out" | grep -q 123456
ok $((!$?)) "the outside file's value is never shown"
rm "$RMEM"
cp "$WORK/rmem_saved" "$SR/proc/sys/net/core/rmem_saved"
ln -s rmem_saved "$RMEM"
run cx plan "$P"
is "$(printf '%s\n' "$out" | grep rmem_max)" "sysctl  net.core.rmem_max  212992 -> 4194304" \
	"a link that stays inside the sysroot is read"
run cx apply "$P"
is "$rc:$(printf '%s\n' "$err" | grep 'error: apply failed')" \
	"6:cx5prof: error: apply failed at step 1: sysctl net.core.rmem_max 212992 -> 4194304: Too many levels of symbolic links" \
	"but never written through (ELOOP): exit 6"
rm "$RMEM" "$SR/proc/sys/net/core/rmem_saved"
mv "$WORK/rmem_saved" "$RMEM"
host_as_before
ok $? "host as before"

done_testing
