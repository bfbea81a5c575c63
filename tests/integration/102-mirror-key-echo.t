#!/usr/bin/env bash
# 102-mirror-key-echo.t: a gateway that echoes the key cut up gets none of
# it into the output or the history.
#
# The test server (tests/helpers/taotoken_server.py, scenarios split-*)
# echoes the bearer key in 7-character pieces between spaces, one
# character at a time, upper-cased, or with an "x" after each character:
# in a 401's message, and in a 200's id, answer and usage. Every piece of 4
# or more of its letters and digits, whatever the case and the separators,
# is masked as <key>; a text that still spells the key's characters in
# order is withheld whole; usage keeps only its token counts. Checked in
# stderr, --json, the outbox, `mirror --list` and `history show` (text and
# JSON), and the database file itself.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
tt_setup

# leaks FILE...: the files that hold a piece of 8 or more of the key's
# letters and digits (separators removed, any case), or all of them in
# order within three times its length; nothing when none does.
cat >"$TT/leaks.py" <<'EOF2'
import re, sys
key = re.sub(r"[^a-z0-9]", "", sys.argv[1].lower())
for name in sys.argv[2:]:
    text = open(name, "rb").read().decode("latin-1").lower().replace("<key>", " ")
    sk = re.sub(r"[^a-z0-9]", "", text)
    piece = any(key[i:i + 8] in sk for i in range(len(key) - 7))
    spread = re.search(".{0,2}".join(map(re.escape, key)), sk) is not None
    if piece or spread:
        print(name, "piece" if piece else "spread")
EOF2
leaks() { /usr/bin/python3 "$TT/leaks.py" "$KEY" "$@"; }
capture() { # capture DIR: every place a gateway's text can reach
	mkdir -p "$1"
	"$CX5PROF" --db "$DB" mirror --list >"$1/list" 2>&1
	"$CX5PROF" --db "$DB" mirror --list --json >"$1/list.json" 2>&1
	"$CX5PROF" --db "$DB" history show 1 >"$1/show" 2>&1
	"$CX5PROF" --db "$DB" history show 1 --json >"$1/show.json" 2>&1
	sqlite3 "$DB" 'SELECT * FROM outbox' >"$1/outbox" 2>&1
	sqlite3 "$DB" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
	cp "$DB" "$1/history.db"
}

# ---- a 401 echoing the key cut up
while IFS='|' read -r how detail; do
	scenario "split-401-$how"
	outbox_make_due
	run "$CX5PROF" --db "$DB" mirror --now
	printf '%s\n' "$err" >"$TT/err-$how"
	case $err in
	*"$detail"*) ok 0 "401, key $how: $detail" ;;
	*) ok 1 "401, key $how: $detail"; diag "$err" ;;
	esac
	outbox_make_due
	"$CX5PROF" --db "$DB" --json mirror --now >"$TT/json-$how" 2>&1
	capture "$TT/cap-401-$how"
	is "$(leaks "$TT/err-$how" "$TT/json-$how" "$TT/cap-401-$how"/*)" "" \
		"401, key $how: no piece of it printed or stored"
done <<'EOF2'
pieces7|(server: Incorrect API key provided: <key>; see docs)
onebyone|(server: Incorrect API key provided: <key>; see docs)
upper|(server: Incorrect API key provided: <key>; see docs)
interleaved|(server: message withheld: it spells the key)
EOF2

# ---- a 200 echoing it in its id, answer and usage
while IFS='|' read -r how id content; do
	sqlite3 "$DB" "UPDATE outbox SET status = 'pending', next_attempt_usec = 0, reply_id = NULL,
		reply_content = NULL, reply_usage = NULL, sent_usec = NULL"
	scenario "split-200-$how"
	run "$CX5PROF" --db "$DB" mirror --now
	is "$rc/$out" "0/sent 4, pending 0" "200, key $how: the records are sent"
	is "$(sqlite3 "$DB" "SELECT reply_id || ' | ' || reply_content || ' | ' || reply_usage FROM outbox WHERE id = 1")" \
		"$id | $content | {\"prompt_tokens\":50,\"completion_tokens\":1,\"total_tokens\":51}" \
		"200, key $how: id and answer masked, usage only its counts"
	capture "$TT/cap-200-$how"
	is "$(leaks "$TT/cap-200-$how"/*)" "" "200, key $how: no piece of it printed or stored"
done <<'EOF2'
pieces7|chatcmpl-<key>|RECEIVER: you sent <key>.
onebyone|chatcmpl-<key>|RECEIVER: you sent <key>.
upper|chatcmpl-<key>|RECEIVER: you sent <key>.
interleaved|<withheld: it spells the key>|<withheld: it spells the key>
EOF2

done_testing
