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
