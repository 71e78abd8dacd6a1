"""Compatibility alias of ``gatewire.hooks`` (plugins and retry tests): the same objects as :mod:`gatewire`
exports, kept so that ``import gatewire.hooks`` and ``from gatewire.hooks import ...`` keep
working. New code imports them from :mod:`gatewire`; the implementation is private
(:mod:`gatewire._hooks`).
"""

from __future__ import annotations

from ._hooks import AttemptInfo, FinalResult, Plugin, PreparedRequest, RetryAnswer, RetryTest, RetryVerdict

__all__ = ["AttemptInfo", "PreparedRequest", "FinalResult", "Plugin", "RetryVerdict", "RetryTest", "RetryAnswer"]
