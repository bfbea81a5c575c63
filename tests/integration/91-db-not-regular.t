#!/usr/bin/env bash
# 91-db-not-regular.t: a --db that is not a regular file (a FIFO would block
# every reader forever; a directory) is refused before it is opened, by
# every verb that reads the history, with the reason (exit 65), creating
# nothing. A database on a read-only file system says so to a verb that
# writes it (verify with its benchmark, apply), not "run as root" to root;
# the reading verbs read it (106-history-readonly.t).
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
W=$(mktemp -d /tmp/cx5t-dbreg.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkfifo "$W/fifo"
SR=$FIXTURES/sysroot/cx5-2port
FIFO_MSG="cx5prof: error: history $W/fifo: No such device or address: it is a FIFO, a socket or a device: --db must name a regular file (or one to create)"

while read -r label; do
	# shellcheck disable=SC2086
	run timeout 120 "$CX5PROF" --sysroot "$SR" --db "$W/fifo" $label
	is "$rc:$(printf '%s\n' "$err" | grep error:)" "65:$FIFO_MSG" "a FIFO as --db: '$label' exits 65 at once, with the reason"
done <<EOF2
history
history show 1
compare 1 2
export 1 --dir $W/export
history --format prometheus
verify --no-bench
apply --check $TOP/profiles/mtu-jumbo.yaml
apply $TOP/profiles/mtu-jumbo.yaml
EOF2
[ ! -e "$W/export" ] && [ ! -e "$W/fifo.lock" ]
ok $? "nothing was created (no export, no lock)"

mkdir "$W/dir"
run "$CX5PROF" --sysroot "$SR" --db "$W/dir" apply "$TOP/profiles/mtu-jumbo.yaml"
is "$rc:$err" "65:cx5prof: error: history $W/dir: Is a directory: --db must name a regular file (or one to create), not a directory" \
	"a directory as --db: exit 65, with the reason"
[ ! -e "$W/dir.lock" ]
ok $? "and no lock file was created next to it"

if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	mkdir "$W/ro"
	unshare -m --propagation private sh -c '
		mount -t tmpfs -o size=2m cx5ro "$1" || exit 90
		"$3" --make-db "$1/h.db" >/dev/null 2>&1
		mount -o remount,ro "$1" || exit 91
		"$2" --db "$1/h.db" --sysroot "$4" verify 2>"$5.verify"; echo "$?" >>"$5.verify"
		"$2" --db "$1/h.db" --sysroot "$4" apply "$6" 2>"$5.apply"; echo "$?" >>"$5.apply"' \
		sh "$W/ro" "$CX5PROF" "$(tt_test_runs)" "$SR" "$W/out" \
		"$TOP/profiles/mtu-jumbo.yaml"
	is "$(cat "$W/out.verify")" "cx5prof: error: history $W/ro/h.db: Read-only file system: the file or its file system is read-only: make it writable (its mode, or remount the file system read-write) or choose another file with --db
1" "a database on a read-only file system: verify says so (not 'run as root')"
	is "$(cat "$W/out.apply")" "cx5prof: error: cannot lock $W/ro/h.db.lock or the host's lock: Read-only file system: the file or its file system is read-only: make it writable (its mode, or remount the file system read-write) or choose another file with --db
1" "apply says so too, and changes nothing"
else
	skip 2 "needs root and unshare -m"
fi

done_testing
