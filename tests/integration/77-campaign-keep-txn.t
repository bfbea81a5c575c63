#!/usr/bin/env bash
# 77-campaign-keep-txn.t: `campaign --keep` is an apply (one transaction
# engine, engine/txn.c). The kept group plans the boot-time unit exactly
# as `apply` of its file would: enabled for a file under
# /etc/cx5prof/profiles, with apply's "not persistent" warning elsewhere.
# A commit that cannot be recorded (failpoint commit:1) undoes the kept
# group, as apply does, instead of leaving it applied. A round whose undo
# fails (failpoints apply-step, undo-step) makes the campaign's last line
# say what is NOT restored, never "as before the campaign". The benchmark:
# the builtin runner against `serve` in the peer namespace; the service
# manager: a fake (CX5PROF_SYSTEMCTL) keeping its state here.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
need_root_netns
need_tool sqlite3
vsetup v77
ip -n "$HOST_NS" link set ens1f0 mtu 1500
timeout -k 1 900 ip netns exec "$PEER_NS" "$CX5PROF" serve --bind 198.18.0.2 2>"$WORK/serve.log" &
V_PIDS="$V_PIDS $!"
wait_listen 12866 || { echo "Bail out! serve did not start: $(cat "$WORK/serve.log")"; exit 1; }

FAKE=$WORK/systemd
mkdir -p "$FAKE"
cat >"$FAKE/systemctl" <<EOS
#!/bin/sh
verb=\$1 unit=\$2
case "\$unit" in
cx5prof-apply@*.service)
	case "\$verb" in
	is-enabled) st=\$(cat "$FAKE/\$unit" 2>/dev/null || echo disabled); echo "\$st"; [ "\$st" = enabled ] ;;
	show) echo loaded ;;
	enable) echo enabled >"$FAKE/\$unit" ;;
	disable) echo disabled >"$FAKE/\$unit" ;;
	*) exit 1 ;;
	esac ;;
*) exit 5 ;;
esac
EOS
chmod +x "$FAKE/systemctl"
export CX5PROF_SYSTEMCTL=$FAKE/systemctl
unit_state() { cat "$FAKE/cx5prof-apply@$1.service" 2>/dev/null || echo disabled; }
mtu() { ip -n "$HOST_NS" -o link show ens1f0 | grep -o 'mtu [0-9]*'; }

ETC=$SR/etc/cx5prof/profiles
mkdir -p "$ETC" "$WORK/elsewhere"
for d in "$ETC" "$WORK/elsewhere"; do
	printf 'version: 1\nname: baseline\nmatch:\n  interfaces: [ens1f0]\nlink:\n  mtu: 1500\n' >"$d/baseline.yaml"
	printf 'version: 1\nname: jumbo\nmatch:\n  interfaces: [ens1f0]\nlink:\n  mtu: 9000\nsysctl:\n  net.core.rmem_max: 4194304\n' >"$d/jumbo.yaml"
done
campaign() { # campaign FILE DIR
	printf 'version: 1\nname: keep\ngroups: [%s/baseline.yaml, %s/jumbo.yaml]\nverify: {peer: 198.18.0.2, runner: builtin, duration: 1}\n' \
		"$2" "$2" >"$1"
}
campaign "$WORK/etc.yaml" "$ETC"
campaign "$WORK/elsewhere.yaml" "$WORK/elsewhere"
rmem_before=$(cat "$SR/proc/sys/net/core/rmem_max")
rmem() { cat "$SR/proc/sys/net/core/rmem_max"; }
last_apply() { sqlite3 "$DB" "SELECT max(id) FROM transactions WHERE kind = 'apply'"; }

# ---- a kept group from /etc/cx5prof/profiles persists, as its apply would
run cx campaign "$WORK/etc.yaml" --keep last
is "$rc/$(mtu)/$(rmem)/$(unit_state jumbo)" "0/mtu 9000/4194304/enabled" \
	"--keep last: jumbo stays applied and its boot-time unit is enabled"
kept=$(last_apply)
is "$(sqlite3 "$DB" "SELECT t.status || ' ' || group_concat(c.kind, ',') FROM transactions t JOIN changes c ON c.txn = t.id WHERE t.id = $kept")" \
	"committed sysctl,mtu,boot" "--keep last: one committed transaction, the boot-time unit its last change (as apply plans it)"
printf '%s\n' "$out" | grep -q "^kept        jumbo applied (transaction $kept); every other group rolled back$"
ok $? "--keep last: the table names the kept group and its transaction"
run cx rollback
is "$rc/$(mtu)/$(rmem)/$(unit_state jumbo)" "0/mtu 1500/$rmem_before/disabled" \
	"rollback of the kept group: as before, the boot-time unit disabled again"
run cx apply "$ETC/jumbo.yaml"
is "$rc/$(unit_state jumbo)/$(sqlite3 "$DB" "SELECT group_concat(kind, ',') FROM changes WHERE txn = $(last_apply)")" \
	"0/enabled/sysctl,mtu,boot" "apply of the same file: the same changes, the same persistence"
run cx rollback
is "$rc/$(mtu)/$(unit_state jumbo)" "0/mtu 1500/disabled" "and rolled back"

# ---- kept from elsewhere: not persistent, with apply's own warning
run cx apply "$WORK/elsewhere/jumbo.yaml"
apply_warning=$(printf '%s\n' "$err" | grep 'not persistent')
cx rollback >/dev/null 2>&1
run cx campaign "$WORK/elsewhere.yaml" --keep last
is "$rc/$(mtu)/$(unit_state jumbo)" "0/mtu 9000/disabled" "--keep from elsewhere: kept, not persistent"
is "$(printf '%s\n' "$err" | grep 'not persistent')" "$apply_warning" \
	"--keep from elsewhere: apply's warning, word for word"
run cx rollback
is "$rc/$(mtu)" "0/mtu 1500" "and rolled back"

# ---- the kept group's commit cannot be recorded: undone, as apply's is
run env CX5PROF_FAILPOINT=commit:1 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
	campaign "$WORK/etc.yaml" --keep last
kept=$(last_apply)
is "$rc/$(mtu)/$(rmem)/$(unit_state jumbo)" "6/mtu 1500/$rmem_before/disabled" \
	"commit of the kept group fails: exit 6, every change undone, the unit disabled"
is "$(printf '%s\n' "$err" | grep error:)" "cx5prof: error: apply failed after its last change: cannot record transaction $kept as committed in $DB: No space left on device
cx5prof: error: every change was undone: the host is back as it was (transaction $kept rolled back)
cx5prof: error: campaign: --keep last: group jumbo not kept" \
	"commit of the kept group fails: apply's messages, then the campaign's"
is "$(sqlite3 "$DB" "SELECT status FROM transactions WHERE id = $kept")" rolled_back \
	"commit of the kept group fails: its transaction is rolled back"
run cx rollback
is "$rc/$out" "0/nothing to roll back" "nothing is left to roll back"

# ---- a round whose undo fails: the last line says what is NOT restored
run env CX5PROF_FAILPOINT=apply-step:2,undo-step:1 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" \
	--db "$DB" campaign "$WORK/etc.yaml"
round=$(last_apply)
is "$rc" 7 "an undo fails in a round: exit 7"
printf '%s\n' "$out" | grep -q "^host        NOT as before the campaign: this host, transaction $round: "
ok $? "an undo fails in a round: the last line says this host is NOT as before, and which transaction"
printf '%s\n' "$out" | grep -q "as before the campaign$"
ok $((!$?)) "an undo fails in a round: never 'as before the campaign'"
run cx --json history show txn "$round"
run cx rollback
is "$rc/$(mtu)/$(rmem)" "0/mtu 1500/$rmem_before" "rollback then restores it"
done_testing
