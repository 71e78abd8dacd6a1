"""The :class:`Client`, :func:`check_config` and :func:`version`.

The client's native handle and the registry keys it owns are kept in a :class:`_NativeClient`.
The ctypes callbacks and the registry behind their ``user_data`` are in
:mod:`gatewire._callbacks`; :class:`CallFuture` is in :mod:`gatewire.futures` (re-exported
here); turning call options and configs into the library's JSON is in
:mod:`gatewire._encoding`.
"""

from __future__ import annotations

import ctypes
import json as _json
import os
import threading
import weakref
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, TypedDict

from . import _native
from ._callbacks import (
    _COMPLETION,
    _DESTROY,
    _DID_RECEIVE,
    _EVENT,
    _FAILURE_OBSERVER,
    _PREPARE,
    _PROCESS,
    _PROGRESS,
    _RETRY_TEST,
    _WILL_SEND,
    _install_log_sink,
    check_plain_callable,
    _overrides,
    _PendingCall,
    _plugin_name,
    _registry,
)
from ._calllog import CallLog
from ._completions import Completions
from ._encoding import (
    Config,
    _config_text,
    c_double,
    c_integer,
    c_path,
    c_text,
    _filter_json,
    _headers_json,
    _form_json,
    _params_json,
    _with_call_timeouts,
    _with_timeouts,
)
from ._multipart import FileValue, parts_array
from .errors import CallError, ErrorKind, GatewireError, InvalidArgument
from .auth import RefreshingCredential
from .futures import CallFuture
from .hooks import RetryTest
from .progress import ProgressCallback
from .pagination import Pages
from .result import Result, accepted
from .streaming import _CHUNK, BodyStream
from .timeouts import TimeoutArgument
from ._overlay import CacheArgument, CookiesArgument, cache_key, cookies_key, with_keys

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack from Python 3.11 (PEP 692: 3.12)

__all__ = ["Client", "CallFuture", "CallOptions", "check_config", "FailureObserver"]

#: ``observer(error)``: called once per failed call, on the loop thread (see
#: :meth:`Client.add_failure_observer`).
FailureObserver = Callable[[CallError], None]

# ---- Client ----------------------------------------------------------------------------
class _NativeClient:
    """The native handle and the registry keys a client owns; freed by :meth:`free` exactly
    once (from :meth:`Client.close`, the finaliser, or at interpreter exit).

    Whoever uses the handle holds it with :meth:`acquire`/:meth:`release`, except the C
    extension's ``start_on`` (``_completions``): it reads ``handle`` and starts a call in one
    C call under the GIL, so :meth:`free` clearing ``handle`` (under the GIL) before it frees
    the client is what keeps that path off a freed client."""

    def __init__(self) -> None:
        self.handle: int | None = None
        # `acquire` and `release` run on every call: they take the plain lock under the
        # condition (a C context manager) and notify only when `free` waits.
        self._mutex = threading.Lock()
        self.lock = threading.Condition(self._mutex)
        self.starting = 0  # gw_call_async / observer calls in progress (they return at once)
        self.plugin_keys: list[int] = []
        self.observer_keys: dict[int, int] = {}  # library observer id -> registry key
        self.monitor_keys: dict[int, int] = {}  # library event monitor id -> registry key

    def acquire(self) -> int:
        with self._mutex:
            if not self.handle:
                raise GatewireError("the client is closed")
            self.starting += 1
            return self.handle

    def release(self) -> None:
        with self._mutex:
            self.starting -= 1
            if self.handle is None and self.starting == 0:  # `free` waits for this
                self.lock.notify_all()

    def free(self) -> None:
        with self.lock:
            handle, self.handle = self.handle, None
            # Short calls that already hold the handle return at once; wait for them.
            self.lock.wait_for(lambda: self.starting == 0, timeout=5.0)
        if handle:
            # Blocks until the loop thread has ended (running calls complete as cancelled),
            # with the GIL released (CDLL), so their Python callbacks can still run.
            _native.lib.gw_client_free(handle)
        for key in self.plugin_keys:
            _registry.pop(key)
        for key in self.observer_keys.values():
            _registry.pop(key)
        for key in self.monitor_keys.values():
            _registry.pop(key)
        self.monitor_keys.clear()
        self.plugin_keys.clear()
        self.observer_keys.clear()


class CallOptions(TypedDict, total=False):
    """The keyword arguments of every call: :meth:`Client.call`, :meth:`Client.call_route`,
    :meth:`Client.call_async` and the items of :meth:`Client.call_many` (one definition,
    turned into the library's ``gw_call_options`` by one converter). Every key is optional;
    absent or None keeps the default. The ranges are the library's: a value out of range
    raises :class:`InvalidArgument` with its message, which names the field; so does a number
    that does not fit its C field (``max_retries=2**32 + 3``, never wrapped to 3) and text
    (``method``, ``path``, ``route``, ``content_type``, ``object_type``, ``download``, the
    names, filenames, content types and paths of ``files``) with a NUL character, which C
    would end there (``ValueError: embedded null byte``, as Python's ``open()`` says).

    Attributes:
        params: path (``:name``) and query parameters; values are str/int/float/bool (bools
            are sent as ``true``/``false``, numbers as ``str()``), or a list or tuple of them
            for a query parameter of several values, written in the config's
            ``arrayParameters`` style: ``{"ids": [1, 2]}`` is ``ids=1&ids=2`` (``"repeat"``,
            the default, as requests), ``ids%5B%5D=1&ids%5B%5D=2`` (``"brackets"``,
            AFNetworking's ``ids[]``) or ``ids=1,2`` (``"comma"``). A list never fills a
            ``:name`` segment.
        headers: request headers; they replace the config's headers of the same name. Names
            are tokens (RFC 9110 section 5.1) other than the framing and connection fields
            libcurl sends (Content-Length, Transfer-Encoding, Connection, Keep-Alive,
            Proxy-Connection, TE, Upgrade, Trailer), values have no control character but
            HTAB (RFC 9110 section 5.5): anything else raises InvalidArgument naming the
            header.
        json: the JSON body (any JSON-serialisable value; ``None`` sends a JSON ``null``;
            absent for no body). It goes out with the method asked, GET included; HEAD with
            a body raises InvalidArgument (RFC 9110 section 9.3.2).
        data: an ``application/x-www-form-urlencoded`` body, as requests' ``data=`` dict:
            fields in order, values as ``params``' (a list or tuple repeats the field,
            ``ids=1&ids=2``), encoded as the WHATWG form serializer (space ``+``, every byte
            outside RFC 3986's unreserved set ``%XX``). A ``Content-Type`` in ``headers`` wins.
            With ``files``, its fields are the first parts of the multipart body instead.
        files: a ``multipart/form-data`` body (RFC 7578), as requests' ``files=``: a mapping
            of field name to value, or ``(name, value)`` pairs to repeat a name, in order,
            after ``data``'s fields (or, with ``json`` and an ``object_type``, after the
            object's fields as its request descriptor maps them: ``user[name]``). A value is
            a path (``str`` or :class:`os.PathLike`), a file object (``open(path, "rb")``,
            ``gzip.open(path)``, :class:`io.BytesIO`), bytes, or a tuple
            ``(filename, content)`` or ``(filename, content, content_type)`` whose content is
            any of those or a ``str`` of text. A path, and a file ``open(path, "rb")``
            returned that is still at its start, is streamed from disk by the library, whole
            and from its first byte on every attempt and every 307/308 redirect (memory stays
            flat for a file of any size); any other file object is read whole first, as
            requests reads it, so what is sent is what it reads (``gzip.open``: the
            decompressed bytes; a file read partway: the rest). Filename: the tuple's, else
            a path's (or a file object's ``name``'s) last component, else the field name for
            bytes (requests'). Content type: the tuple's, else guessed by libcurl from the
            extension of the filename, else of the path (gif, jpg, jpeg, png, svg, txt, htm,
            html, pdf, xml), else ``application/octet-stream`` for a path and none for
            bytes. A file that cannot be read, or is not a regular file, raises
            :class:`InvalidArgument` naming the part and the path before anything is sent;
            so does a name, filename, content type or path with a NUL character (C would
            end it there; Python's ``open()`` refuses such a path too). libcurl writes the
            ``Content-Type`` header (with its boundary); one in
            ``headers`` or the config is not sent. Not with ``content``.
        content: a body of raw bytes (``bytes``, ``bytearray`` or ``memoryview``), sent as
            they are with ``content_type``, as httpx's ``content=``.
        content_type: ``content``'s ``Content-Type``, e.g. ``"image/png"``; None =
            ``application/octet-stream``. A ``Content-Type`` in ``headers`` (or the config's)
            wins over both. At most one of ``json``, ``data`` and ``content`` may be given
            (else InvalidArgument naming them).
        object_type: map ``json`` through the request descriptor of the type of this name;
            None (the default) sends ``json`` as is (with a route: the route's
            ``objectType`` if it has one).
        max_retries: retries after the first attempt, 0...100 (-1 or None keeps the count);
            it replaces only the count of the route's (else the client's) retry policy, over
            ``policy``'s ``retry.maxRetries`` too: the status codes, methods, delays and
            jitter stay (``gatewire.h``, ``gw_call_options.max_retries``).
        attempt_timeout: seconds per attempt, 0.001...86400 (0 or None = the client's).
        deadline: seconds for the whole call, delays included, 0.001...86400 (0 or None =
            the client's).
        retry_test: asked once per failed attempt, on the client's loop thread (see
            :data:`gatewire.RetryTest`); not accepted by :meth:`Client.call_many`.
        policy: this call's resilience policies, with the gateway config's keys:
            ``{"retry": {...}, "retryBudget": {...} or False, "circuitBreaker": {...} or
            False, "maxResponseBytes": n}``; absent ``retry`` fields keep the route's (else
            the client's) policy, e.g. ``policy={"retry": {"idempotencyKey": True}}``.
        redirects: which redirects this call follows (the config's ``redirects``): a
            ``follow`` word, ``"none"``, ``"sameOrigin"`` or ``"any"``; ``False`` (none); or
            the whole object, e.g. ``{"max": 3, "allowDowngrade": True}`` (absent fields keep
            the route's, else the client's). None keeps the route's or the client's: up to
            10 hops; on a change of scheme, host or port every credential header and secret
            query parameter is dropped; https to http and a body re-sent to another origin
            are refused (RedirectError). Each followed hop is in :attr:`Attempt.redirects`.
            An invalid value raises InvalidArgument naming the field
            (``policy_json.redirects.max: ...``).
        max_response_bytes: the largest decoded response body accepted, in bytes, 1...2**62
            (None = the route's, else the config's ``maxResponseBytes``, default 64 MiB); a
            larger one aborts the transfer as it arrives and raises :class:`ResponseTooLarge`
            (never retried). Same as ``policy={"maxResponseBytes": n}``, and checked as that
            (``policy_json.maxResponseBytes: ...``).
        timeout: seconds per attempt (a number), or a :class:`Timeouts` with ``attempt`` and
            ``deadline`` (the same as ``attempt_timeout`` and ``deadline``, which it may not
            be given with; ``connect`` is per client and raises InvalidArgument here).
        accept_any_status: True to get a status the core does not accept (a 4xx or 5xx no
            response descriptor accepts) as a :class:`Result` with ``ok`` False, whose
            :meth:`Result.raise_for_status` raises the :class:`HTTPStatusError` the call
            would have raised (``requests``' and ``httpx``' way); retries still follow the
            policy, and failure observers still see the call as failed (the core's rule is
            unchanged). Other failures raise as always. Default False.
        progress: a callable that sees each attempt's upload and download
            :class:`~gatewire.Progress`: at most ten reports a second while bytes move, then
            one final report per attempt; :class:`Client` calls it on the client's loop
            thread (it must return at once), :class:`AsyncClient` on the asyncio loop
            (:mod:`gatewire.progress`). None (the default) leaves libcurl's progress meter off.
            Not accepted by :meth:`Client.call_many`.
        download: a file path: the body of a 2xx response goes there instead of the result
            (whose ``body`` is then empty; a streamed body is not mapped), through a
            temporary file in the same folder that is renamed onto the path (not fsync'd) when
            the call succeeds and removed when it fails; a retry after a partial body resumes
            it with ``Range`` and ``If-Range`` when the response had a strong ETag or
            Last-Modified. Other statuses are kept for the error as usual, within
            ``max_response_bytes``, which does not limit the file (``gatewire.h``,
            ``gw_call_options.download_path``). A folder that takes no new file raises
            :class:`InvalidArgument` naming the path, before anything is sent.
        download_max_bytes: the largest streamed body accepted (``download`` or
            :meth:`Client.stream`), in bytes; past it :class:`ResponseTooLarge`. None or 0:
            no limit.
    """

    params: Mapping[str, Any] | None
    headers: Mapping[str, str] | None
    json: Any
    data: Mapping[str, Any] | None
    files: Mapping[str, FileValue] | Iterable[tuple[str, FileValue]] | None
    content: bytes | bytearray | memoryview | None
    content_type: str | None
    object_type: str | None
    max_retries: int | None
    attempt_timeout: float | None
    deadline: float | None
    retry_test: RetryTest | None
    policy: Mapping[str, Any] | None
    redirects: str | bool | Mapping[str, Any] | None
    max_response_bytes: int | None
    timeout: TimeoutArgument
    accept_any_status: bool
    progress: ProgressCallback | None
    download: str | os.PathLike[str] | None
    download_max_bytes: int | None


_CALL_OPTION_NAMES = frozenset(CallOptions.__annotations__)
_SCALARS = (str, int, float, bool, type(None))
_END: Any = object()


class Client:
    """A Gatewire client: a gateway config, an event-loop thread, plugins and observers.

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
        InvalidArgument: no config source, or both ``config`` and ``config_path`` (the
            library's message), or ``timeout`` with ``config_path``; ``base_url``, config
            text, ``config_path``, ``cookies`` or ``cache["directory"]`` with a NUL
            character (C would end it there: ``ValueError: embedded null byte``, as
            ``open()``), or a ``random_seed`` outside 0...2**64-1.
        TypeError: a plugin hook is a coroutine function, or ``timeout`` is neither a number
            nor a :class:`Timeouts`.
        OSError: the library cannot be loaded.
    """

    def __init__(
        self,
        base_url: str | None = None,
        *,
        config: Config | None = None,
        config_path: str | os.PathLike[str] | None = None,
        plugins: Iterable[Any] = (),
        random_seed: int | None = None,
        credential: RefreshingCredential | None = None,
        timeout: TimeoutArgument = None,
        cookies: CookiesArgument = None,
        cache: CacheArgument = None,
    ) -> None:
        config = _with_timeouts(config, config_path, timeout, base_url)
        config = with_keys(config, config_path, base_url, {"cookies": cookies_key(cookies), "cache": cache_key(cache)})

        native = _native.lib
        _install_log_sink()
        self._native = _NativeClient()
        self._credential = credential
        self._plugins = tuple(plugins)
        for plugin in self._plugins:
            for hook in ("prepare", "will_send", "did_receive", "process"):
                check_plain_callable(getattr(plugin, hook, None), f"plugin {_plugin_name(plugin)}.{hook}")
        options = _native.gw_client_options()
        _native.check(native.gw_client_options_init(ctypes.byref(options), _native.GW_CLIENT_OPTIONS_VERSION))
        options.base_url = c_text(base_url, "base_url")
        options.config_json = None if config is None else _config_text(config)
        options.config_path = c_path(config_path, "config_path")
        options.random_seed = c_integer(random_seed or 0, "random_seed", "uint64_t")
        structs = (_native.gw_plugin * max(1, len(self._plugins)))()
        for index, plugin in enumerate(self._plugins):  # text first: nothing is registered if one is refused
            structs[index].name = c_text(_plugin_name(plugin), f"plugin {index} name")
        for index, plugin in enumerate(self._plugins):
            key = _registry.add(plugin)
            self._native.plugin_keys.append(key)
            struct = structs[index]
            struct.version = _native.GW_PLUGIN_VERSION
            if _overrides(plugin, "prepare"):
                struct.prepare = _PREPARE
            if _overrides(plugin, "did_receive"):
                struct.did_receive = _DID_RECEIVE
            if _overrides(plugin, "will_send"):
                struct.will_send = _WILL_SEND
            if _overrides(plugin, "process"):
                struct.process = _PROCESS
            struct.destroy = _DESTROY
            struct.user_data = key
        if credential is not None:
            options.credential = credential.handle
        if self._plugins:
            options.plugins = structs
            options.plugin_count = len(self._plugins)
        handle = ctypes.c_void_p()
        status = native.gw_client_create(ctypes.byref(options), ctypes.byref(handle))
        if status != _native.GW_OK:
            message = _native.last_error_message()
            for key in self._native.plugin_keys:
                _registry.pop(key)
            _native.raise_status(status, message)
        self._native.handle = handle.value
        self._log = CallLog(self.add_event_monitor, self.remove_event_monitor)
        # Last resort: closes the client when it is garbage-collected or at interpreter exit
        # (weakref.finalize runs pending finalisers from an atexit hook).
        self._finalizer = weakref.finalize(self, self._native.free)

    # -- lifecycle -----------------------------------------------------------------------
    def close(self) -> None:
        """Stop the event loop and free the client. Idempotent.

        Calls still running complete first as :class:`Cancelled` (their futures resolve,
        blocking calls on other threads raise it, and failure observers run). Blocks until the loop thread has ended, unless called from
        a callback on that thread.
        """
        self._finalizer()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has run."""
        return not self._finalizer.alive

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<gatewire.Client {'closed' if self.closed else 'open'}>"

    # -- calls ---------------------------------------------------------------------------
    def _options(
        self,
        method: str | None,
        path: str | None,
        route: str | None,
        options: Mapping[str, Any],
        retry_key: int = 0,
        progress_key: int = 0,
        chunk_key: int = 0,
    ) -> _native.gw_call_options:
        """The one converter of :class:`CallOptions` to the library's ``gw_call_options``.

        Values go through as they are: their ranges are the library's, whose
        :class:`InvalidArgument` names the field (``"max_retries: 101 is out of range ..."``).
        ``retry_test`` and ``progress`` are registered by the caller (``retry_key``,
        ``progress_key``), and so is a :class:`BodyStream` (``chunk_key``)."""
        unknown = set(options) - _CALL_OPTION_NAMES
        if unknown:
            raise TypeError(f"unknown call argument(s) {sorted(unknown)}")
        if options.get("timeout") is not None:
            options = _with_call_timeouts(options)
        native = _native.gw_call_options()
        _native.check(_native.lib.gw_call_options_init(ctypes.byref(native), _native.GW_CALL_OPTIONS_VERSION))
        native.method = c_text(method, "method")
        native.path = c_text(path, "path")
        native.route = c_text(route, "route")
        native.params_json = _params_json(options.get("params"))
        native.headers_json = _headers_json(options.get("headers"))
        # An absent json is no body; json=None is a JSON null.
        native.body_json = _json.dumps(options["json"]).encode("utf-8") if "json" in options else None
        native.form_json = _form_json(options.get("data"))
        if options.get("files") is not None:
            parts = parts_array(options["files"])
            # The cast keeps the array (and what its parts point to) alive with the struct.
            native.parts = ctypes.cast(parts, ctypes.POINTER(_native.gw_part))
            native.part_count = len(parts)
        content = options.get("content")
        if content is not None:
            if not isinstance(content, (bytes, bytearray, memoryview)):
                raise TypeError(f"content must be bytes, bytearray or memoryview, not {type(content).__name__}")
            raw = bytes(content)
            # The cast keeps raw alive as long as the struct (ctypes' _objects).
            native.body = ctypes.cast(ctypes.c_char_p(raw), ctypes.c_void_p)
            native.body_length = len(raw)
        native.content_type = c_text(options.get("content_type"), "content_type")
        native.object_type = c_text(options.get("object_type"), "object_type")
        # None keeps the struct's "not set" (-1, 0, 0) from gw_call_options_init.
        if options.get("max_retries") is not None:
            native.max_retries = c_integer(options["max_retries"], "max_retries", "int32_t")
        if options.get("attempt_timeout") is not None:
            native.attempt_timeout = c_double(options["attempt_timeout"], "attempt_timeout")
        if options.get("deadline") is not None:
            native.deadline = c_double(options["deadline"], "deadline")
        policy, redirects = options.get("policy"), options.get("redirects")
        max_response_bytes = options.get("max_response_bytes")
        if policy is not None or redirects is not None or max_response_bytes is not None:
            # The config's keys, read (and checked) by the library.
            policies = dict(policy or {})
            if redirects is not None:
                policies["redirects"] = {"follow": redirects} if isinstance(redirects, str) else (
                    redirects if isinstance(redirects, bool) else dict(redirects))
            if max_response_bytes is not None:
                policies["maxResponseBytes"] = max_response_bytes
            native.policy_json = _json.dumps(policies).encode("utf-8")
        if retry_key:
            native.retry_test = _RETRY_TEST
            native.retry_test_user_data = retry_key
        if progress_key:
            native.on_progress = _PROGRESS
            native.on_progress_user_data = progress_key
        if options.get("download") is not None:
            native.download_path = c_path(options["download"], "download")
        if options.get("download_max_bytes") is not None:
            native.download_max_bytes = c_integer(options["download_max_bytes"], "download_max_bytes", "int64_t")
        if chunk_key:
            native.on_chunk = _CHUNK
            native.on_chunk_user_data = chunk_key
        return native

    def call(self, method: str, path: str, **options: Unpack[CallOptions]) -> Result:
        """Send a call and block until it completes (retries included).

        The GIL is released while waiting. Call from any thread but the client's loop
        thread (i.e. not from a callback).

        Args:
            method: ``"GET"``, ``"POST"``, ... (case-insensitive).
            path: relative to the base URL; ``:name`` segments are filled from ``params``,
                e.g. ``"/users/:id"``.
            **options: the call's keyword arguments, :class:`CallOptions` (``params``,
                ``headers``, ``json``, ``object_type``, ``max_retries``,
                ``attempt_timeout``, ``deadline``, ``retry_test``, ``policy``,
                ``redirects``, ``max_response_bytes``).

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
            **options: as for :meth:`call` (:class:`CallOptions`).

        Raises:
            the same as :meth:`call`; an unknown route raises :class:`InvalidRequest`.
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
        self._log.sync()
        options = self._options(None, None, route, {
            "params": params, "headers": headers, "max_retries": max_retries,
            "attempt_timeout": attempt_timeout, "deadline": deadline, "timeout": timeout,
        })  # fmt: skip
        return Pages(self, options)

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

    def _start(
        self, method: str | None, path: str | None, route: str | None, options: Mapping[str, Any], *, blocking: bool,
        chunk_key: int = 0,
    ) -> CallFuture:
        """Start a call with gw_call_async; its completion resolves the returned future.

        With ``blocking``, the caller is about to wait for the future: the library's
        ``gw_client_check_blocking`` first (on the client's loop thread, which alone could
        resolve it, that is WouldDeadlock)."""
        retry_test = options.get("retry_test")
        if retry_test is not None:
            check_plain_callable(retry_test, "retry_test")
        progress = options.get("progress")
        if progress is not None:
            check_plain_callable(progress, "progress")
        self._log.sync()
        retry_key = _registry.add(retry_test) if retry_test is not None else 0
        progress_key = _registry.add(progress) if progress is not None else 0
        future = CallFuture()
        pending_key = 0
        try:
            native_options = self._options(method, path, route, options, retry_key, progress_key, chunk_key)
            pending_key = _registry.add(_PendingCall(future, retry_key, bool(options.get("accept_any_status")),
                                                     progress_key))
            handle = self._native.acquire()
        except BaseException:
            _registry.pop(retry_key)
            _registry.pop(progress_key)
            _registry.pop(pending_key)
            raise
        out = ctypes.c_void_p()
        try:
            status = _native.lib.gw_client_check_blocking(handle) if blocking else _native.GW_OK
            if status == _native.GW_OK:
                status = _native.lib.gw_call_async(
                    handle, ctypes.byref(native_options), _COMPLETION, pending_key, ctypes.byref(out)
                )
            message = _native.last_error_message() if status != _native.GW_OK else ""
        finally:
            self._native.release()
        future._attach(out.value)
        if status != _native.GW_OK:
            # The completion never runs when gw_call_async fails: drop what it would have.
            _registry.pop(pending_key)
            _registry.pop(retry_key)
            _registry.pop(progress_key)
            _native.raise_status(status, message)
        return future

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
            **options: as for :meth:`call` (:class:`CallOptions`).

        Raises:
            InvalidArgument: neither route nor method and path, or malformed options (the
                future is not created).
            TypeError: as for :meth:`call`.
            GatewireError: the client is closed.
        """
        if route is None and (method is None or path is None):
            raise InvalidArgument("call_async needs method and path, or route")
        return self._start(method, path, route, options, blocking=False)

    def stream(
        self, method: str, path: str, *, buffer_bytes: int = 1 << 20, **options: Unpack[CallOptions]
    ) -> BodyStream:
        """Start a call whose 2xx body arrives as chunks, httpx's ``client.stream``:

        ``with client.stream("GET", "/big") as body: for chunk in body.iter_bytes(): ...``

        Args:
            method: as for :meth:`call`.
            path: as for :meth:`call`.
            buffer_bytes: how many bytes may wait for the iterating thread before the
                transfer pauses (default 1 MiB, at least 64 KiB); memory stays near it
                whatever the body's size.
            **options: as for :meth:`call` (:class:`CallOptions`), but not ``download``.

        Returns:
            A :class:`BodyStream`; the call has started. A call whose chunks began to arrive
            is never retried (the library's rule: chunks cannot be taken back).

        Raises:
            InvalidArgument, TypeError, GatewireError: as for :meth:`call_async`.
        """
        if options.get("download") is not None:
            raise InvalidArgument("download and stream: set at most one body sink")
        return BodyStream(lambda key: self._start(method, path, None, options, blocking=False, chunk_key=key),
                          buffer_bytes)

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

    def _many_options(self, spec: Mapping[str, Any]) -> _native.gw_call_options:
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
            _native.check(native.gw_client_check_blocking(handle))
        finally:
            native_client.release()
        queue = ctypes.c_void_p()
        _native.check(native.gw_queue_new(ctypes.byref(queue)))
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
                                _native.raise_status(status)
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

    # -- observers -------------------------------------------------------------------------
    def add_failure_observer(
        self,
        observer: FailureObserver,
        *,
        status: int | str | Iterable[int | str] | None = None,
        no_response: bool = False,
        kinds: Iterable[ErrorKind | str] | None = None,
        path: str | None = None,
    ) -> int:
        """Register ``observer(error)``, called exactly once for every failed call of this
        client, after its last attempt and before the call's own completion or return.

        ``error`` is a :class:`CallError` (the subclass for its kind) with the same details
        as the error the call raises or its future resolves with. Everything in it is
        copied, so it stays fully usable after the observer returned (``header()`` and
        ``headers`` included) and may be kept or handed to another thread. The observer runs
        on the client's loop thread and must not block (a blocking :meth:`call` from it
        raises :class:`WouldDeadlock`; :meth:`call_async` works); exceptions it raises are
        logged and ignored.

        The optional filter (every criterion given must match): ``status`` codes or classes
        (``401``, ``"4xx"``, ``[401, "5xx"]``), ``no_response=True`` for failures where the
        server could not be reached or did not answer (status 0, "no connection": kinds
        connect, dns, tls, timeout, network, deadline; not a cancelled call, not one the client
        refused to send, not one ended by ``close()``), ``kinds`` (``[ErrorKind.auth]``), ``path`` (a
        path pattern such as ``"/users/:id"``).

        Returns:
            An id for :meth:`remove_failure_observer`.

        Raises:
            TypeError: ``observer`` is a coroutine function (hooks are plain callables).
            GatewireError: the client is closed.
        """
        check_plain_callable(observer, "a failure observer")
        handle = self._native.acquire()
        try:
            key = _registry.add(observer)
            out = ctypes.c_uint64()
            code = _native.lib.gw_client_add_failure_observer_filtered(
                handle, _filter_json(status, no_response, kinds, path), _FAILURE_OBSERVER, key, _DESTROY,
                ctypes.byref(out))
            if code != _native.GW_OK:
                _registry.pop(key)
                _native.raise_status(code)
            with self._native.lock:
                self._native.observer_keys[out.value] = key
            return int(out.value)
        finally:
            self._native.release()

    def remove_failure_observer(self, observer_id: int) -> None:
        """Unregister an observer; it is not called for calls that fail afterwards.

        Raises:
            InvalidArgument: ``observer_id`` is not registered (or not an unsigned 64-bit int).
            GatewireError: the client is closed.
        """
        observer_id = c_integer(observer_id, "observer_id", "uint64_t")
        handle = self._native.acquire()
        try:
            status = _native.lib.gw_client_remove_failure_observer(handle, observer_id)
            if status != _native.GW_OK:
                _native.raise_status(status)
            with self._native.lock:
                key = self._native.observer_keys.pop(observer_id, None)
            _registry.pop(key)
        finally:
            self._native.release()


    # -- events and metrics ----------------------------------------------------------------
    def add_event_monitor(self, monitor: Callable[[dict[str, Any]], None]) -> int:
        """Register ``monitor(event)`` for every event of every call: ``event`` is a dict
        ``{"event": "call_started" | "attempt_started" | "attempt_finished" |
        "retry_scheduled" | "call_finished", "call_id", "method", "path", "attempt",
        "elapsed", "status", "error", "delay", "timings"}`` (seconds). Runs on the loop
        thread; must not block; exceptions are logged and ignored.

        Returns:
            An id for :meth:`remove_event_monitor`.

        Raises:
            TypeError: ``monitor`` is a coroutine function (hooks are plain callables).
            GatewireError: the client is closed.
        """
        check_plain_callable(monitor, "an event monitor")
        handle = self._native.acquire()
        try:
            key = _registry.add(monitor)
            out = ctypes.c_uint64()
            status = _native.lib.gw_client_add_event_monitor(handle, _EVENT, key, _DESTROY, ctypes.byref(out))
            if status != _native.GW_OK:
                _registry.pop(key)
                _native.raise_status(status)
            with self._native.lock:
                self._native.monitor_keys[out.value] = key
            return int(out.value)
        finally:
            self._native.release()

    def remove_event_monitor(self, monitor_id: int) -> None:
        """Unregister an event monitor.

        Raises:
            InvalidArgument: ``monitor_id`` is not registered (or not an unsigned 64-bit int).
        """
        monitor_id = c_integer(monitor_id, "monitor_id", "uint64_t")
        handle = self._native.acquire()
        try:
            _native.check(_native.lib.gw_client_remove_event_monitor(handle, monitor_id))
            with self._native.lock:
                key = self._native.monitor_keys.pop(monitor_id, None)
            _registry.pop(key)
        finally:
            self._native.release()

    @property
    def cookies(self) -> list[dict[str, Any]]:
        """The cookies in the client's jar (``cookies=`` or the config's ``cookies``), as
        libcurl holds them: dicts with ``domain`` (str), ``include_subdomains`` (bool),
        ``path`` (str), ``secure`` (bool), ``http_only`` (bool), ``expires`` (int, seconds
        since the Unix epoch; 0 for a session cookie), ``name`` and ``value`` (str). Empty
        without a jar. Read on the loop thread (a short wait; none from a hook). Values are
        secrets: the library never logs them. See the C ``gw_client_cookies_json``.

        Raises:
            GatewireError: the client is closed.
        """
        handle = self._native.acquire()
        try:
            out = ctypes.c_void_p()
            _native.check(_native.lib.gw_client_cookies_json(handle, ctypes.byref(out)))
            cookies: list[dict[str, Any]] = _json.loads(_native.take_string(out.value) or "[]")
            return cookies
        finally:
            self._native.release()

    def metrics(self) -> dict[str, Any]:
        """The counters of the config's ``{"name": "metrics"}`` plugin (see the C
        ``gw_client_metrics_json``).

        Raises:
            InvalidArgument: the client has no metrics plugin.
        """
        handle = self._native.acquire()
        try:
            out = ctypes.c_void_p()
            _native.check(_native.lib.gw_client_metrics_json(handle, ctypes.byref(out)))
            metrics: dict[str, Any] = _json.loads(_native.take_string(out.value) or "{}")
            return metrics
        finally:
            self._native.release()


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
    status = _native.lib.gw_config_check(_config_text(config), ctypes.byref(out))
    if status != _native.GW_OK:
        message = _native.last_error_message()
        _native.take_string(out.value)
        _native.raise_status(status, message)
    text = _native.take_string(out.value)
    return list(_json.loads(text)) if text else []


def version() -> str:
    """The library version, ``"MAJOR.MINOR.PATCH"``."""
    return _native.decode(_native.lib.gw_version()) or ""
