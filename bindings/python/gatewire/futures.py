"""Compatibility alias of ``gatewire.futures`` (the future of Client.call_async): the same objects as :mod:`gatewire`
exports, kept so that ``import gatewire.futures`` and ``from gatewire.futures import ...`` keep
working. New code imports them from :mod:`gatewire`; the implementation is private
(:mod:`gatewire._futures`).
"""

from __future__ import annotations

from ._futures import CallFuture

__all__ = ["CallFuture"]
