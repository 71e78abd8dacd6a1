"""The future of :meth:`gatewire.Client.call_async`: :class:`CallFuture`.

Also importable as ``gatewire.CallFuture`` (and, as before, ``gatewire.client.CallFuture``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any, Generator

from . import _native
from ._exceptions import Cancelled
from ._result import Result

__all__ = ["CallFuture"]


class CallFuture(concurrent.futures.Future):  # type: ignore[type-arg]
    """The future of :meth:`Client.call_async`: resolves to a :class:`Result`, or raises the
    call's :class:`CallError` from :meth:`result`.

    It is resolved on the client's event-loop thread, so callbacks added with
    :meth:`add_done_callback` before completion run there too (and must not block: a
    blocking :meth:`Client.call` from one raises :class:`WouldDeadlock`).

    :meth:`cancel` cancels the native call: the request in flight or the retry delay stops at
    once and the future resolves with :class:`Cancelled` (a
    ``concurrent.futures.CancelledError``). After that, :meth:`cancelled` is True and
    :meth:`result` raises the :class:`Cancelled` error, which carries the call's details.

    It is awaitable in a coroutine (``result = await client.call_async(...)``): the outcome
    reaches the running asyncio loop through ``call_soon_threadsafe``, and cancelling the
    awaiting task cancels the call. :class:`AsyncClient` is the native form.
    """

    def __init__(self) -> None:
        super().__init__()
        self._native_lock = threading.Lock()
        self._handle: int | None = None
        self._completed = False

    def _attach(self, handle: int | None) -> None:
        with self._native_lock:
            if self._completed or not handle:
                if handle:
                    _native.lib.gw_call_handle_free(handle)
                return
            self._handle = handle

    def _resolve(self, outcome: Result | BaseException) -> None:
        with self._native_lock:
            self._completed = True
            handle, self._handle = self._handle, None
            if handle:
                _native.lib.gw_call_handle_free(handle)
        if self.done():
            return
        try:
            if isinstance(outcome, BaseException):
                self.set_exception(outcome)
            else:
                self.set_result(outcome)
        except concurrent.futures.InvalidStateError:
            pass  # resolved concurrently (e.g. by the binding after a failed start)

    def _resume_body(self) -> bool:
        """``gw_call_resume_body`` on the call's handle (a paused chunk stream takes bytes
        again); False when there is no handle yet, or the call has completed."""
        with self._native_lock:
            if self._completed or not self._handle:
                return False
            _native.lib.gw_call_resume_body(self._handle)
            return True

    def cancel(self) -> bool:
        """Cancel the call. Returns at once (does not wait for the completion).

        Returns:
            True if the call was still running and has been asked to stop (the future then
            resolves shortly with :class:`Cancelled`, or with the call's own outcome if it
            finished at the same moment); False if it had already completed.
        """
        with self._native_lock:
            if self._completed:
                return False
            if self._handle:
                _native.lib.gw_call_cancel(self._handle)
                return True
        return False  # not started yet or without a handle: nothing to cancel

    def __await__(self) -> Generator[Any, None, Result]:
        """Wait in a coroutine for the :class:`Result` (or raise the call's
        :class:`CallError`, as :meth:`result`); cancelling the awaiting task cancels the call.

        Raises:
            RuntimeError: awaited outside a running asyncio loop.
        """
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()

        def wake(_: concurrent.futures.Future[Any]) -> None:  # on the client's loop thread
            try:
                loop.call_soon_threadsafe(_release, waiter)
            except RuntimeError:
                pass  # the asyncio loop is closed: nobody awaits any more

        self.add_done_callback(wake)
        try:
            yield from waiter.__await__()
        except asyncio.CancelledError:
            self.cancel()
            raise
        return self.result(timeout=0)  # type: ignore[no-any-return]

    def cancelled(self) -> bool:
        """True if the call ended as cancelled (by :meth:`cancel` or by closing the client)."""
        if super().cancelled():
            return True
        if not self.done():
            return False
        return isinstance(self.exception(timeout=0), Cancelled)

    def __del__(self) -> None:
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            _native.lib.gw_call_handle_free(handle)


def _release(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
