"""Walking a route's pages: :class:`Pages`, returned by :meth:`gatewire.Client.pages`.

The pagination itself (page numbers, ``Link: rel="next"``, or a cursor; the page limit) is
configured per route in the gateway config and decided by the library (``gw_paginator_*``);
this module only iterates.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any, Iterator

from . import _exceptions, _native
from ._exceptions import CallError
from ._reader import NativeResult, read
from ._result import Result

if TYPE_CHECKING:
    from ._native_client import _NativeClient

__all__ = ["Pages"]


class Pages(Iterator[Result]):
    """An iterator over the pages of a paged route, one blocking call per ``next()``.

    Each page is a :class:`gatewire.Result`; a failed page raises its
    :class:`gatewire.CallError` and ends the walk. The walk ends after the last page or the
    route's ``maxPages``. Use it as a context manager (or call :meth:`close`) to free the
    native paginator early; it is freed at the end of the walk anyway.
    """

    def __init__(self, native: _NativeClient, options: _native.CallOptionsStruct) -> None:
        self._native = native  # kept: the paginator uses the client it was made on
        self._handle: int | None = None
        self._pages_at_close = 0  # the count once the native paginator is freed
        handle = native.acquire()
        out = ctypes.c_void_p()
        try:
            status = _native.lib.gw_paginator_new(handle, ctypes.byref(options), ctypes.byref(out))
            message = _native.last_error_message() if status != _native.GW_OK else ""
        finally:
            native.release()
        if status != _native.GW_OK:
            _exceptions.raise_status(status, message)
        self._handle = out.value

    @property
    def page_count(self) -> int:
        """Pages fetched so far (failed ones included)."""
        if self._handle:
            return int(_native.lib.gw_paginator_page_count(self._handle))
        return self._pages_at_close

    def __iter__(self) -> Pages:
        return self

    def __next__(self) -> Result:
        if not self._handle:
            raise StopIteration
        out = ctypes.c_void_p()
        status = _native.lib.gw_paginator_next(self._handle, ctypes.byref(out))
        if status == _native.GW_DONE:
            self.close()
            raise StopIteration
        if not out.value:
            _exceptions.raise_status(status, _native.last_error_message())
        raw = NativeResult(out.value)
        try:
            converted = read(raw, copy=True)
        finally:
            raw.free()
        if isinstance(converted, CallError):
            self.close()
            raise converted
        return converted

    def close(self) -> None:
        """Free the native paginator; later ``next()`` calls stop the iteration."""
        handle, self._handle = self._handle, None
        if handle:
            self._pages_at_close = int(_native.lib.gw_paginator_page_count(handle))
            _native.lib.gw_paginator_free(handle)

    def __enter__(self) -> Pages:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()
