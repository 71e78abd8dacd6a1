"""Upload and download progress (``progress=``): a slow httpbin ``/drip`` download, an upload
to the test server, a retried call's attempts, no reports without the argument, and the
thread each client calls it on. Counts are asserted with slack, never timings."""

from __future__ import annotations

import asyncio
import threading

import pytest

import gatewire
from gatewire import Progress


def check_attempts(reports: list[Progress], attempts: int) -> list[Progress]:
    """Checks monotonic counts within each attempt and exactly one final report per attempt,
    its last; returns the finals."""
    finals = [report for report in reports if report.final]
    assert [final.attempt for final in finals] == list(range(1, attempts + 1))
    for earlier, later in zip(reports, reports[1:]):
        assert later.attempt >= earlier.attempt
        if later.attempt == earlier.attempt:
            assert not earlier.final
            assert later.bytes_sent >= earlier.bytes_sent
            assert later.bytes_received >= earlier.bytes_received
    return finals


def test_a_slow_download_reports_several_times_ending_at_its_size(httpbin: str) -> None:
    reports: list[Progress] = []
    threads: set[int] = set()

    def progress(report: Progress) -> None:
        reports.append(report)
        threads.add(threading.get_ident())

    with gatewire.Client(httpbin) as client:
        result = client.get("/drip", params={"numbytes": 40, "duration": 2, "delay": 0}, progress=progress)
    assert len(result.body) == 40
    (final,) = check_attempts(reports, 1)
    assert (final.bytes_received, final.bytes_to_receive) == (40, 40)
    assert 4 <= len(reports) <= 2 * 10 + 1 + 5, [report.bytes_received for report in reports]
    assert threads and threading.get_ident() not in threads  # the client's loop thread


def test_an_upload_reports_up_to_its_size(server: str, key: str) -> None:
    reports: list[Progress] = []
    size = 4 * 1024 * 1024
    with gatewire.Client(server) as client:
        client.post(f"/fault/{key}/200", content=b"a" * size, progress=reports.append)
    (final,) = check_attempts(reports, 1)
    assert (final.bytes_sent, final.bytes_to_send) == (size, size)
    assert all(report.bytes_to_send in (None, size) for report in reports)


def test_a_retried_call_reports_each_attempt(server: str, key: str) -> None:
    reports: list[Progress] = []
    with gatewire.Client(server) as client:
        result = client.get(f"/fault/{key}/503,503,200", progress=reports.append,
                            policy={"retry": {"maxRetries": 3, "initialDelay": 0.01, "jitter": "none"}})
    assert len(result.attempts) == 3
    finals = check_attempts(reports, 3)
    assert all(final.bytes_received == final.bytes_to_receive > 0 for final in finals)


def test_no_reports_without_progress_and_a_failing_callback_is_contained(
    server: str, caplog: pytest.LogCaptureFixture
) -> None:
    reports: list[Progress] = []
    with gatewire.Client(server) as client:
        client.get("/bytes/1000", progress=reports.append)
        seen = len(reports)
        assert seen >= 1
        client.get("/bytes/100000")
        assert len(reports) == seen

        def broken(report: Progress) -> None:
            raise ValueError("boom")

        assert client.get("/bytes/10", progress=broken).status == 200
    assert "exception in progress callback" in caplog.text


def test_call_many_refuses_progress(server: str) -> None:
    with gatewire.Client(server) as client:
        with pytest.raises(gatewire.InvalidArgument, match="progress"):
            list(client.call_many([{"method": "GET", "path": "/bytes/1", "progress": print}]))


def test_async_client_calls_progress_on_the_asyncio_loop(httpbin: str) -> None:
    reports: list[Progress] = []
    threads: set[int] = set()

    async def main() -> int:
        def progress(report: Progress) -> None:
            reports.append(report)
            threads.add(threading.get_ident())

        async with gatewire.AsyncClient(httpbin) as client:
            result = await client.get("/drip", params={"numbytes": 20, "duration": 1, "delay": 0}, progress=progress)
            assert reports and reports[-1].final  # every report arrived before the result
            return len(result.body)

    assert asyncio.run(main()) == 20
    (final,) = check_attempts(reports, 1)
    assert final.bytes_received == 20
    assert threads == {threading.get_ident()}  # the thread asyncio.run ran the loop on
