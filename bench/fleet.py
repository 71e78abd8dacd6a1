"""The fleet rows of the bench (``run.py --only fleet``): what sharing circuit breakers through
Redis buys and costs.

- **Headline**: a backend that answers every request with 503 (a server in this process that
  counts what it receives) and a fleet of 8 processes, each with its own client
  (``Tests/python/fleet_worker.py``: calls one after another until 20 in a row fail fast with
  ``circuit_open``), with ``circuitBreaker {"failureRatio": 0.5, "minimumThroughput": 10}``:
  the failing calls the backend receives before every instance stops calling, with breakers in
  process against breakers shared through one ``redis-server``.
- **Cost**: Gatewire's C ABI (``c/gatewire_c.c``, mode ``timed``) on (a) at 1 and 64 in
  flight with a closed breaker kept in process against one kept in Redis: requests/s, CPU per
  call, the median latency, and the Redis operations per call (``INFO commandstats``: the
  commands the clients sent, counted by the server; not those a script runs inside Redis).

The rows of one measurement take turns (run 1 of each, then run 2, ...), as the main rows do.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from statistics import median
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
WORKER = ROOT / "Tests" / "python" / "fleet_worker.py"
FLEET = 8
THRESHOLD = 10
BREAKER = {"failureRatio": 0.5, "minimumThroughput": THRESHOLD, "samplingDuration": 30, "breakDuration": 30}


class Redis:
    """Debian's ``redis-server`` on a free loopback port, without persistence, in a folder of its own."""

    def __init__(self) -> None:
        if shutil.which("redis-server") is None:
            raise SystemExit("bench: redis-server is needed for the fleet rows (bash scripts/bootstrap.sh installs it)")
        self.directory = Path(tempfile.mkdtemp(prefix="gatewire-bench-redis-"))
        with socket.socket() as s:  # redis-server 7.0 cannot listen on port 0: take one just freed
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        log = self.directory / "redis.log"
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.directory), "--logfile", str(log)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while "Ready to accept connections" not in (log.read_text(errors="replace") if log.exists() else ""):
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.stop()
                raise SystemExit("bench: redis-server did not start")
            time.sleep(0.02)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    # What a client sends (the store's scripts, their loading, the connections' set-up, its SUBSCRIBE); the
    # commands a script runs inside Redis are counted by INFO too, and are not round trips.
    CLIENT_COMMANDS = {"evalsha", "eval", "script", "auth", "select", "hello", "ping", "asking", "cluster", "client",
                       "subscribe"}

    def operations(self) -> int:
        """The commands clients have sent since the server started (``INFO commandstats``)."""
        text = subprocess.run(["redis-cli", "-p", str(self.port), "INFO", "commandstats"],
                              capture_output=True, text=True, check=True, timeout=10).stdout
        return sum(int(line.split("calls=")[1].split(",")[0]) for line in text.splitlines()
                   if line.startswith("cmdstat_")
                   and line.split(":")[0].removeprefix("cmdstat_").split("|")[0] in self.CLIENT_COMMANDS)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        shutil.rmtree(self.directory, ignore_errors=True)


class Backend:
    """A loopback HTTP server that answers every request with ``status`` and counts them."""

    def __init__(self, status: int) -> None:
        self.received = 0
        lock = threading.Lock()
        backend = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                with lock:
                    backend.received += 1
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def fleet_received(python: str, env: dict[str, str], redis: Redis | None) -> tuple[int, int]:
    """One fleet against a fresh sick backend: (calls the backend received, calls refused by
    the breakers), once every instance has had 20 calls in a row refused."""
    backend = Backend(503)
    config: dict[str, Any] = {"baseURL": backend.url, "retry": {"maxRetries": 0}, "circuitBreaker": BREAKER}
    if redis is not None:
        config["sharedState"] = {"redis": redis.url, "keyPrefix": f"bench-{uuid.uuid4().hex[:8]}:"}
    workers = [subprocess.Popen([python, str(WORKER), json.dumps(config), "/", "open:20", "0"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
               for _ in range(FLEET)]
    try:
        for worker in workers:
            assert worker.stdout is not None
            if worker.stdout.readline().strip() != b"ready":
                raise SystemExit("bench: a fleet worker did not start")
        for worker in workers:  # all at once, as a fleet meets a backend that has just fallen over
            assert worker.stdin is not None
            worker.stdin.write(b"go\n")
            worker.stdin.flush()
        refused = 0
        for worker in workers:
            out, _ = worker.communicate(timeout=120)
            if worker.returncode != 0:
                raise SystemExit("bench: a fleet worker failed")
            refused += json.loads(out.decode().strip().splitlines()[-1])["kinds"].get("circuit_open", 0)
        return backend.received, refused
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait(timeout=10)
        backend.stop()


def rate_limited_fleet(python: str, env: dict[str, str], redis: Redis) -> dict:
    """4 workers for 5 s under a shared 20/s limit (burst 5) against a backend that answers 200."""
    backend = Backend(200)
    limit = {"requests": 20, "per": 1, "burst": 5}
    config = {"baseURL": backend.url, "retry": {"maxRetries": 0}, "rateLimit": limit,
              "sharedState": {"redis": redis.url, "keyPrefix": f"bench-{uuid.uuid4().hex[:8]}:"}}
    before = redis.operations()
    workers = [subprocess.Popen([python, str(WORKER), json.dumps(config), "/", "for:5", "0", "deadline"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
               for _ in range(4)]
    try:
        for worker in workers:
            assert worker.stdout is not None
            if worker.stdout.readline().strip() != b"ready":
                raise SystemExit("bench: a fleet worker did not start")
        for worker in workers:
            assert worker.stdin is not None
            worker.stdin.write(b"go\n")
            worker.stdin.flush()
        shares = []
        for worker in workers:
            out, _ = worker.communicate(timeout=120)
            shares.append(json.loads(out.decode().strip().splitlines()[-1])["kinds"].get("200", 0))
        bound = limit["requests"] * 5 + limit["burst"] + 1
        return {"received": backend.received, "bound": bound, "overshoot": max(0, backend.received - bound),
                "shares": shares, "redis_per_call": (redis.operations() - before) / max(1, backend.received)}
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait(timeout=10)
        backend.stop()


def fleet_rows(paths: dict[str, Path], url: str, size: int, runs: int, requests: int,
               run_once: Callable[..., dict], log: Callable[[str], None], workdir: Path) -> dict:
    """The headline and the cost rows (see the module's docstring), each the median of ``runs``."""
    python = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable
    env = {**os.environ, "PYTHONPATH": str(ROOT / "bindings" / "python"),
           "GATEWIRE_LIB": str(paths["lib"] / "libGatewire.so")}
    redis = Redis()
    try:
        headline: dict[str, list[int]] = {"in process": [], "shared": []}
        for _ in range(runs):
            for name, store in (("in process", None), ("shared", redis)):
                received, _ = fleet_received(python, env, store)
                headline[name].append(received)
                log(f"fleet of {FLEET}, {name}: the sick backend received {received} calls")

        configs = {}
        for name, shared in (("in process", False), ("shared", True)):
            config: dict[str, Any] = {"baseURL": url, "routes": {"small": {"method": "GET", "pathPattern": "/small.json"}},
                                      "circuitBreaker": BREAKER}
            if shared:
                config["sharedState"] = {"redis": redis.url, "keyPrefix": f"bench-{uuid.uuid4().hex[:8]}:"}
            configs[name] = workdir / f"fleet-{'shared' if shared else 'local'}.json"
            configs[name].write_text(json.dumps(config))
        cost: list[dict] = []
        for inflight in (1, 64):
            measured: dict[str, list[dict]] = {"in process": [], "shared": []}
            for _ in range(runs):
                for name, path in configs.items():
                    before = redis.operations()
                    report = run_once([str(paths["gatewire_c"]), str(path), "small", str(requests), str(inflight),
                                       str(size), "timed"], {}, timeout=600)
                    report["redis_operations"] = redis.operations() - before
                    measured[name].append(report)
            for name, reports in measured.items():
                row = {"store": name, "inflight": inflight, "requests": requests,
                       "rate": median(r["requests"] / r["elapsed"] for r in reports),
                       "cpu_ms": median(r["cpu"] / r["requests"] * 1000 for r in reports),
                       "p50_ms": median(r["p50"] * 1000 for r in reports),
                       "redis_per_call": median(r["redis_operations"] / r["requests"] for r in reports)}
                cost.append(row)
                log(f"breaker {name:10} x{inflight:<3} {row['rate']:10,.0f} req/s  {row['cpu_ms']:.3f} CPU ms/call  "
                    f"p50 {row['p50_ms']:.3f} ms  {row['redis_per_call']:.3f} Redis operations/call")
        limited = [rate_limited_fleet(python, env, redis) for _ in range(runs)]
        for run in limited:
            log(f"shared rate limit, 4 processes, 5 s: the backend received {run['received']} (bound {run['bound']}), "
                f"shares {run['shares']}, {run['redis_per_call']:.3f} Redis operations/call")

        far_config = workdir / "fleet-far-limit.json"
        far_config.write_text(json.dumps({
            "baseURL": url, "routes": {"small": {"method": "GET", "pathPattern": "/small.json"}},
            "rateLimit": {"requests": 1_000_000, "per": 1, "burst": 1000},
            "sharedState": {"redis": redis.url, "keyPrefix": f"bench-{uuid.uuid4().hex[:8]}:"}}))
        plain_config = workdir / "fleet-no-limit.json"
        plain_config.write_text(json.dumps({"baseURL": url, "routes": {"small": {"method": "GET", "pathPattern": "/small.json"}}}))
        far: dict[str, list[dict]] = {"no limit": [], "shared limit": []}
        for _ in range(runs):
            for name, path in (("no limit", plain_config), ("shared limit", far_config)):
                before = redis.operations()
                report = run_once([str(paths["gatewire_c"]), str(path), "small", str(requests), "64", str(size), "timed"],
                                  {}, timeout=600)
                report["redis_operations"] = redis.operations() - before
                far[name].append(report)
        far_rows = [{"limit": name, "inflight": 64, "requests": requests,
                     "rate": median(r["requests"] / r["elapsed"] for r in reports),
                     "cpu_ms": median(r["cpu"] / r["requests"] * 1000 for r in reports),
                     "redis_per_call": median(r["redis_operations"] / r["requests"] for r in reports)}
                    for name, reports in far.items()]
        for row in far_rows:
            log(f"rate limit {row['limit']:12} x64 {row['rate']:10,.0f} req/s  {row['redis_per_call']:.4f} Redis operations/call")
        return {"fleet": FLEET, "threshold": THRESHOLD,
                "received": {name: median(values) for name, values in headline.items()},
                "received_runs": headline, "cost": cost, "rate_limit": limited, "far_limit": far_rows}
    finally:
        redis.stop()


def table(result: dict) -> str:
    """The fleet rows as Markdown."""
    received = result["received"]
    lines = [f"Fleet of {result['fleet']} processes, a backend that answers 503, `minimumThroughput` "
             f"{result['threshold']}: failing calls it received before every instance failed fast: "
             f"in process {received['in process']:.0f}, shared through Redis {received['shared']:.0f} "
             f"({received['shared'] / result['threshold']:.1f}x `minimumThroughput`).", "",
             "| circuit breaker | in flight | req/s | CPU ms/call | p50 ms | Redis ops/call |",
             "|---|---:|---:|---:|---:|---:|"]
    for row in result["cost"]:
        lines.append(f"| {row['store']} | {row['inflight']} | {row['rate']:,.0f} | {row['cpu_ms']:.4f} | "
                     f"{row['p50_ms']:.3f} | {row['redis_per_call']:.3f} |")
    lines += ["", "Shared rate limit `{\"requests\": 20, \"per\": 1, \"burst\": 5}`, 4 processes for 5 s: "
              + "; ".join(f"received {run['received']} (bound {run['bound']}, overshoot {run['overshoot']}), "
                          f"shares {run['shares']}, {run['redis_per_call']:.3f} Redis ops/call" for run in result["rate_limit"])
              + ".", "",
              "| rate limit (C ABI, (a)) | in flight | req/s | CPU ms/call | Redis ops/call |", "|---|---:|---:|---:|---:|"]
    for row in result["far_limit"]:
        lines.append(f"| {row['limit']} | {row['inflight']} | {row['rate']:,.0f} | {row['cpu_ms']:.4f} | "
                     f"{row['redis_per_call']:.4f} |")
    return "\n".join(lines)


def targets(result: dict) -> list[dict]:
    """The fleet goals: shared at most 1.5x minimumThroughput; the Redis store at least 0.9x
    the in-process req/s at 1 and at 64 in flight; a shared limit's fleet within the limit plus
    one burst and 1%; under 0.1 Redis operations per call far under a shared limit."""
    goals = [{"target": f"failing calls before a fleet of {result['fleet']} stops, shared (x minimumThroughput)",
              "measured": result["received"]["shared"] / result["threshold"], "goal": 1.5, "unit": "x", "at_most": True,
              "met": result["received"]["shared"] <= 1.5 * result["threshold"]}]
    rates = {(row["store"], row["inflight"]): row["rate"] for row in result["cost"]}
    for inflight in (1, 64):
        ratio = rates[("shared", inflight)] / rates[("in process", inflight)]
        goals.append({"target": f"req/s with the breaker in Redis / in process, (a), {inflight} in flight",
                      "measured": ratio, "goal": 0.9, "unit": "x", "met": ratio >= 0.9})
    worst = max(result["rate_limit"], key=lambda run: run["received"])
    allowed = worst["bound"] * 1.01
    goals.append({"target": "a shared limit's fleet over 5 s: received / (limit + one burst + 1%)",
                  "measured": worst["received"] / allowed, "goal": 1.0, "unit": "x", "at_most": True,
                  "met": worst["received"] <= allowed})
    far = {row["limit"]: row for row in result["far_limit"]}
    goals.append({"target": "Redis operations per call, shared limit far above the rate, 64 in flight",
                  "measured": far["shared limit"]["redis_per_call"], "goal": 0.1, "unit": "ops",
                  "met": far["shared limit"]["redis_per_call"] < 0.1})
    return goals
