#!/usr/bin/env bash
# 108-lock-foreign.t: the per-host lock file lives in /run/lock, which
# every user may write. A file there under the host lock's name that root
# does not own (planted by another user, who holds its flock forever)
# blocks nothing: apply and rollback, run as root, remove it and take a
# lock file of their own.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
need_tool flock
need_tool setpriv
id nobody >/dev/null 2>&1 || skip_all "needs the user nobody"
txn_setup 108
P=$WORK/profiles/one-port.yaml
HOST_LOCK=/run/lock/cx5prof-host-$(stat -c '%d-%i' "$SR").lock
HOLDER=
trap 'stop_pid "$HOLDER" sleep; txn_cleanup' EXIT

# nobody creates the host lock file and holds its flock: one process (the
# shell execs sleep, which keeps the locked descriptor), stopped at exit.
setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups \
	sh -c 'exec 9>>"$1" && flock 9 && exec sleep 300' sh "$HOST_LOCK" >/dev/null 2>&1 &
HOLDER=$!
wait_until 30 test -e "$HOST_LOCK"
ok $? "nobody holds a planted host lock file"
is "$(stat -c %U "$HOST_LOCK")" nobody "the planted file is nobody's"

run cx apply "$P"
is "$rc" 0 "apply: exit 0 (the planted lock file blocks nothing)"
[ ! -e "$HOST_LOCK" ] || [ "$(stat -c %u "$HOST_LOCK")" = 0 ]
ok $? "apply: the planted file is gone (removed, then root's own made and removed)"
run cx rollback
is "$rc" 0 "rollback: exit 0"
host_as_before
ok $? "the host is as before"
kill -0 "$HOLDER"
ok $? "the planted file's holder still runs: only the name was taken back"
done_testing
