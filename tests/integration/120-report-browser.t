#!/usr/bin/env bash
# 120-report-browser.t: report.html of a real lab campaign, in a real browser.
#
# The shipped lab campaign (contrib/lab/campaign-lab.yaml: 3 groups, 1 s
# rounds of netperf against netserver in the peer namespace, repeat 2)
# writes its report; headless Chromium, without network, loads a copy of
# report.html with a probe script appended (the report has none) at 800
# and 1400 px: the page never scrolls sideways, no text overflows its box,
# no SVG element is clipped, and the probe checked a whole page (its
# counts of text elements and pictures); the page has the loss ledger's
# tables. Also at 800 px: the report of a campaign
# with the widest rows (a group skipped with its reason, thresholds failed
# in every round, a long group name) and the page of `report RUN`. The
# HTML parses strictly (every element closed in order), its SVG and
# report.svg as XML, and no URL appears but the SVG namespace and the
# runs' bundles. Screenshots at both widths are kept under
# build/test-artifacts/ (not committed).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
. "$(dirname "$0")/browser-lib.sh"
need_root_netns
need_tool netserver "contrib/install-deps.sh enables Debian non-free for it"
browser_need
vsetup v120 cx5-2port
trap 'browser_cleanup; v_cleanup' EXIT
ARTIFACTS=${CX5PROF_TEST_ARTIFACTS:-$TOP/build/test-artifacts}
mkdir -p "$ARTIFACTS"
ip -n "$PEER_NS" link set peer0 mtu 9000
netserver_start 12865
ok $? "netserver listens in the peer namespace"

run cx campaign "$TOP/contrib/lab/campaign-lab.yaml" --report "$WORK/report"
is "$rc" 0 "the lab campaign: exit 0"
diag "$err"
ls "$WORK/report" | tr '\n' ' ' | grep -qx 'campaign.json report.html report.svg runs '
ok $? "the report directory: campaign.json, report.html, report.svg, runs/"
grep -qF '<h2>Where the lost datagrams went</h2>' "$WORK/report/report.html"
ok $? "the report has the loss ledger's tables (the probe checks them too)"

# The probe checked a whole page, not an empty or cut one: at least 50
# text elements and 5 pictures (the two charts, the heat map's legend and
# a map per group). probe_whole VERDICT NAME
probe_whole() {
	local texts pics
	read -r texts pics < <(sed -n 's/^PROBE checked \([0-9]*\) text elements, \([0-9]*\) pictures, .*/\1 \2/p' "$1")
	[ "${texts:-0}" -ge 50 ] && [ "${pics:-0}" -ge 5 ]
	ok $? "$2: the probe checked ${texts:-no} text elements and ${pics:-no} pictures (at least 50 and 5)"
}

for width in 800 1400; do
	browser_probe "$WORK/report/report.html" "$width" "$WORK/verdict-$width"
	ok $? "Chromium loaded the report at $width px"
	head -n 1 "$WORK/verdict-$width" | grep -qx 'PROBE PASS'
	ok $? "at $width px: no sideways scroll, no text past its box, no clipped SVG"
	diag "$(cat "$WORK/verdict-$width")"
	probe_whole "$WORK/verdict-$width" "at $width px"
	browser_screenshot "$WORK/report/report.html" "$width" 2600 "$ARTIFACTS/120-report-$width.png"
	[ -s "$ARTIFACTS/120-report-$width.png" ]
	ok $? "a screenshot at $width px: $ARTIFACTS/120-report-$width.png"
done

# A second campaign whose report has the widest rows
# (tests/fixtures/campaign/): a group skipped with its reason, a threshold
# failed in every round by a group with a long name.
printf 'version: 1\nname: lab-wide\ngroups: [%s, %s, %s]\nverify: {peer: 198.18.0.2, runner: netperf, duration: 1}\n' \
	"$TOP/profiles/baseline.yaml" "$TOP/tests/fixtures/campaign/gate.yaml" "$TOP/tests/fixtures/campaign/newer-driver.yaml" \
	>"$WORK/wide.yaml"
run cx campaign "$WORK/wide.yaml" --report "$WORK/wide"
is "$rc" 0 "a campaign with a skipped group and failed thresholds: exit 0"
browser_probe "$WORK/wide/report.html" 800 "$WORK/verdict-wide"
head -n 1 "$WORK/verdict-wide" | grep -qx 'PROBE PASS'
ok $? "its report at 800 px: no sideways scroll, no overflow, no clipped SVG"
diag "$(cat "$WORK/verdict-wide")"
probe_whole "$WORK/verdict-wide" "the wide report"

run cx report 1 2 3 --dir "$WORK/runs-report"
is "$rc" 0 "report RUN RUN RUN: exit 0"
browser_probe "$WORK/runs-report/report.html" 800 "$WORK/verdict-runs"
head -n 1 "$WORK/verdict-runs" | grep -qx 'PROBE PASS'
ok $? "the page of report RUN... at 800 px: no sideways scroll, no overflow, no clipped SVG"
diag "$(cat "$WORK/verdict-runs")"
probe_whole "$WORK/verdict-runs" "the page of report RUN..."

run "$PY" - "$WORK/report" "$WORK/runs-report" "$WORK/wide" <<'PYEOF'
import html.parser, os, re, sys, xml.etree.ElementTree as ET
VOID = {"meta", "br", "img", "input", "link", "hr", "wbr", "col"}
class Strict(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.bad = [], []
    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        pass
    def handle_endtag(self, tag):
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()
        else:
            self.bad.append(tag)
out = []
for d in sys.argv[1:]:
    page = open(os.path.join(d, "report.html"), encoding="utf-8", errors="strict").read()
    p = Strict()
    p.feed(page)
    p.close()
    for s in re.findall(r"<svg\b.*?</svg>", page, re.S):
        ET.fromstring(s)
    svg = ET.parse(os.path.join(d, "report.svg")).getroot()
    urls = [u for u in re.findall(r"(?:https?|ftp|file|data):[^\s\"'<>]*", page + open(os.path.join(d, "report.svg")).read())
            if u != "http://www.w3.org/2000/svg"]
    hrefs = [h for h in re.findall(r'(?:href|src)="([^"]*)"', page) if not re.fullmatch(r"runs/run-[0-9]+/README\.md", h)]
    ctrl = [c for c in page if ord(c) < 32 and c not in "\n\t"]
    out.append((not p.bad and not p.stack, svg.tag, urls, hrefs, "<script" in page, "@import" in page, ctrl))
print(out)
PYEOF
is "$rc $out" "0 [$(printf "(True, '{http://www.w3.org/2000/svg}svg', [], [], False, False, [])%.0s, " 1 2 3 | sed 's/, $//')]" \
	"the three pages parse strictly, their SVG and report.svg as XML; no URL, no script, no import, no control character"

done_testing
