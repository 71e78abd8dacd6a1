"""Results of calls: :class:`Result` (success), :class:`Attempt` (history) and the conversion
of a native ``gw_result`` into a Result or a :class:`gatewire.CallError`."""

from __future__ import annotations

import datetime

import json as _json
import sys
from typing import Any, Callable, TypeVar, cast

from . import _native
from ._exceptions import ErrorKind, GatewireError, HTTPStatusError, MappingError
from ._types import JSON
from ._models import Attempt, Headers, first_header

__all__ = ["Attempt", "Result"]


_UNSET: Any = object()


class Result:
    """The outcome of a successful call, or with ``accept_any_status=True`` of a call whose
    final status the core did not accept (then :attr:`ok` is False and
    :meth:`raise_for_status` raises the call's :class:`HTTPStatusError`). Immutable; safe to
    share between threads.

    A Result stays fully usable for as long as it is kept, on any thread. Those of
    :meth:`Client.call` and :meth:`Client.call_async` copy everything out of the native result
    when made (it is freed then); those of :meth:`Client.call_many` keep the native result
    and read its texts on first access (the library's readers are thread-safe), freeing it
    when the Result goes. Either way the texts (headers, attempts, mapped objects, metadata)
    are decoded on first access, once, so a caller pays only for what it reads.

    Attributes:
        status: the final HTTP status (int).
        body: the final response body, decoded from any content encoding (bytes).
        method: the method sent, e.g. ``"GET"``.
        path: the path sent, relative to the base URL, with its query; secret query values
            are ``<redacted>`` (README "Secrets"), as in ``repr`` and :class:`CallError`.
        mapped: the mapped objects keyed by descriptor key path (``""`` for the root), parsed
            from ``gw_result_mapped_json``; None when no descriptor matched (or the body was
            empty), ``{}`` when descriptors matched but found nothing at their key paths.
        attempts: the attempt history, oldest first (tuple of :class:`Attempt`).
        headers: every header field of the final response in received order, a
            :class:`Headers`: a tuple of ``(name, value)`` str pairs (repeated fields once per
            occurrence) that also answers by name, case-insensitive, as ``httpx.Headers``:
            ``result.headers["Content-Type"]``, ``.get()``, ``.get_list()``. The plain tuple
            is :attr:`raw_headers`.
        metadata: the response metadata the mappings saw as ``@metadata`` (``{"method", "url",
            "path", "status", "headers", "pathParameters", "query"}``), redacted as ``path``
            is (the url without userinfo, secret header values masked too), or None when no
            descriptor matched.
        from_cache: whether the response came from the client's HTTP cache (``cache=`` or
            the config's ``cache``): a fresh stored one (no request was sent: ``attempts`` is
            empty) or one a 304 confirmed (:attr:`revalidated`); mapped as when it arrived.
        revalidated: whether the server confirmed the stored response with a 304 (the last
            attempt's status is 304; ``status`` and ``body`` are the stored response's).
        shared_state_local: whether a decision of the call's circuit breaker or rate limit
            shared through the config's ``sharedState`` (an attempt's admission, or the
            recording of its outcome) was made in process because the store was failing: an
            error, or no answer within its ``timeout`` (``gw_result_shared_state_local``;
            docs/fleet.md "When Redis fails"). The call was still guarded, by this client's
            counts only. False without ``sharedState``.
    """

    __slots__ = ("_status", "_body", "_method", "_path", "_url", "_mapped", "_attempts", "_headers", "_metadata", "_raw",
                 "_error", "_cache", "__weakref__")

    def __init__(
        self,
        status: int,
        body: bytes,
        method: str,
        path: str,
        mapped: dict[str, Any] | None,
        attempts: tuple[Attempt, ...],
        headers: tuple[tuple[str, str], ...] = (),
        metadata: dict[str, Any] | None = None,
        url: str = "",
    ) -> None:
        self._raw: Any = None  # a reader (gatewire._reader); unused: every field is set
        self._error: HTTPStatusError | None = None
        self._cache = _native.GW_CACHE_NETWORK
        self._status = status
        self._body = body
        self._method = method
        self._path = path
        self._url = url
        self._mapped = mapped
        self._attempts = attempts
        self._headers = headers
        self._metadata = metadata

    @classmethod
    def _from_reader(cls, status: int, cache: int, body: bytes, raw: Any) -> Result:
        """The Result of a successful native result (:func:`gatewire._reader.read`): status,
        cache state and body now; ``raw`` (a reader that owns the native result) serves the
        other fields on first access, and frees the native result when the Result goes."""
        self = object.__new__(cls)
        setter = object.__setattr__
        setter(self, "_error", None)
        setter(self, "_status", status)
        setter(self, "_cache", cache)
        setter(self, "_body", body)
        setter(self, "_raw", raw)
        for name in ("_method", "_path", "_mapped", "_attempts", "_headers", "_metadata", "_url"):
            setter(self, name, _UNSET)
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        if not name.startswith("_"):
            raise AttributeError(f"cannot assign to field {name!r}: a Result is immutable")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: a Result is immutable")

    @property
    def status(self) -> int:
        return self._status

    @property
    def body(self) -> bytes:
        return self._body

    @property
    def from_cache(self) -> bool:
        return self._cache != _native.GW_CACHE_NETWORK

    @property
    def revalidated(self) -> bool:
        return self._cache == _native.GW_CACHE_REVALIDATED

    @property
    def shared_state_local(self) -> bool:
        if self._error is not None:
            return bool(self._error.shared_state_local)
        raw = self._raw
        if raw is None:
            return False
        if raw.pointer:
            return bool(_native.lib.gw_result_shared_state_local(raw.pointer))
        return bool(raw.shared_state_local)  # a copy (the native result is freed) keeps what it read

    @property
    def method(self) -> str:
        value = self._method
        if value is _UNSET:
            value = self._method = _native.decode(self._raw["method"]) or ""
        return value

    @property
    def path(self) -> str:
        value = self._path
        if value is _UNSET:
            value = self._path = _native.decode(self._raw["path"]) or ""
        return value

    @property
    def mapped(self) -> dict[str, Any] | None:
        value = self._mapped
        if value is _UNSET:
            value = self._mapped = self._tree("mapped objects", None, self._raw.mapped)
        return value

    @property
    def attempts(self) -> tuple[Attempt, ...]:
        value = self._attempts
        if value is _UNSET:
            value = self._attempts = parse_attempts(self._raw["attempts"])
        return value

    @property
    def headers(self) -> Headers:
        value = self._headers
        if value is _UNSET:
            value = self._headers = Headers(parse_headers(self._raw["headers"]))
        elif type(value) is not Headers:
            value = self._headers = Headers(value)
        return value

    @property
    def raw_headers(self) -> tuple[tuple[str, str], ...]:
        """The header fields as a plain tuple of ``(name, value)`` str pairs in received order
        (what :attr:`headers` holds; ``httpx.Response.headers.raw``'s role)."""
        return self.headers.raw

    @property
    def url(self) -> str:
        """The absolute URL the final response came from (str; requests' and httpx's
        ``Response.url``): the call's, or after redirects the last hop's, with secret query
        values and userinfo redacted as in :attr:`path`; "" for a Result that
        ``accept_any_status`` made of a failed call (its :attr:`path` says what was called)."""
        value = self._url
        if value is _UNSET:
            value = self._url = _native.decode(self._raw["url"]) or ""
        return value

    @property
    def elapsed(self) -> datetime.timedelta:
        """How long the call took, from its start to its final response read, every attempt
        and retry delay included (a :class:`datetime.timedelta`, as requests' and httpx's
        ``Response.elapsed``, which time one request: the last attempt's own time is
        ``attempts[-1].duration``, in seconds); zero for a fresh answer of the HTTP cache."""
        last = self.attempts[-1] if self.attempts else None
        return datetime.timedelta(seconds=last.start + last.duration if last else 0.0)

    @property
    def status_code(self) -> int:
        """The final HTTP status (int): :attr:`status` under requests' and httpx's name."""
        return self._status

    @property
    def content(self) -> bytes:
        """The body (bytes, decoded from any content encoding): :attr:`body` under requests'
        and httpx's name."""
        return self._body

    @property
    def metadata(self) -> dict[str, Any] | None:
        value = self._metadata
        if value is _UNSET:
            value = self._metadata = self._tree("metadata", self._raw["metadata"])
        return value

    def _tree(self, what: str, text: bytes | None, build: Callable[[], Any] | None = None) -> Any:
        """``text`` parsed with :func:`json.loads`, or what ``build`` makes (the extension's
        walk of the native tree, which stops at the same depth). The core accepts trees
        nested up to 2,048 levels (Jansson's parser limit) while :mod:`json` recurses once a
        level and stops at the interpreter's recursion limit (about 1,000): such a tree raises
        this binding's MappingError (kind ``mapping``, this result's status, path and
        attempts), not a bare RecursionError."""
        try:
            return build() if build is not None else loads(text)
        except RecursionError:
            raise too_deep(what, status=self.status, attempts=self.attempts, body=self.body, method=self.method,
                            path=self.path, headers=self.headers) from None

    @classmethod
    def _from_status_error(cls, error: HTTPStatusError) -> Result:
        """The Result of a call that ``accept_any_status`` let through: the response of
        ``error``, which :meth:`raise_for_status` raises."""
        self = cls(error.status, error.body, error.method, error.path, None, error.attempts, error.headers)
        self._error = error
        return self

    @property
    def ok(self) -> bool:
        """True for a status the core accepted (every success); False only for a Result of
        ``accept_any_status=True`` whose status the core did not accept (a 4xx or 5xx that no
        response descriptor accepts)."""
        return self._error is None

    def raise_for_status(self) -> Result:
        """Raise :class:`HTTPStatusError` for a 4xx or 5xx status, as
        ``httpx.Response.raise_for_status`` and ``requests``' do; else return this Result, for
        chaining (``data = (await client.get(path, accept_any_status=True)).raise_for_status().json()``).
        A 4xx or 5xx reaches a Result only through ``accept_any_status=True`` (the core accepts
        no such status), so this is the case where :attr:`ok` is False.

        Raises:
            HTTPStatusError: the error the call would have raised without
                ``accept_any_status`` (status, body, headers, attempts, error objects).
        """
        if self._error is not None:
            raise self._error
        return self

    @property
    def text(self) -> str:
        """The body decoded as UTF-8 (invalid bytes replaced)."""
        return self.body.decode("utf-8", "replace")

    def json(self) -> JSON:
        """The body parsed as JSON with :func:`json.loads`, on every call, whatever its
        Content-Type (as ``requests``' ``Response.json()``). The call itself parses a body only
        for a matching response descriptor (or a page or cursor paginator), so a 2xx with
        invalid JSON and no descriptor is a Result, and this is where it shows.

        Raises:
            json.JSONDecodeError: the body is not JSON (a ``ValueError``; line and column in
                its message).
        """
        return cast(JSON, _json.loads(self.body))

    def all(self, key_path: str = "") -> list[Any]:
        """Every object mapped at ``key_path`` (a descriptor's key path as written, ``""``
        for the whole body): an array's elements, or the one object; [] when none."""
        value = (self.mapped or {}).get(key_path)
        if value is None and key_path not in (self.mapped or {}):
            return []
        return list(value) if isinstance(value, list) else [value]

    def first(self, key_path: str = "") -> Any:
        """The first object mapped at ``key_path``, or None."""
        objects = self.all(key_path)
        return objects[0] if objects else None

    def count(self, key_path: str | None = None) -> int:
        """The number of objects mapped at ``key_path`` (None: over every key path)."""
        if key_path is None:
            return sum(len(self.all(key)) for key in (self.mapped or {}))
        return len(self.all(key_path))

    def header(self, name: str) -> str | None:
        """The first value of response header ``name`` (case-insensitive), or None."""
        return first_header(self.headers, name)

    def __repr__(self) -> str:
        return f"<Result {self.method} {self.path} {self.status} ({len(self.body)} bytes, {len(self.attempts)} attempts)>"


def too_deep(what: str, **fields: Any) -> MappingError:
    """The MappingError for a tree Python cannot build (see :meth:`Result._tree`)."""
    return MappingError(
        f"the {what} are nested too deeply to build in Python (its recursion limit is "
        f"{sys.getrecursionlimit()}; Gatewire accepts up to 2048 levels): map a shallower key path",
        kind=ErrorKind.mapping, **fields)


def loads(text: bytes | None) -> Any:
    """The library's JSON text parsed (invalid UTF-8 replaced), or None for NULL."""
    return None if text is None else _json.loads(text.decode("utf-8", "replace"))


def parse_attempts(text: bytes | None) -> tuple[Attempt, ...]:
    """``gw_result_attempts_json``'s text as Attempts, oldest first."""
    return tuple(Attempt.from_json(item) for item in loads(text) or [])


def parse_headers(text: bytes | None) -> tuple[tuple[str, str], ...]:
    """``gw_result_headers_json``'s text as ``(name, value)`` pairs in received order."""
    return tuple((str(name), str(value)) for name, value in loads(text) or [])


_Failure = TypeVar("_Failure", bound=GatewireError)


def accepted(outcome: Result | _Failure, accept_any_status: bool) -> Result | _Failure:
    """``outcome`` as the caller asked for it: with ``accept_any_status``, an
    :class:`HTTPStatusError` (a status the core did not accept) becomes a Result whose
    :meth:`Result.raise_for_status` raises it; anything else is returned as it is."""
    if accept_any_status and isinstance(outcome, HTTPStatusError):
        return Result._from_status_error(outcome)
    return outcome
