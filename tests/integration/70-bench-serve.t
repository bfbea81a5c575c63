#!/usr/bin/env bash
# 70-bench-serve.t: the built-in UDP benchmark across the lab's veth pair.
#
# `cx5prof serve` runs in the peer namespace (198.18.0.2), `cx5prof bench`
# in the host namespace. Checks: the counts agree exactly (sent = received
# + lost, per stream and in total), loss appears when the receiver's
# buffer is tiny, the GSO path (and its fallback when the MTU is too small
# for the segment size), several streams pinned to CPUs, the run recorded in
# the history, and a clear error when no server listens.
. "$(dirname "$0")/lib.sh"
need_root_netns

export CX5LAB_PREFIX=cx5t70-$$
HNS=$CX5LAB_PREFIX-host
PNS=$CX5LAB_PREFIX-peer
TMP=$(mktemp -d)
SERVE_PID=
cleanup() {
	[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
	"$TOP/contrib/lab/lab.sh" down >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT

"$TOP/contrib/lab/lab.sh" up >/dev/null || { echo "Bail out! lab.sh up failed"; exit 1; }
ip -n "$HNS" link set ens1f0 mtu 9000 && ip -n "$PNS" link set peer0 mtu 9000 ||
	{ echo "Bail out! cannot set MTU 9000"; exit 1; }

ip netns exec "$PNS" "$CX5PROF" serve --bind 198.18.0.2 2>"$TMP/serve.log" &
SERVE_PID=$!
wait_until 60 grep -q listening "$TMP/serve.log"
is "$(head -n1 "$TMP/serve.log")" "cx5prof: serve: listening on 198.18.0.2 port 12866 (one test at a time)" \
	"serve announces its address and the default port 12866"

bench() { run ip netns exec "$HNS" "$CX5PROF" --db "$TMP/h.db" bench --peer 198.18.0.2 --duration 1 "$@"; }
j() { printf '%s' "$out" | jq -r "$1"; }
# The exact accounting: total and every stream.
balanced() {
	printf '%s' "$out" | jq -e '
		(.sent == .received + .lost) and (.sent > 0) and
		([.per_stream[] | .sent == .received + .lost] | all) and
		(.sent == ([.per_stream[].sent] | add)) and
		(.received == ([.per_stream[].received] | add))' >/dev/null
}

# 1. One stream, defaults.
bench --json
is "$rc" 0 "bench exits 0"
is "$(j '.runner + " " + .peer + " " + (.port|tostring) + " " + (.message_size|tostring) + " " + (.streams|tostring)')" \
	"builtin 198.18.0.2 12866 8000 1" "the JSON names runner, peer, port, message size, streams"
balanced; ok $? "sent = received + lost, exactly ($(j '"\(.sent) = \(.received) + \(.lost)"'))"
j '.recv_mbps > 0 and .send_mbps > 0 and .sender_cpu_percent > 0' | grep -qx true
ok $? "throughput on both sides and the sender's CPU use are reported"
is "$(j '.receiver_softirq | length > 0')" true "the receiver reports its per-CPU softirq load"
# The whole document against bench.schema.json, its ledger against
# ledger.schema.json (bench.schema.json refers to it).
schema_ok() {
	printf '%s' "$out" >"$TMP/bench.json"
	/usr/bin/python3 "$TESTS_DIR/helpers/validate_json.py" "$TOP/schemas/bench.schema.json" "$TMP/bench.json" >/dev/null
}
schema_ok; ok $? "the JSON follows schemas/bench.schema.json"
is "$(j '.peer_state | "\(.interface) \(.driver) \(.mtu) \(.rmem_max)"')" \
	"peer0 veth 9000 $(ip netns exec "$PNS" cat /proc/sys/net/core/rmem_max)" \
	"the peer's state (serve's STATE answer): interface, driver, MTU, rmem_max"
is "$(j '.peer_state.drop_counters | type') $(j '.peer_state.cpus | map(.softirq_percent >= 0) | all')" "array true" \
	"the peer's counters and per-CPU softirq share over the run"
printf '%s' "$out" | jq .peer_state >"$TMP/peer.json"
/usr/bin/python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
	"$TOP/schemas/peer-state.schema.json" "$TMP/peer.json"
ok $? "the peer state follows schemas/peer-state.schema.json"
is "$(j '.command')" "cx5prof bench --peer 198.18.0.2 --port 12866 --duration 1 --message-size 8000 --send-buffer 0 --recv-buffer 0 --streams 1" \
	"the command line is recorded as run"
is "$(j '.per_stream[0].cpu')" null "a veth has no NIC-local CPU list: the stream is not pinned"

# 2. A tiny receive buffer loses datagrams, and the books still balance.
bench --json --recv-buffer 1K
is "$rc" 0 "bench with a 1 KiB receive buffer exits 0"
j '.lost > 0' | grep -qx true
ok $? "loss appears with a tiny receive buffer (lost $(j .lost) of $(j .sent))"
balanced; ok $? "with loss: sent = received + lost, exactly"
# The loss ledger names the receiver's socket buffer, and its lines add up
# (the kernel's real counters on both ends of the lab's veth pair).
is "$(j '.ledger.limited_by')" receiver-socket-buffer "1 KiB receive buffer: the ledger names the receiver's socket buffer"
j '.ledger | .sent == .received + ([.lines[].count] | add) + .unaccounted' | grep -qx true
ok $? "the ledger adds up: sent = received + every stage + unaccounted"
is "$(j '.ledger.sent == .sent and .ledger.received == .received')" true "the ledger counts what the benchmark counted"
schema_ok; ok $? "with loss: the JSON and its ledger follow the schemas"

# 3. GSO: super-datagrams cut into 8000-byte datagrams by the kernel.
bench --json --gso
is "$rc" 0 "bench --gso exits 0"
is "$(j '.gso, .gso_segments, (.notes | length)')" "true
8
0" "GSO used: 8 datagrams of 8000 bytes per send, no note"
balanced; ok $? "GSO: sent = received + lost, exactly"

# 4. Several streams, pinned.
bench --json --streams 3 --cpus 0-1
is "$rc" 0 "bench --streams 3 exits 0"
is "$(j '[.per_stream[] | "\(.stream):\(.cpu)"] | join(" ")')" "0:0 1:1 2:0" \
	"stream i is pinned to the i-th CPU of --cpus, wrapping"
balanced; ok $? "3 streams: each and the total balance exactly"
schema_ok; ok $? "3 streams: the JSON follows the schema"

# 5. Human output.
bench --no-record
is "$rc" 0 "human bench exits 0"
is "$(printf '%s\n' "$out" | head -n1)" "builtin UDP stream to 198.18.0.2:12866: 1 s, 8000-byte messages, 1 stream(s), gso no" \
	"human output: the first line says what ran"
is "$(printf '%s\n' "$out" | sed -n 3p)" \
	"stream cpu          sent     received       lost   loss%  send_Mbps  recv_Mbps   cpu%" "human output: table header"
printf '%s\n' "$out" | grep -q '^total '
ok $? "human output: a total line"

# 6. The peer at MTU 1500, this host at 9000: the datagrams are lost, and a
# note says why with both MTUs (serve's STATE gave the peer's).
ip -n "$PNS" link set peer0 mtu 1500
bench --json
is "$rc $(j '.received')" "0 0" "peer MTU 1500, host 9000: nothing arrives"
is "$(j '.notes[0]')" "the peer's peer0 has MTU 1500, the route here 9000 (1500 vs 9000): 8028-byte datagrams leave in one frame and the peer cannot take them; set the same MTU on both ends" \
	"peer MTU 1500, host 9000: the note names both MTUs"

# 7. GSO refused by the path (segment above the MTU): fallback with a note.
ip -n "$HNS" link set ens1f0 mtu 1500 && ip -n "$PNS" link set peer0 mtu 1500
bench --json --gso
is "$rc" 0 "bench --gso over MTU 1500 still runs"
is "$(j '.gso')" false "GSO turned off"
j '.notes[0]' | grep -q "refused a GSO send"
ok $? "a note says why: $(j '.notes[0]')"
balanced; ok $? "after the fallback: sent = received + lost, exactly"
schema_ok; ok $? "with notes: the JSON follows the schema"

# 8. The runs are in the history (all but the --no-record one).
if [ -f "$TMP/h.db" ]; then
	is "$(/usr/bin/python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute("select count(*) from runs where runner=\"builtin\"").fetchone()[0])' "$TMP/h.db")" 6 \
		"6 builtin runs recorded in the history"
	run "$CX5PROF" --db "$TMP/h.db" history show 1
	printf '%s\n' "$out" | head -n 1 | grep -Eq '^run 1  [0-9: -]+  \(1\.[0-9] s\)$'
	ok $? "history show: a 1 s bench run lasted 1.x s (was 0.0 s): $(printf '%s\n' "$out" | head -n 1)"
else
	ok 1 "the history database was created"
fi

# 9. No server: a clear error, exit 1.
run ip netns exec "$HNS" "$CX5PROF" bench --no-record --peer 198.18.0.2 --port 12999 --duration 1
is "$rc" 1 "no server: exit 1"
is "$err" "cx5prof: error: bench: no cx5prof serve on 198.18.0.2:12999 (Connection refused): start \`cx5prof serve --port 12999\` on the peer and check its firewall" \
	"no server: what failed and what to do"

# 10. Nothing arrived (100% loss): the history must not say "pass" (review
# finding: bench recorded passed=1 whatever happened). A stand-in server
# speaks the protocol, points the stream at a UDP socket it never reads,
# and reports 0 datagrams received. It answers STATE as a serve without it
# does (ERROR, connection closed), on every connection that asks (the loss
# ledger's idle snapshot asks on connections of its own, in version 2 and
# then 1): bench then runs without the peer state.
timeout -k 1 300 ip netns exec "$PNS" /usr/bin/python3 -c '
import socket, struct
def frame(t, payload):
    return struct.pack(">IBBHI", 0x43355542, 1, t, 0, len(payload)) + payload
def recv_frame(c):
    h = b""
    while len(h) < 12:
        h += c.recv(12 - len(h))
    t, n = struct.unpack(">IBBHI", h)[2], struct.unpack(">IBBHI", h)[4]
    p = b""
    while len(p) < n:
        p += c.recv(n - len(p))
    return t
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("198.18.0.2", 0))
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("198.18.0.2", 12997))
s.listen(1)
print("listening", flush=True)
s.settimeout(120)
for _ in range(8):
    c, _ = s.accept()
    if recv_frame(c) != 6:                      # SETUP
        break
    c.sendall(frame(5, struct.pack(">HH", 1, 21) + b"unexpected frame type"))
    c.close()                                   # STATE: not known here
c.sendall(frame(2, struct.pack(">QIHHH", 7, 212992, 1, 0, u.getsockname()[1])))
recv_frame(c)                                   # DONE
c.sendall(frame(4, struct.pack(">QHH", 0, 1, 0) + struct.pack(">QQQQQ", 0, 0, 0, 0, 0)))
c.close()
' >"$TMP/fake.log" 2>&1 &
FAKE_PID=$!
wait_until 60 grep -q listening "$TMP/fake.log"
run ip netns exec "$HNS" "$CX5PROF" --db "$TMP/h.db" bench --peer 198.18.0.2 --port 12997 --duration 1 --json
wait "$FAKE_PID"
is "$rc" 0 "nothing received: bench reports it (exit 0)"
is "$(j '.peer_state') $(j '.notes[0]')" "null peer state not recorded: cx5prof serve on 198.18.0.2:12997 refused the test: unexpected frame type" \
	"a server without STATE: the run goes on, with a note"
is "$(j '[.received, .loss_percent, (.sent > 0)] | @tsv')" "$(printf '0\t100\ttrue')" "nothing received: 100% loss"
is "$(/usr/bin/python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(*c.execute("select pass, verdict from runs where runner=\"builtin\" order by id desc limit 1").fetchone(), sep="|")' "$TMP/h.db" | sed -E 's/0 of [0-9]+ datagrams/0 of N datagrams/')" \
	"0|no thresholds (ad-hoc bench): 0 of N datagrams received" "nothing received: recorded as not passed, with why"
is "$(/usr/bin/python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute("select count(*) from runs where runner=\"builtin\" and pass = 1").fetchone()[0])' "$TMP/h.db")" 5 \
	"the 5 runs that delivered datagrams are recorded as passed"

# The server logged every client and is still up.
is "$(grep -c 'received [0-9]* of [0-9]* datagrams' "$TMP/serve.log")" 7 "serve logged 7 completed tests"
is "$(grep -c '^cx5prof: serve: client .*: received [0-9]* of [0-9]* datagrams$' "$TMP/serve.log")" 7 \
	"a completed test is progress, not a warning (no \"warning:\" prefix)"
kill -0 "$SERVE_PID"
ok $? "serve is still running"
done_testing
