"""Compatibility alias of ``gatewire.result`` (results of calls): the same objects as :mod:`gatewire`
exports, kept so that ``import gatewire.result`` and ``from gatewire.result import ...`` keep
working. New code imports them from :mod:`gatewire`; the implementation is private
(:mod:`gatewire._result`).
"""

from __future__ import annotations

from ._result import Attempt, Result

__all__ = ["Attempt", "Result"]
