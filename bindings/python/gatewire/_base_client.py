"""The base of :class:`gatewire.Client` and :class:`gatewire.AsyncClient` (private; httpx's
``BaseClient``): the native client made from the shared arguments, the one converter of the
call arguments (:class:`CallOptions`) into the library's ``gw_call_options``, the start of a
call through the completion path, streamed bodies, failure observers, event monitors,
cookies and metrics.

The client's native handle and the registry keys it owns are kept in a :class:`_NativeClient`.
The ctypes callbacks and the registry behind their ``user_data`` are in
:mod:`gatewire._callbacks`; the value encoders are in :mod:`gatewire._encoding`, the client
keywords that stand for config keys are translated by :func:`gatewire._config.client_config`.
"""

from __future__ import annotations

import ctypes
import json as _json
import os
import weakref
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, TypedDict, TypeVar

from . import _exceptions, _instrumentation, _native
from ._auth import RefreshingCredential
from ._callbacks import (
    _COMPLETION,
    _DESTROY,
    _DID_RECEIVE,
    _EVENT,
    _FAILURE_OBSERVER,
    _MEASUREMENTS,
    _PREPARE,
    _PROCESS,
    _PROGRESS,
    _RETRY_TEST,
    _SPANS,
    _WILL_SEND,
    _install_log_sink,
    _overrides,
    _PendingCall,
    _plugin_name,
    _registry,
    check_plain_callable,
)
from ._calllog import CallLog
from ._config import (
    CacheArgument,
    Config,
    CookiesArgument,
    TimeoutArgument,
    call_timeouts,
    client_config,
    config_text,
)
from ._encoding import c_double, c_integer, c_path, c_text, _filter_json, _form_json, _headers_json, _params_json
from ._exceptions import ErrorKind, GatewireError, InvalidArgument
from ._futures import CallFuture
from ._hooks import FailureObserver, RetryTest
from ._multipart import FileValue, parts_array
from ._native_client import _NativeClient
from ._pagination import Pages
from ._progress import ProgressCallback
from ._tracecontext import with_parent
from ._streaming import _CHUNK, BodyStream

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack from Python 3.11 (PEP 692: 3.12)

__all__ = ["BaseClient", "CallOptions", "documents_call_options"]


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
        params: path (``:name``) and query parameters; a None value leaves the parameter out
            (as ``requests``); values are str/int/float/bool (bools
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
            False, "rateLimit": {...} or False, "maxResponseBytes": n}``; absent ``retry`` fields keep the route's (else
            the client's) policy, e.g. ``policy={"retry": {"idempotencyKey": True}}``.
        redirects: which redirects this call follows (the config's ``redirects``): a
            ``follow`` word, ``"none"``, ``"sameOrigin"`` or ``"any"``; ``False`` (none); or
            the whole object, e.g. ``{"max": 3, "allowDowngrade": True}`` (absent fields keep
            the route's, else the client's). None keeps the route's or the client's: up to
            10 hops; on a change of scheme, host or port every credential header and secret
            query parameter is dropped; https to http and a body re-sent to another origin
            are refused (RedirectError). Each followed hop is in :attr:`Attempt.redirects`.
            An invalid value raises InvalidArgument naming the field
            (``redirects.max: ...``).
        max_response_bytes: the largest decoded response body accepted, in bytes, 1...2**62
            (None = the route's, else the config's ``maxResponseBytes``, default 64 MiB); a
            larger one aborts the transfer as it arrives and raises :class:`ResponseTooLarge`
            (never retried). Same as ``policy={"maxResponseBytes": n}``, and checked as that
            (``max_response_bytes: ...``).
        timeout: seconds for the whole call (a number: its ``deadline``, every attempt and
            retry delay included, so the call is back within it, as a requests or httpx user
            expects of one number), or a :class:`Timeouts` with ``attempt`` and ``deadline``
            (the same as ``attempt_timeout`` and ``deadline``, which it may not be given with;
            ``connect`` is per client and raises InvalidArgument here). A call cut by it
            raises :class:`Timeout` of kind ``deadline``.
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
        traceparent: the parent of the call's spans, a W3C Trace Context Level 1
            ``traceparent`` (``"00-<32 hex trace id>-<16 hex span id>-<2 hex flags>"``,
            lower case): each attempt sends a ``traceparent`` of its own span under it (when
            the client's telemetry is on; else this one as given). None (the default): the
            current OpenTelemetry span when ``opentelemetry-api`` is installed and a valid
            span is current, else none. An invalid value raises InvalidArgument naming
            ``traceparent``: ``docs/telemetry.md``.
        tracestate: the parent's ``tracestate`` (W3C Trace Context section 3.3), sent as
            given with every attempt; printable ASCII; only with ``traceparent``. Default: the
            current OpenTelemetry span's, with its ``traceparent``.
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
    traceparent: str | None
    tracestate: str | None


_CALL_OPTION_NAMES = frozenset(CallOptions.__annotations__)

# The call options by concern, as a call method's docstring links them (documents_call_options).
CALL_OPTION_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("the request", ("params", "headers", "json", "data", "files", "content", "content_type", "object_type")),
    ("time limits and retries", ("timeout", "attempt_timeout", "deadline", "max_retries", "retry_test", "policy")),
    ("the response", ("accept_any_status", "redirects", "max_response_bytes", "download", "download_max_bytes",
                      "progress")),
    ("tracing", ("traceparent", "tracestate")),
)
_OPTIONS_PLACEHOLDER = "{call_options}"


_Method = TypeVar("_Method", bound=Callable[..., Any])


def documents_call_options(function: _Method) -> _Method:
    """Fills the ``{call_options}`` line of ``function``'s docstring with a link to each of
    :class:`CallOptions`' keys, grouped by :data:`CALL_OPTION_GROUPS`, so every call method
    links every keyword while each is documented once (in :class:`CallOptions`). The line's
    indentation is kept, for napoleon's ``Args:`` section.

    Raises:
        ValueError: the docstring has no placeholder line, or the groups do not name every
            key of :class:`CallOptions` exactly once (checked at import).
    """
    named = [name for _, names in CALL_OPTION_GROUPS for name in names]
    if sorted(named) != sorted(_CALL_OPTION_NAMES):
        raise ValueError(f"CALL_OPTION_GROUPS names {sorted(named)}, CallOptions has {sorted(_CALL_OPTION_NAMES)}")
    lines = (function.__doc__ or "").split("\n")
    at = next((i for i, line in enumerate(lines) if line.strip() == _OPTIONS_PLACEHOLDER), None)
    if at is None:
        raise ValueError(f"{function.__qualname__}'s docstring has no {_OPTIONS_PLACEHOLDER} line")
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    lines[at:at + 1] = [
        f"{indent}{title}: " + ", ".join(f":attr:`~gatewire.CallOptions.{name}`" for name in names)
        + (";" if number < len(CALL_OPTION_GROUPS) - 1 else ".")
        for number, (title, names) in enumerate(CALL_OPTION_GROUPS)
    ]
    function.__doc__ = "\n".join(lines)
    return function
_SCALARS = (str, int, float, bool, type(None))


_defaults: list[_native.gw_call_options_v4] = []


def _call_options_defaults() -> _native.gw_call_options_v4:
    """The library's ``gw_call_options_init`` defaults, asked for once per process: every
    call's options start as a copy of them (a memory copy instead of a foreign call)."""
    if not _defaults:
        defaults = _native.gw_call_options_v4()
        _exceptions.check(_native.lib.gw_call_options_init(ctypes.byref(defaults), _native.GW_CALL_OPTIONS_VERSION_4))
        _defaults.append(defaults)
    return _defaults[0]


class BaseClient:
    """What :class:`gatewire.Client` and :class:`gatewire.AsyncClient` share (httpx's
    ``BaseClient``): made from the same arguments (documented on :class:`gatewire.Client`),
    it owns the native client and its event-loop thread, encodes every call's arguments and
    starts calls; the subclasses wait for them (blocking, or awaited). Not instantiated on
    its own."""

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
        if base_url is None and config is None and config_path is None:
            raise InvalidArgument("Client() needs a base URL, a config or a config path: Client('http://...'), "
                                  "Client(config={...}), Client(config_path=...)")
        config = client_config(base_url, config, config_path, timeout=timeout, cookies=cookies, cache=cache)

        native = _native.lib
        _install_log_sink()
        self._native = _NativeClient()
        self._credential = credential
        self._plugins = tuple(plugins)
        for plugin in self._plugins:
            for hook in ("prepare", "will_send", "did_receive", "process"):
                check_plain_callable(getattr(plugin, hook, None), f"plugin {_plugin_name(plugin)}.{hook}")
        options = _native.gw_client_options()
        _exceptions.check(native.gw_client_options_init(ctypes.byref(options), _native.GW_CLIENT_OPTIONS_VERSION))
        options.base_url = c_text(base_url, "base_url")
        options.config_json = None if config is None else config_text(config)
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
            _exceptions.raise_status(status, message)
        self._native.handle = handle.value
        self._log = CallLog(self.add_event_monitor, self.remove_event_monitor)
        # Last resort: closes the client when it is garbage-collected or at interpreter exit
        # (weakref.finalize runs pending finalisers from an atexit hook).
        self._finalizer = weakref.finalize(self, self._native.free)
        _instrumentation.register(self)

    @property
    def closed(self) -> bool:
        """True once the client is closed (:meth:`Client.close`, :meth:`AsyncClient.aclose`)."""
        return not self._finalizer.alive

    def _pages(self, route: str, options: Mapping[str, Any]) -> Pages:
        """The native walk of ``route``'s pages with ``options`` (:meth:`Client.pages`)."""
        self._log.sync()
        return Pages(self._native, self._options(None, None, route, options))

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
    ) -> _native.CallOptionsStruct:
        """The one converter of :class:`CallOptions` to the library's ``gw_call_options``:
        the flat version 4 layout, moved to version 7 for a call with a trace parent
        (:func:`gatewire._tracecontext.with_parent`).

        Values go through as they are: their ranges are the library's, whose
        :class:`InvalidArgument` names the field (``"max_retries: 101 is out of range ..."``).
        ``retry_test`` and ``progress`` are registered by the caller (``retry_key``,
        ``progress_key``), and so is a :class:`BodyStream` (``chunk_key``)."""
        unknown = set(options) - _CALL_OPTION_NAMES
        if unknown:
            raise TypeError(f"unknown call argument(s) {sorted(unknown)}")
        if options.get("timeout") is not None:
            options = call_timeouts(options)
        native = _native.gw_call_options_v4.from_buffer_copy(_call_options_defaults())
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
        return with_parent(native, options)

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
            _exceptions.raise_status(status, message)
        return future

    def stream(
        self, method: str, path: str, *, buffer_bytes: int = 1 << 20, **options: Unpack[CallOptions]
    ) -> BodyStream:
        """Start a call whose 2xx body arrives as chunks, httpx's ``client.stream``:

        ``with client.stream("GET", "/big") as body: for chunk in body.iter_bytes(): ...``
        (:class:`Client`), ``async with client.stream("GET", "/big") as body: async for chunk
        in body.aiter_bytes(): ...`` (:class:`AsyncClient`).

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
                _exceptions.raise_status(code)
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
                _exceptions.raise_status(status)
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
        "elapsed", "status", "error", "delay", "timings"}`` (seconds). With ``sharedState``
        the store's degradation and recovery come too, once each per outage, as
        ``{"event": "shared_state_degraded" | "shared_state_recovered", "call_id": 0,
        "message"}`` (docs/fleet.md "When Redis fails"). Runs on the loop thread; must not
        block; exceptions are logged and ignored.

        Returns:
            An id for :meth:`remove_event_monitor`.

        Raises:
            TypeError: ``monitor`` is a coroutine function (hooks are plain callables).
            GatewireError: the client is closed.
        """
        check_plain_callable(monitor, "an event monitor")
        return self._add_hook(monitor, _native.lib.gw_client_add_event_monitor, _EVENT, self._native.monitor_keys)

    def remove_event_monitor(self, monitor_id: int) -> None:
        """Unregister an event monitor.

        Raises:
            InvalidArgument: ``monitor_id`` is not registered (or not an unsigned 64-bit int).
        """
        self._remove_hook(c_integer(monitor_id, "monitor_id", "uint64_t"), _native.lib.gw_client_remove_event_monitor,
                          self._native.monitor_keys)

    def _add_hook(self, hook: Callable[..., Any], add: Any, trampoline: Any, keys: dict[int, int]) -> int:
        """Registers ``hook`` through the native ``add`` (``gw_client_add_event_monitor``,
        ``gw_client_add_span_exporter`` or ``gw_client_add_measurement_exporter``, with its
        ctypes ``trampoline``) and returns the
        library's id; ``keys`` maps that id to the hook's registry key until removal."""
        handle = self._native.acquire()
        try:
            key = _registry.add(hook)
            out = ctypes.c_uint64()
            status = add(handle, trampoline, key, _DESTROY, ctypes.byref(out))
            if status != _native.GW_OK:
                _registry.pop(key)
                _exceptions.raise_status(status)
            with self._native.lock:
                keys[out.value] = key
            return int(out.value)
        finally:
            self._native.release()

    def _remove_hook(self, hook_id: int, remove: Any, keys: dict[int, int]) -> None:
        """Unregisters the hook ``hook_id`` through the native ``remove`` and forgets its key."""
        handle = self._native.acquire()
        try:
            _exceptions.check(remove(handle, hook_id))
            with self._native.lock:
                key = keys.pop(hook_id, None)
            _registry.pop(key)
        finally:
            self._native.release()

    # -- spans -------------------------------------------------------------------------------
    def add_span_exporter(self, exporter: Callable[[list[dict[str, Any]]], None]) -> int:
        """Register ``exporter(spans)`` for the trace spans of every finished call, and turn
        the client's telemetry on (each attempt then sends a W3C ``traceparent`` of its own
        span). ``spans`` is a list of dicts, the call's span first and then each attempt's,
        each an OTLP ``Span`` in the OTLP JSON encoding (``traceId``, ``spanId``,
        ``parentSpanId``, ``name``, ``kind`` 1 internal or 3 client, ``startTimeUnixNano``
        and ``endTimeUnixNano`` as decimal strings, ``attributes``, ``events``, ``status``:
        the C ``gw_span_export_fn``; every name and attribute in ``docs/telemetry.md``).
        Runs on the loop thread once per sampled call as it ends; must not block;
        exceptions are logged and ignored. :class:`gatewire.GatewireInstrumentor` uses it
        to hand the spans to OpenTelemetry.

        Returns:
            An id for :meth:`remove_span_exporter`.

        Raises:
            TypeError: ``exporter`` is a coroutine function (hooks are plain callables).
            GatewireError: the client is closed.
        """
        check_plain_callable(exporter, "a span exporter")
        return self._add_hook(exporter, _native.lib.gw_client_add_span_exporter, _SPANS, self._native.exporter_keys)

    def remove_span_exporter(self, exporter_id: int) -> None:
        """Unregister a span exporter; calls that end afterwards are not given to it.

        Raises:
            InvalidArgument: ``exporter_id`` is not registered (or not an unsigned 64-bit int).
            GatewireError: the client is closed.
        """
        self._remove_hook(c_integer(exporter_id, "exporter_id", "uint64_t"), _native.lib.gw_client_remove_span_exporter,
                          self._native.exporter_keys)

    # -- telemetry metrics -------------------------------------------------------------------
    def add_measurement_exporter(self, exporter: Callable[[list[dict[str, Any]]], None]) -> int:
        """Register ``exporter(measurements)`` for every measurement the client records, and
        turn the client's telemetry on (as :meth:`add_span_exporter` does).
        ``measurements`` is a list of dicts in the order recorded, each ``{"name",
        "value", "attributes"}``: ``name`` the instrument's (``http.client.request.duration``,
        ``http.client.active_requests``, ``gatewire.client.retries``, ...; every name, unit
        and attribute in ``docs/telemetry.md``), ``value`` a float in seconds for a histogram
        (to record) or an int for a counter (to add: 1, or -1 for
        ``http.client.active_requests``), ``attributes`` a dict of str, int and bool values
        (the C ``gw_measurement_export_fn``). Every call is measured, sampled or not. Runs on
        the loop thread in batches: at each call's end, what every call recorded since the
        previous batch, and at a circuit breaker's state change; must not block; exceptions
        are logged and ignored. :class:`gatewire.GatewireInstrumentor` uses it to record
        the measurements in an OpenTelemetry meter.

        Returns:
            An id for :meth:`remove_measurement_exporter`.

        Raises:
            TypeError: ``exporter`` is a coroutine function (hooks are plain callables).
            GatewireError: the client is closed.
        """
        check_plain_callable(exporter, "a measurement exporter")
        return self._add_hook(exporter, _native.lib.gw_client_add_measurement_exporter, _MEASUREMENTS,
                              self._native.measurement_keys)

    def remove_measurement_exporter(self, exporter_id: int) -> None:
        """Unregister a measurement exporter; batches delivered afterwards are not given to it.

        Raises:
            InvalidArgument: ``exporter_id`` is not registered (or not an unsigned 64-bit int).
            GatewireError: the client is closed.
        """
        self._remove_hook(c_integer(exporter_id, "exporter_id", "uint64_t"),
                          _native.lib.gw_client_remove_measurement_exporter, self._native.measurement_keys)

    def telemetry_metrics(self) -> dict[str, Any] | None:
        """The client's OpenTelemetry metrics now, cumulative since the client was made, as
        the OTLP/HTTP JSON ``ExportMetricsServiceRequest`` (what the core's OTLP exporter sends
        to ``/v1/metrics`` with ``http/json``): ``resourceMetrics[0].scopeMetrics[0].metrics``,
        each with ``name``, ``unit``, ``description`` and a ``sum`` or a ``histogram``, 64-bit
        integers as decimal strings, seconds (the C ``gw_client_telemetry_metrics_json``). Not the
        ``metrics`` plugin's counters (:meth:`metrics`). Waits for the client's loop thread
        to read the values.

        Returns:
            The request as a dict, or None when the client's telemetry is off (no
            ``telemetry`` in the config, no ``OTEL_EXPORTER_OTLP_ENDPOINT``, no span or
            measurement exporter).

        Raises:
            GatewireError: the client is closed.
        """
        handle = self._native.acquire()
        try:
            out = ctypes.c_void_p()
            status = _native.lib.gw_client_telemetry_metrics_json(handle, ctypes.byref(out))
            if status == _native.GW_ERROR_INVALID_ARGUMENT:  # the handle is valid: telemetry is off
                return None
            _exceptions.check(status)
            request: dict[str, Any] = _json.loads(_native.take_string(out.value) or "{}")
            return request
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
            _exceptions.check(_native.lib.gw_client_cookies_json(handle, ctypes.byref(out)))
            cookies: list[dict[str, Any]] = _json.loads(_native.take_string(out.value) or "[]")
            return cookies
        finally:
            self._native.release()

    def shared_state(self) -> list[dict[str, Any]]:
        """What the config's ``sharedState`` Redis holds under its ``keyPrefix``, whichever
        process wrote it: its circuit breakers, rate limits and ``Retry-After`` pauses, as dicts
        sorted by key (``type``: ``"circuit_breaker"``, ``"rate_limit"`` or ``"pause"``; the
        fields are those of the C ``gw_client_shared_state_json`` and ``gatewire state``;
        times in seconds from Redis's clock). Blocks until Redis answers, at most the store's
        ``timeout``.

        Raises:
            InvalidArgument: the config has no ``sharedState`` (of a ``redisCluster`` every
                primary is read, the lines merged).
            WouldDeadlock: called on the client's loop thread (from a hook).
            GatewireError: Redis did not answer in time (``GW_ERROR_CALL_FAILED``).
        """
        handle = self._native.acquire()
        try:
            out = ctypes.c_void_p()
            _exceptions.check(_native.lib.gw_client_shared_state_json(handle, ctypes.byref(out)))
            state: list[dict[str, Any]] = _json.loads(_native.take_string(out.value) or "[]")
            return state
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
            _exceptions.check(_native.lib.gw_client_metrics_json(handle, ctypes.byref(out)))
            metrics: dict[str, Any] = _json.loads(_native.take_string(out.value) or "{}")
            return metrics
        finally:
            self._native.release()


