"""A user's program over the whole public API of ``gatewire``, for ``mypy --strict``
(Tests/python/test_typing.py type-checks it; it is not run). Every public call appears once,
with the annotations a user would write, so a wrong or missing type in the binding shows as
a mypy error here."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import gatewire
from gatewire import JSON, AsyncClient, CallError, Client, Result, Timeouts


class Tracing(gatewire.Plugin):
    name = "tracing"

    def prepare(self, request: gatewire.PreparedRequest) -> None:
        request.set_header("X-Trace", "1")
        request.remove_header("X-Drop")
        if request.header("X-Old") is not None:
            request.set_url(request.url)
        print(request.method)

    def will_send(self, request: gatewire.PreparedRequest) -> None:
        print(request.url)

    def did_receive(self, attempt: gatewire.AttemptInfo) -> None:
        print(attempt.number, attempt.status, attempt.error_kind, attempt.elapsed, attempt.header("Date"))

    def process(self, result: gatewire.FinalResult) -> None:
        if not result.ok and result.status == 418:
            result.fail("teapot", gatewire.ErrorKind.plugin)
        print(result.body, result.json(), result.header("Server"))


def retry_test(attempt: gatewire.AttemptInfo) -> gatewire.RetryAnswer:
    return gatewire.RetryVerdict.RETRY if attempt.status == 503 else None


def show_progress(progress: gatewire.Progress) -> None:
    total: int | None = progress.bytes_to_receive
    print(progress.attempt, progress.bytes_sent, progress.bytes_to_send, progress.bytes_received, total, progress.final)


def observe(error: CallError) -> None:
    response = error.response
    if response is not None:
        body: JSON = response.json()
        print(response.status, response.header("Retry-After"), response.text, response.headers, body)
    print(error.kind, error.status, error.message, error.attempts, error.body_preview, error.header("X"))


def refresh(current: str | None) -> str | None:
    return "new-token"


def describe(value: JSON) -> str:
    if isinstance(value, dict):
        return ", ".join(sorted(value))
    if isinstance(value, list):
        return str(len(value))
    return repr(value)


def use_result(result: Result) -> None:
    text: str = result.text
    headers: tuple[tuple[str, str], ...] = result.headers
    attempts: tuple[gatewire.Attempt, ...] = result.attempts
    first: gatewire.Attempt = attempts[0]
    print(result.status, result.body, result.method, result.path, result.mapped, result.metadata, text, headers,
          first.status, first.timings, first.redirects, result.header("ETag"), result.all("items"),
          result.first("items"), result.count(), result.ok, result.from_cache, result.revalidated)
    print(describe(result.json()), result.raise_for_status().status)


def sync_calls(base_url: str) -> None:
    credential = gatewire.RefreshingCredential(refresh, token="t0")
    with Client(base_url, plugins=[Tracing()], random_seed=7, credential=credential,
                timeout=Timeouts(connect=2, attempt=5, deadline=30), cookies="jar.txt", cache=True) as client:
        observer_id = client.add_failure_observer(observe, status=[401, "5xx"], kinds=[gatewire.ErrorKind.auth])
        monitor_id = client.add_event_monitor(lambda event: print(event["event"]))
        use_result(client.call("GET", "/users/:id", params={"id": 7}, headers={"Accept": "application/json"},
                               timeout=2.5, retry_test=retry_test, accept_any_status=True))
        use_result(client.call_route("user", params={"id": 7}, max_retries=1, policy={"retry": {}}))
        use_result(client.get("/a", attempt_timeout=1.0, deadline=5.0, redirects="sameOrigin", progress=show_progress))
        use_result(client.post("/a", json={"name": "Ann"}, object_type="User", max_response_bytes=1 << 20))
        use_result(client.put("/a", json=[1, 2]))
        use_result(client.post("/a", data={"name": "Ann", "ids": [1, 2]}, params={"ids": (1, 2), "open": True}))
        use_result(client.put("/a", content=b"\x00\x01", content_type="application/octet-stream"))
        use_result(client.patch("/a", json=None))
        use_result(client.delete("/a"))
        use_result(client.head("/a"))
        future: gatewire.CallFuture = client.call_async("GET", "/a", timeout=Timeouts(deadline=3))
        use_result(future.result(timeout=10))
        future.cancel()
        for outcome in client.call_many([{"method": "GET", "path": "/a"}], in_flight=8):
            if isinstance(outcome, CallError):
                observe(outcome)
            else:
                use_result(outcome)
        with client.pages("issues", params={"state": "open"}, timeout=5) as pages:
            for page in pages:
                use_result(page)
            print(pages.page_count)
        metrics: dict[str, Any] = client.metrics()
        print(metrics, client.closed)
        cookies: list[dict[str, Any]] = client.cookies
        print(cookies)
        client.remove_event_monitor(monitor_id)
        client.remove_failure_observer(observer_id)
    print(credential.refresh_count)
    credential.close()
    warnings: list[str] = gatewire.check_config({"baseURL": base_url})
    print(warnings, gatewire.version(), gatewire.__version__)


async def async_calls(base_url: str) -> None:
    async with AsyncClient(base_url, timeout=10, cookies=True, cache={"maxBytes": 1 << 20}) as client:
        observer_id = client.add_failure_observer(observe, no_response=True, path="/users/:id")
        monitor_id = client.add_event_monitor(lambda event: None)
        use_result(await client.call("GET", "/a", accept_any_status=True))
        use_result(await client.call_route("user", params={"id": 7}, progress=show_progress))
        for shortcut in (client.get, client.post, client.put, client.patch, client.delete, client.head):
            use_result(await shortcut("/a", timeout=Timeouts(attempt=1)))
        async for page in client.pages("issues", max_retries=0):
            use_result(page)
        results = await asyncio.gather(*(client.get("/a", params={"i": i}) for i in range(10)))
        for result in results:
            use_result(result)
        try:
            await client.get("/missing")
        except gatewire.HTTPStatusError as error:
            observe(error)
        except gatewire.Timeout as error:
            observe(error)
        print(client.metrics(), client.closed)
        client.remove_event_monitor(monitor_id)
        client.remove_failure_observer(observer_id)
    with Client(base_url) as sync_client:
        use_result(await sync_client.call_async("GET", "/a"))


if __name__ == "__main__":
    logging.getLogger("gatewire").setLevel(logging.DEBUG)
    sync_calls("http://127.0.0.1:8080")
    asyncio.run(async_calls("http://127.0.0.1:8080"))
