"""What a client with ``sharedState`` tells of its store failing: each call's result says
whether a shared breaker or rate limit decided in process (``Result.shared_state_local``,
``CallError.shared_state_local``, ``gatewire call --verbose``), and the store's degradation
and recovery each reach the event monitors once per outage. Redis is a real ``redis-server``
started here and stopped (``SIGSTOP``) or killed here.
"""

from __future__ import annotations

import json
import signal
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from redis_process import RedisProcess
from test_cli_basics import run

import gatewire

# The store's timeout (seconds): a stalled Redis fails each operation after it.
TIMEOUT = 0.05


def shared_config(server: str, redis: RedisProcess) -> dict[str, Any]:
    return {"baseURL": server, "retry": {"maxRetries": 0},
            "circuitBreaker": {"failureRatio": 0.5, "minimumThroughput": 1000, "breakDuration": 5},
            "rateLimit": {"requests": 1000, "per": 1, "burst": 100},
            "sharedState": {"redis": redis.url, "keyPrefix": f"local-{uuid.uuid4().hex[:8]}:", "timeout": TIMEOUT}}


def test_a_calls_result_says_whether_a_shared_decision_was_made_in_process(
    server: str, library: str, redis: RedisProcess
) -> None:
    key = uuid.uuid4().hex[:12]
    with gatewire.Client(config=shared_config(server, redis)) as client:
        # Redis well: every decision is the fleet's.
        well = [client.call("GET", f"/sequence/{key}/200").shared_state_local for _ in range(5)]
        time.sleep(0.1)  # the last batch of outcomes reaches Redis
        redis.signal(signal.SIGSTOP)
        try:
            client.call("GET", f"/sequence/{key}/200")  # its outcome's batch waits for the stalled store
            time.sleep(TIMEOUT * 4)  # ... which fails it after the timeout
            stalled = client.call("GET", f"/sequence/{key}/200")
            with pytest.raises(gatewire.HTTPStatusError) as failed:
                client.call("GET", f"/sequence/{key}/503")
        finally:
            redis.signal(signal.SIGCONT)
        # Redis back: after the client's pause (1 s) a probe succeeds and the fleet decides again.
        deadline = time.monotonic() + 5
        back = True
        while back and time.monotonic() < deadline:
            back = client.call("GET", f"/sequence/{key}/200").shared_state_local
            time.sleep(0.05)
    assert well == [False] * 5
    assert stalled.shared_state_local is True
    assert failed.value.shared_state_local is True
    assert back is False


def test_in_process_state_is_never_called_local(server: str, library: str) -> None:
    key = uuid.uuid4().hex[:12]
    config = {"baseURL": server, "retry": {"maxRetries": 0}, "rateLimit": {"requests": 1000, "burst": 10},
              "circuitBreaker": {"failureRatio": 0.5, "minimumThroughput": 10}}
    with gatewire.Client(config=config) as client:
        assert client.call("GET", f"/sequence/{key}/200").shared_state_local is False
        with pytest.raises(gatewire.HTTPStatusError) as failed:
            client.call("GET", f"/sequence/{key}/503")
    assert failed.value.shared_state_local is False


def test_the_stores_degradation_and_recovery_are_each_one_event(
    server: str, library: str, redis: RedisProcess
) -> None:
    key = uuid.uuid4().hex[:12]
    events: list[dict[str, Any]] = []
    with gatewire.Client(config=shared_config(server, redis)) as client:
        client.add_event_monitor(lambda event: events.append(event) if event["call_id"] == 0 else None)
        client.call("GET", f"/sequence/{key}/200")
        redis.signal(signal.SIGKILL)
        # Calls go on while Redis is away: the third failed operation in a row announces it.
        deadline = time.monotonic() + 5
        while not events and time.monotonic() < deadline:
            client.call("GET", f"/sequence/{key}/200")
            time.sleep(0.02)
        for _ in range(10):  # more failures in the same outage announce nothing more
            client.call("GET", f"/sequence/{key}/200")
            time.sleep(0.02)
        redis.restart()
        deadline = time.monotonic() + 8  # the reconnection's backoff (2 s) and the pause (1 s)
        while len(events) < 2 and time.monotonic() < deadline:
            client.call("GET", f"/sequence/{key}/200")
            time.sleep(0.05)
    print(events)
    assert [event["event"] for event in events] == ["shared_state_degraded", "shared_state_recovered"]
    assert "decide in process" in events[0]["message"] and str(redis.port) in events[0]["message"]
    assert "answers again" in events[1]["message"]


def test_gatewire_call_verbose_says_a_decision_was_made_in_process(
    server: str, library: str, cli: str, redis: RedisProcess, tmp_path: Path  # noqa: F811
) -> None:
    key = uuid.uuid4().hex[:12]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(shared_config(server, redis)))
    well = run(cli, "call", "--config", str(path), "--verbose", "GET", f"/sequence/{key}/200")
    redis.signal(signal.SIGKILL)
    # The call's rate limit has no lease: it asks Redis, which is gone (twice: the lease, then
    # the probe while the limit decides in process), and its 503 goes to Redis at once: the
    # third failure in a row announces the degradation.
    gone = run(cli, "call", "--config", str(path), "--verbose", "GET", f"/sequence/{key}/503")
    print(gone.stderr)
    assert well.returncode == 0 and gone.returncode == 1, (well.stderr, gone.stderr)
    assert "shared state" not in well.stderr
    assert "shared state: decided in process" in gone.stderr
    assert gone.stderr.count("circuit breakers and rate limits decide in process") == 1
