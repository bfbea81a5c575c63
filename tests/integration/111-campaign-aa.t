#!/usr/bin/env bash
# 111-campaign-aa.t: A/A campaigns in the namespace lab: two groups with
# the same settings (the shipped baseline and a copy) must never end
# "better" or "worse" ("no meaningful difference" inside the default 8%
# margin, or "no clear difference"), with a fixed repeat of 5 and with
# repeat: auto (whose looks must not find differences either; inside the
# margin it stops at a look before max_rounds). The
# method keeps a false better/worse to at most 5% of campaigns: a test
# that runs one campaign would fail that often, so a campaign that names a
# difference (and only that) is run once more, and the test fails only
# when both do (at most 0.25%). docs/campaigns.md gives the rate of a long run. Then
# `compare --campaign A B`: the two campaigns group by group, with the
# same statistics.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/campaign-lib.sh"
csetup c111

# aa NAME ARGS...: run an A/A campaign (twice at most); $AA_ID is the
# campaign kept, $AA the words of its comparison, its verdict and how it
# stopped.
aa() {
	local name=$1 attempt
	shift
	for attempt in 1 2; do
		run cx campaign "$@" --json
		printf '%s' "$out" >"$WORK/$name.json"
		AA_ID=$(q "SELECT max(id) FROM campaigns")
		AA=$(cjson "$WORK/$name.json" '
c = d["comparisons"]
v = c[0]["recv"]["verdict"] if c else None
print(d["exit_code"], len(c), "no difference" if v in ("no clear difference", "no meaningful difference") else v,
      d["best"][0]["group"], d["verdict"].startswith(("no clear difference: no group was clearly faster than baseline",
      "no meaningful difference (within ±8%): ")), d["stopped"] if d["stopped"] != "max_rounds" else "decided")')
		# Only the chance failure, a false difference, earns a second
		# attempt; any other result (an exit code, a document without
		# its comparison) is checked as it is.
		case $AA in "0 1 better "* | "0 1 worse "*) ;; *) return ;; esac
		diag "A/A $name, attempt $attempt: $AA (a false difference: at most 5% of campaigns); once more"
	done
}

cfile aa-fixed "$TOP/profiles/baseline.yaml" "$WORK/aa.yaml" >"$WORK/aa-fixed.yaml"
echo "repeat: 5" >>"$WORK/aa-fixed.yaml"
cfile aa-auto "$TOP/profiles/baseline.yaml" "$WORK/aa.yaml" >"$WORK/aa-auto.yaml"
printf 'repeat: auto\nmax_rounds: 6\n' >>"$WORK/aa-auto.yaml"
# fixed: 5 rounds each; auto: looks after repetitions 5 and 6, finds no
# difference, stops inside the margin (decided) or at max_rounds (the
# test reads both as "decided": neither names a difference)
for mode in fixed:complete auto:decided; do
	aa "${mode%%:*}" "$WORK/aa-${mode%%:*}.yaml"
	is "$AA" "0 1 no difference None True ${mode#*:}" \
		"A/A, repeat ${mode%%:*}: no clear or no meaningful difference, no winner named (valid document), stopped ${mode#*:}"
	case $mode in fixed:*) FIXED=$AA_ID ;; *) AUTO=$AA_ID ;; esac
done
run cjson "$WORK/auto.json" '
s = d["statistics"]
print(s["looks"], s["look_rounds"], s["spending"], round(d["comparisons"][0]["recv"]["confidence"], 6) == round(1 - s["level"], 6),
      d["repetitions"] in s["look_rounds"])'
is "$out" "2 [5, 6] hwang-shih-decani(-2) True True" \
	"repeat auto: looks after 5 and 6 rounds (none before: 4 against 4 cannot decide), the interval at the level of the look it stopped at"
same_sysroot && [ "$(mtus)" == "$MTUS_BEFORE" ]
ok $? "afterwards: the host is as before"

# ---- compare --campaign: the second against the first, group by group
run cx compare --campaign "$FIXED" "$AUTO"
is "$rc" 0 "compare --campaign: exit 0"
is "$(printf '%s\n' "$out" | sed -n 1p)" "compare     campaign $AUTO (aa-auto) against campaign $FIXED (aa-fixed)" \
	"compare --campaign: which against which"
is "$(printf '%s\n' "$out" | sed -n '2,$p' | sed -E 's/ +[0-9]+\.[0-9] \([0-9]+\)/ M/g; s/ +[+-][0-9.]+(%| pp) (\[[0-9.-]+\.\.[0-9.-]+\]|\[needs [0-9]+ rounds\]) (better|worse|no clear difference|no meaningful difference \(within ±(8%|1 pp)\))/ S/g; s/ +[0-9.]+%, [0-9.]+%$/ C/')" \
	"group                    before Mbps    after Mbps     receive throughput                           loss                                         interval levels (throughput, loss)
baseline M M S S C
baseline-again M M S S C" "compare --campaign: each group's medians and rounds, its change with an interval and a word"
run cx --json compare --campaign "$FIXED" "$AUTO"
printf '%s' "$out" >"$WORK/compare.json"
run "$PY" -c 'import json, sys, jsonschema
d = json.load(open(sys.argv[1])); jsonschema.validate(d, json.load(open(sys.argv[2])))
print(d["campaigns"], [(c["group"], c["kind"], c["rounds_against"]) for c in d["comparisons"]], d["only_before"], d["only_after"])' \
	"$WORK/compare.json" "$TOP/schemas/campaign.schema.json"
is "$out" "[$FIXED, $AUTO] [('baseline', 'campaign', 5), ('baseline-again', 'campaign', 5)] [] []" \
	"compare --campaign --json: valid, one comparison per group"
run cx compare --campaign "$FIXED" 99
is "$rc/$err" "66/cx5prof: error: compare: no campaign 99 in $DB" "compare --campaign with a campaign that does not exist: exit 66"
run cx compare --campaign "$FIXED"
is "$rc" 64 "compare --campaign with one id: usage error"

done_testing
