#!/usr/bin/env python3
"""A loopback OTLP/HTTP receiver of traces and metrics for Gatewire's telemetry tests.

Binds 127.0.0.1 on a free port (or ``--port``), prints ``PORT <n>`` as its first stdout line, flushes, and
serves until killed. Every ``POST /v1/traces`` is decoded with the OpenTelemetry project's
own messages (``opentelemetry-proto``'s ``ExportTraceServiceRequest``): a JSON body (OTLP/HTTP
JSON: ids as hex) through ``google.protobuf.json_format`` after turning the hex ids into the
base64 that the proto3 JSON mapping expects, a protobuf body as is; every ``POST /v1/metrics``
likewise with ``ExportMetricsServiceRequest`` (no ids to convert). ``GET /received`` answers
``{"requests": [{"path", "content_type", "body", "spans", "metrics", "error"}]}``: the raw body
as text, the decoded spans (``MessageToDict`` of each span with its ids written back as hex,
its resource's attributes added as ``resource``) or metrics (``MessageToDict`` of each metric,
with ``resource`` and ``scope`` added), and the decoding error, or null.

``--mode``: ``ok`` (200 ``{}``), ``refuse`` (503 to every export, after decoding it),
``hang`` (reads the export and never answers until the client gives up), ``unavailable-once``
(503 with ``Retry-After: 0`` to the first export of each path, 200 to the others: an exporter
that retries as the OTLP specification says sends it again at once) or ``reject`` (400 to
every export: not retryable).
"""

import argparse
import base64
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

ID_FIELDS = {"traceId": "trace_id", "spanId": "span_id", "parentSpanId": "parent_span_id"}


def hex_ids_to_base64(document: dict) -> dict:
    """The OTLP/HTTP JSON ids (hex) as the proto3 JSON mapping of ``bytes`` (base64)."""
    for resource_spans in document.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                for field in ID_FIELDS:
                    if span.get(field):
                        span[field] = base64.b64encode(bytes.fromhex(span[field])).decode()
    return document


def decode(content_type: str, body: bytes) -> list:
    """The spans of one export as dicts, ids in hex, each with its resource's attributes."""
    message = ExportTraceServiceRequest()
    if content_type.startswith("application/json"):
        json_format.Parse(json.dumps(hex_ids_to_base64(json.loads(body))), message)
    else:
        message.ParseFromString(body)
    spans = []
    for resource_spans in message.resource_spans:
        resource = json_format.MessageToDict(resource_spans.resource)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                item = json_format.MessageToDict(span)
                for field, name in ID_FIELDS.items():
                    raw = getattr(span, name)
                    if raw:
                        item[field] = raw.hex()
                item["resource"] = resource.get("attributes", [])
                item["scope"] = scope_spans.scope.name
                spans.append(item)
    return spans


def decode_metrics(content_type: str, body: bytes) -> list:
    """The metrics of one export as dicts, each with its resource's attributes and scope name."""
    message = ExportMetricsServiceRequest()
    if content_type.startswith("application/json"):
        json_format.Parse(body.decode(), message)
    else:
        message.ParseFromString(body)
    metrics = []
    for resource_metrics in message.resource_metrics:
        resource = json_format.MessageToDict(resource_metrics.resource)
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                item = json_format.MessageToDict(metric)
                item["resource"] = resource.get("attributes", [])
                item["scope"] = scope_metrics.scope.name
                metrics.append(item)
    return metrics


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "Receiver"

    def log_message(self, format, *args):  # noqa: A002 (BaseHTTPRequestHandler's name)
        pass

    def _answer(self, status: int, payload: dict, retry_after: str | None = None) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        if retry_after is not None:
            self.send_header("Retry-After", retry_after)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):  # noqa: N802 (BaseHTTPRequestHandler's name)
        if self.path != "/received":
            return self._answer(404, {"error": "not found"})
        with self.server.lock:
            requests = list(self.server.requests)
        self._answer(200, {"requests": requests})

    def do_POST(self):  # noqa: N802 (BaseHTTPRequestHandler's name)
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        content_type = self.headers.get("Content-Type", "")
        record = {"path": self.path, "content_type": content_type, "body": body.decode("utf-8", "replace"),
                  "spans": [], "metrics": [], "error": None}
        try:
            if self.path == "/v1/metrics":
                record["metrics"] = decode_metrics(content_type, body)
            else:
                record["spans"] = decode(content_type, body)
        except Exception as error:  # noqa: BLE001 (any decoding failure is the test's finding)
            record["error"] = f"{type(error).__name__}: {error}"
        with self.server.lock:
            self.server.requests.append(record)
        if self.server.mode == "hang":
            time.sleep(3600)
        if self.server.mode == "refuse":
            return self._answer(503, {"error": "refused"})
        if self.server.mode == "reject":
            return self._answer(400, {"error": "rejected"})
        if self.server.mode == "unavailable-once":
            with self.server.lock:
                first = self.path not in self.server.refused_paths
                self.server.refused_paths.add(self.path)
            if first:
                return self._answer(503, {"error": "unavailable"}, retry_after="0")
        self._answer(400 if record["error"] else 200, {} if not record["error"] else {"error": record["error"]})


class Receiver(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, mode: str, port: int = 0):
        super().__init__(("127.0.0.1", port), Handler)
        self.mode = mode
        self.lock = threading.Lock()
        self.requests: list = []
        self.refused_paths: set = set()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("ok", "refuse", "hang", "unavailable-once", "reject"), default="ok")
    parser.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1; 0 (default): a free one")
    arguments = parser.parse_args()
    server = Receiver(arguments.mode, arguments.port)
    print(f"PORT {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
