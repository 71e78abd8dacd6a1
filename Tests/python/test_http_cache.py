"""The HTTP cache from Python and the CLI against a real httpbin (``/cache/N``, ``/etag/E``)
and the scripted server's ``/cacheable/KEY`` (counted, read with ``/sequence/KEY/count``):
what reached the server and what the caller got (``from_cache``, ``revalidated``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Callable

import gatewire
from test_cli_basics import run


def test_a_fresh_response_is_served_without_a_request(httpbin: str) -> None:
    with gatewire.Client(httpbin, cache=True) as client:
        first = client.call("GET", "/cache/60")
        second = client.call("GET", "/cache/60")
    assert (first.from_cache, first.revalidated) == (False, False)
    assert [attempt.status for attempt in first.attempts] == [200]
    assert (second.from_cache, second.revalidated) == (True, False)
    assert second.attempts == ()
    assert second.status == 200 and second.body == first.body
    assert second.json()["url"] == f"{httpbin}/cache/60"


def test_a_stale_response_is_revalidated_with_its_etag(httpbin: str) -> None:
    sent: list[dict[str, str]] = []

    class Recorder(gatewire.Plugin):
        def will_send(self, request: gatewire.PreparedRequest) -> None:
            sent.append({"If-None-Match": request.header("If-None-Match") or ""})

    with gatewire.Client(httpbin, cache={"maxBytes": 1 << 20}, plugins=[Recorder()]) as client:
        first = client.call("GET", "/etag/py-etag")
        second = client.call("GET", "/etag/py-etag")
    assert not first.from_cache
    assert (second.from_cache, second.revalidated) == (True, True)
    assert [attempt.status for attempt in second.attempts] == [304]
    assert second.status == 200 and second.body == first.body and second.json() == first.json()
    assert sent == [{"If-None-Match": ""}, {"If-None-Match": first.header("ETag") or "?"}]
    assert first.header("ETag") == "py-etag"  # httpbin sends it unquoted; the cache echoes it as sent


def test_no_store_authorization_and_the_async_client(server: str, key: str,
                                                     sequence_count: Callable[[str], int]) -> None:
    with gatewire.Client(server, cache=True) as client:
        for _ in range(2):
            client.call("GET", f"/cacheable/{key}-ns", params={"cc": "no-store, max-age=60"})
        for _ in range(2):
            client.call("GET", f"/cacheable/{key}-auth", params={"cc": "max-age=60"},
                        headers={"Authorization": "Bearer t"})
        for _ in range(2):
            client.call("GET", f"/cacheable/{key}-public", params={"cc": "public, max-age=60"},
                        headers={"Authorization": "Bearer t"})
    assert sequence_count(f"{key}-ns") == 2
    assert sequence_count(f"{key}-auth") == 2
    assert sequence_count(f"{key}-public") == 1

    async def twice() -> list[bool]:
        async with gatewire.AsyncClient(server, cache=True) as client:
            results = [await client.get(f"/cacheable/{key}-async", params={"cc": "max-age=60"}) for _ in range(2)]
            return [result.from_cache for result in results]

    assert asyncio.run(twice()) == [False, True]
    assert sequence_count(f"{key}-async") == 1


def test_the_cli_keeps_a_disk_cache_between_runs(cli: str, server: str, key: str, tmp_path: Path,  # noqa: F811
                                                 sequence_count: Callable[[str], int]) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"baseURL": server, "cache": {"directory": str(tmp_path / "cache")}}))
    outputs = []
    for cc in ("max-age=60", "max-age=60"):
        done = run(cli, "call", "--config", str(config), "--verbose", "GET", f"/cacheable/{key}", "--param", f"cc={cc}")
        assert done.returncode == 0, done.stderr
        outputs.append(done)
    assert "cache:" not in outputs[0].stderr
    assert "cache: hit (no request sent)" in outputs[1].stderr
    assert json.loads(outputs[1].stdout) == json.loads(outputs[0].stdout)
    assert sequence_count(key) == 1
    entries = list((tmp_path / "cache").glob("*.entry"))
    assert len(entries) == 1
    stale = run(cli, "call", "--config", str(config), "--verbose", "GET", f"/cacheable/{key}-v",
                "--param", "cc=no-cache", "--param", "etag=\"cli\"")
    again = run(cli, "call", "--config", str(config), "--verbose", "GET", f"/cacheable/{key}-v",
                "--param", "cc=no-cache", "--param", "etag=\"cli\"")
    assert stale.returncode == 0 and again.returncode == 0, again.stderr
    assert "cache: revalidated (304: the stored response)" in again.stderr
    assert json.loads(again.stdout)["attempt"] == 1  # the stored body
