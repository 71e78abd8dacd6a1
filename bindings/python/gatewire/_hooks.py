"""Extension points that run inside the library's callbacks: plugins, retry tests and the
views they receive (:class:`AttemptInfo`, :class:`PreparedRequest`).

Every hook runs on the client's event-loop thread (one per client), holding the GIL that
ctypes takes for it. Hooks must not block: a blocking :meth:`gatewire.Client.call` from a
hook raises :class:`gatewire.WouldDeadlock`. An exception raised by a hook never reaches
the library: it is logged on the ``gatewire`` logger and treated as documented per hook.
"""

from __future__ import annotations

import ctypes
import enum
import json as _json
from typing import Any, Callable, Union

from . import _exceptions, _native
from ._encoding import c_integer, c_text
from ._exceptions import CallError, ErrorKind, InvalidArgument

__all__ = ["AttemptInfo", "PreparedRequest", "FinalResult", "Plugin", "RetryVerdict", "RetryTest", "RetryAnswer", "FailureObserver"]


class _Borrowed:
    """A view of a borrowed native pointer, valid only during one callback."""

    __slots__ = ("_pointer", "_what")

    def __init__(self, pointer: int | None, what: str) -> None:
        self._pointer = pointer
        self._what = what

    def _live(self) -> int:
        if not self._pointer:
            raise RuntimeError(f"this {self._what} is only valid during the callback that received it")
        return self._pointer

    def _invalidate(self) -> None:
        self._pointer = None


class AttemptInfo(_Borrowed):
    """One attempt's outcome, as seen by a retry test or a plugin's ``did_receive``.

    ``number``, ``status``, ``error_kind`` and ``elapsed`` are copied when the object is made
    and stay readable; :meth:`header` reads the native attempt and works only during the
    callback (RuntimeError afterwards).

    Attributes:
        number: 1 for the first attempt (int).
        status: the HTTP status, 0 when no response arrived (int).
        error_kind: :class:`ErrorKind` (``ErrorKind.none`` when a response arrived).
        elapsed: seconds since the call started (float).
    """

    __slots__ = ("number", "status", "error_kind", "elapsed")

    def __init__(self, pointer: int | None) -> None:
        super().__init__(pointer, "AttemptInfo")
        native = _native.lib
        self.number = int(native.gw_attempt_number(pointer))
        self.status = int(native.gw_attempt_status(pointer))
        self.error_kind = ErrorKind.from_native(int(native.gw_attempt_error_kind(pointer)))
        self.elapsed = float(native.gw_attempt_elapsed(pointer))

    def header(self, name: str) -> str | None:
        """A response header of this attempt (case-insensitive), or None. Callback only.

        Raises:
            gatewire.InvalidArgument: ``name`` has a NUL character (C would end it there)."""
        return _native.decode(_native.lib.gw_attempt_header(self._live(), c_text(name, "name")))

    def __repr__(self) -> str:
        return (
            f"AttemptInfo(number={self.number}, status={self.status}, "
            f"error_kind={self.error_kind!s}, elapsed={self.elapsed:.3f})"
        )


class PreparedRequest(_Borrowed):
    """The request of one attempt, given to a plugin's ``prepare``; valid only during it.

    Changes (headers, URL) apply to this attempt only: every attempt is built afresh.
    """

    __slots__ = ()

    def __init__(self, pointer: int | None) -> None:
        super().__init__(pointer, "PreparedRequest")

    @property
    def method(self) -> str:
        """The method, e.g. ``"GET"``."""
        return _native.decode(_native.lib.gw_request_method(self._live())) or ""

    @property
    def url(self) -> str:
        """The absolute URL to be requested."""
        return _native.decode(_native.lib.gw_request_url(self._live())) or ""

    def header(self, name: str) -> str | None:
        """A request header (case-insensitive), or None.

        Raises:
            gatewire.InvalidArgument: ``name`` has a NUL character (C would end it there)."""
        return _native.decode(_native.lib.gw_request_header(self._live(), c_text(name, "name")))

    def set_header(self, name: str, value: str) -> None:
        """Set (replace) header ``name``.

        Raises:
            gatewire.InvalidArgument: a name that is not a token (RFC 9110 section 5.1:
                letters, digits and ``!#$%&'*+-.^_`|~``), a framing or connection field
                (Content-Length, Connection...), or a value with a control character other
                than HTAB (RFC 9110 section 5.5); the message names the header. Raised from
                :meth:`Plugin.prepare` it fails the call (PluginError) with that reason. A
                NUL character in either (C would end the text there) is refused here.
        """
        self._check(_native.lib.gw_request_set_header(self._live(), c_text(name, "name"), c_text(value, "value")))

    def remove_header(self, name: str) -> None:
        """Remove header ``name`` (no error if absent).

        Raises:
            gatewire.InvalidArgument: ``name`` has a NUL character (C would end it there)."""
        self._check(_native.lib.gw_request_set_header(self._live(), c_text(name, "name"), None))

    def set_url(self, url: str) -> None:
        """Replace the URL (absolute).

        Raises:
            gatewire.InvalidArgument: the library rejected the URL, or it has a NUL character.
        """
        self._check(_native.lib.gw_request_set_url(self._live(), c_text(url, "url")))

    @staticmethod
    def _check(status: int) -> None:
        if status != _native.GW_OK:
            _exceptions.raise_status(status)


class FinalResult(_Borrowed):
    """A call's final result, given to a plugin's ``process``; valid only during it.

    Read it (``ok``, ``status``, ``body``, :meth:`json`, :meth:`header`) and, to report an
    error that the API put in a 2xx body, :meth:`fail` it.
    """

    __slots__ = ()

    def __init__(self, pointer: int | None) -> None:
        super().__init__(pointer, "FinalResult")

    def _result(self) -> int | None:
        return _native.lib.gw_process_result(self._live())  # type: ignore[no-any-return]

    @property
    def ok(self) -> bool:
        """Whether the call succeeded (so far)."""
        return bool(_native.lib.gw_result_ok(self._result()))

    @property
    def status(self) -> int:
        """The final HTTP status, 0 when no response arrived."""
        return int(_native.lib.gw_result_status(self._result()))

    @property
    def body(self) -> bytes:
        """The final response body (b"" without one)."""
        length = ctypes.c_size_t()
        pointer = _native.lib.gw_result_body(self._result(), ctypes.byref(length))
        return _native.copy_bytes(pointer, length.value) if pointer else b""

    def json(self) -> Any:
        """The body parsed as JSON (json.loads); raises ValueError when it is not JSON."""
        return _json.loads(self.body.decode("utf-8"))

    def header(self, name: str) -> str | None:
        """A response header (case-insensitive), or None.

        Raises:
            gatewire.InvalidArgument: ``name`` has a NUL character (C would end it there)."""
        return _native.decode(_native.lib.gw_result_header(self._result(), c_text(name, "name")))

    def fail(self, message: str, kind: ErrorKind = ErrorKind.plugin, errors: list[Any] | None = None) -> None:
        """Make the call fail with ``kind`` and ``message`` (status and response are kept).

        Args:
            message: the failure's message.
            kind: the failure's kind (default ``ErrorKind.plugin``).
            errors: the failure's error objects, a list of JSON values (e.g. a GraphQL body's
                ``errors``, renamed as the caller expects): they reach the caller's
                :class:`gatewire.CallError` ``error_objects`` and the failure observers, as
                error descriptors' objects do. None (default): a success gets none, a failure
                keeps its own (``gw_process_fail_with_errors`` in include/gatewire.h).

        Raises:
            TypeError: ``errors`` is not a list, or holds a value ``json.dumps`` cannot write.
            ValueError: ``errors`` holds a NaN or an infinity (not JSON).
            gatewire.InvalidArgument: the library rejected the kind, or ``message`` has a NUL
                character (C would end it there).
        """
        if errors is not None and not isinstance(errors, list):
            raise TypeError(f"errors must be a list of JSON values, not {type(errors).__name__}")
        errors_json = None if errors is None else _json.dumps(errors, allow_nan=False).encode("utf-8")
        _exceptions.check(_native.lib.gw_process_fail_with_errors(self._live(), c_integer(kind, "kind", "int32_t"),
                                                              c_text(message, "message"), errors_json))


class Plugin:
    """Base class of plugins: per-client hooks run for every attempt of every call.

    Override any of the four hooks below; the defaults do nothing. A plugin instance is kept
    alive by its client until the client is closed.

    * :meth:`prepare` runs before each attempt is sent, plugins in registration order
      (after the config's own plugins). Raising fails the call with
      :class:`gatewire.PluginError` and nothing is sent; the exception is logged and its
      ``f"{type(exc).__name__}: {exc}"`` is the error's reason (``gw_request_fail``), e.g.
      ``plugin Signer failed: RuntimeError: signer broke``.
    * :meth:`will_send` sees each attempt's request as sent (after every ``prepare``),
      registration order. Exceptions are logged and ignored.
    * :meth:`did_receive` sees each attempt's outcome, plugins in reverse order (an onion).
      Exceptions are logged and ignored.
    * :meth:`process` sees the call's final result once, reverse order, before the failure
      observers and the completion; it may :meth:`FinalResult.fail` it. Exceptions are logged
      and ignored.

    All four run on the client's event-loop thread and must not block.

    Attributes:
        name: shown in the library's messages (default: the class name).
    """

    name: str | None = None

    def prepare(self, request: PreparedRequest) -> None:
        """Adapt ``request`` (headers, URL) before it is sent. Raise to fail the call
        (:class:`gatewire.PluginError` whose message ends with ``TypeName: message``)."""

    def did_receive(self, attempt: AttemptInfo) -> None:
        """Observe one attempt's outcome."""

    def will_send(self, request: PreparedRequest) -> None:
        """Observe one attempt's request as it is sent (read only)."""

    def process(self, result: FinalResult) -> None:
        """See (and possibly fail) the call's final result."""


class RetryVerdict(enum.IntEnum):
    """Explicit answers of a retry test (the C ``GW_RETRY_*`` values)."""

    USE_POLICY = _native.GW_RETRY_USE_POLICY  #: let the client's retry policy decide
    RETRY = _native.GW_RETRY_RETRY  #: retry (within max_retries) after the policy's delay
    STOP = _native.GW_RETRY_STOP  #: stop and report this attempt's outcome


#: What a retry test may return (see :data:`RetryTest`).
RetryAnswer = Union[bool, float, int, RetryVerdict, None]

#: ``retry_test(attempt) -> answer``, asked once per failed attempt:
#:
#: * ``None`` or ``RetryVerdict.USE_POLICY``: the client's retry policy decides;
#: * ``True`` or ``RetryVerdict.RETRY``: retry (within ``max_retries``) after the policy's delay;
#: * a number (int or float, not bool) ``>= 0``: retry after that many seconds, capped at the
#:   policy's ``maxDelay`` (``float("inf")`` too); a delay past the call's deadline fails the
#:   call at once with :class:`Timeout` (kind ``deadline``), as the policy's own delays do;
#: * ``False`` or ``RetryVerdict.STOP``: stop and report this attempt's outcome.
#:
#: An exception raised by the test is logged and counts as ``None``.
RetryTest = Callable[[AttemptInfo], RetryAnswer]


def retry_verdict(answer: RetryAnswer) -> tuple[int, float]:
    """Translate a retry test's answer into ``(GW_RETRY_*, delay)``; delay -1 = the policy's.

    Raises:
        InvalidArgument: a negative delay or an answer of another type.
    """
    if answer is None:
        return _native.GW_RETRY_USE_POLICY, -1.0
    if isinstance(answer, RetryVerdict):
        return int(answer), -1.0
    if isinstance(answer, bool):
        return (_native.GW_RETRY_RETRY if answer else _native.GW_RETRY_STOP), -1.0
    if isinstance(answer, (int, float)):
        if not answer >= 0:  # also rejects NaN
            raise InvalidArgument(f"a retry delay must be >= 0 seconds, got {answer!r}")
        return _native.GW_RETRY_RETRY, float(answer)
    raise InvalidArgument(f"a retry test must return None, a bool, a number or a RetryVerdict, got {answer!r}")


#: ``observer(error)``: called once per failed call, on the client's loop thread, with the
#: call's :class:`~gatewire.CallError` (see :meth:`gatewire.Client.add_failure_observer`).
FailureObserver = Callable[[CallError], None]
