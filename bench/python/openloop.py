"""Latency under load from Python: Gatewire's ``AsyncClient`` sent on a fixed schedule (open
loop, as bench/c/openloop.c: request i is due at start + i / RATE whatever the responses do,
and its latency is its completion time minus its due time, so no coordinated omission).

Usage: python openloop.py CONFIG_FILE ROUTE RATE SECONDS EXPECT_BYTES

One asyncio loop: a sender coroutine sleeps to each due time (several requests at once when
it wakes late) and starts a task per request; the tasks await ``AsyncClient.call_route``.
The first second is a warm-up, sent and checked but not counted. Prints one JSON line:
requests, ok, elapsed, cpu, rate, counted and p50_us, p99_us, p999_us, max_us.
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
import time


def percentile(sorted_values: list[float], p: float) -> float:
    """The nearest-rank percentile."""
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


async def run(config: str, route: str, rate: float, total: int, expect: int) -> tuple[int, list[float], float]:
    import gatewire

    latency = [0.0] * total
    ok = 0
    async with gatewire.AsyncClient(config_path=config) as client:
        loop = asyncio.get_running_loop()

        async def one(i: int, due: float) -> None:
            nonlocal ok
            result = await client.call_route(route)
            latency[i] = (time.perf_counter() - due) * 1e6
            ok += result.status == 200 and len(result.body) == expect

        tasks = []
        start = time.perf_counter() + 0.01
        for i in range(total):
            due = start + i / rate
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(loop.create_task(one(i, due)))
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - start
    return ok, latency, elapsed


def main() -> int:
    if len(sys.argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    config, route = sys.argv[1:3]
    rate, seconds, expect = float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
    total, warmup = int(rate * seconds), int(rate)
    import gatewire

    gatewire.version()  # loading libGatewire.so is not timed
    cpu0 = time.process_time()
    ok, latency, elapsed = asyncio.run(run(config, route, rate, total, expect))
    cpu = time.process_time() - cpu0
    counted = sorted(latency[warmup:])
    print(json.dumps({"requests": total, "ok": ok, "elapsed": elapsed, "cpu": cpu, "rate": rate, "counted": len(counted),
                      "p50_us": percentile(counted, 50), "p99_us": percentile(counted, 99),
                      "p999_us": percentile(counted, 99.9), "max_us": counted[-1]}))
    return 0 if ok == total else 1


if __name__ == "__main__":
    sys.exit(main())
