"""Asynchronous calls: futures, cancellation, callbacks on the loop thread, closing."""

from __future__ import annotations

import concurrent.futures
import gc
import queue
import threading
import time

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
