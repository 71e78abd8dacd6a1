"""Authentication against a real httpbin (gunicorn on 127.0.0.1, the ``httpbin`` fixture):
``/bearer`` answers 401 without a bearer token and 200 with any; ``/basic-auth/<u>/<p>``
answers 401 unless the basic credentials match."""

from __future__ import annotations

import threading
import time

import pytest

import gatewire


def test_a_credential_without_a_token_refreshes_once_and_replays_inside_the_call(httpbin: str) -> None:
    refreshed: list[str | None] = []
    credential = gatewire.RefreshingCredential(lambda current: refreshed.append(current) or "py-fresh-token")
    observed: list[int] = []
    with gatewire.Client(httpbin, credential=credential) as client:
        client.add_failure_observer(lambda error: observed.append(error.status))
        result = client.call("GET", "/bearer")
        assert result.status == 200
        assert [attempt.status for attempt in result.attempts] == [401, 200]
        assert result.json() == {"authenticated": True, "token": "py-fresh-token"}
        again = client.call("GET", "/bearer")  # signed from now on
        assert [attempt.status for attempt in again.attempts] == [200]
    assert refreshed == [None]
    assert credential.refresh_count == 1
    assert observed == []


def test_a_wrong_password_fires_the_401_observer_once_and_the_no_connection_one_never(httpbin: str) -> None:
    unauthorized: list[int] = []
    offline: list[int] = []
    config = {"baseURL": httpbin, "plugins": [{"name": "basic", "username": "ann", "password": "wrong"}]}
    with gatewire.Client(config=config) as client:
        client.add_failure_observer(lambda error: unauthorized.append(error.status), status=401)
        client.add_failure_observer(lambda error: offline.append(error.status), no_response=True)
        with pytest.raises(gatewire.HTTPStatusError) as raised:
            client.call("GET", "/basic-auth/ann/secret")
        assert raised.value.status == 401
        assert unauthorized == [401]  # before the call's own failure
    assert unauthorized == [401]
    assert offline == []
    right = {"baseURL": httpbin, "plugins": [{"name": "basic", "username": "ann", "password": "secret"}]}
    with gatewire.Client(config=right) as client:
        assert client.call("GET", "/basic-auth/ann/secret").json()["authenticated"] is True


def test_five_concurrent_calls_without_a_token_share_one_refresh(httpbin: str) -> None:
    refreshed: list[str | None] = []
    lock = threading.Lock()

    def refresh(current: str | None) -> str:
        with lock:
            refreshed.append(current)
        time.sleep(0.3)  # answers late, so every call's 401 arrives while it runs (on a worker thread)
        return "py-shared-token"

    credential = gatewire.RefreshingCredential(refresh)
    with gatewire.Client(httpbin, credential=credential) as client:
        futures = [client.call_async("GET", "/bearer") for _ in range(5)]
        results = [future.result(timeout=30) for future in futures]
    assert [result.status for result in results] == [200] * 5
    assert all([attempt.status for attempt in result.attempts] == [401, 200] for result in results)
    assert refreshed == [None]
    assert credential.refresh_count == 1
