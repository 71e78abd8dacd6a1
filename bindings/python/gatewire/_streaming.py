"""A call's 2xx body as an iterator of chunks: :meth:`gatewire.Client.stream` (httpx's
``client.stream`` shape). The library hands each chunk to a native consumer on the client's
loop thread; this module queues it for the iterating thread and applies back-pressure
without blocking the loop: past ``buffer_bytes`` queued the consumer answers
``GW_CHUNK_PAUSE`` (the transfer pauses, the server's TCP window closes), and the iterator
resumes it (``gw_call_resume_body``) once it has taken the queue down to a quarter."""

from __future__ import annotations

import asyncio
import ctypes
import threading
from collections import deque
from typing import Any, AsyncIterator, Callable, Iterator

from . import _native
from ._callbacks import _log_hook_error, _registry
from ._futures import CallFuture
from ._result import Result


def _on_chunk(data: int | None, length: int, user_data: int | None) -> int:
    stream: BodyStream | None = _registry.get(user_data)
    if stream is None or not data:
        return _native.GW_CHUNK_STOP
    try:
        return stream._offer(ctypes.string_at(data, length))
    except BaseException:  # noqa: BLE001 - nothing may reach the library
        _log_hook_error("a body stream's chunk consumer")
        return _native.GW_CHUNK_STOP


_CHUNK = _native.CHUNK_FN(_on_chunk)


class BodyStream:
    """The body of one call, streamed: use it as a context manager and iterate
    :meth:`iter_bytes`; :attr:`result` is the call's :class:`Result` after the last chunk.

    ``with client.stream("GET", "/big") as body: for chunk in body.iter_bytes(): ...``, or
    from asyncio (:meth:`AsyncClient.stream`): ``async with ... as body: async for chunk in
    body.aiter_bytes(): ...``

    Only a 2xx body streams; a 4xx or 5xx body is kept for the error, which
    :meth:`iter_bytes` raises after the chunks (none for such a call). A streamed body is
    not mapped (``result.body`` is empty). Leaving the ``with`` block before the end cancels
    the call. One iteration per stream; any thread but the client's loop thread.
    """

    def __init__(self, start: Callable[[int], CallFuture], buffer_bytes: int) -> None:
        """Starts the call: ``start(chunk_key)`` starts it with this stream registered
        under ``chunk_key`` (the ``on_chunk_user_data`` of :data:`_CHUNK`). ``buffer_bytes``: the queue's high-water
        mark (at least 64 KiB)."""
        self._high = max(int(buffer_bytes), 64 << 10)
        self._low = self._high // 4
        self._chunks: deque[bytes] = deque()
        self._queued = 0
        self._paused = False
        self._done = False
        self._ready = threading.Condition()
        key = _registry.add(self)
        try:
            self._future = start(key)
        except BaseException:
            _registry.pop(key)
            raise
        self._future.add_done_callback(lambda _: self._finish(key))

    # -- the loop thread's side ------------------------------------------------------
    def _offer(self, chunk: bytes) -> int:
        with self._ready:
            if self._queued >= self._high:
                self._paused = True
                return _native.GW_CHUNK_PAUSE
            self._chunks.append(chunk)
            self._queued += len(chunk)
            self._ready.notify()
            return _native.GW_CHUNK_CONTINUE

    def _finish(self, key: int) -> None:
        _registry.pop(key)
        with self._ready:
            self._done = True
            self._ready.notify()

    # -- the caller's side -----------------------------------------------------------
    def iter_bytes(self) -> Iterator[bytes]:
        """The body's chunks, in order (each as libcurl decoded it, at most 100 KiB).

        Raises:
            CallError: after the last chunk, when the call failed (e.g.
                :class:`HTTPStatusError` for a 404, whose body is in the error).
        """
        while True:
            with self._ready:
                while not self._chunks and not self._done:
                    if self._paused and self._future._resume_body():
                        self._paused = False  # the queue is empty: take more
                    self._ready.wait(0.05 if self._paused else None)
                if not self._chunks:
                    break
                chunk = self._chunks.popleft()
                self._queued -= len(chunk)
                if self._paused and self._queued <= self._low and self._future._resume_body():
                    self._paused = False
            yield chunk
        self._future.result()  # raises the call's error

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """:meth:`iter_bytes` for asyncio: each wait for the next chunk runs in the event
        loop's default executor, so the loop never blocks.

        Raises:
            CallError: as :meth:`iter_bytes`.
        """
        loop = asyncio.get_running_loop()
        chunks = self.iter_bytes()
        while (chunk := await loop.run_in_executor(None, next, chunks, None)) is not None:
            yield chunk

    @property
    def result(self) -> Result:
        """The call's :class:`Result` (waits for the call; its body is empty).

        Raises:
            CallError: the call failed.
        """
        return self._future.result()  # type: ignore[no-any-return]

    def close(self) -> None:
        """Cancels the call unless it has completed."""
        self._future.cancel()

    def __enter__(self) -> BodyStream:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    async def __aenter__(self) -> BodyStream:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        self.close()
