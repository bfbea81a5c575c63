#!/usr/bin/env bash
# 51-verify-netperf.t: the netperf runner against a real netserver.
#
# netperf 2.7.0 (Debian non-free, contrib/install-deps.sh) runs in the lab's
# host namespace against `netserver -L 198.18.0.2 -p 12865 -D` in the peer:
# the exact command lines, the figures in the verify document equal to the
# ones netperf printed, -T pinning for several streams, and the socket
# buffer clamping warning agreeing with the socket sizes netperf itself
# reports (whatever the sysroot's sysctl copy says). Also the "not
# installed" and "no netserver" paths for real. Outputs a real netperf
# cannot be made to print (truncated, negative figures, nothing sent, a
# grandchild holding the pipe) come from a stand-in that replays the real
# outputs of tests/fixtures/verify/samples, after the real part.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
need_root_netns
need_tool netperf "contrib/install-deps.sh enables Debian non-free for it"
need_tool netserver "contrib/install-deps.sh enables Debian non-free for it"
vsetup v51 cx5-nonuma   # local CPUs 0-3: CPUs 0 and 1 exist on every test machine
SAMPLES=$TOP/tests/fixtures/verify/samples

profile() { # profile FILE STREAMS RUNNERS [SEND RECEIVE]
	cat >"$1" <<YAML
version: 1
name: lab-netperf
match:
  interfaces: [ens1f0]
verify:
  peer: 198.18.0.2
  runner: $3
  duration: 1
  message_size: 8000
  socket_buffer:
    send: ${4:-4M}
    receive: ${5:-4M}
  streams: $2
  thresholds:
    throughput_mbps: 1
    loss_percent: 100
YAML
}
ONE=$WORK/one.yaml
TWO=$WORK/two.yaml
profile "$ONE" 1 "[netperf]"
profile "$TWO" 2 "[netperf]"

# netperf's table: "SOCKET MSG ELAPSED OKAY ERRORS MBPS", then the
# receiver's "SOCKET ELAPSED OKAY MBPS": the figures of run RUN as netperf
# printed them (its raw output, from the export bundle).
netperf_figures() { # RUN -> sent received send_socket recv_socket
	rm -rf "$WORK/export"
	cx export "$1" --dir "$WORK/export" >/dev/null &&
		awk '$1 ~ /^[0-9]+$/ && NF == 6 { s = $4; ss = $1 } $1 ~ /^[0-9]+$/ && NF == 4 { r = $3; rs = $1 }
		     END { print s, r, ss, rs }' "$WORK/export/artifacts/runner_output"
}

# ---- netperf not installed: say so, name the runners that are available
NOPATH=$WORK/nopath
mkdir -p "$NOPATH"
ln -s "$(command -v iperf3)" "$NOPATH/iperf3"
run ip netns exec "$HOST_NS" env PATH="$NOPATH" "$CX5PROF" --sysroot "$SR" --db "$DB" verify "$ONE"
is "$rc" 1 "netperf missing: exit 1"
printf '%s\n' "$err" | grep -qE '^cx5prof: error: benchmark: no runner of \[netperf\] can run: netperf: netperf is not installed \(not found in PATH\); available runners: iperf3(, builtin)?$'
ok $? "netperf missing: said so, with the available runners"
diag "$err"

# ---- netperf installed, no netserver
run cx verify "$ONE"
is "$rc" 1 "no netserver: exit 1"
is "$err" "cx5prof: error: benchmark: no runner of [netperf] can run: netperf: no netserver on 198.18.0.2:12865: start \`netserver -p 12865\` on the peer and check its firewall; available runners: iperf3, builtin" \
	"no netserver: the operator's remedy"

# ---- a real netserver: one stream, the exact command, netperf's own figures
netserver_start 12865
ok $? "netserver listens on 198.18.0.2:12865 in the peer"
WMEM=$(cat /proc/sys/net/core/wmem_max) # read only: the kernel the lab runs on
RMEM=$(cat /proc/sys/net/core/rmem_max)
run cx verify "$ONE" --json
is "$rc" 0 "one stream: exit 0"
printf '%s' "$out" >"$WORK/one.json"
is "$(jq -r '.benchmark.command' "$WORK/one.json")" "netperf -H 198.18.0.2 -t UDP_STREAM -l 1 -- -m 8000 -s 4M -S 4M" \
	"one stream: netperf's exact command"
read -r sent received ssock rsock <<<"$(netperf_figures "$(jq -r '.run_id' "$WORK/one.json")")"
is "$(jq -r '[.benchmark.sent, .benchmark.received, .benchmark.send_buffer_actual, .benchmark.recv_buffer_actual] | @tsv' "$WORK/one.json")" \
	"$(printf '%s\t%s\t%s\t%s' "$sent" "$received" "$ssock" "$rsock")" \
	"one stream: sent, received and socket sizes are the ones netperf printed ($sent, $received, $ssock, $rsock)"
[ "${sent:-0}" -gt 0 ] && [ "${received:-0}" -gt 0 ]
ok $? "one stream: datagrams sent and received over the veth"

# ---- clamping: the warning agrees with the socket size netperf reports.
# The sysroot copy says net.core.wmem_max 212992; the kernel the lab runs
# on decides what the socket gets, and netperf prints it.
is "$(cat "$SR/proc/sys/net/core/wmem_max")" 212992 "the sysroot's net.core.wmem_max is 212992"
want_warn() { # WHAT FLAG WANT LIMIT SYSCTL WHERE: the warning when the kernel's LIMIT is below WANT
	[ "$3" -gt "$4" ] || return 0
	echo "netperf reports a $1 socket buffer of $((2 * $4)) bytes for $2 $3 (the kernel doubles a request: $((2 * $3)) was due): it was clamped to $5 $4 $6; raise $5 to at least $3"
}
expected=$({
	want_warn send -s 4194304 "$WMEM" net.core.wmem_max "on this host"
	want_warn receive -S 4194304 "$RMEM" net.core.rmem_max "on the peer"
})
is "$(jq -r '.benchmark.warnings[]' "$WORK/one.json")" "$expected" \
	"4M requested, kernel limits $WMEM/$RMEM: a warning only if netperf got less (the sysroot's 212992 does not count)"
is "$ssock" "$((2 * (WMEM < 4194304 ? WMEM : 4194304)))" "netperf's send socket is 2 * min(4M, net.core.wmem_max)"

# A request above the kernel's limit: clamped, and the warning names
# netperf's figure and the limit it implies, as send_buffer_actual does.
if [ $((2 * WMEM)) -le 2147483647 ] && [ $((2 * RMEM)) -le 2147483647 ]; then
	profile "$WORK/big.yaml" 1 "[netperf]" $((2 * WMEM)) $((2 * RMEM))
	run cx verify "$WORK/big.yaml" --json
	is "$rc" 0 "buffers above the kernel's limits: exit 0 (a warning, not a failure)"
	printf '%s' "$out" >"$WORK/big.json"
	read -r sent received ssock rsock <<<"$(netperf_figures "$(jq -r '.run_id' "$WORK/big.json")")"
	is "$(jq -r '[.benchmark.send_buffer_actual, .benchmark.recv_buffer_actual] | @tsv' "$WORK/big.json")" \
		"$(printf '%s\t%s' "$ssock" "$rsock")" "clamped: send/recv_buffer_actual are netperf's socket sizes"
	is "$(jq -r '.benchmark.warnings[]' "$WORK/big.json")" \
		"netperf reports a send socket buffer of $ssock bytes for -s $((2 * WMEM)) (the kernel doubles a request: $((4 * WMEM)) was due): it was clamped to net.core.wmem_max $((ssock / 2)) on this host; raise net.core.wmem_max to at least $((2 * WMEM))
netperf reports a receive socket buffer of $rsock bytes for -S $((2 * RMEM)) (the kernel doubles a request: $((4 * RMEM)) was due): it was clamped to net.core.rmem_max $((rsock / 2)) on the peer; raise net.core.rmem_max to at least $((2 * RMEM))" \
		"clamped: the warnings name netperf's figures"
	is "$((ssock / 2)) $((rsock / 2))" "$WMEM $RMEM" "clamped: the limits the warnings name are the kernel's"
	run cx verify "$WORK/big.yaml"
	printf '%s\n' "$out" | grep -qxF "  warning: netperf reports a send socket buffer of $ssock bytes for -s $((2 * WMEM)) (the kernel doubles a request: $((4 * WMEM)) was due): it was clamped to net.core.wmem_max $WMEM on this host; raise net.core.wmem_max to at least $((2 * WMEM))"
	ok $? "clamped: the human report prints the same warning"
else
	skip 5 "clamping above the kernel's limit: its socket buffer limits are above 1 GiB"
fi

# ---- two streams: two netperf processes pinned with -T to NUMA-local CPUs, summed
run cx verify "$TWO" --json
is "$rc" 0 "two streams: exit 0"
printf '%s\n' "$out" >"$WORK/two.json"
is "$(jq -r '.benchmark.command' "$WORK/two.json")" "netperf -H 198.18.0.2 -t UDP_STREAM -l 1 -T 0, -- -m 8000 -s 4M -S 4M
netperf -H 198.18.0.2 -t UDP_STREAM -l 1 -T 1, -- -m 8000 -s 4M -S 4M" "two streams: pinned with -T 0, and -T 1,"
run "$PY" - "$WORK/two.json" "$TOP/schemas/verify.schema.json" "$TESTS_DIR/helpers" <<'PYEOF'
import json, sys
sys.path.insert(0, sys.argv[3])
from validate_json import validator
d = json.load(open(sys.argv[1]))
validator(sys.argv[2]).validate(d)
b = d["benchmark"]
s = b["per_stream"]
print(len(s), [x["cpu"] for x in s], b["sent"] == sum(x["sent"] for x in s),
      b["received"] == sum(x["received"] for x in s), all(x["sent"] > 0 for x in s))
PYEOF
is "$out" "2 [0, 1] True True True" "two streams: per stream kept, figures summed, a valid verify document"

# ---- a list: netperf first, iperf3 used when netserver is gone
profile "$WORK/list.yaml" 1 "[netperf, iperf3]"
stop_servers
wait_closed 12865
iperf3_server
run cx verify "$WORK/list.yaml"
printf '%s\n' "$out" | grep -qx 'benchmark   iperf3 to 198.18.0.2, 1 s, 8000-byte messages, 1 stream'
ok $? "list: the first available runner (iperf3) is used and named"
printf '%s\n' "$out" | grep -qx '  not used: netperf: no netserver on 198.18.0.2:12865: start `netserver -p 12865` on the peer and check its firewall'
ok $? "list: why netperf was passed over"
stop_servers

# ---- the stand-in: records its argv and replays a real netperf output,
# for outputs a real netperf cannot be made to print on demand
sed -i 's/throughput_mbps: 1$/throughput_mbps: 100/; s/loss_percent: 100$/loss_percent: 1/' "$ONE"
FAKE=$WORK/bin
mkdir -p "$FAKE"
cat >"$FAKE/netperf" <<SH
#!/bin/sh
echo "\$0 \$*" >>"$WORK/argv"
cat "\$(cat "$WORK/replay")"
SH
chmod +x "$FAKE/netperf"
np() { ip netns exec "$HOST_NS" env PATH="$FAKE:$PATH" "$CX5PROF" --sysroot "$SR" --db "$DB" "$@"; }
tcp_listener 12865

# ---- other output forms netperf prints
echo "$SAMPLES/netperf-udp-stream-P0.txt" >"$WORK/replay"
run np verify "$ONE"
printf '%s\n' "$out" | grep -qx '  result    sent 241861, received 241861, lost 0 (0.00%)'
ok $? "-P 0 output parsed"
echo "$SAMPLES/netperf-udp-stream-omni-o.txt" >"$WORK/replay"
run np verify "$ONE"
printf '%s\n' "$out" | grep -qx '  result    sent 348778, received 344649, lost 4129 (1.18%)'
ok $? "-o CSV output parsed"
is "$rc" 4 "-o CSV: 1.18% loss fails the 1% ceiling: exit 4"

# ---- truncated output: no receiver line
head -n 6 "$SAMPLES/netperf-udp-stream-m8000-loss.txt" >"$WORK/cut.txt"
echo "$WORK/cut.txt" >"$WORK/replay"
run np verify "$ONE"
is "$rc" 1 "truncated: exit 1"
is "$err" "cx5prof: error: benchmark: netperf output is truncated (no receiver line; exit status 0): the run was cut short or netserver died; run it again" \
	"truncated: said so"

# ---- a run that sent nothing never passes (review finding): netperf's
# "Okay 0" with every send failed is an error naming the failed sends
cat >"$WORK/none.txt" <<'OUT'
MIGRATED UDP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 198.18.0.2 () port 0 AF_INET
Socket  Message  Elapsed      Messages
Size    Size     Time         Okay Errors   Throughput
bytes   bytes    secs            #      #   10^6bits/sec

8388608    8000   1.00           0   51234       0.00
8388608           1.00           0               0.00

OUT
echo "$WORK/none.txt" >"$WORK/replay"
run np verify "$ONE"
is "$rc" 1 "nothing sent: exit 1 (error), not 0"
is "$err" "cx5prof: error: benchmark: netperf sent no datagram to 198.18.0.2 (51234 failed sends, netperf's Errors column): nothing was measured; check the route to the peer and the send buffer (ENOBUFS: raise net.core.wmem_max), then run again" \
	"nothing sent: said so, with the failed sends"
printf '%s\n' "$out" | grep -qx '  receive throughput >= 100 Mbps: n/a (the benchmark failed)'
ok $? "nothing sent: the throughput floor is not passed"
is "$(printf '%s\n' "$out" | tail -n 1 | sed -E 's/\(run [0-9]+ recorded\)/(run N recorded)/')" "result      error (run N recorded)" \
	"nothing sent: result error"
run np verify "$ONE" --json
is "$(printf '%s' "$out" | jq -r '[.result, .exit_code, .benchmark.error != null, ([.thresholds[].status] | join(","))] | @tsv')" \
	"$(printf 'error\t1\ttrue\tn/a,n/a')" "nothing sent, JSON: result error, exit_code 1, thresholds n/a"

# ---- a negative figure is refused, naming it (the table form and -o CSV)
sed 's/^8388608           1.00           0               0.00$/8388608           1.00      340379           -4356.62/; s/       0   51234       0.00$/  342022       0    4377.65/' \
	"$WORK/none.txt" >"$WORK/neg.txt"
echo "$WORK/neg.txt" >"$WORK/replay"
run np verify "$ONE"
is "$rc" 1 "negative throughput: exit 1"
is "$err" "cx5prof: error: benchmark: netperf printed a negative receiver throughput: not a measurement; check the netperf and netserver versions and run again" \
	"negative throughput: refused, naming the figure"
printf 'Throughput,Throughput Units,Local Send Calls,Remote Recv Calls,Elapsed Time (sec)\n-7352.02,10^6bits/s,348778,344649,10.00\n' >"$WORK/neg.csv"
echo "$WORK/neg.csv" >"$WORK/replay"
run np verify "$ONE"
is "$err" "cx5prof: error: benchmark: netperf printed a negative Throughput: not a measurement; check the netperf and netserver versions and run again" \
	"negative CSV throughput: refused, naming the column"

# ---- failed sends among sent ones: a warning
sed 's/       0   51234       0.00$/  342022      77    4377.65/; s/^8388608           1.00           0               0.00$/8388608           1.00      340379           4356.62/' \
	"$WORK/none.txt" >"$WORK/errs.txt"
echo "$WORK/errs.txt" >"$WORK/replay"
run np verify "$ONE"
is "$rc" 0 "some sends failed: the run still counts (exit 0)"
printf '%s\n' "$out" | grep -qx "  warning: 77 sends failed during the run, netperf's Errors column: the local socket refused them (ENOBUFS: the send buffer overflowed); raise net.core.wmem_max and the send buffer"
ok $? "some sends failed: warned, with netperf's Errors figure"

# ---- a stand-in whose grandchild keeps the output pipe open and writing:
# verify ends (the drain after netperf's exit is bounded), with the result
# (the grandchild writes for 60 s, then leaves a file: verify must be done
# before that file exists)
cat >"$FAKE/netperf" <<SH
#!/bin/sh
echo "\$0 \$*" >>"$WORK/argv"
cat "\$(cat "$WORK/replay")"
(for i in \$(seq 1200); do echo tick; sleep 0.05; done; touch "$WORK/grandchild-done") &
exit 0
SH
echo "$SAMPLES/netperf-udp-stream-m8000-loss.txt" >"$WORK/replay"
rm -f "$WORK/grandchild-done"
run timeout 120 ip netns exec "$HOST_NS" env PATH="$FAKE:$PATH" "$CX5PROF" --sysroot "$SR" --db "$DB" verify "$ONE"
is "$rc" 0 "grandchild holding the pipe: verify completes (exit 0)"
[ ! -e "$WORK/grandchild-done" ]
ok $? "grandchild holding the pipe: done before the grandchild (it writes for 60 s)"
cat >"$FAKE/netperf" <<SH
#!/bin/sh
echo "\$0 \$*" >>"$WORK/argv"
cat "\$(cat "$WORK/replay")"
SH

# ---- netperf's own "no netserver" output (the listener accepted, netperf failed)
echo "$SAMPLES/netperf-no-netserver.txt" >"$WORK/replay"
run np verify "$ONE"
is "$err" "cx5prof: error: benchmark: no netserver on 198.18.0.2:12865: start \`netserver -p 12865\` on the peer and check its firewall" \
	"netperf's establish_control failure: the same remedy"

done_testing
