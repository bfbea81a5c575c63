#!/usr/bin/env bash
# 112-campaign-ablate.t: `campaign --ablate PROFILE` in the namespace lab
# (campaign-lib.sh: a path shaped to a packet rate). The profile sets MTU
# 9000, socket buffer sysctls and NUMA-local IRQs (the lab's
# campaign-full.yaml without its 4M netperf buffers, which overflow the
# shaped path at MTU 1500: nothing but loss to compare); the ablation runs the
# host as found, each family alone, the whole profile and the whole
# profile minus each family (8 groups, 6 rounds each: with Holm over 7
# comparisons 6 rounds is the least that can decide). It exits 0, credits
# the MTU with a clear gain alone and inside the full profile, and finds
# the IRQ map (which a veth cannot feel: its IRQ writes go to the sysroot
# copy) "no clear difference" both ways. The attribution is in the table,
# the verdict, the record (valid) and the report's campaign.json; the host
# is as before.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/campaign-lib.sh"
csetup c112
FULL=$WORK/lab-tuned.yaml
cat >"$FULL" <<YAML
version: 1
name: lab-tuned
description: "MTU 9000, socket buffer floors, NUMA-local IRQs"
extends: $TOP/profiles/mtu-jumbo.yaml
sysctl:
  net.core.rmem_max: ">= 4M"
  net.core.wmem_max: ">= 4M"
irq:
  policy: numa-local
  irqbalance: leave
YAML
# The shipped benchmark runs 30 s: the campaign file makes it 1 s.
printf 'version: 1\nname: lab-ablate\nablate: %s\nverify: {duration: 1}\nrepeat: 6\n' "$FULL" >"$WORK/ablate.yaml"

# ---- --check: the derived groups, each planned against the lab
run cx campaign --check "$WORK/ablate.yaml"
is "$rc" 0 "--check --ablate: exit 0 (every group applies here)"
is "$(printf '%s\n' "$out" | sed -n '1,5p;6,$s/ (.*//p')" "campaign    lab-ablate ($WORK/ablate.yaml): ok
repeat      6 (8 groups: 48 rounds)
margin      ±8% throughput, ±1 pp loss; order alternate
estimate    48 rounds: about 3 min
ablate      $FULL: mtu (MTU 9000), irq (IRQ map/irqbalance/XPS), sysctl (sysctls)
group       baseline
group       mtu-only
group       irq-only
group       sysctl-only
group       full
group       full-no-mtu
group       full-no-irq
group       full-no-sysctl" "--check --ablate: the families and the 8 groups"

# ---- the ablation
run cx campaign "$WORK/ablate.yaml" --report "$WORK/report"
is "$rc" 0 "campaign with ablate: exit 0"
diag "$(printf '%s\n' "$out" | grep -v '^round ')"
M='[+-][0-9.]+% (\[[0-9.-]+\.\.[0-9.-]+\]|\[needs [0-9]+ rounds\])'
printf '%s\n' "$out" | grep -qE "^MTU 9000 +$M better +$M better\$"
ok $? "the attribution: MTU 9000 better alone and inside the full profile"
N='(no clear difference|no meaningful difference \(within ±8%\))'
printf '%s\n' "$out" | grep -qE "^IRQ map/irqbalance/XPS +$M $N +$M $N\$"
ok $? "the attribution: the IRQ map no clear (or no meaningful) difference alone and inside the full profile"
printf '%s\n' "$out" | grep -qE '^verdict     .*; families: MTU 9000 \+[0-9]+% \[[0-9]+\.\.[0-9]+\], IRQ map/irqbalance/XPS: (no clear difference|no meaningful difference \(within ±8%\)), sysctls: [^;]+$'
ok $? "the verdict credits MTU 9000 with its gain and interval, and says the IRQ map made no clear (or no meaningful) difference"
q "SELECT summary FROM campaigns WHERE id = 1" >"$WORK/ablate.json"
run cjson "$WORK/ablate.json" '
f = {x["family"]: x for x in d["ablation"]["families"]}
c = d["comparisons"]
best = [g for g in d["groups"] if g["group"] == d["best"][0]["group"]]
print(len(d["groups"]), len(c), [g["role"] for g in d["groups"]][:5], f["mtu"]["mattered"], f["irq"]["mattered"],
      c[f["mtu"]["alone_comparison"]]["recv"]["low"] > 0, [x["kind"] for x in c].count("marginal"),
      "mtu" in best[0]["families"], d["best"][0]["families"][0])'
is "$rc/$out" "0/8 7 ['baseline', 'alone', 'alone', 'alone', 'full'] True False True 3 True mtu" \
	"the record (valid): 8 groups, 7 comparisons, MTU mattered, the IRQ map did not; the best group applies the MTU"
run cjson "$WORK/report/campaign.json" 'print(d["ablation"]["profile"], len(d["ablation"]["families"]))'
is "$rc/$out" "0/$FULL 3" "the report's campaign.json carries the attribution"

# ---- --ablate PROFILE without a file: the profile's own benchmark,
# repeat auto; --check shows it (nothing is run)
run cx campaign --check --ablate "$FULL" --duration 1
is "$rc/$(printf '%s\n' "$out" | sed -n '1,2p')" "0/campaign    ablate-lab-tuned ($FULL): ok
repeat      auto, at most 10 per group (8 groups: at most 80 rounds)" "--ablate PROFILE alone: a campaign of its own, repeat auto"
[ -s "$WORK/report/report.html" ]
ok $? "the report is written"
same_sysroot && [ "$(mtus)" == "$MTUS_BEFORE" ]
ok $? "afterwards: the sysroot copy and every MTU are as before"
is "$(q "SELECT COUNT(*) FROM transactions WHERE kind = 'apply' AND status != 'rolled_back'")" 0 \
	"every group's transaction rolled back"

done_testing
