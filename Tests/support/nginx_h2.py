#!/usr/bin/env python3
"""A private nginx speaking HTTP/2 over TLS on 127.0.0.1, for Gatewire's HTTP/2 tests.

Makes a fresh self-signed certificate for 127.0.0.1 (openssl; it is its own CA, so a client
can trust exactly it), writes an nginx config under a temp dir, starts Debian's nginx
(``nginx-light``, installed by scripts/bootstrap.sh) in the foreground on a free port, waits
until the port accepts connections (at most 20 s), then prints one line and flushes:

    PORT <n> CERT <path of the certificate, PEM>

and serves until it gets SIGTERM or SIGINT, when it stops nginx, removes the temp dir and exits.

With ``--counted``, it also serves the same endpoints in cleartext on two more free ports, one
speaking HTTP/2 with prior knowledge only (h2c: nginx's ``listen ... http2`` without ``ssl``)
and one HTTP/1.1, logs every request of all three as ``<server port> <connection serial>``
(nginx's ``$server_port $connection``: so a test counts the connections it opened, on the
server side), and prints instead:

    PORT <n> CERT <path> H2C <port> HTTP1 <port> LOG <path of the access log>

``--max-streams N`` sets ``http2_max_concurrent_streams`` (nginx's default: 128).

Endpoints:
  /protocol    200 {"protocol": "<nginx's $server_protocol, e.g. HTTP/2.0>"}
  /echo...     200 {"protocol", "uri"} for any path under /echo
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from private_nginx import free_port, serve, write_config
from testserver import self_signed_files


ENDPOINTS = """
        default_type application/json;
        location = /protocol { return 200 '{"protocol": "$server_protocol"}'; }
        location /echo { return 200 '{"protocol": "$server_protocol", "uri": "$uri"}'; }"""


def main() -> int:
    parser = argparse.ArgumentParser(description="A private nginx speaking HTTP/2 for the tests.")
    parser.add_argument("--counted", action="store_true", help="also h2c and HTTP/1.1 ports, and an access log")
    parser.add_argument("--max-streams", type=int, default=128, help="http2_max_concurrent_streams")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="gw-nginx-h2-"))
    cert, key = self_signed_files(str(root))
    port = free_port()
    log = root / "access.log"
    # keepalive_requests: a connection serves every call of a test, so each one counted is
    # one libcurl opened, never one nginx closed and libcurl replaced.
    common = f"""
        http2_max_concurrent_streams {args.max_streams};
        keepalive_requests 1000000;
        {f"access_log {log} counted;" if args.counted else ""}
        {ENDPOINTS}"""
    servers = f"""
    log_format counted '$server_port $connection';
    server {{
        listen 127.0.0.1:{port} ssl http2;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        {common}
    }}"""
    ports = [port]
    if args.counted:
        h2c, http1 = free_port(), free_port()
        ports += [h2c, http1]
        servers += f"""
    server {{
        listen 127.0.0.1:{h2c} http2;
        {common}
    }}
    server {{
        listen 127.0.0.1:{http1};
        {common}
    }}"""
    write_config(root, worker_connections=1024, http=servers)
    if args.counted:
        return serve(root, ports, f"PORT {port} CERT {cert} H2C {ports[1]} HTTP1 {ports[2]} LOG {log}")
    return serve(root, ports, f"PORT {port} CERT {cert}")


if __name__ == "__main__":
    sys.exit(main())
