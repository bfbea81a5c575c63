#!/usr/bin/env bash
# 15-history-empty-db.t: an empty --db file is "no history" to every verb
# that opens the history without creating one: exit 66 (the one mapping of
# history-open errors, history_open_exit_code) with the same message, the
# file left empty and nothing created next to it. verify --no-bench without
# a PROFILE used to say "No data available" and exit 1. The verbs that
# create a history (apply, verify with its benchmark) start one in the
# empty file.
. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
DB=$TMP/db/empty.db
mkdir -p "$TMP/db"
printf 'version: 1\nname: none\n' >"$TMP/p.yaml"
empty="cx5prof: error: no history in $DB (the file is empty or not started): check --db (apply, verify, bench, campaign and tune create one)"

for args in "history" "history show 1" "history show txn 1" "rollback" "rollback 3" "commit" "mirror" \
	"mirror --list" "analyze 1" "compare 1 2" "export 1 --dir $TMP/bundle" "report 1 --dir $TMP/report" \
	"verify --no-bench" "apply --check $TMP/p.yaml"; do
	read -r -a argv <<<"$args"
	rm -f "$TMP"/db/*
	: >"$DB"
	run "$CX5PROF" --db "$DB" "${argv[@]}"
	is "$rc:$err" "66:$empty" "$args on an empty file: exit 66, no history in it"
	is "$(ls "$TMP/db"):$(stat -c %s "$DB")" "empty.db:0" "$args: the file is left empty, nothing next to it"
	run "$CX5PROF" --json --db "$DB" "${argv[@]}"
	is "$rc" 66 "$args --json: exit 66 too"
done
is "$(ls "$TMP")" "db
p.yaml" "no bundle or report directory was written"

# The verbs that create a history start one in the empty file.
for args in "apply --runtime-only $TMP/p.yaml" "verify $TMP/p.yaml"; do
	read -r -a argv <<<"$args"
	rm -f "$TMP"/db/*
	: >"$DB"
	run "$CX5PROF" --db "$DB" "${argv[@]}"
	is "$rc" 0 "${argv[*]} on an empty file: exit 0"
	run "$CX5PROF" --db "$DB" history
	is "$rc" 0 "${argv[*]}: the file is a history now"
done

done_testing
