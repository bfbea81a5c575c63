#!/usr/bin/env bash
# 59-irqbalance-lab.t: the shipped group-3 profile (profiles/udp-jumbo.yaml,
# `irq.irqbalance: stop`) runs in the lab. Without a service manager (a
# sysroot without CX5PROF_SYSTEMCTL) stopping an irqbalance that is not
# there is nothing to do, not exit 69; with the shipped lab service manager
# (contrib/lab/systemctl) the profile applies unmodified and rolls back to a
# sysroot byte for byte as before; an irqbalance the service does not stop
# fails the step naming its pid and command line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 59

sed 's/irqbalance: leave/irqbalance: stop/' "$WORK/profiles/one-port.yaml" >"$WORK/profiles/stop.yaml"
unset CX5PROF_SYSTEMCTL

# ---- no service manager, no irqbalance: stop is nothing to do
mkdir "$WORK/gone"
mv "$SR/proc/812" "$WORK/gone/sr812"
mv "$PRISTINE/proc/812" "$WORK/gone/pr812"
state_snapshot "$WORK/before.json"
run cx plan "$WORK/profiles/stop.yaml"
is "$rc" 2 "not running, no service manager: plan exit 2 (the other changes), not 69"
is "$(printf '%s\n' "$out" | grep -c '^irqbalance')" 0 "not running: no irqbalance change"
is "$(printf '%s\n' "$err" | grep -c 'irqbalance')" 0 "not running: no irqbalance problem or warning"
run cx apply "$WORK/profiles/stop.yaml"
is "$rc" 0 "not running: apply exit 0"
run cx rollback
is "$rc" 0 "not running: rollback exit 0"
host_as_before
ok $? "not running: host as before"

# ---- an enablement link without a service manager: still refused (69)
mkdir -p "$SR/etc/systemd/system/multi-user.target.wants"
ln -s /lib/systemd/system/irqbalance.service "$SR/etc/systemd/system/multi-user.target.wants/"
run cx plan "$WORK/profiles/stop.yaml"
is "$rc|$(printf '%s\n' "$err" | grep irqbalance)" \
	"69|cx5prof: error: irqbalance: irq.irqbalance: stop: no service manager to stop it with: stop it by hand, or with --sysroot set CX5PROF_SYSTEMCTL" \
	"enabled at boot, no service manager: plan exit 69"
rm -r "$SR/etc/systemd"
rmdir "$SR/etc" 2>/dev/null
mv "$WORK/gone/sr812" "$SR/proc/812"
mv "$WORK/gone/pr812" "$PRISTINE/proc/812"

# ---- the shipped lab service manager: udp-jumbo.yaml unmodified
export CX5PROF_SYSTEMCTL=$TOP/contrib/lab/systemctl
state_snapshot "$WORK/before.json" # show asks the service manager now
run cx plan "$TOP/profiles/udp-jumbo.yaml"
is "$rc" 2 "lab systemctl: plan of the shipped udp-jumbo.yaml: changes pending"
is "$(printf '%s\n' "$out" | grep '^irqbalance')" \
	"irqbalance  service  active=1,enabled=1 -> stopped  (before IRQ affinity: irqbalance would move the pins again)" \
	"lab systemctl: the irqbalance stop is planned"
run cx apply "$TOP/profiles/udp-jumbo.yaml"
is "$rc|$(printf '%s\n' "$out" | tail -n 1)" "0|applied 67 changes (transaction 3)" "lab systemctl: apply exit 0"
[ ! -e "$SR/proc/812" ] && [ -d "$SR.systemctl/stash/812" ]
ok $? "lab systemctl: the irqbalance process is gone from the sysroot (kept aside)"
is "$(cat "$SR.systemctl/irqbalance.service.active" "$SR.systemctl/irqbalance.service.enabled")" "inactive
disabled" "lab systemctl: irqbalance.service stopped and disabled"
run cx rollback
is "$rc" 0 "lab systemctl: rollback exit 0"
host_as_before
ok $? "lab systemctl: rollback leaves the sysroot byte for byte as before"
is "$(cat "$SR.systemctl/irqbalance.service.active" "$SR.systemctl/irqbalance.service.enabled")" "active
enabled" "lab systemctl: irqbalance.service started and enabled again"

# ---- an irqbalance the service does not stop: EBUSY names it
mkdir -p "$WORK/stubborn"
cat >"$WORK/stubborn/systemctl" <<'EOS'
#!/bin/sh
case "$1" in
is-active) echo active ;;
is-enabled) echo enabled ;;
show) echo loaded ;;
esac
exit 0
EOS
chmod +x "$WORK/stubborn/systemctl"
export CX5PROF_SYSTEMCTL=$WORK/stubborn/systemctl
state_snapshot "$WORK/before.json"
run cx apply "$WORK/profiles/stop.yaml"
is "$rc" 6 "stubborn irqbalance: apply fails and is undone (exit 6)"
is "$(printf '%s\n' "$err" | grep -m1 '^cx5prof: error: ')" \
	"cx5prof: error: apply failed at step 3: irqbalance service active=1,enabled=1 -> stopped: irqbalance pid 812 (/usr/sbin/irqbalance --foreground) still runs after \`$WORK/stubborn/systemctl stop irqbalance.service\`: the service did not start it (or did not stop it), and cx5prof kills no process; the service was put back as it was: end 812 by hand, or stop what started it, then apply again" \
	"stubborn irqbalance: the error names the pid, its command line and the command"
host_as_before
ok $? "stubborn irqbalance: host as before"

done_testing
