"""Client.call_many: many calls through a completion queue, outcomes in order."""

from __future__ import annotations

import gc
import itertools
import threading
import time

import pytest

import gatewire


def test_outcomes_come_in_input_order_with_their_own_bodies(client: gatewire.Client) -> None:
    calls = [{"method": "GET", "path": "/echo", "params": {"i": i}} for i in range(50)]
    outcomes = list(client.call_many(calls, in_flight=8))

    assert len(outcomes) == 50
    for i, result in enumerate(outcomes):
        assert isinstance(result, gatewire.Result)
        assert result.status == 200
        assert result.json()["query"] == {"i": str(i)}


def test_a_result_reads_everything_lazily_like_call_does(client: gatewire.Client) -> None:
    expected = client.call("GET", "/echo", headers={"X-Probe": "1"})
    (result,) = client.call_many([{"method": "get", "path": "/echo", "headers": {"X-Probe": "1"}}])

    assert isinstance(result, gatewire.Result)
    assert (result.status, result.method, result.path) == (expected.status, expected.method, expected.path)
    assert result.json()["headers"]["x-probe"] == "1"
    assert [name.lower() for name, _ in result.headers] == [name.lower() for name, _ in expected.headers]
    assert result.header("content-type") == expected.header("content-type")
    assert len(result.attempts) == 1 and result.attempts[0].status == 200
    assert result.mapped is None and result.metadata == expected.metadata
    assert "GET /echo 200" in repr(result)


def test_a_result_outlives_the_client_and_other_threads_read_it(server: str, library: str) -> None:
    with gatewire.Client(server) as client:
        results = list(client.call_many([{"method": "GET", "path": "/echo"}] * 3))
    seen: list[str] = []
    thread = threading.Thread(target=lambda: seen.extend(r.path for r in results))
    thread.start()
    thread.join(10)
    assert seen == ["/echo"] * 3
    assert all(r.headers for r in results)
    del results
    gc.collect()  # the native results are freed with their Results


def test_failures_are_returned_not_raised(client: gatewire.Client) -> None:
    calls = [{"method": "GET", "path": "/status/418"}, {"method": "GET", "path": "/echo"}, {"route": "nope"}]
    first, second, third = client.call_many(calls)

    assert isinstance(first, gatewire.HTTPStatusError) and first.status == 418
    assert isinstance(second, gatewire.Result) and second.status == 200
    assert isinstance(third, gatewire.CallError) and third.kind == gatewire.ErrorKind.invalid_argument


def test_calls_are_consumed_lazily_and_the_window_is_kept(client: gatewire.Client) -> None:
    pulled = 0

    def calls():  # endless
        nonlocal pulled
        while True:
            pulled += 1
            yield {"method": "GET", "path": "/echo"}

    outcomes = client.call_many(calls(), in_flight=4)
    taken = list(itertools.islice(outcomes, 10))
    assert len(taken) == 10 and all(r.status == 200 for r in taken)
    # Lazily: the 10 taken, at most 4 running (the window), and the few that finished ahead of
    # the oldest and wait in order (a loaded machine saw one: 15); never the endless rest.
    assert pulled <= 10 + 4 * 4
    outcomes.close()  # the calls still running finish in the library; their results are dropped


def test_reused_options_and_changing_options(client: gatewire.Client) -> None:
    same = {"method": "GET", "path": "/echo"}
    mutable = {"method": "GET", "path": "/echo", "params": {"i": 0}}
    calls = []
    for i in range(6):
        calls.append(same)
        mutable = dict(mutable, params={"i": i})
        calls.append(mutable)
    outcomes = list(client.call_many(calls, in_flight=3))
    assert [r.json()["query"] for r in outcomes[1::2]] == [{"i": str(i)} for i in range(6)]
    assert all(r.json()["query"] == {} for r in outcomes[::2])


def test_a_dict_changed_in_place_between_items_is_not_reused_stale(client: gatewire.Client) -> None:
    spec = {"method": "GET", "path": "/echo?i=0"}

    def calls():
        for i in range(4):
            spec["path"] = f"/echo?i={i}"
            yield spec

    paths = [r.path for r in client.call_many(calls(), in_flight=1)]
    assert paths == [f"/echo?i={i}" for i in range(4)]


def test_equal_options_of_another_type_are_not_reused(client: gatewire.Client) -> None:
    # 1 == True == 1.0 in Python, but each is another JSON body.
    calls = [{"method": "POST", "path": "/echo", "json": value} for value in (1, True, 1.0, 1)]
    bodies = [r.json()["body"] for r in client.call_many(calls, in_flight=1)]
    assert [(type(body), body) for body in bodies] == [(int, 1), (bool, True), (float, 1.0), (int, 1)]


def test_arguments_are_checked(client: gatewire.Client) -> None:
    with pytest.raises(gatewire.InvalidArgument):
        client.call_many([], in_flight=0)
    with pytest.raises(TypeError):
        list(client.call_many([{"method": "GET", "path": "/echo", "bogus": 1}]))
    with pytest.raises(gatewire.InvalidArgument):
        list(client.call_many([{"method": "GET"}]))
    with pytest.raises(gatewire.InvalidArgument):
        list(client.call_many([{"method": "GET", "path": "/echo", "retry_test": lambda a: None}]))
    # The library's ranges and messages (gw_call_options), the same for every call form.
    with pytest.raises(gatewire.InvalidArgument, match=r"^max_retries: -2 is out of range \(-1 = the route's or client's policy, or 0\.\.\.100 retries\)$"):
        list(client.call_many([{"method": "GET", "path": "/echo", "max_retries": -2}]))
    with pytest.raises(gatewire.InvalidArgument, match=r"^max_retries: 101 is out of range "):
        client.call("GET", "/echo", max_retries=101)
    with pytest.raises(gatewire.InvalidArgument, match=r"^attempt_timeout: 0\.0001 is out of range \(0 = the client's, or 0\.001\.\.\.86400 seconds\)$"):
        client.call("GET", "/echo", attempt_timeout=0.0001)
    with pytest.raises(gatewire.InvalidArgument, match=r"^deadline: -1\.0 is out of range "):
        client.call("GET", "/echo", deadline=-1)
    with pytest.raises(TypeError):  # ctypes: a str where the struct holds an int
        client.call("GET", "/echo", max_retries="3")  # type: ignore[arg-type]
    assert list(client.call_many([])) == []


def test_closing_the_client_cancels_and_then_refuses(server: str, library: str) -> None:
    client = gatewire.Client(server)
    outcomes = client.call_many([{"method": "GET", "path": "/delay/5000"}] * 2 + [{"method": "GET", "path": "/echo"}],
                                in_flight=2)
    closer = threading.Timer(0.2, client.close)
    closer.start()
    started = time.monotonic()
    first = next(outcomes)
    assert isinstance(first, gatewire.Cancelled)
    assert time.monotonic() - started < 3
    with pytest.raises(gatewire.GatewireError, match="closed"):
        list(outcomes)
    closer.join()


def test_on_the_loop_thread_it_raises_would_deadlock(client: gatewire.Client) -> None:
    caught: list[BaseException] = []
    done = threading.Event()

    def on_done(_future: object) -> None:
        try:
            list(client.call_many([{"method": "GET", "path": "/echo"}]))
        except BaseException as error:  # noqa: BLE001
            caught.append(error)
        done.set()

    client.call_async("GET", "/echo").add_done_callback(on_done)
    assert done.wait(10)
    assert caught and isinstance(caught[0], gatewire.WouldDeadlock)
