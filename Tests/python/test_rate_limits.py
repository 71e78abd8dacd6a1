"""Rate limits in one process (config ``rateLimit``, per route and per call): a call over the
limit waits for its slot, or fails at once with kind ``rate_limited`` and the limit's
``retry_after`` with nothing sent; a 429 with ``Retry-After`` pauses the host for the calls
after it. What the backend received is counted by the test server (``/sequence/<key>``)."""

from __future__ import annotations

import time
import uuid
from typing import Callable

import pytest

import gatewire


def limited(server: str, **rate: object) -> dict:
    return {"baseURL": server, "retry": {"maxRetries": 0}, "rateLimit": dict(rate)}


def test_a_call_over_the_limit_waits_for_its_slot_and_the_wait_is_its_queued_time(
    server: str, library: str, sequence_count: Callable[[str], int]
) -> None:
    key = uuid.uuid4().hex[:12]
    with gatewire.Client(config=limited(server, requests=4, per=1)) as client:
        results = [client.call("GET", f"/sequence/{key}/200") for _ in range(3)]
    assert [r.status for r in results] == [200, 200, 200]
    assert sequence_count(key) == 3
    # The first goes at once; each next waits for its slot, 0.25 s after the one before.
    queued = [r.attempts[0].timings["queued"] for r in results]
    print(f"queued: {queued}")
    assert queued[0] < 0.2
    assert all(q >= 0.15 for q in queued[1:]), queued


def test_wait_false_fails_at_once_with_rate_limited_and_retry_after_nothing_sent(
    server: str, library: str, sequence_count: Callable[[str], int]
) -> None:
    key = uuid.uuid4().hex[:12]
    with gatewire.Client(config=limited(server, requests=1, per=30, wait=False)) as client:
        assert client.call("GET", f"/sequence/{key}/200").status == 200
        with pytest.raises(gatewire.RateLimited) as caught:
            client.call("GET", f"/sequence/{key}/200")
    error = caught.value
    assert error.kind == gatewire.ErrorKind.rate_limited and error.status == 0 and error.attempts == ()
    assert error.retry_after is not None and 25 < error.retry_after <= 30
    assert "the rate limit of host 127.0.0.1:" in error.message and "nothing was sent" in error.message
    assert sequence_count(key) == 1


def test_a_wait_past_the_deadline_fails_at_once_and_per_call_policies_apply(
    server: str, library: str, sequence_count: Callable[[str], int]
) -> None:
    key = uuid.uuid4().hex[:12]
    with gatewire.Client(server) as client:
        policy = {"rateLimit": {"requests": 1, "per": 30}}
        assert client.call("GET", f"/sequence/{key}/200", policy=policy).status == 200
        with pytest.raises(gatewire.RateLimited) as caught:
            client.call("GET", f"/sequence/{key}/200", policy=policy, deadline=5)
        # The same limit without waiting: one limit, whatever a call does over it.
        with pytest.raises(gatewire.RateLimited):
            client.call("GET", f"/sequence/{key}/200", policy={"rateLimit": {"requests": 1, "per": 30, "wait": False}})
        # Without the call's policy the client has no limit.
        assert client.call("GET", f"/sequence/{key}/200").status == 200
    assert caught.value.retry_after is not None and caught.value.retry_after > 5
    assert sequence_count(key) == 2


def test_a_429_retry_after_pauses_the_host_for_the_calls_after_it(
    server: str, library: str, sequence_count: Callable[[str], int]
) -> None:
    key = uuid.uuid4().hex[:12]
    with gatewire.Client(config=limited(server, wait=False)) as client:
        with pytest.raises(gatewire.HTTPStatusError) as first:
            client.call("GET", f"/sequence/{key}/429,200", params={"retry_after": "30"})
        assert first.value.status == 429
        with pytest.raises(gatewire.RateLimited) as paused:
            client.call("GET", f"/sequence/{key}/429,200")
    assert "paused by a Retry-After" in paused.value.message
    assert paused.value.retry_after is not None and 25 < paused.value.retry_after <= 30
    assert sequence_count(key) == 1


def test_route_scope_limits_each_route_alone(
    server: str, library: str, sequence_count: Callable[[str], int]
) -> None:
    a, b = uuid.uuid4().hex[:12], uuid.uuid4().hex[:12]
    config = limited(server, requests=1, per=30, wait=False, scope="route")
    config["routes"] = {"a": {"method": "GET", "pathPattern": f"/sequence/{a}/200"},
                        "b": {"method": "GET", "pathPattern": f"/sequence/{b}/200"}}
    with gatewire.Client(config=config) as client:
        assert client.call_route("a").status == 200
        assert client.call_route("b").status == 200
        with pytest.raises(gatewire.RateLimited) as caught:
            client.call_route("a")
    assert 'route "a"' in caught.value.message
    assert sequence_count(a) == 1 and sequence_count(b) == 1


def test_with_its_redis_down_a_shared_limit_decides_in_process(
    server: str, library: str, sequence_count: Callable[[str], int]
) -> None:
    from redis_process import RedisProcess

    redis = RedisProcess()
    url = redis.url
    redis.stop()  # nothing listens there now: every store operation fails at once
    key = uuid.uuid4().hex[:12]
    config = limited(server, requests=1, per=30, wait=False)
    config["sharedState"] = {"redis": url}
    with gatewire.Client(config=config) as client:
        statuses = []
        for _ in range(3):
            try:
                statuses.append(client.call("GET", f"/sequence/{key}/200").status)
            except gatewire.RateLimited as error:
                statuses.append(error.kind.name)
    # The in-process limiter took over: never "no limit", and no call lost or doubled.
    assert statuses == [200, "rate_limited", "rate_limited"]
    assert sequence_count(key) == 1


def test_a_call_cancelled_while_it_waits_for_its_slot_gives_the_slot_back(
    server: str, library: str, sequence_count: Callable[[str], int]
) -> None:
    key = uuid.uuid4().hex[:12]
    rate = {"requests": 1, "per": 30}
    with gatewire.Client(config=limited(server, **rate)) as client:
        assert client.call("GET", f"/sequence/{key}/200").status == 200  # the next slot is 30 s away
        waiting = client.call_async("GET", f"/sequence/{key}/200")  # reserves it, and waits
        deadline = time.monotonic() + 5
        while not waiting.cancel() and time.monotonic() < deadline:  # once the call has its handle
            time.sleep(0.01)
        with pytest.raises(gatewire.Cancelled):
            waiting.result(timeout=10)
        with pytest.raises(gatewire.RateLimited) as refused:
            client.call("GET", f"/sequence/{key}/200", policy={"rateLimit": {**rate, "wait": False}})
    # The cancelled call's slot came back: the next one is 30 s after the first call, not 60 s.
    assert refused.value.retry_after is not None and 25 < refused.value.retry_after <= 30
    assert sequence_count(key) == 1
