"""The telemetry rows of the bench (``run.py --only telemetry``): what OpenTelemetry costs a
busy client.

Gatewire's C ABI (``c/gatewire_c.c``, mode ``timed``) on (a) at 64 in flight, with telemetry
off (no ``telemetry`` key) against on: every call sampled (``sampleRatio`` 1), its spans (one
for the call, one per attempt) and the client's metrics exported over OTLP/HTTP JSON to a
receiver on loopback in this process, which reads each export and answers 200 without
decoding it (its CPU is not the client's). Reported per row: requests/s, the client's CPU per
call, the median latency; for the row with telemetry on, the exports the receiver got and the
spans per call they held (2.0 when none was dropped from the bounded queue).

The rows take turns (run 1 of each, then run 2, ...), as the main rows do.
"""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path
from statistics import median
from typing import Callable

INFLIGHT = 64


class Receiver:
    """A loopback OTLP/HTTP receiver that counts what it is sent: requests per path, bytes and
    the spans of each trace export (the ``"spanId"`` keys its JSON holds)."""

    def __init__(self) -> None:
        counts = {"/v1/traces": 0, "/v1/metrics": 0, "bytes": 0, "spans": 0}
        lock = threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format, *args):  # noqa: A002 (BaseHTTPRequestHandler's name)
                pass

            def do_POST(self):  # noqa: N802 (BaseHTTPRequestHandler's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with lock:
                    counts[self.path] = counts.get(self.path, 0) + 1
                    counts["bytes"] += len(body)
                    counts["spans"] += body.count(b'"spanId"')
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

        self.counts = counts
        self.lock = lock
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def take(self) -> dict[str, int]:
        """The counts since the last call, then zero."""
        with self.lock:
            taken = dict(self.counts)
            for key in self.counts:
                self.counts[key] = 0
        return taken

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def telemetry_rows(paths: dict[str, Path], url: str, size: int, runs: int, requests: int,
                   run_once: Callable[..., dict], log: Callable[[str], None], workdir: Path) -> list[dict]:
    """The rows with telemetry off and on (see the module's docstring), each the median of ``runs``."""
    receiver = Receiver()
    try:
        configs = {}
        for name in ("off", "on"):
            config: dict = {"baseURL": url, "routes": {"small": {"method": "GET", "pathPattern": "/small.json"}}}
            if name == "on":
                config["telemetry"] = {"otlpEndpoint": receiver.url, "serviceName": "bench", "sampleRatio": 1.0}
            configs[name] = workdir / f"telemetry-{name}.json"
            configs[name].write_text(json.dumps(config))
        measured: dict[str, list[dict]] = {"off": [], "on": []}
        for _ in range(runs):
            for name, path in configs.items():
                receiver.take()
                report = run_once([str(paths["gatewire_c"]), str(path), "small", str(requests), str(INFLIGHT),
                                   str(size), "timed"], {}, timeout=600)
                report["received"] = receiver.take()
                measured[name].append(report)
        rows = []
        for name, reports in measured.items():
            row = {"telemetry": name, "inflight": INFLIGHT, "requests": requests,
                   "rate": median(r["requests"] / r["elapsed"] for r in reports),
                   "cpu_ms": median(r["cpu"] / r["requests"] * 1000 for r in reports),
                   "p50_ms": median(r["p50"] * 1000 for r in reports),
                   "trace_exports": median(r["received"]["/v1/traces"] for r in reports),
                   "metric_exports": median(r["received"]["/v1/metrics"] for r in reports),
                   "spans_per_call": median(r["received"]["spans"] / r["requests"] for r in reports),
                   "export_bytes_per_call": median(r["received"]["bytes"] / r["requests"] for r in reports)}
            rows.append(row)
            log(f"telemetry {name:3} x{INFLIGHT:<3} {row['rate']:10,.0f} req/s  {row['cpu_ms']:.4f} CPU ms/call  "
                f"p50 {row['p50_ms']:.3f} ms  {row['spans_per_call']:.2f} spans/call exported")
        return rows
    finally:
        receiver.stop()


def table(rows: list[dict]) -> str:
    """The telemetry rows as Markdown."""
    lines = [f"Telemetry (Gatewire C ABI, (a), {INFLIGHT} in flight; on: 100% sampled, spans and metrics exported "
             "over OTLP/HTTP JSON to a loopback receiver):", "",
             "| telemetry | req/s | CPU ms/call | p50 ms | spans exported/call | export bytes/call | trace exports | metric exports |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        lines.append(f"| {row['telemetry']} | {row['rate']:,.0f} | {row['cpu_ms']:.4f} | {row['p50_ms']:.3f} | "
                     f"{row['spans_per_call']:.2f} | {row['export_bytes_per_call']:.0f} | {row['trace_exports']:.0f} | "
                     f"{row['metric_exports']:.0f} |")
    off, on = rows[0], rows[1]
    lines += ["", f"On / off: {on['rate'] / off['rate']:.2f}x the req/s, "
                  f"{(on['cpu_ms'] - off['cpu_ms']) * 1000:+.1f} µs CPU per call."]
    return "\n".join(lines)


def targets(rows: list[dict]) -> list[dict]:
    """The telemetry goal: at least 0.85x the req/s with telemetry on at 64 in flight."""
    ratio = rows[1]["rate"] / rows[0]["rate"]
    return [{"target": f"req/s with telemetry on (100% sampled, OTLP export) / off, (a), {INFLIGHT} in flight",
             "measured": ratio, "goal": 0.85, "unit": "x", "met": ratio >= 0.85}]
