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
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from private_nginx import command, free_port, write_config


def accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


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
    nginx = subprocess.Popen(command(root), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # As nginx_h2.py: signals are taken with sigwait, blocked only after nginx started.
    stops = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    deadline = time.monotonic() + 20
    while not accepts(port):
        if nginx.poll() is not None or time.monotonic() > deadline:
            why = nginx.stderr.read().decode(errors="replace") if nginx.poll() is not None else "timed out"
            print(f"nginx did not start: {why}", flush=True)
            return finish(nginx, root, 1)
        if signal.sigtimedwait(stops, 0.05) is not None:
            return finish(nginx, root, 0)
    print(f"PORT {port} LOG {log}", flush=True)
    signal.sigwait(stops)
    return finish(nginx, root, 0)


def finish(nginx: subprocess.Popen, root: Path, status: int) -> int:
    """Stops nginx (SIGTERM, SIGKILL after 5 s), removes its temp dir, returns `status`."""
    nginx.terminate()
    try:
        nginx.wait(timeout=5)
    except subprocess.TimeoutExpired:
        nginx.kill()
        nginx.wait()
    shutil.rmtree(root, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
