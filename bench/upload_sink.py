"""The upload bench's sink: an HTTP/1.1 server on 127.0.0.1 that reads each request's whole
body (Content-Length, in 1 MiB reads into one buffer) and drops it, then answers 200
``{"received": N}``. Prints ``PORT <n>`` first; serves until killed.

    python3 bench/upload_sink.py
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Sink(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        remaining = int(self.headers.get("Content-Length") or 0)
        buffer = memoryview(bytearray(1 << 20))
        received = 0
        while remaining > 0:
            count = self.rfile.readinto(buffer[: min(remaining, len(buffer))])
            if not count:
                break
            received += count
            remaining -= count
        body = json.dumps({"received": received}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_PUT = do_POST

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (http.server's name)
        pass


def main() -> int:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
