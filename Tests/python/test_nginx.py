"""Gatewire against a real nginx (Debian's nginx-light, installed by scripts/bootstrap.sh):
``limit_req`` for real 503 and 429 answers, ``proxy_pass`` to a dead upstream for real 502
pages. nginx runs with its own config under a temp dir on a free port and is stopped by PID."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

import gatewire

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from private_nginx import command, free_port, write_config  # noqa: E402  (Tests/support)


@pytest.fixture(scope="module")
def nginx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a private nginx: /limited503 and /limited429 allow one request a minute,
    /dead proxies to a closed port."""
    root: Path = tmp_path_factory.mktemp("nginx")
    port, dead = free_port(), free_port()
    (root / "ok.txt").write_text("ok\n")  # static content: limit_req runs before it (not before `return`)
    write_config(root, http=f"""
    limit_req_zone $uri zone=perpath:1m rate=1r/m;
    server {{
        listen 127.0.0.1:{port};
        location /limited503 {{ limit_req zone=perpath nodelay; limit_req_status 503; alias {root}/ok.txt; }}
        location /limited429 {{ limit_req zone=perpath nodelay; limit_req_status 429; alias {root}/ok.txt; }}
        location /dead {{ proxy_pass http://127.0.0.1:{dead}; proxy_connect_timeout 2s; }}
    }}""")
    process = subprocess.Popen(command(root), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 15
        while True:
            if process.poll() is not None:
                pytest.fail(f"nginx exited: {process.stderr.read().decode(errors='replace') if process.stderr else ''}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("nginx did not start listening within 15 s")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        os.kill(process.pid, signal.SIGQUIT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


RETRY = {"maxRetries": 2, "initialDelay": 0.01, "jitter": "none"}


def test_502_page_from_a_dead_upstream_is_retried_then_reported_with_its_body(nginx: str, library: str) -> None:
    seen: list[gatewire.CallError] = []
    with gatewire.Client(config={"baseURL": nginx, "retry": RETRY}) as c:
        c.add_failure_observer(seen.append)
        with pytest.raises(gatewire.HTTPStatusError) as caught:
            c.call("GET", "/dead/anything")
    error = caught.value
    assert error.status == 502
    assert [a.status for a in error.attempts] == [502, 502, 502]
    assert error.attempts[-1].decision == "retries exhausted (2)"
    assert b"502 Bad Gateway" in error.body and b"nginx" in error.body
    assert len(seen) == 1 and seen[0].status == 502


@pytest.mark.parametrize("status", [503, 429])
def test_limit_req_answers_are_retried(nginx: str, library: str, status: int) -> None:
    seen: list[gatewire.CallError] = []
    with gatewire.Client(config={"baseURL": nginx, "retry": RETRY}) as c:
        c.add_failure_observer(seen.append)
        assert c.call("GET", f"/limited{status}").status == 200  # the one request of this minute
        with pytest.raises(gatewire.HTTPStatusError) as caught:
            c.call("GET", f"/limited{status}")
        # POST is not idempotent: nginx's 503/429 is reported after one attempt.
        with pytest.raises(gatewire.HTTPStatusError) as post:
            c.call("POST", f"/limited{status}", json={})
    assert [a.status for a in caught.value.attempts] == [status] * 3
    assert [a.status for a in post.value.attempts] == [status]
    assert [e.status for e in seen] == [status, status]


def test_circuit_breaker_opens_on_real_502s(nginx: str, library: str) -> None:
    config = {"baseURL": nginx, "retry": {"maxRetries": 0},
              "circuitBreaker": {"failureRatio": 1, "minimumThroughput": 3, "breakDuration": 30}}
    with gatewire.Client(config=config) as c:
        for _ in range(3):
            with pytest.raises(gatewire.HTTPStatusError):
                c.call("GET", "/dead/x")
        with pytest.raises(gatewire.CircuitOpen):
            c.call("GET", "/limited503")
