#!/usr/bin/env python3
"""A private nginx serving the files of one folder on 127.0.0.1, for Gatewire's download
tests and benchmark: static files with ETag, Last-Modified and byte ranges, as nginx serves
them. Writes its config under a temp dir, starts Debian's nginx (``nginx-light``, installed by
scripts/bootstrap.sh) in the foreground on a free port, waits until the port accepts
connections (at most 20 s), then prints one line and flushes:
    PORT <n> LOG <path of the access log>
and serves until it gets SIGTERM or SIGINT, when it stops nginx, removes the temp dir and exits.
Locations:
  /files/<name>   the folder's file <name>, at full speed
  /slow/<name>    the same, sent at ``--rate`` bytes a second per connection (nginx's
                  limit_rate, e.g. 2m), so that a test can cut an attempt short mid-body
The access log has one line per request:
    <uri> <status> range="<Range>" if_range="<If-Range>" sent=<body bytes sent>
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from private_nginx import free_port, serve, write_config


def main() -> int:
    parser = argparse.ArgumentParser(description="A private nginx serving one folder's files.")
    parser.add_argument("--root", required=True, help="the folder served under /files/ and /slow/")
    parser.add_argument("--rate", default="2m", help="limit_rate of /slow/ (nginx's size syntax)")
    args = parser.parse_args()
    folder = Path(args.root).resolve()
    root = Path(tempfile.mkdtemp(prefix="gw-nginx-files-"))
    port = free_port()
    log = root / "access.log"
    write_config(root, http=f"""
    log_format ranges '$uri $status range="$http_range" if_range="$http_if_range" sent=$body_bytes_sent';
    server {{
        listen 127.0.0.1:{port};
        access_log {log} ranges;
        sendfile on;
        location /files/ {{ alias {folder}/; }}
        location /slow/ {{ alias {folder}/; limit_rate {args.rate}; }}
    }}""")
    return serve(root, [port], f"PORT {port} LOG {log}")


if __name__ == "__main__":
    sys.exit(main())
