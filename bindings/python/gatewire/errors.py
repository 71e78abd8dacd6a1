"""Compatibility alias of ``gatewire.errors`` (the exceptions): the same objects as :mod:`gatewire`
exports, kept so that ``import gatewire.errors`` and ``from gatewire.errors import ...`` keep
working. New code imports them from :mod:`gatewire`; the implementation is private
(:mod:`gatewire._exceptions`).
"""

from __future__ import annotations

from ._exceptions import AuthError, CallError, Cancelled, CircuitOpen, ConfigError, ConnectionFailed, ErrorKind, GatewireError, HTTPStatusError, InvalidArgument, InvalidRequest, MappingError, PluginError, ProtocolError, RateLimited, RedirectError, ResponseTooLarge, TLSError, Timeout, VersionError, WouldDeadlock

__all__ = ["ErrorKind", "GatewireError", "InvalidArgument", "ConfigError", "WouldDeadlock", "VersionError", "CallError", "ConnectionFailed", "TLSError", "ProtocolError", "Timeout", "HTTPStatusError", "MappingError", "Cancelled", "PluginError", "CircuitOpen", "ResponseTooLarge", "RedirectError", "RateLimited", "AuthError", "InvalidRequest"]
