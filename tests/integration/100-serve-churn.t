#!/usr/bin/env bash
# 100-serve-churn.t: a real client gets its peer state whatever idle
# connections crowd `cx5prof serve`.
#
# An attacker holds 80 idle control connections from 10 source addresses
# (127.0.0.2-11, 8 each: more than the 64 serve keeps waiting) and reopens
# every one serve closes. Meanwhile 5 real `cx5prof bench` runs from
# 127.0.0.1 each complete and record the peer's state before and after the
# run (the after-run answer comes on the connection that ran the test,
# which serve must keep although its table is full: it used to close it).
. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d)
SERVE_PID= CHURN_PID=
cleanup() {
	[ -n "$CHURN_PID" ] && kill "$CHURN_PID" 2>/dev/null && wait "$CHURN_PID" 2>/dev/null
	[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

PORT=$(free_port)
serve_start "$TMP/serve.log" --bind 127.0.0.1 --port "$PORT"

# churn.py PORT: keep 8 idle connections open from each of 127.0.0.2-11,
# reopening each one serve closes, until a line on stdin (at most 600 s,
# 100000 connects); says "ready" once all 80 are open the first time; then
# prints the connects and how many were told busy.
cat >"$TMP/churn.py" <<'EOF2'
import select, socket, struct, sys, time
port = int(sys.argv[1])
sources = ["127.0.0.%d" % i for i in range(2, 12)]
conns = {src: [] for src in sources}
opened = busy = 0
end = time.time() + 600
def connect(src):
    s = socket.socket()
    s.bind((src, 0))
    s.settimeout(60)
    s.connect(("127.0.0.1", port))
    s.setblocking(False)
    return s
def closed(s):
    global busy
    try:
        data = s.recv(4096)
    except BlockingIOError:
        return False
    except OSError:
        return True
    if len(data) >= 16 and data[5] == 5 and struct.unpack(">H", data[12:14])[0] == 3:
        busy += 1
    s.close()
    return True
ready = False
while time.time() < end and opened < 100000:
    if select.select([sys.stdin], [], [], 0.01)[0]:
        break
    for src in sources:
        conns[src] = [s for s in conns[src] if not closed(s)]
        while len(conns[src]) < 8 and opened < 100000:
            conns[src].append(connect(src))
            opened += 1
    if not ready:
        print("ready", flush=True)
        ready = True
print(opened, busy, flush=True)
EOF2
coproc CHURN { /usr/bin/python3 "$TMP/churn.py" "$PORT"; }
read -r line <&"${CHURN[0]}"
is "$line" ready "the attacker holds 80 idle connections from 10 addresses"

for i in 1 2 3 4 5; do
	run "$CX5PROF" bench --no-record --peer 127.0.0.1 --port "$PORT" --duration 1 --json
	is "$rc" 0 "run $i under churn: bench exits 0"
	is "$(printf '%s' "$out" | jq -c '[.notes[] | select(startswith("peer state"))]')" "[]" \
		"run $i under churn: no 'peer state not recorded' note"
	is "$(printf '%s' "$out" | jq -r '"\(.peer_state.interface) \(.peer_state.drop_counters | type)"')" "lo array" \
		"run $i under churn: the peer's state before and after the run is recorded"
done

echo >&"${CHURN[1]}"
read -r opened busy <&"${CHURN[0]}"
wait "$CHURN_PID" 2>/dev/null
CHURN_PID=
[ "${busy:-0}" -gt 0 ] && [ "${opened:-0}" -gt 80 ]
ok $? "the attacker kept serve's table full ($opened connects, $busy told busy)"
kill -0 "$SERVE_PID"
ok $? "serve survived the churn"
done_testing
