"""Shared rate limits through Redis: what a fleet sends and what Redis does for it.

Usage: python bench/python/fleet_rate_limit.py   (with GATEWIRE_LIB and PYTHONPATH as for the
Python tests: bindings/python and Tests/python, whose test server, Redis harness and fleet
worker it uses)

Prints two parts, one JSON line each:

- ``fleet``: 4 processes (``Tests/python/fleet_worker.py``) calling one path as fast as they can
  for 5 s under ``{"requests": 20, "per": 1, "burst": 5}`` shared through one Redis: what the
  backend received, the bound (20 x 5 + 5 + 1), the overshoot, each process's share, and
  Redis's ``EVALSHA`` per call (``INFO commandstats``).
- ``far``: one client, 32 threads for 3 s each, without a limit, with
  ``{"requests": 10000, "burst": 100}`` in process and the same limit shared: req/s, p50
  latency (microseconds) and ``EVALSHA`` per call.

The test server is Python (a few hundred requests a second): the figures compare the three
runs of one part, never the absolute req/s. One run; the machine is shared.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "python"))

from redis_process import RedisProcess  # noqa: E402

import gatewire  # noqa: E402


def evalsha_calls(redis: RedisProcess) -> int:
    for line in redis.cli("INFO", "commandstats").splitlines():
        if line.startswith("cmdstat_evalsha:"):
            return int(line.split("calls=")[1].split(",")[0])
    return 0


def count(base: str, key: str) -> int:
    with gatewire.Client(base) as client:
        return int(client.call("GET", f"/sequence/{key}/count").json()["count"])


def fleet(base: str, redis: RedisProcess) -> dict:
    key = uuid.uuid4().hex[:12]
    config = {"baseURL": base, "retry": {"maxRetries": 0}, "rateLimit": {"requests": 20, "per": 1, "burst": 5},
              "sharedState": {"redis": redis.url, "keyPrefix": f"bench-{key}:"}}
    before = evalsha_calls(redis)
    workers = [subprocess.Popen([sys.executable, str(ROOT / "Tests" / "python" / "fleet_worker.py"), json.dumps(config),
                                 f"/sequence/{key}/200", "for:5", "0", "deadline"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(os.environ))
               for _ in range(4)]
    for worker in workers:
        assert worker.stdout is not None and worker.stdout.readline().strip() == b"ready"
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write(b"go\n")
        worker.stdin.flush()
    shares = []
    for worker in workers:
        out, _ = worker.communicate(timeout=60)
        shares.append(json.loads(out.decode().splitlines()[-1])["kinds"].get("200", 0))
    received = count(base, key)
    operations = evalsha_calls(redis) - before
    bound = 20 * 5 + 5 + 1
    return {"part": "fleet", "received": received, "bound": bound, "overshoot": max(0, received - bound),
            "shares": shares, "evalsha": operations, "evalsha_per_call": round(operations / max(1, received), 3)}


def far(base: str, redis: RedisProcess) -> list[dict]:
    limit = {"requests": 10000, "burst": 100}
    runs = [("none", {}), ("in_process", {"rateLimit": limit}),
            ("shared", {"rateLimit": limit, "sharedState": {"redis": redis.url, "keyPrefix": f"bench-{uuid.uuid4().hex[:8]}:"}})]
    rows = []
    for name, extra in runs:
        with gatewire.Client(config={"baseURL": base, "retry": {"maxRetries": 0}, **extra}) as client:
            before = evalsha_calls(redis)
            latencies: list[float] = []
            end = time.monotonic() + 3

            def run() -> None:
                while time.monotonic() < end:
                    started = time.perf_counter()
                    client.call("GET", "/status/200")
                    latencies.append(time.perf_counter() - started)

            threads = [threading.Thread(target=run) for _ in range(32)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            operations = evalsha_calls(redis) - before
        rows.append({"part": "far", "limit": name, "req_s": round(len(latencies) / 3), "p50_us": round(statistics.median(latencies) * 1e6),
                     "evalsha_per_call": round(operations / max(1, len(latencies)), 4)})
    return rows


def main() -> int:
    server = subprocess.Popen([sys.executable, str(ROOT / "Tests" / "support" / "testserver.py")],
                              stdout=subprocess.PIPE, text=True)
    redis = RedisProcess()
    try:
        assert server.stdout is not None
        base = f"http://127.0.0.1:{server.stdout.readline().split()[1]}"
        print(json.dumps(fleet(base, redis)), flush=True)
        for row in far(base, redis):
            print(json.dumps(row), flush=True)
    finally:
        redis.stop()
        server.kill()
        server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
