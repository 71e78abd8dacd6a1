"""What the tests' private nginx servers share (Debian's nginx-light, installed by
scripts/bootstrap.sh): a free loopback port, a config under the server's own temp dir, and
the foreground command. Used by ``nginx_h2.py`` (HTTP/2 over TLS), ``nginx_files.py`` (static files) and
``Tests/python/test_nginx.py`` (limit_req and a dead upstream). ``serve`` runs a server
script's nginx until SIGTERM or SIGINT."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_config(root: Path, http: str, worker_connections: int = 64) -> Path:
    """Writes ``root/nginx.conf``: one worker, pid, error log and every temp path under
    ``root``, ``access_log off``, and ``http`` (the servers and zones) inside the http block.
    As root, the workers run as root too: as "nobody" they could not read a 0700 temp dir.
    Returns the config's path."""
    temp = "".join(f"{name}_temp_path {root}/{name};\n    "
                   for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    user = "user root;" if os.geteuid() == 0 else ""
    config = root / "nginx.conf"
    config.write_text(f"""
{user}
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log;
events {{ worker_connections {worker_connections}; }}
http {{
    access_log off;
    {temp}
{http}
}}
""")
    return config


def command(root: Path) -> list[str]:
    """nginx in the foreground with ``root/nginx.conf`` (stop it by its PID)."""
    return [NGINX, "-p", str(root), "-c", str(root / "nginx.conf"), "-g", "daemon off;"]


def accepts(port: int) -> bool:
    """Whether 127.0.0.1:``port`` accepts a TCP connection now."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def serve(root: Path, ports: list[int], ready: str) -> int:
    """Starts nginx with ``root/nginx.conf``, waits (at most 20 s) until every port of
    ``ports`` accepts connections, prints ``ready`` as one line and flushes, then serves until
    SIGTERM or SIGINT; stops nginx and removes ``root`` in every case. Returns the exit
    status (1 when nginx did not start: the line printed then says why)."""
    nginx = subprocess.Popen(command(root), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # SIGTERM/SIGINT are taken with sigwait, not a handler: a handler that waits for nginx
    # while the main thread is itself inside Popen.wait would deadlock on Popen's wait lock.
    # Blocked only after nginx started, so nginx does not inherit the blocked mask.
    stops = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    deadline = time.monotonic() + 20
    while not all(accepts(p) for p in ports):
        if nginx.poll() is not None or time.monotonic() > deadline:
            why = nginx.stderr.read().decode(errors="replace") if nginx.poll() is not None else "timed out"
            print(f"nginx did not start: {why}", flush=True)
            return finish(nginx, root, 1)
        if signal.sigtimedwait(stops, 0.05) is not None:
            return finish(nginx, root, 0)
    print(ready, flush=True)
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
