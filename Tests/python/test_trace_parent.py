"""A Python call's trace parent: the ``traceparent=``/``tracestate=`` keywords, else the
current OpenTelemetry span (``opentelemetry-api``), reach the library in ``gw_call_options``
version 7; each attempt sends a ``traceparent`` of its own span under it, and the exported
call span is the parent's child. The spans arrive at ``Tests/support/otlpreceiver.py``,
decoded by ``opentelemetry-proto``; the test server records each request's fields.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from typing import Iterator

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, TraceState, use_span

import gatewire
from test_telemetry import FAST_RETRY, PARENT, check_retried_call, start_receiver

import otlpreceiver


@pytest.fixture
def receiver() -> Iterator[tuple[otlpreceiver.Receiver, str]]:
    server, endpoint = start_receiver("ok")
    yield server, endpoint
    server.shutdown()
    server.server_close()


def seen(server: str, key: str) -> dict[str, list[str | None]]:
    """The ``traceparent`` and ``tracestate`` of each request the test server counted for ``key``."""
    with urllib.request.urlopen(f"{server}/sequence/{key}/traces", timeout=10) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


def test_traceparent_keyword_parents_the_calls_spans(
    server: str, library: str, key: str, receiver: tuple[otlpreceiver.Receiver, str]
) -> None:
    collector, endpoint = receiver
    config = {"baseURL": server, "retry": FAST_RETRY, "telemetry": {"otlpEndpoint": endpoint}}
    with gatewire.Client(config=config) as client:
        result = client.call("GET", f"/sequence/{key}/503,500,200", traceparent=PARENT, tracestate="congo=t61rcWkgMzE")
        assert result.status == 200
    # The spans' export and the metrics' leave at the close in no set order.
    traces = [r for r in collector.requests if r["path"] == "/v1/traces"]
    check_retried_call(traces[0]["spans"], server, key,
                       trace_id="4bf92f3577b34da6a3ce929d0e0e4736", parent="00f067aa0ba902b7")
    assert seen(server, key)["tracestate"] == ["congo=t61rcWkgMzE"] * 3


def test_current_opentelemetry_span_is_the_parent(
    server: str, library: str, key: str, receiver: tuple[otlpreceiver.Receiver, str]
) -> None:
    collector, endpoint = receiver
    tracer = TracerProvider().get_tracer("test")
    config = {"baseURL": server, "retry": FAST_RETRY, "telemetry": {"otlpEndpoint": endpoint}}
    with gatewire.Client(config=config) as client:
        with tracer.start_as_current_span("parent") as parent:
            assert client.call("GET", f"/sequence/{key}/503,500,200").status == 200
        outside = client.call("GET", f"/sequence/{key}-outside/200")
        assert outside.status == 200
    context = parent.get_span_context()
    spans = [s for r in collector.requests for s in r["spans"]]
    check_retried_call(spans[:4], server, key, trace_id=f"{context.trace_id:032x}", parent=f"{context.span_id:016x}")
    # Outside the span: a trace of its own.
    assert spans[4]["traceId"] != f"{context.trace_id:032x}" and spans[4].get("parentSpanId") is None


def test_opentelemetry_tracestate_and_unsampled_flag_are_kept(server: str, library: str, key: str) -> None:
    # Telemetry off: the parent is forwarded as the caller's context gives it.
    context = SpanContext(trace_id=0x0AF7651916CD43DD8448EB211C80319C, span_id=0xB7AD6B7169203331, is_remote=True,
                          trace_flags=TraceFlags(0), trace_state=TraceState([("rojo", "00f067aa0ba902b7")]))
    with gatewire.Client(base_url=server) as client, use_span(NonRecordingSpan(context)):
        assert client.call("GET", f"/sequence/{key}/200").status == 200
    assert seen(server, key) == {"traceparent": ["00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"],
                                 "tracestate": ["rojo=00f067aa0ba902b7"]}


def test_async_client_takes_each_tasks_span(server: str, library: str, key: str) -> None:
    tracer = TracerProvider().get_tracer("test")
    config = {"baseURL": server, "telemetry": {}}

    async def main() -> list[str]:
        async with gatewire.AsyncClient(config=config) as client:
            ids = []
            for index in range(2):
                # The same call twice: the binding's reuse of built options must not keep a parent.
                with tracer.start_as_current_span(f"parent-{index}") as span:
                    assert (await client.get(f"/sequence/{key}/200")).status == 200
                ids.append(f"{span.get_span_context().trace_id:032x}")
            return ids

    trace_ids = asyncio.run(main())
    sent = seen(server, key)["traceparent"]
    assert [value.split("-")[1] for value in sent if value] == trace_ids
    assert trace_ids[0] != trace_ids[1]


def test_invalid_traceparent_is_refused_naming_it(server: str, library: str) -> None:
    with gatewire.Client(base_url=server) as client:
        with pytest.raises(gatewire.InvalidArgument, match=r'^traceparent: "00-ABC" is not a W3C traceparent'):
            client.call("GET", "/echo", traceparent="00-ABC")
        with pytest.raises(gatewire.InvalidArgument, match=r"^tracestate: set without traceparent"):
            client.call("GET", "/echo", tracestate="a=1")
        with pytest.raises(gatewire.InvalidArgument, match=r"^policy\.retry\.maxRetries: 150 is out of range"):
            client.call("GET", "/echo", traceparent=PARENT, policy={"retry": {"maxRetries": 150}})


def test_policies_travel_with_the_parent(
    server: str, library: str, key: str, receiver: tuple[otlpreceiver.Receiver, str]
) -> None:
    """``policy=`` (as policy_json) and the parent go together in version 7: the policy's
    retry decides, ``max_retries=`` replaces only its count, and the spans are the parent's."""
    collector, endpoint = receiver
    config = {"baseURL": server, "retry": {"maxRetries": 0}, "telemetry": {"otlpEndpoint": endpoint}}
    policy = {"retry": {"maxRetries": 0, "initialDelay": 0.01, "maxDelay": 0.05, "jitter": "none"},
              "redirects": False}
    with gatewire.Client(config=config) as client:
        result = client.call("GET", f"/sequence/{key}/503,500,200", traceparent=PARENT, policy=policy, max_retries=3)
        assert [attempt.status for attempt in result.attempts] == [503, 500, 200]
        tracer = TracerProvider().get_tracer("test")
        with tracer.start_as_current_span("parent") as ambient:
            with pytest.raises(gatewire.RedirectError, match='redirects.follow is "none"'):  # the policy's
                client.call("GET", "/redirect-to", params={"url": "/echo"}, policy=policy)
    spans = [span for request in collector.requests for span in request["spans"]]
    assert len(spans) == 6
    check_retried_call(spans[:4], server, key, trace_id="4bf92f3577b34da6a3ce929d0e0e4736", parent="00f067aa0ba902b7")
    assert spans[4]["traceId"] == f"{ambient.get_span_context().trace_id:032x}"
    assert spans[4]["parentSpanId"] == f"{ambient.get_span_context().span_id:016x}"


def test_a_body_and_retry_count_survive_the_move_to_version_7(server: str, library: str, key: str) -> None:
    with gatewire.Client(base_url=server) as client:
        echoed = json.loads(client.call("POST", "/echo", json={"a": 1}, traceparent=PARENT).body)
        assert echoed["body"] == {"a": 1}
        assert echoed["headers"]["traceparent"] == PARENT  # telemetry off: as given
        with pytest.raises(gatewire.HTTPStatusError):
            client.call("GET", f"/sequence/{key}/503,503,200", traceparent=PARENT, max_retries=1, deadline=30)
    assert seen(server, key)["traceparent"] == [PARENT, PARENT]
