"""Compatibility alias of ``gatewire.jsontypes`` (the JSON type): the same objects as :mod:`gatewire`
exports, kept so that ``import gatewire.jsontypes`` and ``from gatewire.jsontypes import ...`` keep
working. New code imports them from :mod:`gatewire`; the implementation is private
(:mod:`gatewire._types`).
"""

from __future__ import annotations

from ._types import JSON

__all__ = ["JSON"]
