# lib.sh: TAP helpers for cx5prof integration tests (sourced, bash).
#
# Tests print TAP for `prove`. Privileged tests call need_root_netns: off CI
# they skip with the reason; with CX5PROF_REQUIRE_PRIVILEGED=1 (CI) a missing
# privilege is a failure, never a skip. Every test cleans up in an EXIT trap.

set -u
TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOP=$(cd "$TESTS_DIR/.." && pwd)
CX5PROF=${CX5PROF:-$TOP/cx5prof}
FIXTURES=$TESTS_DIR/fixtures
_tap_n=0
_tap_failed=0

plan() { echo "1..$1"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }

ok() { # ok COND-EXIT-STATUS NAME
	_tap_n=$((_tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_tap_n - $2"
	else
		echo "not ok $_tap_n - $2"
		_tap_failed=$((_tap_failed + 1))
	fi
}

# is GOT EXPECTED NAME: exact string comparison with a diff on failure.
is() {
	if [ "$1" == "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		diff -u <(printf '%s\n' "$2") <(printf '%s\n' "$1") | sed 's/^/# /' | head -n 60
	fi
}

# run CMD...: sets $out (stdout), $err (stderr), $rc.
run() {
	local o e
	o=$(mktemp) e=$(mktemp)
	"$@" >"$o" 2>"$e"
	rc=$?
	out=$(cat "$o")
	err=$(cat "$e")
	rm -f "$o" "$e"
}

diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

done_testing() {
	echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ]
	exit $?
}

# Skip (or fail in CI) unless we are root and may create network namespaces.
need_root_netns() {
	local why=""
	if [ "$(id -u)" != 0 ]; then
		why="needs root (network namespaces)"
	elif ! command -v ip >/dev/null; then
		why="needs iproute2 (ip)"
	elif ! ip netns add "cx5probe$$" 2>/dev/null; then
		why="cannot create network namespaces here"
	else
		ip netns del "cx5probe$$"
	fi
	[ -z "$why" ] && return 0
	if [ "${CX5PROF_REQUIRE_PRIVILEGED:-0}" = 1 ]; then
		echo "1..1"
		echo "not ok 1 - privileged test cannot run: $why (CX5PROF_REQUIRE_PRIVILEGED=1)"
		exit 1
	fi
	skip_all "$why"
}

# A private copy of a fixture sysroot, removed at exit by the caller's trap.
copy_sysroot() { # copy_sysroot NAME DEST
	mkdir -p "$2"
	cp -a "$FIXTURES/sysroot/$1/." "$2/"
}

# A free TCP port on 127.0.0.1 (for a server the test starts).
free_port() {
	/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# serve_start LOG ARG...: `cx5prof serve ARG...` in the background with its
# stderr in LOG; sets SERVE_PID (the caller's trap stops it) and returns
# once serve says it listens, or bails out.
serve_start() {
	local log=$1
	shift
	"$CX5PROF" serve "$@" 2>"$log" &
	SERVE_PID=$!
	for _ in $(seq 100); do grep -q listening "$log" && return 0; sleep 0.1; done
	echo "Bail out! serve did not start: $(cat "$log")"
	exit 1
}
