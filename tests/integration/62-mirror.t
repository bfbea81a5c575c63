#!/usr/bin/env bash
# 62-mirror.t: `cx5prof mirror` against a real OpenAI-compatible server on
# 127.0.0.1: every pending record is sent once, under the task name, with
# a small max_tokens and the Bearer key; the replies are stored; a second
# drain sends nothing; records added later are sent, and only they.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
tt_setup

is "$(outbox_state)" "1 run 1 pending 0
2 run 2 pending 0
3 txn 1 pending 0
4 run 3 pending 0" "before: every run and the transaction queued in the outbox"

run "$CX5PROF" --db "$DB" mirror
is "$rc" 0 "mirror: exit 0"
is "$out" "sent 4, pending 0" "mirror: summary"
is "$err" "" "mirror: nothing on stderr"
is "$(outbox_state)" "1 run 1 sent 1
2 run 2 sent 1
3 txn 1 sent 1
4 run 3 sent 1" "after: every row sent, one attempt each"
is "$(acked_records)" "run 1
run 2
run 3
txn 1" "server: each record acknowledged exactly once"
is "$(requests_total)" 4 "server: four requests in all"
is "$(sqlite3 "$DB" "SELECT reply_id||' '||reply_content||' '||reply_usage FROM outbox WHERE id = 1")" \
	'chatcmpl-1 OK {"prompt_tokens":50,"completion_tokens":1,"total_tokens":51}' "reply id, content and usage stored"
is "$(/usr/bin/python3 -c '
import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    print(e["path"], e["key_ok"], e["model"], e["user"], e["max_tokens"])' "$SRVLOG" | sort -u)" \
	"/v1/chat/completions True test-model cx5-lab 16" "requests: chat path, Bearer key, model_id, task as user, max_tokens 16"
is "$(head -n 1 "$SRVLOG" | /usr/bin/python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["system"])')" \
	'cx5prof history record for task "cx5-lab". Note: rack 12. Store it; reply with the single word OK.' \
	"the record is sent under the task name, with the note"
head -n 1 "$SRVLOG" | grep -q '\\"command\\":\\"netperf -H 198.18.0.2 -t UDP_STREAM'
ok $? "the record carries the run's command line"

run "$CX5PROF" --db "$DB" mirror
is "$out" "sent 0, pending 0" "second drain: nothing to send"
is "$(requests_total)" 4 "second drain: no request at all"

# three more rounds and one more transaction
"$(tt_test_runs)" --make-db "$DB"
run "$CX5PROF" --db "$DB" mirror --json
is "$rc" 0 "mirror after new records: exit 0"
is "$out" '{
  "sent": 4,
  "pending": 0,
  "failed": 0,
  "error": null,
  "error_kind": null,
  "next_attempt_s": null
}' "mirror --json: summary"
is "$(acked_records | tr '\n' ' ')" "run 1 run 2 run 3 run 4 run 5 run 6 txn 1 txn 2 " \
	"server: old records not resent, new ones sent once"

run "$CX5PROF" --db "$DB" mirror --list --json
printf '%s\n' "$out" >"$TT/list.json"
run /usr/bin/python3 "$TESTS_DIR/helpers/validate_json.py" "$TOP/schemas/history.schema.json" "$TT/list.json"
is "$out" "1 documents valid" "mirror --list --json: valid against history.schema.json"
run "$CX5PROF" --db "$DB" mirror --list
is "$(echo "$out" | head -n 2)" "1 run 1 sent attempts=1 reply=chatcmpl-1 error=-
2 run 2 sent attempts=1 reply=chatcmpl-2 error=-" "mirror --list: the outbox for people"
run "$CX5PROF" --db "$DB" history show 1
echo "$out" | grep -q '^mirror: sent, 1 attempt(s), sent 20[0-9-]* [0-9:]*, reply chatcmpl-1$'
ok $? "history show: the run's mirror state"
done_testing
