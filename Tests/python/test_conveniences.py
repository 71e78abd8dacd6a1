"""accept_any_status with raise_for_status, CallError.response, and timeout= (a number or a
Timeouts), on the sync and async clients, against the test server."""

from __future__ import annotations

import asyncio
import time

import pytest

import gatewire


def test_accept_any_status_returns_the_response_and_raise_for_status_raises(client: gatewire.Client) -> None:
    result = client.get("/status/404", accept_any_status=True)
    assert (result.status, result.ok, result.json()) == (404, False, {"status": 404})
    with pytest.raises(gatewire.HTTPStatusError) as caught:
        result.raise_for_status()
    assert (caught.value.status, caught.value.path) == (404, "/status/404")
    fine = client.get("/echo", accept_any_status=True)
    assert fine.ok and fine.raise_for_status() is fine
    with pytest.raises(gatewire.HTTPStatusError):  # without the opt-in, still raised
        client.get("/status/404")
    future = client.call_async("GET", "/status/500", accept_any_status=True, max_retries=0)
    assert future.result(timeout=10).status == 500


def test_accept_any_status_keeps_other_failures_and_the_retries(client: gatewire.Client, closed_port: int,
                                                                 key: str, server: str) -> None:
    result = client.get(f"/fault/{key}/503,404", accept_any_status=True)
    assert (result.status, [a.status for a in result.attempts]) == (404, [503, 404])
    with gatewire.Client(f"http://127.0.0.1:{closed_port}") as dead:
        with pytest.raises(gatewire.ConnectionFailed):
            dead.get("/", accept_any_status=True, max_retries=0)


def test_call_many_accepts_any_status_per_item(client: gatewire.Client) -> None:
    outcomes = list(client.call_many([
        {"method": "GET", "path": "/status/404", "accept_any_status": True},
        {"method": "GET", "path": "/status/404"},
    ]))
    assert isinstance(outcomes[0], gatewire.Result) and outcomes[0].status == 404 and not outcomes[0].ok
    assert isinstance(outcomes[1], gatewire.HTTPStatusError)


def test_async_accept_any_status(server: str, library: str) -> None:
    async def main() -> tuple[int, bool]:
        async with gatewire.AsyncClient(server) as c:
            result = await c.get("/status/418", accept_any_status=True)
            return result.status, result.ok

    assert asyncio.run(main()) == (418, False)


def test_call_error_response(client: gatewire.Client, closed_port: int) -> None:
    with pytest.raises(gatewire.HTTPStatusError) as caught:
        client.get("/status/418")
    response = caught.value.response
    assert response is not None
    assert (response.status, response.json(), response.text) == (418, {"status": 418}, '{"status": 418}')
    assert response.header("content-type") == "application/json"
    assert response.headers == caught.value.headers and response.body == caught.value.body
    with gatewire.Client(f"http://127.0.0.1:{closed_port}") as dead:
        with pytest.raises(gatewire.ConnectionFailed) as failed:
            dead.get("/", max_retries=0)
    assert failed.value.response is None


def test_timeout_as_a_number_is_the_whole_call(client: gatewire.Client, server: str) -> None:
    # Timeouts are retried by default: a per-attempt limit of 1 s took 3 attempts and 3.4 s.
    with pytest.raises(gatewire.Timeout) as caught:
        client.get("/delay/3000", timeout=1)
    assert caught.value.kind == gatewire.ErrorKind.deadline
    assert len(caught.value.attempts) == 1
    with gatewire.Client(server, timeout=1) as per_client:  # the same as the client's default
        with pytest.raises(gatewire.Timeout) as caught:
            per_client.get("/delay/3000")
    assert (caught.value.kind, len(caught.value.attempts)) == (gatewire.ErrorKind.deadline, 1)


def test_timeout_object_sets_the_deadline(client: gatewire.Client) -> None:
    with pytest.raises(gatewire.Timeout) as caught:
        client.get("/delay/3000", timeout=gatewire.Timeouts(deadline=0.3))
    assert caught.value.kind == gatewire.ErrorKind.deadline


def test_timeout_arguments_checked(client: gatewire.Client, server: str) -> None:
    with pytest.raises(gatewire.InvalidArgument, match="timeout.connect: the connect timeout is per client"):
        client.get("/echo", timeout=gatewire.Timeouts(connect=1))
    with pytest.raises(gatewire.InvalidArgument, match="pass timeout or deadline, not both"):
        client.get("/echo", timeout=1, deadline=2)
    with pytest.raises(TypeError, match="timeout must be a number"):
        client.get("/echo", timeout="1")  # type: ignore[arg-type]
    with pytest.raises(gatewire.InvalidArgument, match="deadline"):  # the library's range
        client.get("/echo", timeout=-1)
    with pytest.raises(gatewire.InvalidArgument, match="config_path"):
        gatewire.Client(server, config_path="x.json", timeout=1)


def test_client_timeout_lays_over_the_config(server: str, library: str) -> None:
    with gatewire.Client(server, timeout=gatewire.Timeouts(connect=2, attempt=0.2)) as c:
        with pytest.raises(gatewire.Timeout):
            c.get("/delay/3000", max_retries=0)
        assert c.get("/delay/10").status == 200
    config = {"baseURL": server, "timeouts": {"attempt": 0.2}}
    with gatewire.Client(config=config, timeout=gatewire.Timeouts(deadline=10)) as c:
        with pytest.raises(gatewire.Timeout) as caught:  # the config's attempt limit stays
            c.get("/delay/3000", max_retries=0)
        assert caught.value.kind == gatewire.ErrorKind.timeout
    with pytest.raises(gatewire.ConfigError, match="timeouts.deadline"):
        gatewire.Client(server, timeout=-1)
