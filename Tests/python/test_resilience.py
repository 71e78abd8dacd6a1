"""Resilience from Python: per-call policies, the retry budget, the circuit breaker
(``circuit_open``), failure observers exactly once, and attempt counts compared with urllib3's
``Retry`` on the same scripted faults (``/fault/<key>/<step>,...`` of the test server)."""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any, Callable, Iterator

import pytest
import urllib3
from urllib3.util.retry import Retry

import gatewire

RETRYABLE = [408, 429, 500, 502, 503, 504]


@pytest.fixture
def fault_count(server: str, library: str) -> Iterator[Callable[[str], int]]:
    """``fault_count(key)``: requests /fault/<key>/... has received (through a plain client,
    since a breaker under test is per host)."""
    with gatewire.Client(server) as c:
        yield lambda key: c.call("GET", f"/fault/{key}/count").json()["count"]


class Observed:
    """A failure observer that records every error it sees."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.errors: list[gatewire.CallError] = []

    def __call__(self, error: gatewire.CallError) -> None:
        with self.lock:
            self.errors.append(error)

    @property
    def kinds(self) -> list[str]:
        with self.lock:
            return [str(e.kind) for e in self.errors]


def new_key() -> str:
    return uuid.uuid4().hex[:12]


# -- per-call policy ---------------------------------------------------------------------------


def test_post_is_retried_after_a_reset_only_with_an_idempotency_key(
    server: str, library: str, fault_count: Callable[[str], int]
) -> None:
    observed = Observed()
    with gatewire.Client(config={"baseURL": server, "retry": {"maxRetries": 2, "initialDelay": 0.01}}) as c:
        c.add_failure_observer(observed)
        plain = new_key()
        with pytest.raises(gatewire.ConnectionFailed) as caught:
            c.call("POST", f"/fault/{plain}/reset-after,200", json={"n": 1})
        assert len(caught.value.attempts) == 1
        assert caught.value.attempts[0].decision == "POST is not idempotent (network after sending)"
        assert fault_count(plain) == 1

        keyed = new_key()
        result = c.call("POST", f"/fault/{keyed}/reset-after,200", json={"n": 1},
                        policy={"retry": {"idempotencyKey": True}})
        assert [a.status for a in result.attempts] == [0, 200]
        assert fault_count(keyed) == 2
    assert observed.kinds == ["network"]


def test_bad_policy_is_an_invalid_argument(client: gatewire.Client) -> None:
    with pytest.raises(gatewire.InvalidArgument, match="policy.retryBudget.maxTokens"):
        client.call("GET", "/echo", policy={"retryBudget": {"maxTokens": -1}})


# -- retry budget and circuit breaker ----------------------------------------------------------


def test_retry_budget_stops_retries_while_the_server_is_down(closed_port: int, library: str) -> None:
    observed = Observed()
    config = {
        "baseURL": f"http://127.0.0.1:{closed_port}",
        "retry": {"maxRetries": 3, "initialDelay": 0.01, "jitter": "none"},
        "retryBudget": {"maxTokens": 4, "tokenRatio": 1},
    }
    attempts = []
    with gatewire.Client(config=config) as c:
        c.add_failure_observer(observed)
        for _ in range(3):
            with pytest.raises(gatewire.ConnectionFailed) as caught:
                c.call("GET", "/")
            attempts.append(len(caught.value.attempts))
        # A call without the budget gets all its retries.
        with pytest.raises(gatewire.ConnectionFailed) as caught:
            c.call("GET", "/", policy={"retryBudget": False})
        attempts.append(len(caught.value.attempts))
    # 4 tokens, retries need more than 2: 4->3 retry, 3->2 stop; then 2->1, 1->0: no retries.
    assert attempts == [2, 1, 1, 4]
    assert observed.kinds == ["connect"] * 4


def test_circuit_breaker_opens_fails_fast_and_closes_after_a_good_trial(
    server: str, library: str, fault_count: Callable[[str], int]
) -> None:
    observed = Observed()
    config = {
        "baseURL": server,
        "retry": {"maxRetries": 0},
        # A 3 s break: a loaded machine cannot let it pass between the calls that expect it open.
        "circuitBreaker": {"failureRatio": 0.5, "minimumThroughput": 2, "breakDuration": 3.0},
    }
    key = new_key()
    with gatewire.Client(config=config) as c:
        c.add_failure_observer(observed)
        for _ in range(2):
            with pytest.raises(gatewire.HTTPStatusError):
                c.call("GET", f"/fault/{key}/503")
        with pytest.raises(gatewire.CircuitOpen) as caught:
            c.call("GET", f"/fault/{key}/503")
        assert caught.value.kind == gatewire.ErrorKind.circuit_open
        assert caught.value.status == 0
        assert caught.value.attempts == ()
        assert fault_count(key) == 2
        time.sleep(3.1)
        assert c.call("GET", f"/fault/{key}-ok/200").status == 200  # the trial closes it
        assert c.call("GET", f"/fault/{key}-ok/200").status == 200
    assert observed.kinds == ["http_status", "http_status", "circuit_open"]


# -- the same scripts against urllib3's Retry ---------------------------------------------------


def gatewire_attempts(server: str, method: str, script: str, retries: int, headers: dict[str, str]) -> int:
    key = new_key()
    config = {"baseURL": server,
              "retry": {"maxRetries": retries, "initialDelay": 0.01, "multiplier": 2, "jitter": "none",
                        "statusCodes": RETRYABLE}}
    observed = Observed()
    with gatewire.Client(config=config) as c:
        c.add_failure_observer(observed)
        try:
            result = c.call(method, f"/fault/{key}/{script}", headers=headers, **({"json": {}} if method == "POST" else {}))
            count = len(result.attempts)
            assert observed.kinds == []
        except gatewire.CallError as error:
            count = len(error.attempts)
            assert len(observed.kinds) == 1  # exactly once per failed call
    with gatewire.Client(server) as plain:
        assert plain.call("GET", f"/fault/{key}/count").json()["count"] == count
    return count


def urllib3_attempts(server: str, method: str, script: str, retries: int, headers: dict[str, str]) -> int:
    key = new_key()
    retry = Retry(total=retries, backoff_factor=0.01, status_forcelist=RETRYABLE,
                  allowed_methods=Retry.DEFAULT_ALLOWED_METHODS, raise_on_status=False)
    with urllib3.PoolManager(retries=retry, timeout=urllib3.Timeout(connect=5, read=5)) as http:
        try:
            http.request(method, f"{server}/fault/{key}/{script}", headers=headers,
                         body=b"{}" if method == "POST" else None)
        except (urllib3.exceptions.HTTPError, OSError):
            pass
        with gatewire.Client(server) as plain:
            return plain.call("GET", f"/fault/{key}/count").json()["count"]


SAME = [
    # (method, script, max_retries): configured alike, the two agree on the attempt count.
    ("GET", "503", 0),
    ("GET", "503", 1),
    ("GET", "503", 3),
    ("GET", "503,503,503,200", 3),
    ("GET", "502,504,200", 3),
    ("GET", "503+ra1,200", 2),
    ("GET", "reset-after,200", 2),
    ("GET", "reset-before,reset-after,200", 3),
    ("GET", "404", 3),
    ("PUT", "500,200", 2),
    ("POST", "503,200", 3),
    ("POST", "reset-after,200", 3),
]


@pytest.mark.parametrize(("method", "script", "retries"), SAME)
def test_attempt_counts_equal_urllib3(server: str, library: str, method: str, script: str, retries: int) -> None:
    assert gatewire_attempts(server, method, script, retries, {}) == urllib3_attempts(
        server, method, script, retries, {})


def test_connection_refused_post_is_retried_by_both(closed_port: int, library: str) -> None:
    url = f"http://127.0.0.1:{closed_port}"
    config = {"baseURL": url, "retry": {"maxRetries": 2, "initialDelay": 0.01, "jitter": "none"}}
    with gatewire.Client(config=config) as c, pytest.raises(gatewire.ConnectionFailed) as caught:
        c.call("POST", "/x", json={})
    increments: list[Any] = []

    class CountingRetry(Retry):
        def increment(self, *args: Any, **kwargs: Any) -> Retry:
            increments.append(kwargs.get("error"))
            return super().increment(*args, **kwargs)

    with urllib3.PoolManager(retries=CountingRetry(total=2, backoff_factor=0.01)) as http:
        with pytest.raises(urllib3.exceptions.MaxRetryError):
            http.request("POST", f"{url}/x", body=b"{}")
    # Nothing was sent, so both retry a POST: 3 attempts (urllib3 calls increment once per
    # failed attempt, the last one raising MaxRetryError).
    assert len(caught.value.attempts) == 3 == len(increments)


def test_where_the_decisions_differ_post_with_an_idempotency_key(server: str, library: str) -> None:
    # Decision 3: a POST with an Idempotency-Key is safe to retry after the request was sent,
    # so Gatewire retries the 503 and the reset. urllib3 knows no such header: POST is not in
    # its allowed_methods, so it makes one attempt on the same script.
    headers = {"Idempotency-Key": "order-42"}
    assert gatewire_attempts(server, "POST", "503,reset-after,200", 3, headers) == 3
    assert urllib3_attempts(server, "POST", "503,reset-after,200", 3, headers) == 1
