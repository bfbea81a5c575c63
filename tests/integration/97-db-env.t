#!/usr/bin/env bash
# 97-db-env.t: CX5PROF_DB names the history when --db is not given: the
# reading verbs read it, apply records there and rollback restores from it;
# --db wins over it; empty, it is ignored (the default path). The default
# path /var/lib/cx5prof/history.db is never touched: every command runs in
# a private mount namespace whose /var/lib is an empty tmpfs, checked
# afterwards.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
need_root_netns
unshare -m true 2>/dev/null || skip_all "needs unshare -m (a private mount namespace)"
RUNS=$(tt_test_runs) || skip_all "build/tests/unit/test_runs missing: run 'make units' first"
txn_setup 97
"$RUNS" --make-db "$WORK/seed.db" >/dev/null

# private CMD...: CMD in a mount namespace whose /var/lib is an empty tmpfs;
# prints what /var/lib holds afterwards on fd 3
private() {
	unshare -m --propagation private bash -c 'mount -t tmpfs cx5t-varlib /var/lib || exit 90
		"$@"; rc=$?; ls -A /var/lib >&3; exit $rc' private "$@"
}
varlib=$WORK/varlib

run private env CX5PROF_DB="$WORK/seed.db" "$CX5PROF" history 3>"$varlib"
by_env=$out
run "$CX5PROF" --db "$WORK/seed.db" history
is "$by_env" "$out" "history with CX5PROF_DB: the same as with --db"
printf '%s\n' "$out" | grep -q .
ok $? "history with CX5PROF_DB: lists the seed's runs"
is "$(cat "$varlib")" "" "history with CX5PROF_DB: /var/lib untouched"

run private env CX5PROF_DB="$WORK/seed.db" "$CX5PROF" --db "$WORK/none.db" history 3>"$varlib"
is "$rc:$err" "66:cx5prof: error: no history database at $WORK/none.db: check --db (apply, verify, bench, campaign and tune create one)" \
	"--db wins over CX5PROF_DB"

run private env CX5PROF_DB= "$CX5PROF" history 3>"$varlib"
is "$rc:$err" "66:cx5prof: error: no history database at /var/lib/cx5prof/history.db: check --db (apply, verify, bench, campaign and tune create one)" \
	"CX5PROF_DB empty: the default path"
is "$(cat "$varlib")" "" "CX5PROF_DB empty, history: nothing created"

P=$WORK/profiles/mtu-jumbo.yaml
run private env CX5PROF_DB="$DB" ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" apply "$P" 3>"$varlib"
is "$rc" 0 "apply with CX5PROF_DB: exit 0"
is "$(txn_status 1) $(mtu_of ens1f0)" "committed 9000" "apply with CX5PROF_DB: recorded in that history"
is "$(cat "$varlib")" "" "apply with CX5PROF_DB: /var/lib untouched"
run private env CX5PROF_DB="$DB" ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" rollback 3>"$varlib"
is "$rc" 0 "rollback with CX5PROF_DB: exit 0"
is "$(txn_status 1)" rolled_back "rollback with CX5PROF_DB: restored from that history"
host_as_before
ok $? "rollback with CX5PROF_DB: the host is as before"
is "$(cat "$varlib")" "" "rollback with CX5PROF_DB: /var/lib untouched"

mkdir "$WORK/dir"
run private env CX5PROF_DB="$WORK/dir" ip netns exec "$HOST_NS" "$CX5PROF" --sysroot "$SR" apply "$P" 3>"$varlib"
is "$rc:$err" "65:cx5prof: error: history $WORK/dir: Is a directory: --db must name a regular file (or one to create), not a directory" \
	"CX5PROF_DB naming a directory: refused as --db would be"
host_as_before
ok $? "and nothing changed"

done_testing
