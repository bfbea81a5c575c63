#!/usr/bin/env bash
# 47-irqbalance-ban.t: `irq.irqbalance: ban` is a change of its own: irqbalance
# keeps running, IRQBALANCE_ARGS in /etc/default/irqbalance gets a --banirq
# for every completion IRQ the plan pins, and the service is try-restarted
# so it reads them. The undo log holds the whole old file (content, mode,
# or its absence): rollback and a failed apply put it back byte for byte.
# The service manager is a fake (CX5PROF_SYSTEMCTL) as in 46-irqbalance.t,
# which also records try-restart.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 47

CONF=etc/default/irqbalance
for d in "$SR" "$PRISTINE"; do
	mkdir -p "$d/etc/default"
	printf '%s\n' '# irqbalance configuration' '#IRQBALANCE_ONESHOT=' \
		'IRQBALANCE_ARGS="--hintpolicy=ignore"' '#IRQBALANCE_BANNED_CPUS=' >"$d/$CONF"
	chmod 0640 "$d/$CONF"
done

FAKE=$WORK/systemd
mkdir -p "$FAKE/stash"
echo active >"$FAKE/active"
echo enabled >"$FAKE/enabled"
cat >"$FAKE/systemctl" <<EOS
#!/bin/sh
s="$FAKE"
echo "\$*" >>"\$s/calls"
[ "\$2" = irqbalance.service ] || exit 5
case "\$1" in
is-enabled) cat "\$s/enabled"; [ "\$(cat "\$s/enabled")" = enabled ] ;;
is-active) cat "\$s/active"; [ "\$(cat "\$s/active")" = active ] ;;
try-restart) [ "\$(cat "\$s/active")" != active ] || echo "\$(cat "$SR/$CONF" 2>/dev/null | grep ^IRQBALANCE_ARGS)" >>"\$s/restarts" ;;
stop) echo inactive >"\$s/active"; [ ! -d "$SR/proc/812" ] || mv "$SR/proc/812" "\$s/stash/" ;;
start) echo active >"\$s/active"; [ ! -d "\$s/stash/812" ] || mv "\$s/stash/812" "$SR/proc/" ;;
*) exit 1 ;;
esac
EOS
chmod +x "$FAKE/systemctl"
export CX5PROF_SYSTEMCTL=$FAKE/systemctl
state_snapshot "$WORK/before.json"
restarts() { wc -l <"$FAKE/restarts" 2>/dev/null | tr -d ' ' || echo 0; }
mode_of() { stat -c %a "$1"; }
BANNED='IRQBALANCE_ARGS="--hintpolicy=ignore --banirq=99 --banirq=109 --banirq=110 --banirq=111 --banirq=112 --banirq=113 --banirq=114 --banirq=115 --banirq=116 --banirq=117 --banirq=118 --banirq=119 --banirq=120 --banirq=121 --banirq=122 --banirq=123"'
NOTE='(before IRQ affinity: irqbalance would move the pins again)'

sed 's/irqbalance: leave/irqbalance: ban/' "$WORK/profiles/one-port.yaml" >"$WORK/profiles/ban.yaml"

# ---- plan
run cx plan "$WORK/profiles/ban.yaml"
is "$rc" 2 "plan: changes pending"
is "$(printf '%s\n' "$out" | sed -n 3p)" "irqbalance  banirq  - -> 99,109-123  $NOTE" \
	"plan: one readable line, the completion IRQs of ens1f0, before the pins"
is "$(printf '%s\n' "$out" | tail -n 1)" "20 changes pending" "plan: 2 sysctls, the ban, the MTU, 16 IRQs"
run cx --json plan "$WORK/profiles/ban.yaml"
is "$(printf '%s\n' "$out" | SR=$SR /usr/bin/python3 -c '
import json, os, sys
c = [c for c in json.load(sys.stdin)["changes"] if c["kind"] == "irqbalance-ban"][0]
u = json.loads(c["before"])
print(u["path"], oct(u["mode"]), u["content"] == open(os.environ["SR"] + "/etc/default/irqbalance").read(), c["after"])')" \
	"/etc/default/irqbalance 0o640 True 99,109-123" "plan --json: the old value is the whole file (path, mode, content)"

# ---- apply
run cx apply "$WORK/profiles/ban.yaml"
is "$rc" 0 "apply: exit 0"
is "$(cat "$SR/$CONF")" "# irqbalance configuration
#IRQBALANCE_ONESHOT=
$BANNED
#IRQBALANCE_BANNED_CPUS=" "apply: --banirq for each pinned IRQ, every other line kept"
is "$(mode_of "$SR/$CONF")" 640 "apply: the file keeps its mode"
is "$(cat "$FAKE/restarts")" "$BANNED" "apply: irqbalance try-restarted after the file was written"
is "$(cat "$FAKE/active")" active "apply: irqbalance keeps running"
[ -e "$SR/proc/812" ]
ok $? "apply: its process is still there"
is "$(sqlite3 "$DB" "SELECT old_value FROM changes WHERE kind = 'irqbalance-ban'" |
	/usr/bin/python3 -c 'import json, sys; print(json.loads(sys.stdin.read())["content"], end="")')" \
	"$(cat "$PRISTINE/$CONF")" "apply: the undo log holds the old file"
cp -p "$SR/$CONF" "$WORK/banned"

run cx apply "$WORK/profiles/ban.yaml"
is "$rc:$out" "0:nothing to change" "second apply: nothing to change"
cmp -s "$WORK/banned" "$SR/$CONF"
ok $? "second apply: the file is untouched"
is "$(restarts)" 1 "second apply: no restart"

# ---- drift: the ban removed by hand
cp -p "$PRISTINE/$CONF" "$SR/$CONF"
run cx verify "$WORK/profiles/ban.yaml" --no-bench
is "$rc" 3 "verify: a removed ban is drift (exit 3)"
printf '%s\n' "$out" | grep -q '^  irqbalance banirq: current .*, expected 99,109-123$'
ok $? "verify: the drift names irqbalance banirq"
cp -p "$WORK/banned" "$SR/$CONF"

# ---- rollback
run cx rollback
is "$rc" 0 "rollback: exit 0"
cmp -s "$PRISTINE/$CONF" "$SR/$CONF"
ok $? "rollback: the file byte for byte as before"
is "$(mode_of "$SR/$CONF")" 640 "rollback: mode as before"
is "$(sed -n 2p "$FAKE/restarts")" 'IRQBALANCE_ARGS="--hintpolicy=ignore"' "rollback: irqbalance try-restarted with the old file"
host_as_before
ok $? "rollback: host as before (sysroot byte for byte)"

# ---- a failure at the ban's step, and after it
run env CX5PROF_FAILPOINT=apply-step:3 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$WORK/profiles/ban.yaml"
is "$rc" 6 "failure at the ban (step 3): exit 6"
printf '%s\n' "$err" | grep -q 'the host is back as it was\|back as before\|rolled back'
ok $? "failure at the ban: says it rolled back"
host_as_before && cmp -s "$PRISTINE/$CONF" "$SR/$CONF" && [ "$(mode_of "$SR/$CONF")" = 640 ]
ok $? "failure at the ban: host and file as before"

n=$(restarts)
run env CX5PROF_FAILPOINT=apply-step:4 ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" apply "$WORK/profiles/ban.yaml"
is "$rc" 6 "failure after the ban (step 4, the MTU): exit 6"
is "$(tail -n 2 "$FAKE/restarts" | tr '\n' '|')" "$BANNED|IRQBALANCE_ARGS=\"--hintpolicy=ignore\"|" \
	"failure after the ban: banned and restarted, then restored and restarted"
is "$(restarts)" $((n + 2)) "failure after the ban: two restarts"
host_as_before && cmp -s "$PRISTINE/$CONF" "$SR/$CONF"
ok $? "failure after the ban: host and file as before"

# ---- the file edited after the ban: rollback does not overwrite the edit
run cx apply "$WORK/profiles/ban.yaml"
is "$rc" 0 "edit: apply exit 0"
printf '%s\n' 'IRQBALANCE_ONESHOT=yes' >>"$SR/$CONF"
cp -p "$SR/$CONF" "$WORK/edited"
run cx rollback
is "$rc" 7 "edit: rollback exit 7 (not fully restored)"
is "$(printf '%s\n' "$err" | sed -n 1p)" \
	"cx5prof: error: NOT restored: irqbalance banirq 99,109-123 -> -: /etc/default/irqbalance changed since the ban was written (edited, removed or replaced by a symlink): nothing written; remove the --banirq options by hand" \
	"edit: the failed step names the file and what to do"
cmp -s "$WORK/edited" "$SR/$CONF"
ok $? "edit: the edited file is kept as it is"
is "$(mtu_of ens1f0):$(cat "$SR/proc/irq/99/smp_affinity_list")" "1500:$(cat "$PRISTINE/proc/irq/99/smp_affinity_list")" \
	"edit: the other steps are restored"
cp -p "$PRISTINE/$CONF" "$SR/$CONF"
DB=$WORK/history-2.db # a fresh history: the one above holds a failed rollback

# ---- a symlinked config file is refused, never replaced by a regular file
mv "$SR/$CONF" "$SR/etc/irqbalance.conf"
ln -s ../irqbalance.conf "$SR/$CONF"
run cx plan "$WORK/profiles/ban.yaml"
is "$rc" 69 "symlink: plan exit 69"
is "$(printf '%s\n' "$err" | grep error)" \
	"cx5prof: error: irqbalance: irq.irqbalance: ban: /etc/default/irqbalance is a symlink: cx5prof would replace it by a regular file: add the --banirq options to the link's target by hand, or use irq.irqbalance: stop" \
	"symlink: the plan says why and what to do"
[ -L "$SR/$CONF" ]
ok $? "symlink: still a symlink"
rm "$SR/$CONF"
mv "$SR/etc/irqbalance.conf" "$SR/$CONF"

# ---- no config file but irqbalance running: the file is created, and removed again
rm "$SR/$CONF" "$PRISTINE/$CONF"
run cx plan "$WORK/profiles/ban.yaml"
is "$(printf '%s\n' "$out" | sed -n 3p)" "irqbalance  banirq  - -> 99,109-123  $NOTE" "no file: plan bans"
run cx apply "$WORK/profiles/ban.yaml"
is "$rc:$(cat "$SR/$CONF")" "0:# added by cx5prof: keep irqbalance off the NIC's pinned IRQs
${BANNED/--hintpolicy=ignore /}" "no file: apply creates it"
run cx rollback
is "$rc" 0 "no file: rollback exit 0"
[ ! -e "$SR/$CONF" ] && sysroot_as_before
ok $? "no file: rollback removes it"

# ---- neither configured nor running: nothing to ban, and the plan says so
echo inactive >"$FAKE/active"
mv "$SR/proc/812" "$FAKE/stash/"
run cx plan "$WORK/profiles/ban.yaml"
is "$rc" 2 "not installed: other changes still pending"
printf '%s\n' "$out" | grep -q banirq
ok $((!$?)) "not installed: no ban in the plan"
is "$(printf '%s\n' "$err" | grep 'irq.irqbalance: ban')" \
	"cx5prof: warning: irq.irqbalance: ban: irqbalance is neither running nor configured here (no /etc/default/irqbalance or /etc/sysconfig/irqbalance): nothing to ban" \
	"not installed: the plan says why"

done_testing
