#!/usr/bin/env bash
# 63-mirror-errors.t: every failure the gateway can give, against a real
# server on 127.0.0.1 scripted per scenario. For each: the exact message
# (operators search for it), the exit code, the outbox state (nothing lost:
# every row still pending, the error stored on the row that met it), the
# retry schedule (backoff, Retry-After, no automatic retry after
# insufficient_quota); then the server recovers and everything drains with
# no loss and no duplicate.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
tt_setup

FP="sha256:$(printf '%s' "$KEY" | sha256sum | cut -c1-8)"
ALL_PENDING="1 run 1 pending 1
2 run 2 pending 0
3 txn 1 pending 0
4 run 3 pending 0"

fresh_db() {
	rm -f "$DB" "$DB-wal" "$DB-shm"
	"$(tt_test_runs)" --make-db "$DB"
	: >"$SRVLOG"
}

# recover NAME: the server answers again; everything drains exactly once.
recover() {
	scenario success
	run "$CX5PROF" --db "$DB" mirror --now
	is "$rc/$out" "0/sent 4, pending 0" "$1: after recovery everything drains"
	is "$(acked_records | tr '\n' ' ')" "run 1 run 2 run 3 txn 1 " "$1: each record acknowledged exactly once"
}

# fails NAME EXIT MESSAGE SUMMARY [mirror options]: one drain meets the error.
# schedule_ok NAME SECONDS: the first row's next attempt is SECONDS after
# the failing drain (between its start and its end: timing-proof).
schedule_ok() {
	local next lo hi
	next=$(sqlite3 "$DB" 'SELECT next_attempt_usec FROM outbox WHERE id = 1')
	lo=$((T_BEFORE + $2 * 1000000))
	hi=$((T_AFTER + $2 * 1000000))
	[ "$next" -ge "$lo" ] && [ "$next" -le "$hi" ]
	ok $? "$1: next attempt $2 s after the failure"
}

# not_due NAME: with the head row scheduled a minute ahead, a drain
# without --now sends nothing (the schedule holds back the whole queue).
not_due() {
	local before
	before=$(requests_total)
	sqlite3 "$DB" "UPDATE outbox SET next_attempt_usec = $(date +%s%6N) + 60000000 WHERE id = 1"
	run "$CX5PROF" --db "$DB" mirror
	is "$(($(requests_total) - before))/$(echo "$out" | sed 's/ in [0-9]* s$/ in N s/')" \
		"0/sent 0, pending 4, next attempt in N s" "$1: nothing is sent before the next attempt is due"
}

fails() {
	local name=$1 code=$2 msg=$3 summary=$4
	shift 4
	T_BEFORE=$(date +%s%6N)
	run "$CX5PROF" --db "$DB" mirror "$@"
	T_AFTER=$(date +%s%6N)
	is "$rc" "$code" "$name: exit code $code"
	is "$err" "cx5prof: error: mirror: $msg" "$name: message"
	is "$out" "$summary" "$name: summary"
	is "$(outbox_state)" "$ALL_PENDING" "$name: nothing lost, the drain stopped at the first failure"
	is "$(sqlite3 "$DB" 'SELECT last_error FROM outbox WHERE id = 1')" "$msg" "$name: the error is kept on the row"
}

for s in 401 403; do
	fresh_db
	scenario "$s"
	case $s in 401) srv="Invalid token" ;; 403) srv="Forbidden" ;; esac
	fails "$s" 77 "key rejected (HTTP $s) by $BASE_URL: expired or revoked? stray whitespace or newline in the key file? (server: $srv) [key $FP from key file $KEYFILE]: once the key is fixed, 'cx5prof mirror --now' retries at once" \
		"sent 0, pending 4, next attempt in 3600 s"
	recover "$s"
done

fresh_db
scenario 404
fails 404 66 "HTTP 404 from $BASE_URL/v1/chat/completions: check base_url (it ends before /v1, e.g. https://taotoken.net/api) and model_id 'test-model' (server: The model does not exist)" \
	"sent 0, pending 4, next attempt in 3600 s"
recover 404

fresh_db
scenario 500
fails 500 1 "server error (HTTP 500) from $BASE_URL: will retry (server: upstream failed)" \
	"sent 0, pending 4, next attempt in 2 s"
schedule_ok 500 2
not_due 500
recover 500

fresh_db
scenario no-choices
fails "200 without choices" 65 "error reading choices: check model_id 'test-model' (HTTP 200 reply has no choices[0].message.content) [1 of 3 replies in a row without choices]" \
	"sent 0, pending 4, next attempt in 3600 s"
recover "200 without choices"

fresh_db
scenario garbage
fails "garbage body" 65 "error reading choices: check model_id 'test-model' (HTTP 200 reply is not a JSON object) [1 of 3 replies in a row without choices]" \
	"sent 0, pending 4, next attempt in 3600 s"
recover "garbage body"

fresh_db
scenario slow
fails "slow reply" 1 "no reply from $BASE_URL/v1/chat/completions within 1 s (timeout): will retry" \
	"sent 0, pending 4, next attempt in 2 s" --timeout 1
recover "slow reply"

fresh_db
scenario 429-quota
fails "429 insufficient_quota" 1 "quota exhausted (HTTP 429 insufficient_quota) for this key: not retrying; add credit or use another key, then run 'cx5prof mirror --now' (server: You exceeded your current quota)" \
	"sent 0, pending 4, next attempt only with 'cx5prof mirror --now'"
scenario success
run "$CX5PROF" --db "$DB" mirror
is "$(requests_total)/$out" "1/sent 0, pending 4, next attempt only with 'cx5prof mirror --now'" \
	"429 insufficient_quota: never retried automatically"
recover "429 insufficient_quota"

# Retry-After (3 s) wins over the first backoff step (2 s); when it has
# passed, a plain drain (no --now) sends.
fresh_db
scenario 429-retry
fails "429 rate limit" 1 "rate limited (HTTP 429): will retry after 3 s (Retry-After) (server: Rate limit reached)" \
	"sent 0, pending 4, next attempt in 3 s"
schedule_ok "429 rate limit" 3
not_due "429 rate limit"
scenario success
sqlite3 "$DB" "UPDATE outbox SET next_attempt_usec = $(date +%s%6N) - 1 WHERE id = 1"
run "$CX5PROF" --db "$DB" mirror
is "$rc/$out" "0/sent 4, pending 0" "429 rate limit: sent once the retry time has passed, without --now"
is "$(acked_records | tr '\n' ' ')" "run 1 run 2 run 3 txn 1 " "429 rate limit: each record acknowledged exactly once"
is "$(sqlite3 "$DB" 'SELECT attempts FROM outbox WHERE id = 1')" 2 "429 rate limit: two attempts recorded on the first row"
done_testing
