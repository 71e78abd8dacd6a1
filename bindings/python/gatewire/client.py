"""Compatibility alias of ``gatewire.client`` (the blocking client): the same objects as :mod:`gatewire`
exports, kept so that ``import gatewire.client`` and ``from gatewire.client import ...`` keep
working. New code imports them from :mod:`gatewire`; the implementation is private
(:mod:`gatewire._client`).
"""

from __future__ import annotations

from ._base_client import CallOptions
from ._client import Client, check_config, version
from ._futures import CallFuture
from ._hooks import FailureObserver

__all__ = ["Client", "CallOptions", "CallFuture", "FailureObserver", "check_config", "version"]
