#!/usr/bin/env bash
# 66-secrets.t: the API key never leaves the Authorization header. Every
# verb of the history and the mirror runs, successes and failures, with
# debug output on; then the database files, every export and every byte
# printed on stdout and stderr are searched for the key: it must not be
# found. A gateway that echoes the key in its error is masked too.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
tt_setup
CAP=$TT/captured
mkdir "$CAP"
n=0
cap() { n=$((n + 1)); "$@" >"$CAP/$n.out" 2>"$CAP/$n.err"; }

CLOSED=$(free_port)
scenario 401
cap "$CX5PROF" -v -v --db "$DB" mirror
scenario 401-echo
cap "$CX5PROF" -v -v --db "$DB" mirror --now
grep -q 'Incorrect API key provided: <key>' "$CAP/$n.err"
ok $? "a key echoed by the gateway is masked in the message"
cap "$CX5PROF" -v -v --db "$DB" analyze 2
scenario 500
cap env http_proxy="http://127.0.0.1:$CLOSED" "$CX5PROF" -v -v --db "$DB" mirror --now
cap "$CX5PROF" -v -v --db "$DB" mirror --now --json
scenario success
cap "$CX5PROF" -v -v --db "$DB" mirror --now
is "$(outbox_count pending)" 0 "the records reached the server in the end"
cap "$CX5PROF" -v -v --db "$DB" analyze 3
cap "$CX5PROF" -v -v --db "$DB" analyze 3 --json
cap "$CX5PROF" -v -v --db "$DB" history --json
cap "$CX5PROF" -v -v --db "$DB" history show 3 --json
cap "$CX5PROF" -v -v --db "$DB" history show 3
cap "$CX5PROF" -v -v --db "$DB" mirror --list --json
cap "$CX5PROF" -v -v --db "$DB" compare 1 2 3 --json
cap "$CX5PROF" -v -v --db "$DB" export 3 --dir "$TT/export3"
cap "$CX5PROF" -v -v --db "$DB" export 2 --dir "$TT/export2"
(umask 077 && printf '%s\n\n' "$KEY" >"$KEYFILE")
cap "$CX5PROF" -v -v --db "$DB" mirror --now
chmod 0644 "$KEYFILE"
cap "$CX5PROF" -v -v --db "$DB" mirror --now

grep -q debug "$CAP"/*.err
ok $? "debug output was on"
[ -f "$TT/export3/artifacts/analysis.json" ]
ok $? "the analysis is stored and exported"
sqlite3 "$DB" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
for f in "$DB" "$DB-wal" "$DB-shm"; do
	[ -e "$f" ] || continue
	grep -aqF "$KEY" "$f"
	ok $((!$?)) "key not in $(basename "$f")"
done
grep -aqF "$KEY" "$TT/requests.jsonl"
ok $((!$?)) "key not in any request body (only in the Authorization header)"
grep -rqF "$KEY" "$TT/export3" "$TT/export2"
ok $((!$?)) "key not in the exports"
grep -qF "$KEY" "$CAP"/*.out
ok $((!$?)) "key not on stdout, --json included ($n commands)"
grep -qF "$KEY" "$CAP"/*.err
ok $((!$?)) "key not on stderr, debug included"
grep -qF "[key sha256:$(printf '%s' "$KEY" | sha256sum | cut -c1-8) from key file $KEYFILE]" "$CAP/1.err"
ok $? "a rejected key is shown only as its fingerprint (a digest, no character of the key)"
# The man page describes that fingerprint as docs/history.md does (it said "first 4 characters").
is "$(sed -n '/messages name it only/,/holds no character of the key/p' "$TOP/contrib/man/cx5prof.8" | tr '\n' ' ')" \
	"it appears nowhere but in the Authorization header; messages name it only by its fingerprint, .B sha256: and the first 8 hex digits of the key's SHA-256 digest (e.g. .BR sha256:1a2b3c4d ), which holds no character of the key. TLS verification is " \
	"man page: the fingerprint is sha256: and 8 hex digits of the digest, no character of the key"
grep -qF "${KEY:0:4}" "$CAP"/*.err "$CAP"/*.out
ok $((!$?)) "not even the key's first characters are printed"
done_testing
