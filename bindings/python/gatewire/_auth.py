"""A refreshing credential: a token sent on every attempt and refreshed once on 401.

The library does the work (single flight, replay, refresh budget, ``auth`` failures); this
module only hands it the Python refresh function, which runs on a worker thread (never the
client's event-loop thread), so it may block, e.g. on a call with another client.
"""

from __future__ import annotations

import ctypes
import logging
import threading
from typing import Callable, Optional

from . import _exceptions, _native
from ._encoding import c_double, c_integer, c_text

__all__ = ["RefreshingCredential", "RefreshFunction"]

logger = logging.getLogger("gatewire")

#: ``refresh(current_token) -> new_token or None``: called on a worker thread; None (or an
#: exception, which is logged) means the refresh failed and the waiting calls fail with ``auth``;
#: so does a token with a control character (RFC 9110 section 5.5: it could not be sent; logged).
#: A token with a NUL character fails the refresh the same way (C would end it there).
RefreshFunction = Callable[[Optional[str]], Optional[str]]

_credentials: dict[int, "RefreshingCredential"] = {}
_credentials_lock = threading.Lock()


def _run_refresh(credential: "RefreshingCredential", handle: int, current: str | None) -> None:
    token: bytes | None = None
    try:
        answer = credential.refresh(current)
        if answer is not None and not isinstance(answer, str):
            raise TypeError(f"a refresh function must return a str or None, not {type(answer).__name__}")
        token = c_text(answer, "the refreshed token")  # a NUL would cut the token short in C
    except BaseException:  # noqa: BLE001 - reported, then answered as a failed refresh
        logger.exception("gatewire: the refresh function raised (the refresh fails)")
        token = None
    status = _native.lib.gw_refresh_complete(handle, token)
    if status != _native.GW_OK:  # e.g. a token with CR or LF (RFC 9110 section 5.5): the refresh failed
        logger.error("gatewire: the refreshed token was refused (the refresh fails): %s", _native.last_error_message())


def _on_refresh(handle: int | None, current: bytes | None, user_data: int | None) -> None:
    with _credentials_lock:
        credential = _credentials.get(user_data or 0)
    if credential is None or not handle:
        if handle:
            _native.lib.gw_refresh_complete(handle, None)
        return
    text = None if current is None else current.decode("utf-8", "replace")
    threading.Thread(target=_run_refresh, args=(credential, handle, text), name="gatewire-refresh", daemon=True).start()


_REFRESH = _native.REFRESH_FN(_on_refresh)


class RefreshingCredential:
    """A token sent as ``header: prefix token`` (default ``Authorization: Bearer <token>``)
    and refreshed when the server answers 401.

    On a 401 the library asks ``refresh(current_token)`` once for all the calls that were
    refused with the same token (single flight); each replays once with the new token. A
    failed refresh (None or an exception) fails them with :class:`gatewire.AuthError`
    (status 401). A call replays at most once, and at most ``max_refreshes`` refreshes run
    per ``refresh_interval`` seconds. Pass it to ``Client(credential=...)``; one credential
    may serve several clients.

    Args:
        refresh: the refresh function (runs on a worker thread; may block).
        token: the initial token, or None.
        header: the header that carries it; None = the library's default
            (``gw_credential_options_init``: ``"Authorization"``).
        prefix: written before the token; None = the library's default (``"Bearer "``).
        max_refreshes: the budget's count; None = the library's default (5).
        refresh_interval: the budget's window in seconds; None = the library's default (30).

    Raises:
        InvalidArgument: ``header`` is not a token, or ``prefix + token`` has a control character other than HTAB
            (RFC 9110 sections 5.1 and 5.5); the message names the header. Also ``token``,
            ``header`` or ``prefix`` with a NUL character, ``max_refreshes`` outside 0...2**31-1
            and a negative or NaN ``refresh_interval`` (infinity: the budget holds for the
            credential's life), each named.
        TypeError: an argument of another type.
    """

    def __init__(self, refresh: RefreshFunction, *, token: str | None = None, header: str | None = None,
                 prefix: str | None = None, max_refreshes: int | None = None,
                 refresh_interval: float | None = None) -> None:
        self.refresh = refresh
        options = _native.gw_credential_options()
        # The library's defaults; None keeps them.
        _exceptions.check(
            _native.lib.gw_credential_options_init(ctypes.byref(options), _native.GW_CREDENTIAL_OPTIONS_VERSION))
        options.token = c_text(token, "token")
        if header is not None:
            options.header = c_text(header, "header")
        if prefix is not None:
            options.prefix = c_text(prefix, "prefix")
        if max_refreshes is not None:
            options.max_refreshes = c_integer(max_refreshes, "max_refreshes", "int32_t")
        if refresh_interval is not None:
            options.refresh_interval = c_double(refresh_interval, "refresh_interval")
        options.refresh = _REFRESH
        with _credentials_lock:
            self._key = id(self)
            _credentials[self._key] = self
        options.user_data = self._key
        handle = ctypes.c_void_p()
        status = _native.lib.gw_credential_new(ctypes.byref(options), ctypes.byref(handle))
        if status != _native.GW_OK:
            self._forget()
            _exceptions.raise_status(status)
        self._handle: int | None = handle.value

    def _forget(self) -> None:
        with _credentials_lock:
            _credentials.pop(self._key, None)

    @property
    def handle(self) -> int | None:
        """The native ``gw_credential *`` (for ``gw_client_options.credential``)."""
        return self._handle

    @property
    def refresh_count(self) -> int:
        """How many refreshes have been started."""
        return int(_native.lib.gw_credential_refresh_count(self._handle))

    def close(self) -> None:
        """Release this object's reference (clients keep their own). Idempotent."""
        handle, self._handle = self._handle, None
        if handle:
            _native.lib.gw_credential_free(handle)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass
