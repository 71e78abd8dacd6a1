"""Fixtures for the Python binding's tests.

``server`` starts the project's scripted test server (``Tests/support/testserver.py``) once
per session on 127.0.0.1 and kills it by PID at the end. Nothing here skips: a missing
server or library is a failure with a message that says what is missing.
"""

from __future__ import annotations

import queue
import socket
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Callable, Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]
SERVER_SCRIPT = REPO / "Tests" / "support" / "testserver.py"
PORT_WAIT_SECONDS = 30.0

# Import the binding from the source tree unless it is installed.
sys.path.insert(0, str(REPO / "bindings" / "python"))

import gatewire  # noqa: E402


def _read_port(process: subprocess.Popen[bytes]) -> int:
    """The port from the server's first stdout line ``PORT <n>``, waited for at most 30 s."""
    lines: queue.Queue[bytes] = queue.Queue()
    assert process.stdout is not None
    threading.Thread(target=lambda: lines.put(process.stdout.readline()), daemon=True).start()
    try:
        line = lines.get(timeout=PORT_WAIT_SECONDS)
    except queue.Empty:
        pytest.fail(f"{SERVER_SCRIPT} printed no 'PORT <n>' line within {PORT_WAIT_SECONDS:.0f} s")
    words = line.decode("utf-8", "replace").split()
    if len(words) != 2 or words[0] != "PORT" or not words[1].isdigit():
        pytest.fail(f"{SERVER_SCRIPT}: expected 'PORT <n>' as first line, got {line!r} (exit code {process.poll()})")
    return int(words[1])


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """Base URL (``http://127.0.0.1:<port>``) of the running test server."""
    if not SERVER_SCRIPT.is_file():
        pytest.fail(f"the test server {SERVER_SCRIPT} does not exist")
    process = subprocess.Popen([sys.executable, str(SERVER_SCRIPT)], stdout=subprocess.PIPE)
    try:
        port = _read_port(process)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.kill()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture(scope="session")
def library() -> str:
    """Path of the loaded libGatewire.so (fails with the paths tried if it cannot load)."""
    try:
        return gatewire._native.library_path()
    except OSError as error:
        pytest.fail(str(error))


@pytest.fixture
def client(server: str, library: str) -> Iterator[gatewire.Client]:
    """A client for the test server, closed after the test."""
    with gatewire.Client(server) as c:
        yield c


@pytest.fixture
def key() -> str:
    """A unique key for the server's /sequence endpoints (so tests never share counters)."""
    return uuid.uuid4().hex[:12]


@pytest.fixture
def closed_port() -> int:
    """A local port nothing listens on: bound to get a free number, then closed."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def sequence_count(server: str, library: str) -> Iterator[Callable[[str], int]]:
    """``sequence_count(key)``: how many requests /sequence/<key>/... has received."""
    with gatewire.Client(server) as c:
        yield lambda key: c.call("GET", f"/sequence/{key}/count").json()["count"]
