"""Failure observers and plugins."""

from __future__ import annotations

import pickle
from typing import Callable

import pytest

import gatewire


def test_failure_observer_fires_once_per_failed_call(server: str, key: str) -> None:
    seen: list[gatewire.CallError] = []
    config = {"baseURL": server, "retry": {"maxRetries": 2, "initialDelay": 0.01, "maxDelay": 0.05}}
    with gatewire.Client(config=config) as client:
        client.add_failure_observer(seen.append)

        client.call("GET", "/echo")  # success: not observed
        with pytest.raises(gatewire.HTTPStatusError):
            client.call("GET", f"/sequence/{key}/503")  # 3 attempts, one failed call

    assert len(seen) == 1
    assert isinstance(seen[0], gatewire.HTTPStatusError)
    assert seen[0].status == 503
    assert len(seen[0].attempts) == 3


def test_failure_observer_sees_connection_refused(closed_port: int, library: str) -> None:
    seen: list[gatewire.CallError] = []
    config = {"baseURL": f"http://127.0.0.1:{closed_port}", "retry": {"maxRetries": 1, "initialDelay": 0.01}}
    with gatewire.Client(config=config) as client:
        client.add_failure_observer(seen.append)
        with pytest.raises(gatewire.ConnectionFailed) as caught:
            client.call("GET", "/echo")

    assert caught.value.kind == gatewire.ErrorKind.connect
    assert caught.value.status == 0
    assert len(seen) == 1
    assert seen[0].kind == gatewire.ErrorKind.connect
    assert seen[0].status == 0


def test_removed_observer_is_not_called(client: gatewire.Client) -> None:
    seen: list[int] = []
    observer_id = client.add_failure_observer(lambda error: seen.append(error.status))
    with pytest.raises(gatewire.HTTPStatusError):
        client.call("GET", "/status/404")
    client.remove_failure_observer(observer_id)
    with pytest.raises(gatewire.HTTPStatusError):
        client.call("GET", "/status/404")

    assert seen == [404]
    with pytest.raises(gatewire.InvalidArgument):
        client.remove_failure_observer(observer_id)


def test_observer_exceptions_are_contained(client: gatewire.Client, caplog: pytest.LogCaptureFixture) -> None:
    def broken(error: gatewire.CallError) -> None:
        raise RuntimeError("boom in observer")

    client.add_failure_observer(broken)
    with pytest.raises(gatewire.HTTPStatusError):
        client.call("GET", "/status/500")
    assert "boom in observer" in caplog.text


class Stamp(gatewire.Plugin):
    """Adds a header to every attempt and records each outcome."""

    name = "stamp"

    def __init__(self) -> None:
        self.outcomes: list[tuple[int, int]] = []
        self.methods: list[str] = []

    def prepare(self, request: gatewire.PreparedRequest) -> None:
        self.methods.append(request.method)
        request.set_header("X-Stamp", "s-1")
        assert request.header("x-stamp") == "s-1"

    def did_receive(self, attempt: gatewire.AttemptInfo) -> None:
        self.outcomes.append((attempt.number, attempt.status))


def test_plugin_adds_a_header(server: str, library: str) -> None:
    stamp = Stamp()
    with gatewire.Client(server, plugins=[stamp]) as client:
        result = client.call("GET", "/headers")

    headers = result.json()
    headers = headers.get("headers", headers)
    assert headers["x-stamp"] == "s-1"
    assert stamp.methods == ["GET"]
    assert stamp.outcomes == [(1, 200)]


class Refuse(gatewire.Plugin):
    def prepare(self, request: gatewire.PreparedRequest) -> None:
        raise PermissionError("no token available")


def test_plugin_whose_prepare_raises_fails_the_call_without_sending(
    server: str, key: str, sequence_count: Callable[[str], int], caplog: pytest.LogCaptureFixture
) -> None:
    with gatewire.Client(server, plugins=[Refuse()]) as client:
        with pytest.raises(gatewire.PluginError) as caught:
            client.call("GET", f"/sequence/{key}/200")

    assert caught.value.kind == gatewire.ErrorKind.plugin
    assert caught.value.status == 0
    assert "no token available" in caplog.text
    assert sequence_count(key) == 0


def test_plugin_can_rewrite_the_url(server: str, library: str) -> None:
    class Redirect(gatewire.Plugin):
        def prepare(self, request: gatewire.PreparedRequest) -> None:
            request.set_url(request.url.replace("/echo/old", "/echo/new"))

    with gatewire.Client(server, plugins=[Redirect()]) as client:
        assert client.call("GET", "/echo/old").json()["path"] == "/echo/new"


def test_observer_error_stays_usable_after_the_observer_returned(client: gatewire.Client) -> None:
    seen: list[gatewire.CallError] = []
    answered_inside: list[str | None] = []

    def observer(error: gatewire.CallError) -> None:
        answered_inside.append(error.header("retry-after"))
        seen.append(error)

    client.add_failure_observer(observer)
    with pytest.raises(gatewire.HTTPStatusError) as caught:
        client.call("GET", "/status/503", params={"retry_after": "7"}, max_retries=0)

    assert answered_inside == ["7"]
    (error,) = seen
    assert error is not caught.value  # the observer got its own copy
    assert isinstance(error, gatewire.HTTPStatusError)
    # After the callback: headers, header() and the rest are still answered.
    assert error.header("Retry-After") == error.header("RETRY-AFTER") == "7"
    assert error.header("content-type").startswith("application/json")
    assert error.header("X-Not-Sent") is None
    assert ("retry-after", "7") in [(name.lower(), value) for name, value in error.headers]
    assert error.headers == caught.value.headers
    assert error.status == 503
    assert error.body == caught.value.body
    with pytest.raises(AttributeError):
        error.headers = ()  # type: ignore[misc]


def test_call_error_without_a_response_has_no_headers(closed_port: int, library: str) -> None:
    seen: list[gatewire.CallError] = []
    with gatewire.Client(f"http://127.0.0.1:{closed_port}") as client:
        client.add_failure_observer(seen.append)
        with pytest.raises(gatewire.ConnectionFailed) as caught:
            client.call("GET", "/echo", max_retries=0)

    assert caught.value.headers == () and seen[0].headers == ()
    assert caught.value.header("Content-Type") is None


def test_call_error_pickles_with_its_headers(client: gatewire.Client) -> None:
    with pytest.raises(gatewire.HTTPStatusError) as caught:
        client.call("GET", "/status/503", params={"retry_after": "3"}, max_retries=0)

    copy = pickle.loads(pickle.dumps(caught.value))
    assert type(copy) is gatewire.HTTPStatusError
    assert copy.headers == caught.value.headers
    assert copy.header("retry-after") == "3"
    assert copy.status == 503 and copy.kind == gatewire.ErrorKind.http_status
