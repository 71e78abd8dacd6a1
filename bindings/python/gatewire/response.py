"""The final HTTP response of a failed call: :class:`Response`, :attr:`gatewire.CallError.response`."""

from __future__ import annotations

import json as _json
from dataclasses import dataclass
from typing import Iterable, cast

from .jsontypes import JSON

__all__ = ["Response"]


def first_header(headers: Iterable[tuple[str, str]], name: str) -> str | None:
    """The first value of header ``name`` (case-insensitive, RFC 9110 section 5.1) among
    ``(name, value)`` pairs, or None."""
    key = name.lower()
    for field_name, value in headers:
        if field_name.lower() == key:
            return value
    return None


@dataclass(frozen=True)
class Response:
    """The response a failed call received last (``httpx``'s ``HTTPStatusError.response``).
    Immutable; a copy, usable on any thread for as long as it is kept.

    Attributes:
        status: the HTTP status (int, 100...599).
        headers: every header field in received order, ``(name, value)`` str pairs; repeated
            fields once per occurrence.
        body: the body, decoded from any content encoding (bytes; ``b""`` for none).
    """

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes

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
