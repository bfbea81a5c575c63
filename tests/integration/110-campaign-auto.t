#!/usr/bin/env bash
# 110-campaign-auto.t: `repeat: auto` in the namespace lab (campaign-lib.sh:
# a path shaped to a packet rate, so MTU 9000 carries several times what
# MTU 1500 does). baseline against mtu-jumbo is decided before max_rounds
# (10): the campaign stops "decided", the verdict names mtu-jumbo with an
# interval above 0, and --keep best keeps that group (rollback restores
# the host). Two groups with the same settings and no margin
# (--min-effect 0: only a false difference could decide them) are never
# decided: with --budget the campaign stops before the next round would
# end past it, far below max_rounds. No timing is asserted: only where it stopped and
# why. The estimate comes first, the time spent last.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/campaign-lib.sh"
csetup c110

# ---- baseline vs mtu-jumbo, repeat auto: decided early
cfile auto-mtu "$TOP/profiles/baseline.yaml" "$TOP/profiles/mtu-jumbo.yaml" >"$WORK/mtu.yaml"
echo "repeat: auto" >>"$WORK/mtu.yaml"
run cx campaign "$WORK/mtu.yaml" --keep best
is "$rc" 0 "repeat auto, MTU 1500 vs 9000: exit 0"
diag "$out"
is "$(printf '%s\n' "$out" | sed -n 1p)" \
	"estimate    at most 20 rounds (repeat auto: at most 10 per group, fewer once every comparison is decided): at most 60 s" \
	"the estimate before the first round: the most repeat auto may take"
printf '%s\n' "$out" | grep -qE '^time        [0-9]+ s \(estimate 60 s\); stopped after [5-9] repetitions: every comparison decided$'
ok $? "the time spent, and why it stopped: decided after 5 to 9 repetitions (max_rounds 10)"
printf '%s\n' "$out" | grep -qE '^verdict     mtu-jumbo \(MTU 9000 only\) \+[0-9]+% \[[0-9]+\.\.[0-9]+\] receive throughput over baseline, loss [+-][0-9.]+ pp (\[[0-9.-]+\.\.[0-9.-]+\]|\[needs [0-9]+ rounds\]) \((lower|higher|no clear difference|no meaningful difference \(within ±1 pp\))\)$'
ok $? "the verdict names mtu-jumbo, its gain with an interval above 0, and its loss"
printf '%s\n' "$out" | grep -qx 'kept        mtu-jumbo applied (transaction [0-9]*); every other group rolled back'
ok $? "--keep best keeps the verdict's group"
ip -n "$HOST_NS" -o link show dev ens1f0 | grep -q ' mtu 9000 '
ok $? "--keep best: ens1f0 stays at MTU 9000"
q "SELECT summary FROM campaigns WHERE id = 1" >"$WORK/mtu.json"
run cjson "$WORK/mtu.json" '
r = d["repetitions"]
print(d["repeat_auto"], d["stopped"], r < d["repeat"], [g["rounds_counted"] == r for g in d["groups"]],
      d["statistics"]["looks"], [(c["group"], c["against"], c["recv"]["verdict"]) for c in d["comparisons"]],
      d["comparisons"][0]["recv"]["low"] > 0, round(d["comparisons"][0]["recv"]["confidence"], 4),
      d["best"][0]["group"], d["kept_group"])'
is "$rc/$out" "0/True decided True [True, True] 6 [('mtu-jumbo', 'baseline', 'better')] True 0.9866 mtu-jumbo mtu-jumbo" \
	"the record (valid): stopped decided before max_rounds, 6 looks (the first after 5 rounds at 0.05 (e - 1)/(e^2 - 1): 98.66%), mtu-jumbo better, kept"
run cx rollback
is "$rc" 0 "rollback undoes the kept group"
same_sysroot && [ "$(mtus)" == "$MTUS_BEFORE" ]
ok $? "after the rollback: the host is as before"

# ---- two groups with the same settings never decide: --budget stops it
# (max_rounds 20: 40 rounds of at least 1 s each cannot fit in 20 s, so the
# budget stops it however fast the machine; 20 s leave room for both groups
# to run even when a busy machine makes a round take 10 s)
cfile auto-aa "$TOP/profiles/baseline.yaml" "$WORK/aa.yaml" >"$WORK/aa-auto.yaml"
printf "repeat: auto\nmax_rounds: 20\n" >>"$WORK/aa-auto.yaml"
run cx campaign "$WORK/aa-auto.yaml" --repeat auto --budget 20s --min-effect 0 --json
is "$rc" 0 "A/A, repeat auto, --budget 20s: exit 0"
printf '%s' "$out" >"$WORK/budget.json"
run cjson "$WORK/budget.json" '
n = sum(g["rounds_counted"] for g in d["groups"])
print(d["stopped"], d["budget_s"], 0 < n < 40, d["best"][0]["group"],
      [c["recv"]["verdict"] for c in d["comparisons"]][:1], d["verdict"].startswith("no clear difference: "))'
is "$rc/$out" "0/budget 20 True None ['no clear difference'] True" \
	"--budget: stopped by the budget, well before max_rounds, no winner named"
same_sysroot && [ "$(mtus)" == "$MTUS_BEFORE" ]
ok $? "afterwards: the host is as before"

done_testing
