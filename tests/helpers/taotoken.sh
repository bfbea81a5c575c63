# taotoken.sh: shared setup for the history and mirror tests (60-69) and a
# gateway for the lab tests that mirror (tt_gateway: 56, 223),
# sourced after lib.sh.
#
# tt_setup: a private temp dir ($TT), a history database with the seed's
# three rounds ($DB, made by `test_runs --make-db`, see tests/unit/test_runs.c),
# a key file ($KEYFILE, mode 0600, holding $KEY), a real HTTP server on
# 127.0.0.1 (tests/helpers/taotoken_server.py) and a mirror file
# ($CX5PROF_MIRROR_CONFIG) pointing at it. Everything goes in the EXIT trap.

TT_SERVER_PID=
TT_RECORDER_PID=
tt_cleanup() {
	for pid in $TT_SERVER_PID $TT_RECORDER_PID; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	[ -n "${TT:-}" ] && rm -rf "$TT"
}

# The unit-test binary that doubles as the fixture maker, next to the
# cx5prof under test (make asan builds both under build/asan).
tt_test_runs() {
	local d
	d=$(dirname "$CX5PROF")
	for c in "$d/tests/unit/test_runs" "$d/build/tests/unit/test_runs" "$TOP/build/tests/unit/test_runs"; do
		if [ -x "$c" ]; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

tt_setup() {
	local runs
	TT=$(mktemp -d /tmp/cx5t-mirror.XXXXXX)
	trap tt_cleanup EXIT
	export TZ=UTC
	unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
	DB=$TT/history.db
	runs=$(tt_test_runs) || skip_all "build/tests/unit/test_runs missing: run 'make units' first"
	"$runs" --make-db "$DB" || exit 1
	# Random hex without the letter d: the masking rule (any piece of 4 or
	# more of the key's letters and digits, separators removed) rightly
	# also hides a letter of the gateway's own text that continues the key,
	# and "...provided: <piece>" would then lose its d whenever the piece
	# is preceded by a d in the key, so exact expectations would be random.
	KEY="sk-cx5test-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n' | tr d 0)"
	KEYFILE=$TT/taotoken.key
	(umask 077 && printf '%s\n' "$KEY" >"$KEYFILE")
	SCENARIO=$TT/scenario
	SRVLOG=$TT/requests.jsonl
	echo success >"$SCENARIO"
	: >"$SRVLOG"
	/usr/bin/python3 "$TESTS_DIR/helpers/taotoken_server.py" --port-file "$TT/port" \
		--scenario-file "$SCENARIO" --log "$SRVLOG" --key-file "$KEYFILE" &
	TT_SERVER_PID=$!
	wait_until 60 test -s "$TT/port" # python starts slowly on a busy machine
	PORT=$(cat "$TT/port" 2>/dev/null)
	[ -n "$PORT" ] || {
		echo "Bail out! taotoken_server.py did not start"
		exit 1
	}
	BASE_URL="http://127.0.0.1:$PORT"
	export CX5PROF_MIRROR_CONFIG=$TT/mirror.yaml
	tt_write_config "base_url: $BASE_URL" "api_key_file: $KEYFILE" "model_id: test-model" \
		"task: cx5-lab" "note: rack 12"
}

# tt_gateway DIR NAME: for a test with its own lab and trap (verify-lib.sh):
# a TaoToken gateway on 127.0.0.1 (taotoken_server.py, scenario success)
# with key file DIR/tt.key (a key naming NAME), its requests logged to
# DIR/tt.log, its PID added to V_PIDS (stopped by v_cleanup), and the
# mirror file DIR/mirror.yaml pointing at it.
tt_gateway() {
	(umask 077 && echo "sk-cx5test-$2-$$" >"$1/tt.key")
	echo success >"$1/tt.scenario"
	: >"$1/tt.log"
	/usr/bin/python3 "$TESTS_DIR/helpers/taotoken_server.py" --port-file "$1/tt.port" \
		--scenario-file "$1/tt.scenario" --log "$1/tt.log" --key-file "$1/tt.key" &
	V_PIDS="$V_PIDS $!"
	wait_until 60 test -s "$1/tt.port"
	printf 'taotoken:\n  base_url: http://127.0.0.1:%s\n  api_key_file: %s\n  model_id: test-model\n  task: cx5-lab\n' \
		"$(cat "$1/tt.port")" "$1/tt.key" >"$1/mirror.yaml"
}

# tt_write_config LINE...: the mirror file with these taotoken keys.
tt_write_config() {
	{
		echo "taotoken:"
		for l in "$@"; do echo "  $l"; done
	} >"$CX5PROF_MIRROR_CONFIG"
}

scenario() { echo "$1" >"$SCENARIO"; }

# One line per outbox row: "ID KIND SOURCE STATUS ATTEMPTS".
outbox_state() {
	sqlite3 "$DB" "SELECT id||' '||source_kind||' '||source_id||' '||status||' '||attempts FROM outbox ORDER BY id"
}

# Rows still pending / rows sent.
outbox_count() { sqlite3 "$DB" "SELECT COUNT(*) FROM outbox WHERE status = '$1'"; }

# The requests the server answered with 200 + choices, per record, sorted:
# exactly-once delivery means every record appears once here.
acked_records() {
	/usr/bin/python3 -c '
import json, sys
seen = []
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["status"] == 200 and e["scenario"] in ("success",):
        seen.append(e["record"])
print("\n".join(sorted(seen)))
' "$SRVLOG"
}

requests_total() { wc -l <"$SRVLOG" | tr -d ' '; }

# Make every pending row due now (instead of sleeping through the backoff).
outbox_make_due() { sqlite3 "$DB" "UPDATE outbox SET next_attempt_usec = 0 WHERE status = 'pending'"; }

# tt_start_recorder: a broken proxy on 127.0.0.1 that records every byte
# it receives into $RECLOG (tests/helpers/record_listener.py); its port in
# $RECPORT.
tt_start_recorder() {
	RECLOG=$TT/proxy-received
	/usr/bin/python3 "$TESTS_DIR/helpers/record_listener.py" --port-file "$TT/recport" --log "$RECLOG" &
	TT_RECORDER_PID=$!
	wait_until 60 test -s "$TT/recport"
	RECPORT=$(cat "$TT/recport" 2>/dev/null)
	[ -n "$RECPORT" ] || {
		echo "Bail out! record_listener.py did not start"
		exit 1
	}
}
