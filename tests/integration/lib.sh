# lib.sh: TAP helpers for cx5prof integration tests (sourced, bash).
#
# Tests print TAP for `prove`. Every test cleans up in an EXIT trap.
#
# Skips go through one helper (skip_all for the whole file, skip for checks
# in it; need_root_netns, need_tool and need_python_module call skip_all):
# off CI the test says why and skips; with CX5PROF_REQUIRE_PRIVILEGED=1
# (CI, .ci/run) every skip is a failure with its reason. Each skip is also
# appended to $CX5PROF_SKIP_LOG when set (`make run-tests` counts them).

set -u
TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOP=$(cd "$TESTS_DIR/.." && pwd)
CX5PROF=${CX5PROF:-$TOP/cx5prof}
FIXTURES=$TESTS_DIR/fixtures
_tap_n=0
_tap_failed=0

plan() { echo "1..$1"; }

skips_forbidden() { [ "${CX5PROF_REQUIRE_PRIVILEGED:-0}" = 1 ]; }

_skip_record() {
	[ -n "${CX5PROF_SKIP_LOG:-}" ] && printf '%s: %s\n' "$(basename "$0")" "$1" >>"$CX5PROF_SKIP_LOG"
	return 0
}

# skip_all REASON: the rest of the file cannot run here.
skip_all() {
	if skips_forbidden; then
		_skip_record "$* [refused: CX5PROF_REQUIRE_PRIVILEGED=1]"
		ok 1 "cannot run: $* (CX5PROF_REQUIRE_PRIVILEGED=1: no skips)"
		echo "1..$_tap_n"
		exit 1
	fi
	_skip_record "$*"
	if [ "$_tap_n" = 0 ]; then
		echo "1..0 # SKIP $*"
	else
		echo "# SKIP the rest: $*"
		echo "1..$_tap_n"
	fi
	exit $((_tap_failed > 0))
}

# skip N REASON: the next N checks cannot run here.
skip() {
	local i
	for ((i = 0; i < $1; i++)); do
		if skips_forbidden; then
			_skip_record "$2 [refused: CX5PROF_REQUIRE_PRIVILEGED=1]"
			ok 1 "cannot run: $2 (CX5PROF_REQUIRE_PRIVILEGED=1: no skips)"
		else
			_tap_n=$((_tap_n + 1))
			echo "ok $_tap_n # SKIP $2"
			_skip_record "$2"
		fi
	done
}

# need_tool CMD [HINT]: skip the file unless CMD is on PATH.
need_tool() {
	command -v "$1" >/dev/null || skip_all "needs $1 (${2:-contrib/install-deps.sh})"
}

# need_python_module MODULE... : skip the file unless /usr/bin/python3
# imports them all.
need_python_module() {
	local m
	[ -x /usr/bin/python3 ] || skip_all "needs /usr/bin/python3"
	for m in "$@"; do
		/usr/bin/python3 -c "import $m" 2>/dev/null || skip_all "needs the python3 module $m (contrib/install-deps.sh)"
	done
}

ok() { # ok COND-EXIT-STATUS NAME
	_tap_n=$((_tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_tap_n - $2"
	else
		echo "not ok $_tap_n - $2"
		_tap_failed=$((_tap_failed + 1))
	fi
}

# sqlite3 ...: the CLI with a busy timeout. A test reads the history while
# cx5prof (a watchdog, a campaign) may still write or close it; the last
# connection's close checkpoints the WAL, and a reader opening in that
# instant gets "database is locked" (an empty answer) without one.
sqlite3() { command sqlite3 -cmd '.timeout 10000' "$@"; }

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

# wait_until SECONDS CMD...: run CMD every 0.1 s until it succeeds; 1 when
# SECONDS pass first. Tests wait for an event this way, with a generous
# bound (a busy 2-core machine), never for a guessed time: `make
# lint-tests` refuses any other `sleep` (tests/integration/sleeps.allow).
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1 # wait_until's poll interval
	done
}

# stop_pid PID WHAT: stop a process this test started in the background
# (a server, a lock holder), by PID, after checking that /proc/PID/cmdline
# still holds WHAT (a PID may have been reused); waits for it. Background
# helpers live as long as the test and are stopped this way at its end,
# never by a fixed lifetime the test must stay under.
stop_pid() {
	local cmd
	cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline") || return 0
	case $cmd in
	*"$2"*) kill "$1" 2>/dev/null && wait "$1" 2>/dev/null ;;
	esac
	return 0
}

# Test pauses (CX5PROF_TEST_PAUSE=POINT:FIFO, engine/base/util.h): the
# program stops at POINT until the test releases it.
#   pause_wait FIFO [SECONDS]  until the program is at its point (at most
#                              SECONDS, default 60); prints "POINT PID"
#   pause_release FIFO         let it go on
#   pause_signal FIFO SIG PID  send SIG to PID held at its point (a caught
#                              signal ends the wait; in case it came just
#                              before the wait began, a bounded releaser
#                              is left in the background: one FIFO per use)
pause_wait() { timeout "${2:-60}" cat "$1"; }
pause_release() { timeout 60 sh -c ': >"$1"' sh "$1"; }
pause_signal() {
	kill "-$2" "$3"
	timeout 120 sh -c ': >"$1"' sh "$1" >/dev/null 2>&1 &
}

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
	skip_all "$why"
}

# A private copy of a fixture sysroot, removed at exit by the caller's trap.
copy_sysroot() { # copy_sysroot NAME DEST
	mkdir -p "$2"
	cp -a "$FIXTURES/sysroot/$1/." "$2/"
}

# A free TCP port (for a server the test starts, on 127.0.0.1 or every
# address). Picked at random below the kernel's ephemeral range, so the
# client ports of other tests running at the same time (prove -j) never
# take it between the test's servers; free on every address when picked.
free_port() {
	/usr/bin/python3 -c '
import random, socket
lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
for _ in range(1000):
    p = random.randrange(20000, max(lo, 20001))
    s = socket.socket()
    try:
        s.bind(("0.0.0.0", p))
    except OSError:
        continue
    finally:
        s.close()
    print(p)
    break
else:
    raise SystemExit("no free port below the ephemeral range")'
}

# serve_start LOG ARG...: `cx5prof serve ARG...` in the background with its
# stderr in LOG; sets SERVE_PID (the caller's trap stops it) and returns
# once serve says it listens, or bails out.
serve_start() {
	local log=$1
	shift
	"$CX5PROF" serve "$@" 2>"$log" &
	SERVE_PID=$!
	wait_until 60 grep -q listening "$log" && return 0
	echo "Bail out! serve did not start: $(cat "$log")"
	exit 1
}
