#!/usr/bin/env bash
# 69-mirror-robust.t: a record the gateway refuses for itself (HTTP 400)
# is set aside as failed_permanent and no longer holds back the queue;
# errors of the key or the gateway never set rows aside, however many
# attempts; 200 without choices sets a row aside after 3 attempts;
# `mirror --retry-failed` resends set-aside rows. A row another process
# acknowledged while ours was in flight is not a database error. 503 with
# Retry-After is honoured. The key is masked even when the server echoes
# it across the 200-character cut, or when it is "***". Text from the
# server or the database reaches the terminal without control characters.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
tt_setup

fresh_db() {
	rm -f "$DB" "$DB-wal" "$DB-shm"
	"$(tt_test_runs)" --make-db "$DB"
	: >"$SRVLOG"
}
MSG400="unexpected HTTP 400 from $BASE_URL (server: Invalid request: message content rejected)"

# --- HTTP 400 on the head row: set aside, the queue goes on
scenario 400-run1
run "$CX5PROF" --db "$DB" mirror
is "$rc" 1 "400 on one record: exit 1 (as before)"
is "$err" "cx5prof: error: mirror: run 1 (outbox row 1) set aside as failed_permanent: $MSG400: fix the cause, then run 'cx5prof mirror --retry-failed'" \
	"400: the message names the record, the cause and how to resend"
is "$out" "sent 3, pending 0, failed 1" "400: the other records were sent"
is "$(outbox_state)" "1 run 1 failed_permanent 1
2 run 2 sent 1
3 txn 1 sent 1
4 run 3 sent 1" "400: row 1 failed_permanent, the rest sent"
is "$(sqlite3 "$DB" 'SELECT last_error FROM outbox WHERE id = 1')" "$MSG400" "400: the error is kept on the row"
run "$CX5PROF" --db "$DB" mirror --list
is "$(echo "$out" | head -n 1)" "1 run 1 failed_permanent attempts=1 reply=- error=$MSG400" "mirror --list shows the set-aside row"
run "$CX5PROF" --db "$DB" mirror --json
is "$rc/$(requests_total)" "0/4" "a later drain skips the set-aside row (no request)"
is "$out" '{
  "sent": 0,
  "pending": 0,
  "failed": 1,
  "error": null,
  "error_kind": null,
  "next_attempt_s": null
}' "mirror --json: the failed count"
printf '%s\n' "$out" >"$TT/m.json"
run /usr/bin/python3 "$TESTS_DIR/helpers/validate_json.py" "$TOP/schemas/history.schema.json" "$TT/m.json"
is "$out" "1 documents valid" "mirror --json with failed: valid against history.schema.json"
run "$CX5PROF" --db "$DB" mirror --now
is "$rc/$out/$(requests_total)" "0/sent 0, pending 0, failed 1/4" "--now does not resend set-aside rows"
scenario success
run "$CX5PROF" --db "$DB" mirror --retry-failed
is "$rc/$out" "0/sent 1, pending 0" "--retry-failed: the set-aside row is sent"
is "$(/usr/bin/python3 -c '
import json, sys
print(" ".join(sorted(e["record"] for e in map(json.loads, open(sys.argv[1])) if e["status"] == 200)))' "$SRVLOG")" \
	"run 1 run 2 run 3 txn 1" "each record acknowledged exactly once"

# --- errors of the key or the gateway never set a row aside
for s in 401 404 429-quota 500; do
	fresh_db
	sqlite3 "$DB" "UPDATE outbox SET attempts = 50"
	scenario "$s"
	run "$CX5PROF" --db "$DB" mirror --now
	is "$(outbox_count failed_permanent)/$(outbox_count pending)/$(requests_total)" "0/4/1" \
		"$s after 50 attempts: every row still pending, the drain stopped at the first"
done

# --- 200 without choices: set aside at the third such reply in a row
fresh_db
NC="error reading choices: check model_id 'test-model' (HTTP 200 reply has no choices[0].message.content)"
scenario no-choices
for k in 1 2; do
	run "$CX5PROF" --db "$DB" mirror
	is "$rc/$err" "65/cx5prof: error: mirror: $NC [$k of 3 replies in a row without choices]" \
		"no choices, reply $k: says how many in a row"
	is "$(outbox_state | head -n 2)" "1 run 1 pending $k
2 run 2 pending 0" "no choices, reply $k: still pending, the drain stopped"
	outbox_make_due
done
run "$CX5PROF" --db "$DB" mirror
is "$rc" 65 "no choices, third reply in a row: exit as for choices"
is "$(outbox_state | head -n 2)" "1 run 1 failed_permanent 3
2 run 2 pending 1" "no choices, third reply in a row: row 1 set aside, row 2 tried"
run "$CX5PROF" --db "$DB" mirror --retry-failed
is "$(outbox_state | head -n 1):$(sqlite3 "$DB" 'SELECT last_error FROM outbox WHERE id = 1')" \
	"1 run 1 pending 4:$NC [1 of 3 replies in a row without choices]" \
	"requeued by --retry-failed, a reply without choices counts from one again"

# --- other failures in between do not count: three 500s, a 401, then one
# reply without choices: the first of its kind, the row stays pending
fresh_db
for s in 500 500 500 401 no-choices; do
	scenario "$s"
	run "$CX5PROF" --db "$DB" mirror --now
done
is "$rc/$err" "65/cx5prof: error: mirror: $NC [1 of 3 replies in a row without choices]" \
	"500, 500, 500, 401, then no choices: the first reply without choices"
is "$(outbox_state | head -n 1)" "1 run 1 pending 5" "after 5 attempts of any kind: still pending, not set aside"
scenario no-choices
run "$CX5PROF" --db "$DB" mirror --now
scenario 500
run "$CX5PROF" --db "$DB" mirror --now
scenario no-choices
run "$CX5PROF" --db "$DB" mirror --now
is "$(outbox_state | head -n 1):$(sqlite3 "$DB" 'SELECT last_error FROM outbox WHERE id = 1')" \
	"1 run 1 pending 8:$NC [1 of 3 replies in a row without choices]" \
	"no choices, no choices, 500, no choices: a 500 between starts the count again"

# --- 503 with Retry-After
fresh_db
scenario 503-retry
run "$CX5PROF" --db "$DB" mirror
is "$rc/$err" "1/cx5prof: error: mirror: server error (HTTP 503) from $BASE_URL: will retry after 5 s (Retry-After) (server: overloaded)" \
	"503 with Retry-After: message"
is "$out" "sent 0, pending 4, next attempt in 5 s" "503 with Retry-After: next attempt after 5 s, not the 2 s backoff"

# --- claim expired while in flight: the other process acknowledged the row
fresh_db
scenario slow
"$CX5PROF" --db "$DB" mirror >"$TT/slow.out" 2>"$TT/slow.err" &
pid=$!
wait_until 60 eval '[ "$(requests_total)" -ge 1 ]'
# what a second cx5prof would have done after the lease expired
sqlite3 "$DB" "UPDATE outbox SET status = 'sent', attempts = 1, reply_id = 'other', last_error = NULL WHERE id = 1"
scenario success
wait "$pid"
is "$?" 0 "row acknowledged by another process meanwhile: exit 0"
is "$(cat "$TT/slow.out")/$(cat "$TT/slow.err")" "sent 3, pending 0/" "the drain went on, no database error"
is "$(sqlite3 "$DB" 'SELECT reply_id FROM outbox WHERE id = 1')" "other" "the other process's acknowledgement is kept"
is "$(outbox_count pending)" 0 "every row delivered"

# --- the key echoed across the 200-character cut
fresh_db
scenario 401-echo-late
run "$CX5PROF" --db "$DB" mirror
FP="sha256:$(printf '%s' "$KEY" | sha256sum | cut -c1-8)"
X190=$(printf 'x%.0s' $(seq 190))
is "$err" "cx5prof: error: mirror: key rejected (HTTP 401) by $BASE_URL: expired or revoked? stray whitespace or newline in the key file? (server: ${X190}<key> is n) [key $FP from key file $KEYFILE]: once the key is fixed, 'cx5prof mirror --now' retries at once" \
	"a key echoed at character 190: masked, no fragment left"
is "$(sqlite3 "$DB" "SELECT instr(last_error, '${KEY:0:8}') FROM outbox WHERE id = 1")" 0 "no piece of the key in last_error"

# --- a key of three '*', echoed: masked, and the masking ends
(umask 077 && printf '***\n' >"$KEYFILE")
scenario 401-echo
run timeout 60 "$CX5PROF" --db "$DB" mirror --now
is "$rc" 77 "key '***' echoed: exit 77 (no endless loop: timeout gives 124)"
is "$err" "cx5prof: error: mirror: key rejected (HTTP 401) by $BASE_URL: expired or revoked? stray whitespace or newline in the key file? (server: Incorrect API key provided: <key>) [key sha256:$(printf '***' | sha256sum | cut -c1-8) from key file $KEYFILE]: once the key is fixed, 'cx5prof mirror --now' retries at once" \
	"key '***' echoed: masked"
(umask 077 && printf '%s\n' "$KEY" >"$KEYFILE")

# --- control characters never reach the terminal
fresh_db
scenario escape
run "$CX5PROF" --db "$DB" analyze 1
is "$rc" 0 "analyze with escapes in the answer: exit 0"
is "$out" "run 1: bottleneck receiver
RECEIVER: ?[2J?]0;owned?drops?X???31m
line2	end" "analyze: control characters other than newline and tab shown as '?'"
run "$CX5PROF" --db "$DB" analyze 1 --json
is "$(printf '%s' "$out" | /usr/bin/python3 -c 'import json,sys; print(repr(json.load(sys.stdin)["answer"]))')" \
	"'RECEIVER: \\x1b[2J\\x1b]0;owned\\x07drops\\rX\\x7f\\x9b31m\\nline2\\tend'" "analyze --json: the answer unchanged (JSON escapes it)"
sqlite3 "$DB" "UPDATE artifacts SET content = 'netperf'||char(27)||'[2J -H'||char(13)||char(10)||'next'||char(9)||'tab' WHERE run = 1 AND name = 'command'"
run "$CX5PROF" --db "$DB" history show 1
echo "$out" | grep -A 2 -- '^--- command ' | tail -n 2 >"$TT/cmd"
is "$(cat "$TT/cmd")" "netperf?[2J -H?
next	tab" "history show: artifacts without control characters"
printf '%s' "$out" | grep -q "$(printf '\033')"
ok $((!$?)) "history show: no ESC byte on stdout"
sqlite3 "$DB" "UPDATE runs SET profile_name = 'lab'||char(27)||']0;x'||char(7) WHERE id = 1"
run "$CX5PROF" --db "$DB" history
echo "$out" | grep -q ' run 1 .* lab?\]0;x? '
ok $? "history: stored text shown without control characters"
run "$CX5PROF" --db "$DB" history --json
is "$(printf '%s' "$out" | /usr/bin/python3 -c 'import json,sys; print(repr([e["profile"] for e in json.load(sys.stdin)["history"] if e.get("type") == "run" and e["id"] == 1][0]))')" \
	"'lab\x1b]0;x\x07'" "history --json: the text unchanged (escaped by JSON)"
done_testing
