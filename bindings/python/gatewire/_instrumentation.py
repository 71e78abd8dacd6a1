"""OpenTelemetry instrumentation of Gatewire clients (private; public as
:class:`gatewire.GatewireInstrumentor`).

The core records each call as spans (the call's, then one client span per attempt, by the
HTTP client semantic conventions) and hands them to a client's span exporters
(``gw_client_add_span_exporter``) as OTLP JSON. Instrumenting registers one such exporter on
every client, existing and future, that starts each span in an OpenTelemetry tracer with the
core's ids, parent, times, attributes, events and status, so the spans join the caller's
trace exactly where the ``traceparent`` headers the attempts sent point; and one
measurement exporter (``gw_client_add_measurement_exporter``) that records each of the
core's measurements in the same instrument of an OpenTelemetry meter.

``opentelemetry-api`` is imported by :meth:`GatewireInstrumentor.instrument` only: a program
that never instruments pays one ``WeakSet.add`` per client.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, Collection, Protocol

from ._exceptions import GatewireError
from ._version import VERSION

__all__ = ["GatewireInstrumentor", "register"]


class _Client(Protocol):
    def add_span_exporter(self, exporter: Callable[[list[dict[str, Any]]], None]) -> int: ...

    def remove_span_exporter(self, exporter_id: int) -> None: ...

    def add_measurement_exporter(self, exporter: Callable[[list[dict[str, Any]]], None]) -> int: ...

    def remove_measurement_exporter(self, exporter_id: int) -> None: ...


_lock = threading.Lock()
_clients: weakref.WeakSet[Any] = weakref.WeakSet()  # every open client, to instrument later
_active: list[_Bridge] = []  # the instrumentor's bridge while instrumented

#: The semantic conventions' bucket bounds of ``http.client.request.duration``, in seconds:
#: the core's for every histogram.
_DURATION_BOUNDS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0)

#: The core's instruments (``ClientMetrics.swift``): name -> (kind, unit, description).
_INSTRUMENTS = {
    "http.client.request.duration": ("histogram", "s", "Duration of HTTP client requests (each attempt on the wire)."),
    "http.client.active_requests": ("up_down_counter", "{request}", "Number of HTTP requests on the wire now."),
    "gatewire.client.retries": ("counter", "{retry}", "Retries scheduled, by the failed attempt's error type."),
    "gatewire.client.circuit_breaker.transitions": (
        "counter", "{transition}", "Circuit breaker state changes, by the state entered."),
    "gatewire.client.circuit_breaker.refusals": (
        "counter", "{refusal}", "Attempts refused because the host's circuit breaker was open."),
    "gatewire.client.rate_limit.refusals": ("counter", "{refusal}", "Calls refused by a rate limit or a Retry-After pause."),
    "gatewire.client.rate_limit.wait": ("histogram", "s", "Time calls waited for a rate limit's slot."),
    "gatewire.client.cache.hits": ("counter", "{hit}", "Calls answered from the HTTP cache without a request."),
    "gatewire.client.cache.revalidations": ("counter", "{revalidation}", "Stored responses revalidated by a 304."),
    "gatewire.client.queue.wait": ("histogram", "s", "Time attempts waited for a connection before being sent."),
    "otel.sdk.processor.span.processed": (
        "counter", "{span}", "Spans the batching span processor handed to its exporter, or dropped (error.type)."),
    "otel.sdk.exporter.span.exported": (
        "counter", "{span}", "Spans whose OTLP export finished, with error.type when it failed."),
}  # fmt: skip

_SCHEMA_URL = "https://opentelemetry.io/schemas/1.26.0"


def register(client: _Client) -> None:
    """Called by every new client: instrumented at once when instrumentation is on, and
    remembered (weakly) for an :meth:`GatewireInstrumentor.instrument` to come."""
    with _lock:
        _clients.add(client)
        bridge = _active[0] if _active else None
    if bridge is not None:
        bridge.attach(client)


class GatewireInstrumentor:
    """Sends the spans and metrics of every Gatewire client (:class:`gatewire.Client` and
    :class:`gatewire.AsyncClient`, made before or after) to OpenTelemetry.

    The names and semantics are those of ``opentelemetry-instrumentation``'s
    ``BaseInstrumentor`` (``instrument(tracer_provider=..., meter_provider=...)``, ``uninstrument()``,
    ``is_instrumented_by_opentelemetry``, one instance per class), without depending on that
    package: only ``opentelemetry-api`` (and the SDK, or any tracer provider) is needed.

    Each call gives one span of kind INTERNAL (the call, a child of the caller's current
    span or of ``traceparent=``) and one CLIENT span per attempt under it, with the ids the
    attempts' ``traceparent`` headers carried, so the server's spans are their children;
    ``docs/telemetry.md`` lists every name, attribute and event.

    With the OpenTelemetry SDK's tracer (``opentelemetry.sdk.trace.TracerProvider``) the
    spans keep the core's trace and span ids: the instrumentor's own tracer takes them
    through its public ``id_generator`` attribute, then starts and ends each span with its
    recorded times through the tracer API (the provider's sampler, span processors,
    resource and limits apply as to any span). Another provider's tracer gets the same
    spans with ids of its own (the attempts still under the call's span).

    Metrics: every measurement the core records (each attempt's duration, the requests on
    the wire, retries, breaker changes, ...; every call, sampled or not) is recorded in the
    instrument of the same name, unit and description of the meter ``gatewire``
    (``http.client.request.duration`` a histogram with the conventions' bucket bounds as its
    ``explicit_bucket_boundaries_advisory`` where ``opentelemetry-api`` has it, 1.23 on;
    ``http.client.active_requests`` an up-down counter; Gatewire's own ``gatewire.client.*``
    counters and histograms), so the meter provider's readers aggregate and export them
    like any instrument's. ``docs/telemetry.md`` lists every metric and its attributes.
    """

    _instance: GatewireInstrumentor | None = None

    def __new__(cls) -> GatewireInstrumentor:
        # One instance, as BaseInstrumentor: instrument() anywhere is undone by uninstrument() anywhere.
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    @property
    def is_instrumented_by_opentelemetry(self) -> bool:
        """Whether :meth:`instrument` is in effect."""
        with _lock:
            return bool(_active)

    def instrumentation_dependencies(self) -> Collection[str]:
        """The packages instrumenting needs, as pip requirements."""
        return ("opentelemetry-api >= 1.12",)

    def instrument(self, **kwargs: Any) -> None:
        """Start sending every client's spans to ``tracer_provider`` and its measurements
        to ``meter_provider`` (default: the global ones,
        ``opentelemetry.trace.get_tracer_provider()`` and
        ``opentelemetry.metrics.get_meter_provider()``, looked up at each call's end, so a
        provider set later is used). Registering the exporters turns each client's
        telemetry on: every attempt sends a W3C ``traceparent``. A second call while
        instrumented does nothing (as BaseInstrumentor).

        Keyword Args:
            tracer_provider: an OpenTelemetry ``TracerProvider``, or None for the global one.
            meter_provider: an OpenTelemetry ``MeterProvider``, or None for the global one.

        Raises:
            ImportError: ``opentelemetry-api`` is not installed.
        """
        bridge = _Bridge(kwargs.get("tracer_provider"), kwargs.get("meter_provider"))
        with _lock:
            if _active:
                return
            _active.append(bridge)
            clients = list(_clients)
        for client in clients:
            bridge.attach(client)

    def uninstrument(self, **kwargs: Any) -> None:
        """Stop sending spans and metrics: every client's exporters are removed (calls that
        end afterwards are not reported). Doing it when not instrumented does nothing."""
        with _lock:
            bridge = _active.pop() if _active else None
        if bridge is not None:
            bridge.detach_all()


class _Bridge:
    """What the instrumentor registers on each client: a span exporter (:class:`_SpanBridge`)
    and a measurement exporter (:class:`_MetricBridge`)."""

    def __init__(self, tracer_provider: Any, meter_provider: Any) -> None:
        self._spans = _SpanBridge(tracer_provider)
        self._metrics = _MetricBridge(meter_provider)
        # client -> (its span exporter id, its measurement exporter id)
        self._attached: weakref.WeakKeyDictionary[Any, tuple[int, int]] = weakref.WeakKeyDictionary()

    def attach(self, client: _Client) -> None:
        try:
            span_id = client.add_span_exporter(self._spans.export)
            try:
                measurement_id = client.add_measurement_exporter(self._metrics.export)
            except GatewireError:
                client.remove_span_exporter(span_id)
                raise
        except GatewireError:  # closed meanwhile: nothing to report
            return
        with _lock:
            self._attached[client] = (span_id, measurement_id)

    def detach_all(self) -> None:
        with _lock:
            attached = list(self._attached.items())
            self._attached.clear()
        for client, (span_id, measurement_id) in attached:
            try:
                client.remove_span_exporter(span_id)
                client.remove_measurement_exporter(measurement_id)
            except GatewireError:  # closed: its exporters went with it
                pass


class _SpanBridge:
    """The span exporter the instrumentor registers on each client: the core's OTLP JSON
    spans as spans of an OpenTelemetry tracer."""

    def __init__(self, tracer_provider: Any) -> None:
        from opentelemetry import trace

        self._trace = trace
        self._provider = tracer_provider
        self._ids = _CoreIds()
        self._tracers: dict[int, tuple[Any, Any]] = {}  # id(provider) -> (provider, its tracer)

    def _tracer(self) -> Any:
        provider = self._provider or self._trace.get_tracer_provider()
        known = self._tracers.get(id(provider))
        if known is not None and known[0] is provider:
            return known[1]
        tracer = provider.get_tracer("gatewire", VERSION, schema_url=_SCHEMA_URL)
        if hasattr(tracer, "id_generator"):  # the SDK's tracer: ours alone, takes the core's ids
            tracer.id_generator = self._ids
        self._tracers[id(provider)] = (provider, tracer)
        return tracer

    def export(self, spans: list[dict[str, Any]]) -> None:
        """Starts and ends one OpenTelemetry span per core span, the call's first (on the
        client's loop thread)."""
        trace = self._trace
        tracer = self._tracer()
        started: dict[str, Any] = {}  # the core's span id -> the span made for it
        for record in spans:
            trace_id, span_id = int(record["traceId"], 16), int(record["spanId"], 16)
            parent_id = record.get("parentSpanId")
            parent = started.get(parent_id) if parent_id else None
            if parent is None and parent_id:
                # The caller's span (current, or traceparent=): known by its ids alone.
                parent = trace.NonRecordingSpan(trace.SpanContext(
                    trace_id, int(parent_id, 16), is_remote=True, trace_flags=trace.TraceFlags(record.get("flags", 1) & 1),
                    trace_state=trace.TraceState.from_header([record["traceState"]]) if "traceState" in record else None))
            context = trace.set_span_in_context(parent) if parent is not None else None
            self._ids.next(trace_id, span_id)
            span = tracer.start_span(
                record["name"], context=context,
                kind=trace.SpanKind.CLIENT if record.get("kind") == 3 else trace.SpanKind.INTERNAL,
                attributes=_attributes(record.get("attributes", ())), start_time=int(record["startTimeUnixNano"]),
            )  # fmt: skip
            for event in record.get("events", ()):
                span.add_event(event["name"], _attributes(event.get("attributes", ())),
                               timestamp=int(event["timeUnixNano"]))
            status = record.get("status", {})
            if status.get("code") == 2:
                span.set_status(trace.Status(trace.StatusCode.ERROR, status.get("message")))
            span.end(end_time=int(record["endTimeUnixNano"]))
            started[record["spanId"]] = span


class _MetricBridge:
    """The measurement exporter the instrumentor registers on each client: the core's
    measurements recorded in the instruments of an OpenTelemetry meter."""

    def __init__(self, meter_provider: Any) -> None:
        from opentelemetry import metrics

        self._metrics = metrics
        self._provider = meter_provider
        # id(provider) -> (provider, instrument name -> (its record or add method))
        self._meters: dict[int, tuple[Any, dict[str, Callable[..., None]]]] = {}

    def _instruments(self) -> dict[str, Callable[..., None]]:
        provider = self._provider or self._metrics.get_meter_provider()
        known = self._meters.get(id(provider))
        if known is not None and known[0] is provider:
            return known[1]
        meter = provider.get_meter("gatewire", VERSION, schema_url=_SCHEMA_URL)
        instruments: dict[str, Callable[..., None]] = {}
        for name, (kind, unit, description) in _INSTRUMENTS.items():
            if kind == "histogram":
                instruments[name] = _histogram(meter, name, unit, description).record
            elif kind == "counter":
                instruments[name] = meter.create_counter(name, unit=unit, description=description).add
            else:
                instruments[name] = meter.create_up_down_counter(name, unit=unit, description=description).add
        self._meters[id(provider)] = (provider, instruments)
        return instruments

    def export(self, measurements: list[dict[str, Any]]) -> None:
        """Records each measurement in its instrument (on the client's loop thread)."""
        instruments = self._instruments()
        for measurement in measurements:
            record = instruments.get(measurement["name"])
            if record is not None:
                record(measurement["value"], measurement["attributes"])


def _histogram(meter: Any, name: str, unit: str, description: str) -> Any:
    """A histogram with the conventions' bucket bounds as its advice
    (``explicit_bucket_boundaries_advisory``, opentelemetry-api 1.23 on); an older API
    takes no advice, and the SDK's default bounds apply."""
    try:
        return meter.create_histogram(name, unit=unit, description=description,
                                      explicit_bucket_boundaries_advisory=list(_DURATION_BOUNDS))
    except TypeError:
        return meter.create_histogram(name, unit=unit, description=description)


class _CoreIds:
    """An SDK ``IdGenerator`` that gives the ids of the core span about to be started (set
    by :meth:`next` on the same thread: each client exports on its own loop thread)."""

    def __init__(self) -> None:
        self._next = threading.local()

    def next(self, trace_id: int, span_id: int) -> None:
        self._next.ids = (trace_id, span_id)

    def generate_trace_id(self) -> int:
        return int(self._next.ids[0])

    def generate_span_id(self) -> int:
        return int(self._next.ids[1])

    def is_trace_id_random(self) -> bool:
        # The core's trace ids come from OpenSSL's CSPRNG (RAND_bytes), W3C's random flag.
        return True


def _attributes(items: Any) -> dict[str, Any]:
    """OTLP JSON attributes (``[{"key", "value": {"stringValue": ...}}]``) as a dict."""
    result: dict[str, Any] = {}
    for item in items:
        value = item["value"]
        if "intValue" in value:
            result[item["key"]] = int(value["intValue"])
        else:
            result[item["key"]] = next(iter(value.values()), None)
    return result
