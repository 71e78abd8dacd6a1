"""Plain calls: status, echo, headers, JSON bodies, concurrency, the GIL, result lifetime."""

from __future__ import annotations

import threading
import time

import pytest

import gatewire


def test_get_returns_status_and_echoed_body(client: gatewire.Client) -> None:
    result = client.call("GET", "/echo/hello", params={"q": "two words"})

    assert result.ok
    assert result.status == 200
    assert result.method == "GET"
    echo = result.json()
    assert echo["method"] == "GET"
    assert echo["path"] == "/echo/hello"
    assert echo["query"] == {"q": "two words"}
    assert result.path == "/echo/hello?q=two%20words"
    assert result.header("content-type").startswith("application/json")
    assert len(result.attempts) == 1
    assert result.attempts[0].attempt == 1
    assert result.attempts[0].status == 200


def test_headers_and_json_body_are_sent(client: gatewire.Client) -> None:
    body = {"name": "Ada", "tags": ["x", "y"], "n": 3}
    result = client.call("POST", "/echo/items", headers={"X-Trace-Id": "abc-123"}, json=body)

    echo = result.json()
    assert echo["method"] == "POST"
    assert echo["headers"]["x-trace-id"] == "abc-123"
    assert echo["headers"]["content-type"].startswith("application/json")
    assert echo["body"] == body


def test_fifty_concurrent_async_calls_get_their_own_bodies(client: gatewire.Client) -> None:
    futures = {n: client.call_async("GET", "/echo/concurrent", params={"n": str(n)}) for n in range(50)}

    for n, future in futures.items():
        result = future.result(timeout=10)
        assert result.status == 200
        assert result.json()["query"] == {"n": str(n)}


def test_blocking_call_releases_the_gil(client: gatewire.Client) -> None:
    progress = 0
    stop = threading.Event()

    def spin() -> None:
        nonlocal progress
        while not stop.is_set():
            progress += 1

    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        time.sleep(0.05)
        before = progress
        started = time.monotonic()
        result = client.call("GET", "/delay/300")
        elapsed = time.monotonic() - started
        during = progress - before
    finally:
        stop.set()
        spinner.join(timeout=5)

    assert result.status == 200
    assert elapsed >= 0.3
    # With the GIL held for 300 ms the spinner would barely move; released, it counts freely.
    assert during > 100_000, f"the spinner made only {during} steps while the call waited"


def test_result_is_immutable_and_copied(client: gatewire.Client) -> None:
    result = client.call("GET", "/echo")
    try:
        result.status = 500  # type: ignore[misc]
    except AttributeError:
        pass
    else:
        raise AssertionError("Result must be immutable")
    assert isinstance(result.body, bytes)
    assert result.text == result.body.decode()


def test_version_is_semver() -> None:
    parts = gatewire.version().split(".")
    assert len(parts) == 3 and all(p.isdigit() for p in parts)


def test_result_headers_are_all_pairs_in_received_order(client: gatewire.Client) -> None:
    result = client.call("GET", "/echo")

    assert isinstance(result.headers, tuple)
    assert all(isinstance(pair, tuple) and len(pair) == 2 for pair in result.headers)
    assert all(isinstance(name, str) and isinstance(value, str) for name, value in result.headers)
    by_name = [(name.lower(), value) for name, value in result.headers]
    content_types = [value for name, value in by_name if name == "content-type"]
    assert len(content_types) == 1 and content_types[0].startswith("application/json")
    assert ("content-length", str(len(result.body))) in by_name
    # header() answers from the same pairs, case-insensitively; an absent name is None.
    assert result.header("CONTENT-TYPE") == result.header("content-type") == content_types[0]
    assert result.header("X-Not-Sent") is None
    try:
        result.headers = ()  # type: ignore[misc]
    except AttributeError:
        pass
    else:
        raise AssertionError("Result.headers must be read-only")


def test_native_results_are_freed_once_as_soon_as_they_are_copied(
    client: gatewire.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    native = gatewire._native.lib
    real_free = native.gw_result_free
    freed: list[int] = []

    def counting_free(pointer: int | None) -> None:
        freed.append(pointer or 0)
        real_free(pointer)

    monkeypatch.setattr(native, "gw_result_free", counting_free)
    result = client.call("GET", "/echo")
    assert len(freed) == 1 and freed[0]
    with pytest.raises(gatewire.HTTPStatusError) as caught:
        client.call("GET", "/status/404")
    assert len(freed) == 2 and freed[1]
    client.call_async("GET", "/echo").result(timeout=10)
    assert len(freed) == 3 and freed[2]  # the completion freed it before resolving the future

    # Everything stays readable after the native results are gone.
    monkeypatch.undo()
    assert result.header("content-type").startswith("application/json")
    assert caught.value.header("Content-Type").startswith("application/json")
    assert caught.value.status == 404
