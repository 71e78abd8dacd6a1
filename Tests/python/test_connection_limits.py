"""The config's connection limits through the binding: calls beyond ``maxConnectionsPerHost``
wait for a connection, each attempt's ``timings["queued"]`` says how long, and a deadline
shorter than the wait fails the waiting call. Against the test server's ``/delay``; no
timing is asserted but lower bounds the server guarantees (it sleeps at least that long)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gatewire
from test_cli_basics import run


def test_a_call_beyond_the_per_host_limit_waits_and_says_how_long(server: str) -> None:
    config = {"baseURL": server, "maxConnectionsPerHost": 1, "retry": {"maxRetries": 0}}
    with gatewire.Client(config=config) as client:
        outcomes = list(client.call_many([{"method": "GET", "path": "/delay/1000"}] * 2))
    assert all(isinstance(o, gatewire.Result) and o.status == 200 for o in outcomes)
    queued = sorted(o.attempts[0].timings["queued"] for o in outcomes)  # type: ignore[union-attr]
    # It waited while the other held the one connection for 1 s (both were started at nearly
    # the same time: 200 ms of room for a loaded machine).
    assert queued[1] >= 0.8
    assert queued[0] < queued[1]


def test_a_deadline_shorter_than_the_wait_fails_the_queued_call(server: str) -> None:
    config = {"baseURL": server, "maxConnectionsPerHost": 1, "retry": {"maxRetries": 0},
              "timeouts": {"deadline": 0.5}}
    with gatewire.Client(config=config) as client:
        outcomes = list(client.call_many([{"method": "GET", "path": "/delay/3000"}] * 2))
    assert all(isinstance(o, gatewire.CallError) and o.kind == gatewire.ErrorKind.deadline for o in outcomes)
    attempts = sorted((o.attempts[0] for o in outcomes), key=lambda a: a.timings["queued"])  # type: ignore[union-attr]
    assert attempts[0].timings["queued"] < 0.1  # the call on the connection was sent at once
    # The other waited until the deadline, or until the first one's end freed the connection.
    assert attempts[1].timings["queued"] > 0.25 and attempts[1].bytes_sent == 0


@pytest.mark.parametrize("key, value", [("maxConnections", -1), ("maxConnectionsPerHost", "8"),
                                        ("http2", {"maxConcurrentStreams": 0}), ("http2", {"priorKnowledge": 1})])
def test_bad_limits_are_config_errors_naming_the_field(key: str, value: object) -> None:
    with pytest.raises(gatewire.ConfigError) as raised:
        gatewire.Client(config={"baseURL": "http://127.0.0.1:1", key: value})
    assert key in str(raised.value)


def test_the_cli_reads_the_limits_from_the_config(cli: str, server: str, tmp_path: Path) -> None:
    good = tmp_path / "limits.json"
    good.write_text(json.dumps({"baseURL": server, "maxConnectionsPerHost": 2, "maxConnections": 10,
                                "http2": {"maxConcurrentStreams": 50, "priorKnowledge": False}}))
    assert run(cli, "check", str(good)).returncode == 0
    assert run(cli, "call", "--config", str(good), "GET", "/echo").returncode == 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"baseURL": server, "http2": {"maxStreams": 50}}))
    done = run(cli, "check", str(bad))
    assert done.returncode == 1 and "http2.maxStreams: unknown field" in done.stderr
