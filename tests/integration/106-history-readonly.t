#!/usr/bin/env bash
# 106-history-readonly.t: the reading verbs read a history on a read-only
# file system, and verify refuses a --db that is no file.
#
# A history made by `test_runs --make-db` (WAL mode, as cx5prof writes
# it) on a tmpfs remounted read-only, in a private mount namespace of the
# test's own (`unshare -m`: nothing changes outside it): `history`,
# `history show`, `compare`, `export`, `history --format prometheus`,
# `mirror --list` and `verify --no-bench` read it (SQLite cannot create
# the shared-memory file there: it is opened as immutable), and `apply`
# still says the file system is read-only. `verify PROFILE` with a FIFO as
# --db exits 65 with the reason, with and without --no-bench (it exited 0
# with --no-bench: the run would not be recorded, so the history was not
# opened).
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
[ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null || {
	[ "${CX5PROF_REQUIRE_PRIVILEGED:-0}" = 1 ] && { echo "1..1"; echo "not ok 1 - needs root and unshare -m"; exit 1; }
	skip_all "needs root and unshare -m"
}
W=$(mktemp -d /tmp/cx5t-dbro.XXXXXX)
trap 'rm -rf "$W"' EXIT
SR=$FIXTURES/sysroot/cx5-2port
RUNS=$(tt_test_runs) || skip_all "build/tests/unit/test_runs missing: run 'make units' first"

# The same commands on a writable copy give the expected output.
mkdir "$W/rw" "$W/ro"
"$RUNS" --make-db "$W/rw/h.db" >/dev/null 2>&1
cat >"$W/verbs" <<'EOF2'
history
history show 1
compare 1 2
export 1 --dir EXPORT
history --format prometheus
mirror --list
EOF2
reads() { # reads DB EXPORTDIR OUTFILE: each verb's exit code and output
	while read -r verb; do
		# shellcheck disable=SC2086
		"$CX5PROF" --db "$1" --sysroot "$SR" ${verb/EXPORT/$2} >"$3.out" 2>&1
		printf '@@ %s: exit %s\n' "$verb" "$?"
		sed "s|$2|EXPORT|g" "$3.out"
	done <"$W/verbs"
}
reads "$W/rw/h.db" "$W/rw/export" "$W/rw/r" >"$W/rw.txt"
grep -c '^@@ .*: exit 0$' "$W/rw.txt" >"$W/rw.count"
is "$(cat "$W/rw.count")" 6 "on a writable file system every reading verb exits 0"

export -f reads
unshare -m --propagation private bash -c '
	mount -t tmpfs -o size=4m cx5ro "$1/ro" || exit 90
	"$2" --make-db "$1/ro/h.db" >/dev/null 2>&1
	mount -o remount,ro "$1/ro" || exit 91
	CX5PROF=$3 SR=$4 W=$1 reads "$1/ro/h.db" "$1/export" "$1/r" >"$1/ro.txt"
	"$3" --db "$1/ro/h.db" --sysroot "$4" apply "$5" >/dev/null 2>"$1/apply.err"; echo "$?" >>"$1/apply.err"' \
	sh "$W" "$RUNS" "$CX5PROF" "$SR" "$TOP/profiles/mtu-jumbo.yaml"
is "$?" 0 "a read-only tmpfs in a private mount namespace"
diff <(sed 's/ ([0-9.]* s)//; /^exported/d' "$W/rw.txt") <(sed 's/ ([0-9.]* s)//; /^exported/d' "$W/ro.txt") >"$W/diff"
ok $? "on a read-only file system every reading verb gives the same output and exit code" || diag "$(head -n 20 "$W/diff")"
is "$(cat "$W/apply.err")" "cx5prof: error: cannot lock $W/ro/h.db.lock or the host's lock: Read-only file system: the file or its file system is read-only: make it writable (its mode, or remount the file system read-write) or choose another file with --db
1" "apply still says the file system is read-only"

# ---- verify PROFILE with a FIFO as --db
mkfifo "$W/fifo"
printf 'version: 1\nname: s\nsysctl:\n  net.core.rmem_max: 212992\n' >"$W/s.yaml"
for nb in --no-bench ""; do
	# shellcheck disable=SC2086
	run timeout 120 "$CX5PROF" --sysroot "$SR" --db "$W/fifo" verify $nb "$W/s.yaml"
	is "$rc:$err" "65:cx5prof: error: history $W/fifo: No such device or address: it is a FIFO, a socket or a device: --db must name a regular file (or one to create)" \
		"verify PROFILE ${nb:-(with the benchmark)}: a FIFO as --db exits 65 with the reason"
done
done_testing
