#!/usr/bin/env bash
# 49-reboot.t: what survives a reboot. A profile applied from
# /etc/cx5prof/profiles/NAME.yaml persists: apply enables
# cx5prof-apply@NAME.service as its last change and rollback disables it;
# --runtime-only leaves it alone; a profile kept elsewhere, a unit not
# installed or masked is applied runtime only, with a warning that says
# why. A transaction left open by a crash before a reboot (a new boot id in
# the sysroot) is closed by the next apply, as the boot unit runs it: what
# survives a reboot (irqbalance) is restored, the runtime changes are
# counted as reset by the reboot and not written. The service manager is a
# fake (CX5PROF_SYSTEMCTL) keeping its state under the test's directory.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 49
txn_short_profile 3

FAKE=$WORK/systemd
mkdir -p "$FAKE/stash"
echo active >"$FAKE/irqbalance.active"
echo enabled >"$FAKE/irqbalance.enabled"
cat >"$FAKE/systemctl" <<EOS
#!/bin/sh
s="$FAKE"
echo "\$*" >>"\$s/calls"
verb=\$1 unit=\$2
case "\$unit" in
irqbalance.service)
	case "\$verb" in
	is-enabled) cat "\$s/irqbalance.enabled"; [ "\$(cat "\$s/irqbalance.enabled")" = enabled ] ;;
	is-active) cat "\$s/irqbalance.active"; [ "\$(cat "\$s/irqbalance.active")" = active ] ;;
	stop) echo inactive >"\$s/irqbalance.active"; [ ! -d "$SR/proc/812" ] || mv "$SR/proc/812" "\$s/stash/" ;;
	start) echo active >"\$s/irqbalance.active"; [ ! -d "\$s/stash/812" ] || mv "\$s/stash/812" "$SR/proc/" ;;
	enable) echo enabled >"\$s/irqbalance.enabled" ;;
	disable) echo disabled >"\$s/irqbalance.enabled" ;;
	*) exit 1 ;;
	esac ;;
cx5prof-apply@*.service)
	if [ ! -e "\$s/template" ]; then
		case "\$verb" in
		is-enabled) echo "Failed to get unit file state for \$unit: No such file or directory" >&2; exit 1 ;;
		show) echo not-found; exit 0 ;;
		*) exit 5 ;;
		esac
	fi
	case "\$verb" in
	is-enabled)
		if [ -e "\$s/masked" ]; then echo masked; exit 1; fi
		st=\$(cat "\$s/\$unit" 2>/dev/null || echo disabled); echo "\$st"; [ "\$st" = enabled ] ;;
	show) echo loaded ;;
	enable) [ ! -e "\$s/enable-fails" ] || exit 1; echo enabled >"\$s/\$unit" ;;
	disable) echo disabled >"\$s/\$unit" ;;
	*) exit 1 ;;
	esac ;;
*) exit 5 ;;
esac
EOS
chmod +x "$FAKE/systemctl"
export CX5PROF_SYSTEMCTL=$FAKE/systemctl
unit_state() { cat "$FAKE/cx5prof-apply@$1.service" 2>/dev/null || echo disabled; }
# A simulated reboot: a new boot id (in the pristine copy too, the one file
# a reboot changes for good), the runtime state (sysctls, IRQ pins, MTU)
# back to the defaults; the fake service manager keeps its state.
reboot() {
	local root
	for root in "$SR" "$PRISTINE"; do echo "$1" >"$root/proc/sys/kernel/random/boot_id"; done
	cp -a "$PRISTINE/proc/sys/net/core/." "$SR/proc/sys/net/core/"
	cp -a "$PRISTINE/proc/irq/." "$SR/proc/irq/"
	ip -n "$HOST_NS" link set dev ens1f0 mtu 1500
}
state_snapshot "$WORK/before.json" # show asks the service manager now

# The profiles the boot unit reads, in the sysroot (and its pristine copy).
for root in "$SR" "$PRISTINE"; do
	mkdir -p "$root/etc/cx5prof/profiles"
	cp "$WORK/profiles/mtu-jumbo.yaml" "$WORK/profiles/verify-netperf.yaml" "$WORK/profiles/one-port.yaml" "$root/etc/cx5prof/profiles/"
	sed 's/irqbalance: leave/irqbalance: stop/' "$WORK/profiles/one-port.yaml" \
		>"$root/etc/cx5prof/profiles/stop.yaml"
done
ETC=$SR/etc/cx5prof/profiles
UNIT=cx5prof-apply@one-port.service
HEAD="$(cx plan --runtime-only "$ETC/one-port.yaml" 2>/dev/null | head -n 6)"
persistence() { printf '%s\n' "$err" | grep 'persist'; }

# ---- a profile kept elsewhere: runtime only, and said why
run cx --json plan "$WORK/profiles/one-port.yaml"
is "$rc" 2 "elsewhere: plan exit 2"
is "$(printf '%s' "$out" | jq -c '[.persistent, .boot_unit, ([.changes[] | select(.kind == "boot")] | length)]')" \
	"[false,null,0]" "elsewhere: not persistent, no boot change"
is "$(persistence)" "cx5prof: warning: not persistent: the boot-time unit applies /etc/cx5prof/profiles/one-port.yaml, and $WORK/profiles/one-port.yaml is not that file: write it there as one file (mkdir -p /etc/cx5prof/profiles && cx5prof validate --flatten $WORK/profiles/one-port.yaml > /etc/cx5prof/profiles/one-port.yaml) and apply that file, or pass --runtime-only; the changes last until the next reboot" \
	"elsewhere: the warning says what to do"

# ---- the unit is not installed
run cx plan "$ETC/one-port.yaml"
is "$rc:$(printf '%s\n' "$out" | grep -c cx5prof-apply)" "2:0" "not installed: no boot change"
is "$(persistence)" "cx5prof: warning: not persistent: $UNIT is not installed (\`make install\` installs cx5prof-apply@.service; then \`systemctl daemon-reload\`); the changes last until the next reboot" \
	"not installed: the warning says how to install it"

# ---- masked
touch "$FAKE/template" "$FAKE/masked"
run cx plan "$ETC/one-port.yaml"
is "$(persistence)" "cx5prof: warning: not persistent: $UNIT is masked, which enable cannot change (\`systemctl unmask\` it if masked); the changes last until the next reboot" \
	"masked: the warning names the state"
rm "$FAKE/masked"

# ---- installed: apply enables it last, rollback disables it
run cx plan "$ETC/one-port.yaml"
is "$rc:$(persistence)" "2:" "installed: plan exit 2, no persistence warning"
is "$(printf '%s\n' "$out" | head -n 6)" "$HEAD" "installed: the runtime changes come first, as with --runtime-only"
is "$(printf '%s\n' "$out" | sed -n 7p)" \
	"$UNIT  enabled  disabled -> enabled  (last: re-applied at boot only once all of it has landed)" \
	"installed: enabling the boot unit is the last change"
run cx --json plan "$ETC/one-port.yaml"
is "$(printf '%s' "$out" | jq -c '[.persistent, .boot_unit]')" "[true,\"$UNIT\"]" "installed: JSON persistent, boot_unit"

run cx apply "$ETC/one-port.yaml"
is "$rc" 0 "apply: exit 0"
is "$(unit_state one-port)" enabled "apply: the boot unit is enabled"
run cx --json apply "$ETC/one-port.yaml"
is "$(printf '%s' "$out" | jq -c '[.changed, .persistent]'):$rc" "[false,true]:0" \
	"second apply: nothing changed, still persistent"
run cx rollback
is "$rc" 0 "rollback: exit 0"
printf '%s\n' "$out" | grep -qx "$UNIT  enabled  enabled -> disabled  applied"
ok $? "rollback: the boot unit is disabled first"
is "$(unit_state one-port)" disabled "rollback: the boot unit is disabled"
host_as_before
ok $? "rollback: host as before"

# ---- --runtime-only: the unit is left alone
run cx apply --runtime-only "$ETC/one-port.yaml"
is "$rc:$(unit_state one-port)" "0:disabled" "--runtime-only: applied, the unit stays disabled"
is "$(sqlite3 "$DB" "SELECT count(*) FROM changes WHERE txn = (SELECT max(id) FROM transactions) AND kind = 'boot'")" 0 \
	"--runtime-only: no boot change recorded"
run cx rollback
host_as_before
ok $? "--runtime-only: rollback, host as before"

# ---- enabling fails: the whole transaction is undone
touch "$FAKE/enable-fails"
run cx apply "$ETC/one-port.yaml"
is "$rc" 6 "enable fails: exit 6"
printf '%s\n' "$err" | grep -qx "cx5prof: error: apply failed at step 7: $UNIT enabled disabled -> enabled: read back differs or write failed (EIO)"
ok $? "enable fails: says which step and why"
is "$(unit_state one-port)" disabled "enable fails: the unit stays disabled"
host_as_before
ok $? "enable fails: host as before"
rm "$FAKE/enable-fails"

# ---- a reboot after a crash mid-apply: the boot unit's apply closes it
# stop.yaml: 2 sysctls, irqbalance stop, MTU, 3 IRQs, boot unit = 8 steps.
P=$ETC/stop.yaml
CX5PROF_FAILPOINT=apply-pause:5 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$P" \
	>"$WORK/out" 2>"$WORK/err" &
bg=$!
TXN_PIDS="$TXN_PIDS $bg"
wait_for "$WORK/err" "apply-pause: paused before step 5"
ok $? "crash: apply paused before step 5 (sysctls, irqbalance, MTU landed)"
kill -9 "$(sed -n 's/.*(pid \([0-9]*\)).*/\1/p' "$WORK/err")"
wait "$bg" 2>/dev/null
crashed=$(sqlite3 "$DB" "SELECT max(id) FROM transactions WHERE kind = 'apply'")
is "$(txn_status "$crashed"):$(cat "$FAKE/irqbalance.active") $(cat "$FAKE/irqbalance.enabled")" \
	"open:inactive disabled" "crash: transaction open, irqbalance stopped and disabled"
run cx apply --runtime-only "$P"
is "$rc" 9 "same boot: the next apply still refuses (exit 9)"

# The reboot: irqbalance stays stopped and disabled (that persists).
reboot 0b7e5a3c-49c1-4d6e-9a0f-2c6d1e8b7f10

run cx --json apply --runtime-only "$P"
is "$rc" 0 "after the reboot: the boot unit's apply exits 0"
is "$(printf '%s\n' "$err" | grep transaction)" "cx5prof: warning: transaction $crashed was left open in an earlier boot: closed it (rollback transaction $((crashed + 1)): 2 restored, 6 reset by the reboot)" \
	"after the reboot: it says it closed the crashed transaction"
is "$(printf '%s' "$out" | jq -c '[.closed_earlier_boot, .changed]')" "[[$crashed],true]" \
	"after the reboot: JSON names the closed transaction"
is "$(txn_status "$crashed")" rolled_back "after the reboot: the crashed transaction is rolled back"
is "$(sqlite3 "$DB" "SELECT group_concat(kind || ':' || state, ' ') FROM (SELECT kind, state FROM changes WHERE txn = $((crashed + 1)) ORDER BY seq)")" \
	"boot:applied irq:planned irq:planned irq:planned mtu:planned irqbalance:applied sysctl:planned sysctl:planned" \
	"after the reboot: only what persists (boot unit, irqbalance) was written back"
is "$(sqlite3 "$DB" "SELECT DISTINCT error FROM changes WHERE txn = $((crashed + 1)) AND state = 'planned'")" \
	"not written: reset by the reboot since transaction $crashed" "after the reboot: the reason is recorded"
is "$(cat "$FAKE/irqbalance.active") $(cat "$FAKE/irqbalance.enabled")" "inactive disabled" \
	"after the reboot: the new apply stopped irqbalance again"
run cx rollback
is "$rc" 0 "rollback of the boot's apply: exit 0"
host_as_before
ok $? "rollback of the boot's apply: host as before (irqbalance running and enabled)"

# ---- rollback, after a reboot, of a transaction from the earlier boot
run cx apply "$ETC/one-port.yaml"
is "$rc:$(unit_state one-port)" "0:enabled" "persistent apply before another reboot"
applied=$(sqlite3 "$DB" "SELECT max(id) FROM transactions WHERE kind = 'apply'")
reboot 5d1f3a2b-7c4e-4b8a-9e6d-0f1a2b3c4d5e
run cx rollback
is "$rc" 0 "rollback after the reboot: exit 0"
is "$(printf '%s\n' "$out" | tail -n 1)" \
	"rolled back transaction $applied (recorded as transaction $((applied + 1))); it is from an earlier boot: 6 runtime changes were reset by the reboot, not written" \
	"rollback after the reboot: says what the reboot had reset"
printf '%s\n' "$out" | grep -qx "ens1f0  mtu  9000 -> 1500  not written: reset by the reboot since transaction $applied"
ok $? "rollback after the reboot: each runtime change says why it was not written"
is "$(unit_state one-port)" disabled "rollback after the reboot: the boot unit is disabled"
host_as_before
ok $? "rollback after the reboot: host as before"

done_testing
