#!/usr/bin/env bash
# 114-campaign-check.t: the operator's controls and consistent errors, in
# the namespace lab (campaign-lib.sh).
# - `campaign --check` plans every group against the lab's host: a group
#   for an interface the host does not have and one that stops irqbalance
#   without a service manager are named with the reason, exit 5, and the
#   first line does not say ok; a fixed repeat too small for a verdict
#   under the correction is warned about; --json says the same (valid);
#   nothing is recorded or changed.
# - An ablation whose family cannot apply here names it with the reason.
# - The same blocking failure in two rounds of a group in a row (the
#   peer's path MTU below the group's) stops that group's rounds with that
#   one reason; the other group runs all its rounds.
# - warmup: N runs N rounds first, recorded and never counted.
# - A group file that does not exist: exit 66, like a missing campaign
#   file; `help campaing` suggests the verb.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/campaign-lib.sh"
csetup c114

cat >"$WORK/no-port.yaml" <<YAML
version: 1
name: no-port
match:
  interfaces: [ens9f9]
link:
  mtu: 9000
YAML
cat >"$WORK/stop-irqbalance.yaml" <<YAML
version: 1
name: stop-irqbalance
extends: $TOP/profiles/baseline.yaml
irq:
  irqbalance: stop
YAML
cfile lab-check "$TOP/profiles/baseline.yaml" "$WORK/no-port.yaml" "$WORK/stop-irqbalance.yaml" >"$WORK/check.yaml"

# ---- --check plans each group here
run cx campaign --check "$WORK/check.yaml"
is "$rc" 5 "--check: a group would be skipped: exit 5"
is "$(printf '%s\n' "$out" | grep '^group' | sed 's/ (.*): netperf 1 s to 198.18.0.2//')" "group       baseline
group       no-port: would be skipped (exit 66): ens9f9: no such interface
group       stop-irqbalance: would be skipped (exit 69): irqbalance: irq.irqbalance: stop: no service manager to stop it with" \
	"--check: each group that would be skipped is named with the reason"
is "$(printf '%s\n' "$out" | head -n 1)" "campaign    lab-check ($WORK/check.yaml): 2 of 3 groups would be skipped" \
	"--check: the first line says ok only when nothing would be skipped"
is "$err" "cx5prof: warning: repeat 1 can never decide: 3 throughput comparisons under Holm's correction need at least 5 rounds per group: use repeat: auto (with max_rounds) or repeat: 5
cx5prof: error: campaign --check: 2 groups would be skipped on this host" \
	"--check: a fixed repeat that can never decide, and the count, on stderr"
run cx --json campaign --check "$WORK/check.yaml"
printf '%s' "$out" >"$WORK/check.json"
run cjson "$WORK/check.json" 'print([(g["group"], g["skipped_exit_code"]) for g in d["groups"]], d["estimated_s"])'
is "$rc/$out" "0/[('baseline', None), ('no-port', 66), ('stop-irqbalance', 69)] 9" "--check --json: valid, the same groups skipped"
[ ! -e "$DB" ] && same_sysroot
ok $? "--check: nothing recorded, nothing changed"

# ---- an ablation whose family cannot apply here: reported with the
# reason, not dropped (its group alone and the full profile are skipped)
cat >"$WORK/jumbo-stop.yaml" <<YAML
version: 1
name: jumbo-stop
extends: $TOP/profiles/mtu-jumbo.yaml
irq:
  irqbalance: stop
YAML
printf 'version: 1\nname: lab-ablate-stop\nablate: %s\nverify: {duration: 1}\n' "$WORK/jumbo-stop.yaml" >"$WORK/ablate-stop.yaml"
run cx campaign "$WORK/ablate-stop.yaml"
is "$rc" 0 "an ablation with a family that cannot apply: exit 0 (the others were measured)"
printf '%s\n' "$out" | grep -qx 'IRQ map/irqbalance/XPS   not applied: irqbalance: irq.irqbalance: stop: no service manager to stop it with'
ok $? "the attribution names the family that could not apply, with the reason"
printf '%s\n' "$out" | grep -qE '^verdict     .*; families: MTU 9000: no clear difference, IRQ map/irqbalance/XPS: not applied \(irqbalance: irq.irqbalance: stop: no service manager to stop it with\); skipped: irq-only \(exit 69\), full \(exit 69\)$'
ok $? "the verdict names it too, and the skipped groups (one round each: no clear difference)"

# ---- the same failure twice: the rest of the group is not run
ip -n "$PEER_NS" link set peer0 mtu 1500
cfile lab-pmtu "$TOP/profiles/baseline.yaml" "$TOP/profiles/mtu-jumbo.yaml" >"$WORK/pmtu.yaml"
printf 'repeat: 4\nwarmup: 1\n' >>"$WORK/pmtu.yaml"
run cx campaign "$WORK/pmtu.yaml" --json
is "$rc" 1 "the peer at MTU 1500: mtu-jumbo cannot measure: exit 1"
printf '%s' "$out" >"$WORK/pmtu.json"
run cjson "$WORK/pmtu.json" '
b, j = d["groups"]
print([r["warmup"] for r in b["rounds"]], b["rounds_counted"], len(j["rounds"]), j["rounds_counted"],
      j["skipped"].startswith("the same failure in two rounds in a row, its other rounds not run: not run: 9000-byte frames"),
      j["skipped_exit_code"], d["best"][0]["skipped"])'
is "$rc/$out" "0/[True, False, False, False, False] 4 2 0 True 1 ['mtu-jumbo']" \
	"a warm-up round not counted; mtu-jumbo stopped after two identical path-MTU failures, with that one reason"
ip -n "$PEER_NS" link set peer0 mtu 9000
same_sysroot && [ "$(mtus)" == "$MTUS_BEFORE" ]
ok $? "afterwards: the host is as before"

# ---- consistent errors
printf 'version: 1\nname: lab-missing\ngroups: [%s, nope.yaml]\n' "$TOP/profiles/baseline.yaml" >"$WORK/missing.yaml"
run cx campaign "$WORK/missing.yaml"
is "$rc/$err" "66/cx5prof: error: $WORK/missing.yaml:3:$((11 + ${#TOP} + 24)): groups[1]: cannot read \"$WORK/nope.yaml\": No such file or directory" \
	"a group file that does not exist: exit 66"
run cx campaign --check "$WORK/missing.yaml"
is "$rc" 66 "--check: the same exit 66"
run cx campaign "$WORK/none.yaml"
is "$rc" 66 "a campaign file that does not exist: exit 66"
run "$CX5PROF" help campaing
is "$rc/$err" "64/cx5prof: error: help: unknown verb 'campaing' (did you mean 'campaign'?)" "help campaing: suggests the verb"

done_testing
