"""Asynchronous calls: futures, cancellation, callbacks on the loop thread, closing."""

from __future__ import annotations

import concurrent.futures
import gc
import queue
import threading
import time
from typing import Callable

import pytest

import gatewire


def test_call_async_resolves_off_the_calling_thread(client: gatewire.Client) -> None:
    threads: queue.Queue[int] = queue.Queue()
    future = client.call_async("GET", "/delay/100")
    future.add_done_callback(lambda f: threads.put(threading.get_ident()))

    assert future.result(timeout=10).status == 200
    assert threads.get(timeout=10) != threading.get_ident()


def test_call_async_failure_raises_from_result(client: gatewire.Client) -> None:
    future = client.call_async("GET", "/status/418")
    with pytest.raises(gatewire.HTTPStatusError) as caught:
        future.result(timeout=10)
    assert caught.value.status == 418
    assert isinstance(future.exception(timeout=0), gatewire.HTTPStatusError)


def test_cancel_stops_a_slow_call_quickly(client: gatewire.Client) -> None:
    future = client.call_async("GET", "/delay/5000")
    time.sleep(0.2)
    started = time.monotonic()

    assert future.cancel()
    with pytest.raises(gatewire.Cancelled) as caught:
        future.result(timeout=3)

    assert time.monotonic() - started < 1.0
    assert caught.value.kind == gatewire.ErrorKind.cancelled
    assert isinstance(caught.value, concurrent.futures.CancelledError)
    assert future.cancelled()
    assert not future.cancel()  # already finished


def test_blocking_call_in_a_completion_callback_raises_would_deadlock(client: gatewire.Client) -> None:
    outcome: queue.Queue[object] = queue.Queue()

    def blocking_inside(_: concurrent.futures.Future) -> None:
        try:
            client.call("GET", "/echo")
            outcome.put("returned")
        except Exception as error:  # noqa: BLE001 - the test inspects it
            outcome.put(error)

    future = client.call_async("GET", "/delay/200")
    future.add_done_callback(blocking_inside)
    future.result(timeout=10)

    assert isinstance(outcome.get(timeout=10), gatewire.WouldDeadlock)


def test_blocking_call_in_an_observer_raises_would_deadlock_but_async_works(client: gatewire.Client) -> None:
    outcome: queue.Queue[object] = queue.Queue()
    chained: list[gatewire.CallFuture] = []

    def observer(error: gatewire.CallError) -> None:
        try:
            client.call("GET", "/echo")
            outcome.put("returned")
        except Exception as caught:  # noqa: BLE001
            outcome.put(caught)
        chained.append(client.call_async("GET", "/echo/from-observer"))

    client.add_failure_observer(observer)
    with pytest.raises(gatewire.HTTPStatusError):
        client.call("GET", "/status/500")

    assert isinstance(outcome.get(timeout=10), gatewire.WouldDeadlock)
    assert chained[0].result(timeout=10).json()["path"] == "/echo/from-observer"


def test_closing_the_client_cancels_running_calls(server: str, library: str) -> None:
    client = gatewire.Client(server)
    future = client.call_async("GET", "/delay/5000")
    time.sleep(0.1)
    started = time.monotonic()
    client.close()

    with pytest.raises(gatewire.Cancelled):
        future.result(timeout=5)
    assert time.monotonic() - started < 2.0
    assert client.closed
    with pytest.raises(gatewire.GatewireError):
        client.call("GET", "/echo")
    client.close()  # idempotent


def test_a_garbage_collected_client_cancels_its_calls(server: str, library: str) -> None:
    client = gatewire.Client(server)
    future = client.call_async("GET", "/delay/5000")
    del client
    gc.collect()

    with pytest.raises(gatewire.Cancelled):
        future.result(timeout=5)


def test_close_from_inside_a_completion_callback(server: str, library: str) -> None:
    client = gatewire.Client(server)
    closed = threading.Event()

    def close_it(_: concurrent.futures.Future) -> None:
        client.close()  # on the loop thread: the library detaches instead of joining
        closed.set()

    future = client.call_async("GET", "/delay/100")
    future.add_done_callback(close_it)

    assert future.result(timeout=10).status == 200
    assert closed.wait(timeout=10)
    assert client.closed


class _CountStarts(gatewire.Plugin):
    """Counts started attempts (prepare runs on the loop thread before each is sent)."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.count = 0
        self.lock = threading.Lock()
        self.all_started = threading.Event()

    def prepare(self, request: gatewire.PreparedRequest) -> None:
        with self.lock:
            self.count += 1
            if self.count >= self.expected:
                self.all_started.set()


def _close_within(client: gatewire.Client, seconds: float) -> None:
    closer = threading.Thread(target=client.close, daemon=True)
    closer.start()
    closer.join(timeout=seconds)
    assert not closer.is_alive(), f"close() did not return within {seconds} s"


def test_closing_the_client_cancels_blocking_calls_on_other_threads(server: str, library: str) -> None:
    calls = 20
    starts = _CountStarts(calls)
    client = gatewire.Client(server, plugins=[starts])
    outcomes: queue.Queue[tuple[object, float]] = queue.Queue()

    def blocking_call() -> None:
        try:
            outcome: object = client.call("GET", "/delay/2000", max_retries=0)
        except BaseException as error:  # noqa: BLE001 - the test inspects it
            outcome = error
        outcomes.put((outcome, time.monotonic()))

    threads = [threading.Thread(target=blocking_call, daemon=True) for _ in range(calls)]
    for thread in threads:
        thread.start()
    try:
        assert starts.all_started.wait(timeout=10), f"only {starts.count} of {calls} calls started"
        time.sleep(0.1)  # let the requests reach the server
    finally:
        closing = time.monotonic()
        _close_within(client, 10)

    deadline = closing + 10
    for thread in threads:
        thread.join(timeout=max(0.0, deadline - time.monotonic()))
    assert not any(thread.is_alive() for thread in threads), "a blocking call did not return after close()"
    finished = [outcomes.get(timeout=1) for _ in range(calls)]
    for outcome, at in finished:
        assert isinstance(outcome, gatewire.Cancelled), repr(outcome)
        assert outcome.kind == gatewire.ErrorKind.cancelled
        assert outcome.method == "GET" and outcome.path == "/delay/2000"
        assert at - closing < 1.5  # cancelled, not left to finish its 2 s
    assert client.closed


def test_close_racing_with_blocking_calls_starting_never_crashes(server: str, library: str) -> None:
    # Calls keep starting on 8 threads while close() runs: each one either ran (a result),
    # was cancelled by the close, or found the client closed; nothing crashes or hangs.
    for round_number in range(10):
        client = gatewire.Client(server)
        outcomes: queue.Queue[object] = queue.Queue()
        stop = threading.Event()

        def keep_calling() -> None:
            while not stop.is_set():
                try:
                    outcome: object = client.call("GET", "/delay/5", max_retries=0)
                except BaseException as error:  # noqa: BLE001 - the test inspects it
                    outcome = error
                outcomes.put(outcome)
                if type(outcome) is gatewire.GatewireError:
                    return  # closed

        threads = [threading.Thread(target=keep_calling, daemon=True) for _ in range(8)]
        for thread in threads:
            thread.start()
        time.sleep(0.01 * (round_number % 5))
        try:
            _close_within(client, 10)
        finally:
            stop.set()
        for thread in threads:
            thread.join(timeout=10)
        assert not any(thread.is_alive() for thread in threads), "a blocking call hung after close()"
        while not outcomes.empty():
            outcome = outcomes.get_nowait()
            if isinstance(outcome, gatewire.Result):
                assert outcome.status == 200
            elif type(outcome) is gatewire.GatewireError:
                assert "closed" in str(outcome)
            else:
                assert isinstance(outcome, gatewire.Cancelled), repr(outcome)


def test_close_while_a_blocking_call_enters_the_library(
    server: str, library: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Widen the window between the binding taking the native handle and the library using
    # it: close() must not free the client inside it (it waits for the start, which returns
    # at once), and the started call then ends as Cancelled.
    native = gatewire._native.lib
    entering = threading.Event()

    def slow(real: Callable[..., int]) -> Callable[..., int]:
        def enter_slowly(*args: object) -> int:
            entering.set()
            time.sleep(0.3)
            return real(*args)

        return enter_slowly

    monkeypatch.setattr(native, "gw_call", slow(native.gw_call))
    monkeypatch.setattr(native, "gw_call_async", slow(native.gw_call_async))
    client = gatewire.Client(server)
    outcomes: queue.Queue[object] = queue.Queue()

    def blocking_call() -> None:
        try:
            outcomes.put(client.call("GET", "/delay/2000", max_retries=0))
        except BaseException as error:  # noqa: BLE001 - the test inspects it
            outcomes.put(error)

    caller = threading.Thread(target=blocking_call, daemon=True)
    caller.start()
    try:
        assert entering.wait(timeout=10)
    finally:
        _close_within(client, 10)
    caller.join(timeout=10)

    assert not caller.is_alive()
    assert isinstance(outcomes.get(timeout=1), gatewire.Cancelled)


def test_blocking_call_in_plugin_hooks_and_retry_tests_raises_would_deadlock(server: str, library: str) -> None:
    outcomes: queue.Queue[tuple[str, object]] = queue.Queue()

    def try_blocking(where: str) -> None:
        try:
            client.call("GET", "/echo")
            outcomes.put((where, "returned"))
        except Exception as error:  # noqa: BLE001 - the test inspects it
            outcomes.put((where, error))

    class Probe(gatewire.Plugin):
        def prepare(self, request: gatewire.PreparedRequest) -> None:
            if request.url.endswith("/probe"):
                try_blocking("prepare")

        def did_receive(self, attempt: gatewire.AttemptInfo) -> None:
            if attempt.status == 503:
                try_blocking("did_receive")

    def retry_test(attempt: gatewire.AttemptInfo) -> bool:
        try_blocking("retry_test")
        return False

    with gatewire.Client(server, plugins=[Probe()]) as client:
        assert client.call("GET", "/echo/probe").status == 200
        with pytest.raises(gatewire.HTTPStatusError):
            client.call("GET", "/status/503", retry_test=retry_test)
        seen = dict(outcomes.get(timeout=10) for _ in range(3))

    assert set(seen) == {"prepare", "did_receive", "retry_test"}
    for where, outcome in seen.items():
        assert isinstance(outcome, gatewire.WouldDeadlock), (where, outcome)
        assert outcome.code == gatewire._native.GW_ERROR_WOULD_DEADLOCK
        assert "call_async" in str(outcome)
