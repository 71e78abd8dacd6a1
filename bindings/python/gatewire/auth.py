"""Compatibility alias of ``gatewire.auth`` (refreshing credentials): the same objects as :mod:`gatewire`
exports, kept so that ``import gatewire.auth`` and ``from gatewire.auth import ...`` keep
working. New code imports them from :mod:`gatewire`; the implementation is private
(:mod:`gatewire._auth`).
"""

from __future__ import annotations

from ._auth import RefreshingCredential

__all__ = ["RefreshingCredential"]
