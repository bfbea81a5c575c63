#!/usr/bin/env bash
# 64-mirror-proxy.t: a proxy variable pointing at a closed local port. The
# message names the variable and its value (credentials masked), the rows
# stay pending, no_proxy is honoured, and once the proxy variable is
# fixed everything drains exactly once.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
tt_setup

# a port nobody listens on: bind, read the number, close
CLOSED=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')

run env http_proxy="http://127.0.0.1:$CLOSED" "$CX5PROF" --db "$DB" mirror
is "$rc" 1 "closed proxy: exit 1"
is "$err" "cx5prof: error: mirror: local proxy failed: check https_proxy/http_proxy/no_proxy (http_proxy=http://127.0.0.1:$CLOSED): Couldn't connect to server (curl 7)" \
	"closed proxy: message names the variable and its value"
is "$out" "sent 0, pending 4, next attempt in 2 s" "closed proxy: summary (retried with backoff)"
is "$(outbox_count pending)/$(requests_total)" "4/0" "closed proxy: nothing lost, nothing reached the server"

run env http_proxy="http://user:s3cret@127.0.0.1:$CLOSED" "$CX5PROF" --db "$DB" mirror --now
is "$err" "cx5prof: error: mirror: local proxy failed: check https_proxy/http_proxy/no_proxy (http_proxy=http://***@127.0.0.1:$CLOSED): Couldn't connect to server (curl 7)" \
	"proxy credentials are masked in the message"

run env http_proxy="http://proxy.invalid:3128" "$CX5PROF" --db "$DB" mirror --now
is "$err" "cx5prof: error: mirror: local proxy failed: check https_proxy/http_proxy/no_proxy (http_proxy=http://proxy.invalid:3128): Couldn't resolve proxy name (curl 5)" \
	"unresolvable proxy (curl 5): same advice"

# HTTPS_PROXY does not apply to an http:// base URL (libcurl reads
# http_proxy only in lower case, and HTTP_PROXY never)
run env HTTP_PROXY="http://127.0.0.1:$CLOSED" no_proxy= "$CX5PROF" --db "$DB" mirror --now
is "$rc/$out" "0/sent 4, pending 0" "HTTP_PROXY (upper case) is ignored, as libcurl does"
is "$(acked_records | tr '\n' ' ')" "run 1 run 2 run 3 txn 1 " "after the proxy is fixed: each record acknowledged exactly once"

"$(tt_test_runs)" --make-db "$DB"
run env http_proxy="http://127.0.0.1:$CLOSED" no_proxy="localhost,127.0.0.1" "$CX5PROF" --db "$DB" mirror
is "$rc/$out" "0/sent 4, pending 0" "no_proxy=127.0.0.1 bypasses the proxy"
is "$(requests_total)" 8 "no duplicate after all drains"
done_testing
