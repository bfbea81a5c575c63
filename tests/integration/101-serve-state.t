#!/usr/bin/env bash
# 101-serve-state.t: what `cx5prof serve` gives in answer to STATE, how
# often, and where it listens.
#
# STATE is answered from facts read at most once per --state-refresh
# interval (answers in between are identical) and anew after each test;
# it is rate-limited per address (4 at once, then one every 500 ms) and
# for all addresses together (16, then one every 125 ms), except on the
# connection of a finished test, whose client always gets its after-run
# state. --state minimal gives only the MTU, rmem and drop counters;
# --state off none, and a bench says why. `serve PROFILE` listens on the
# profile's verify.peer and port. Clients come from 127.0.0.x addresses;
# the MTU change happens in a network namespace of the test's own. The
# serve of the rate-limit sections refills 10 times slower
# (CX5PROF_TEST_SLOW_REFILL=10: one every 5 s per address, 1.25 s for all),
# so a burst exhausts the buckets however busy the machine is; refills are
# waited for with wait_until, and a fresh serve starts with full buckets.
. "$(dirname "$0")/lib.sh"
need_root_netns

TMP=$(mktemp -d)
SERVE_PID= BENCH_PID= NS_SERVE_PID= NS=
stop_serve() {
	[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
	SERVE_PID=
}
cleanup() {
	[ -n "$BENCH_PID" ] && kill "$BENCH_PID" 2>/dev/null && wait "$BENCH_PID" 2>/dev/null
	stop_serve
	[ -n "$NS_SERVE_PID" ] && kill "$NS_SERVE_PID" 2>/dev/null && wait "$NS_SERVE_PID" 2>/dev/null
	[ -n "$NS" ] && ip netns del "$NS" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# state.py PORT SOURCE[,SOURCE...] N [PAUSE]: N STATE requests from each
# SOURCE in turn, one connection each, PAUSE seconds apart; one line each:
# "state SHA mtu MTU" (the answer's payload digest and MTU) or "error CODE
# TEXT". One process sends them all: their pace is the network's, not
# that of starting a python per address.
cat >"$TMP/state.py" <<'EOF2'
import hashlib, socket, struct, sys, time
port, sources, n = int(sys.argv[1]), sys.argv[2].split(","), int(sys.argv[3])
pause = float(sys.argv[4]) if len(sys.argv) > 4 else 0
def recv(s, k):
    b = b""
    while len(b) < k:
        c = s.recv(k - len(b))
        if not c:
            raise EOFError
        b += c
    return b
for source, i in [(src, i) for src in sources for i in range(n)]:
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(60)
    s.connect(("127.0.0.1", port))
    s.sendall(struct.pack(">IBBHIHH", 0x43355542, 1, 6, 0, 4, 1, 0))
    h = recv(s, 12)
    p = recv(s, struct.unpack(">IBBHI", h)[4])
    if h[5] == 7:
        print("state", hashlib.sha256(p).hexdigest()[:16], "mtu", struct.unpack(">I", p[4:8])[0], flush=True)
    else:
        code, tlen = struct.unpack(">HH", p[:4])
        print("error", code, p[4:4 + tlen].decode(), flush=True)
    s.close()
    time.sleep(pause)
EOF2
state() { run /usr/bin/python3 "$TMP/state.py" "$PORT" "$@"; }
bench() { run "$CX5PROF" bench --no-record --peer 127.0.0.1 --port "$PORT" --duration 1 --json "$@"; }
j() { printf '%s' "$out" | jq -r "$1"; }
LIMIT_ONE="error 6 too many state requests from this address (4 at once, then one every 5000 ms): retry later"
LIMIT_ALL="error 6 too many state requests from all addresses (16 at once, then one every 1250 ms): retry later"

PORT=$(free_port)
export CX5PROF_TEST_SLOW_REFILL=10
serve_start "$TMP/serve.log" --bind 127.0.0.1 --port "$PORT" --state-refresh 60000

# 1. Answers come from the facts read once: two answers 0.3 s apart are
# the same (the CPUs' jiffies moved meanwhile), and a test's end reads
# them anew.
state 127.0.0.2 2 0.3
first=$(printf '%s\n' "$out" | head -n1)
is "$(printf '%s\n' "$out" | sort -u | wc -l) ${first%% *}" "1 state" \
	"two STATE answers within the refresh interval are the same facts"
bench
is "$rc $(j '.peer_state.drop_counters | type')" "0 array" "a bench gets its state before and after the run"
state 127.0.0.2 1
[ "$out" != "$first" ] && [ "${out%% *}" = state ]
ok $? "after a test, the facts are read anew"

# 1b. A setting that changed is answered at once: lo's MTU, in a network
# namespace of the test's own.
NS=cx5t101-$$
ip netns add "$NS" && ip -n "$NS" link set lo up || { echo "Bail out! cannot create $NS"; exit 1; }
ip netns exec "$NS" "$CX5PROF" serve --bind 127.0.0.1 --port "$PORT" --state-refresh 60000 2>"$TMP/ns.log" &
NS_SERVE_PID=$!
wait_until 60 grep -q listening "$TMP/ns.log"
run ip netns exec "$NS" /usr/bin/python3 "$TMP/state.py" "$PORT" 127.0.0.1 1
is "${out##* }" 65536 "in the namespace: lo's MTU 65536"
ip -n "$NS" link set lo mtu 9000
run ip netns exec "$NS" /usr/bin/python3 "$TMP/state.py" "$PORT" 127.0.0.1 1
is "${out##* }" 9000 "the MTU set within the refresh interval is answered at once"
kill "$NS_SERVE_PID" && wait "$NS_SERVE_PID" 2>/dev/null
NS_SERVE_PID=
ip netns del "$NS"

# 2. Per address: 4 at once, then refused; the other addresses are not.
state 127.0.0.3 20
is "$(printf '%s\n' "$out" | head -n4 | cut -d' ' -f1 | tr '\n' ' ')" "state state state state " \
	"one address: the first 4 requests are answered"
printf '%s\n' "$out" | grep -qxF "$LIMIT_ONE"
ok $? "one address: then refused with the limit"
state 127.0.0.4 1
is "${out%% *}" state "another address is still answered"
answered() { state "$1" 1 && [ "${out%% *}" = state ]; }
wait_until 120 answered 127.0.0.3 # a refused request takes no token
ok $? "once its bucket refilled, the address is answered again"

# 3. All addresses together: 10 addresses asking 4 each reach the global limit.
/usr/bin/python3 "$TMP/state.py" "$PORT" "$(seq -s, -f 127.0.0.%g 10 19)" 4 >"$TMP/global.out"
grep -qxF "$LIMIT_ALL" "$TMP/global.out"
ok $? "many addresses: refused with the global limit ($(grep -c '^state' "$TMP/global.out") of 40 answered)"
wait_until 120 answered 127.0.0.20
ok $? "once the global bucket refilled, a new address is answered again"
stop_serve # section 4 starts with full buckets
serve_start "$TMP/serve.log" --bind 127.0.0.1 --port "$PORT" --state-refresh 60000

# 4. The client that ran a test gets its after-run state even when its
# address asked too often during the run (another client of 127.0.0.1
# drains it once serve's UDP sinks are open: the test runs, for 5 s, far
# longer than 20 requests take).
"$CX5PROF" bench --no-record --peer 127.0.0.1 --port "$PORT" --duration 5 --json >"$TMP/b.json" 2>"$TMP/b.err" &
BENCH_PID=$!
sinks_open() { ss -Hulnp | grep -q "pid=$SERVE_PID,"; }
wait_until 60 sinks_open
state 127.0.0.1 20
printf '%s\n' "$out" | grep -qxF "$LIMIT_ONE"
ok $? "during the run, another client of 127.0.0.1 was refused"
wait "$BENCH_PID"
rc=$? out=$(cat "$TMP/b.json") BENCH_PID=
is "$rc $(j '.peer_state.drop_counters | type') $(j '[.notes[] | select(startswith("peer state"))] | length')" "0 array 0" \
	"the bench's after-run state is answered all the same"
stop_serve

# 5. --state minimal: MTU, rmem and drop counters; nothing that names the
# hardware, its software or its load.
serve_start "$TMP/serve.log" --bind 127.0.0.1 --port "$PORT" --state minimal
bench
is "$(j '.peer_state | [.interface, .mtu, .rmem_max, .rmem_default, (.drop_counters | type)] | map(type) | join(" ")')" \
	"string number number number string" "minimal: interface, MTU, rmem and drop counters"
is "$(j '.peer_state | [.driver, .driver_version, .firmware, .pci_id, .speed_mbps, .rings] | map(tostring) | join(" ")') $(j '.peer_state.cpus | length')" \
	"null null null null null null 0" "minimal: no driver, versions, firmware, PCI id, speed, rings or CPUs"
printf '%s' "$out" | jq .peer_state >"$TMP/peer.json"
/usr/bin/python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
	"$TOP/schemas/peer-state.schema.json" "$TMP/peer.json"
ok $? "minimal: the peer state follows schemas/peer-state.schema.json"
stop_serve

# 6. --state off: refused; the bench runs and says why.
serve_start "$TMP/serve.log" --bind 127.0.0.1 --port "$PORT" --state off
state 127.0.0.2 1
is "$out" "error 7 this serve gives no state (serve --state off)" "off: STATE is refused"
bench
is "$rc $(j '.peer_state') $(j '.notes[0]')" \
	"0 null peer state not recorded: cx5prof serve on 127.0.0.1:$PORT refused: this serve gives no state (serve --state off)" \
	"off: the bench runs without the peer state and says why"
stop_serve

# 7. Where it listens: the notice for every address with the full state,
# and a PROFILE's verify.peer and port.
serve_start "$TMP/serve.log" --port "$PORT"
wait_until 30 grep -q -- "--state full" "$TMP/serve.log"
is "$(cat "$TMP/serve.log")" "cx5prof: serve: listening on 0.0.0.0 port $PORT (one test at a time)
cx5prof: serve: every address of this host gives its NIC's facts to whoever connects (--state full): --bind ADDR, a PROFILE or --state minimal narrows that" \
	"all addresses with the full state: said at start"
stop_serve
printf 'version: 1\nname: p\nverify:\n  peer: 127.0.0.1\n  runner: [builtin]\n  port: %s\n' "$PORT" >"$TMP/p.yaml"
serve_start "$TMP/serve.log" "$TMP/p.yaml"
is "$(cat "$TMP/serve.log")" "cx5prof: serve: listening on 127.0.0.1 port $PORT (one test at a time)" \
	"serve PROFILE: listens on verify.peer and verify.port"
stop_serve
printf 'version: 1\nname: p\nverify:\n  peer: peer.example\n' >"$TMP/host.yaml"
printf 'version: 1\nname: p\n' >"$TMP/none.yaml"
while IFS='|' read -r args code msg; do
	# shellcheck disable=SC2086
	run "$CX5PROF" serve $args
	is "$rc $err" "$code cx5prof: error: $msg" "serve $args"
done <<EOF2
--state some|64|serve: invalid --state 'some': expected full, minimal or off
--state-refresh 60001|64|serve: invalid --state-refresh '60001': expected 0..60000 milliseconds
$TMP/host.yaml|65|serve: $TMP/host.yaml: verify.peer 'peer.example' is not a numeric IPv4 or IPv6 address: give --bind ADDR
$TMP/none.yaml|65|serve: $TMP/none.yaml has no verify.peer to listen on: give --bind ADDR
$TMP/none.yaml $TMP/none.yaml|64|serve: unexpected argument '$TMP/none.yaml': one PROFILE at most
EOF2
done_testing
