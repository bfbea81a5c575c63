#!/usr/bin/python3
"""taotoken_server.py: an OpenAI-compatible chat endpoint for tests.

A real HTTP server on 127.0.0.1 (ephemeral port) that plays TaoToken
(POST /v1/chat/completions) scripted per scenario. The test starts it,
reads the port from --port-file, switches scenarios by writing a name into
--scenario-file (read on every request), and asserts on --log: one JSON line
per request received (never the key itself: only whether it matched).

Scenarios:
  success        200 with choices (401 if the bearer key is not --key-file's)
  401, 403       key rejected
  401-echo       key rejected, the message echoing the bearer key (as some
                 gateways do): cx5prof must mask it
  404            wrong path or model
  429-retry      429 rate limit with "Retry-After: 3"
  429-quota      429 insufficient_quota
  500            internal error
  no-choices     200 whose body has no "choices"
  garbage        200 whose body is not JSON
  slow           success, but only after 3 s (beyond a short client timeout)
  400-run1       400 for the record "run 1" (its content is refused), success
                 for every other record
  401-echo-late  key rejected, the bearer key echoed at character 190 of a
                 long message (across a 200-character cut)
  503-retry      503 with "Retry-After: 5"
  escape         success whose answer holds terminal escapes and other
                 control characters
  piece-401-prefix-N, piece-401-suffix-N
                 key rejected, the message echoing the first (last) N
                 characters of the bearer key
  echo-200       success whose id and content echo the bearer key, whole
                 and in pieces
  split-401-HOW, split-200-HOW
                 key rejected (its message), or success (its id and answer),
                 echoing the bearer key cut up: HOW is pieces7 (7-character
                 pieces between spaces), onebyone (one character at a time,
                 spaced), upper (upper-cased), interleaved (each character
                 followed by an "x")

Usage: taotoken_server.py --port-file F --scenario-file S --log L --key-file K
                          [--tls-cert PEM --tls-key PEM]
(with --tls-cert: HTTPS, with that certificate)
"""
import argparse
import http.server
import json
import os
import sys
import threading
import time

counter = 0
lock = threading.Lock()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--scenario-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--key-file", required=True)
    ap.add_argument("--slow-seconds", type=float, default=3.0)
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    args = ap.parse_args()

    with open(args.key_file) as f:
        expected_key = f.read().rstrip("\n")

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):  # quiet: the JSON log is the record
            pass

        def reply(self, status, body, headers=None):
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_POST(self):
            global counter
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                scenario = open(args.scenario_file).read().strip()
            except OSError:
                scenario = "success"
            try:
                req = json.loads(raw)
            except ValueError:
                req = {}
            msgs = req.get("messages") or []
            user = next((m.get("content", "") for m in msgs if m.get("role") == "user"), "")
            system = next((m.get("content", "") for m in msgs if m.get("role") == "system"), "")
            auth = self.headers.get("Authorization", "")
            with lock:
                counter += 1
                n = counter

            self.record = " ".join(user.split(" ", 2)[:2]).rstrip(":")
            status, body, headers = self.answer(scenario, n, auth, req)
            entry = {
                "n": n,
                "path": self.path,
                "scenario": scenario,
                "status": status,
                "key_ok": auth == "Bearer " + expected_key,
                "model": req.get("model"),
                "user": req.get("user"),
                "max_tokens": req.get("max_tokens"),
                "record": " ".join(user.split(" ", 2)[:2]).rstrip(":"),
                "system": system,
                "content": user,
            }
            with lock, open(args.log, "a") as f:
                f.write(json.dumps(entry) + "\n")
            if scenario == "slow":
                time.sleep(args.slow_seconds)
            self.reply(status, body, headers)

        def answer(self, scenario, n, auth, req):
            def err(msg, typ, code):
                return {"error": {"message": msg, "type": typ, "code": code}}

            if self.path != "/v1/chat/completions":
                return 404, err("no route " + self.path, "invalid_request_error", None), None
            if scenario in ("success", "slow"):
                if auth != "Bearer " + expected_key:
                    return 401, err("Invalid token", "invalid_request_error", None), None
                return 200, {
                    "id": "chatcmpl-%d" % n,
                    "object": "chat.completion",
                    "model": req.get("model"),
                    "choices": [{"index": 0, "message": {"role": "assistant",
                                                         "content": "RECEIVER: rx_discards_phy rose; the receiver dropped."
                                                         if (req.get("max_tokens") or 0) > 16 else "OK"},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 50, "completion_tokens": 1, "total_tokens": 51},
                }, None
            if scenario.startswith("answer:"):  # success, with this text as the answer
                status, body, headers = self.answer("success", n, auth, req)
                if status == 200 and (req.get("max_tokens") or 0) > 16:
                    body["choices"][0]["message"]["content"] = scenario[len("answer:"):]
                return status, body, headers
            if scenario == "400-run1":
                if self.record == "run 1":
                    return 400, err("Invalid request: message content rejected", "invalid_request_error",
                                    None), None
                return self.answer("success", n, auth, req)
            if scenario == "escape":
                status, body, headers = self.answer("success", n, auth, req)
                if status == 200:
                    body["choices"][0]["message"]["content"] = \
                        "RECEIVER: \x1b[2J\x1b]0;owned\x07drops\rX\x7f\u009b31m\nline2\tend"
                return status, body, headers
            if scenario == "401-echo-late":
                return 401, err("x" * 190 + auth[len("Bearer "):] + " is not a valid key",
                                "invalid_request_error", "invalid_api_key"), None
            if scenario.startswith("piece-401-"):
                _, _, where, count = scenario.split("-")
                key = auth[len("Bearer "):]
                piece = key[:int(count)] if where == "prefix" else key[-int(count):]
                return 401, err("Incorrect API key provided: " + piece + "; see docs",
                                "invalid_request_error", "invalid_api_key"), None
            if scenario == "echo-200":
                status, body, headers = self.answer("success", n, auth, req)
                if status == 200:
                    key = auth[len("Bearer "):]
                    body["id"] = "chatcmpl-" + key
                    body["choices"][0]["message"]["content"] = \
                        "RECEIVER: you sent " + key + ", ends " + key[-20:] + ", starts " + key[:12] + "."
                return status, body, headers
            if scenario.startswith("split-"):
                _, code, how = scenario.split("-")
                key = auth[len("Bearer "):]
                cut = {"pieces7": lambda k: " ".join(k[i:i + 7] for i in range(0, len(k), 7)),
                       "onebyone": lambda k: " ".join(k),
                       "upper": lambda k: k.upper(),
                       "interleaved": lambda k: "".join(c + "x" for c in k)}[how](key)
                if code == "401":
                    return 401, err("Incorrect API key provided: " + cut + "; see docs",
                                    "invalid_request_error", "invalid_api_key"), None
                status, body, headers = self.answer("success", n, auth, req)
                if status == 200:
                    body["id"] = "chatcmpl-" + cut
                    body["choices"][0]["message"]["content"] = "RECEIVER: you sent " + cut + "."
                    body["usage"]["note"] = cut
                return status, body, headers
            if scenario == "503-retry":
                return 503, err("overloaded", "server_error", 503), {"Retry-After": "5"}
            if scenario == "401":
                return 401, err("Invalid token", "invalid_request_error", None), None
            if scenario == "401-echo":
                return 401, err("Incorrect API key provided: " + auth[len("Bearer "):], "invalid_request_error",
                                "invalid_api_key"), None
            if scenario == "403":
                return 403, err("Forbidden", "invalid_request_error", 403), None
            if scenario == "404":
                return 404, err("The model does not exist", "invalid_request_error", "model_not_found"), None
            if scenario == "429-retry":
                return 429, err("Rate limit reached", "requests", "rate_limit_exceeded"), {"Retry-After": "3"}
            if scenario == "429-quota":
                return 429, err("You exceeded your current quota", "insufficient_quota", "insufficient_quota"), None
            if scenario == "500":
                return 500, err("upstream failed", "server_error", 500), None
            if scenario == "no-choices":
                return 200, {"id": "chatcmpl-%d" % n, "object": "chat.completion", "model": req.get("model")}, None
            if scenario == "garbage":
                return 200, b"<html><body>502 Bad Gateway</body></html>", None
            return 500, err("unknown scenario " + scenario, "server_error", None), None

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    if args.tls_cert:
        import ssl
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls_cert, args.tls_key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, args.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
