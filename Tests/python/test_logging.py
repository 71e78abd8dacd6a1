"""The ``gatewire`` logger: per-attempt DEBUG lines, retry and failure INFO lines, redacted by
the core, with no plugin in the config; and no event monitor while the logger is silent."""

from __future__ import annotations

import asyncio
import logging

import pytest

import gatewire

SECRETS = ("s3cr3t-query", "s3cr3t-header", "s3cr3t-user")


def test_attempts_retries_and_failures_are_logged_redacted(server: str, key: str, library: str,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    base = server.replace("http://", "http://alice:s3cr3t-user@")
    config = {"baseURL": base, "retry": {"initialDelay": 0.01, "jitter": "none"}}
    caplog.set_level(logging.DEBUG, logger="gatewire")
    with gatewire.Client(config=config) as client:
        client.get(f"/fault/{key}/503,200", params={"api_key": "s3cr3t-query"},
                   headers={"Authorization": "Bearer s3cr3t-header"})
        with pytest.raises(gatewire.HTTPStatusError):
            client.get("/status/404", params={"token": "s3cr3t-query"})
    lines = [(record.levelname, record.getMessage()) for record in caplog.records if record.name == "gatewire"]
    path = f"/fault/{key}/503,200?api_key=<redacted>"
    assert [(level, message.split(" in ")[0]) for level, message in lines] == [
        ("DEBUG", f"GET {path} attempt 1: 503"),
        ("INFO", f"GET {path} retrying"),
        ("DEBUG", f"GET {path} attempt 2: 200"),
        ("DEBUG", "GET /status/404?token=<redacted> attempt 1: 404"),
        ("INFO", "GET /status/404?token=<redacted> failed after 1 attempt(s)"),
    ]
    assert lines[1][1] == f"GET {path} retrying in 0.010 s after attempt 1: 503"
    assert lines[4][1].endswith(" s: http_status (status 404)")
    for secret in SECRETS:
        assert secret not in caplog.text


def test_async_calls_log_too(server: str, library: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="gatewire")

    async def main() -> None:
        async with gatewire.AsyncClient(server) as client:
            await client.get("/echo", headers={"X-Api-Key": "s3cr3t-header"})

    asyncio.run(main())
    messages = [record.getMessage() for record in caplog.records if record.name == "gatewire"]
    assert [message.split(" in ")[0] for message in messages] == ["GET /echo attempt 1: 200"]


def test_a_silent_logger_costs_no_monitor(client: gatewire.Client, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="gatewire")
    client.get("/status/200")
    assert client._log._monitor is None
    assert not [record for record in caplog.records if record.name == "gatewire"]
    caplog.set_level(logging.INFO, logger="gatewire")
    with pytest.raises(gatewire.HTTPStatusError):
        client.get("/status/404")
    assert client._log._monitor is not None
    caplog.set_level(logging.WARNING, logger="gatewire")
    client.get("/status/200")
    assert client._log._monitor is None
    messages = [record.getMessage() for record in caplog.records if record.name == "gatewire"]
    assert [message.split(" in ")[0] for message in messages] == ["GET /status/404 failed after 1 attempt(s)"]


def test_an_async_client_reads_the_level_once_per_batch_of_results(server: str, library: str,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="gatewire")

    async def main() -> None:
        async with gatewire.AsyncClient(server) as client:
            await client.get("/status/200")
            assert client._log._monitor is None
            caplog.set_level(logging.INFO, logger="gatewire")
            with pytest.raises(gatewire.HTTPStatusError):
                await client.get("/status/404")  # started before a batch came back: the old level
            assert client._log._monitor is not None  # its batch read the new level
            with pytest.raises(gatewire.HTTPStatusError):
                await client.get("/status/418")
            caplog.set_level(logging.WARNING, logger="gatewire")
            await client.get("/status/200")
            assert client._log._monitor is None

    asyncio.run(main())
    messages = [record.getMessage() for record in caplog.records if record.name == "gatewire"]
    assert [message.split(" in ")[0] for message in messages] == ["GET /status/418 failed after 1 attempt(s)"]
