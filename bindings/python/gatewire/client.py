"""The :class:`Client`, :class:`CallFuture` and :func:`check_config`.

Callback lifetime: ctypes callbacks handed to the library are module-level ``CFUNCTYPE``
objects that live as long as the process, so the library can never call freed thunk code.
What differs per call, observer or plugin is the Python object behind it, kept in a
registry keyed by a small integer passed as ``user_data``; it is dropped when the library
is done with it (completion fired, observer removed, client freed).

Every registry entry of a client's callbacks (:class:`_PendingCall`, :class:`_Hook`) also
names the client's :class:`_NativeClient`, so each callback records the client's loop
thread first (:meth:`_NativeClient.entered`): a blocking call made on that thread raises
:class:`WouldDeadlock` instead of waiting for a completion only that thread could run.
"""

from __future__ import annotations

import concurrent.futures
import ctypes
import itertools
import json as _json
import logging
import os
import threading
import weakref
from typing import Any, Callable, Iterable, Iterator, Mapping, Union

from . import _native
from .errors import CallError, Cancelled, ErrorKind, GatewireError, InvalidArgument
from .auth import RefreshingCredential
from .hooks import AttemptInfo, FinalResult, Plugin, PreparedRequest, RetryTest, retry_verdict
from .pagination import Pages
from .result import Result, call_error_from_borrowed, outcome_from_queued, result_from_native

__all__ = ["Client", "CallFuture", "check_config", "FailureObserver"]

logger = logging.getLogger("gatewire")

#: ``observer(error)``: called once per failed call, on the loop thread (see
#: :meth:`Client.add_failure_observer`).
FailureObserver = Callable[[CallError], None]

Config = Union[Mapping[str, Any], str]

_UNSET: Any = object()  # "no JSON body" (None means a JSON null body)


# ---- Registry of Python objects behind user_data ---------------------------------------
class _Registry:
    """Thread-safe ``int -> object`` map; ids start at 1 (0 would arrive as NULL)."""

    def __init__(self) -> None:
        self._items: dict[int, Any] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def add(self, item: Any) -> int:
        with self._lock:
            key = next(self._ids)
            self._items[key] = item
            return key

    def get(self, key: int | None) -> Any:
        with self._lock:
            return self._items.get(key or 0)

    def pop(self, key: int | None) -> Any:
        with self._lock:
            return self._items.pop(key or 0, None)


_registry = _Registry()


def _log_hook_error(what: str) -> None:
    logger.exception("gatewire: exception in %s (contained; not propagated into the library)", what)


# ---- Module-level thunks (live for the whole process) -----------------------------------
def _on_completion(result: int | None, user_data: int | None) -> None:
    pending: _PendingCall | None = _registry.pop(user_data)
    if pending is not None:
        pending.native.entered()
    try:
        outcome = result_from_native(result) if result else None  # takes ownership of result
    except BaseException as error:  # noqa: BLE001 - must not reach C
        _log_hook_error("completion (converting the result)")
        outcome = GatewireError(f"could not read the call's result: {error!r}")
    if pending is None:
        return  # not expected: the library runs a completion only for a started call
    try:
        if pending.retry_key:
            _registry.pop(pending.retry_key)
        if outcome is None:
            outcome = GatewireError("the library completed a call without a result")
        pending.future._resolve(outcome)
    except BaseException:  # noqa: BLE001
        _log_hook_error("completion")


def _on_retry_test(attempt: int | None, delay: Any, user_data: int | None) -> int:
    hook: _Hook | None = _registry.get(user_data)
    if hook is None:
        return _native.GW_RETRY_USE_POLICY
    hook.native.entered()
    test: RetryTest = hook.target
    info: AttemptInfo | None = None
    try:
        info = AttemptInfo(attempt)
        verdict, seconds = retry_verdict(test(info))
        if seconds >= 0 and delay:
            delay[0] = seconds
        return verdict
    except BaseException:  # noqa: BLE001
        _log_hook_error("retry test")
        return _native.GW_RETRY_USE_POLICY
    finally:
        if info is not None:
            info._invalidate()


def _on_failure(failure: int | None, user_data: int | None) -> None:
    hook: _Hook | None = _registry.get(user_data)
    if hook is None:
        return
    hook.native.entered()
    observer: FailureObserver = hook.target
    if not failure:
        return
    try:
        error = call_error_from_borrowed(failure)  # copies everything: usable after the callback
        observer(error)
    except BaseException:  # noqa: BLE001
        _log_hook_error("failure observer")


def _on_destroy(user_data: int | None) -> None:
    # Not a loop-thread marker: the library may run it on the thread that removes the
    # observer or frees the client.
    try:
        _registry.pop(user_data)
    except BaseException:  # noqa: BLE001
        _log_hook_error("destroy")


def _on_prepare(request: int | None, user_data: int | None) -> int:
    hook: _Hook | None = _registry.get(user_data)
    if hook is None:
        return 0
    hook.native.entered()
    plugin = hook.target
    view = PreparedRequest(request)
    try:
        plugin.prepare(view)
        return 0
    except BaseException as error:  # noqa: BLE001
        _log_hook_error(f"plugin {_plugin_name(plugin)}.prepare (the call fails)")
        try:  # the reason reaches the PluginError: "plugin NAME failed: RuntimeError: ..."
            _native.lib.gw_request_fail(request, f"{type(error).__name__}: {error}".encode("utf-8", "replace"))
        except BaseException:  # noqa: BLE001 - must not reach C
            _log_hook_error(f"plugin {_plugin_name(plugin)}.prepare (reporting its failure)")
        return 1
    finally:
        view._invalidate()


def _on_did_receive(attempt: int | None, user_data: int | None) -> None:
    hook: _Hook | None = _registry.get(user_data)
    if hook is None:
        return
    hook.native.entered()
    plugin = hook.target
    info: AttemptInfo | None = None
    try:
        info = AttemptInfo(attempt)
        plugin.did_receive(info)
    except BaseException:  # noqa: BLE001
        _log_hook_error(f"plugin {_plugin_name(plugin)}.did_receive")
    finally:
        if info is not None:
            info._invalidate()


def _on_will_send(request: int | None, user_data: int | None) -> None:
    hook: _Hook | None = _registry.get(user_data)
    if hook is None:
        return
    hook.native.entered()
    view = PreparedRequest(request)
    try:
        hook.target.will_send(view)
    except BaseException:  # noqa: BLE001
        _log_hook_error(f"plugin {_plugin_name(hook.target)}.will_send")
    finally:
        view._invalidate()


def _on_process(process: int | None, user_data: int | None) -> None:
    hook: _Hook | None = _registry.get(user_data)
    if hook is None:
        return
    hook.native.entered()
    view = FinalResult(process)
    try:
        hook.target.process(view)
    except BaseException:  # noqa: BLE001
        _log_hook_error(f"plugin {_plugin_name(hook.target)}.process")
    finally:
        view._invalidate()


def _on_event(event: int | None, user_data: int | None) -> None:
    hook: _Hook | None = _registry.get(user_data)
    if hook is None or not event:
        return
    hook.native.entered()
    try:
        hook.target(_json.loads(_native.decode(_native.lib.gw_event_json(event)) or "{}"))
    except BaseException:  # noqa: BLE001
        _log_hook_error("event monitor")


def _on_log(line: bytes | None, user_data: int | None) -> None:
    try:
        logger.info("%s", (line or b"").decode("utf-8", "replace"))
    except BaseException:  # noqa: BLE001
        pass


_WILL_SEND = _native.WILL_SEND_FN(_on_will_send)
_PROCESS = _native.PROCESS_FN(_on_process)
_EVENT = _native.EVENT_FN(_on_event)
_LOG = _native.LOG_FN(_on_log)
_log_sink_installed = False


def _install_log_sink() -> None:
    """Route the library's log lines (the "log" plugin, contained errors) to the ``gatewire``
    logger at INFO, once per process."""
    global _log_sink_installed
    if not _log_sink_installed:
        _native.lib.gw_set_log_sink(_LOG, None)
        _log_sink_installed = True


_COMPLETION = _native.COMPLETION_FN(_on_completion)
_RETRY_TEST = _native.RETRY_TEST_FN(_on_retry_test)
_FAILURE_OBSERVER = _native.FAILURE_OBSERVER_FN(_on_failure)
_DESTROY = _native.DESTROY_FN(_on_destroy)
_PREPARE = _native.PREPARE_FN(_on_prepare)
_DID_RECEIVE = _native.DID_RECEIVE_FN(_on_did_receive)


def _plugin_name(plugin: Any) -> str:
    return getattr(plugin, "name", None) or type(plugin).__name__


def _overrides(plugin: Any, method: str) -> bool:
    implementation = getattr(type(plugin), method, None)
    return callable(implementation) and implementation is not getattr(Plugin, method)


# ---- Futures -----------------------------------------------------------------------------
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


class _PendingCall:
    __slots__ = ("future", "retry_key", "native")

    def __init__(self, future: CallFuture, retry_key: int, native: _NativeClient) -> None:
        self.future = future
        self.retry_key = retry_key
        self.native = native


class _Hook:
    """A registry entry for a retry test, failure observer or plugin of one client."""

    __slots__ = ("target", "native")

    def __init__(self, target: Any, native: _NativeClient) -> None:
        self.target = target
        self.native = native


# ---- Client ----------------------------------------------------------------------------
class _NativeClient:
    """The native handle and the registry keys a client owns; freed by :meth:`free` exactly
    once (from :meth:`Client.close`, the finaliser, or at interpreter exit)."""

    def __init__(self) -> None:
        self.handle: int | None = None
        self.lock = threading.Condition()
        self.starting = 0  # gw_call_async / observer calls in progress (they return at once)
        # threading.get_ident() of the client's loop thread, recorded by every callback of
        # this client (they all run there); None until the first callback. No Python code
        # runs on the loop thread outside those callbacks, so it is known whenever needed.
        self.loop_thread: int | None = None
        self.plugin_keys: list[int] = []
        self.observer_keys: dict[int, int] = {}  # library observer id -> registry key
        self.monitor_keys: dict[int, int] = {}  # library event monitor id -> registry key

    def acquire(self) -> int:
        with self.lock:
            if not self.handle:
                raise GatewireError("the client is closed")
            self.starting += 1
            return self.handle

    def release(self) -> None:
        with self.lock:
            self.starting -= 1
            self.lock.notify_all()

    def entered(self) -> None:
        """Record the calling thread as the loop thread; the first thing every callback does."""
        self.loop_thread = threading.get_ident()

    def on_loop_thread(self) -> bool:
        return self.loop_thread == threading.get_ident()

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


_WOULD_DEADLOCK_MESSAGE = (
    "a blocking call on the client's event-loop thread (in a completion, failure observer, "
    "plugin hook or retry test), where waiting would deadlock; use call_async"
)


def _config_text(config: Config) -> str:
    if isinstance(config, str):
        return config
    if isinstance(config, Mapping):
        return _json.dumps(config)
    raise TypeError(f"config must be a dict or a JSON string, not {type(config).__name__}")


def _encode(text: str | None) -> bytes | None:
    return None if text is None else text.encode("utf-8")


def _params_json(params: Mapping[str, Any] | None) -> bytes | None:
    if params is None:
        return None
    values: dict[str, str] = {}
    for name, value in params.items():
        if isinstance(value, bool):
            values[str(name)] = "true" if value else "false"
        elif isinstance(value, (str, int, float)):
            values[str(name)] = str(value)
        else:
            raise TypeError(f"parameter {name!r} must be a str, int, float or bool, not {type(value).__name__}")
    return _json.dumps(values).encode("utf-8")


def _headers_json(headers: Mapping[str, str] | None) -> bytes | None:
    if headers is None:
        return None
    return _json.dumps({str(k): str(v) for k, v in headers.items()}).encode("utf-8")


_CALL_DEFAULTS: dict[str, Any] = {
    "method": None, "path": None, "route": None, "params": None, "headers": None, "json": _UNSET,
    "object_type": None, "max_retries": None, "attempt_timeout": None, "deadline": None, "policy": None,
}  # fmt: skip
_CALL_KEYWORDS = frozenset(_CALL_DEFAULTS) | {"retry_test"}
_SCALARS = (str, int, float, bool, type(None))
_END: Any = object()


class Client:
    """A Gatewire client: a gateway config, an event-loop thread, plugins and observers.

    Args:
        base_url: the URL every path is relative to, e.g. ``"http://127.0.0.1:8080/api"``.
            With ``config`` or ``config_path`` it replaces the config's ``baseURL`` (e.g. a
            server on a free port).
        config: a gateway config, as a dict or JSON text (keys: ``baseURL``, ``headers``,
            ``auth``, ``plugins``, ``timeouts``, ``verifyTLS``, ``retry``, ``retryBudget``,
            ``circuitBreaker``, ``routes``, ``mappings``, ``requestDescriptors``,
            ``responseDescriptors``, ``errorDescriptors``; times in seconds; see the README).
        config_path: the path of a gateway config file (instead of ``config``).
        plugins: :class:`Plugin` instances (or objects with any of ``prepare``,
            ``will_send``, ``did_receive``, ``process``), run after the config's own plugins;
            kept alive until the client is closed.
        random_seed: seeds each call's retry jitter, for exact tests; an unsigned 64-bit
            int (None or 0 = from the system).
        credential: a :class:`RefreshingCredential` that signs every attempt and is asked
            for a new token after a 401 (one refresh for concurrent 401s, each call replays
            once); None for none.

    The config source is ``config`` or ``config_path`` (not both), else ``base_url`` alone.

    The client is thread-safe: any thread may call it. Close it with :meth:`close` or a
    ``with`` block; a client that is garbage-collected or still open at interpreter exit is
    closed then. Closing cancels calls still running.

    Raises:
        ConfigError: the config is invalid (the message names the field, or the line and
            column of invalid JSON).
        InvalidArgument: no config source, or both ``config`` and ``config_path``.
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
    ) -> None:
        if config is not None and config_path is not None:
            raise InvalidArgument("pass config or config_path, not both")
        if base_url is None and config is None and config_path is None:
            raise InvalidArgument("a client needs base_url, config or config_path")

        native = _native.lib
        _install_log_sink()
        self._native = _NativeClient()
        self._credential = credential
        self._plugins = tuple(plugins)
        options = _native.gw_client_options()
        _native.check(native.gw_client_options_init(ctypes.byref(options), _native.GW_CLIENT_OPTIONS_VERSION))
        options.base_url = _encode(base_url)
        options.config_json = None if config is None else _config_text(config).encode("utf-8")
        options.config_path = None if config_path is None else os.fsencode(config_path)
        options.random_seed = int(random_seed or 0)
        structs = (_native.gw_plugin * max(1, len(self._plugins)))()
        for index, plugin in enumerate(self._plugins):
            key = _registry.add(_Hook(plugin, self._native))
            self._native.plugin_keys.append(key)
            struct = structs[index]
            struct.version = _native.GW_PLUGIN_VERSION
            struct.name = _plugin_name(plugin).encode("utf-8")
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
        *,
        method: str | None,
        path: str | None,
        route: str | None,
        params: Mapping[str, Any] | None,
        headers: Mapping[str, str] | None,
        json: Any,
        object_type: str | None,
        max_retries: int | None,
        attempt_timeout: float | None,
        deadline: float | None,
        retry_key: int,
        policy: Mapping[str, Any] | None = None,
    ) -> _native.gw_call_options:
        options = _native.gw_call_options()
        _native.check(_native.lib.gw_call_options_init(ctypes.byref(options), _native.GW_CALL_OPTIONS_VERSION))
        options.method = _encode(method.upper() if method else method)
        options.path = _encode(path)
        options.route = _encode(route)
        options.params_json = _params_json(params)
        options.headers_json = _headers_json(headers)
        options.body_json = None if json is _UNSET else _json.dumps(json).encode("utf-8")
        options.object_type = _encode(object_type)
        if max_retries is not None:
            if max_retries < 0:
                raise InvalidArgument(f"max_retries must be >= 0, got {max_retries}")
            options.max_retries = max_retries
        if attempt_timeout is not None:
            if not attempt_timeout > 0:
                raise InvalidArgument(f"attempt_timeout must be > 0 seconds, got {attempt_timeout!r}")
            options.attempt_timeout = float(attempt_timeout)
        if deadline is not None:
            if not deadline > 0:
                raise InvalidArgument(f"deadline must be > 0 seconds, got {deadline!r}")
            options.deadline = float(deadline)
        if policy is not None:  # resilience (issue 4): {"retry", "retryBudget", "circuitBreaker"}
            options.policy_json = _json.dumps(dict(policy)).encode("utf-8")
        if retry_key:
            options.retry_test = _RETRY_TEST
            options.retry_test_user_data = retry_key
        return options

    def call(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        json: Any = _UNSET,
        object_type: str | None = None,
        max_retries: int | None = None,
        attempt_timeout: float | None = None,
        deadline: float | None = None,
        retry_test: RetryTest | None = None,
        policy: Mapping[str, Any] | None = None,
    ) -> Result:
        """Send a call and block until it completes (retries included).

        The GIL is released while waiting. Call from any thread but the client's loop
        thread (i.e. not from a callback).

        Args:
            method: ``"GET"``, ``"POST"``, ... (case-insensitive).
            path: relative to the base URL; ``:name`` segments are filled from ``params``,
                e.g. ``"/users/:id"``.
            params: path (``:name``) and query parameters; values are str/int/float/bool
                (bools are sent as ``true``/``false``).
            headers: request headers; they replace the config's headers of the same name.
                Names are tokens (RFC 9110 section 5.1), values have no CR, LF or NUL (RFC
                9110 section 5.5): anything else raises InvalidArgument naming the header.
            json: the JSON body (any JSON-serialisable value; ``None`` sends a JSON
                ``null``; omit for no body).
            object_type: map ``json`` through the request descriptor of the type of this
                name; None (the default) sends ``json`` as is.
            max_retries: retries after the first attempt, >= 0 (None = the client's policy).
            policy: this call's resilience policies, with the gateway config's keys:
                ``{"retry": {...}, "retryBudget": {...} or False, "circuitBreaker": {...} or
                False}``; absent ``retry`` fields keep the route's (else the client's) policy,
                e.g. ``policy={"retry": {"idempotencyKey": True}}``. None keeps them all.
            attempt_timeout: seconds per attempt, > 0 (None = the client's).
            deadline: seconds for the whole call, delays included, > 0 (None = the
                client's).
            retry_test: asked once per failed attempt, on the client's loop thread (see
                :data:`gatewire.RetryTest`).

        Returns:
            The :class:`Result` of a successful call.

        Raises:
            CallError: the call failed (a subclass per kind: HTTPStatusError,
                ConnectionFailed, Timeout, ...).
            WouldDeadlock: called on the client's event-loop thread.
            InvalidArgument: malformed options (e.g. a negative ``max_retries``, an unknown
                method, an invalid header); the message names the argument.
            TypeError: a ``params`` value of another type, or a ``json`` value that is not
                JSON-serialisable.
            GatewireError: the client is closed.
        """
        return self._call_blocking(
            method=method, path=path, route=None, params=params, headers=headers, json=json,
            object_type=object_type, max_retries=max_retries, attempt_timeout=attempt_timeout,
            deadline=deadline, retry_test=retry_test, policy=policy,
        )  # fmt: skip

    def call_route(
        self,
        route: str,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        json: Any = _UNSET,
        object_type: str | None = None,
        max_retries: int | None = None,
        attempt_timeout: float | None = None,
        deadline: float | None = None,
        retry_test: RetryTest | None = None,
        policy: Mapping[str, Any] | None = None,
    ) -> Result:
        """Call the configured route ``route`` and block until it completes.

        Like :meth:`call`, but the method and path pattern come from the config's
        ``routes``; ``params`` fill the pattern's ``:name`` segments and the query.

        With ``object_type=None`` (the default) a ``json`` body is mapped through the request
        descriptor of the route's ``objectType`` if the route has one, and sent as is if it
        has none; ``object_type="Other"`` maps it through the type named ``"Other"``
        instead.

        Raises:
            the same as :meth:`call`; an unknown route raises :class:`InvalidRequest`.
        """
        return self._call_blocking(
            method=None, path=None, route=route, params=params, headers=headers, json=json,
            object_type=object_type, max_retries=max_retries, attempt_timeout=attempt_timeout,
            deadline=deadline, retry_test=retry_test, policy=policy,
        )  # fmt: skip

    def pages(
        self,
        route: str,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        max_retries: int | None = None,
        attempt_timeout: float | None = None,
        deadline: float | None = None,
    ) -> Pages:
        """The pages of the configured route ``route`` (its ``pagination`` in the gateway
        config), fetched lazily: an iterator of :class:`Result`, one blocking call per page.

        Raises:
            InvalidArgument: the route has no pagination (at once); a failed page raises its
                CallError from ``next()``.
        """
        options = self._options(
            method=None, path=None, route=route, params=params, headers=headers, json=_UNSET,
            object_type=None, max_retries=max_retries, attempt_timeout=attempt_timeout,
            deadline=deadline, retry_key=0,
        )  # fmt: skip
        return Pages(self, options)

    def _call_blocking(self, **arguments: Any) -> Result:
        # Started like call_async: the native handle is used only while gw_call_async starts
        # the call (it returns at once), inside acquire()/release(), so close() cannot free
        # the client under it, and close() does not wait for the call either: it completes
        # it as Cancelled, which resolves the future this thread waits on (with the GIL
        # released). Results, errors and attempts are those gw_call would give.
        future = self._start(blocking=True, **arguments)
        try:
            return future.result()  # type: ignore[no-any-return]
        finally:
            if not future.done():  # the wait was interrupted (e.g. KeyboardInterrupt)
                future.cancel()

    def _start(self, *, blocking: bool, retry_test: RetryTest | None, **arguments: Any) -> CallFuture:
        """Start a call with gw_call_async; its completion resolves the returned future.

        With ``blocking``, the caller is about to wait for the future, which only the
        client's loop thread can resolve: on that thread, raise WouldDeadlock instead."""
        retry_key = _registry.add(_Hook(retry_test, self._native)) if retry_test is not None else 0
        future = CallFuture()
        pending_key = 0
        try:
            options = self._options(retry_key=retry_key, **arguments)
            pending_key = _registry.add(_PendingCall(future, retry_key, self._native))
            handle = self._native.acquire()
        except BaseException:
            _registry.pop(retry_key)
            _registry.pop(pending_key)
            raise
        out = ctypes.c_void_p()
        try:
            if blocking and self._native.on_loop_thread():
                status, message = _native.GW_ERROR_WOULD_DEADLOCK, _WOULD_DEADLOCK_MESSAGE
            else:
                status = _native.lib.gw_call_async(
                    handle, ctypes.byref(options), _COMPLETION, pending_key, ctypes.byref(out)
                )
                message = _native.last_error_message() if status != _native.GW_OK else ""
        finally:
            self._native.release()
        future._attach(out.value)
        if status != _native.GW_OK:
            # The completion never runs when gw_call_async fails: drop what it would have.
            _registry.pop(pending_key)
            _registry.pop(retry_key)
            _native.raise_status(status, message)
        return future

    def call_async(
        self,
        method: str | None = None,
        path: str | None = None,
        *,
        route: str | None = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        json: Any = _UNSET,
        object_type: str | None = None,
        max_retries: int | None = None,
        attempt_timeout: float | None = None,
        deadline: float | None = None,
        retry_test: RetryTest | None = None,
        policy: Mapping[str, Any] | None = None,
    ) -> CallFuture:
        """Start a call and return at once; the arguments are those of :meth:`call`, or
        ``route=`` instead of method and path as in :meth:`call_route` (with a route, method
        and path are ignored; ``object_type=None`` then means the route's ``objectType`` if
        it has one, else ``json`` is sent as is).

        Any thread may call it, callbacks included. The returned :class:`CallFuture`
        resolves on the client's loop thread; wait with a timeout, e.g.
        ``future.result(timeout=10)``. Call failures (:class:`CallError`) are raised by the
        future's ``result()``, not here.

        Raises:
            InvalidArgument: neither route nor method and path, or malformed options (the
                future is not created).
            TypeError: as for :meth:`call`.
            GatewireError: the client is closed.
        """
        if route is None and (method is None or path is None):
            raise InvalidArgument("call_async needs method and path, or route")
        return self._start(
            blocking=False, method=method, path=path, route=route, params=params, headers=headers,
            json=json, object_type=object_type, max_retries=max_retries,
            attempt_timeout=attempt_timeout, deadline=deadline, retry_test=retry_test, policy=policy,
        )  # fmt: skip

    # -- many calls through a completion queue (issue 6) ----------------------------------
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
                method and path, malformed options or a ``retry_test`` (when it is reached).
            TypeError: an item with an unknown keyword, or as for :meth:`call`.
            WouldDeadlock: iterated on the client's event-loop thread.
            GatewireError: the client is closed (when a call is to be started; after the
                outcomes of the calls already started).
        """
        if isinstance(in_flight, bool) or not isinstance(in_flight, int) or in_flight < 1:
            raise InvalidArgument(f"in_flight must be an int >= 1, got {in_flight!r}")
        return self._call_many(iter(calls), in_flight)

    def _many_options(self, spec: Mapping[str, Any]) -> _native.gw_call_options:
        arguments = dict(spec)
        unknown = set(arguments) - _CALL_KEYWORDS
        if unknown:
            raise TypeError(f"call_many: unknown call argument(s) {sorted(unknown)}")
        if arguments.pop("retry_test", None) is not None:
            raise InvalidArgument("call_many does not take retry_test; use call_async")
        if arguments.get("route") is None and (arguments.get("method") is None or arguments.get("path") is None):
            raise InvalidArgument("call_many: each call needs method and path, or route")
        return self._options(retry_key=0, **dict(_CALL_DEFAULTS, **arguments))

    def _call_many(self, calls: Iterator[Mapping[str, Any]], in_flight: int) -> Iterator[Result | CallError]:
        native = _native.lib
        native_client = self._native
        if native_client.on_loop_thread():
            _native.raise_status(_native.GW_ERROR_WOULD_DEADLOCK, _WOULD_DEADLOCK_MESSAGE)
        queue = ctypes.c_void_p()
        _native.check(native.gw_queue_new(ctypes.byref(queue)))
        queue_handle = queue.value
        capacity = min(in_flight, 4096)
        results = (ctypes.c_void_p * capacity)()
        tags = (ctypes.c_uint64 * capacity)()
        count = ctypes.c_size_t()
        count_ref = ctypes.byref(count)
        fields = _native.gw_result_fields()
        fields.version = _native.GW_RESULT_FIELDS_VERSION
        fields_ref = ctypes.byref(fields)
        start, wait, ok = native.gw_call_async_queued, native.gw_queue_wait, _native.GW_OK
        ready: dict[int, Result | CallError] = {}
        started = yielded = 0
        exhausted = False
        refused: GatewireError | None = None
        last_spec: dict[str, Any] | None = None
        last_ref: Any = None
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
                            if last_spec is None or spec != last_spec:
                                options_ref = ctypes.byref(self._many_options(spec))
                                cacheable = all(type(value) in _SCALARS for value in spec.values())
                                last_spec, last_ref = (dict(spec), options_ref) if cacheable else (None, None)
                            else:
                                options_ref = last_ref
                            status = start(handle, options_ref, queue_handle, started, None)
                            if status != ok:
                                _native.raise_status(status)
                            started += 1
                    finally:
                        native_client.release()
                if started == yielded:
                    if refused is not None:
                        raise refused
                    return
                if started - yielded > len(ready):
                    wait(queue_handle, 0.25, results, tags, capacity, count_ref)  # GIL released
                    for index in range(count.value):
                        ready[tags[index]] = outcome_from_queued(results[index], fields, fields_ref)
                while yielded in ready:
                    outcome = ready.pop(yielded)
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
            GatewireError: the client is closed.
        """
        handle = self._native.acquire()
        try:
            key = _registry.add(_Hook(observer, self._native))
            out = ctypes.c_uint64()
            filter_json = _filter_json(status, no_response, kinds, path)
            if filter_json is None:
                status = _native.lib.gw_client_add_failure_observer(handle, _FAILURE_OBSERVER, key, _DESTROY, ctypes.byref(out))
            else:
                status = _native.lib.gw_client_add_failure_observer_filtered(
                    handle, filter_json, _FAILURE_OBSERVER, key, _DESTROY, ctypes.byref(out))
            if status != _native.GW_OK:
                _registry.pop(key)
                _native.raise_status(status)
            with self._native.lock:
                self._native.observer_keys[out.value] = key
            return int(out.value)
        finally:
            self._native.release()

    def remove_failure_observer(self, observer_id: int) -> None:
        """Unregister an observer; it is not called for calls that fail afterwards.

        Raises:
            InvalidArgument: ``observer_id`` is not registered.
            GatewireError: the client is closed.
        """
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
        """
        handle = self._native.acquire()
        try:
            key = _registry.add(_Hook(monitor, self._native))
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
            InvalidArgument: ``monitor_id`` is not registered.
        """
        handle = self._native.acquire()
        try:
            _native.check(_native.lib.gw_client_remove_event_monitor(handle, monitor_id))
            with self._native.lock:
                key = self._native.monitor_keys.pop(monitor_id, None)
            _registry.pop(key)
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
            return _json.loads(_native.take_string(out.value) or "{}")
        finally:
            self._native.release()


def _filter_json(status: Any, no_response: bool, kinds: Any, path: str | None) -> bytes | None:
    """The library's filter JSON for :meth:`Client.add_failure_observer`, or None for none."""
    document: dict[str, Any] = {}
    if status is not None:
        items = [status] if isinstance(status, (int, str)) else list(status)
        document["statusCodes"] = [str(item) if isinstance(item, str) else int(item) for item in items]
    if no_response:
        document["noResponse"] = True
    if kinds is not None:
        document["kinds"] = [kind if isinstance(kind, str) else ErrorKind(kind).name for kind in kinds]
    if path is not None:
        document["pathPattern"] = path
    return _json.dumps(document).encode("utf-8") if document else None


def check_config(config: Config) -> list[str]:
    """Validate a gateway config without creating a client.

    Args:
        config: a dict or JSON text.

    Returns:
        Warnings: things that are legal but probably unintended (an empty list if none).

    Raises:
        ConfigError: the config is invalid; the message is ``"field.path: why"``.
        InvalidArgument: malformed input.
    """
    out = ctypes.c_void_p()
    status = _native.lib.gw_config_check(_config_text(config).encode("utf-8"), ctypes.byref(out))
    if status != _native.GW_OK:
        message = _native.last_error_message()
        _native.take_string(out.value)
        _native.raise_status(status, message)
    text = _native.take_string(out.value)
    return list(_json.loads(text)) if text else []


def version() -> str:
    """The library version, ``"MAJOR.MINOR.PATCH"``."""
    return _native.decode(_native.lib.gw_version()) or ""
