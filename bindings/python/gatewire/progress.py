"""Compatibility alias of ``gatewire.progress`` (progress reports): the same objects as :mod:`gatewire`
exports, kept so that ``import gatewire.progress`` and ``from gatewire.progress import ...`` keep
working. New code imports them from :mod:`gatewire`; the implementation is private
(:mod:`gatewire._progress`).
"""

from __future__ import annotations

from ._progress import Progress, ProgressCallback

__all__ = ["Progress", "ProgressCallback"]
