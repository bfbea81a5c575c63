# verify-lib.sh: shared setup of the verification tests (50-59), sourced
# after lib.sh. Each test gets its own lab (contrib/lab/lab.sh with a unique
# CX5LAB_PREFIX), a private copy of a sysroot fixture, its own history
# database and profiles under $WORK. Every server it starts is bounded by
# `timeout` and killed at exit.
#
#   vsetup NAME [FIXTURE]   lab up, $WORK, $SR (copy of FIXTURE, default
#                           cx5-2port), $DB; trap cleans up
#   cx ARGS...              cx5prof in the lab's host namespace, --sysroot/--db
#   set_mtu HOST PEER       MTU of ens1f0 (host side) and peer0 (peer side)
#   iperf3_server           one-shot `iperf3 -s -1 -B 198.18.0.2` in the peer
#   netserver_start PORT    a real netperf `netserver -L 198.18.0.2 -p PORT -D`
#                           in the peer (killed by stop_servers)
#   tcp_listener PORT       a TCP listener on 198.18.0.2:PORT in the peer
#                           (accepts and closes; a stand-in netserver)
#   stop_servers            stop them (and wait)
#   numbers_out TEXT        TEXT with every measured figure replaced by N
#   sshd_start NS ADDR PORT DIR KEYS SECONDS RUNDIR...  a real sshd in NS
#   sshd_wait NS PORT DIR   until it listens (bails out if it never does)

LAB=$TOP/contrib/lab/lab.sh
PY=/usr/bin/python3

# TERM to `timeout`, which passes it on and KILLs one second later.
stop_servers() {
	local pid
	for pid in ${V_PIDS:-}; do
		{ kill "$pid" && wait "$pid"; } 2>/dev/null
	done
	V_PIDS=
}

v_cleanup() {
	stop_servers
	CX5LAB_PREFIX=$CX5LAB_PREFIX "$LAB" down >/dev/null 2>&1
	[ -n "${WORK:-}" ] && rm -rf "$WORK"
}

vsetup() {
	export CX5LAB_PREFIX=cx5t-$1-$$
	HOST_NS=$CX5LAB_PREFIX-host
	PEER_NS=$CX5LAB_PREFIX-peer
	WORK=$(mktemp -d /tmp/cx5t-verify.XXXXXX)
	SR=$WORK/sysroot
	DB=$WORK/history.db
	V_PIDS=
	trap v_cleanup EXIT
	copy_sysroot "${2:-cx5-2port}" "$SR"
	if ! "$LAB" up >/dev/null; then
		echo "Bail out! lab.sh up failed"
		exit 1
	fi
}

cx() { ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" --db "$DB" "$@"; }

set_mtu() {
	ip -n "$HOST_NS" link set dev ens1f0 mtu "$1"
	ip -n "$PEER_NS" link set dev peer0 mtu "$2"
}

# Wait (at most 60 s) until something listens on TCP PORT in the peer /
# until nothing does.
listening() { ip netns exec "$PEER_NS" ss -Hltn "sport = :$1" | grep -q .; }
wait_listen() { wait_until 60 listening "$1"; }
wait_closed() { wait_until 60 eval "! listening $1"; }

# sshd_start NS ADDR PORT DIR AUTHORIZED_KEYS SECONDS RUNDIR...: a real
# sshd in namespace NS on ADDR:PORT for at most SECONDS, key-only root
# logins, host key DIR/hostkey, config DIR/sshd_config, log DIR/sshd.log,
# with a private tmpfs /run holding the RUNDIRs (/run/sshd: its privilege
# separation directory; /run/lock too for cx5prof's host lock), as a host
# has its own. SSHD_PID: the `timeout` to stop; the caller records it for
# its cleanup, then calls sshd_wait NS PORT DIR, which bails out when
# nothing listens.
sshd_start() {
	local ns=$1 addr=$2 port=$3 d=$4 keys=$5 seconds=$6
	shift 6
	cat >"$d/sshd_config" <<EOF
Port $port
ListenAddress $addr
HostKey $d/hostkey
AuthorizedKeysFile $keys
PidFile $d/sshd.pid
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
EOF
	timeout -k 1 "$seconds" ip netns exec "$ns" unshare -m sh -c \
		'c=$1; shift; mount -t tmpfs tmpfs /run && mkdir -m 755 "$@" && exec /usr/sbin/sshd -D -e -f "$c"' \
		sh "$d/sshd_config" "$@" 2>"$d/sshd.log" &
	SSHD_PID=$!
}
sshd_wait() {
	PEER_NS=$1 wait_listen "$2" || { echo "Bail out! sshd in $1 did not start: $(cat "$3/sshd.log")"; exit 1; }
}

iperf3_server() {
	timeout -k 1 900 ip netns exec "$PEER_NS" iperf3 -s -1 -B 198.18.0.2 >/dev/null 2>&1 &
	V_PIDS="$V_PIDS $!"
	wait_listen 5201
}

netserver_start() {
	timeout -k 1 900 ip netns exec "$PEER_NS" netserver -L 198.18.0.2 -p "$1" -D >/dev/null 2>&1 &
	V_PIDS="$V_PIDS $!"
	wait_listen "$1"
}

tcp_listener() {
	timeout -k 1 900 ip netns exec "$PEER_NS" "$PY" -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("198.18.0.2", int(sys.argv[1])))
s.listen(16)
while True:
    c, _ = s.accept()
    c.close()
' "$1" >/dev/null 2>&1 &
	V_PIDS="$V_PIDS $!"
	wait_listen "$1"
}

# held_when FIFO CMD...: a campaign run with CX5PROF_TEST_PAUSE=bench-done:FIFO
# stops after each benchmark; release it until CMD holds at such a stop,
# and leave it held there (0; $HELD_PID is its pid), or 1 when the
# campaign ended or stopped 30 times first.
held_when() {
	local fifo=$1 i at
	shift
	for i in $(seq 30); do
		at=$(pause_wait "$fifo") || return 1
		HELD_PID=${at##* }
		"$@" && return 0
		pause_release "$fifo"
	done
	return 1
}

# The figures a benchmark measures differ from run to run.
numbers_out() {
	printf '%s\n' "$1" | sed -E \
		-e '/^  (result|rate) /s/[0-9]+(\.[0-9]+)?/N/g' \
		-e 's/(Mbps|%): [0-9]+\.[0-9]+ (Mbps|%)/\1: N \2/' \
		-e 's/\(run [0-9]+ recorded\)/(run N recorded)/'
}
