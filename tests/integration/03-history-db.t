#!/usr/bin/env bash
# 03-history-db.t: a mistyped --db does not look like success. rollback,
# commit, mirror, analyze, history, compare and export on a database that
# does not exist exit 66 "no history database at PATH" and create nothing
# (no file, no lock); a bad argument is refused before the database is
# touched; an empty file is "no history", not "No such file or directory".
# Only apply, verify, bench and campaign create a history (45-bad-input.t, 68-migration.t).
# Also: --limit -1 names what it wants.
. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
DB=$TMP/typo.db
nodb="cx5prof: error: no history database at $DB: check --db (apply, verify, bench, campaign and tune create one)"

for args in "rollback" "rollback 3" "rollback --force" "commit" "mirror" "mirror --list" "analyze 1" \
	"history" "history show 1" "compare 1 2" "export 1 --dir $TMP/bundle"; do
	read -r -a argv <<<"$args"
	run "$CX5PROF" --db "$DB" "${argv[@]}"
	is "$rc:$out:$err" "66::$nodb" "$args on a missing database: exit 66, says so"
	is "$(ls "$TMP")" "" "$args on a missing database: nothing created"
done

run "$CX5PROF" --db "$DB" rollback abc
is "$rc:$err" "64:cx5prof: error: rollback: 'abc' is not a transaction number" "rollback abc: exit 64"
is "$(ls "$TMP")" "" "rollback abc: the argument is refused before a database or lock is created"

: >"$TMP/empty.db"
empty="cx5prof: error: no history in $TMP/empty.db (the file is empty or not started): check --db (apply, verify, bench, campaign and tune create one)"
for args in "history" "rollback" "commit" "analyze 1"; do
	read -r -a argv <<<"$args"
	run "$CX5PROF" --db "$TMP/empty.db" "${argv[@]}"
	is "$rc:$err" "66:$empty" "$args on an empty file: exit 66, no history in it"
done
is "$(ls "$TMP"):$(stat -c %s "$TMP/empty.db")" "empty.db:0" "the empty file is left as it was, nothing next to it"

for v in -1 abc 1x; do
	run "$CX5PROF" --db "$TMP/empty.db" history --limit "$v"
	is "$rc:$err" "64:cx5prof: error: --limit: '$v' is not a number of entries: give 0 (all) or a positive count" \
		"--limit $v: exit 64, says what it takes"
done

done_testing
