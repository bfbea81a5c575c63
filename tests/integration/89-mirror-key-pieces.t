#!/usr/bin/env bash
# 89-mirror-key-pieces.t: whatever comes from the gateway is masked before
# it is printed or stored: not only the whole key but any piece of 4 or
# more of its letters and digits (a prefix, a suffix), in an error (stderr, --json,
# outbox.last_error) and in a 200 reply (reply_id, reply_content, the
# analysis artifact, history show, --json, mirror --list, exports). And a
# base_url ending in /v1 is caught by the config check, with the fix.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
tt_setup
klen=${#KEY}

# ---- error messages echoing a piece of the key
for where in prefix suffix; do
	for count in 5 7 12 20 30 $((klen - 1)); do
		case $where in
		prefix) piece=${KEY:0:count} ;;
		suffix) piece=${KEY:klen-count} ;;
		esac
		scenario "piece-401-$where-$count"
		run "$CX5PROF" --db "$DB" mirror --now
		case $err in
		*"(server: Incorrect API key provided: <key>; see docs)"*) ok 0 "401 echoing the $where $count of $klen: masked" ;;
		*) ok 1 "401 echoing the $where $count of $klen: masked"; diag "$err" ;;
		esac
		stored=$(sqlite3 "$DB" 'SELECT last_error FROM outbox WHERE id = 1')
		case "$err $stored" in
		*"$piece"*) ok 1 "$where $count: the piece is neither printed nor stored" ;;
		*) ok 0 "$where $count: the piece is neither printed nor stored" ;;
		esac
	done
done
scenario piece-401-prefix-4
run "$CX5PROF" --db "$DB" mirror --now
case $err in
*"(server: Incorrect API key provided: ${KEY:0:4}; see docs)"*) ok 0 "3 letters and digits (sk-c) are below the rule (4): shown as sent" ;;
*) ok 1 "3 letters and digits are below the rule"; diag "$err" ;;
esac
run "$CX5PROF" --db "$DB" --json mirror --now
printf '%s' "$out" | grep -qF "${KEY:0:12}"
ok $((!$?)) "--json: no piece of the key"

# ---- a 200 reply echoing the key in its id and content
scenario echo-200
run "$CX5PROF" --db "$DB" mirror --now
is "$rc/$out" "0/sent 4, pending 0" "the records are sent"
is "$(sqlite3 "$DB" "SELECT reply_id || ' | ' || reply_content FROM outbox WHERE id = 1")" \
	"chatcmpl-<key> | RECEIVER: you sent <key>, ends <key>, starts <key>." \
	"outbox reply_id and reply_content: the key and its pieces masked before storing"
run "$CX5PROF" --db "$DB" analyze 3
is "$rc" 0 "analyze with a reply echoing the key"
CAP=$TT/cap
mkdir "$CAP"
"$CX5PROF" --db "$DB" analyze 3 --json >"$CAP/1" 2>&1
"$CX5PROF" --db "$DB" history show 3 >"$CAP/2" 2>&1
"$CX5PROF" --db "$DB" history show 3 --json >"$CAP/3" 2>&1
"$CX5PROF" --db "$DB" mirror --list >"$CAP/4" 2>&1
"$CX5PROF" --db "$DB" mirror --list --json >"$CAP/5" 2>&1
"$CX5PROF" --db "$DB" export 3 --dir "$TT/export" >"$CAP/6" 2>&1
grep -q '<key>' "$CAP/2"
ok $? "history show prints the masked answer"
sqlite3 "$DB" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
for piece in "$KEY" "${KEY:0:12}" "${KEY:klen-20}"; do
	grep -rqF "$piece" "$CAP" "$TT/export" "$DB"
	ok $((!$?)) "no ${#piece}-character piece of the key in any output, export or the database"
done

# ---- base_url ending in /v1
tt_write_config "base_url: $BASE_URL/v1/" "api_key_file: $KEYFILE" "model_id: test-model"
n=$(requests_total)
run "$CX5PROF" --db "$DB" mirror --now
is "$rc:$err" "65:cx5prof: error: mirror: $CX5PROF_MIRROR_CONFIG: base_url '$BASE_URL/v1/' ends with /v1, which cx5prof adds itself (/v1/chat/completions): use base_url: $BASE_URL" \
	"base_url ending in /v1: caught by the config check, with the fix"
is "$(requests_total)" "$n" "and no request was sent"

done_testing
