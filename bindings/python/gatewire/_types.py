"""The type of a parsed JSON value, :data:`JSON`, for typed code (``mypy --strict``)."""

from __future__ import annotations

from typing import Dict, List, Union

__all__ = ["JSON"]

#: A JSON value as :func:`json.loads` builds it: ``None``, ``bool``, ``int``, ``float``,
#: ``str``, a ``list`` of JSON values or a ``dict`` from ``str`` to JSON values (RFC 8259).
#: The return type of :meth:`gatewire.Result.json` and :meth:`gatewire.Response.json`: narrow
#: it with ``isinstance`` before use, e.g. ``if isinstance(value, dict): value["id"]``.
JSON = Union[None, bool, int, float, str, List["JSON"], Dict[str, "JSON"]]
