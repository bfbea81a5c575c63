#!/usr/bin/env bash
# 64-mirror-proxy.t: proxies. A loopback base_url (plain http is allowed
# only there) never goes through a proxy: with every proxy variable
# pointing at a local listener that records what it receives, the
# listener gets nothing (not the Authorization header in clear text) and
# the records reach the local server. For an https base_url the proxy
# variables apply: a failing proxy is reported naming the variable and its
# value (credentials masked), the rows stay pending, no_proxy is honoured,
# and a proxy only ever sees CONNECT (the key travels inside TLS).
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
tt_setup
tt_start_recorder

# a port nobody listens on: bind, read the number, close
CLOSED=$(free_port)
PROXY="http://127.0.0.1:$RECPORT"

# loopback: no proxy, whatever the environment says
run env http_proxy="$PROXY" https_proxy="$PROXY" all_proxy="$PROXY" ALL_PROXY="$PROXY" \
	"$CX5PROF" --db "$DB" mirror
is "$rc/$out" "0/sent 4, pending 0" "loopback base_url with every proxy variable set: sent directly"
is "$err" "" "loopback base_url: nothing on stderr"
is "$(wc -c <"$RECLOG" | tr -d ' ')" 0 "the proxy received nothing (no request, no Authorization header)"
is "$(acked_records | tr '\n' ' ')" "run 1 run 2 run 3 txn 1 " "the local server received each record once, with the right key"
is "$(/usr/bin/python3 -c '
import json, sys
print(sorted({json.loads(l)["key_ok"] for l in open(sys.argv[1])}))' "$SRVLOG")" "[True]" "the local server saw the Bearer key"
"$(tt_test_runs)" --make-db "$DB"
run env http_proxy="$PROXY" "$CX5PROF" --db "$DB" analyze 1
is "$rc/$(wc -c <"$RECLOG" | tr -d ' ')" "0/0" "analyze: loopback not proxied either"
: >"$SRVLOG"

# https: the proxy variables apply
tt_write_config "base_url: https://taotoken.invalid/api" "api_key_file: $KEYFILE" "model_id: test-model"
sqlite3 "$DB" "UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_usec = 0"
run env https_proxy="http://127.0.0.1:$CLOSED" "$CX5PROF" --db "$DB" mirror --now
is "$rc" 1 "closed proxy: exit 1"
is "$err" "cx5prof: error: mirror: local proxy failed: check https_proxy/http_proxy/no_proxy (https_proxy=http://127.0.0.1:$CLOSED): Couldn't connect to server (curl 7)" \
	"closed proxy: message names the variable and its value"
is "$(echo "$out" | sed 's/pending [0-9]*/pending N/')" "sent 0, pending N, next attempt in 2 s" "closed proxy: summary (retried with backoff)"
is "$(outbox_count sent)/$(requests_total)" "0/0" "closed proxy: nothing sent, nothing reached the server"

run env https_proxy="http://user:s3cret@127.0.0.1:$CLOSED" "$CX5PROF" --db "$DB" mirror --now
is "$err" "cx5prof: error: mirror: local proxy failed: check https_proxy/http_proxy/no_proxy (https_proxy=http://***@127.0.0.1:$CLOSED): Couldn't connect to server (curl 7)" \
	"proxy credentials are masked in the message"

run env https_proxy="http://proxy.invalid:3128" "$CX5PROF" --db "$DB" mirror --now
is "$err" "cx5prof: error: mirror: local proxy failed: check https_proxy/http_proxy/no_proxy (https_proxy=http://proxy.invalid:3128): Couldn't resolve proxy name (curl 5)" \
	"unresolvable proxy (curl 5): same advice"

run env https_proxy="$PROXY" "$CX5PROF" --db "$DB" mirror --now
is "$rc" 1 "proxy refusing CONNECT: exit 1"
is "$err" "cx5prof: error: mirror: local proxy failed: check https_proxy/http_proxy/no_proxy (https_proxy=$PROXY): Failure when receiving data from the peer (curl 56) [CONNECT answered 502]" \
	"proxy refusing CONNECT: message with its answer"
grep -q '^CONNECT taotoken.invalid:443 HTTP/1.1' "$RECLOG"
ok $? "through a proxy, https only asks for a CONNECT tunnel"
grep -qiF "authorization" "$RECLOG"
ok $((!$?)) "the proxy never sees the Authorization header"
grep -qF "$KEY" "$RECLOG"
ok $((!$?)) "the proxy never sees the key"
done_testing
