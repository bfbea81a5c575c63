#!/usr/bin/python3
"""record_listener.py: a TCP listener on 127.0.0.1 that plays a broken
HTTP proxy and records every byte it receives.

Each connection is read until the end of the request head (or 2 s), the
bytes are appended to --log, "502 Bad Gateway" is answered and the
connection closed. --port-file gets the ephemeral port. Tests use it to
prove what a proxy would see (e.g. nothing at all).

Usage: record_listener.py --port-file F --log L
"""
import argparse
import os
import socket
import sys
import threading


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    args = ap.parse_args()
    lock = threading.Lock()
    open(args.log, "wb").close()

    def handle(conn):
        data = b""
        conn.settimeout(60)
        try:
            while b"\r\n\r\n" not in data and len(data) < 65536:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass
        with lock, open(args.log, "ab") as f:
            f.write(data)
        try:
            conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        except OSError:
            pass
        conn.close()

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    os.rename(tmp, args.port_file)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=handle, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(0)
