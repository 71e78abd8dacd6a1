"""The blocking client, :class:`Client` (``httpx.Client``'s shape), :func:`check_config` and
:func:`version` (private; public names come from :mod:`gatewire`). What it shares with
:class:`gatewire.AsyncClient` is in :mod:`gatewire._base_client`.
"""

from __future__ import annotations

import ctypes
import json as _json
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping

from . import _exceptions, _native
from ._base_client import _SCALARS, BaseClient, CallOptions, documents_call_options
from ._completions import Completions
from ._config import Config, TimeoutArgument, config_text
from ._exceptions import CallError, GatewireError, InvalidArgument
from ._futures import CallFuture
from ._pagination import Pages
from ._result import Result, accepted

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack from Python 3.11 (PEP 692: 3.12)

__all__ = ["Client", "check_config", "version"]

_END: Any = object()


class Client(BaseClient):
    """A Gatewire client: a gateway config, an event-loop thread, plugins and observers.
    Each call blocks until it completes, retries included, and returns a :class:`Result` or
    raises the :class:`CallError` of its kind::

        import gatewire

        with gatewire.Client("http://127.0.0.1:8080") as client:      # a local httpbin
            result = client.get("/get", params={"q": "gate wire"})
            print(result.status_code, result.json()["args"])          # 200 {'q': 'gate wire'}
            created = client.post("/anything", json={"name": "Ann"}, timeout=5)
            print(created.json()["json"])                             # {'name': 'Ann'}
            try:
                client.get("/status/:code", params={"code": 404})
            except gatewire.HTTPStatusError as error:
                print(error.status, error.path)                       # 404 /status/404

    A call's keyword arguments are :class:`CallOptions`; a gateway config gives the client
    routes, descriptors, authentication and policies (``config=`` or ``config_path=``).

    Args:
        base_url: the URL every path is relative to, e.g. ``"http://127.0.0.1:8080/api"``.
            With ``config`` or ``config_path`` it replaces the config's ``baseURL`` (e.g. a
            server on a free port).
        config: a gateway config, as a dict or JSON text (keys: ``baseURL``, ``headers``,
            ``auth``, ``plugins``, ``timeouts``, ``verifyTLS`` (``False`` is logged as a warning by a
            ``log`` plugin), ``caFile``, ``proxy`` and ``noProxy`` (absent: libcurl reads
            ``http_proxy``, ``https_proxy``, ``ALL_PROXY``, ``NO_PROXY``), ``redactHeaders``,
            ``redactQuery``, ``maxConnectionsPerHost`` (default 0: no limit of its own) and
            ``maxConnections`` (default 100; calls beyond either wait for a connection, and
            each attempt's ``timings["queued"]`` says how long), ``http2``
            (``{"maxConcurrentStreams": 100, "priorKnowledge": False}``), ``retry``,
            ``retryBudget``, ``circuitBreaker``, ``routes``, ``mappings``, ``requestDescriptors``,
            ``responseDescriptors``, ``errorDescriptors``; times in seconds; see docs/config.md).
        config_path: the path of a gateway config file (instead of ``config``).
        plugins: :class:`Plugin` instances (or objects with any of ``prepare``,
            ``will_send``, ``did_receive``, ``process``), run after the config's own plugins;
            kept alive until the client is closed.
        random_seed: seeds each call's retry jitter, for exact tests; an unsigned 64-bit
            int (None or 0 = from the system).
        credential: a :class:`RefreshingCredential` that signs every attempt and is asked
            for a new token after a 401 (one refresh for concurrent 401s, each call replays
            once); None for none.
        timeout: the client's time limits, laid over the config's ``timeouts``: seconds per
            attempt (a number) or a :class:`Timeouts` (``connect``, ``attempt``,
            ``deadline``); None keeps the config's. Not with ``config_path`` (put them in
            the file).
        cookies: a cookie jar, the config's ``cookies``: True keeps cookies in memory, a
            path (str or PathLike) also loads them from that file when the client is made
            and writes them there when it closes (Netscape format, as curl's ``-b``/``-c``);
            None or False keeps the config's. libcurl's rules decide which cookie goes
            where (host, domain, path, Secure, expiry); :attr:`cookies` lists the jar. Not
            with ``config_path``.
        cache: an HTTP cache (RFC 9111), the config's ``cache``: True for one in memory
            (10 MiB), or a dict ``{"maxBytes": int, "directory": str}``; None or False keeps
            the config's. GET responses the server lets a cache keep are served fresh
            without a request or revalidated (``Result.from_cache``, ``Result.revalidated``),
            only to calls with the same credentials (secret header fields, the jar's cookies,
            the URL); a ``directory`` must be the user's own, writable by no one else
            (ConfigError otherwise). Not with ``config_path``.

    Hooks (plugin methods, observers, event monitors, retry tests) are plain callables run on
    the client's event-loop thread; a coroutine function (``async def``) is refused with
    TypeError.

    While the ``gatewire`` logger is enabled for INFO, the client logs each attempt at DEBUG
    and each retry and failed call at INFO, redacted by the core.

    The config source is ``config`` or ``config_path`` (not both), else ``base_url`` alone.

    The client is thread-safe: any thread may call it. Close it with :meth:`close` or a
    ``with`` block; a client that is garbage-collected or still open at interpreter exit is
    closed then. Closing cancels calls still running.

    Raises:
        ConfigError: the config is invalid (the message names the field, or the line and
            column of invalid JSON).
        InvalidArgument: no config source (``Client()``: "Client() needs a base URL, a config
            or a config path: ..."), or both ``config`` and ``config_path`` (the
            library's message), or ``timeout`` with ``config_path``; ``base_url``, config
            text, ``config_path``, ``cookies`` or ``cache["directory"]`` with a NUL
            character (C would end it there: ``ValueError: embedded null byte``, as
            ``open()``), or a ``random_seed`` outside 0...2**64-1.
        TypeError: a plugin hook is a coroutine function, or ``timeout`` is neither a number
            nor a :class:`Timeouts`.
        OSError: the library cannot be loaded.
    """
    # -- lifecycle -----------------------------------------------------------------------
    def close(self) -> None:
        """Stop the event loop and free the client. Idempotent.

        Calls still running complete first as :class:`Cancelled` (their futures resolve,
        blocking calls on other threads raise it, and failure observers run). Blocks until the loop thread has ended, unless called from
        a callback on that thread.
        """
        self._finalizer()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<gatewire.Client {'closed' if self.closed else 'open'}>"

    @documents_call_options
    def call(self, method: str, path: str, **options: Unpack[CallOptions]) -> Result:
        """Send a call and block until it completes (retries included).

        The GIL is released while waiting. Call from any thread but the client's loop
        thread (i.e. not from a callback).

        Args:
            method: ``"GET"``, ``"POST"``, ... (case-insensitive).
            path: relative to the base URL; ``:name`` segments are filled from ``params``,
                e.g. ``"/users/:id"``.
            **options: the call's keyword arguments, each documented in :class:`CallOptions`;
                {call_options}

        Returns:
            The :class:`Result` of a successful call.

        Raises:
            CallError: the call failed (a subclass per kind: HTTPStatusError,
                ConnectionFailed, Timeout, ...).
            WouldDeadlock: called on the client's event-loop thread (the library's
                ``gw_client_check_blocking``).
            InvalidArgument: malformed options (e.g. ``max_retries=101``, an unknown method,
                an invalid header); the library's message names the field.
            TypeError: an unknown keyword, a ``params`` or ``data`` value of another type,
                ``content`` that is not bytes, a ``json`` value that is not JSON-serialisable, a number of the wrong type, or a
                coroutine function as ``retry_test``.
            GatewireError: the client is closed.
        """
        return self._call_blocking(method, path, None, options)

    @documents_call_options
    def call_route(self, route: str, **options: Unpack[CallOptions]) -> Result:
        """Call the configured route ``route`` and block until it completes.

        Like :meth:`call`, but the method and path pattern come from the config's
        ``routes``; ``params`` fill the pattern's ``:name`` segments and the query.

        With ``object_type=None`` (the default) a ``json`` body is mapped through the request
        descriptor of the route's ``objectType`` if the route has one, and sent as is if it
        has none; ``object_type="Other"`` maps it through the type named ``"Other"``
        instead.

        Args:
            route: a route name of the gateway config.
            **options: as for :meth:`call`, each documented in :class:`CallOptions`;
                {call_options}

        Returns:
            The :class:`Result` of a successful call.

        Raises:
            InvalidRequest: ``route`` is not a route of the config (before anything is sent).
            CallError, WouldDeadlock, InvalidArgument, TypeError, GatewireError: as for
                :meth:`call`.
        """
        return self._call_blocking(None, None, route, options)

    # -- shortcuts (``httpx``'s and ``requests``' names) --------------------------------
    def get(self, path: str, **options: Unpack[CallOptions]) -> Result:
        """``call("GET", path, **options)``: see :meth:`call` (arguments, result, errors)."""
        return self._call_blocking("GET", path, None, options)

    def post(self, path: str, **options: Unpack[CallOptions]) -> Result:
        """``call("POST", path, **options)``: see :meth:`call` (arguments, result, errors)."""
        return self._call_blocking("POST", path, None, options)

    def put(self, path: str, **options: Unpack[CallOptions]) -> Result:
        """``call("PUT", path, **options)``: see :meth:`call` (arguments, result, errors)."""
        return self._call_blocking("PUT", path, None, options)

    def patch(self, path: str, **options: Unpack[CallOptions]) -> Result:
        """``call("PATCH", path, **options)``: see :meth:`call` (arguments, result, errors)."""
        return self._call_blocking("PATCH", path, None, options)

    def delete(self, path: str, **options: Unpack[CallOptions]) -> Result:
        """``call("DELETE", path, **options)``: see :meth:`call` (arguments, result, errors)."""
        return self._call_blocking("DELETE", path, None, options)

    def head(self, path: str, **options: Unpack[CallOptions]) -> Result:
        """``call("HEAD", path, **options)``: see :meth:`call` (arguments, result, errors)."""
        return self._call_blocking("HEAD", path, None, options)

    def pages(
        self,
        route: str,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        max_retries: int | None = None,
        attempt_timeout: float | None = None,
        deadline: float | None = None,
        timeout: TimeoutArgument = None,
    ) -> Pages:
        """The pages of the configured route ``route`` (its ``pagination`` in the gateway
        config), fetched lazily: an iterator of :class:`Result`, one blocking call per page.

        The keyword arguments are those of :class:`CallOptions`; they apply to every page.

        Raises:
            InvalidArgument: the route has no pagination (at once); a failed page raises its
                CallError from ``next()``.
        """
        return self._pages(route, {
            "params": params, "headers": headers, "max_retries": max_retries,
            "attempt_timeout": attempt_timeout, "deadline": deadline, "timeout": timeout,
        })  # fmt: skip

    def _call_blocking(self, method: str | None, path: str | None, route: str | None, options: CallOptions) -> Result:
        # Started like call_async: the native handle is used only while gw_call_async starts
        # the call (it returns at once), inside acquire()/release(), so close() cannot free
        # the client under it, and close() does not wait for the call either: it completes
        # it as Cancelled, which resolves the future this thread waits on (with the GIL
        # released). Results, errors and attempts are those gw_call would give.
        future = self._start(method, path, route, options, blocking=True)
        try:
            return future.result()  # type: ignore[no-any-return]
        finally:
            if not future.done():  # the wait was interrupted (e.g. KeyboardInterrupt)
                future.cancel()

    @documents_call_options
    def call_async(
        self, method: str | None = None, path: str | None = None, *, route: str | None = None,
        **options: Unpack[CallOptions],
    ) -> CallFuture:
        """Start a call and return at once; the arguments are those of :meth:`call`, or
        ``route=`` instead of method and path as in :meth:`call_route` (with a route, method
        and path are ignored; ``object_type=None`` then means the route's ``objectType`` if
        it has one, else ``json`` is sent as is).

        Any thread may call it, callbacks included. The returned :class:`CallFuture`
        resolves on the client's loop thread; wait with a timeout, e.g.
        ``future.result(timeout=10)``. Call failures (:class:`CallError`) are raised by the
        future's ``result()``, not here.

        Args:
            method: as for :meth:`call`, or None with ``route``.
            path: as for :meth:`call`, or None with ``route``.
            route: as for :meth:`call_route`, or None.
            **options: as for :meth:`call`, each documented in :class:`CallOptions`;
                {call_options}

        Raises:
            InvalidArgument: neither route nor method and path, or malformed options (the
                future is not created).
            TypeError: as for :meth:`call`.
            GatewireError: the client is closed.
        """
        if route is None and (method is None or path is None):
            raise InvalidArgument("call_async needs method and path, or route")
        return self._start(method, path, route, options, blocking=False)

    # -- many calls through a completion queue ----------------------------------
    def call_many(self, calls: Iterable[Mapping[str, Any]], *, in_flight: int = 64) -> Iterator[Result | CallError]:
        """Run many calls, at most ``in_flight`` at a time, and yield their outcomes in the
        order of ``calls``: the fastest way to make many calls from Python.

        Each item of ``calls`` is a mapping of :meth:`call_async`'s keyword arguments, e.g.
        ``{"route": "user", "params": {"id": 7}}`` or ``{"method": "GET", "path": "/ping"}``
        (``retry_test`` is not accepted here). ``calls`` is consumed lazily, as the window
        frees up, so it may be a generator or endless.

        Each outcome is a :class:`Result`, or the :class:`CallError` the call failed with
        (returned, not raised, so one failure does not end the others).

        How it is fast: the calls are started with ``gw_call_async_queued`` and their results
        pushed by the library into a completion queue (no Python callback, no GIL on the
        client's loop thread); this thread takes every finished result at once with one
        ``gw_queue_wait`` (which blocks with the GIL released) and reads each with one
        ``gw_result_read``. A Result's headers, attempts, method, path, mapped objects and
        metadata are read from the native result on first access. Options built from the
        same scalar-only mapping as the previous item are reused.

        Closing the iterator early (``break``, ``close()``) leaves the calls still running to
        finish in the library; their outcomes are discarded. Closing the client completes them
        as :class:`Cancelled`.

        Raises:
            InvalidArgument: ``in_flight`` < 1 (at once); an item with neither route nor
                method and path, malformed options, a ``retry_test`` or a ``progress`` (when it is
                reached).
            TypeError: an item with an unknown keyword, or as for :meth:`call`.
            WouldDeadlock: iterated on the client's event-loop thread.
            GatewireError: the client is closed (when a call is to be started; after the
                outcomes of the calls already started).
        """
        if isinstance(in_flight, bool) or not isinstance(in_flight, int) or in_flight < 1:
            raise InvalidArgument(f"in_flight must be an int >= 1, got {in_flight!r}")
        return self._call_many(iter(calls), in_flight)

    def _many_options(self, spec: Mapping[str, Any]) -> _native.CallOptionsStruct:
        options = dict(spec)
        method, path, route = options.pop("method", None), options.pop("path", None), options.pop("route", None)
        if options.pop("retry_test", None) is not None:
            raise InvalidArgument("call_many does not take retry_test; use call_async")
        if options.pop("progress", None) is not None:
            raise InvalidArgument("call_many does not take progress; use call_async")
        if route is None and (method is None or path is None):
            raise InvalidArgument("call_many: each call needs method and path, or route")
        return self._options(method, path, route, options)

    def _call_many(self, calls: Iterator[Mapping[str, Any]], in_flight: int) -> Iterator[Result | CallError]:
        native = _native.lib
        native_client = self._native
        self._log.sync()
        handle = native_client.acquire()
        try:  # the library's rule, before any call is started
            _exceptions.check(native.gw_client_check_blocking(handle))
        finally:
            native_client.release()
        queue = ctypes.c_void_p()
        _exceptions.check(native.gw_queue_new(ctypes.byref(queue)))
        queue_handle: int = queue.value or 0
        completions = Completions(min(in_flight, 4096))
        start, take, ok = completions.start, completions.take, _native.GW_OK
        ready: dict[int, Result | CallError] = {}
        accepting: set[int] = set()  # the tags of calls with accept_any_status
        started = yielded = 0
        exhausted = False
        refused: GatewireError | None = None
        last_spec: dict[str, Any] | None = None
        last_types: tuple[type, ...] = ()
        last_options: Any = None
        try:
            while True:
                if not exhausted and started - yielded - len(ready) < in_flight:
                    try:
                        handle = native_client.acquire()
                    except GatewireError as error:  # closed: first the outcomes of the calls started
                        exhausted, refused = True, error
                        continue
                    try:
                        while started - yielded - len(ready) < in_flight:
                            spec = next(calls, _END)
                            if spec is _END:
                                exhausted = True
                                break
                            # Values and their types: 1 == True == 1.0, and only one of them may be valid.
                            types = tuple(map(type, spec.values()))
                            if last_spec is None or spec != last_spec or types != last_types:
                                options = self._many_options(spec)
                                cacheable = all(kind in _SCALARS for kind in types)
                                last_spec, last_types, last_options = (dict(spec), types, options) if cacheable else (None, (), None)
                            else:
                                options = last_options
                            status, _ = start(handle, options, queue_handle, started)
                            if status != ok:
                                _exceptions.raise_status(status)
                            if spec.get("accept_any_status"):
                                accepting.add(started)
                            started += 1
                    finally:
                        native_client.release()
                if started == yielded:
                    if refused is not None:
                        raise refused
                    return
                if started - yielded > len(ready):
                    ready.update(take(queue_handle, 0.25))  # waits with the GIL released
                while yielded in ready:
                    outcome = ready.pop(yielded)
                    if yielded in accepting:
                        accepting.discard(yielded)
                        outcome = accepted(outcome, True)
                    yielded += 1
                    yield outcome
        finally:
            native.gw_queue_free(queue_handle)  # results still to come are freed by the library


def check_config(config: Config) -> list[str]:
    """Validate a gateway config without creating a client.

    A shared-object plugin the config names is loaded and its entry called, as a client
    would (``gw_config_check``): checking a config runs its plugins' code. Check an untrusted
    config with ``gatewire check --no-load-plugins``, which lists them without loading them.

    Args:
        config: a dict or JSON text.

    Returns:
        The warnings, a list of str naming things that are legal but probably unintended
        (empty if none).

    Raises:
        ConfigError: the config is invalid; the message is ``"field.path: why"``.
        InvalidArgument: malformed input.
    """
    out = ctypes.c_void_p()
    status = _native.lib.gw_config_check(config_text(config), ctypes.byref(out))
    if status != _native.GW_OK:
        message = _native.last_error_message()
        _native.take_string(out.value)
        _exceptions.raise_status(status, message)
    text = _native.take_string(out.value)
    return list(_json.loads(text)) if text else []


def version() -> str:
    """The library version, ``"MAJOR.MINOR.PATCH"``."""
    return _native.decode(_native.lib.gw_version()) or ""
