#!/usr/bin/env bash
# 165-bench-report-impossible.t: a peer whose REPORT is impossible data,
# and a peer whose STATE measured nothing.
#
# A python3 server on 127.0.0.1 speaks the builtin runner's control
# protocol (engine/bench/udpbench.h): it refuses STATE (the run goes on
# without the peer's counters), answers SETUP with READY (one UDP port per
# stream, nothing read from them) and DONE with a REPORT in which stream 0
# received 2^64-1 datagrams and stream 1 one more than it sent: the
# per-stream sums wrap to "0 lost". bench must fail (exit 1) naming the
# stream, never print a loss figure or "the sender limits ... with no
# loss"; then a REPORT with stream 1 at sent+1 only (no wrap): the same.
# Then STATE answers of version 2 with no counter, or only unknown names:
# the ledger's receiver is unknown and the verdict never the path. Last,
# a per-CPU backlog counter that goes back: a reset, not a wrap.
. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d)
FAKE_PID=
cleanup() {
	if [ -n "$FAKE_PID" ] && grep -q fake-serve "/proc/$FAKE_PID/cmdline" 2>/dev/null; then
		kill "$FAKE_PID" 2>/dev/null
		wait "$FAKE_PID" 2>/dev/null
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

cat >"$TMP/fake-serve.py" <<'PY'
import socket, struct, sys

MAGIC = 0x43355542
port, mode = int(sys.argv[1]), sys.argv[2]
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", port))
srv.listen(8)
print("listening", flush=True)

def recv_all(c, n):
    b = b""
    while len(b) < n:
        d = c.recv(n - len(b))
        if not d:
            raise OSError("closed")
        b += d
    return b

def frame(t, payload):
    return struct.pack(">IBBHI", MAGIC, 1, t, 0, len(payload)) + payload

after_done = False

def state_frame(version):
    # version 2 with no kernel counter ("empty"), or only names this
    # version does not know ("unknown"): the peer measured nothing.
    text = lambda t: bytes([len(t)]) + t
    body = struct.pack(">HHIIQQIIII", version, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    body += text(b"lo") + b"\0" * 4 + struct.pack(">HH", 0, 0)
    if version >= 2:
        names = [(b"nic.no_such_counter", 1000), (b"UdpNoSuchErrors", 2000)] if mode == "unknown" else []
        if mode == "reset":  # a CPU's backlog drops go back after the run: 50 -> 0
            back = 0 if after_done else 50
            names = [(b"UdpRcvbufErrors", 0), (b"UdpInErrors", 0), (b"softnet.dropped", back),
                     (b"softnet.dropped.cpu0", back)]
        body += struct.pack(">HH", 1, len(names))
        for nm, v in names:
            body += text(nm) + struct.pack(">Q", v)
    return frame(7, body)

udp = []
reported = False
# A connection per STATE request (the ledger's own, or refused ones asked
# again), then the test; the client closes each.
for _ in range(8):
    if reported:
        break
    c, _ = srv.accept()
    c.settimeout(60)
    try:
        while True:
            magic, ver, t, _, n = struct.unpack(">IBBHI", recv_all(c, 12))
            p = recv_all(c, n)
            if t == 6 and mode in ("wrap", "plus-one"):  # refused for its rate limit
                text = b"state refused"
                c.sendall(frame(5, struct.pack(">HH", 6, len(text)) + text))
                break
            if t == 6:
                c.sendall(state_frame(struct.unpack(">H", p[0:2])[0]))
            elif t == 1:  # SETUP
                streams = struct.unpack(">H", p[12:14])[0]
                udp = []
                for _ in range(streams):
                    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    u.bind(("127.0.0.1", 0))
                    udp.append(u)
                ports = b"".join(struct.pack(">H", u.getsockname()[1]) for u in udp)
                c.sendall(frame(2, struct.pack(">QIHH", 1, 65536, streams, 0) + ports))
            elif t == 3:  # DONE: the REPORT
                streams = struct.unpack(">H", p[8:10])[0]
                sent = [struct.unpack(">Q", p[12 + 8 * i:20 + 8 * i])[0] for i in range(streams)]
                got = [x - x // 10 for x in sent]  # 10% lost
                if mode == "wrap":
                    got[0] = 2**64 - 1
                if mode in ("wrap", "plus-one"):
                    got[1] = sent[1] + 1
                body = struct.pack(">QHH", 1000000, streams, 0)
                for i in range(streams):
                    body += struct.pack(">QQQQQ", got[i], (got[i] * 1000) % 2**64, got[i], 0, 1000000)
                c.sendall(frame(4, body))
                print("reported", sent, got, flush=True)
                after_done = True
                reported = mode in ("wrap", "plus-one")
    except OSError:
        pass
    c.close()
PY

for mode in wrap plus-one; do
	PORT=$(free_port)
	timeout -k 1 120 /usr/bin/python3 "$TMP/fake-serve.py" "$PORT" "$mode" >"$TMP/fake.log" 2>&1 &
	FAKE_PID=$!
	wait_until 60 grep -q listening "$TMP/fake.log"
	run "$CX5PROF" bench --no-record --peer 127.0.0.1 --port "$PORT" --duration 1 --streams 2 \
		--message-size 1000 --cpus none
	sent1=$(sed -n 's/^reported \[[0-9]*, \([0-9]*\)\].*/\1/p' "$TMP/fake.log")
	if [ "$mode" = wrap ]; then
		want="cx5prof: error: bench: inconsistent report from the peer: stream 0 received 18446744073709551615 datagrams but $(sed -n 's/^reported \[\([0-9]*\),.*/\1/p' "$TMP/fake.log") were sent: impossible data, the run is not counted"
	else
		want="cx5prof: error: bench: inconsistent report from the peer: stream 1 received $((sent1 + 1)) datagrams but $sent1 were sent: impossible data, the run is not counted"
	fi
	is "$rc" 1 "$mode: an impossible REPORT is an error (exit 1)"
	printf '%s\n' "$err" | grep -qxF "$want"
	st=$?
	ok $st "$mode: the error names the stream and both counts"
	[ $st -eq 0 ] || diag "err: $err" "want: $want"
	printf '%s\n' "$out" | grep -qE 'lost|limited by|sender limits'
	is $? 1 "$mode: no loss figure and no verdict from impossible data" || diag "out: $out"
	wait "$FAKE_PID" 2>/dev/null
	FAKE_PID=
done

# verify with the builtin runner: the same error, the run recorded as an
# error with the reason.
PORT=$(free_port)
timeout -k 1 120 /usr/bin/python3 "$TMP/fake-serve.py" "$PORT" wrap >"$TMP/fake.log" 2>&1 &
FAKE_PID=$!
wait_until 60 grep -q listening "$TMP/fake.log"
printf 'version: 1\nname: fake\nverify:\n  peer: 127.0.0.1\n  runner: [builtin]\n  port: %s\n  duration: 1\n  streams: 2\n  message_size: 1000\n' \
	"$PORT" >"$TMP/verify.yaml"
run "$CX5PROF" --db "$TMP/history.db" verify "$TMP/verify.yaml"
sent0=$(sed -n 's/^reported \[\([0-9]*\),.*/\1/p' "$TMP/fake.log")
is "$rc" 1 "verify: an impossible REPORT is an error (exit 1)"
printf '%s\n' "$err" | grep -qxF "cx5prof: error: benchmark: inconsistent report from the peer: stream 0 received 18446744073709551615 datagrams but $sent0 were sent: impossible data, the run is not counted"
st=$?
ok $st "verify: the error names the stream and both counts"
[ $st -eq 0 ] || diag "out: $out" "err: $err"
printf '%s\n' "$out" | grep -qE '^result +error \(run [0-9]+ recorded\)$'
ok $? "verify: the run is recorded as an error"
wait "$FAKE_PID" 2>/dev/null
FAKE_PID=

# A campaign: the round is an error with the reason, left out of the
# statistics (no run counted).
PORT=$(free_port)
timeout -k 1 120 /usr/bin/python3 "$TMP/fake-serve.py" "$PORT" wrap >"$TMP/fake.log" 2>&1 &
FAKE_PID=$!
wait_until 60 grep -q listening "$TMP/fake.log"
printf 'version: 1\nname: base\n' >"$TMP/base.yaml"
printf 'version: 1\nname: fakecamp\ngroups:\n  - base.yaml\nverify:\n  peer: 127.0.0.1\n  runner: builtin\n  port: %s\n  duration: 1\n  streams: 2\n  message_size: 1000\nrepeat: 1\n' \
	"$PORT" >"$TMP/campaign.yaml"
run "$CX5PROF" --db "$TMP/campaign.db" campaign "$TMP/campaign.yaml"
sent0=$(sed -n 's/^reported \[\([0-9]*\),.*/\1/p' "$TMP/fake.log")
printf '%s\n' "$out" | grep -qxF "excluded    base round 1: error: inconsistent report from the peer: stream 0 received 18446744073709551615 datagrams but $sent0 were sent: impossible data, the run is not counted"
st=$?
ok $st "campaign: the round is an error with the reason, excluded"
[ $st -eq 0 ] || diag "out: $out" "err: $err"
printf '%s\n' "$out" | grep -qE '^base +0 +- '
ok $? "campaign: the round is left out of the statistics (0 runs)"
printf '%s\n' "$out" | grep -qxF 'verdict     no group was measured'
ok $? "campaign: no verdict from impossible data"
wait "$FAKE_PID" 2>/dev/null
FAKE_PID=

# A peer whose version-2 STATE holds no counter, or only names this
# version does not know, measured nothing: the receiver's stages are
# unknown, never 0 with "limited by path ... no counter rising".
for mode in empty unknown; do
	PORT=$(free_port)
	timeout -k 1 120 /usr/bin/python3 "$TMP/fake-serve.py" "$PORT" "$mode" >"$TMP/fake.log" 2>&1 &
	FAKE_PID=$!
	wait_until 60 grep -q listening "$TMP/fake.log"
	run "$CX5PROF" bench --no-record --peer 127.0.0.1 --port "$PORT" --duration 1 --streams 2 \
		--message-size 1000 --cpus none
	is "$rc" 0 "$mode: the run itself is good (exit 0)"
	printf '%s\n' "$out" | grep -qxF "  receiver counters: unknown (cx5prof serve on 127.0.0.1:$PORT measured no counter)"
	st=$?
	ok $st "$mode: the receiver's counters are unknown, with the reason"
	[ $st -eq 0 ] || diag "out: $out" "err: $err"
	printf '%s\n' "$out" | grep -qE '^  receiver stages +unknown  the receiver.s counters were not read$'
	ok $? "$mode: one line of unknown receiver stages, no 0s"
	printf '%s\n' "$out" | grep -qE '^limited by +unknown: '
	ok $? "$mode: the verdict is unknown"
	printf '%s\n' "$out" | grep -qE 'path|no counter rising'
	is $? 1 "$mode: the path is not blamed"
	if grep -q fake-serve "/proc/$FAKE_PID/cmdline" 2>/dev/null; then
		kill "$FAKE_PID" 2>/dev/null
	fi
	wait "$FAKE_PID" 2>/dev/null
	FAKE_PID=
done

# A per-CPU backlog counter that went back (50 -> 0) was reset: the
# backlog stage is unknown, never a 32-bit wrap of +4,294,967,246.
PORT=$(free_port)
timeout -k 1 120 /usr/bin/python3 "$TMP/fake-serve.py" "$PORT" reset >"$TMP/fake.log" 2>&1 &
FAKE_PID=$!
wait_until 60 grep -q listening "$TMP/fake.log"
run "$CX5PROF" bench --no-record --peer 127.0.0.1 --port "$PORT" --duration 1 --streams 2 \
	--message-size 1000 --cpus none
is "$rc" 0 "reset: the run itself is good (exit 0)"
printf '%s\n' "$out" | grep -qxE '  receiver backlog +unknown  counter reset'
st=$?
ok $st "reset: the receiver backlog is unknown (counter reset)"
[ $st -eq 0 ] || diag "out: $out" "err: $err"
printf '%s\n' "$out" | grep -q '4,294,967'
is $? 1 "reset: no 32-bit wrap is printed"
printf '%s\n' "$out" | grep -qE '^limited by +unknown: .*receiver backlog( is unknown)? \(counter reset\)'
ok $? "reset: the verdict is unknown, naming the reset stage"
# (this peer reports its snmp and softnet counters, no link counters: the
# stages of those are not measured, never 0)
is "$(printf '%s\n' "$out" | grep -E '^  (wire|receiver NIC) ' | sed 's/  */ /g')" " wire unknown not reported
 receiver NIC unknown not reported" "a peer reporting no link counters: wire and receiver NIC not reported, never 0"
if grep -q fake-serve "/proc/$FAKE_PID/cmdline" 2>/dev/null; then
	kill "$FAKE_PID" 2>/dev/null
fi
wait "$FAKE_PID" 2>/dev/null
FAKE_PID=

done_testing
