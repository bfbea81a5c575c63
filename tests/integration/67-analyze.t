#!/usr/bin/env bash
# 67-analyze.t: `cx5prof analyze RUN` asks the model (a real server on
# 127.0.0.1) whether the sender or the receiver limited the round, with the
# round's evidence; the answer is stored with the run (analysis.json) and
# shown by history show and export. Failures are reported like the
# mirror's, and nothing is stored. The outbox is drained opportunistically
# afterwards.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
tt_setup
# Run 1's loss ledger, as verify stores it (the artifact loss_ledger,
# ledger_render's text): analyze sends it with the other evidence.
LEDGER_LIMITED='limited by  receiver NIC: nic.rx_discards_phy +921,234 = 99% of the lost datagrams; spread the completion IRQs (irq.policy) or raise the rings (link.rings.rx)'
sqlite3 "$DB" "INSERT INTO artifacts VALUES (1, 'loss_ledger', 'ledger      where the lost datagrams went
  sent                          1,434,567  by the sending application
  receiver NIC                    921,234  nic.rx_discards_phy +921,234
  received                        512,345  by the receiving application
  unaccounted                         988  no counter explains them
$LEDGER_LIMITED
')"

run "$CX5PROF" --db "$DB" analyze 1
is "$rc" 0 "analyze 1: exit 0"
is "$out" "run 1: bottleneck receiver
RECEIVER: rx_discards_phy rose; the receiver dropped." "analyze: the answer, and the bottleneck it names"
req=$(head -n 1 "$SRVLOG")
is "$(echo "$req" | /usr/bin/python3 -c 'import json,sys; e=json.loads(sys.stdin.read()); print(e["path"], e["max_tokens"], e["user"], e["key_ok"])')" \
	"/v1/chat/completions 200 cx5-lab True" "analyze: one chat request, small max_tokens, under the task name"
for ev in 'mtu\":1500' 'rx_discards_phy: 921234' '98:     981234' 'netperf -H 198.18.0.2'; do
	echo "$req" | grep -qF "$ev"
	ok $? "analyze: the question carries the evidence ($ev)"
done
echo "$req" | grep -q 'SENDER or the RECEIVER'
ok $? "analyze: the question asks sender or receiver"
echo "$req" | grep -qF -- '--- loss_ledger ---'
ok $? "analyze: the question carries the loss ledger"
echo "$req" | grep -qF -- "$LEDGER_LIMITED"
ok $? "analyze: the question carries the ledger's limited by line"
is "$(sqlite3 "$DB" "SELECT content FROM artifacts WHERE run = 1 AND name = 'analysis.json'" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["bottleneck"], d["reply_id"], d["model"], d["usage"]["total_tokens"])')" \
	"receiver chatcmpl-1 test-model 51" "analyze: the answer is stored with the run"
is "$(outbox_count pending)/$(requests_total)" "0/5" "analyze: pending records drained opportunistically afterwards"

run "$CX5PROF" --db "$DB" analyze 1 --json
is "$rc" 0 "analyze --json: exit 0"
printf '%s\n' "$out" >"$TT/analyze.json"
run /usr/bin/python3 "$TESTS_DIR/helpers/validate_json.py" "$TOP/schemas/history.schema.json" "$TT/analyze.json"
is "$out" "1 documents valid" "analyze --json: valid against history.schema.json"
is "$(sqlite3 "$DB" "SELECT COUNT(*) FROM artifacts WHERE run = 1 AND name = 'analysis.json'")" 1 \
	"analyze again: the stored answer is replaced, not duplicated"

run "$CX5PROF" --db "$DB" history show 1
echo "$out" | grep -q '^--- analysis.json ([0-9]* bytes) ---$'
ok $? "history show: includes the analysis"

scenario 401
run "$CX5PROF" --db "$DB" analyze 2
is "$rc" 77 "analyze with a rejected key: exit 77"
FP="sha256:$(printf '%s' "$KEY" | sha256sum | cut -c1-8)"
is "$err" "cx5prof: error: analyze run 2: key rejected (HTTP 401) by $BASE_URL: expired or revoked? stray whitespace or newline in the key file? (server: Invalid token) [key $FP from key file $KEYFILE]" \
	"analyze with a rejected key: message"
is "$(sqlite3 "$DB" "SELECT COUNT(*) FROM artifacts WHERE run = 2 AND name = 'analysis.json'")" 0 \
	"analyze failed: nothing stored"
scenario no-choices
run "$CX5PROF" --db "$DB" analyze 2
is "$rc/$err" "65/cx5prof: error: analyze run 2: error reading choices: check model_id 'test-model' (HTTP 200 reply has no choices[0].message.content)" \
	"analyze, 200 without choices: message"
run "$CX5PROF" --db "$DB" analyze 9
is "$rc/$err" "66/cx5prof: error: run 9 not found in $DB: see 'cx5prof history'" "analyze a missing run"

# An answer that does not start with the word asked for is still read
# (it printed "bottleneck -", JSON null, for "The bottleneck is the receiver.").
while IFS='|' read -r answer word; do
	scenario "answer:$answer"
	run "$CX5PROF" --db "$DB" analyze 2 --json
	is "$rc:$(printf '%s' "$out" | jq -c .bottleneck)" "0:$word" "analyze: \"$answer\" -> $word"
done <<'ANSWERS'
The bottleneck is the receiver.|"receiver"
**Sender**: the sender CPU is at 100%.|"sender"
Bottleneck: RECEIVER (rx_discards_phy rose).|"receiver"
The receiver dropped datagrams: rx_out_of_buffer rose on it.|"receiver"
The receiver is the bottleneck, not the sender.|"receiver"
It is hard to say whether the sender or the receiver limits it.|null
Unclear: the counters did not move.|"unclear"
ANSWERS
scenario success
done_testing
