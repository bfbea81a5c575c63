#!/usr/bin/env bash
# 58-missing-db.t: a mistyped --db must not look like success. The verbs
# that act on recorded history (rollback, commit, history, compare,
# export, mirror, analyze) refuse a database that does not exist with exit
# 66 "no history database at PATH" and create nothing: no file, no lock, no
# directory. A bad rollback argument is refused before the database is
# touched. Only apply, verify and bench create a history.
. "$(dirname "$0")/lib.sh"

T=$(mktemp -d /tmp/cx5-58-XXXXXX)
trap 'rm -rf "$T"' EXIT
DB=$T/typo/history.db
msg="cx5prof: error: no history database at $DB: check --db (apply, verify, bench, campaign and tune create one)"

nothing_created() { # nothing_created NAME
	is "$(ls -A "$T")" "" "$1: nothing created"
}

for verb in "rollback" "rollback 3" "commit" "history" "history show 1" "compare 1 2" \
	"export 1 --dir $T/bundle" "mirror" "mirror --list" "analyze 1"; do
	# shellcheck disable=SC2086 # the verb and its arguments are words
	run "$CX5PROF" --db "$DB" $verb
	is "$rc|$out|$err" "66||$msg" "$verb: exit 66, no history database"
	nothing_created "$verb"
done

# The same in the directory itself (a file name typo, not a directory one).
mkdir "$T/typo"
run "$CX5PROF" --db "$DB" rollback
is "$rc|$err" "66|$msg" "rollback in an existing directory: exit 66"
is "$(ls -A "$T/typo")" "" "rollback in an existing directory: no file, no lock"
rmdir "$T/typo"

run "$CX5PROF" --db "$DB" --json commit
is "$rc|$(printf "%s" "$out" | jq -c '{changed, failed, exit_code}')" '66|{"changed":false,"failed":true,"exit_code":66}' \
	"commit --json: one document saying why"
nothing_created "commit --json"

run "$CX5PROF" --db "$DB" rollback abc
is "$rc|$err" "64|cx5prof: error: rollback: 'abc' is not a transaction number" \
	"rollback abc: the argument is refused first"
nothing_created "rollback abc"

done_testing
