"""The plain data of a call's outcome (private; public names come from :mod:`gatewire`): the
final HTTP response of a failed call (:class:`Response`, :attr:`gatewire.CallError.response`)
and one attempt of a call (:class:`Attempt`). No native calls, no exceptions: the modules
above build these."""

from __future__ import annotations

import json as _json
from dataclasses import dataclass, field
from typing import Any, Iterable, SupportsIndex, cast, overload

from ._types import JSON

__all__ = ["Attempt", "Headers", "Response"]


def first_header(headers: Iterable[tuple[str, str]], name: str) -> str | None:
    """The first value of header ``name`` (case-insensitive, RFC 9110 section 5.1) among
    ``(name, value)`` pairs, or None."""
    key = name.lower()
    for field_name, value in headers:
        if field_name.lower() == key:
            return value
    return None


class Headers(tuple[tuple[str, str], ...]):
    """The header fields of a response: a tuple of ``(name, value)`` str pairs in received
    order (a repeated field once per occurrence), that also answers by name as
    ``httpx.Headers`` and ``requests``' ``CaseInsensitiveDict`` do: field names are
    case-insensitive (RFC 9110 section 5.1).

    * ``headers["Content-Type"]``: the field's value; several occurrences are joined with
      ``", "`` (RFC 9110 section 5.3, as httpx); KeyError when absent. An int or a slice
      indexes the pairs as a tuple would (``headers[0]`` is the first pair).
    * ``headers.get(name, default=None)``: the same, or ``default``.
    * ``headers.get_list(name)`` (also ``getlist``, urllib3's name): every value of the field
      in received order, ``[]`` when absent; ``Set-Cookie`` is read this way, never joined.
    * ``"content-type" in headers``: whether the field is there; a pair ``(name, value)`` is
      looked for as a tuple would (exact match).
    * iteration, ``len()``, ``==``: those of the tuple of pairs; ``keys()`` the field names
      in order of first appearance, as received; ``values()`` and ``items()`` one joined value
      (or pair) per field name, as httpx's ``Headers``; ``multi_items()`` every pair.

    Immutable; a plain tuple of the pairs is :attr:`raw`.
    """

    __slots__ = ()

    @property
    def raw(self) -> tuple[tuple[str, str], ...]:
        """The pairs as a plain tuple."""
        return tuple(self)

    def get_list(self, name: str) -> list[str]:
        """Every value of field ``name`` (case-insensitive) in received order; ``[]`` if absent."""
        key = name.lower()
        return [value for field, value in tuple.__iter__(self) if field.lower() == key]

    getlist = get_list

    def get(self, name: str, default: str | None = None) -> str | None:
        """The value of field ``name`` (its values joined with ``", "``), or ``default``."""
        values = self.get_list(name)
        return ", ".join(values) if values else default

    @overload
    def __getitem__(self, key: str) -> str: ...
    @overload
    def __getitem__(self, key: SupportsIndex) -> tuple[str, str]: ...
    @overload
    def __getitem__(self, key: slice) -> tuple[tuple[str, str], ...]: ...

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            value = self.get(key)
            if value is None:
                raise KeyError(key)
            return value
        return tuple.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            return bool(self.get_list(key))
        return tuple.__contains__(self, key)

    def keys(self) -> list[str]:
        """The field names in order of first appearance (as received; one per field)."""
        seen: dict[str, str] = {}
        for name, _ in tuple.__iter__(self):
            seen.setdefault(name.lower(), name)
        return list(seen.values())

    def values(self) -> list[str]:
        """One value per field name (``keys()``' order), several joined with ``", "``."""
        return [self[name] for name in self.keys()]

    def items(self) -> list[tuple[str, str]]:
        """``(name, value)`` per field name (``keys()``' order), values joined with ``", "``."""
        return [(name, self[name]) for name in self.keys()]

    def multi_items(self) -> list[tuple[str, str]]:
        """Every ``(name, value)`` pair in received order (httpx's name)."""
        return list(self)


@dataclass(frozen=True)
class Response:
    """The response a failed call received last (``httpx``'s ``HTTPStatusError.response``).
    Immutable; a copy, usable on any thread for as long as it is kept.

    Attributes:
        status: the HTTP status (int, 100...599).
        headers: every header field in received order, a :class:`Headers` (a tuple of
            ``(name, value)`` str pairs, repeated fields once per occurrence, that also answers
            by name: ``response.headers["Content-Type"]``).
        body: the body, decoded from any content encoding (bytes; ``b""`` for none).
    """

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes

    def __post_init__(self) -> None:
        object.__setattr__(self, "headers", Headers(self.headers))

    def header(self, name: str) -> str | None:
        """The first value of header ``name`` (case-insensitive, RFC 9110 section 5.1), or None."""
        return first_header(self.headers, name)

    @property
    def text(self) -> str:
        """The body decoded as UTF-8 (invalid bytes replaced)."""
        return self.body.decode("utf-8", "replace")

    def json(self) -> JSON:
        """The body parsed with :func:`json.loads`, whatever its Content-Type.

        Raises:
            json.JSONDecodeError: the body is not JSON (a ``ValueError``).
        """
        return cast(JSON, _json.loads(self.body))


@dataclass(frozen=True)
class Attempt:
    """One attempt of a call, from ``gw_result_attempts_json`` (times in seconds).

    Attributes:
        attempt: 1 for the first attempt.
        start: when it started, seconds after the call started.
        duration: how long it took, in seconds.
        status: its HTTP status, 0 when no response arrived.
        error: its error kind name (``"connect"``, ``"timeout"``, ...) or None.
        curl_code: libcurl's ``CURLcode`` for a transport failure, else 0.
        message: libcurl's message for a transport failure, or None.
        timings: libcurl's phase timings in seconds, keyed ``"dns"``, ``"connect"``,
            ``"tls"``, ``"first_byte"``, ``"total"``, and ``"queued"``: how long the attempt
            waited for a connection (config ``maxConnectionsPerHost``, ``maxConnections``, or
            an HTTP/2 connection to share) before it started; ``"total"`` includes it.
        bytes_sent: request bytes written to the connection.
        bytes_received: response body bytes received, decoded (past ``maxResponseBytes`` the
            transfer stopped at the chunk that crossed it).
        delay: the wait before the next attempt in seconds, or None when none followed.
        decision: why the call retried or stopped after this attempt (``""`` for a success).
        redirects: the redirects this attempt followed, in order: ``(status, url)`` pairs,
            the URL the hop led to with secrets redacted. ``status``, ``timings`` and
            ``bytes_sent`` cover the whole chain (the last response's status, sums of the
            hops' times and bytes).
    """

    attempt: int
    start: float = 0.0
    duration: float = 0.0
    status: int = 0
    error: str | None = None
    curl_code: int = 0
    message: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    bytes_sent: int = 0
    bytes_received: int = 0
    delay: float | None = None
    decision: str = ""
    redirects: tuple[tuple[int, str], ...] = ()

    @classmethod
    def from_json(cls, item: dict[str, Any]) -> Attempt:
        """Build from one element of the attempts JSON array (unknown keys ignored)."""
        return cls(
            attempt=int(item.get("attempt") or 0),
            start=float(item.get("start") or 0.0),
            duration=float(item.get("duration") or 0.0),
            status=int(item.get("status") or 0),
            error=item.get("error") or None,
            curl_code=int(item.get("curl_code") or 0),
            message=item.get("message") or None,
            timings=dict(item.get("timings") or {}),
            bytes_sent=int(item.get("bytes_sent") or 0),
            bytes_received=int(item.get("bytes_received") or 0),
            delay=None if item.get("delay") is None else float(item["delay"]),
            decision=item.get("decision") or "",
            redirects=tuple((int(hop["status"]), str(hop["url"])) for hop in item.get("redirects") or ()),
        )
