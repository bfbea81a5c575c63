#!/usr/bin/env bash
# 56-campaign.t: `cx5prof campaign` in the namespace lab.
#
# The lab campaign (contrib/lab/campaign-lab.yaml: the shipped baseline and
# mtu-jumbo groups unmodified, contrib/lab/campaign-full.yaml, 1 s rounds
# of real netperf against netserver in the peer namespace, repeat 2): exit
# 0, a table of 3 rows with medians, 6 runs and 1 campaign in the history
# (mirrored: outbox rows), report.html checked by an HTML parser and its
# SVG by an XML parser, campaign.json valid against the schema, one export
# bundle per run; afterwards the sysroot copy is byte-identical and every
# veth MTU is back. Then: SIGINT mid-way rolls back (exit 6); SIGKILL
# leaves an open transaction that `rollback` resolves; a group failing a
# precondition is skipped (exit 5 reason) and the campaign goes on; a
# sweep gives a row per value; --peer replaces every round's peer; --keep
# last leaves that group applied; --check and a bad --report change
# nothing; `cx5prof report RUN... --dir`.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
need_root_netns
need_tool netserver "contrib/install-deps.sh enables Debian non-free for it"
need_tool sqlite3
vsetup v56 cx5-2port
CAMPAIGN=$TOP/contrib/lab/campaign-lab.yaml
copy_sysroot cx5-2port "$WORK/pristine"
mtus() { ip -n "$HOST_NS" -o link show | sed -n 's/^[0-9]*: \([^:@]*\).* mtu \([0-9]*\).*/\1 \2/p' | sort; }
same_sysroot() { diff -r --no-dereference "$SR" "$WORK/pristine" >/dev/null; }
q() { sqlite3 "$DB" "$1"; }
MTUS_BEFORE=$(mtus)
# Jumbo frames need both ends: the peer side carries 9000 (not managed).
ip -n "$PEER_NS" link set peer0 mtu 9000
netserver_start 12865
ok $? "netserver listens in the peer namespace"

# ---- --check: the rounds, nothing changed, no database
run cx campaign --check "$CAMPAIGN"
is "$rc" 0 "--check: exit 0"
is "$out" "campaign    lab-udp-groups ($CAMPAIGN): ok
repeat      2 (3 groups: 6 rounds)
margin      ±8% throughput, ±1 pp loss; order alternate
estimate    6 rounds: about 18 s
group       baseline ($TOP/contrib/lab/../../profiles/baseline.yaml): netperf 1 s to 198.18.0.2
group       mtu-jumbo ($TOP/contrib/lab/../../profiles/mtu-jumbo.yaml): netperf 1 s to 198.18.0.2
group       lab-full ($TOP/contrib/lab/campaign-full.yaml): netperf 1 s to 198.18.0.2" \
	"--check: the rounds, an estimate of the time; a group without peer.ssh names no peer to tune"
[ ! -e "$DB" ]
ok $? "--check: no history written"

# ---- the shipped campaign files: valid for cx5prof and for the JSON Schema
run "$PY" - "$TOP/schemas" "$TOP/profiles/campaign-udp.yaml" "$CAMPAIGN" <<'PYEOF'
import json, sys, yaml, jsonschema
d = sys.argv[1]
c, p = json.load(open(d + "/campaign.schema.json")), json.load(open(d + "/profile.schema.json"))
resolver = jsonschema.RefResolver.from_schema(c, store={p["$id"]: p})
v = jsonschema.Draft202012Validator(c, resolver=resolver)
print([sorted(e.message for e in v.iter_errors(yaml.safe_load(open(f)))) for f in sys.argv[2:]])
PYEOF
is "$rc $out" "0 [[], []]" "profiles/campaign-udp.yaml and the lab campaign satisfy schemas/campaign.schema.json"
# The shipped campaign's udp-jumbo group stops irqbalance: the lab has no
# service manager to stop it with. --check plans every group against the
# host and says so (exit 5), as the campaign would skip it.
run cx campaign --check "$TOP/profiles/campaign-udp.yaml"
is "$rc/$(printf '%s\n' "$out" | grep '^group       udp-jumbo' | sed 's/^.*: would be skipped/would be skipped/')/$err" \
	"5/would be skipped (exit 69): irqbalance: irq.irqbalance: stop: no service manager to stop it with/cx5prof: error: campaign --check: 1 group would be skipped on this host" \
	"profiles/campaign-udp.yaml: campaign --check plans each group: udp-jumbo would be skipped here (exit 5)"
run cx --json campaign --check "$TOP/profiles/campaign-udp.yaml"
printf '%s' "$out" >"$WORK/check.json"
run cx --json campaign --check "$TOP/tests/malformed/campaign/unknown-key.yaml"
printf '%s' "$out" >"$WORK/check-bad.json"
run "$PY" - "$TOP/schemas" "$WORK/check.json" "$WORK/check-bad.json" <<'PYEOF'
import json, sys, jsonschema
d = sys.argv[1]
c, p = json.load(open(d + "/campaign.schema.json")), json.load(open(d + "/profile.schema.json"))
v = jsonschema.Draft202012Validator(c, resolver=jsonschema.RefResolver.from_schema(c, store={p["$id"]: p}))
docs = [json.load(open(f)) for f in sys.argv[2:]]
print([sorted(e.message for e in v.iter_errors(x)) for x in docs], [g["duration"] for g in docs[0]["groups"]],
      docs[1]["exit_code"])
PYEOF
is "$rc $out" "0 [[], []] [10, 10, 10] 65" "--check --json and a refused file's --json: valid documents"

# ---- a --report directory that is not empty: refused before anything
mkdir -p "$WORK/full" && touch "$WORK/full/x"
run cx campaign "$CAMPAIGN" --report "$WORK/full"
is "$rc/$err" "73/cx5prof: error: campaign: --report $WORK/full: Directory not empty: choose a new or empty directory" \
	"--report into a non-empty directory: exit 73 (as export), said so"
[ ! -e "$DB" ] && same_sysroot
ok $? "--report refused: nothing recorded, nothing changed"

# ---- the lab campaign: 3 groups x repeat 2
run cx campaign "$CAMPAIGN" --report "$WORK/report"
is "$rc" 0 "campaign: exit 0"
diag "$out" "$err"
is "$(printf '%s\n' "$out" | sed -n 1p)" "estimate    6 rounds: about 18 s" "campaign: the estimate first"
is "$(printf '%s\n' "$out" | sed -n '2,7p' | sed -E 's/: [0-9.]+ Mbps  loss [0-9.]+%$//')" "round       1/6 baseline
round       2/6 mtu-jumbo
round       3/6 lab-full
round       4/6 lab-full
round       5/6 mtu-jumbo
round       6/6 baseline" "campaign: each round as it ends, with its figures (the order reversed in the second repetition)"
printf '%s\n' "$out" | sed -n 8p | grep -qx 'campaign    lab-udp-groups (campaign 1, done, 2 repetitions, 6 runs)'
ok $? "campaign: the header names the campaign, its status and its 6 runs"
is "$(printf '%s\n' "$out" | sed -n 9p)" \
	"group            runs  median Mbps  min-max Mbps         loss %  irq spread     drops     limited by" \
	"campaign: the table's columns"
rows=$(printf '%s\n' "$out" | grep -cE '^(baseline|mtu-jumbo|lab-full) +2 +[0-9]+\.[0-9] +[0-9.]+-[0-9.]+ +[0-9]+\.[0-9]{2} +no interrupts +n/a( +[+-][0-9]+%)? +(sender|unknown)( \([12] of 2\))?$')
is "$rows" 3 "campaign: 3 rows, each with 2 runs, a median, the min-max, the loss, the IRQ spread, the drops, what limited it (no serve on the peer: the sender, or unknown)"
printf '%s\n' "$out" | grep -q 'vs previous'
ok $((!$?)) "campaign: no bare ratio of medians beside the comparisons (they carry the intervals)"
# Two rounds against two can never decide at 95%: the verdict names no
# winner and says how many rounds an interval needs.
printf '%s\n' "$out" | grep -qE '^verdict     no clear difference: no group was clearly faster than baseline \(highest median: (mtu-jumbo|lab-full) [+-][0-9.]+% \[needs [0-9]+ rounds\]\)$'
ok $? "campaign: a one-line verdict: no clear difference with 2 rounds each, how many rounds an interval needs"
is "$(printf '%s\n' "$out" | grep -E '^(comparison|mtu-jumbo vs|lab-full vs)' | sed -E 's/ +[+-][0-9.]+(%| pp) \[needs [0-9]+ rounds\] no clear difference/ N/g; s/ +[0-9.]+%, [0-9.]+%$/ C/')" \
	"comparison                       receive throughput                           loss                                         interval levels (throughput, loss)
mtu-jumbo vs baseline N N C
lab-full vs baseline N N C
lab-full vs mtu-jumbo N N C" "campaign: each group against the baseline and the previous one, throughput and loss, unbounded intervals"
printf '%s\n' "$out" | tail -n 2 | tr '\n' '|' | grep -qxF "host        every group rolled back: as before the campaign|report      $WORK/report/report.html|"
ok $? "campaign: says the host is as before, and where the report is"

is "$(q "SELECT COUNT(*) FROM runs WHERE campaign = 1")/$(q "SELECT id || ' ' || name || ' ' || status FROM campaigns")" \
	"6/1 lab-udp-groups done" "history: 6 runs tagged with campaign 1, and the campaign record"
is "$(q "SELECT COUNT(*) FROM transactions WHERE kind = 'apply' AND status != 'rolled_back'")" 0 \
	"history: every group's transaction rolled back"
is "$(q "SELECT COUNT(*) FROM outbox WHERE source_kind = 'campaign' AND source_id = 1")" 1 \
	"history: the campaign is queued for the mirror, like runs and transactions"
is "$(q "SELECT group_concat(profile_name, ' ') FROM (SELECT profile_name FROM runs ORDER BY id)")" \
	"baseline mtu-jumbo lab-full lab-full mtu-jumbo baseline" "history: the rounds interleaved, the order reversed every other repetition (g1 g2 g3 g3 g2 g1)"

run cx history --limit 0
printf '%s\n' "$out" | grep -E '^[0-9-]+ [0-9:]+  campaign 1     lab-udp-groups done, 6 runs: no clear difference: ' >/dev/null
ok $? "history: lists the campaign with its status, runs and verdict"
run cx history show 3
printf '%s\n' "$out" | grep -qx 'campaign     1'
ok $? "history show: a campaign's run names its campaign"
run cx history --json
printf '%s' "$out" >"$WORK/history.json"
run "$PY" -c 'import json, sys, jsonschema
d = json.load(open(sys.argv[1])); jsonschema.validate(d, json.load(open(sys.argv[2])))
print([(e["id"], e["status"], e["runs"]) for e in d["history"] if e["type"] == "campaign"])' "$WORK/history.json" "$TOP/schemas/history.schema.json"
is "$out" "[(1, 'done', 6)]" "history --json: the campaign entry, valid against schemas/history.schema.json"

same_sysroot
ok $? "afterwards: the sysroot copy is byte-identical to before"
is "$(mtus)" "$MTUS_BEFORE" "afterwards: every veth MTU is back"

# ---- the campaign's record drained to a TaoToken gateway (the fake one
# of the mirror tests, on 127.0.0.1 outside the lab's namespaces)
tt_gateway "$WORK" campaign
queued=$(q "SELECT COUNT(*) FROM outbox WHERE status = 'pending'")
run env CX5PROF_MIRROR_CONFIG="$WORK/mirror.yaml" "$CX5PROF" --db "$DB" mirror
is "$rc/$out" "0/sent $queued, pending 0" "mirror: every queued row sent (the campaign, its runs and transactions)"
is "$(q "SELECT status || ' ' || attempts FROM outbox WHERE source_kind = 'campaign' AND source_id = 1")" "sent 1" \
	"mirror: the campaign's outbox row sent once"
run "$PY" - "$WORK/tt.log" "$TOP/schemas/campaign.schema.json" <<'PYEOF'
import json, sys, jsonschema
got = [json.loads(l) for l in open(sys.argv[1])]
camp = [e for e in got if e["record"] == "campaign 1"]
doc = json.loads(camp[0]["content"].split(":", 1)[1]) if len(camp) == 1 else {}
jsonschema.validate(doc, json.load(open(sys.argv[2])))
print(len(camp), camp[0]["status"], camp[0]["key_ok"], doc["name"], doc["status"], doc["runs"],
      [g["group"] for g in doc["groups"]], sorted(e["record"] for e in got if e["record"].startswith("run ")) == ["run %d" % i for i in range(1, 7)])
PYEOF
is "$rc $out" "0 1 200 True lab-udp-groups done 6 ['baseline', 'mtu-jumbo', 'lab-full'] True" \
	"the gateway received the campaign record once: its document (valid), with the key, and the 6 runs"
stop_servers
netserver_start 12865

run "$PY" - "$WORK/report" "$TOP/schemas/campaign.schema.json" <<'PYEOF'
import html.parser, json, os, re, sys, xml.etree.ElementTree as ET
import jsonschema
d, schema = sys.argv[1], json.load(open(sys.argv[2]))
page = open(os.path.join(d, "report.html")).read()
VOID = {"meta", "br", "img", "input", "link", "hr", "wbr"}
class Check(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.bad, self.tags = [], [], set()
    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag not in VOID:
            self.stack.append(tag)
    def handle_endtag(self, tag):
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()
        else:
            self.bad.append(tag)
c = Check()
c.feed(page)
c.close()
svgs = re.findall(r"<svg\b.*?</svg>", page, re.S)
for s in svgs:
    ET.fromstring(s)  # raises on malformed XML
urls = [u for u in re.findall(r"https?://[^\s\"'<>]+", page) if u != "http://www.w3.org/2000/svg"]
links = re.findall(r'href="([^"]*)"', page)
doc = json.load(open(os.path.join(d, "campaign.json")))
jsonschema.validate(doc, schema)
bundles = sorted(os.listdir(os.path.join(d, "runs")))
print(page.startswith("<!DOCTYPE html>"), not c.bad and not c.stack, len(svgs) >= 5, "script" in c.tags,
      urls, all(l.startswith("runs/run-") for l in links), "link" in c.tags,
      [g["group"] for g in doc["groups"]], [len(g["rounds"]) for g in doc["groups"]],
      all(page.count(">%s<" % g["group"]) >= 3 for g in doc["groups"]),
      bundles, all(os.path.exists(os.path.join(d, "runs", b, "run.json")) and
                   os.path.exists(os.path.join(d, "runs", b, "artifacts", "interrupts_after")) for b in bundles))
PYEOF
is "$rc $out" "0 True True True False [] True False ['baseline', 'mtu-jumbo', 'lab-full'] [2, 2, 2] True ['run-1', 'run-2', 'run-3', 'run-4', 'run-5', 'run-6'] True" \
	"report: valid HTML with inline SVG (no script, no URL, no stylesheet link), campaign.json valid, a bundle per run"
diag "$err"

# ---- `cx5prof report RUN... --dir DIR`: the same page for ad-hoc runs
run cx report 2 5 --dir "$WORK/adhoc"
is "$rc/$out" "0/report      $WORK/adhoc/report.html" "report RUN RUN: exit 0, where the page is"
ls "$WORK/adhoc/runs" | tr '\n' ' ' | grep -qx 'run-2 run-5 '
ok $? "report RUN RUN: the two runs' bundles"
run "$PY" -c 'import json, sys, jsonschema
d = json.load(open(sys.argv[1])); jsonschema.validate(d, json.load(open(sys.argv[2])))
print(d["campaign"], [g["group"] for g in d["groups"]], open(sys.argv[3]).read().count("<svg"))' \
	"$WORK/adhoc/report.json" "$TOP/schemas/campaign.schema.json" "$WORK/adhoc/report.html"
is "$out" "None ['run 2', 'run 5'] 5" "report RUN RUN: report.json valid, one group per run: two charts, the heat map legend and a map per run"
run cx --json report 2 --dir "$WORK/adhoc-json"
printf '%s' "$out" >"$WORK/adhoc.json"
run "$PY" -c 'import json, sys, jsonschema
d = json.load(open(sys.argv[1])); jsonschema.validate(d, json.load(open(sys.argv[2]))); print(d)' \
	"$WORK/adhoc.json" "$TOP/schemas/campaign.schema.json"
is "$rc/$out" "0/{'report': '$WORK/adhoc-json', 'runs': 1}" "report --json: a document of schemas/campaign.schema.json"
run cx report 99 --dir "$WORK/adhoc2"
is "$rc/$err" "66/cx5prof: error: report: no run 99 in $DB" "report of a run that does not exist: exit 66"

# ---- SIGINT mid-way: the round in progress is rolled back, exit 6. The
# campaign is held after a benchmark (CX5PROF_TEST_PAUSE=bench-done) of a
# round whose group's transaction is open, and signalled there.
group_open() { [ "$(q "SELECT COUNT(*) FROM transactions WHERE status = 'open'")" -ge 1 ]; }
mkfifo "$WORK/int.fifo" "$WORK/term.fifo" "$WORK/kill.fifo"
CX5PROF_TEST_PAUSE=bench-done:$WORK/int.fifo ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
	campaign "$CAMPAIGN" >"$WORK/int.out" 2>"$WORK/int.err" &
pid=$!
held_when "$WORK/int.fifo" group_open
ok $? "SIGINT: the campaign is held in a group's round, its transaction open"
pause_signal "$WORK/int.fifo" INT "$pid"
wait "$pid"
is "$?" 6 "SIGINT: exit 6"
grep -qx 'cx5prof: error: campaign 2 interrupted by SIGINT: the round in progress was rolled back; the host is as before the campaign' "$WORK/int.err"
ok $? "SIGINT: said so"
is "$(q "SELECT status FROM campaigns WHERE id = 2")/$(q "SELECT COUNT(*) FROM transactions WHERE kind = 'apply' AND status != 'rolled_back'")" \
	"interrupted/0" "SIGINT: the campaign is recorded as interrupted, no transaction left applied"
same_sysroot
ok $? "SIGINT: the sysroot copy is byte-identical to before"
is "$(mtus)" "$MTUS_BEFORE" "SIGINT: every veth MTU is back"

# ---- SIGTERM mid-way: the same as SIGINT
CX5PROF_TEST_PAUSE=bench-done:$WORK/term.fifo ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
	campaign "$CAMPAIGN" >"$WORK/term.out" 2>"$WORK/term.err" &
pid=$!
held_when "$WORK/term.fifo" group_open
ok $? "SIGTERM: the campaign is held in a group's round, its transaction open"
pause_signal "$WORK/term.fifo" TERM "$pid"
wait "$pid"
is "$?" 6 "SIGTERM: exit 6"
grep -qx 'cx5prof: error: campaign 3 interrupted by SIGTERM: the round in progress was rolled back; the host is as before the campaign' "$WORK/term.err"
ok $? "SIGTERM: said so"
is "$(q "SELECT status FROM campaigns WHERE id = 3")/$(q "SELECT COUNT(*) FROM transactions WHERE kind = 'apply' AND status != 'rolled_back'")" \
	"interrupted/0" "SIGTERM: the campaign is recorded as interrupted, no transaction left applied"
same_sysroot && [ "$(mtus)" == "$MTUS_BEFORE" ]
ok $? "SIGTERM: the host is as before"

# ---- SIGKILL while a group is applied: the next rollback resolves it
CX5PROF_TEST_PAUSE=bench-done:$WORK/kill.fifo ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" \
	campaign "$CAMPAIGN" >/dev/null 2>&1 &
pid=$!
held_when "$WORK/kill.fifo" group_open
ok $? "SIGKILL: the campaign is held in a group's round, its transaction open"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
is "$(q "SELECT COUNT(*) FROM transactions WHERE status = 'open'")" 1 "SIGKILL: the group's transaction is left open"
run cx apply "$TOP/profiles/baseline.yaml"
is "$rc" 9 "SIGKILL: the next apply refuses to run over it (exit 9)"
is "$(q "SELECT status FROM campaigns WHERE id = 4")" running "SIGKILL: the campaign's row says running"
run cx rollback
is "$rc" 0 "SIGKILL: rollback resolves it"
is "$(q "SELECT status || ' ' || (ended_usec > started_usec) FROM campaigns WHERE id = 4")" "interrupted 1" \
	"SIGKILL + rollback: the campaign is recorded as interrupted, with its end"
q "SELECT summary FROM campaigns WHERE id = 4" >"$WORK/killed.json"
run "$PY" -c 'import json, sys, jsonschema
d = json.load(open(sys.argv[1])); jsonschema.validate(d, json.load(open(sys.argv[2])))
print(d["campaign"], d["status"], d["runs"] >= 0, d["groups"])' "$WORK/killed.json" "$TOP/schemas/campaign.schema.json"
is "$out/$(q "SELECT COUNT(*) FROM outbox WHERE source_kind = 'campaign' AND source_id = 4")" "4 interrupted True []/1" \
	"SIGKILL + rollback: its summary (valid) says interrupted, and it is queued for the mirror"
same_sysroot
ok $? "SIGKILL + rollback: the sysroot copy is byte-identical to before"
is "$(mtus)" "$MTUS_BEFORE" "SIGKILL + rollback: every veth MTU is back"

# ---- a group that cannot apply is skipped with the reason; the rest runs
cat >"$WORK/skip.yaml" <<YAML
version: 1
name: lab-skip
groups: [$TOP/profiles/baseline.yaml, $TOP/tests/fixtures/campaign/newer-driver.yaml, $TOP/profiles/mtu-jumbo.yaml]
verify: {peer: 198.18.0.2, runner: netperf, duration: 1}
YAML
run cx campaign "$WORK/skip.yaml"
is "$rc" 0 "skipped group: the campaign goes on (exit 0)"
printf '%s\n' "$out" | grep -qE '^newer-driver +- +skipped \(exit 5\): ens1f0: .*99\.0'
ok $? "skipped group: its row says skipped, exit 5 and why"
printf '%s\n' "$out" | grep -qE '^mtu-jumbo vs baseline +[+-][0-9.]+% '
ok $? "skipped group: the next group is compared with the last measured one"
printf '%s\n' "$err" | grep -q '^cx5prof: warning: campaign: group newer-driver skipped (exit 5): '
ok $? "skipped group: a warning on stderr"

# ---- a group whose apply fails is undone and skipped, the campaign goes on
printf 'version: 1\nname: lab-fail\ngroups: [%s, %s]\nverify: {peer: 198.18.0.2, runner: netperf, duration: 1}\n' \
	"$TOP/profiles/baseline.yaml" "$TOP/profiles/mtu-jumbo.yaml" >"$WORK/fail.yaml"
run ip netns exec "$HOST_NS" env CX5PROF_FAILPOINT=apply-step:1 "$CX5PROF" --sysroot "$SR" --db "$DB" \
	campaign "$WORK/fail.yaml"
is "$rc" 0 "failed apply: the campaign goes on (exit 0: baseline was measured)"
printf '%s\n' "$out" | grep -qE '^mtu-jumbo +- +skipped \(exit 6\): apply failed at step 1: .*; every change was undone$'
ok $? "failed apply: the group's row says it was undone, and why"
same_sysroot && [ "$(mtus)" == "$MTUS_BEFORE" ]
ok $? "failed apply: the host is as before"

# ---- no server on the peer: every round fails to measure; exit 1, said so
run cx campaign "$WORK/fail.yaml" --peer 198.18.1.2
is "$rc" 1 "no netserver on the peer: exit 1"
printf '%s\n' "$out" | grep -qx 'verdict     no group was measured'
ok $? "no netserver: the verdict says nothing was measured"
printf '%s\n' "$err" | grep -q '^cx5prof: warning: campaign: baseline, repetition 1: benchmark: no runner of \[netperf\] can run: netperf: no netserver on 198.18.1.2:12865'
ok $? "no netserver: each round's failure on stderr, with the remedy"
# The shipped groups leave verify.port to the runner: a campaign that picks
# the builtin runner asks for cx5prof serve's port, not netserver's.
cat >"$WORK/builtin.yaml" <<YAML
version: 1
name: builtin-shipped
groups: [$TOP/profiles/baseline.yaml]
verify: {runner: builtin, duration: 1}
YAML
run cx campaign "$WORK/builtin.yaml" --peer 198.18.1.2
is "$rc/$err" "1/cx5prof: warning: campaign: baseline, repetition 1: benchmark: no cx5prof serve on 198.18.1.2:12866 (Connection refused): start \`cx5prof serve --port 12866\` on the peer and check its firewall" \
	"campaign with runner builtin over shipped groups: serve's port 12866"

# ---- a sweep: a row per value, the value applied over the group's own
# (campaign-full.yaml writes its socket buffers; the sweep replaces them),
# and --peer for every round
cat >"$WORK/sweep.yaml" <<YAML
version: 1
name: lab-sweep
groups: [$TOP/contrib/lab/campaign-full.yaml]
verify: {peer: 192.0.2.1, runner: netperf, duration: 1}
sweep:
  verify.message_size: [1400, 8000]
YAML
run cx campaign "$WORK/sweep.yaml" --peer 198.18.0.2 --json
is "$rc" 0 "sweep, --peer: exit 0 (the placeholder peer 192.0.2.1 replaced)"
printf '%s' "$out" >"$WORK/sweep.json"
run "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["sweep"], [(g["sweep_value"], g["profile"]["verify"]["message_size"], g["profile"]["verify"]["peer"],
       len([r for r in g["rounds"] if r["recv_mbps"] is not None])) for g in d["groups"]])' "$WORK/sweep.json"
is "$out" "{'key': 'verify.message_size', 'values': ['1400', '8000']} [('1400', 1400, '198.18.0.2', 1), ('8000', 8000, '198.18.0.2', 1)]" \
	"sweep: one row per value, each round measured with its value, against --peer"
is "$(q "SELECT group_concat(message_size, ' ') FROM runs WHERE campaign = (SELECT max(id) FROM campaigns)")" "1400 8000" \
	"sweep: the runs recorded the swept message sizes"

# ---- --keep last: that group stays applied, as a committed transaction
printf 'version: 1\nname: lab-keep\ngroups: [%s]\nverify: {peer: 198.18.0.2, runner: netperf, duration: 1}\n' \
	"$TOP/profiles/mtu-jumbo.yaml" >"$WORK/keep.yaml"
run cx campaign "$WORK/keep.yaml" --keep last --json
is "$rc" 0 "--keep last: exit 0"
printf '%s' "$out" >"$WORK/keep.json"
run "$PY" -c 'import json, sys, jsonschema
d = json.load(open(sys.argv[1])); jsonschema.validate(d, json.load(open(sys.argv[2])))
print(d["kept_group"], d["kept_transaction"] > 0, d["status"], d["exit_code"])' "$WORK/keep.json" "$TOP/schemas/campaign.schema.json"
is "$out" "mtu-jumbo True done 0" "--keep last, --json: a valid document naming the kept group and its transaction"
ip -n "$HOST_NS" -o link show dev ens1f0 | grep -q ' mtu 9000 '
ok $? "--keep last: ens1f0 stays at MTU 9000"
run cx rollback
is "$rc" 0 "--keep last: rollback undoes the kept group"
same_sysroot && [ "$(mtus)" == "$MTUS_BEFORE" ]
ok $? "--keep last + rollback: the host is as before"

done_testing
