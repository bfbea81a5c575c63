#!/usr/bin/env bash
# 51-verify-netperf.t: the netperf runner. netperf is not installable here
# (Debian non-free), so: the "not installed" path for real (no netperf in
# PATH); the "no netserver" path with a netperf on PATH and nothing on
# TCP 12865; and full runs with a stand-in netperf that records its argv and
# prints the real netperf 2.7.1 outputs of tests/fixtures/verify/samples,
# against a TCP listener on 198.18.0.2:12865 standing in for netserver:
# the exact command lines, the figures parsed and summed, -T pinning for
# several streams, socket buffer clamping warnings, truncated output.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
need_root_netns
vsetup v51 cx5-nonuma   # local CPUs 0-3: CPUs 0 and 1 exist on every test machine
SAMPLES=$TOP/tests/fixtures/verify/samples

profile() { # profile FILE STREAMS RUNNERS
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
    send: 4M
    receive: 4M
  streams: $2
  thresholds:
    throughput_mbps: 100
    loss_percent: 1
YAML
}
ONE=$WORK/one.yaml
TWO=$WORK/two.yaml
profile "$ONE" 1 "[netperf]"
profile "$TWO" 2 "[netperf]"

# ---- netperf not installed: say so, name the runners that are available
NOPATH=$WORK/nopath
mkdir -p "$NOPATH"
ln -s "$(command -v iperf3)" "$NOPATH/iperf3"
run ip netns exec "$HOST_NS" env PATH="$NOPATH" "$CX5PROF" --sysroot "$SR" --db "$DB" verify "$ONE"
is "$rc" 1 "netperf missing: exit 1"
printf '%s\n' "$err" | grep -qE '^cx5prof: error: benchmark: no runner of \[netperf\] can run: netperf: netperf is not installed \(not found in PATH\); available runners: iperf3(, builtin)?$'
ok $? "netperf missing: said so, with the available runners"
diag "$err"

# A stand-in netperf: records its argv, replays a real netperf output.
FAKE=$WORK/bin
mkdir -p "$FAKE"
cat >"$FAKE/netperf" <<SH
#!/bin/sh
echo "\$0 \$*" >>"$WORK/argv"
cat "\$(cat "$WORK/replay")"
SH
chmod +x "$FAKE/netperf"
np() { ip netns exec "$HOST_NS" env PATH="$FAKE:$PATH" "$CX5PROF" --sysroot "$SR" --db "$DB" "$@"; }
echo "$SAMPLES/netperf-udp-stream-m8000-loss.txt" >"$WORK/replay"

# ---- netperf installed, no netserver
run np verify "$ONE"
is "$rc" 1 "no netserver: exit 1"
is "$err" "cx5prof: error: benchmark: no runner of [netperf] can run: netperf: no netserver on 198.18.0.2:12865: start \`netserver -p 12865\` on the peer and check its firewall; available runners: iperf3, builtin" \
	"no netserver: the operator's remedy"

# ---- a listener on 12865: one stream, the exact command, the sample's figures
tcp_listener 12865
: >"$WORK/argv"
run np verify "$ONE"
is "$rc" 0 "one stream: exit 0 (4356.62 >= 100 Mbps, 0.48% <= 1%)"
is "$(cat "$WORK/argv")" "$FAKE/netperf -H 198.18.0.2 -t UDP_STREAM -l 1 -- -m 8000 -s 4M -S 4M" "one stream: netperf's exact argv"
is "$(printf '%s\n' "$out" | sed -E 's/sender CPU [0-9.]+%/sender CPU N%/; s/\(run [0-9]+ recorded\)/(run N recorded)/')" \
"verify      lab-netperf ($ONE)
state       in the profile's state (1 interface)
check       path-mtu skip: MTU 1500 here: no jumbo frames to test
check       peer-serve skip: no cx5prof serve on 198.18.0.2:12866 (Connection refused): the peer's MTU, rmem_max, driver and firmware not checked
benchmark   netperf to 198.18.0.2, 1 s, 8000-byte messages, 1 stream
  command   netperf -H 198.18.0.2 -t UDP_STREAM -l 1 -- -m 8000 -s 4M -S 4M
  result    sent 342022, received 340379, lost 1643 (0.48%)
  rate      send 4377.65 Mbps, receive 4356.62 Mbps, sender CPU N%
  warning: requested send socket buffer 4194304 (-s) exceeds net.core.wmem_max 212992 on this host: the kernel clamps it silently; raise net.core.wmem_max to at least 4194304
  warning: requested receive socket buffer 4194304 (-S) exceeds net.core.rmem_max 212992 on this host: the kernel clamps it silently; raise net.core.rmem_max to at least 4194304
thresholds
  receive throughput >= 100 Mbps: 4356.62 Mbps  pass
  loss <= 1 %: 0.48 %  pass
irq spread  no interrupts of the ports' completion IRQs during the run
counters    ens1f0: the driver reports none of the watched drop counters
result      pass (run N recorded)" "one stream: the report, with the clamping warnings"

# ---- raised limits in the sysroot: no warning
echo 8388608 >"$SR/proc/sys/net/core/wmem_max"
echo 8388608 >"$SR/proc/sys/net/core/rmem_max"
run np verify "$ONE"
printf '%s\n' "$out" | grep -q 'warning'
ok $((!$?)) "limits raised: no clamping warning"

# ---- two streams: two netperf processes pinned with -T to NUMA-local CPUs, summed
: >"$WORK/argv"
run np verify "$TWO" --json
is "$rc" 0 "two streams: exit 0"
is "$(sort "$WORK/argv")" "$FAKE/netperf -H 198.18.0.2 -t UDP_STREAM -l 1 -T 0, -- -m 8000 -s 4M -S 4M
$FAKE/netperf -H 198.18.0.2 -t UDP_STREAM -l 1 -T 1, -- -m 8000 -s 4M -S 4M" "two streams: pinned with -T 0, and -T 1,"
printf '%s\n' "$out" >"$WORK/two.json"
run "$PY" - "$WORK/two.json" "$TOP/schemas/verify.schema.json" <<'PYEOF'
import json, sys, jsonschema
d = json.load(open(sys.argv[1]))
jsonschema.validate(d, json.load(open(sys.argv[2])))
b = d["benchmark"]
print(b["sent"], b["received"], b["lost"], round(b["send_mbps"], 2), round(b["recv_mbps"], 2),
      [(s["cpu"], s["sent"], s["received"]) for s in b["per_stream"]])
PYEOF
is "$out" "684044 680758 3286 8755.3 8713.24 [(0, 342022, 340379), (1, 342022, 340379)]" \
	"two streams: figures summed, per stream kept"

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
cat >"$FAKE/netperf" <<SH
#!/bin/sh
echo "\$0 \$*" >>"$WORK/argv"
cat "\$(cat "$WORK/replay")"
(for i in \$(seq 200); do echo tick; sleep 0.05; done) &
exit 0
SH
echo "$SAMPLES/netperf-udp-stream-m8000-loss.txt" >"$WORK/replay"
start=$(date +%s)
run timeout 20 ip netns exec "$HOST_NS" env PATH="$FAKE:$PATH" "$CX5PROF" --sysroot "$SR" --db "$DB" verify "$ONE"
took=$(( $(date +%s) - start ))
is "$rc" 0 "grandchild holding the pipe: verify completes (exit 0)"
[ "$took" -lt 8 ]
ok $? "grandchild holding the pipe: done in ${took} s, not after the grandchild's 10 s"
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

# ---- a list: netperf first, iperf3 used when netserver is gone
profile "$WORK/list.yaml" 1 "[netperf, iperf3]"
stop_servers
wait_closed 12865
iperf3_server
run np verify "$WORK/list.yaml"
printf '%s\n' "$out" | grep -qx 'benchmark   iperf3 to 198.18.0.2, 1 s, 8000-byte messages, 1 stream'
ok $? "list: the first available runner (iperf3) is used and named"
printf '%s\n' "$out" | grep -qx '  not used: netperf: no netserver on 198.18.0.2:12865: start `netserver -p 12865` on the peer and check its firewall'
ok $? "list: why netperf was passed over"

done_testing
