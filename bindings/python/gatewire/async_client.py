"""Compatibility alias of ``gatewire.async_client`` (the asyncio client): the same objects as :mod:`gatewire`
exports, kept so that ``import gatewire.async_client`` and ``from gatewire.async_client import ...`` keep
working. New code imports them from :mod:`gatewire`; the implementation is private
(:mod:`gatewire._async_client`).
"""

from __future__ import annotations

from ._async_client import AsyncClient

__all__ = ["AsyncClient"]
