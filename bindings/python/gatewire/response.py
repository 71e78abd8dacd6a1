"""Compatibility alias of ``gatewire.response`` (the final response of a failed call): the same objects as :mod:`gatewire`
exports, kept so that ``import gatewire.response`` and ``from gatewire.response import ...`` keep
working. New code imports them from :mod:`gatewire`; the implementation is private
(:mod:`gatewire._models`).
"""

from __future__ import annotations

from ._models import Response

__all__ = ["Response"]
