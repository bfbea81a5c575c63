#!/usr/bin/env bash
# 72-verify-builtin.t: `cx5prof verify` with `runner: builtin` across the
# lab's veth pair, against `cx5prof serve --once` in the peer namespace: the
# report names the builtin runner and its command, the books balance in the
# history with the peer's state (serve's STATE answers), GSO from the
# profile reaches the sender, socket buffer warnings follow the sizes the
# sockets got, --peer replaces the profile's peer, and a missing server is
# a clear error (exit 1).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/verify-lib.sh"
need_root_netns
vsetup v72

profile() { # profile FILE GSO
	cat >"$1" <<YAML
version: 1
name: lab-builtin
match:
  interfaces: [ens1f0]
link:
  mtu: 9000
verify:
  peer: 198.18.0.2
  runner: [builtin]
  duration: 1
  message_size: 8000
  gso: $2
  thresholds:
    throughput_mbps: 1
    loss_percent: 100
YAML
}
profile "$WORK/plain.yaml" false
profile "$WORK/gso.yaml" true
set_mtu 9000 9000

serve_once() {
	timeout -k 1 900 ip netns exec "$PEER_NS" "$CX5PROF" serve --once --bind 198.18.0.2 2>>"$WORK/serve.log" &
	V_PIDS="$V_PIDS $!"
	wait_listen 12866
}

serve_once
run cx verify "$WORK/plain.yaml"
is "$rc" 0 "builtin runner: exit 0 with a low floor"
printf '%s\n' "$out" | grep -qx 'benchmark   builtin to 198.18.0.2, 1 s, 8000-byte messages, 1 stream'
ok $? "the report names the builtin runner"
printf '%s\n' "$out" | grep -qE '^  command   cx5prof bench --peer 198.18.0.2 --port 12866 --duration 1 --message-size 8000 --send-buffer 0 --recv-buffer 0 --streams 1'
ok $? "the report shows the equivalent bench command"

check_run() {
	"$PY" - "$DB" <<'PYEOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
r = db.execute("select runner, sent, received, lost from runs order by id desc limit 1").fetchone()
out = db.execute("select content from artifacts where run = (select max(id) from runs) and name = 'runner_output'").fetchone()[0]
out = out if isinstance(out, str) else out.decode()
print(r[0], "sent=received+lost" if r[1] == r[2] + r[3] and r[1] > 0 else "MISMATCH",
      "gso on" if "gso on" in out else "gso off")
PYEOF
}
is "$(check_run)" "builtin sent=received+lost gso off" "the run is in the history, balanced, without GSO"

# The peer's state, from serve's STATE answers around the run.
rmem=$(ip netns exec "$PEER_NS" cat /proc/sys/net/core/rmem_max)
printf '%s\n' "$out" | grep -qx "peer        peer0: driver veth 1.0, firmware n/a, mtu 9000, rmem_max $rmem"
ok $? "verify names the peer's interface, driver, firmware, MTU and rmem_max"
printf '%s\n' "$out" | grep -qE "^peer load   softirq busiest CPU [0-9]+ at [0-9]+\.[0-9]%$"
ok $? "verify names the receiver's busiest softirq CPU over the run (veth: no interrupts)"
RUN1=$(sqlite3 "$DB" 'SELECT max(id) FROM runs')
is "$(sqlite3 "$DB" "SELECT json_extract(content, '\$.interface') || ' ' || json_extract(content, '\$.driver') || ' ' ||
	json_extract(content, '\$.mtu') || ' ' || json_extract(content, '\$.rmem_max') || ' ' ||
	json_type(content, '\$.drop_counters') || ' ' || json_type(content, '\$.cpus')
	FROM artifacts WHERE run = $RUN1 AND name = 'peer_state.json'")" "peer0 veth 9000 $rmem array array" \
	"the run records the peer's state and its changes over the run (artifact peer_state.json)"
run cx history show "$RUN1"
printf '%s\n' "$out" | grep -qx "peer state   driver veth 1.0  firmware n/a  mtu 9000  rmem_max $rmem"
ok $? "history show prints the peer's state"

wait_closed 12866
serve_once
run cx verify "$WORK/gso.yaml"
is "$rc" 0 "builtin runner with gso: exit 0"
is "$(check_run)" "builtin sent=received+lost gso on" "gso: true in the profile reaches the sender"
RUN2=$(sqlite3 "$DB" 'SELECT max(id) FROM runs')
run cx compare "$RUN1" "$RUN2"
printf '%s\n' "$out" | grep -qE "^  peer_mtu +9000 +9000$"
ok $? "compare shows the peer's MTU of both runs"
printf '%s\n' "$out" | grep -qE "^  peer_driver +veth +veth$"
ok $? "compare shows the peer's driver of both runs"

# Socket buffers: the warning follows the sizes the sockets got (the
# sender's, and the one `serve` reports), not the sysroot's copy of
# net.core.[wr]mem_max (212992): 4M within the kernel's limits is no
# warning; twice the kernel's limit is one, naming what the socket got.
WMEM=$(cat /proc/sys/net/core/wmem_max) # read only: the kernel the lab runs on
RMEM=$(cat /proc/sys/net/core/rmem_max)
bufs() { # bufs FILE SEND RECEIVE
	sed "s/^  gso: false\$/  gso: false\n  socket_buffer:\n    send: $2\n    receive: $3/" "$WORK/plain.yaml" >"$1"
}
clamp_warnings() { # the warnings verify --json reported about buffers
	printf '%s' "$out" | jq -r '.benchmark.warnings[] | select(test("buffer"))'
}
bufs "$WORK/bufs.yaml" 4194304 4194304
wait_closed 12866
serve_once
run cx verify "$WORK/bufs.yaml" --json
is "$rc" 0 "builtin with 4M buffers: exit 0"
expected=$({
	[ "$WMEM" -lt 4194304 ] && echo "send buffer clamped to $WMEM bytes (asked 4194304): raise net.core.wmem_max"
	[ "$RMEM" -lt 4194304 ] && echo "receive buffer clamped to $RMEM bytes on the peer (asked 4194304): raise net.core.rmem_max there"
})
is "$(clamp_warnings)" "$expected" "builtin, 4M: a clamping warning only if the kernel's limits ($WMEM/$RMEM) are lower (the sysroot's 212992 does not count)"
if [ $((2 * WMEM)) -le 2147483647 ] && [ $((2 * RMEM)) -le 2147483647 ]; then
	bufs "$WORK/big.yaml" $((2 * WMEM)) $((2 * RMEM))
	wait_closed 12866
	serve_once
	run cx verify "$WORK/big.yaml" --json
	is "$rc/$(printf '%s' "$out" | jq -r '[.benchmark.send_buffer_actual, .benchmark.recv_buffer_actual] | @tsv')" \
		"0/$(printf '%s\t%s' $((2 * WMEM)) $((2 * RMEM)))" "builtin, twice the limits: the sockets got 2 * the kernel's limit"
	is "$(clamp_warnings)" "send buffer clamped to $WMEM bytes (asked $((2 * WMEM))): raise net.core.wmem_max
receive buffer clamped to $RMEM bytes on the peer (asked $((2 * RMEM))): raise net.core.rmem_max there" \
		"builtin, twice the limits: the clamping warnings name what the sockets got"
else
	skip 2 "builtin clamping above the kernel's limit: its limits are above 1 GiB"
fi

# --peer: one profile for many hosts, each verified against its own peer.
# The profile names another benchmarking address; --peer wins and nothing
# goes to the profile's peer.
sed 's/^  peer: 198.18.0.2$/  peer: 198.19.0.99/' "$WORK/plain.yaml" >"$WORK/other-peer.yaml"
wait_closed 12866
serve_once
run cx verify --peer 198.18.0.2 "$WORK/other-peer.yaml"
is "$rc" 0 "--peer: exit 0 against the peer given"
printf '%s\n' "$out" | grep -qx 'benchmark   builtin to 198.18.0.2, 1 s, 8000-byte messages, 1 stream'
ok $? "--peer: the report names the peer given, not the profile's"
is "$(sqlite3 "$DB" 'SELECT peer FROM runs ORDER BY id DESC LIMIT 1')" 198.18.0.2 "--peer: the run records the peer given"
run cx verify --peer 'not a host!' "$WORK/plain.yaml"
is "$rc:$err" "64:cx5prof: error: verify: --peer 'not a host!' is not an IP address or a host name" \
	"--peer: a bad address is a usage error"

# No server.
wait_closed 12866
run cx verify "$WORK/plain.yaml"
is "$rc" 1 "no serve on the peer: exit 1"
printf '%s\n' "$err$out" | grep -q 'no cx5prof serve on 198.18.0.2:12866 (Connection refused): start `cx5prof serve --port 12866` on the peer'
ok $? "no serve on the peer: what to do"
served=5 # plain, gso, 4M buffers, twice the limits, --peer
[ $((2 * WMEM)) -le 2147483647 ] && [ $((2 * RMEM)) -le 2147483647 ] || served=4
is "$(grep -c 'received [0-9]* of [0-9]* datagrams' "$WORK/serve.log")" "$served" "serve --once served one test each time"
done_testing
