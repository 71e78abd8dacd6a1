"""The native-callback machinery of :class:`gatewire.Client` (private).

Callback lifetime: ctypes callbacks handed to the library are module-level ``CFUNCTYPE``
objects that live as long as the process, so the library can never call freed thunk code.
What differs per call, observer or plugin is the Python object behind it, kept in a
registry keyed by a small integer passed as ``user_data``; it is dropped when the library
is done with it (completion fired, observer removed, client freed).

Exceptions raised by user code in a callback are logged to the ``gatewire`` logger and
contained: none reaches the library. This module depends only on :mod:`gatewire._native`,
:mod:`gatewire._exceptions`, :mod:`gatewire._hooks`, :mod:`gatewire._progress`,
:mod:`gatewire._result` and :mod:`gatewire._futures`; the clients import it, never the other
way round.
"""

from __future__ import annotations

import ctypes
import inspect
import itertools
import json as _json
import logging
import threading
from typing import Any

from . import _native
from ._exceptions import GatewireError
from ._futures import CallFuture
from ._progress import Progress, ProgressCallback
from ._hooks import AttemptInfo, FailureObserver, FinalResult, Plugin, PreparedRequest, RetryTest, retry_verdict
from ._reader import NativeResult, read, read_borrowed
from ._result import Result, accepted


logger = logging.getLogger("gatewire")


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
    outcome: Result | GatewireError | None
    raw = NativeResult(result) if result else None  # owns the result from here
    try:
        outcome = read(raw, copy=True) if raw is not None else None
    except BaseException as error:  # noqa: BLE001 - must not reach C
        _log_hook_error("completion (converting the result)")
        outcome = GatewireError(f"could not read the call's result: {error!r}")
    finally:
        if raw is not None:
            raw.free()
    if pending is None:
        return  # not expected: the library runs a completion only for a started call
    try:
        if pending.retry_key:
            _registry.pop(pending.retry_key)
        if pending.progress_key:
            _registry.pop(pending.progress_key)
        if outcome is None:
            outcome = GatewireError("the library completed a call without a result")
        pending.future._resolve(accepted(outcome, pending.accept_any_status))
    except BaseException:  # noqa: BLE001
        _log_hook_error("completion")


def _on_retry_test(attempt: int | None, delay: Any, user_data: int | None) -> int:
    test: RetryTest | None = _registry.get(user_data)
    if test is None:  # removed meanwhile
        return _native.GW_RETRY_USE_POLICY
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


def _on_progress(progress: Any, user_data: int | None) -> None:
    callback: ProgressCallback | None = _registry.get(user_data)
    if callback is None or not progress:
        return  # the call completed meanwhile (a cancelled AsyncClient call)
    try:
        callback(Progress._from_native(progress.contents))
    except BaseException:  # noqa: BLE001
        _log_hook_error("progress callback")


def _on_failure(failure: int | None, user_data: int | None) -> None:
    observer: FailureObserver | None = _registry.get(user_data)
    if observer is None or not failure:
        return
    try:
        error = read_borrowed(failure)  # copies everything: usable after the callback
        observer(error)
    except BaseException:  # noqa: BLE001
        _log_hook_error("failure observer")


def _on_destroy(user_data: int | None) -> None:
    try:
        _registry.pop(user_data)
    except BaseException:  # noqa: BLE001
        _log_hook_error("destroy")


def _on_prepare(request: int | None, user_data: int | None) -> int:
    plugin = _registry.get(user_data)
    if plugin is None:
        return 0
    view = PreparedRequest(request)
    try:
        plugin.prepare(view)
        return 0
    except BaseException as error:  # noqa: BLE001
        _log_hook_error(f"plugin {_plugin_name(plugin)}.prepare (the call fails)")
        try:  # the reason reaches the PluginError: "plugin NAME failed: RuntimeError: ..."
            # A NUL in it would end the C string there: written as \x00, so nothing is lost.
            reason = f"{type(error).__name__}: {error}".replace("\x00", "\\x00")
            _native.lib.gw_request_fail(request, reason.encode("utf-8", "replace"))
        except BaseException:  # noqa: BLE001 - must not reach C
            _log_hook_error(f"plugin {_plugin_name(plugin)}.prepare (reporting its failure)")
        return 1
    finally:
        view._invalidate()


def _on_did_receive(attempt: int | None, user_data: int | None) -> None:
    plugin = _registry.get(user_data)
    if plugin is None:
        return
    info: AttemptInfo | None = None
    try:
        info = AttemptInfo(attempt)
        plugin.did_receive(info)
    except BaseException:  # noqa: BLE001
        _log_hook_error(f"plugin {_plugin_name(plugin)}.did_receive")
    finally:
        if info is not None:
            info._invalidate()


def _call_with_view(user_data: int | None, view_type: Any, pointer: int | None, method: str) -> None:
    """Calls the registered plugin's ``method`` with a view of ``pointer`` that is valid only
    during the call (invalidated after, whatever happens); an exception is logged, not raised
    into the native caller."""
    plugin = _registry.get(user_data)
    if plugin is None:
        return
    view = view_type(pointer)
    try:
        getattr(plugin, method)(view)
    except BaseException:  # noqa: BLE001
        _log_hook_error(f"plugin {_plugin_name(plugin)}.{method}")
    finally:
        view._invalidate()


def _on_will_send(request: int | None, user_data: int | None) -> None:
    _call_with_view(user_data, PreparedRequest, request, "will_send")


def _on_process(process: int | None, user_data: int | None) -> None:
    _call_with_view(user_data, FinalResult, process, "process")


def _on_event(event: int | None, user_data: int | None) -> None:
    monitor = _registry.get(user_data)
    if monitor is None or not event:
        return
    try:
        monitor(_json.loads(_native.decode(_native.lib.gw_event_json(event)) or "{}"))
    except BaseException:  # noqa: BLE001
        _log_hook_error("event monitor")


def _export_json(text: int | None, length: int, user_data: int | None, what: str) -> None:
    """Hands the JSON array at ``text`` (``length`` bytes) to the exporter registered as
    ``user_data``; ``what`` names it in the log line of an exception."""
    exporter = _registry.get(user_data)
    if exporter is None or not text:
        return
    try:
        exporter(_json.loads(ctypes.string_at(text, length)))
    except BaseException:  # noqa: BLE001
        _log_hook_error(what)


def _on_spans(spans: int | None, length: int, user_data: int | None) -> None:
    _export_json(spans, length, user_data, "span exporter")


def _on_measurements(measurements: int | None, length: int, user_data: int | None) -> None:
    _export_json(measurements, length, user_data, "measurement exporter")


def _on_log(line: bytes | None, user_data: int | None) -> None:
    try:
        logger.info("%s", (line or b"").decode("utf-8", "replace"))
    except BaseException:  # noqa: BLE001
        pass


_WILL_SEND = _native.WILL_SEND_FN(_on_will_send)
_PROCESS = _native.PROCESS_FN(_on_process)
_EVENT = _native.EVENT_FN(_on_event)
_SPANS = _native.SPAN_EXPORT_FN(_on_spans)
_MEASUREMENTS = _native.MEASUREMENT_EXPORT_FN(_on_measurements)
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
_PROGRESS = _native.PROGRESS_FN(_on_progress)
_FAILURE_OBSERVER = _native.FAILURE_OBSERVER_FN(_on_failure)
_DESTROY = _native.DESTROY_FN(_on_destroy)
_PREPARE = _native.PREPARE_FN(_on_prepare)
_DID_RECEIVE = _native.DID_RECEIVE_FN(_on_did_receive)


def check_plain_callable(hook: Any, what: str) -> None:
    """Refuse a coroutine function as a hook: hooks run on the client's event-loop thread,
    where no asyncio loop runs, and their answer is needed before the library goes on (a
    retry verdict, a request a plugin changed), so a coroutine would never be awaited.

    Raises:
        TypeError: ``hook`` is a coroutine function (``async def``).
    """
    if inspect.iscoroutinefunction(hook):
        raise TypeError(f"{what} must be a plain callable, not a coroutine function: hooks run on the client's "
                        "event-loop thread and must return at once (start async work from them with "
                        "loop.call_soon_threadsafe)")


def _plugin_name(plugin: Any) -> str:
    return getattr(plugin, "name", None) or type(plugin).__name__


def _overrides(plugin: Any, method: str) -> bool:
    implementation = getattr(type(plugin), method, None)
    return callable(implementation) and implementation is not getattr(Plugin, method)


# ---- Registry entries of a client's callbacks ---------------------------------------
class _PendingCall:
    """The registry entry of a started call: the future its completion resolves, the
    registry keys of its retry test and its progress callable (0 for none), dropped with it,
    and whether a status the core did not accept resolves it as a Result
    (``accept_any_status``)."""

    __slots__ = ("future", "retry_key", "accept_any_status", "progress_key")

    def __init__(self, future: CallFuture, retry_key: int, accept_any_status: bool = False,
                 progress_key: int = 0) -> None:
        self.future = future
        self.retry_key = retry_key
        self.accept_any_status = accept_any_status
        self.progress_key = progress_key
