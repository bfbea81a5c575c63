#!/usr/bin/env bash
# 96-mirror-tls.t: the mirror always verifies TLS. A real HTTPS server on
# 127.0.0.1 (tests/helpers/taotoken_server.py --tls-cert) with a
# self-signed certificate made here: refused (nothing sent, the rows stay
# pending, the message names the cause and the remedy) unless its
# certificate is given as the CA bundle, through CURL_CA_BUNDLE or
# SSL_CERT_FILE; then every row is sent. A certificate for another name is
# refused even with its CA given (the host name is checked too), and a CA
# bundle that cannot be read is named. Nothing turns verification off: the
# mirror file has no such key.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
need_tool openssl
tt_setup
unset CURL_CA_BUNDLE SSL_CERT_FILE

# selfsigned NAME SAN: a self-signed certificate (its own CA) and its key
selfsigned() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
		-keyout "$TT/$1.key" -out "$TT/$1.pem" -subj "/CN=cx5t-$1" -addext "subjectAltName=$2" 2>/dev/null
}
selfsigned ip IP:127.0.0.1 && selfsigned other DNS:cx5t.invalid
ok $? "two self-signed certificates: for 127.0.0.1, and for another name"

TLS_PIDS=
tls_server() { # tls_server NAME: an HTTPS server with NAME's certificate; its port in $TLS_PORT
	rm -f "$TT/$1.port"
	/usr/bin/python3 "$TESTS_DIR/helpers/taotoken_server.py" --port-file "$TT/$1.port" \
		--scenario-file "$SCENARIO" --log "$SRVLOG" --key-file "$KEYFILE" \
		--tls-cert "$TT/$1.pem" --tls-key "$TT/$1.key" &
	TLS_PIDS="$TLS_PIDS $!"
	wait_until 60 test -s "$TT/$1.port"
	TLS_PORT=$(cat "$TT/$1.port")
}
trap 'for p in $TLS_PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; tt_cleanup' EXIT
tls_server ip
tt_write_config "base_url: https://127.0.0.1:$TLS_PORT" "api_key_file: $KEYFILE" "model_id: test-model" "task: cx5-lab"
pending=$(outbox_count pending)

refused="TLS certificate verification failed: for a private CA set CURL_CA_BUNDLE or SSL_CERT_FILE"
run "$CX5PROF" --db "$DB" mirror --now
is "$rc" 1 "self-signed, no CA given: exit 1"
case $err in
*"$refused"*) ok 0 "self-signed, no CA given: refused, with the remedy" ;;
*) ok 1 "self-signed, no CA given: refused, with the remedy"; diag "$err" ;;
esac
is "$(requests_total)/$(outbox_count pending)" "0/$pending" "self-signed, no CA given: no request reached the server, every row still pending"

run env CURL_CA_BUNDLE="$TT/other.pem" "$CX5PROF" --db "$DB" mirror --now
is "$rc" 1 "another CA given: exit 1"
case $err in
*"$refused"*) ok 0 "another CA given: refused, with the remedy" ;;
*) ok 1 "another CA given: refused, with the remedy"; diag "$err" ;;
esac
is "$(requests_total)/$(outbox_count pending)" "0/$pending" "another CA given: nothing sent"

run env CURL_CA_BUNDLE="$TT/no-such-ca.pem" "$CX5PROF" --db "$DB" mirror --now
is "$rc" 1 "a CA bundle that does not exist: exit 1"
case $err in
*"cannot read the CA bundle named by CURL_CA_BUNDLE/SSL_CERT_FILE"*) ok 0 "a CA bundle that does not exist: named" ;;
*) ok 1 "a CA bundle that does not exist: named"; diag "$err" ;;
esac

run env CURL_CA_BUNDLE="$TT/ip.pem" "$CX5PROF" --db "$DB" mirror --now
is "$rc/$out" "0/sent $pending, pending 0" "CURL_CA_BUNDLE names the certificate: every row sent"
is "$(requests_total)" "$pending" "CURL_CA_BUNDLE: the server got each row once"

# SSL_CERT_FILE, on a fresh history
"$(tt_test_runs)" --make-db "$TT/h2.db" >/dev/null
: >"$SRVLOG"
run env SSL_CERT_FILE="$TT/ip.pem" "$CX5PROF" --db "$TT/h2.db" mirror --now
is "$rc/$out" "0/sent $pending, pending 0" "SSL_CERT_FILE names the certificate: every row sent"

# A certificate for another name, its CA given: the host name is checked.
tls_server other
"$(tt_test_runs)" --make-db "$TT/h3.db" >/dev/null
: >"$SRVLOG"
tt_write_config "base_url: https://127.0.0.1:$TLS_PORT" "api_key_file: $KEYFILE" "model_id: test-model" "task: cx5-lab"
run env CURL_CA_BUNDLE="$TT/other.pem" "$CX5PROF" --db "$TT/h3.db" mirror --now
is "$rc" 1 "a certificate for cx5t.invalid at 127.0.0.1, its CA given: exit 1"
case $err in
*"$refused"*) ok 0 "the name does not match: refused, with the remedy" ;;
*) ok 1 "the name does not match: refused, with the remedy"; diag "$err" ;;
esac
is "$(requests_total)" 0 "the name does not match: nothing sent"

# Nothing in the mirror file turns verification off.
for k in "insecure: true" "verify: false" "tls_verify: false"; do
	tt_write_config "base_url: https://127.0.0.1:$TLS_PORT" "api_key_file: $KEYFILE" "model_id: test-model" "$k"
	run "$CX5PROF" --db "$TT/h3.db" mirror --now
	is "$rc" 65 "mirror file with '$k': refused (exit 65)"
done
is "$(requests_total)" 0 "nothing was ever sent to the server with the wrong name"

done_testing
