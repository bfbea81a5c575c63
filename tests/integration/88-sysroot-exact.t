#!/usr/bin/env bash
# 88-sysroot-exact.t: sysroot files are replaced whole (a temporary file,
# then rename): an I/O error or a kill leaves the old contents or the new,
# never a mix; a read-back compares the whole file, so a torn file
# ("212992\n\n") is never taken for the value; and reads stay inside the
# sysroot as writes do (a symlink out of it is refused, EXDEV).
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

# ---- EIO on each rename of an apply (strace): old contents or new, undone
ip netns exec "$HOST_NS" strace -f -qq -o "$WORK/trace" -e trace=rename,renameat,renameat2 \
	"$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P" >/dev/null 2>&1
cx rollback >/dev/null 2>&1
n=$(grep -c rename "$WORK/trace")
is "$n" 3 "an apply of 2 sysctls and 1 IRQ renames 3 files into place"
for ((k = 1; k <= n; k++)); do
	run ip netns exec "$HOST_NS" strace -f -qq -o /dev/null -e trace=rename,renameat,renameat2 \
		-e inject=rename,renameat,renameat2:error=EIO:when=$k "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P"
	is "$rc" 6 "EIO on rename $k: exit 6"
	host_as_before
	ok $? "EIO on rename $k: host exactly as before, no temporary file left"
done

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
