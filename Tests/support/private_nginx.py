"""What the tests' private nginx servers share (Debian's nginx-light, installed by
scripts/bootstrap.sh): a free loopback port, a config under the server's own temp dir, and
the foreground command. Used by ``nginx_h2.py`` (HTTP/2 over TLS) and
``Tests/python/test_nginx.py`` (limit_req and a dead upstream)."""

from __future__ import annotations

import os
import shutil
import socket
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
