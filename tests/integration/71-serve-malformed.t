#!/usr/bin/env bash
# 71-serve-malformed.t: `cx5prof serve` against hostile control clients.
#
# A python3 client on 127.0.0.1 sends truncated, oversized, random, wrong-
# version, out-of-range and out-of-order frames (STATE requests too), and
# one that dribbles a
# few bytes and goes silent (slowloris). Each is closed with a log line
# (and an ERROR frame where the client still listens); after each one a
# real `cx5prof bench` still completes: the server keeps serving. A second
# client during a test is turned away at once as busy. A hostile STATE
# reply is refused by the client with the reason. 20 idle connections,
# and a client that keeps reopening idle ones, do not delay a real bench.
. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d)
SERVE_PID=
cleanup() {
	[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

PORT=$(free_port)
"$CX5PROF" serve --bind 127.0.0.1 --port "$PORT" 2>"$TMP/serve.log" &
SERVE_PID=$!
wait_until 60 grep -q listening "$TMP/serve.log"
grep -q listening "$TMP/serve.log" || { echo "Bail out! serve did not start: $(cat "$TMP/serve.log")"; exit 1; }

# evil KIND: send one hostile message, print what came back:
# "error <code> <text>" for an ERROR frame, "closed" when the server
# closed without one.
cat >"$TMP/evil.py" <<'EOF'
import random, socket, struct, sys, time
kind, port = sys.argv[1], int(sys.argv[2])
def frame(version, ftype, payload, length=None):
    return struct.pack(">IBBHI", 0x43355542, version, ftype, 0,
                       len(payload) if length is None else length) + payload
setup = struct.pack(">IIIHH", 1, 8000, 0, 1, 0)
msgs = {
    "truncated": frame(1, 1, setup)[:20],
    "oversized": frame(1, 1, b"", length=0x7fffffff),
    "random": bytes(random.Random(7).getrandbits(8) for _ in range(200)),
    "version": frame(2, 1, setup),
    "range": frame(1, 1, struct.pack(">IIIHH", 0, 8000, 0, 1, 0)),
    "streams": frame(1, 1, struct.pack(">IIIHH", 1, 8000, 0, 1000, 0)),
    "type": frame(1, 3, struct.pack(">QHH", 0, 1, 0) + b"\0" * 8),
    "trailing": frame(1, 1, setup + b"x"),
    "slowloris": frame(1, 1, setup)[:3],
    "state-version": frame(1, 6, struct.pack(">HH", 3, 0)),  # 1 and 2 are known
    "state-trailing": frame(1, 6, struct.pack(">HHB", 1, 0, 0)),
    "state-reply": frame(1, 7, b"\0" * 44),
    "state": frame(1, 6, struct.pack(">HH", 1, 0)),
}
s = socket.create_connection(("127.0.0.1", port), timeout=60)
s.sendall(msgs[kind])
if kind == "truncated":
    s.shutdown(socket.SHUT_WR)
if kind == "state":  # one answer, then the client leaves
    h = b""
    while len(h) < 12:
        h += s.recv(12 - len(h))
    n = struct.unpack(">IBBHI", h)[4]
    p = b""
    while len(p) < n:
        p += s.recv(n - len(p))
    ifname = p[45:45 + p[44]].decode()
    print("state", h[5], ifname, "rmem_max", struct.unpack(">Q", p[12:20])[0])
    sys.exit(0)
data = b""
try:
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
except socket.timeout:
    print("no answer"); sys.exit(0)
if len(data) >= 16 and data[5] == 5:
    code, tlen = struct.unpack(">HH", data[12:16])
    print("error", code, data[16:16 + tlen].decode())
else:
    print("closed" if not data else "unexpected %r" % data[:32])
EOF

bench_ok() { # after each attack, a real test must complete
	run "$CX5PROF" bench --no-record --peer 127.0.0.1 --port "$PORT" --duration 1 --json
	[ "$rc" = 0 ] && printf '%s' "$out" | jq -e '.sent == .received + .lost and .sent > 0' >/dev/null
	ok $? "$1: the next client's test completes"
}

# kind | expected reply | expected log reason
while IFS='|' read -r kind reply reason; do
	run /usr/bin/python3 "$TMP/evil.py" "$kind" "$PORT"
	is "$out" "$reply" "$kind: reply"
	wait_until 30 grep -q "serve: client 127.0.0.1:[0-9]*: $reason; connection closed" "$TMP/serve.log"
	ok $? "$kind: logged '$reason'"
	bench_ok "$kind"
done <<'EOF'
truncated|error 1 truncated frame|setup: truncated frame
oversized|error 1 oversized frame|setup: oversized frame
random|error 1 malformed frame (bad magic, reserved field or length)|setup: malformed frame (bad magic, reserved field or length)
version|error 2 unsupported protocol version|setup: unsupported protocol version
range|error 1 field out of range|setup: field out of range
streams|error 1 field out of range|setup: field out of range
type|error 1 unexpected frame type|setup: unexpected frame type
trailing|error 1 malformed frame (bad magic, reserved field or length)|setup: malformed frame (bad magic, reserved field or length)
state-version|error 2 unsupported protocol version|setup: unsupported protocol version
state-trailing|error 1 malformed frame (bad magic, reserved field or length)|setup: malformed frame (bad magic, reserved field or length)
state-reply|error 1 unexpected frame type|setup: unexpected frame type
EOF

# STATE: the facts of the interface that owns the address (loopback here),
# answered at once; the client leaving after its answer is not an error.
run /usr/bin/python3 "$TMP/evil.py" state "$PORT"
is "$out" "state 7 lo rmem_max $(cat /proc/sys/net/core/rmem_max)" "state: answered for the interface of the address"

# Slowloris: three bytes, then silence. Closed by the setup timeout (its
# reply says so; how long it took is for `make bench`, not a test).
run /usr/bin/python3 "$TMP/evil.py" slowloris "$PORT"
is "$out" "error 5 timed out waiting for the client" "slowloris: told it timed out"
wait_until 30 grep -q "setup: timed out waiting for the client; connection closed" "$TMP/serve.log"
ok $? "slowloris: logged"
bench_ok slowloris

# A connection that closes at once: logged, nothing sent.
/usr/bin/python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1]))).close()' "$PORT"
wait_until 30 grep -q "setup: client closed the connection; connection closed" "$TMP/serve.log"
ok $? "an empty connection is logged"

# Busy: a second client during a running test gets an immediate ERROR. The
# second comes once the first's control connection is established; the
# first test lasts 10 s, far more than the second needs.
"$CX5PROF" bench --no-record --peer 127.0.0.1 --port "$PORT" --duration 10 >/dev/null 2>&1 &
first=$!
testing() { ss -Htn state established "dport = :$PORT" | grep -q .; }
wait_until 60 testing
ok $? "the first client's test is running"
run "$CX5PROF" bench --no-record --peer 127.0.0.1 --port "$PORT" --duration 1
is "$rc" 1 "second client during a test: exit 1"
is "$err" "cx5prof: error: bench: cx5prof serve on 127.0.0.1:$PORT is busy with another test: retry later" \
	"second client: told the server is busy"
wait "$first"
is "$?" 0 "the running test was not disturbed"

# Bad command lines: exit 64 with the reason, nothing started.
while IFS='|' read -r args msg; do
	# shellcheck disable=SC2086
	run "$CX5PROF" $args
	is "$rc $err" "64 cx5prof: error: $msg" "usage: $args"
done <<'EOF'
serve --port 0|serve: invalid port '0': expected 1..65535
serve --cpus x|serve: invalid --cpus 'x': expected a CPU list such as 0-3,8
serve --bind example.org|serve: 'example.org' is not a numeric IPv4 or IPv6 address
bench|bench: --peer ADDR is required (the host running `cx5prof serve`)
bench --peer 127.0.0.1 --message-size 23|bench: invalid --message-size '23': expected 24..65507
bench --peer 127.0.0.1 --duration 3601|bench: invalid --duration '3601': expected 1..3600
bench --peer 127.0.0.1 --streams 65|bench: invalid --streams '65': expected 1..64
bench --peer 127.0.0.1 --socket-buffer 2G|bench: invalid --socket-buffer '2G': expected a size up to 1G (e.g. 4M)
EOF
run "$CX5PROF" bench --no-record --peer not-an-address --duration 1
is "$rc $err" "64 cx5prof: error: bench: peer 'not-an-address' is not a numeric IPv4 or IPv6 address" \
	"a host name is refused: traffic goes to the numeric address given only"

kill -0 "$SERVE_PID"
ok $? "serve survived every hostile client"
is "$(grep -c 'connection closed' "$TMP/serve.log")" 13 "13 hostile connections logged"

# A hostile STATE reply (513 CPUs, more than the protocol allows): the
# client refuses it with a clear reason and goes on (doctor's peer-serve).
HPORT=$(free_port)
timeout -k 1 900 /usr/bin/python3 -c '
import socket, struct, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(8)
print("listening", flush=True)
text = lambda t: bytes([len(t)]) + t
bad = struct.pack(">HHIIQQIIII", 1, 0, 0, 0, 0, 0, 0, 0, 0, 0) + text(b"lo") + b"\0" * 4 + struct.pack(">HH", 0, 513)
while True:
    c, _ = s.accept()
    c.settimeout(60)
    try:
        if len(c.recv(16)) == 16:
            c.sendall(struct.pack(">IBBHI", 0x43355542, 1, 7, 0, len(bad)) + bad)
    except OSError:
        pass
    c.close()
' "$HPORT" >"$TMP/hostile.log" 2>&1 &
HOSTILE_PID=$!
wait_until 60 grep -q listening "$TMP/hostile.log"
printf 'version: 1\nname: hostile\nverify:\n  peer: 127.0.0.1\n  runner: [builtin]\n  port: %s\n' "$HPORT" >"$TMP/hostile.yaml"
run "$CX5PROF" doctor "$TMP/hostile.yaml"
printf '%s\n' "$out" | grep -qE "^SKIP +127.0.0.1 +peer-serve +bad state frame from 127.0.0.1:$HPORT: the peer's MTU, rmem_max, driver and firmware not checked$"
ok $? "a hostile STATE reply is refused with the reason"
kill "$HOSTILE_PID" 2>/dev/null; wait "$HOSTILE_PID" 2>/dev/null

# Starvation: idle connections that never send their setup must not keep
# a real client waiting. idle.py MODE PORT: "hold" opens 20 connections,
# says "ready", and after a line on stdin reports how many were told busy;
# "churn" keeps 8 idle connections open until a line on stdin (at most
# 600 s), reopening each one the server closes (at most 200 connects), then
# reports how many it opened.
cat >"$TMP/idle.py" <<'EOF2'
import select, socket, struct, sys, time
mode, port = sys.argv[1], int(sys.argv[2])
def told_busy(s):
    s.setblocking(False)
    try:
        data = s.recv(4096)
    except BlockingIOError:
        return False
    return len(data) >= 16 and data[5] == 5 and struct.unpack(">H", data[12:14])[0] == 3 and \
        data[16:].decode() == "busy: too many waiting connections, retry later"
def connect():
    return socket.create_connection(("127.0.0.1", port), timeout=60)
if mode == "hold":
    conns = [connect() for _ in range(20)]
    print("ready", flush=True)
    sys.stdin.readline()
    print(sum(told_busy(s) for s in conns), flush=True)
else:
    conns, opened, end = [], 0, time.time() + 600
    print("ready", flush=True)
    while time.time() < end and opened < 200:
        conns = [s for s in conns if not told_busy(s)]
        while len(conns) < 8 and opened < 200:
            conns.append(connect()); opened += 1
        if select.select([sys.stdin], [], [], 0.01)[0]:
            break
    print(opened, flush=True)
EOF2
# (bash unsets a coproc's fds once it exits: the test reads and writes
# through copies of its own, closed at the end)
coproc IDLE { /usr/bin/python3 "$TMP/idle.py" hold "$PORT"; }
exec {idle_out}<&"${IDLE[0]}" {idle_in}>&"${IDLE[1]}"
idle_pid=$IDLE_PID
read -r line <&"$idle_out"
is "$line" ready "20 idle connections are open"
bench_ok "with 20 idle connections"
echo >&"$idle_in"
read -r line <&"$idle_out"
is "$line" 13 "the 12 idle connections beyond the 8 per address, then the oldest one, were told busy"
wait "$idle_pid" 2>/dev/null
exec {idle_out}<&- {idle_in}>&-

coproc CHURN { /usr/bin/python3 "$TMP/idle.py" churn "$PORT"; }
exec {churn_out}<&"${CHURN[0]}" {churn_in}>&"${CHURN[1]}"
churn_pid=$CHURN_PID
read -r line <&"$churn_out"
is "$line" ready "a client churns 8 idle connections"
bench_ok "with a client reopening 8 idle connections"
echo >&"$churn_in"
read -r opened <&"$churn_out"
wait "$churn_pid" 2>/dev/null
exec {churn_out}<&- {churn_in}>&-
[ "$opened" -gt 8 ]
ok $? "the churning client reopened connections the server closed ($opened connects)"
kill -0 "$SERVE_PID"
ok $? "serve survived the idle and churning clients"
done_testing
