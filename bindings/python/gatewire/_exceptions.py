"""Exceptions raised by gatewire, in one hierarchy (as requests' ``RequestException``).

::

    GatewireError                  a gw_ function returned a non-zero status
    ├── InvalidArgument            GW_ERROR_INVALID_ARGUMENT (also a ValueError)
    ├── ConfigError                GW_ERROR_CONFIG: the message names the field (also a ValueError)
    ├── WouldDeadlock              GW_ERROR_WOULD_DEADLOCK: blocking call on the loop thread
    ├── VersionError               GW_ERROR_VERSION
    └── CallError                  GW_ERROR_CALL_FAILED: a call ran and failed; .kind says why
        ├── ConnectionFailed       kind connect, dns, network (no usable response)
        │   ├── TLSError           kind tls
        │   └── ProtocolError      kind protocol (the reply was not valid HTTP)
        ├── Timeout                kind timeout, deadline
        ├── HTTPStatusError        kind http_status (a 4xx/5xx the descriptors do not accept)
        ├── MappingError           kind mapping
        ├── Cancelled              kind cancelled (also a concurrent.futures.CancelledError)
        ├── PluginError            kind plugin
        ├── CircuitOpen            kind circuit_open (the host's circuit breaker is open)
        ├── ResponseTooLarge       kind response_too_large (the body passed max_response_bytes)
        ├── RedirectError          kind redirect (a redirect the redirect policy refused)
        ├── RateLimited            kind rate_limited (the host's or route's rate limit refused it)
        └── InvalidRequest         kind invalid_argument (also an InvalidArgument)
"""

from __future__ import annotations

import concurrent.futures
import enum
import re
from typing import Any, Iterable, NoReturn

from . import _native
from ._models import Attempt, Headers, Response, first_header


__all__ = [
    "ErrorKind",
    "GatewireError",
    "InvalidArgument",
    "ConfigError",
    "WouldDeadlock",
    "VersionError",
    "CallError",
    "ConnectionFailed",
    "TLSError",
    "ProtocolError",
    "Timeout",
    "HTTPStatusError",
    "MappingError",
    "Cancelled",
    "PluginError",
    "CircuitOpen",
    "ResponseTooLarge",
    "RedirectError",
    "RateLimited",
    "AuthError",
    "InvalidRequest",
]


class ErrorKind(enum.IntEnum):
    """Why a call failed: the C ``GW_KIND_*`` numbers.

    ``kind.name`` is the snake_case name of ``gw_result_error_kind_name`` (``"http_status"``);
    upper-case aliases (``ErrorKind.HTTP_STATUS``) name the same members. Type checkers see
    the members as declared here, so typed code uses the snake_case names.
    """

    # The members, declared so that type checkers know them (mypy --strict)...
    none = _native.GW_KIND_NONE
    connect = _native.GW_KIND_CONNECT
    dns = _native.GW_KIND_DNS
    tls = _native.GW_KIND_TLS
    timeout = _native.GW_KIND_TIMEOUT
    network = _native.GW_KIND_NETWORK
    http_status = _native.GW_KIND_HTTP_STATUS
    mapping = _native.GW_KIND_MAPPING
    cancelled = _native.GW_KIND_CANCELLED
    deadline = _native.GW_KIND_DEADLINE
    invalid_argument = _native.GW_KIND_INVALID_ARGUMENT
    plugin = _native.GW_KIND_PLUGIN
    circuit_open = _native.GW_KIND_CIRCUIT_OPEN
    auth = _native.GW_KIND_AUTH
    protocol = _native.GW_KIND_PROTOCOL
    response_too_large = _native.GW_KIND_RESPONSE_TOO_LARGE
    redirect = _native.GW_KIND_REDIRECT
    rate_limited = _native.GW_KIND_RATE_LIMITED
    # ...then their PEP 8 constant-style aliases, made from them (a second name for a value is
    # an alias, so `.name` stays the snake_case name).
    _ignore_ = ["_members", "_name"]
    _members = vars()
    for _name in [key for key in _members if not key.startswith("_")]:
        _members[_name.upper()] = _members[_name]

    def __str__(self) -> str:
        return self.name

    @classmethod
    def from_native(cls, value: int) -> ErrorKind | int:
        """The member for ``value``, or the plain int if this binding does not know it yet."""
        try:
            return cls(value)
        except ValueError:
            return value


class GatewireError(Exception):
    """A ``gw_`` function returned a non-zero status.

    Attributes:
        code: the ``GW_ERROR_*`` status code (int).
        message: ``gw_last_error_message()`` at the time of the failure, or for a
            :class:`CallError` the result's ``gw_result_error_message()`` (str).
    """

    code: int = 0

    def __init__(self, message: str, *, code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class InvalidArgument(GatewireError, ValueError):
    """A NULL, a bad value or malformed JSON was passed (``GW_ERROR_INVALID_ARGUMENT``)."""

    code = _native.GW_ERROR_INVALID_ARGUMENT


class ConfigError(GatewireError, ValueError):
    """The gateway config is invalid (``GW_ERROR_CONFIG``).

    The message names the field (``"retry.maxRetries: ..."``) or, for invalid JSON, the line
    and column.
    """

    code = _native.GW_ERROR_CONFIG


class WouldDeadlock(GatewireError, RuntimeError):
    """A blocking call was made on the client's own event-loop thread, i.e. from inside a
    completion, observer, retry test or plugin hook (``GW_ERROR_WOULD_DEADLOCK``).
    Nothing was sent. Use :meth:`gatewire.Client.call_async` there instead."""

    code = _native.GW_ERROR_WOULD_DEADLOCK


class VersionError(GatewireError):
    """An options struct or plugin has a version the library does not support (``GW_ERROR_VERSION``)."""

    code = _native.GW_ERROR_VERSION


class CallError(GatewireError):
    """A call ran and failed (``GW_ERROR_CALL_FAILED``); a subclass per :class:`ErrorKind`.

    Attributes:
        kind: why it failed (:class:`ErrorKind`).
        status: the final HTTP status, 0 when no response arrived (int).
        message: a message for people; never contains credentials (str).
        error_objects: what the error descriptors mapped from the body (a list parsed from
            JSON), or None.
        attempts: the attempt history (tuple of :class:`gatewire.Attempt`).
        body: the final response body (bytes; ``b""`` without a response).
        method: the method sent, e.g. ``"GET"`` (str).
        path: the path sent, relative to the base URL, with its query; the values of secret
            query parameters are ``<redacted>`` (the core's one rule: README "Secrets") (str).
        retry_after: for kind ``rate_limited``, the seconds until the limit frees a slot or
            its ``Retry-After`` pause ends (float); else None.
        shared_state_local: whether a decision of the call's circuit breaker or rate limit
            shared through the config's ``sharedState`` was made in process because the store
            was failing (``gw_result_shared_state_local``; docs/fleet.md): the call was still
            guarded, by this client's counts only (bool; False without ``sharedState``).

    The final response's header fields are :attr:`headers` and :meth:`header`. Everything is copied out of the native result when the error is made, so an error stays
    fully usable for as long as it is kept, on any thread: also one given to a failure
    observer, after the observer returned.
    """

    code = _native.GW_ERROR_CALL_FAILED

    def __init__(
        self,
        message: str,
        *,
        kind: ErrorKind | int,
        status: int = 0,
        error_objects: list[Any] | None = None,
        attempts: tuple[Attempt, ...] = (),
        body: bytes = b"",
        method: str = "",
        path: str = "",
        headers: Iterable[tuple[str, str]] = (),
        retry_after: float | None = None,
        shared_state_local: bool = False,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.error_objects = error_objects
        self.attempts = attempts
        self.body = body
        self.method = method
        self.path = path
        self.retry_after = retry_after
        self.shared_state_local = shared_state_local
        self._headers = Headers((str(n), str(v)) for n, v in headers)

    @property
    def headers(self) -> Headers:
        """Every header field of the final response in received order, a :class:`Headers`
        (a read-only tuple of ``(name, value)`` str pairs that also answers by name,
        case-insensitive: ``error.headers["Retry-After"]``; empty without a response)."""
        return self._headers

    @property
    def body_preview(self) -> str:
        """The body as text (invalid UTF-8 replaced), cut to 200 characters plus ``"..."``
        when longer."""
        text = self.body[:800].decode("utf-8", "replace")
        return text if len(text) <= 200 else text[:200] + "..."

    @property
    def response(self) -> Response | None:
        """The final response (status, headers, body) as a :class:`gatewire.Response`, or
        None when no response arrived (``status`` 0: connect, dns, tls, timeout, network,
        deadline, cancelled, or a call refused before sending)."""
        if not self.status:
            return None
        return Response(self.status, self._headers, self.body)

    def header(self, name: str) -> str | None:
        """The first value of the final response's header ``name`` (case-insensitive), or None
        (also without a response)."""
        return first_header(self._headers, name)

    def __str__(self) -> str:
        where = f"{self.method} {self.path}".strip()
        status = f" (status {self.status})" if self.status else ""
        kind = getattr(self.kind, "name", self.kind)
        return f"{where}: {kind}{status}: {self.message}" if where else f"{kind}{status}: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(kind={self.kind!s}, status={self.status}, message={self.message!r})"

    def __reduce__(self) -> Any:
        # Keep exceptions picklable (e.g. across processes): every attribute is plain data.
        return (_rebuild_call_error, (type(self), self.message, self.kind), dict(self.__dict__))


def _rebuild_call_error(cls: type[CallError], message: str, kind: ErrorKind | int) -> CallError:
    return cls(message, kind=kind)


class ConnectionFailed(CallError):
    """No usable response: the connection was refused or unreachable (``connect``), the host
    name did not resolve (``dns``), or the exchange broke (``network``). ``status`` is 0."""


class TLSError(ConnectionFailed):
    """The TLS handshake or certificate verification failed (kind ``tls``)."""


class ProtocolError(ConnectionFailed):
    """The server's reply broke HTTP (kind ``protocol``): not an HTTP response at all, or a
    malformed status line or header section. ``status`` is 0."""


class Timeout(CallError):
    """An attempt timed out once its request had begun to go out, on a new or a kept-alive
    connection, so the server may have seen it (``timeout``; a timeout before that is
    ``connect``), or the call's overall deadline passed (``deadline``)."""


class HTTPStatusError(CallError):
    """A response arrived whose status is not accepted (every 4xx and 5xx unless a response
    descriptor accepts it). ``status``, ``body`` and ``error_objects`` describe it."""


class MappingError(CallError):
    """The response body that a matching response descriptor maps, or that a page or cursor
    paginator reads, could not be parsed (the message gives the line and column) or mapped
    (it names the key path). Other bodies are not parsed by the call: :meth:`Result.json`
    parses one when asked."""


class Cancelled(CallError, concurrent.futures.CancelledError):
    """The call was cancelled by the caller (:meth:`gatewire.CallFuture.cancel`), or its client
    was closed while it ran."""


class PluginError(CallError):
    """A plugin's ``prepare`` hook failed; nothing was sent."""


class CircuitOpen(CallError):
    """The host's circuit breaker is open after too many recent failures (kind
    ``circuit_open``): nothing, or no further retry, was sent. ``status`` is 0, or the last
    attempt's status when the breaker refused a retry."""


class RateLimited(CallError):
    """The host's or route's rate limit (config ``rateLimit``) refused the attempt (kind
    ``rate_limited``): waiting for its slot, or for the end of a ``Retry-After`` pause, was
    off (``"wait": false``) or would pass the call's deadline. Nothing, or no further retry,
    was sent; :attr:`retry_after` (seconds, float) says when a slot frees."""


class ResponseTooLarge(CallError):
    """The response body grew past the call's ``max_response_bytes`` (its decoded size; kind
    ``response_too_large``): the transfer was aborted when it crossed the limit."""


class RedirectError(CallError):
    """A redirect the redirect policy refused (kind ``redirect``): too many hops, https to
    http, a body that would be re-sent to another origin, another origin under
    ``"sameOrigin"``, or following is off (and no response descriptor accepts its status).
    ``status`` and ``headers`` are the redirect's (its ``Location`` included); the message
    says why (see the README's "Redirects")."""


class AuthError(CallError):
    """A 401 and the refreshing credential could not be refreshed (kind ``auth``, status 401)."""


class InvalidRequest(CallError, InvalidArgument):
    """The call could not be built: unknown route, missing path parameter, bad URL or body
    (kind ``invalid_argument``)."""

    code = _native.GW_ERROR_CALL_FAILED


_STATUS_ERRORS: dict[int, type[GatewireError]] = {
    _native.GW_ERROR_INVALID_ARGUMENT: InvalidArgument,
    _native.GW_ERROR_CONFIG: ConfigError,
    _native.GW_ERROR_WOULD_DEADLOCK: WouldDeadlock,
    _native.GW_ERROR_VERSION: VersionError,
}

_KIND_ERRORS: dict[int, type[CallError]] = {
    ErrorKind.connect: ConnectionFailed,
    ErrorKind.dns: ConnectionFailed,
    ErrorKind.network: ConnectionFailed,
    ErrorKind.tls: TLSError,
    ErrorKind.timeout: Timeout,
    ErrorKind.deadline: Timeout,
    ErrorKind.http_status: HTTPStatusError,
    ErrorKind.mapping: MappingError,
    ErrorKind.cancelled: Cancelled,
    ErrorKind.plugin: PluginError,
    ErrorKind.circuit_open: CircuitOpen,
    ErrorKind.auth: AuthError,
    ErrorKind.protocol: ProtocolError,
    ErrorKind.response_too_large: ResponseTooLarge,
    ErrorKind.redirect: RedirectError,
    ErrorKind.rate_limited: RateLimited,
    ErrorKind.invalid_argument: InvalidRequest,
}


#: The fields of the library's call options that the binding fills from a Python keyword,
#: named as the caller wrote them: the library's reader names the C field
#: (``policy_json.redirects.max: 99 is out of range``), a Python caller passed ``redirects=``.
_KEYWORDS = {"policy_json.redirects": "redirects", "policy_json.maxResponseBytes": "max_response_bytes",
             "policy_json": "policy", "params_json": "params", "headers_json": "headers", "body_json": "json",
             "form_json": "data", "body": "content", "download_path": "download"}
_C_FIELD = re.compile(r"\b(" + "|".join(re.escape(name) for name in _KEYWORDS) + r")\b(?![_\w])")


def python_names(message: str) -> str:
    """``message`` with the C fields its head names (the text before the first ``": "``)
    written as the Python keywords they came from: ``body_json and form_json: set at most
    one body`` -> ``json and data: ...``. The rest of the message is kept as it is."""
    head, separator, rest = message.partition(": ")
    if not separator:
        return message
    return _C_FIELD.sub(lambda match: _KEYWORDS[match.group(1)], head) + separator + rest


def status_error(status: int, message: str) -> GatewireError:
    """The exception for a non-zero ``gw_`` status code (CallError needs a result: see
    :func:`gatewire._result.result_from_native`); an invalid argument's message names the
    Python keyword (:func:`python_names`)."""
    cls = _STATUS_ERRORS.get(status, GatewireError)
    text = message or f"gatewire status {status}"
    if status == _native.GW_ERROR_INVALID_ARGUMENT:
        text = python_names(text)
    return cls(text, code=status)


def call_error_class(kind: ErrorKind | int) -> type[CallError]:
    """The :class:`CallError` subclass for ``kind`` (CallError itself for an unknown kind)."""
    return _KIND_ERRORS.get(int(kind), CallError)


def raise_status(status: int, message: str | None = None) -> NoReturn:
    """Raise the exception of this module for a non-zero ``gw_`` status code
    (:func:`status_error`).

    ``message`` defaults to ``gw_last_error_message()``: call this on the thread that made the
    failing call, before any other ``gw_`` call can fail there.
    """
    if message is None:
        message = _native.last_error_message()
    raise status_error(status, message)


def check(status: int) -> None:
    """Return if ``status`` is ``GW_OK``, else raise the matching exception (see :func:`raise_status`)."""
    if status != _native.GW_OK:
        raise_status(status)
