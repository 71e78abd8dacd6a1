"""The core's metrics in Python: ``gatewire.GatewireInstrumentor().instrument(meter_provider=...)``
records every measurement a client makes in the OpenTelemetry SDK's meter provider (read by its
``InMemoryMetricReader``), a client's measurement exporter gets them as dicts, and
``client.telemetry_metrics()`` is the OTLP request the core's exporter sends, as
``opentelemetry-proto``'s ``ExportMetricsServiceRequest`` decodes it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterator

import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader

import gatewire
from test_telemetry import FAST_RETRY

# The HTTP client semantic conventions' bucket bounds of http.client.request.duration (seconds).
BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]


@pytest.fixture
def reader() -> Iterator[tuple[MeterProvider, InMemoryMetricReader]]:
    metric_reader = InMemoryMetricReader()
    provider = MeterProvider(metric_readers=[metric_reader])
    yield provider, metric_reader
    gatewire.GatewireInstrumentor().uninstrument()
    provider.shutdown()


def sdk_metrics(metric_reader: InMemoryMetricReader) -> dict[str, Any]:
    """The metrics of the meter ``gatewire`` the reader collects now, by name."""
    data = metric_reader.get_metrics_data()
    assert data is not None
    return {metric.name: metric for resource in data.resource_metrics for scope in resource.scope_metrics
            if scope.scope.name == "gatewire" for metric in scope.metrics}  # fmt: skip


def test_instrumented_clients_record_each_measurement_in_the_meter_provider(
    server: str, library: str, key: str, reader: tuple[MeterProvider, InMemoryMetricReader]
) -> None:
    provider, metric_reader = reader
    port = int(server.rsplit(":", 1)[1])
    client = gatewire.Client(config={"baseURL": server, "retry": FAST_RETRY})
    assert client.telemetry_metrics() is None  # telemetry off
    # No tracer provider records spans: the metrics flow all the same.
    gatewire.GatewireInstrumentor().instrument(meter_provider=provider)
    attempts = []
    with client:
        for path in (f"/sequence/{key}-a/503,500,200", f"/sequence/{key}-b/200", f"/sequence/{key}-c/503,500,200"):
            result = client.call("GET", path)
            assert result.status == 200
            attempts += result.attempts
        request = client.telemetry_metrics()
    assert len(attempts) == 7

    metrics = sdk_metrics(metric_reader)
    duration = metrics["http.client.request.duration"]
    assert duration.unit == "s"
    points = duration.data.data_points
    assert sum(point.count for point in points) == 7
    assert sum(point.sum for point in points) == pytest.approx(sum(a.duration for a in attempts), abs=1e-6)
    for point in points:
        assert list(point.explicit_bounds) == BOUNDS
        assert sum(point.bucket_counts) == point.count
        assert {k: point.attributes[k] for k in ("http.request.method", "server.address", "server.port",
                                                  "network.protocol.version")} == {
            "http.request.method": "GET", "server.address": "127.0.0.1", "server.port": port,
            "network.protocol.version": "1.1"}  # fmt: skip
        assert "url.full" not in point.attributes
    outcomes = {(p.attributes["http.response.status_code"], p.attributes.get("error.type")): p.count for p in points}
    assert outcomes == {(503, "503"): 2, (500, "500"): 2, (200, None): 3}

    retries = metrics["gatewire.client.retries"]
    assert retries.unit == "{retry}" and retries.data.is_monotonic
    by_reason = {p.attributes["gatewire.retry.reason"]: p.value for p in retries.data.data_points}
    assert by_reason == {"503": 2, "500": 2}  # 2 per retried call
    active = metrics["http.client.active_requests"]
    assert not active.data.is_monotonic
    assert [p.value for p in active.data.data_points] == [0]
    assert sum(p.count for p in metrics["gatewire.client.queue.wait"].data.data_points) == 7

    # The snapshot is the OTLP request the core's exporter sends, with the same instruments.
    assert request is not None
    message = json_format.ParseDict(request, ExportMetricsServiceRequest())
    core = {metric.name: metric for metric in message.resource_metrics[0].scope_metrics[0].metrics}
    assert set(core) == set(metrics)
    for name, metric in core.items():
        assert (metric.unit, metric.description) == (metrics[name].unit, metrics[name].description)
    histogram = core["http.client.request.duration"].histogram
    assert histogram.aggregation_temporality == 2
    assert sum(point.count for point in histogram.data_points) == 7
    assert sum(point.sum for point in histogram.data_points) == pytest.approx(sum(p.sum for p in points), abs=1e-9)
    assert sum(p.as_int for p in core["gatewire.client.retries"].sum.data_points) == 4


def test_uninstrument_stops_the_measurements(
    server: str, library: str, key: str, reader: tuple[MeterProvider, InMemoryMetricReader]
) -> None:
    provider, metric_reader = reader
    instrumentor = gatewire.GatewireInstrumentor()
    instrumentor.instrument(meter_provider=provider)
    with gatewire.Client(base_url=server) as client:  # made after instrument()
        client.call("GET", f"/sequence/{key}/200")
        instrumentor.uninstrument()
        client.call("GET", f"/sequence/{key}-after/200")
    points = sdk_metrics(metric_reader)["http.client.request.duration"].data.data_points
    assert sum(point.count for point in points) == 1


def test_measurement_exporter_gets_each_calls_measurements_as_dicts(server: str, library: str, key: str) -> None:
    batches: list[list[dict[str, Any]]] = []
    with gatewire.Client(config={"baseURL": server, "retry": FAST_RETRY}) as client:
        exporter_id = client.add_measurement_exporter(batches.append)  # turns telemetry on
        result = client.call("GET", f"/sequence/{key}/503,500,200")
        assert len(batches) == 1  # delivered at the call's end, before its result
        durations = [m for m in batches[0] if m["name"] == "http.client.request.duration"]
        assert [m["value"] for m in durations] == pytest.approx([a.duration for a in result.attempts], abs=1e-9)
        assert [(m["attributes"]["http.response.status_code"], m["attributes"].get("error.type")) for m in durations] == [
            (503, "503"), (500, "500"), (200, None)]  # fmt: skip
        active = [m["value"] for m in batches[0] if m["name"] == "http.client.active_requests"]
        assert active == [1, -1, 1, -1, 1, -1]
        assert Counter(m["name"] for m in batches[0])["gatewire.client.retries"] == 2
        client.remove_measurement_exporter(exporter_id)
        client.call("GET", f"/sequence/{key}-after/200")
        assert len(batches) == 1
        with pytest.raises(gatewire.InvalidArgument):
            client.remove_measurement_exporter(exporter_id)
        # Its last exporter gone, the client's telemetry is off again.
        assert client.telemetry_metrics() is None
