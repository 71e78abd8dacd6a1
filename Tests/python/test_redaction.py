"""Secrets planted everywhere a caller can put one (the base URL's userinfo, a bearer token,
the apiKey plugin's header and query parameter, configured names, call headers and query
parameters) reach the server but nothing the binding or the CLI shows: results (``repr``,
``path``, ``metadata``, ``mapped``, attempts), exceptions, observers, events, log records,
the CLI's stdout and stderr with --verbose."""

from __future__ import annotations

import json
import logging
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

import gatewire

SECRETS = ["BASEPASS_P1", "BEARER_P2", "APIKEY_P3", "APIQ_P4", "QTOKEN_P5", "QKEY_P6", "QSIG_P7", "CALLKEY_P8",
           "SIGH_P9", "gwuser"]
PARAMS = {"access_token": "QTOKEN_P5", "api_key": "QKEY_P6", "sig": "QSIG_P7", "page": 2}
HEADERS = {"X-Api-Key": "CALLKEY_P8", "X-Signature": "SIGH_P9"}


def planted_config(server: str) -> dict[str, Any]:
    return {
        "baseURL": server.replace("http://", "http://gwuser:BASEPASS_P1@"),
        "auth": {"type": "bearer", "token": "BEARER_P2"},
        "redactHeaders": ["X-Signature"],
        "redactQuery": ["sig"],
        "plugins": [
            {"name": "apiKey", "header": "X-Custom-Key", "value": "APIKEY_P3"},
            {"name": "apiKey", "query": "q_auth", "value": "APIQ_P4"},
            {"name": "log", "headers": True},
        ],
        "mappings": {"Fault": {"attributes": {"@metadata.url": "url", "@metadata.query.sig": "sig",
                                              "@metadata.query.page": "page"}}},
        "responseDescriptors": [{"mapping": "Fault", "pathPattern": "/fault/:key/:step"}],
    }


def assert_clean(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret} leaked:\n{text}"


def test_no_output_of_the_binding_carries_a_planted_secret(server: str, caplog: pytest.LogCaptureFixture) -> None:
    events: list[dict[str, Any]] = []
    observed: list[str] = []
    key = f"planted-{uuid.uuid4().hex[:8]}"
    with caplog.at_level(logging.INFO, logger="gatewire"), gatewire.Client(config=planted_config(server)) as client:
        client.add_event_monitor(events.append)
        client.add_failure_observer(lambda error: observed.append(f"{error!s} {error!r} {error.path} {error.message}"))
        echo = client.call("GET", "/echo", params=PARAMS, headers=HEADERS)
        wire = echo.text
        result = client.call("GET", f"/fault/{key}/200", params=PARAMS, headers=HEADERS)
        with pytest.raises(gatewire.HTTPStatusError) as raised:
            client.call("GET", "/status/404", params=PARAMS, headers=HEADERS)
    for secret in SECRETS[1:-1]:
        assert secret in wire, f"{secret} was not sent"  # the server got every secret but the URL's own
    error = raised.value
    outputs = [repr(echo), echo.path, repr(result), str(result), result.path, json.dumps(result.metadata),
               json.dumps(result.mapped), repr(result.attempts), str(error), repr(error), error.path, error.message,
               repr(error.attempts), json.dumps(events), caplog.text, *observed]
    text = "\n".join(outputs)
    assert_clean(text)
    assert result.path.startswith(f"/fault/{key}/200?") and "access_token=<redacted>" in result.path
    assert "page=2" in result.path
    mapped = result.mapped[""]
    assert mapped["url"].startswith(server + f"/fault/{key}/200?") and mapped["sig"] == "<redacted>"
    assert mapped["page"] == "2"
    assert "X-Api-Key: <redacted>" in caplog.text and "X-Custom-Key: <redacted>" in caplog.text
    assert error.path.startswith("/status/404?") and observed


def test_no_output_of_the_cli_carries_a_planted_secret(cli: str, server: str, tmp_path: Path) -> None:
    config = tmp_path / "gateway.json"
    config.write_text(json.dumps(planted_config(server)))
    key = f"planted-cli-{uuid.uuid4().hex[:8]}"
    arguments: list[str] = []
    for name, value in PARAMS.items():
        arguments += ["--param", f"{name}={value}"]
    for name, value in HEADERS.items():
        arguments += ["--header", f"{name}: {value}"]
    for path, code in ((f"/fault/{key}/200", 0), ("/status/404", 1)):
        done = subprocess.run([cli, "call", "--config", str(config), "--verbose", "GET", path, *arguments],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == code, done.stderr
        assert_clean(done.stdout + done.stderr)
        assert "<redacted>" in done.stderr  # the log plugin's lines
    assert '"sig": "<redacted>"' in subprocess.run(
        [cli, "call", "--config", str(config), "GET", f"/fault/{key}-2/200", *arguments],
        capture_output=True, text=True, timeout=60).stdout
