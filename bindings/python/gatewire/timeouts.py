"""Compatibility alias of ``gatewire.timeouts`` (time limits): the same objects as :mod:`gatewire`
exports, kept so that ``import gatewire.timeouts`` and ``from gatewire.timeouts import ...`` keep
working. New code imports them from :mod:`gatewire`; the implementation is private
(:mod:`gatewire._config`).
"""

from __future__ import annotations

from ._config import TimeoutArgument, Timeouts

__all__ = ["Timeouts", "TimeoutArgument"]
