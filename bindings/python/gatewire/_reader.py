"""The one reader of a native result (private): a ``gw_result *`` becomes a
:class:`gatewire.Result` (a success) or the :class:`gatewire.CallError` of its kind (a failure).

Every path takes it: a blocking call's and ``call_async``'s completion, a completion queue's
results (``call_many``, :class:`AsyncClient`), a page, a failure observer's borrowed result.
It reads the scalar fields and the body with one ``gw_result_read``; a Result keeps the
native result (:class:`NativeResult` owns it) and reads the rest on first access: method and
path as text, the mapped objects (below), the attempts, headers and metadata as the library's
JSON. A failure is read whole at once and freed, so an error stays usable after its result
is gone.

The optional extension ``gatewire._speedups`` accelerates this reader, never replaces its
rules: its ``NativeResult`` has the same interface (``raw[key]`` texts, ``raw.mapped()``,
``raw.pointer``), and it builds a success's Result as :func:`read` does, handing every other
result to :func:`read`. The mapped objects come from ``gw_result_mapped_walk`` with the
extension (its visitor in C: no JSON text is written or parsed) and from
``gw_result_mapped_json``'s text and :func:`json.loads` without it: the same values either
way, and a ctypes visitor called once per value was measured 13 times slower than the text
(200 objects of 9 values: 8-15 ms against 0.6-1.6 ms).
"""

from __future__ import annotations

import ctypes
import importlib.machinery
import importlib.util
import os
import threading
from types import ModuleType
from typing import Any

from . import _native
from . import _exceptions
from ._exceptions import CallError, ErrorKind, call_error_class
from ._result import _UNSET, Result, loads, parse_attempts, parse_headers, too_deep

__all__ = ["NativeResult", "read", "read_borrowed", "speedups", "unreadable"]

_TEXTS = {
    "method": "gw_result_method",
    "path": "gw_result_path",
    "mapped": "gw_result_mapped_json",
    "attempts": "gw_result_attempts_json",
    "headers": "gw_result_headers_json",
    "metadata": "gw_result_metadata_json",
    "url": "gw_result_url",
}


class NativeResult:
    """One ``gw_result *`` (``pointer``, an int), freed with ``gw_result_free`` when this
    object goes, unless it is ``borrowed`` (a failure observer's: the library's). The
    library's readers are thread-safe, so a Result holding it stays shareable."""

    __slots__ = ("pointer", "_owned")

    def __init__(self, pointer: int, borrowed: bool = False) -> None:
        self.pointer = pointer
        self._owned = not borrowed

    def __getitem__(self, key: str) -> bytes | None:
        """The library's text for ``key`` (``"method"``, ``"path"``, ``"mapped"``,
        ``"attempts"``, ``"headers"``, ``"metadata"``) as bytes, or None."""
        text: bytes | None = getattr(_native.lib, _TEXTS[key])(self.pointer)
        return text

    def mapped(self) -> Any:
        """The mapped objects (dicts, lists, str, int, float, bool, None: what :func:`json.loads`
        makes of ``gw_result_mapped_json``), or None when nothing was mapped: the extension's
        walk (``gw_result_mapped_walk``), else that text parsed (see the module's docstring).

        Raises:
            RecursionError: they nest deeper than the interpreter's recursion limit.
        """
        extension = speedups()
        if extension is not None:
            return extension.walk(self.pointer) if self.pointer else None
        return loads(self["mapped"])

    def free(self) -> None:
        """Free the native result now (an owned one; idempotent): what is read from it stays."""
        pointer, self.pointer = self.pointer, 0
        if pointer and self._owned:
            _native.lib.gw_result_free(pointer)

    def __del__(self) -> None:
        try:
            self.free()
        except Exception:  # noqa: BLE001 - interpreter shutdown: the process frees it
            pass


class _Copy:
    """What a Result reads from a native result, copied out of it (the texts as bytes, the
    mapped objects built from the walk, or the RecursionError that stopped them), so the
    native result can be freed at once; the same interface as :class:`NativeResult`."""

    __slots__ = ("_texts", "_mapped", "_error", "shared_state_local")
    pointer = 0

    def __init__(self, raw: Any) -> None:
        self.shared_state_local = bool(_native.lib.gw_result_shared_state_local(raw.pointer))
        self._texts: dict[str, bytes | None] = {key: raw[key] for key in ("method", "path", "attempts", "headers", "metadata",
                                                                          "url")}
        self._mapped: Any = None
        self._error: RecursionError | None = None
        try:
            self._mapped = raw.mapped()
        except RecursionError as error:  # raised where the Result's mapped objects are read
            self._error = error

    def __getitem__(self, key: str) -> bytes | None:
        return self._texts[key]

    def mapped(self) -> Any:
        if self._error is not None:
            raise self._error
        return self._mapped


def read(raw: NativeResult | Any, fields: Any = None, *, copy: bool = False) -> Result | CallError:
    """The outcome of the native result ``raw`` owns (a :class:`NativeResult`, or the
    extension's): a success is a Result whose method, path, mapped objects, attempts, headers
    and metadata are read from ``raw`` on first access (it keeps ``raw``), or, with ``copy``,
    copied out now so the caller frees ``raw`` at once (the completion path: a blocking
    call's and ``call_async``'s Results hold no native memory); a failure is its CallError,
    read whole now (``raw`` may then be freed).

    ``fields`` is a ``gw_result_fields`` with its version set, reused between reads (None:
    one is made)."""
    native = _native.lib
    pointer = raw.pointer
    if fields is None:
        fields = _native.gw_result_fields(version=_native.GW_RESULT_FIELDS_VERSION)
    _exceptions.check(native.gw_result_read(pointer, ctypes.byref(fields)))
    body = _native.copy_bytes(fields.body, fields.body_length) if fields.body_length else b""
    if fields.ok:
        return Result._from_reader(fields.status, int(native.gw_result_cache(pointer)), body,
                                   _Copy(raw) if copy else raw)
    return _failure(raw, fields.status, fields.error_kind, body)


def read_borrowed(pointer: int) -> CallError:
    """The CallError of a borrowed failed result (a failure observer's), copied whole: it
    outlives the callback. A success (the header promises none) is a CallError of kind
    ``none`` that says so."""
    raw = NativeResult(pointer, borrowed=True)
    fields = _native.gw_result_fields(version=_native.GW_RESULT_FIELDS_VERSION)
    _exceptions.check(_native.lib.gw_result_read(pointer, ctypes.byref(fields)))
    body = _native.copy_bytes(fields.body, fields.body_length) if fields.body_length else b""
    if fields.ok:
        return CallError("observer called for a successful call", kind=ErrorKind.none,
                         **_shared(raw, fields.status, body))
    return _failure(raw, fields.status, fields.error_kind, body)


def _shared(raw: Any, status: int, body: bytes) -> dict[str, Any]:
    return {"status": status, "body": body, "method": _native.decode(raw["method"]) or "",
            "path": _native.decode(raw["path"]) or "", "attempts": parse_attempts(raw["attempts"]),
            "headers": parse_headers(raw["headers"])}


def _failure(raw: Any, status: int, kind_number: int, body: bytes) -> CallError:
    native = _native.lib
    shared = _shared(raw, status, body)
    kind = ErrorKind.from_native(kind_number)
    message = _native.decode(native.gw_result_error_message(raw.pointer)) or ""
    try:
        error_objects = loads(native.gw_result_error_objects_json(raw.pointer))
    except RecursionError:
        return too_deep("error objects", **shared)
    retry_after = native.gw_result_retry_after(raw.pointer) if kind == ErrorKind.rate_limited else None
    local = bool(native.gw_result_shared_state_local(raw.pointer))
    return call_error_class(kind)(message, kind=kind, error_objects=error_objects, retry_after=retry_after,
                                  shared_state_local=local, **shared)


_FUNCTIONS = ("gw_call_async_queued", "gw_queue_wait", "gw_result_read", "gw_result_cache", "gw_result_free",
              "gw_call_handle_free",
              "gw_result_method", "gw_result_path", "gw_result_mapped_json", "gw_result_attempts_json",
              "gw_result_headers_json", "gw_result_metadata_json", "gw_result_url", "gw_result_mapped_walk")

_lock = threading.Lock()
_loaded: list[ModuleType | None] = []  # empty until looked for


def speedups() -> ModuleType | None:
    """The extension ``gatewire._speedups`` (``_speedups.c``, built by ``scripts/build.sh`` next
    to ``libGatewire.so`` when the Python headers are there), bound to the loaded library, or
    None: not built for this interpreter's extension suffix (e.g.
    ``.cpython-311-x86_64-linux-gnu.so``; looked for next to this package, then next to the
    loaded library), does not load, or ``GATEWIRE_NO_SPEEDUPS`` is set. The extension, or None (not built for this interpreter,
    does not load, or ``GATEWIRE_NO_SPEEDUPS`` is set). Loads the library first; thread-safe;
    looked for once per process.

    Raises:
        OSError: the library cannot be loaded (as :func:`_native.load`).
    """
    if _loaded:
        return _loaded[0]
    library = _native.load()
    with _lock:
        if not _loaded:
            _loaded.append(_find(library))
    return _loaded[0]


def _find(library: ctypes.CDLL) -> ModuleType | None:
    if os.environ.get("GATEWIRE_NO_SPEEDUPS"):
        return None
    name = "_speedups" + importlib.machinery.EXTENSION_SUFFIXES[0]
    folders = [os.path.dirname(os.path.realpath(__file__)), os.path.dirname(os.path.realpath(_native.library_path()))]
    for folder in folders:
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            continue
        try:
            loader = importlib.machinery.ExtensionFileLoader("gatewire._speedups", path)
            spec = importlib.util.spec_from_loader("gatewire._speedups", loader)
            assert spec is not None
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
            addresses = tuple(ctypes.cast(getattr(library, function), ctypes.c_void_p).value for function in _FUNCTIONS)
            module.bind(addresses, Result, _UNSET, _finish)
        except (ImportError, OSError, ValueError):
            continue  # a build for another library or interpreter: ctypes serves
        return module
    return None



def _finish(raw: Any) -> Result | CallError:
    """The outcome of a result the extension did not make a Result of: its NativeResult (a
    failure, read by :func:`gatewire._reader.read` and then freed with ``raw``) or None (it
    could not be read)."""
    if raw is None:
        return unreadable("out of memory")
    try:
        return read(raw)
    except Exception as error:  # noqa: BLE001 - the waiting call gets it
        return unreadable(repr(error))


def unreadable(why: str) -> CallError:
    """The CallError (kind ``none``) of a result that could not be read, saying why."""
    return CallError(f"could not read the call's result: {why}", kind=ErrorKind.none)
