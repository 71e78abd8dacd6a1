"""Traces from the core, as an OpenTelemetry collector receives them: the config's
``telemetry`` makes a client (Python's, the CLI's) export each call's span and its attempts'
client spans over OTLP/HTTP, and every attempt send a ``traceparent`` of its own span.

The receiver is ``Tests/support/otlpreceiver.py`` in this process: it decodes each export with
``opentelemetry-proto``'s ``ExportTraceServiceRequest`` (the OpenTelemetry project's messages),
so a field the OTLP specification does not define, or an id that is not hex, fails the test.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

import gatewire

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tests" / "support"))

import otlpreceiver  # noqa: E402

FAST_RETRY = {"maxRetries": 3, "initialDelay": 0.01, "maxDelay": 0.05, "jitter": "none"}
PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def start_receiver(mode: str) -> tuple[otlpreceiver.Receiver, str]:
    receiver = otlpreceiver.Receiver(mode)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    return receiver, f"http://127.0.0.1:{receiver.server_address[1]}"


@pytest.fixture
def receiver() -> Iterator[tuple[otlpreceiver.Receiver, str]]:
    """A receiver that accepts every export; its requests and its endpoint."""
    server, endpoint = start_receiver("ok")
    yield server, endpoint
    server.shutdown()
    server.server_close()


def traces_seen(server: str, key: str) -> list[str | None]:
    """The ``traceparent`` of each request the test server counted for ``key``."""
    with urllib.request.urlopen(f"{server}/sequence/{key}/traces", timeout=10) as answer:
        return json.loads(answer.read())["traceparent"]


def attributes(span: dict) -> dict:
    """A decoded span's attributes as {key: value}, integers as int."""
    result = {}
    for item in span.get("attributes", []):
        value = item["value"]
        result[item["key"]] = int(value["intValue"]) if "intValue" in value else next(iter(value.values()))
    return result


def check_retried_call(spans: list[dict], server: str, key: str, trace_id: str | None, parent: str | None) -> None:
    """One call span and three attempt spans (503, 500, 200) as the conventions name them,
    and the three traceparents the server saw are the attempts' own."""
    assert [s["kind"] for s in spans] == ["SPAN_KIND_INTERNAL"] + ["SPAN_KIND_CLIENT"] * 3
    call, attempts = spans[0], spans[1:]
    assert call.get("parentSpanId") == parent
    if trace_id:
        assert call["traceId"] == trace_id
    assert all(s["traceId"] == call["traceId"] and s["parentSpanId"] == call["spanId"] for s in attempts)
    assert [attributes(s).get("http.response.status_code") for s in attempts] == [503, 500, 200]
    assert [attributes(s).get("error.type") for s in attempts] == ["503", "500", None]
    assert [attributes(s).get("http.request.resend_count") for s in attempts] == [None, 1, 2]
    assert [s.get("status", {}).get("code") for s in attempts] == ["STATUS_CODE_ERROR"] * 2 + [None]
    for span in attempts:
        named = attributes(span)
        assert named["http.request.method"] == "GET"
        assert named["server.address"] == "127.0.0.1"
        assert named["server.port"] == int(server.rsplit(":", 1)[1])
        assert named["network.protocol.version"] == "1.1"
        assert int(span["startTimeUnixNano"]) <= int(span["endTimeUnixNano"])
    assert [e["name"] for e in call["events"]].count("gatewire.retry") == 2
    seen = traces_seen(server, key)
    assert seen == [f"00-{call['traceId']}-{s['spanId']}-01" for s in attempts]
    assert len(set(seen)) == 3


def test_python_client_exports_a_retried_call_without_its_secrets(
    server: str, library: str, key: str, receiver: tuple[otlpreceiver.Receiver, str]
) -> None:
    collector, endpoint = receiver
    secret_base = server.replace("http://", "http://agent:hunter2pw@")
    config = {"baseURL": secret_base, "retry": FAST_RETRY,
              "telemetry": {"otlpEndpoint": endpoint, "serviceName": "py-service"}}
    with gatewire.Client(config=config) as client:
        result = client.call("GET", f"/sequence/{key}/503,500,200?token=s3cr3tvalue&page=2")
        assert result.status == 200
    # Closing flushed the queue: one export of spans, decoded by opentelemetry-proto without error.
    traces = [r for r in collector.requests if r["path"] == "/v1/traces"]
    assert len(traces) == 1
    export = traces[0]
    assert export["error"] is None
    assert export["content_type"] == "application/x-protobuf"  # the OTLP exporter specification's default
    for secret in ("hunter2pw", "s3cr3tvalue", "agent:"):
        assert secret not in export["body"]
    spans = export["spans"]
    check_retried_call(spans, server, key, trace_id=None, parent=None)
    assert attributes(spans[1])["url.full"] == f"{server}/sequence/{key}/503,500,200?token=<redacted>&page=2"
    assert {"key": "service.name", "value": {"stringValue": "py-service"}} in spans[0]["resource"]


def test_cli_traceparent_joins_the_callers_trace(
    cli: str, server: str, key: str, tmp_path: Path, receiver: tuple[otlpreceiver.Receiver, str]
) -> None:
    collector, endpoint = receiver
    config = tmp_path / "gateway.json"
    config.write_text(json.dumps({"baseURL": server, "retry": FAST_RETRY, "telemetry": {"otlpEndpoint": endpoint}}))
    done = subprocess.run([cli, "call", "--config", str(config), "GET", f"/sequence/{key}/503,500,200",
                           "--traceparent", PARENT], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    # The CLI's exit flushed the queue.
    traces = [r for r in collector.requests if r["path"] == "/v1/traces"]
    assert [r["error"] for r in traces] == [None]
    check_retried_call(traces[0]["spans"], server, key,
                       trace_id="4bf92f3577b34da6a3ce929d0e0e4736", parent="00f067aa0ba902b7")


def test_cli_rejects_an_invalid_traceparent(cli: str, server: str) -> None:
    done = subprocess.run([cli, "call", "--base-url", server, "GET", "/echo", "--traceparent",
                           "00-00000000000000000000000000000000-00f067aa0ba902b7-01"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--traceparent expects a W3C traceparent" in done.stderr


@pytest.mark.parametrize("mode", ["refuse", "hang", "absent"])
def test_collector_trouble_costs_the_calls_nothing(
    server: str, library: str, key: str, closed_port: int, mode: str
) -> None:
    collector, endpoint = start_receiver(mode) if mode != "absent" else (None, f"http://127.0.0.1:{closed_port}")
    try:
        config = {"baseURL": server, "retry": FAST_RETRY, "telemetry": {"otlpEndpoint": endpoint}}
        with gatewire.Client(config=config) as client:
            for index in range(3):
                result = client.call("GET", f"/sequence/{key}-{index}/503,200")
                assert result.status == 200
                assert [a.status for a in result.attempts] == [503, 200]
    finally:
        if collector is not None:
            collector.shutdown()
            collector.server_close()
