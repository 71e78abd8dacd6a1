"""An asyncio loop closed while calls of an AsyncClient are still in flight gives back its
queue's eventfd (the C extension's wake-up): each of 20 such loops used to keep one until the
client was closed (fds 7 -> 27). Counted in /proc/self/fd, after the calls have ended."""

from __future__ import annotations

import asyncio
import gc
import os
import time

import gatewire
from gatewire import _completions

LOOPS = 20


def eventfds() -> int:
    """The eventfds this process has open (the library's own loops have theirs too: only the
    difference counts)."""
    count = 0
    for name in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{name}") == "anon_inode:[eventfd]"
        except OSError:
            pass  # the listing's own fd, closed meanwhile
    return count


def test_asyncio_run_ending_with_calls_in_flight(server: str, library: str) -> None:
    assert _completions.speedups() is not None, "the C extension (the eventfd wake-up) is not built"
    client = gatewire.AsyncClient(server)

    async def leave_calls_running() -> None:
        for _ in range(3):
            asyncio.ensure_future(client.get("/delay/2000"))
        await asyncio.sleep(0.05)  # the calls have started; asyncio.run then cancels their tasks

    gc.collect()
    before = eventfds()
    for _ in range(LOOPS):
        asyncio.run(leave_calls_running())
    gc.collect()
    assert eventfds() == before
    assert len(client._queues) == 0
    asyncio.run(client.aclose())


def test_loops_closed_with_their_tasks_still_waiting(server: str, library: str) -> None:
    assert _completions.speedups() is not None, "the C extension (the eventfd wake-up) is not built"
    client = gatewire.AsyncClient(server)
    gc.collect()
    before = eventfds()
    for _ in range(LOOPS):
        loop = asyncio.new_event_loop()

        async def leave_calls_waiting() -> None:
            for _ in range(3):
                loop.create_task(client.get("/delay/300"))
            await asyncio.sleep(0.05)

        loop.run_until_complete(leave_calls_waiting())
        loop.close()  # its tasks never resume: their futures are dropped with its queue
    time.sleep(0.5)  # the calls end in the library; their results are freed with the queues
    gc.collect()
    # Each new loop's first call frees the queues of the loops closed before it: only the last remains.
    assert eventfds() == before + 1
    assert len(client._queues) == 1
    asyncio.run(client.aclose())
    gc.collect()
    assert eventfds() == before
