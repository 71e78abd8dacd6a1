"""Upload and download progress of a call: :class:`Progress` and the ``progress=`` callable.

A call given ``progress=`` reports each attempt's transfer: while bytes move, at most ten
reports a second per attempt (throttled by the library on the monotonic clock), then exactly
one final report per attempt (``final`` True), just before the attempt's ``attempt_finished``
event. A call without it never turns libcurl's progress meter on.

Which thread calls it: :class:`gatewire.Client` calls it on the client's event-loop thread
(holding the GIL, as every hook), so it must return at once; :class:`gatewire.AsyncClient`
calls it on the asyncio loop that awaits the call (each report is handed over with
``loop.call_soon_threadsafe``), so it may touch that loop's objects. An exception it raises
is logged on the ``gatewire`` logger and contained.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Optional

from . import _native

__all__ = ["Progress", "ProgressCallback"]


class Progress(NamedTuple):
    """How far one attempt's transfer has got, in bytes as libcurl counts them: the request
    body sent, and the response body received before any ``Content-Encoding`` is decoded.
    Each attempt (and each redirect hop within it) counts from 0.

    Attributes:
        attempt: the attempt, 1, 2, ... (int).
        bytes_sent: request body bytes sent so far (int).
        bytes_to_send: the request body's size, or None while unknown.
        bytes_received: response body bytes received so far (int).
        bytes_to_receive: the response's ``Content-Length``, or None while unknown (none
            yet, or chunked).
        final: True for the attempt's last report: its counts are final, and when the
            transfer completed each total equals its count (the size).
    """

    attempt: int
    bytes_sent: int
    bytes_to_send: Optional[int]
    bytes_received: int
    bytes_to_receive: Optional[int]
    final: bool

    @classmethod
    def _from_native(cls, native: _native.gw_progress) -> Progress:
        return cls(
            attempt=native.attempt,
            bytes_sent=native.bytes_sent,
            bytes_to_send=native.bytes_to_send if native.bytes_to_send >= 0 else None,
            bytes_received=native.bytes_received,
            bytes_to_receive=native.bytes_to_receive if native.bytes_to_receive >= 0 else None,
            final=bool(native.is_final),
        )


#: ``progress(report)``: sees a call's :class:`Progress` (see the module docs for how often
#: and on which thread); its return value is ignored.
ProgressCallback = Callable[[Progress], object]
