#!/usr/bin/env bash
# 107-campaign-killed-early.t: a campaign killed before its first
# transaction is recorded as interrupted by the next rollback.
#
# A cx5prof killed (kill -9) after it recorded its campaign and before the
# first round's transaction leaves the campaign `running` and nothing to
# roll back: the history is left in that state here (a real SQLite file:
# `test_runs --make-db`, its transaction rolled back, then the campaign's
# row as the dead process wrote it). `rollback` holds the apply lock, which a live campaign holds from
# its start to its end, so every campaign still `running` is dead: it is
# recorded as interrupted, with the summary of what the history knows,
# even though there is nothing to roll back (it stayed `running` until the
# next campaign).
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
command -v sqlite3 >/dev/null || skip_all "needs sqlite3"
W=$(mktemp -d /tmp/cx5t-camp.XXXXXX)
trap 'rm -rf "$W"' EXIT
copy_sysroot cx5-2port "$W/sysroot"
RUNS=$(tt_test_runs) || skip_all "build/tests/unit/test_runs missing: run 'make units' first"
DB=$W/h.db
"$RUNS" --make-db "$DB" >/dev/null 2>&1
# Its one transaction was rolled back already: nothing here touches a host.
sqlite3 "$DB" "UPDATE transactions SET status = 'rolled_back'"
sqlite3 "$DB" "INSERT INTO campaigns (name, file, status, started_usec) VALUES ('dead', '$W/c.yaml', 'running', $(date +%s)000000 - 5000000)"
cx() { "$CX5PROF" --sysroot "$W/sysroot" --db "$DB" "$@"; }

run cx rollback
is "$rc:$out" "0:nothing to roll back" "rollback: nothing to roll back"
is "$(sqlite3 "$DB" "SELECT status || ' ' || json_extract(summary, '$.verdict') FROM campaigns WHERE name = 'dead'")" \
	"interrupted killed before its end: its rounds are the runs tagged with it; no summary" \
	"the dead campaign is recorded as interrupted, with what the history knows"
is "$(sqlite3 "$DB" "SELECT count(*) FROM outbox WHERE source_kind = 'campaign'")" 1 "and queued for the mirror"
run cx rollback -v
is "$rc:$err" "0:" "a second rollback finds no campaign to mark"
done_testing
