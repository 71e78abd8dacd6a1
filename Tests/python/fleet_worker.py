"""One instance of a test fleet (``test_fleet.py``): a process with its own client, calling one
path of the test server over and over, that reports what each call ended with.

    python fleet_worker.py CONFIG_JSON PATH STOP PAUSE [deadline] [warm=PATH]

``CONFIG_JSON`` is the client's gateway config (text); ``STOP`` is ``open:N`` (stop after N
``circuit_open`` results in a row) or ``for:SECONDS``; ``PAUSE`` seconds between calls;
``deadline`` gives each call of a ``for:`` run the time left as its deadline (so that a call
waiting for a rate limit's slot never goes out after the run); ``warm=PATH``, a path on the
same host that answers 200, called once before ``ready`` (so that the client has the host's
breaker before the fleet opens it; not counted). The worker builds its client, prints
``ready`` and waits for a line on stdin, so that the test
starts the whole fleet at once; then it calls, and prints one JSON object: ``kinds`` (result
kind -> count: ``503`` or the error kind), ``sent`` (CLOCK_MONOTONIC seconds at which each
call that reached the server started: comparable across processes on one machine),
``ended`` (``[kind, CLOCK_MONOTONIC seconds]`` at which each call ended), ``calls``,
``longest`` (the longest call, seconds), ``longest_at`` (when it started) and ``clock``
(its wall clock minus CLOCK_MONOTONIC, seconds: a process whose wall clock is skewed shows
the skew against another's). The
library's log lines about shared state and breakers (of the ``gatewire`` logger) go to stderr.
"""

from __future__ import annotations

import json
import logging
import select
import sys
import time

import gatewire


def main() -> int:
    config, path, stop, pause = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
    options = sys.argv[5:]
    with_deadline = "deadline" in options
    warm = next((option.removeprefix("warm=") for option in options if option.startswith("warm=")), None)
    rule, _, value = stop.partition(":")
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(message)s")
    for handler in logging.getLogger().handlers:  # not the line each failed call logs
        handler.addFilter(lambda record: "shared state" in record.getMessage()
                          or "circuit breaker of" in record.getMessage())
    kinds: dict[str, int] = {}
    sent: list[float] = []
    ended: list[tuple[str, float]] = []
    longest = 0.0
    longest_at = 0.0
    calls = 0
    with gatewire.Client(config=config) as client:
        if warm:
            client.call("GET", warm)
        print("ready", flush=True)
        sys.stdin.readline()
        end = time.monotonic() + float(value) if rule == "for" else float("inf")
        open_in_a_row = 0
        while time.monotonic() < end and (rule != "open" or open_in_a_row < int(value)):
            started = time.monotonic()
            options = {}
            if with_deadline:
                if end - started < 0.001:
                    break
                options["deadline"] = end - started
            try:
                kind = str(client.call("GET", path, **options).status)
            except gatewire.HTTPStatusError as error:
                kind = str(error.status)
            except gatewire.CallError as error:
                kind = str(error.kind.name)
            took = time.monotonic() - started
            ended.append((kind, started + took))
            calls += 1
            if took > longest:
                longest, longest_at = took, started
            kinds[kind] = kinds.get(kind, 0) + 1
            if kind not in ("circuit_open", "rate_limited"):
                sent.append(started)
            open_in_a_row = open_in_a_row + 1 if kind == "circuit_open" else 0
            if pause:
                # Not time.sleep: under libfaketime 0.9.10 with DONT_FAKE_MONOTONIC (a worker
                # on a skewed clock) its clock_nanosleep fails with EINVAL.
                select.select([], [], [], pause)
    print(json.dumps({"kinds": kinds, "sent": sent, "ended": ended, "calls": calls, "longest": longest, "longest_at": longest_at,
                      "clock": time.time() - time.monotonic()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
