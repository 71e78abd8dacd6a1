"""Fixtures for the Python binding's tests.

``server`` starts the project's scripted test server (``Tests/support/testserver.py``) once
per session on 127.0.0.1 and kills it by PID at the end; ``httpbin`` does the same for httpbin
under the venv's gunicorn (the authentication endpoints). Nothing here skips: a missing
server or library is a failure with a message that says what is missing.
"""

from __future__ import annotations

import os
import queue
import re
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
from redis_process import RedisProcess  # noqa: E402


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


def _serve(scheme: str, *arguments: str) -> Iterator[str]:
    """Starts the test server with ``arguments``, yields ``<scheme>://127.0.0.1:<port>``, and
    kills it afterwards."""
    if not SERVER_SCRIPT.is_file():
        pytest.fail(f"the test server {SERVER_SCRIPT} does not exist")
    process = subprocess.Popen([sys.executable, str(SERVER_SCRIPT), *arguments], stdout=subprocess.PIPE)
    try:
        yield f"{scheme}://127.0.0.1:{_read_port(process)}"
    finally:
        process.kill()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture(scope="session")
def cli() -> str:
    """The built CLI: $GATEWIRE_CLI, else .build/debug or .build/release (fails if none)."""
    root = Path(__file__).resolve().parents[2]
    candidates = [os.environ.get("GATEWIRE_CLI", "")] + [str(root / ".build" / c / "gatewire") for c in ("debug", "release")]
    for path in candidates:
        if path and os.access(path, os.X_OK):
            return path
    pytest.fail(f"no gatewire CLI built; tried {candidates[1:]} (run swift build)")


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """Base URL (``http://127.0.0.1:<port>``) of the running test server."""
    yield from _serve("http")


@pytest.fixture(scope="session")
def tls_server() -> Iterator[str]:
    """Base URL (``https://127.0.0.1:<port>``) of a test server with a fresh self-signed
    certificate (``--tls-self-signed``); its plain twin port serves the same endpoints over http."""
    yield from _serve("https", "--tls-self-signed")


HTTPBIN_LISTENING = re.compile(rb"Listening at: http://127\.0\.0\.1:(\d+)")


@pytest.fixture(scope="session")
def httpbin() -> Iterator[str]:
    """Base URL of httpbin served by gunicorn on 127.0.0.1 (a free port, read from its
    ``Listening at:`` log line within 60 s), stopped by PID (SIGTERM, then SIGKILL) at the end."""
    gunicorn = Path(sys.executable).with_name("gunicorn")
    if not gunicorn.is_file():
        pytest.fail(f"{gunicorn} is missing (scripts/bootstrap.sh installs gunicorn and httpbin into the venv)")
    process = subprocess.Popen(
        [str(gunicorn), "--bind", "127.0.0.1:0", "--workers", "1", "--threads", "8", "--graceful-timeout", "2", "--keep-alive", "60",
         "--error-logfile", "-", "httpbin:app"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    assert process.stdout is not None
    output = process.stdout
    ports: queue.Queue[int | None] = queue.Queue()
    seen: list[bytes] = []

    def watch() -> None:  # reports the port, then keeps draining the log so gunicorn never blocks
        reported = False
        for line in iter(output.readline, b""):
            seen.append(line)
            match = HTTPBIN_LISTENING.search(line)
            if match and not reported:
                ports.put(int(match.group(1)))
                reported = True
        if not reported:
            ports.put(None)

    watcher = threading.Thread(target=watch, name="httpbin-log", daemon=True)
    watcher.start()
    try:
        try:
            port = ports.get(timeout=60)
        except queue.Empty:
            port = None
        if port is None:
            pytest.fail(f"httpbin (gunicorn) did not report its port (exit code {process.poll()}): "
                        + b"".join(seen).decode("utf-8", "replace"))
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        watcher.join(timeout=5)
        output.close()


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
def redis() -> Iterator[RedisProcess]:
    """A real ``redis-server`` of its own on a free loopback port (``redis_process.py``),
    stopped after the test."""
    server = RedisProcess()
    try:
        yield server
    finally:
        server.stop()


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
