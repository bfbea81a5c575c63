#!/usr/bin/env bash
# 46-irqbalance.t: `irq.irqbalance: stop` is a change of its own, made before
# the IRQ pins (irqbalance would move them again) and undone by rollback:
# the service is started and enabled again as it was. The service manager is
# a fake (CX5PROF_SYSTEMCTL) that keeps its state under the test's directory
# and moves the fixture's irqbalance process entry (/proc/812) away on stop
# and back on start, so the sysroot is byte for byte as before afterwards.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 46

FAKE=$WORK/systemd
mkdir -p "$FAKE/stash"
echo active >"$FAKE/active"
echo enabled >"$FAKE/enabled"
cat >"$FAKE/systemctl" <<EOS
#!/bin/sh
s="$FAKE"
echo "\$*" >>"\$s/calls"
[ "\$2" = irqbalance.service ] || exit 5
# no irqbalance unit: what systemctl answers for a unit that does not exist
if [ -e "\$s/missing" ]; then case "\$1" in
is-enabled) echo "Failed to get unit file state for irqbalance.service: No such file or directory" >&2; exit 1 ;;
is-active) echo inactive; exit 3 ;;
show) echo not-found; exit 0 ;;
esac; fi
[ ! -e "\$s/silent" ] || exit 1 # a service manager that answers nothing
case "\$1" in
is-enabled) cat "\$s/enabled"; [ "\$(cat "\$s/enabled")" = enabled ] ;;
is-active) cat "\$s/active"; [ "\$(cat "\$s/active")" = active ] ;;
stop) echo inactive >"\$s/active"; [ ! -d "$SR/proc/812" ] || mv "$SR/proc/812" "\$s/stash/" ;;
start) echo active >"\$s/active"; [ ! -d "\$s/stash/812" ] || mv "\$s/stash/812" "$SR/proc/" ;;
enable) echo enabled >"\$s/enabled" ;;
disable) echo disabled >"\$s/enabled" ;;
*) exit 1 ;;
esac
EOS
chmod +x "$FAKE/systemctl"
export CX5PROF_SYSTEMCTL=$FAKE/systemctl
state_snapshot "$WORK/before.json" # show asks the service manager now

sed 's/irqbalance: leave/irqbalance: stop/' "$WORK/profiles/one-port.yaml" >"$WORK/profiles/stop.yaml"
run cx plan "$WORK/profiles/stop.yaml"
is "$rc" 2 "plan: changes pending"
is "$(printf '%s\n' "$out" | sed -n 3p)" \
	"irqbalance  service  active=1,enabled=1 -> stopped  (before IRQ affinity: irqbalance would move the pins again)" \
	"plan: irqbalance stop is a change, before the IRQ pins"

run cx apply "$WORK/profiles/stop.yaml"
is "$rc" 0 "apply: exit 0"
is "$(cat "$FAKE/active") $(cat "$FAKE/enabled")" "inactive disabled" "apply: the service is stopped and disabled"
[ ! -e "$SR/proc/812" ]
ok $? "apply: no irqbalance process left"
run cx apply "$WORK/profiles/stop.yaml"
is "$rc:$out" "0:nothing to change" "second apply: nothing to change"

run cx rollback
is "$rc" 0 "rollback: exit 0"
is "$(cat "$FAKE/active") $(cat "$FAKE/enabled")" "active enabled" "rollback: the service runs and is enabled again"
host_as_before
ok $? "rollback: host as before (sysroot byte for byte)"

# A failure after the stop restarts it.
run env CX5PROF_FAILPOINT=apply-step:5 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$WORK/profiles/stop.yaml"
is "$rc" 6 "failure at step 5: exit 6"
is "$(cat "$FAKE/active") $(cat "$FAKE/enabled")" "active enabled" "failure: irqbalance restored"
host_as_before
ok $? "failure: host as before"

# ---- irqbalance not installed (no unit): stopped already, nothing to do
mv "$SR/proc/812" "$FAKE/stash/"
touch "$FAKE/missing"
run cx plan "$WORK/profiles/stop.yaml"
is "$rc" 2 "no unit: plan exit 2 (the other changes)"
is "$(printf '%s\n' "$out" | grep -c '^irqbalance')" 0 "no unit: no irqbalance change"
is "$(printf '%s\n' "$err" | grep -ci 'irqbalance\|error')" 0 "no unit: no irqbalance problem or warning"
# ---- a service manager that answers nothing: still unknown, and said so
rm "$FAKE/missing"
touch "$FAKE/silent"
run cx plan "$WORK/profiles/stop.yaml"
is "$rc" 69 "unknown state: exit 69"
is "$(printf '%s\n' "$err" | grep error:)" "cx5prof: error: irqbalance: irq.irqbalance: stop: no service manager to stop it with: stop it by hand, or with --sysroot set CX5PROF_SYSTEMCTL" \
	"unknown state: the plan says why"
is "$(printf '%s\n' "$out" | grep -c '^irq ')" 16 "unknown state: the IRQ pins are still listed"

done_testing
