"""The telemetry rows of the bench (``run.py --only telemetry``): what OpenTelemetry costs a
busy client.

Gatewire's C ABI (``c/gatewire_c.c``, mode ``timed``) on (a) at 64 in flight, with telemetry
off (no ``telemetry`` key) against on: every call sampled (``sampleRatio`` 1), its spans (one
for the call, one per attempt) and the client's metrics exported over OTLP/HTTP (protobuf, the
default encoding) to a receiver on loopback, ``c/otlp_sink.c``: it reads each export, counts
its spans (their field numbers, nothing decoded) and answers 200. The receiver is a C program on the server's CPUs (nginx's, when pinned):
a collector is another machine's work, and the Python server this used before, in the bench's
own process, took a good share of a core to read tens of MB/s, from the client being measured
on a 2-core machine. Reported per row: requests/s, the client's CPU per call, the median
latency; for the row with telemetry on, the exports the receiver got and the spans per call
they held (2.0 when none was dropped from the bounded queue).

The rows take turns (run 1 of each, then run 2, ...), as the main rows do.
"""

from __future__ import annotations

import json
import os
import subprocess
import urllib.request
from pathlib import Path
from statistics import median
from typing import Callable

INFLIGHT = 64
# Calls per run at least: 10,000 (the main rows' count) last 0.3 s, 40 span exports, and two
# runs of the same build moved the ratio by 0.1; 40,000 average over 4 times as many exports.
MIN_REQUESTS = 40_000


class Receiver:
    """The loopback OTLP/HTTP receiver (``c/otlp_sink.c``) on ``cpus`` (None: anywhere)."""

    def __init__(self, binary: Path, cpus: set[int] | None = None) -> None:
        self.process = subprocess.Popen([str(binary)], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                        preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
        line = self.process.stdout.readline().decode() if self.process.stdout else ""
        if not line.startswith("PORT "):
            self.stop()
            raise RuntimeError(f"otlp_sink did not start: {line!r}")
        self.url = f"http://127.0.0.1:{int(line.split()[1])}"

    def take(self) -> dict[str, int]:
        """The counts since the last call, then zero: ``/v1/traces`` and ``/v1/metrics``
        requests, body bytes and spans."""
        with urllib.request.urlopen(f"{self.url}/counts", timeout=10) as answer:
            counts = json.loads(answer.read())
        return {"/v1/traces": counts["traces"], "/v1/metrics": counts["metrics"], "bytes": counts["bytes"],
                "spans": counts["spans"]}

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


def telemetry_rows(paths: dict[str, Path], url: str, size: int, runs: int, requests: int,
                   run_once: Callable[..., dict], log: Callable[[str], None], workdir: Path,
                   server_cpus: set[int] | None = None) -> list[dict]:
    """The rows with telemetry off and on (see the module's docstring), each the median of ``runs``;
    the receiver on ``server_cpus`` (None: anywhere)."""
    requests = max(requests, MIN_REQUESTS)
    receiver = Receiver(paths["otlp_sink"], server_cpus)
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
             "over OTLP/HTTP protobuf to a loopback receiver):", "",
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
