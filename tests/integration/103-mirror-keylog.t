#!/usr/bin/env bash
# 103-mirror-keylog.t: SSLKEYLOGFILE never receives the TLS secrets of a
# request that carries the key.
#
# libcurl writes every TLS session's secrets to the file SSLKEYLOGFILE
# names (world-readable), which decrypts a capture of the request and its
# bearer key. cx5prof unsets it before libcurl starts. A real HTTPS server
# on 127.0.0.1 (tests/helpers/taotoken_server.py --tls-cert) with a
# certificate made here, trusted through CURL_CA_BUNDLE: verification on.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
need_tool openssl
tt_setup

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
	-keyout "$TT/tls.key" -out "$TT/tls.pem" 2>/dev/null
ok $? "a certificate for 127.0.0.1"
/usr/bin/python3 "$TESTS_DIR/helpers/taotoken_server.py" --port-file "$TT/tlsport" --scenario-file "$SCENARIO" \
	--log "$TT/tls.jsonl" --key-file "$KEYFILE" --tls-cert "$TT/tls.pem" --tls-key "$TT/tls.key" &
TT_RECORDER_PID=$! # stopped by tt_cleanup
wait_until 60 test -s "$TT/tlsport"
TLSPORT=$(cat "$TT/tlsport")
tt_write_config "base_url: https://127.0.0.1:$TLSPORT" "api_key_file: $KEYFILE" "model_id: test-model"

run env CURL_CA_BUNDLE="$TT/tls.pem" SSLKEYLOGFILE="$TT/keylog" "$CX5PROF" --db "$DB" mirror --now
is "$rc/$out" "0/sent 4, pending 0" "mirror over HTTPS with SSLKEYLOGFILE set: sent"
is "$(wc -l <"$TT/tls.jsonl")" 4 "the HTTPS server answered the 4 records"
[ ! -e "$TT/keylog" ]
ok $? "SSLKEYLOGFILE: no TLS secret written (the file was not created)"

# analyze takes the same path.
printf 'x\n' >"$TT/keylog2" && chmod 0600 "$TT/keylog2"
run env CURL_CA_BUNDLE="$TT/tls.pem" SSLKEYLOGFILE="$TT/keylog2" "$CX5PROF" --db "$DB" analyze 3
is "$rc $(cat "$TT/keylog2")" "0 x" "analyze with SSLKEYLOGFILE set: nothing appended to the file"
done_testing
