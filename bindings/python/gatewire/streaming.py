"""Compatibility alias of ``gatewire.streaming`` (streamed response bodies): the same objects as :mod:`gatewire`
exports, kept so that ``import gatewire.streaming`` and ``from gatewire.streaming import ...`` keep
working. New code imports them from :mod:`gatewire`; the implementation is private
(:mod:`gatewire._streaming`).
"""

from __future__ import annotations

from ._streaming import BodyStream

__all__ = ["BodyStream"]
