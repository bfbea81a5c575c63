#!/usr/bin/env bash
# 16-ethtool-extack.t: channels and rings go through ethtool netlink first
# (os/ethnl.h, one parameter table with each device maximum), the ioctl as
# the fallback. A change the kernel refuses fails the apply as before (exit
# 6, rolled back) and shows the kernel's extack text verbatim; through the
# ioctl fallback the same refusal has only its errno. The device maximum
# still comes with the values (a plan beyond it is a precondition), and
# show reads the same through either path.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
need_tool ethtool
txn_setup 16

ch() { ip netns exec "$HOST_NS" ethtool -l ens1f0 | sed -n '/Current/,$p' | grep -E '^(RX|TX):' | tr -s '\t ' ' '; }
ioctl() { CX5PROF_FAILPOINT=ethnl-absent:1 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" "$@"; }
# veth's maximum is the number of possible CPUs
MAX=$(ip netns exec "$HOST_NS" ethtool -l ens1f0 | sed -n '/maximums/,/Current/p' | sed -n 's/^RX:[[:space:]]*//p')
CH_BEFORE=$(ch)
is "$CH_BEFORE" "RX: 1
TX: 1" "setup: ens1f0 has 1 rx and 1 tx channel"

# ---- show: the same through netlink and through the ioctl
run cx show ens1f0
nl=$(printf '%s\n' "$out" | grep -E '^  (channels|rings) ')
is "$nl" "  channels  rx 1/$MAX  tx 1/$MAX  other n/a  combined n/a
  rings     unsupported" "show: channels with their maxima, rings unsupported"
run ioctl show ens1f0
is "$(printf '%s\n' "$out" | grep -E '^  (channels|rings) ')" "$nl" "show through the ioctl: the same"

# ---- the device maximum, from the same read: a precondition
printf 'version: 1\nname: many\nmatch:\n  interfaces: [ens1f0]\nlink:\n  channels:\n    rx: %d\n' $((MAX + 1)) >"$WORK/many.yaml"
run cx plan --runtime-only "$WORK/many.yaml"
is "$rc:$err" "5:cx5prof: error: ens1f0: channels.rx $((MAX + 1)) exceeds the device maximum $MAX: lower the value in the profile" \
	"plan beyond the maximum: exit 5, the maximum named"

# ---- a change the kernel refuses: its words, verbatim
P=$WORK/profiles/norx.yaml
printf 'version: 1\nname: norx\nmatch:\n  interfaces: [ens1f0]\nlink:\n  channels:\n    rx: 0\n' >"$P"
run cx plan --runtime-only "$P"
is "$rc:$out" "2:ens1f0  channels.rx  1 -> 0  (before IRQ affinity: changing channels re-creates the IRQs; briefly resets the link)
1 change pending" "plan: rx 1 -> 0 (within the maximum)"
run cx apply --runtime-only "$P"
is "$rc" 6 "apply: the kernel refuses, exit 6 (rolled back)"
printf '%s\n' "$err" | grep -qxF "cx5prof: error: apply failed at step 1: ens1f0 channels.rx 1 -> 0: Invalid argument (kernel: requested channel counts would result in no RX or TX channel being configured)"
ok $? "apply: the kernel's extack text, verbatim"
is "$(sqlite3 "$DB" "SELECT state || ': ' || error FROM changes WHERE txn = 1")" \
	"failed: ens1f0 channels.rx 1 -> 0: Invalid argument (kernel: requested channel counts would result in no RX or TX channel being configured)" \
	"history: the failed change keeps the kernel's text"
is "$(ch)" "$CH_BEFORE" "apply: the channels as before"
host_as_before
ok $? "apply: host exactly as before"

run cx --json apply --runtime-only "$P"
is "$rc:$(printf '%s' "$out" | jq -r '.failed')" "6:true" "apply --json: exit 6, failed"
printf '%s\n' "$err" | grep -qF "(kernel: requested channel counts would result in no RX or TX channel being configured)"
ok $? "apply --json: the kernel's text on stderr"

# ---- the same through the ioctl fallback: the errno alone
run ioctl apply --runtime-only "$P"
is "$rc" 6 "ioctl: the driver refuses, exit 6 as through netlink"
printf '%s\n' "$err" | grep -qxF "cx5prof: error: apply failed at step 1: ens1f0 channels.rx 1 -> 0: Invalid argument"
ok $? "ioctl: the errno, no kernel text"
is "$(ch)" "$CH_BEFORE" "ioctl: the channels as before"

done_testing
