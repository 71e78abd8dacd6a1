"""A call's retry count overrides only the count: the route's own retry settings stay.

The route below retries only 502, after exactly 0.2 s (no jitter); the config's top-level
policy would retry 503 too, after full-jitter delays from 0.5 s. Against the scripted
sequence 502, 502, 503, 200 a call with 3 retries under the route's policy makes exactly 3
attempts (502 retried twice, then 503 is not retryable) and waits 0.2 s before each retry;
under the top-level policy it would make 4 and succeed. The CLI's ``--max-retries`` and
Python's ``max_retries=`` both go through the core's ``CallOptions.maxRetries``.
"""

from __future__ import annotations

import json
import subprocess
import urllib.request
from pathlib import Path

import pytest

import gatewire

from test_cli_basics import run

SEQUENCE = "502,502,503,200"
ROUTE_DELAY = 0.2


def write_config(tmp_path: Path, server: str) -> Path:
    config = {
        "baseURL": server,
        "retry": {"maxRetries": 0, "initialDelay": 0.5, "jitter": "full", "statusCodes": [502, 503]},
        "routes": {
            "flaky": {
                "method": "GET",
                "pathPattern": f"/sequence/:key/{SEQUENCE}",
                "retry": {"maxRetries": 0, "initialDelay": ROUTE_DELAY, "multiplier": 1,
                          "maxDelay": ROUTE_DELAY, "jitter": "none", "statusCodes": [502]},
            }
        },
    }
    path = tmp_path / "flaky.json"
    path.write_text(json.dumps(config))
    return path


def requests_seen(server: str, key: str) -> int:
    with urllib.request.urlopen(f"{server}/sequence/{key}/count", timeout=10) as response:
        return int(json.load(response)["count"])


def test_cli_max_retries_keeps_the_routes_status_codes_and_delays(
        cli: str, server: str, key: str, tmp_path: Path) -> None:  # noqa: F811
    config = write_config(tmp_path, server)
    done = run(cli, "call", "--config", str(config), "flaky", "--param", f"key={key}",
               "--max-retries", "3", "--verbose")
    assert done.returncode == 1, done.stdout + done.stderr
    error = json.loads(done.stdout)
    assert (error["kind"], error["status"], error["attempts"]) == ("http_status", 503, 3)
    assert requests_seen(server, key) == 3
    attempts = [line for line in done.stderr.splitlines() if line.startswith("attempt ")]
    assert [line.split(":")[1].split(" after")[0].strip() for line in attempts] == [
        "status 502", "status 502", "status 503"], attempts
    assert "retrying in 0.200s" in attempts[0] and "retrying in 0.200s" in attempts[1], attempts
    assert "stopping" in attempts[2] and "retrying" not in attempts[2], attempts


def test_python_max_retries_keeps_the_routes_status_codes_and_delays(
        server: str, key: str, tmp_path: Path) -> None:
    config = write_config(tmp_path, server)
    with gatewire.Client(server, config_path=str(config)) as client:
        with pytest.raises(gatewire.HTTPStatusError) as raised:
            client.call_route("flaky", params={"key": key}, max_retries=3)
    error = raised.value
    assert error.status == 503
    assert [attempt.status for attempt in error.attempts] == [502, 502, 503]
    delays = [attempt.delay for attempt in error.attempts]
    assert delays[:2] == pytest.approx([ROUTE_DELAY, ROUTE_DELAY]) and delays[2] is None, delays
    assert requests_seen(server, key) == 3
