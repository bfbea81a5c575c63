#!/usr/bin/env bash
# 38-undo-log-compat.t: an undo log written before the change kinds became
# modules (engine/kinds/) still rolls back. tests/fixtures/undo-log/history.db
# was recorded by cx5prof 8266525 (`CX5_RECORD_UNDO_LOG=DIR prove` this test
# with that binary writes DIR/history.db). Its two transactions, on ens1f0 of
# the cx5-2port sysroot in the lab:
#   1: 2 sysctls, the irqbalance ban, the MTU, 16 IRQ pins, the boot unit
#      (sysctl, irqbalance-ban, mtu, irq, boot)
#   2: channels rx/tx 1 -> 2 (the veth has 2), irqbalance stopped, the boot
#      unit (channels, irqbalance, boot)
# Every kind there is but rings (a veth has none).
# This binary applies the same two profiles into its own database: the
# changes it records are the fixture's, row for row; then the fixture's
# database rolls both back and the host is as before.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 38

CONF=etc/default/irqbalance
for d in "$SR" "$PRISTINE"; do
	mkdir -p "$d/etc/default"
	printf '%s\n' '# irqbalance configuration' 'IRQBALANCE_ARGS="--hintpolicy=ignore"' >"$d/$CONF"
	chmod 0644 "$d/$CONF"
done
FAKE=$WORK/systemd
mkdir -p "$FAKE/stash"
echo active >"$FAKE/active"
echo enabled >"$FAKE/enabled"
cat >"$FAKE/systemctl" <<EOS
#!/bin/sh
s="$FAKE"
case "\$2" in
cx5prof-apply@*.service)
	case "\$1" in
	is-enabled) st=\$(cat "\$s/\$2" 2>/dev/null || echo disabled); echo "\$st"; [ "\$st" = enabled ] ;;
	show) echo loaded ;;
	enable) echo enabled >"\$s/\$2" ;;
	disable) echo disabled >"\$s/\$2" ;;
	*) exit 1 ;;
	esac
	exit ;;
irqbalance.service) ;;
*) exit 5 ;;
esac
case "\$1" in
is-enabled) cat "\$s/enabled"; [ "\$(cat "\$s/enabled")" = enabled ] ;;
is-active) cat "\$s/active"; [ "\$(cat "\$s/active")" = active ] ;;
try-restart) ;;
stop) echo inactive >"\$s/active"; [ ! -d "$SR/proc/812" ] || mv "$SR/proc/812" "\$s/stash/" ;;
start) echo active >"\$s/active"; [ ! -d "\$s/stash/812" ] || mv "\$s/stash/812" "$SR/proc/" ;;
enable) echo enabled >"\$s/enabled" ;;
disable) echo disabled >"\$s/enabled" ;;
*) exit 1 ;;
esac
EOS
chmod +x "$FAKE/systemctl"
export CX5PROF_SYSTEMCTL=$FAKE/systemctl

# Applied from where the boot unit reads them, so each apply enables it.
ETC=etc/cx5prof/profiles
mkdir -p "$SR/$ETC" "$PRISTINE/$ETC"
# The profiles are written here, not taken from profiles/: the undo log
# this binary writes for them must stay the one the old binary wrote.
cat >"$SR/$ETC/ban.yaml" <<'EOY'
version: 1
name: irq-ban
match:
  interfaces: [ens1f0]
link:
  mtu: 9000
irq:
  policy: numa-local
  irqbalance: ban
sysctl:
  net.core.rmem_max: ">= 4M"
  net.core.wmem_max: ">= 4M"
EOY
cat >"$SR/$ETC/stop.yaml" <<'EOY'
version: 1
name: channels-stop
match:
  interfaces: [ens1f0]
link:
  channels:
    rx: 2
    tx: 2
irq:
  irqbalance: stop
EOY
cp "$SR/$ETC/"* "$PRISTINE/$ETC/"
state_snapshot "$WORK/before.json"
units() { echo "$(cat "$FAKE/cx5prof-apply@ban.service") $(cat "$FAKE/cx5prof-apply@stop.service")"; }

# changes TXN [DB]: the undo log of a transaction, one row per change.
changes() {
	sqlite3 "${2:-$DB}" "SELECT seq, kind, object, key, old_value, new_value FROM changes WHERE txn = $1 ORDER BY seq"
}

apply_both() {
	cx apply "$SR/$ETC/ban.yaml" >/dev/null 2>&1 && cx apply "$SR/$ETC/stop.yaml" >/dev/null 2>&1
}

if [ -n "${CX5_RECORD_UNDO_LOG:-}" ]; then
	apply_both
	ok $? "recorded with $CX5PROF"
	mkdir -p "$CX5_RECORD_UNDO_LOG" && rm -f "$CX5_RECORD_UNDO_LOG/history.db"
	sqlite3 "$DB" "VACUUM INTO '$CX5_RECORD_UNDO_LOG/history.db'"
	ok $? "written to $CX5_RECORD_UNDO_LOG/history.db"
	done_testing
	exit 0
fi

OLD=$WORK/old.db
cp "$FIXTURES/undo-log/history.db" "$OLD"
is "$(sqlite3 "$OLD" "SELECT group_concat(kind, ' ') FROM (SELECT DISTINCT kind FROM changes ORDER BY kind)")" \
	"boot channels irq irqbalance irqbalance-ban mtu sysctl" "fixture: every kind but rings"

apply_both
ok $? "this binary applies both profiles"
is "$(changes 1)" "$(changes 1 "$OLD")" "transaction 1: the same undo log as the old binary wrote"
is "$(changes 2)" "$(changes 2 "$OLD")" "transaction 2: the same undo log as the old binary wrote"
is "$(cat "$FAKE/active") $(mtu_of ens1f0) $(units)" "inactive 9000 enabled enabled" \
	"applied: irqbalance stopped, MTU 9000, both boot units enabled"

run ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$OLD" rollback 2
is "$rc" 0 "old log, rollback 2: exit 0"
is "$(printf '%s\n' "$out" | tail -n 1)" "rolled back transaction 2 (recorded as transaction 3)" \
	"old log, rollback 2: summary"
is "$(cat "$FAKE/active") $(cat "$FAKE/enabled") $(units)" "active enabled enabled disabled" \
	"old log, rollback 2: irqbalance running again, its boot unit disabled"
run ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$OLD" rollback 1
is "$rc" 0 "old log, rollback 1: exit 0"
is "$(printf '%s\n' "$out" | tail -n 1)" "rolled back transaction 1 (recorded as transaction 4)" \
	"old log, rollback 1: summary"
host_as_before
ok $? "old log: the kernel state and every sysroot file are as before"
is "$(units)" "disabled disabled" "old log: both boot units disabled"
is "$(sqlite3 "$OLD" "SELECT group_concat(status, ' ') FROM (SELECT status FROM transactions ORDER BY id)")" \
	"rolled_back rolled_back committed committed" "old log: both transactions marked rolled back"

done_testing
