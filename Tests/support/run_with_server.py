#!/usr/bin/env python3
"""Run a command with Gatewire's test server up (and httpbin too with ``--httpbin``).

    run_with_server.py [--httpbin] CMD [ARGS...]

Starts testserver.py (next to this file) with the same Python, reads its ``PORT <n>`` line
(30 s at most), runs CMD with GW_TEST_PORT=<n> and GW_TEST_BASE_URL=http://127.0.0.1:<n> in
its environment, then stops the server by PID (also on Ctrl-C) and exits with CMD's status.
With ``--httpbin`` it also starts httpbin under gunicorn (next to this Python, as in the
venv) on a free port, read from its ``Listening at: http://127.0.0.1:<port>`` log line
(60 s at most), and exports GW_HTTPBIN_URL=http://127.0.0.1:<port>; it is stopped by PID too.
A server that does not start is an error (exit 2), never a skip.
"""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

SERVER = Path(__file__).resolve().with_name("testserver.py")
PORT_TIMEOUT = 30.0
HTTPBIN_TIMEOUT = 60.0
STOP_TIMEOUT = 5.0
HTTPBIN_LISTENING = re.compile(rb"Listening at: http://127\.0\.0\.1:(\d+)")


def fail(message: str) -> int:
    print(f"run_with_server: {message}", file=sys.stderr)
    return 2


def read_port(server: subprocess.Popen) -> int | None:
    """The port from the server's first line, or None on EOF, garbage or timeout."""
    assert server.stdout is not None
    fd = server.stdout.fileno()
    deadline = time.monotonic() + PORT_TIMEOUT
    buffer = b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while b"\n" not in buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                return None
            chunk = os.read(fd, 256)
            if not chunk:
                return None
            buffer += chunk
    line = buffer.split(b"\n", 1)[0].decode(errors="replace").strip()
    kind, _, value = line.partition(" ")
    if kind != "PORT" or not value.isdigit():
        return None
    return int(value)


def drain(fd: int) -> None:
    """Reads and drops a pipe until EOF (or until it is closed under us)."""
    try:
        while os.read(fd, 4096):
            pass
    except OSError:
        pass


def start_httpbin() -> tuple[subprocess.Popen, int | None, str]:
    """gunicorn serving httpbin:app on 127.0.0.1:0 with its log on a pipe; its port (None when
    it exited or said nothing usable in time) and what it logged until then. After the port,
    a thread drains the log so gunicorn never blocks on a full pipe."""
    gunicorn = Path(sys.executable).with_name("gunicorn")
    server = subprocess.Popen(
        [str(gunicorn), "--bind", "127.0.0.1:0", "--workers", "1", "--threads", "8", "--graceful-timeout", "2", "--keep-alive", "60",
         "--error-logfile", "-", "httpbin:app"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    assert server.stdout is not None
    fd = server.stdout.fileno()
    deadline = time.monotonic() + HTTPBIN_TIMEOUT
    log = b""
    port = None
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while port is None:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                break
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            log += chunk
            match = HTTPBIN_LISTENING.search(log)
            if match:
                port = int(match.group(1))
    if port is not None:
        threading.Thread(target=drain, args=(fd,), name="httpbin-log", daemon=True).start()
    return server, port, log.decode(errors="replace")


def stop(server: subprocess.Popen) -> None:
    if server.poll() is not None:
        return
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=STOP_TIMEOUT)


def main(argv: list[str]) -> int:
    with_httpbin = bool(argv) and argv[0] == "--httpbin"
    if with_httpbin:
        argv = argv[1:]
    if not argv:
        return fail("usage: run_with_server.py [--httpbin] CMD [ARGS...]")
    servers: list[subprocess.Popen] = []
    try:
        server = subprocess.Popen([sys.executable, str(SERVER)], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        servers.append(server)
        port = read_port(server)
        if port is None:
            status = server.poll()
            detail = f"exited with status {status}" if status is not None else f"no PORT line in {PORT_TIMEOUT:.0f} s"
            return fail(f"test server failed to start ({detail})")
        env = dict(os.environ, GW_TEST_PORT=str(port), GW_TEST_BASE_URL=f"http://127.0.0.1:{port}")
        if with_httpbin:
            try:
                httpbin, httpbin_port, log = start_httpbin()
            except OSError as error:
                return fail(f"cannot start gunicorn next to {sys.executable} for httpbin: {error}")
            servers.append(httpbin)
            if httpbin_port is None:
                status = httpbin.poll()
                detail = f"exited with status {status}" if status is not None else f"no port in {HTTPBIN_TIMEOUT:.0f} s"
                return fail(f"httpbin (gunicorn) failed to start ({detail}):\n{log}")
            env["GW_HTTPBIN_URL"] = f"http://127.0.0.1:{httpbin_port}"
        try:
            return subprocess.call(argv, env=env)
        except FileNotFoundError:
            return fail(f"command not found: {argv[0]}")
        except KeyboardInterrupt:
            return 130
    finally:
        for server in reversed(servers):
            stop(server)
            if server.stdout is not None:
                server.stdout.close()


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:  # during start-up; the server was already stopped in finally
        sys.exit(130)
