"""Retries: the policy from the config, idempotency, per-call retry tests."""

from __future__ import annotations

from typing import Any, Callable

import pytest

import gatewire

FAST_RETRY = {"maxRetries": 2, "initialDelay": 0.01, "maxDelay": 0.05}


@pytest.fixture
def fast_client(server: str, library: str) -> Any:
    with gatewire.Client(config={"baseURL": server, "retry": FAST_RETRY}) as c:
        yield c


def test_get_503_then_200_succeeds_on_the_second_attempt(
    fast_client: gatewire.Client, key: str, sequence_count: Callable[[str], int]
) -> None:
    result = fast_client.call("GET", f"/sequence/{key}/503,200", max_retries=2)

    assert result.status == 200
    assert result.json() == {"key": key, "attempt": 2, "status": 200}
    assert [a.status for a in result.attempts] == [503, 200]
    assert result.attempts[0].delay is not None and 0 <= result.attempts[0].delay <= 0.1
    assert sequence_count(key) == 2


def test_post_is_not_retried_by_default(
    fast_client: gatewire.Client, key: str, sequence_count: Callable[[str], int]
) -> None:
    with pytest.raises(gatewire.HTTPStatusError) as caught:
        fast_client.call("POST", f"/sequence/{key}/503,200", json={"x": 1})

    assert caught.value.status == 503
    assert len(caught.value.attempts) == 1
    assert sequence_count(key) == 1


def test_retry_test_is_asked_once_per_failed_attempt_and_obeyed(
    fast_client: gatewire.Client, key: str, sequence_count: Callable[[str], int]
) -> None:
    calls: list[tuple[int, int, str]] = []

    def retry_once(attempt: gatewire.AttemptInfo) -> bool:
        calls.append((attempt.number, attempt.status, str(attempt.error_kind)))
        return attempt.number < 2  # retry after the first failure, stop after the second

    with pytest.raises(gatewire.HTTPStatusError) as caught:
        fast_client.call("GET", f"/sequence/{key}/503,502,500,200", max_retries=3, retry_test=retry_once)

    assert calls == [(1, 503, "none"), (2, 502, "none")]
    assert caught.value.status == 502
    assert sequence_count(key) == 2


def test_retry_test_can_retry_a_post_after_a_given_delay(
    fast_client: gatewire.Client, key: str, sequence_count: Callable[[str], int]
) -> None:
    seen: list[int] = []

    def retry_quickly(attempt: gatewire.AttemptInfo) -> float:
        seen.append(attempt.status)
        return 0.02  # seconds

    result = fast_client.call("POST", f"/sequence/{key}/503,200", json={}, retry_test=retry_quickly)

    assert result.status == 200
    assert seen == [503]
    assert result.attempts[0].delay == pytest.approx(0.02, abs=0.005)
    assert sequence_count(key) == 2


def test_retry_test_none_uses_the_policy_and_exceptions_are_contained(
    fast_client: gatewire.Client, key: str, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(attempt: gatewire.AttemptInfo) -> None:
        raise ValueError("boom in retry test")

    result = fast_client.call("GET", f"/sequence/{key}/503,200", retry_test=broken)

    assert result.status == 200  # the policy retried the GET
    assert "boom in retry test" in caplog.text


def test_retry_test_reads_response_headers_during_the_callback(fast_client: gatewire.Client) -> None:
    values: list[str | None] = []
    kept: list[gatewire.AttemptInfo] = []

    def look(attempt: gatewire.AttemptInfo) -> bool:
        values.append(attempt.header("Retry-After"))
        kept.append(attempt)
        return False

    with pytest.raises(gatewire.HTTPStatusError):
        fast_client.call("GET", "/status/503", params={"retry_after": "0"}, retry_test=look)

    assert values == ["0"]
    with pytest.raises(RuntimeError):
        kept[0].header("Retry-After")  # only valid during the callback


def test_max_retries_zero_makes_one_attempt(fast_client: gatewire.Client, key: str) -> None:
    with pytest.raises(gatewire.HTTPStatusError) as caught:
        fast_client.call("GET", f"/sequence/{key}/503,200", max_retries=0)
    assert len(caught.value.attempts) == 1


def test_deadline_and_attempt_timeout(client: gatewire.Client) -> None:
    with pytest.raises(gatewire.Timeout) as caught:
        client.call("GET", "/delay/3000", deadline=0.3)
    assert caught.value.kind == gatewire.ErrorKind.deadline

    with pytest.raises(gatewire.Timeout) as caught:
        client.call("GET", "/delay/3000", attempt_timeout=0.3, max_retries=0)
    assert caught.value.kind == gatewire.ErrorKind.timeout
    assert caught.value.status == 0
