"""AsyncClient and awaitable CallFutures on real loopback servers: many awaits on one loop,
cancellation mid-call and during a backoff, exceptions in hooks, two loops in two threads."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import socket
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

import gatewire
from gatewire import _async_client as async_client

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "stripe.json"


class SilentServer:
    """A loopback TCP server that reads a request and never answers; it records when each
    connection has received a request and when the client closed it (``recv`` returned
    end of file), so a test sees what a cancelled call does on the wire."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.port = self.listener.getsockname()[1]
        self.requests = threading.Semaphore(0)
        self.closes = threading.Semaphore(0)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, name="silent-server", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                connection, _ = self.listener.accept()
            except OSError:
                continue
            threading.Thread(target=self._hold, args=(connection,), daemon=True).start()

    def _hold(self, connection: socket.socket) -> None:
        connection.settimeout(0.2)
        received = b""
        with connection:
            while not self.stopping.is_set():
                try:
                    chunk = connection.recv(4096)
                except TimeoutError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    self.closes.release()
                    return
                received += chunk
                if b"\r\n\r\n" in received:
                    received = b""
                    self.requests.release()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=5)
        self.listener.close()


@pytest.fixture
def silent_server() -> Iterator[SilentServer]:
    server = SilentServer()
    try:
        yield server
    finally:
        server.stop()


async def wait_for(semaphore: threading.Semaphore, seconds: float) -> bool:
    """Polls ``semaphore`` without blocking the loop; False when the time ran out."""
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        if semaphore.acquire(blocking=False):
            return True
        await asyncio.sleep(0.01)
    return False


def test_a_thousand_concurrent_awaits_on_one_loop(server: str, library: str, monkeypatch: pytest.MonkeyPatch) -> None:
    batches: list[int] = []
    drain = async_client._LoopQueue.drain

    def counting(self: Any) -> None:
        before = len(self.pending)
        drain(self)
        if len(self.pending) < before:
            batches.append(before - len(self.pending))

    # Each wake-up of the loop (the extension's eventfd, or ctypes' call_soon_threadsafe) drains.
    monkeypatch.setattr(async_client._LoopQueue, "drain", counting)

    async def main() -> list[Any]:
        async with gatewire.AsyncClient(server) as client:
            results = await asyncio.gather(*(client.get("/echo", params={"i": i}) for i in range(1000)))
            return [result.json()["query"]["i"] for result in results]

    started = time.monotonic()
    assert asyncio.run(main()) == [str(i) for i in range(1000)]
    assert time.monotonic() - started < 60
    # Completions reach the loop in batches: one wake-up for many results.
    assert sum(batches) == 1000
    assert 1 <= len(batches) < 1000


def test_cancelling_the_task_mid_call_closes_the_connection(silent_server: SilentServer) -> None:
    failures: list[gatewire.CallError] = []

    async def main() -> None:
        async with gatewire.AsyncClient(f"http://127.0.0.1:{silent_server.port}") as client:
            client.add_failure_observer(failures.append)
            task = asyncio.create_task(client.get("/never"))
            assert await wait_for(silent_server.requests, 10)
            started = time.monotonic()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert task.cancelled()
            assert await wait_for(silent_server.closes, 5)  # the server saw the connection close
            assert time.monotonic() - started < 2.0
            for _ in range(200):  # the observer runs on the library's loop thread
                if failures:
                    break
                await asyncio.sleep(0.01)

    asyncio.run(main())
    assert [(error.kind, error.path) for error in failures] == [(gatewire.ErrorKind.cancelled, "/never")]


def test_cancelling_the_task_during_a_backoff_stops_the_retries(server: str, key: str, library: str) -> None:
    config = {"baseURL": server, "retry": {"maxRetries": 3, "initialDelay": 5, "jitter": "none"}}

    async def main() -> tuple[int, int, float]:
        async with gatewire.AsyncClient(config=config) as client:
            task = asyncio.create_task(client.get(f"/fault/{key}/503,200"))
            count = 0
            for _ in range(500):  # until the first attempt has been answered
                count = (await client.get(f"/fault/{key}/count")).json()["count"]
                if count:
                    break
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.2)  # now in the 5 s delay
            started = time.monotonic()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            elapsed = time.monotonic() - started
            await asyncio.sleep(0.3)
            after = (await client.get(f"/fault/{key}/count")).json()["count"]
            return count, after, elapsed

    count, after, elapsed = asyncio.run(main())
    assert (count, after) == (1, 1)  # no second attempt was sent
    assert elapsed < 1.0


def test_exceptions_in_hooks(server: str, library: str, caplog: pytest.LogCaptureFixture) -> None:
    class Failing(gatewire.Plugin):
        name = "failing"

        def prepare(self, request: gatewire.PreparedRequest) -> None:
            if "/echo/fail" in request.url:
                raise RuntimeError("no token today")

    def observer(error: gatewire.CallError) -> None:
        raise ValueError("observer broke")

    def retry_test(attempt: gatewire.AttemptInfo) -> gatewire.RetryAnswer:
        raise KeyError("retry test broke")

    async def main() -> tuple[str, int, int]:
        async with gatewire.AsyncClient(server, plugins=[Failing()]) as client:
            client.add_failure_observer(observer)
            with pytest.raises(gatewire.PluginError) as caught:
                await client.get("/echo/fail")
            with pytest.raises(gatewire.HTTPStatusError) as status:
                await client.get("/status/404")
            result = await client.get("/status/503", retry_test=retry_test, max_retries=1, accept_any_status=True)
            return caught.value.message, status.value.status, len(result.attempts)

    with caplog.at_level(logging.ERROR, logger="gatewire"):
        message, status, attempts = asyncio.run(main())
    assert "RuntimeError: no token today" in message
    assert status == 404
    assert attempts == 2  # the failing retry test left the decision to the policy (503 retried)
    logged = caplog.text
    assert "ValueError: observer broke" in logged
    assert "KeyError: 'retry test broke'" in logged


def test_coroutine_hooks_are_refused(server: str, library: str) -> None:
    async def observer(error: gatewire.CallError) -> None:
        pass

    class AsyncPlugin(gatewire.Plugin):
        async def prepare(self, request: gatewire.PreparedRequest) -> None:  # type: ignore[override]
            pass

    with pytest.raises(TypeError, match="plugin AsyncPlugin.prepare must be a plain callable"):
        gatewire.AsyncClient(server, plugins=[AsyncPlugin()])

    async def main() -> None:
        async with gatewire.AsyncClient(server) as client:
            with pytest.raises(TypeError, match="a failure observer must be a plain callable"):
                client.add_failure_observer(observer)  # type: ignore[arg-type]
            with pytest.raises(TypeError, match="retry_test must be a plain callable"):
                await client.get("/echo", retry_test=observer)  # type: ignore[arg-type]

    asyncio.run(main())


def test_one_client_from_two_event_loops_in_two_threads(server: str, library: str) -> None:
    client = gatewire.AsyncClient(server)
    outcomes: dict[str, Any] = {}

    def run(name: str) -> None:
        async def main() -> list[str]:
            results = await asyncio.gather(*(client.get(f"/echo/{name}", params={"i": i}) for i in range(100)))
            return [f"{r.json()['path']}?{r.json()['query']['i']}" for r in results]

        try:
            outcomes[name] = (threading.get_ident(), asyncio.run(main()))
        except BaseException as error:  # noqa: BLE001 - the test reports it
            outcomes[name] = error

    threads = [threading.Thread(target=run, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    asyncio.run(client.aclose())  # both loops are closed by now

    assert set(outcomes) == {"a", "b"}
    for name in ("a", "b"):
        ident, paths = outcomes[name]
        assert paths == [f"/echo/{name}?{i}" for i in range(100)]
    assert outcomes["a"][0] != outcomes["b"][0]
    assert client.closed


def test_closing_the_client_cancels_the_awaiting_calls(server: str, library: str) -> None:
    async def main() -> gatewire.CallError:
        client = gatewire.AsyncClient(server)
        task = asyncio.create_task(client.get("/delay/5000"))
        await asyncio.sleep(0.2)
        await client.aclose()
        with pytest.raises(gatewire.Cancelled) as caught:
            await asyncio.wait_for(task, 5)
        with pytest.raises(gatewire.GatewireError, match="closed"):
            await client.get("/echo")
        return caught.value

    error = asyncio.run(main())
    assert error.kind == gatewire.ErrorKind.cancelled


def test_call_futures_are_awaitable_and_cancel_with_the_task(client: gatewire.Client) -> None:
    async def main() -> tuple[int, bool]:
        result = await client.call_async("GET", "/echo")
        future = client.call_async("GET", "/delay/5000")
        task = asyncio.create_task(asyncio.wait_for(future, 0.2))
        with pytest.raises(asyncio.TimeoutError):
            await task
        with pytest.raises(gatewire.HTTPStatusError):
            await client.call_async("GET", "/status/418")
        for _ in range(300):
            if future.done():
                break
            await asyncio.sleep(0.01)
        return result.status, future.cancelled()

    assert asyncio.run(main()) == (200, True)


def test_route_calls_and_pages(server: str, library: str) -> None:
    config = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    config["baseURL"] = server

    async def main() -> tuple[int, list[list[str]]]:
        async with gatewire.AsyncClient(config=config) as client:
            charge = await client.call_route("charge")
            names = [[channel["name"] for channel in page.all("channels")] async for page in client.pages("channels")]
            return charge.first("")["amount"], names

    assert asyncio.run(main()) == (1061, [["general", "random"], ["random"]])


def test_shortcuts_send_their_method(client: gatewire.Client, server: str) -> None:
    sync = [client.get, client.post, client.put, client.patch, client.delete]
    assert [call("/echo").json()["method"] for call in sync] == ["GET", "POST", "PUT", "PATCH", "DELETE"]
    assert client.head("/echo").body == b""
    assert client.post("/echo", json={"a": 1}).json()["body"] == {"a": 1}

    async def main() -> list[str]:
        async with gatewire.AsyncClient(server) as c:
            methods = [(await call("/echo")).json()["method"] for call in (c.get, c.post, c.put, c.patch, c.delete)]
            head = await c.head("/echo")
            return methods + [head.method]

    assert asyncio.run(main()) == ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]


def test_a_loop_that_is_gone_takes_its_queue_with_it(server: str, library: str) -> None:
    client = gatewire.AsyncClient(server)

    async def one(i: int) -> str:
        return (await client.get("/echo", params={"i": i})).json()["query"]["i"]

    assert [asyncio.run(one(i)) for i in range(3)] == ["0", "1", "2"]  # a new loop each time
    gc.collect()
    assert len(client._queues) == 0
    asyncio.run(client.aclose())
