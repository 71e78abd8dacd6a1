#!/usr/bin/env python3
"""Run a command with Gatewire's test server up.

    run_with_server.py CMD [ARGS...]

Starts testserver.py (next to this file) with the same Python, reads its ``PORT <n>`` line
(30 s at most), runs CMD with GW_TEST_PORT=<n> and GW_TEST_BASE_URL=http://127.0.0.1:<n> in
its environment, then stops the server by PID (also on Ctrl-C) and exits with CMD's status.
A server that does not start is an error (exit 2), never a skip.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

SERVER = Path(__file__).resolve().with_name("testserver.py")
PORT_TIMEOUT = 30.0
STOP_TIMEOUT = 5.0


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
    if not argv:
        return fail("usage: run_with_server.py CMD [ARGS...]")
    server = subprocess.Popen([sys.executable, str(SERVER)], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        port = read_port(server)
        if port is None:
            status = server.poll()
            detail = f"exited with status {status}" if status is not None else f"no PORT line in {PORT_TIMEOUT:.0f} s"
            return fail(f"test server failed to start ({detail})")
        env = dict(os.environ, GW_TEST_PORT=str(port), GW_TEST_BASE_URL=f"http://127.0.0.1:{port}")
        try:
            return subprocess.call(argv, env=env)
        except FileNotFoundError:
            return fail(f"command not found: {argv[0]}")
        except KeyboardInterrupt:
            return 130
    finally:
        stop(server)
        if server.stdout is not None:
            server.stdout.close()


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:  # during start-up; the server was already stopped in finally
        sys.exit(130)
