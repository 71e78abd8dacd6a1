"""``gatewire.GatewireInstrumentor``: every client's call and attempt spans reach an
OpenTelemetry tracer provider (the SDK's, collected by its ``InMemorySpanExporter`` through a
``SimpleSpanProcessor``) with the core's ids, so the ``traceparent`` each attempt sent names
the attempt's exported span, under the caller's current span.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Iterator

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

import gatewire
from test_telemetry import FAST_RETRY


@pytest.fixture
def collected() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    gatewire.GatewireInstrumentor().uninstrument()


def traceparents(server: str, key: str) -> list[str | None]:
    with urllib.request.urlopen(f"{server}/sequence/{key}/traces", timeout=10) as answer:
        return json.loads(answer.read())["traceparent"]  # type: ignore[no-any-return]


def test_a_retried_call_becomes_a_call_span_and_three_attempt_spans(
    server: str, library: str, key: str, collected: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    provider, exporter = collected
    tracer = provider.get_tracer("test")
    # Made before instrument(): instrumented all the same.
    client = gatewire.Client(config={"baseURL": server, "retry": FAST_RETRY})
    instrumentor = gatewire.GatewireInstrumentor()
    assert instrumentor is gatewire.GatewireInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    assert instrumentor.is_instrumented_by_opentelemetry
    with client, tracer.start_as_current_span("parent") as parent:
        assert client.call("GET", f"/sequence/{key}/503,500,200").status == 200
    # Closing the client ended its loop thread: every export has run.
    spans = {span.name: span for span in exporter.get_finished_spans() if span.kind == SpanKind.INTERNAL}
    attempts = [span for span in exporter.get_finished_spans() if span.kind == SpanKind.CLIENT]
    call = spans["GET"]
    assert call.parent.span_id == parent.get_span_context().span_id
    assert call.context.trace_id == parent.get_span_context().trace_id
    assert call.instrumentation_scope.name == "gatewire"
    assert [a.parent.span_id for a in attempts] == [call.context.span_id] * 3
    assert [a.attributes.get("http.response.status_code") for a in attempts] == [503, 500, 200]
    assert [a.attributes.get("error.type") for a in attempts] == ["503", "500", None]
    assert [a.attributes.get("http.request.resend_count") for a in attempts] == [None, 1, 2]
    assert [a.status.status_code for a in attempts] == [StatusCode.ERROR, StatusCode.ERROR, StatusCode.UNSET]
    assert all(a.attributes["http.request.method"] == "GET" and a.attributes["server.port"] == int(server.rsplit(":", 1)[1])
               for a in attempts)
    assert call.start_time <= attempts[0].start_time <= attempts[0].end_time <= attempts[1].start_time
    assert attempts[2].end_time <= call.end_time
    assert [e.name for e in call.events].count("gatewire.retry") == 2
    trace_id = f"{call.context.trace_id:032x}"
    assert traceparents(server, key) == [f"00-{trace_id}-{a.context.span_id:016x}-01" for a in attempts]


def test_clients_made_later_are_instrumented_until_uninstrument(
    server: str, library: str, key: str, collected: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    provider, exporter = collected
    gatewire.GatewireInstrumentor().instrument(tracer_provider=provider)
    with gatewire.Client(base_url=server) as client:
        client.call("GET", f"/sequence/{key}/200")
        client.close()
    names = [(span.name, span.kind) for span in exporter.get_finished_spans()]
    assert names == [("GET", SpanKind.INTERNAL), ("GET", SpanKind.CLIENT)]
    gatewire.GatewireInstrumentor().uninstrument()
    assert not gatewire.GatewireInstrumentor().is_instrumented_by_opentelemetry
    exporter.clear()
    with gatewire.Client(base_url=server) as client:
        client.call("GET", f"/sequence/{key}-after/200")
    assert exporter.get_finished_spans() == ()
    # Not instrumented and no telemetry: no traceparent is added.
    assert traceparents(server, f"{key}-after") == [None]


def test_span_exporter_gets_otlp_json(server: str, library: str, key: str) -> None:
    seen: list[list[dict]] = []
    with gatewire.Client(base_url=server) as client:
        exporter_id = client.add_span_exporter(seen.append)
        client.call("GET", f"/sequence/{key}/200")
        client.close()
    assert [[span["kind"] for span in spans] for spans in seen] == [[1, 3]]
    call, attempt = seen[0]
    assert attempt["parentSpanId"] == call["spanId"] and attempt["traceId"] == call["traceId"]
    assert int(call["startTimeUnixNano"]) <= int(attempt["startTimeUnixNano"])
    assert traceparents(server, key) == [f"00-{call['traceId']}-{attempt['spanId']}-01"]
    with pytest.raises(gatewire.GatewireError):
        client.remove_span_exporter(exporter_id)
