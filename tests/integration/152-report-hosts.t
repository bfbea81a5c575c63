#!/usr/bin/env bash
# 152-report-hosts.t: `cx5prof report --hosts HOSTDIR... --dir DIR`: one
# report of a fleet, a row per host, from the directories a rollout wrote:
# export bundles of real runs (a history made by the runs module), the
# fleet playbook's host.json rows, and a host with a row and no run. The
# table, the verdict in the words of a campaign's runs, report.html (one
# row per host, escaped) and hosts.json, both following
# schemas/hosts-report.schema.json; bad input names its file and field
# (figures that are no measurement too: 1e308 Mbps, a negative one). An
# interrupted host counts in the verdict; the terminal table escapes
# control and bidirectional characters; the summary playbook's directory
# is taken as it is (`report --hosts DIR/*`: summary.json adds the hosts
# never reached, summary.txt is skipped).
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
tt_setup
F=$TT/fleet
mkdir "$F"
# Three hosts' verify runs, exported as an operator (or the playbook) does.
for i in 1 2 3; do
	"$CX5PROF" --db "$DB" export "$i" --dir "$F/h$i" >/dev/null || { echo "Bail out! export $i failed"; exit 1; }
done
# h2 and h3 with the playbook's rows; h4 has a row and no run (it failed
# before its verify).
cat >"$F/h2/host.json" <<'EOF'
{"host": "h2", "profile": "mtu-jumbo", "transaction": 4, "changed": true, "verify": "fail", "recv_mbps": 7742.8,
 "drift": [], "exit_code": 4, "reason": "receive throughput below >= 9000.0 Mbps (measured 7742.8)"}
EOF
cat >"$F/h3/host.json" <<'EOF'
{"host": "h3", "profile": "udp-jumbo", "transaction": 1, "changed": false, "verify": "pass", "recv_mbps": 23802.2,
 "drift": [], "exit_code": 0, "reason": "nothing to change"}
EOF
mkdir "$F/h4"
cat >"$F/h4/host.json" <<'EOF'
{"host": "h4 <old fw>", "profile": "udp-jumbo", "transaction": null, "changed": false, "verify": null, "recv_mbps": null,
 "drift": [], "exit_code": 5, "reason": "ens1f0: firmware version 14.32.1010 is older than the required 16.26.1040 & <b>more</b>"}
EOF

run "$CX5PROF" report --hosts "$F/h1" "$F/h2" "$F/h3" "$F/h4" --dir "$TT/out"
is "$rc" 0 "report --hosts: exit 0"
is "$out" "report      $TT/out/report.html
verdict     1 pass; 2 fail: h1, h2; 1 not run: h4 <old fw> (exit 5)
HOST             PROFILE           TXN CHANGED VERIFY  RECV_MBPS  LOSS_% DRIFT EXIT  REASON
h1               baseline            - -       FAIL       3278.6   64.29     -    -  -
h2               mtu-jumbo           4 yes     FAIL       7742.8   15.66     0    4  receive throughput below >= 9000.0 Mbps (measured 7742.8)
h3               udp-jumbo           1 no      pass      23802.2    0.02     0    0  nothing to change
h4 <old fw>      udp-jumbo           - no      not run         -       -     0    5  ens1f0: firmware version 14.32.1010 is older than the required 16.26.1040 & <b>more</b>" \
	"report --hosts: the verdict and one row per host (run.json, host.json, or both)"
is "$(cd "$TT/out" && ls)" "hosts.json
report.html" "report --hosts: report.html and hosts.json"
is "$(grep -c '^<tr><td>' "$TT/out/report.html")" 4 "report.html: one row per host"
grep -qF '<td>h4 &lt;old fw&gt;</td>' "$TT/out/report.html" &&
	grep -qF '16.26.1040 &amp; &lt;b&gt;more&lt;/b&gt;</td>' "$TT/out/report.html" && ! grep -q '<b>more' "$TT/out/report.html"
ok $? "report.html: the rows' text is escaped"
grep -qF '<strong>1 pass; 2 fail: h1, h2; 1 not run: h4 &lt;old fw&gt; (exit 5)</strong>' "$TT/out/report.html"
ok $? "report.html: the verdict"
! grep -qiE '(src|href)="?(https?:)?//' "$TT/out/report.html" && ! grep -qi '<script' "$TT/out/report.html"
ok $? "report.html: self-contained (no URL, no script)"
/usr/bin/python3 -c 'import sys, xml.dom.minidom as m; s = open(sys.argv[1]).read(); [m.parseString(x.split("</svg>")[0] + "</svg>") for x in ["<svg" + p for p in s.split("<svg")[1:]]]' "$TT/out/report.html"
ok $? "report.html: its SVG is well-formed XML"

run "$CX5PROF" --json report --hosts "$F/h3" "$F/h4" --dir "$TT/out2"
is "$rc" 0 "--json: exit 0"
printf '%s\n' "$out" >"$TT/doc.json"
is "$(jq -c '.hosts[] | [.host, .outcome, .run, .recv_mbps, .exit_code]' "$TT/doc.json")" \
	'["h3","pass",3,23802.2,0]
["h4 <old fw>","not run",null,null,5]' "--json: the rows"
cmp -s <(jq -S 'del(.report)' "$TT/doc.json") <(jq -S . "$TT/out2/hosts.json")
ok $? "--json: the document is hosts.json plus the report's path"
run /usr/bin/python3 -c '
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
row = {"$ref": "#/$defs/host_row", "$defs": schema["$defs"]}
for s, f in ((schema, sys.argv[2]), (schema, sys.argv[3]), (row, sys.argv[4]), (row, sys.argv[5])):
    for e in jsonschema.Draft202012Validator(s).iter_errors(json.load(open(f))):
        print("%s: %s: %s" % (f, "/".join(map(str, e.absolute_path)), e.message))
' "$TOP/schemas/hosts-report.schema.json" "$TT/doc.json" "$TT/out/hosts.json" "$F/h2/host.json" "$F/h4/host.json"
is "$rc|$out" "0|" "the documents and the rows follow schemas/hosts-report.schema.json"

# ---- bad input: nothing written, the file and field named
mkdir "$F/empty"
run "$CX5PROF" report --hosts "$F/h1" "$F/empty" --dir "$TT/out3"
is "$rc|$err" "66|cx5prof: error: report: $F/empty: neither run.json (\`cx5prof export RUN --dir\`) nor host.json (the fleet playbook's row) is there" \
	"a directory with neither file: exit 66"
[ ! -e "$TT/out3" ]
ok $? "nothing written"
mkdir "$F/bad" && echo '{"host": "x", "exit_code": "five"}' >"$F/bad/host.json"
run "$CX5PROF" report --hosts "$F/bad" --dir "$TT/out3"
is "$rc|$err" "65|cx5prof: error: report: $F/bad/host.json: exit_code: not of the documented type" "a bad field: exit 65, named"
echo 'not json' >"$F/bad/host.json"
run "$CX5PROF" report --hosts "$F/bad" --dir "$TT/out3"
is "$rc|$err" "65|cx5prof: error: report: $F/bad/host.json: not a JSON object" "not JSON: exit 65"
run "$CX5PROF" report --hosts "$F/h1" --dir "$TT/out"
is "$rc|$err" "73|cx5prof: error: report: cannot write into $TT/out: Directory not empty: choose a new or empty directory" \
	"a report directory that is not empty: exit 73"
run "$CX5PROF" report --hosts --dir "$TT/out4"
is "$rc" 64 "no host directory: exit 64"

# ---- figures that are no measurement: the file and the field named
for v in 1e308 -50 1e999; do
	printf '{"host": "x", "recv_mbps": %s}\n' "$v" >"$F/bad/host.json"
	run "$CX5PROF" report --hosts "$F/bad" --dir "$TT/out5"
	shown=$v
	case $v in 1e308) shown=1e+308 ;; 1e999) shown=inf ;; esac
	is "$rc|$err" "65|cx5prof: error: report: $F/bad/host.json: recv_mbps: $shown is not a throughput (a number from 0 to 1e+09)" \
		"recv_mbps $v: exit 65, the file and the field named"
done
[ ! -e "$TT/out5" ]
ok $? "no report written for them"
mkdir "$F/badrun" && jq '.results.loss_pct = -3' "$F/h1/run.json" >"$F/badrun/run.json"
run "$CX5PROF" report --hosts "$F/badrun" --dir "$TT/out5"
is "$rc|$err" "65|cx5prof: error: report: $F/badrun/run.json: results.loss_pct: -3 is not a loss (a number from 0 to 100)" \
	"a negative loss in run.json: exit 65, named"

# ---- an interrupted host counts; control and bidi characters are escaped
mkdir "$F/h6"
printf '%s\n' '{"host": "h6\u202eevil", "profile": "udp-jumbo", "transaction": 7, "changed": false, "verify": "interrupted",' \
	'"recv_mbps": null, "drift": [], "exit_code": 6, "reason": "interrupted\nh9 fake-row\u001b[31m"}' >"$F/h6/host.json"
run "$CX5PROF" report --hosts "$F/h3" "$F/h6" --dir "$TT/out6"
is "$rc|$out" "0|report      $TT/out6/report.html
verdict     1 pass; 1 interrupted: h6\u202eevil
HOST             PROFILE           TXN CHANGED VERIFY  RECV_MBPS  LOSS_% DRIFT EXIT  REASON
h3               udp-jumbo           1 no      pass      23802.2    0.02     0    0  nothing to change
h6\u202eevil     udp-jumbo           7 no      interrupted         -       -     0    6  interrupted\nh9 fake-row\x1b[31m" \
	"an interrupted host is in the verdict; a newline, an ESC and U+202E are escaped on the terminal"
run /usr/bin/python3 "$TESTS_DIR/helpers/validate_json.py" "$TOP/schemas/hosts-report.schema.json" "$TT/out6/hosts.json"
is "$rc:$out" "0:1 documents valid" "hosts.json with an interrupted host follows the schema"
sed 's/"interrupted"/"aborted"/' "$F/h6/host.json" >"$F/bad/host.json"
run "$CX5PROF" report --hosts "$F/bad" --dir "$TT/out9"
is "$rc|$err" "65|cx5prof: error: report: $F/bad/host.json: verify: not of the documented type" \
	"an outcome the schema does not know: exit 65, named (hosts.json would not validate)"

# ---- the summary playbook's directory as it is: `report --hosts DIR/*`
S=$TT/summary
mkdir -p "$S"
cp -r "$F/h2" "$F/h3" "$S/"
jq -s '. + [{"host": "h9", "profile": null, "transaction": null, "changed": false, "verify": null, "recv_mbps": null,
	"drift": [], "exit_code": null, "reason": "not reached (the rollout stopped before this host)"}]' \
	"$S/h2/host.json" "$S/h3/host.json" >"$S/summary.json"
printf 'HOST PROFILE\n' >"$S/summary.txt"
run "$CX5PROF" report --hosts "$S"/* --dir "$TT/out7"
is "$rc|$(printf '%s\n' "$out" | sed -n '2p;4,$p' | sed 's/  */ /g')" "0|verdict 1 pass; 1 fail: h2; 1 not run: h9
h2 mtu-jumbo 4 yes FAIL 7742.8 15.66 0 4 receive throughput below >= 9000.0 Mbps (measured 7742.8)
h3 udp-jumbo 1 no pass 23802.2 0.02 0 0 nothing to change
h9 - - no not run - - 0 - not reached (the rollout stopped before this host)" \
	"report --hosts DIR/* on the summary's directory: the hosts' directories, then summary.json's hosts without one"
is "$(jq -r '.hosts[2].dir' "$TT/out7/hosts.json")" "$S/summary.json" "the row from summary.json names it"
echo '{"host": "x"}' >"$S/summary.json"
run "$CX5PROF" report --hosts "$S"/* --dir "$TT/out8"
is "$rc|$err" "65|cx5prof: error: report: $S/summary.json: not a JSON array (the fleet summary's rows)" "a summary.json that is not the rows: exit 65"
done_testing
