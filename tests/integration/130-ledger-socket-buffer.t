#!/usr/bin/env bash
# 130-ledger-socket-buffer.t: the loss ledger with real counters, in the
# lab, the peer's receive socket buffer made small for the run alone
# (verify.socket_buffer.receive: netperf -S, the builtin's --recv-buffer;
# never a sysctl). netperf and the builtin runner each name the receiver
# socket buffer as the bottleneck, UdpRcvbufErrors (read on the peer by
# `cx5prof serve`) accounting for most of the loss; with a large buffer
# the socket buffer's share of the datagrams sent falls (the loss moves or
# goes). For every runner, iperf3 too, the lines add up: sent = received +
# every stage + unaccounted; and the ledger follows
# schemas/ledger.schema.json. No timing is asserted: only effects far
# larger than a busy machine's noise.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
. "$(dirname "$0")/ledger-lib.sh"
need_root_netns
command -v netperf >/dev/null && command -v netserver >/dev/null && command -v iperf3 >/dev/null ||
	skip_all "needs netperf, netserver and iperf3 (contrib/install-deps.sh)"
vsetup v130 cx5-nonuma
set_mtu 9000 9000

profile() { ledger_profile "$1" lab-ledger "$2" 2 "$3"; } # profile FILE RUNNER RECEIVE

serve_start
ok $? "cx5prof serve listens in the peer"
netserver_start 12865
ok $? "netserver listens in the peer"

for runner in netperf builtin; do
	profile "$WORK/small-$runner.yaml" "$runner" 4K
	profile "$WORK/large-$runner.yaml" "$runner" 4M
	run cx verify "$WORK/small-$runner.yaml" --json
	exit0 "$runner, 4K receive buffer: exit 0"
	printf '%s' "$out" >"$WORK/small-$runner.json"
	read -r by sent received lost sb reasm unacc adds known schema < <(ledger_facts "$WORK/small-$runner.json")
	diag "$runner 4K: limited by $by; sent $sent, received $received, lost $lost, socket buffer $sb, unaccounted $unacc"
	is "$by" receiver-socket-buffer "$runner, 4K: the receiver socket buffer is the bottleneck"
	[ "$lost" -gt 0 ] && [ $((2 * sb)) -gt "$lost" ]
	ok $? "$runner, 4K: UdpRcvbufErrors account for most of the loss ($sb of $lost)"
	is "$adds $known $schema" "adds-up receiver-known schema-ok" \
		"$runner, 4K: the lines add up, the receiver's counters were read, the schema holds"

	run cx verify "$WORK/large-$runner.yaml" --json
	exit0 "$runner, 4M receive buffer: exit 0"
	printf '%s' "$out" >"$WORK/large-$runner.json"
	read -r by2 sent2 received2 lost2 sb2 reasm2 unacc2 adds2 known2 schema2 < <(ledger_facts "$WORK/large-$runner.json")
	diag "$runner 4M: limited by $by2; sent $sent2, received $received2, lost $lost2, socket buffer $sb2, unaccounted $unacc2"
	# The socket buffer's share of what was sent, 4M against 4K: lower. A
	# 4K buffer holds one 8000-byte datagram, so about half of them or more
	# overflow it; 4M holds 500 (on an idle machine its share is a fraction
	# of a percent; a busy one starves the receiver now and then).
	"$PY" -c "import sys; sys.exit(0 if $sb2 * $sent < $sb * $sent2 else 1)"
	ok $? "$runner, 4M: the loss at the socket buffer moved or went ($sb2 of $sent2, was $sb of $sent)"
	is "$adds2 $known2 $schema2" "adds-up receiver-known schema-ok" "$runner, 4M: the lines add up"
done

# The human report: the ledger's lines in path order and the one line.
profile "$WORK/small.yaml" builtin 4K
run cx verify "$WORK/small.yaml"
exit0 "human report: exit 0"
printf '%s\n' "$out" | sed -n '/^ledger /,/^limited by /p' | sed -E 's/[0-9][0-9,]*/N/g' | awk '{ l = $1 " " $2 " " $3; sub(/ +$/, "", l); print l }' >"$WORK/lines"
is "$(sed -n '2,17p' "$WORK/lines")" "sent N by
sender socket N
sender qdisc N
sender device N
wire N
receiver NIC N
receiver backlog N
IP reassembly N
receiver IP N
receiver socket buffer
receiver socket memory
receiver checksum N
receiver socket (other)
receiver without socket
received N by
unaccounted N no" "human report: every stage in path order, between sent and received"
printf '%s\n' "$out" | grep -qE '^limited by  receiver socket buffer: UdpRcvbufErrors \+[0-9,]+ = [0-9.]+% of the lost datagrams; raise net\.core\.rmem_max and verify\.socket_buffer\.receive \(now 4096; the socket got [0-9]+\)$'
ok $? "human report: the bottleneck with its evidence and the setting that addresses it"
printf '%s\n' "$out" | grep -qx '  receiver counters: cx5prof serve on 198.18.0.2:12866'
ok $? "human report: where the receiver's counters come from"

# Kept with every run (history schema v6), mirrored, compared.
run "$PY" - "$DB" <<'PYEOF'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("select id, runner, limited_by, ledger from runs order by id").fetchall()
payloads = {json.loads(p)["id"]: json.loads(p) for (p,) in
            db.execute("select payload from outbox where source_kind = 'run'")}
ok = all(r[2] == json.loads(r[3])["limited_by"] and payloads[r[0]]["limited_by"] == r[2] and
         payloads[r[0]]["ledger"]["sent"] == json.loads(r[3])["sent"] for r in rows)
print(len(rows), [r[2] for r in rows][0], ok)
PYEOF
is "$rc $out" "0 5 receiver-socket-buffer True" \
	"history: every run keeps its ledger and what limited it, and the mirror's payload carries them"
# Runs 1 and 3 are the 4K runs (netperf, builtin), each limited by the
# receiver socket buffer as asserted above; a 4M run may lose nothing at
# all on an idle machine (limited by the sender).
run cx --json compare 1 3
exit0 "compare: exit 0"
printf '%s' "$out" >"$WORK/compare.json"
is "$(jq -r '.results[] | select(.name == "limited_by" or .name == "ledger.receiver-socket-buffer") | .name + " " + (.values | map(tostring) | join(" ")) + " " + ((.deltas // [null, null])[1] | tostring)' "$WORK/compare.json" | sed -E 's/ [0-9]+ [0-9]+ -?[0-9]+(\.[0-9]+)?$/ N N DELTA/')" \
	"limited_by receiver-socket-buffer receiver-socket-buffer null
ledger.receiver-socket-buffer N N DELTA" "compare: what limited each run, and the ledger's lines with their deltas"
run cx history show 1
printf '%s\n' "$out" | grep -qE '^limited by   receiver socket buffer: UdpRcvbufErrors \+[0-9,]+ = '
ok $? "history show: the run's bottleneck"
run cx report 1 3 --dir "$WORK/report"
grep -A3 '<h2>Where the lost datagrams went</h2>' "$WORK/report/report.html" |
	grep -qE '^<tr><td[^>]*>receiver socket buffer</td><td[^>]*>[0-9]+</td><td[^>]*>[0-9.]+%</td></tr>$'
ok $? "report.html: a ledger table per group"
is "$(grep -cE '^<tr><td>limited by</td><td colspan="2"[^>]*>receiver socket buffer</td></tr>$' "$WORK/report/report.html")" 2 \
	"report.html: what limited each run"

# iperf3 (one-shot server): its lines add up too.
profile "$WORK/iperf3.yaml" iperf3 4K
iperf3_server
run cx verify "$WORK/iperf3.yaml" --json
exit0 "iperf3: exit 0"
printf '%s' "$out" >"$WORK/iperf3.json"
read -r by sent received lost sb reasm unacc adds known schema < <(ledger_facts "$WORK/iperf3.json")
diag "iperf3: limited by $by; sent $sent, received $received, lost $lost, socket buffer $sb, unaccounted $unacc"
is "$adds $known $schema" "adds-up receiver-known schema-ok" "iperf3: the lines add up"

done_testing
