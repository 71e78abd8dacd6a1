"""The event loop's admission queue through the binding, counted on the server side: 1,024
HTTP/2 calls in flight with the default config open no more connections than they need at
the server's stream limit, and a call still waiting in the queue (one connection, held by
another call) never reaches the server when it is cancelled or its deadline passes. No
timing is asserted but lower bounds the code guarantees."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Callable, NamedTuple

import pytest

import gatewire

SUPPORT = Path(__file__).resolve().parents[1] / "support"
# nginx's http2_max_concurrent_streams: the client's default maxConcurrentStreams, so both
# agree on what one connection carries (libcurl 7.88 does not say what the server announced).
SERVER_STREAMS = 100


class CountedNginx(NamedTuple):
    base_url: str
    port: int
    cert: str
    log: Path

    def connections(self) -> int:
        """How many connections to the TLS port served a request, by the access log."""
        lines = self.log.read_text().split("\n")
        return len({words[1] for words in (line.split() for line in lines) if len(words) == 2 and words[0] == str(self.port)})


@pytest.fixture(scope="module")
def nginx_h2() -> Iterator[CountedNginx]:
    """Tests/support/nginx_h2.py, counted, stopped by its PID after the module's tests."""
    process = subprocess.Popen([sys.executable, str(SUPPORT / "nginx_h2.py"), "--counted",
                                "--max-streams", str(SERVER_STREAMS)], stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None
        words = process.stdout.readline().decode().split()
        if len(words) != 10 or words[0] != "PORT":
            pytest.fail(f"nginx_h2.py did not start: {' '.join(words)}")
        yield CountedNginx(f"https://127.0.0.1:{words[1]}", int(words[1]), words[3], Path(words[9]))
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_1024_http2_calls_with_the_default_config_use_at_most_count_over_streams_connections(
        nginx_h2: CountedNginx, library: str) -> None:
    config = {"baseURL": nginx_h2.base_url, "caFile": nginx_h2.cert, "retry": {"maxRetries": 0}}
    count = 1024
    with gatewire.Client(config=config) as client:
        outcomes = list(client.call_many(({"method": "GET", "path": f"/echo/{i}"} for i in range(count)),
                                         in_flight=count))
    assert len(outcomes) == count
    for index, outcome in enumerate(outcomes):
        assert isinstance(outcome, gatewire.Result), outcome
        assert outcome.json() == {"protocol": "HTTP/2.0", "uri": f"/echo/{index}"}
    # libcurl 7.88 alone opened up to maxConnections (100) here: once the first connection
    # was full, every call added opened its own.
    assert 1 <= nginx_h2.connections() <= -(-count // SERVER_STREAMS)  # 11


def test_a_queued_call_cancelled_before_admission_never_reaches_the_server(
        server: str, key: str, sequence_count: Callable[[str], int]) -> None:
    config = {"baseURL": server, "maxConnectionsPerHost": 1, "retry": {"maxRetries": 0}}
    with gatewire.Client(config=config) as client:
        # Started in this order on the loop thread: the first takes the one connection.
        holder = client.call_async("GET", "/delay/1000")
        queued = client.call_async("GET", f"/sequence/{key}/200")
        assert queued.cancel()
        with pytest.raises(gatewire.Cancelled) as raised:
            queued.result(timeout=30)
        assert holder.result(timeout=30).status == 200
    attempt = raised.value.attempts[0]
    assert attempt.bytes_sent == 0 and attempt.timings["queued"] > 0
    assert sequence_count(key) == 0


def test_a_deadline_fails_a_call_still_in_the_queue_with_its_queued_time(
        server: str, key: str, sequence_count: Callable[[str], int]) -> None:
    config = {"baseURL": server, "maxConnectionsPerHost": 1, "retry": {"maxRetries": 0}}
    with gatewire.Client(config=config) as client:
        holder = client.call_async("GET", "/delay/2000")
        queued = client.call_async("GET", f"/sequence/{key}/200", timeout=gatewire.Timeouts(deadline=0.3))
        with pytest.raises(gatewire.CallError) as raised:
            queued.result(timeout=30)
        assert holder.result(timeout=30).status == 200
    assert raised.value.kind == gatewire.ErrorKind.deadline
    attempt = raised.value.attempts[0]
    # It waited from its start to its deadline (0.3 s) behind the holder's 2 s.
    assert attempt.bytes_sent == 0 and attempt.timings["queued"] > 0.25
    assert sequence_count(key) == 0
