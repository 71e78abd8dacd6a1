"""Compatibility alias of ``gatewire.pagination`` (walking a route's pages): the same objects as :mod:`gatewire`
exports, kept so that ``import gatewire.pagination`` and ``from gatewire.pagination import ...`` keep
working. New code imports them from :mod:`gatewire`; the implementation is private
(:mod:`gatewire._pagination`).
"""

from __future__ import annotations

from ._pagination import Pages

__all__ = ["Pages"]
