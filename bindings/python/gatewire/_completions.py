"""Starting calls into a completion queue (``gw_call_async_queued``) and taking their results
(``gw_queue_wait``): the hot path of :meth:`Client.call_many` and :class:`AsyncClient`.

Two implementations with one shape: the optional CPython extension ``gatewire._speedups``
(found by :func:`gatewire._reader.speedups`, which says whether it runs), and ctypes, the
fallback. Either way a result is read by :mod:`gatewire._reader`'s rules.
"""

from __future__ import annotations

import ctypes
from typing import Any, Callable

from . import _native
from ._exceptions import CallError, ErrorKind, GatewireError
from ._reader import NativeResult, read, speedups, unreadable

__all__ = ["CLIENT_CLOSED", "Completions", "speedups"]
from ._result import Result

Outcome = Result | CallError

CLIENT_CLOSED = -1
"""The status :attr:`Completions.start_on` returns when the client is closed, on both paths
(the extension's ``start_on`` returns -1 too); never a ``gw_status``."""

class Completions:
    """One consumer's way to start queued calls and take up to ``capacity`` results at a time.
    Not thread-safe: one per consumer (a ``call_many`` iteration, an asyncio loop's queue)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._fast = speedups()
        self.start_on: Callable[[Any, int, int, int, bool], tuple[int, int]]
        """``start_on(native_client, options, queue, tag, want_handle) -> (status, call)``:
        :meth:`start` on the client of ``native_client`` (the ``_NativeClient`` whose ``free``
        must not free the client meanwhile), ``options`` the address of a ``gw_call_options``.
        Status :data:`CLIENT_CLOSED`: the client is closed. The extension reads the handle and
        starts the call in one C call, under the GIL that ``free`` needs to clear the handle;
        ctypes holds the client's guard instead. A plain attribute, not a method: one Python
        call per start."""
        self.release: Callable[[int], None]
        """``release(call)``: ``gw_call_handle_free`` of a handle a start gave (0: nothing)."""
        if self._fast is not None:
            self.start_on = self._fast.start_on
            self.release = self._fast.release
        else:
            self.start_on = self._start_on_ctypes
            self.release = _native.lib.gw_call_handle_free
            self._results: Any = (ctypes.c_void_p * capacity)()  # items: int (a gw_result *)
            self._tags = (ctypes.c_uint64 * capacity)()
            self._count = ctypes.c_size_t()
            self._fields = _native.gw_result_fields(version=_native.GW_RESULT_FIELDS_VERSION)

    def start(self, client: int, options: _native.CallOptionsStruct, queue: int, tag: int,
              want_handle: bool = False) -> tuple[int, int]:
        """``gw_call_async_queued`` (pointers as ints; the library copies ``options``).
        Returns the status and, when ``want_handle``, the ``gw_call_handle *`` (else 0) the
        caller frees with ``gw_call_handle_free``."""
        if self._fast is not None:
            return self._fast.start(client, ctypes.addressof(options), queue, tag, want_handle)  # type: ignore[no-any-return]
        call = ctypes.c_void_p()
        status = _native.lib.gw_call_async_queued(client, ctypes.byref(options), queue, tag,
                                                  ctypes.byref(call) if want_handle else None)
        return int(status), call.value or 0

    def _start_on_ctypes(self, native_client: Any, options: int, queue: int, tag: int,
                         want_handle: bool) -> tuple[int, int]:
        try:
            handle = native_client.acquire()
        except GatewireError:
            return CLIENT_CLOSED, 0
        try:
            return self.start(handle, ctypes.cast(options, ctypes.POINTER(_native.gw_call_options_v4)).contents, queue,
                              tag, want_handle)
        finally:
            native_client.release()

    def take(self, queue: int, timeout: float) -> list[tuple[int, Outcome]]:
        """Up to ``capacity`` finished results, oldest first, as (tag, outcome): waits at most
        ``timeout`` seconds (0: no wait; < 0 or infinity: until a result arrives) with the GIL
        released. A native result is always freed, or owned by its Result; one that cannot be
        read becomes a CallError of kind ``none`` that says why.

        Raises:
            ValueError: ``timeout`` is NaN."""
        if self._fast is not None:
            return self._fast.take(queue, timeout, self.capacity)  # type: ignore[no-any-return]
        if timeout != timeout:
            raise ValueError("timeout is NaN (0 = do not wait, < 0 or inf = no limit)")
        count = self._count
        _native.lib.gw_queue_wait(queue, timeout, self._results, self._tags, self.capacity, ctypes.byref(count))
        fields = self._fields
        taken: list[tuple[int, Outcome]] = []
        for index in range(count.value):
            outcome: Outcome
            try:  # the native result is owned at once: freed whatever happens, so the batch goes on
                outcome = read(NativeResult(self._results[index]), fields)
            except Exception as error:  # noqa: BLE001 - the waiting call gets it
                outcome = unreadable(repr(error))
            taken.append((self._tags[index], outcome))
        return taken
