"""gatewire: the Python binding of Gatewire, a plugin-based REST gateway SDK.

A thin ctypes layer (:mod:`gatewire._native`) over ``libGatewire.so`` and a Pythonic API::

    import gatewire

    async with gatewire.AsyncClient("http://127.0.0.1:8080") as client:
        result = await client.get("/echo", params={"q": "x"})
        print(result.status, result.json())

    with gatewire.Client("http://127.0.0.1:8080") as client:
        result = client.get("/echo", params={"q": "x"})

``libGatewire.so`` is loaded on first use: the one a wheel bundles next to the package, the
repository's build when the package is imported from a checkout, or the dynamic loader's
``libGatewire.so.MAJOR``; ``GATEWIRE_LIB`` overrides them (see :mod:`gatewire._native`).
"""

from __future__ import annotations

from . import _version
from .async_client import AsyncClient
from .auth import RefreshingCredential
from .client import CallOptions, Client, FailureObserver, check_config, version
from .errors import (
    CallError,
    Cancelled,
    CircuitOpen,
    ConfigError,
    ConnectionFailed,
    ErrorKind,
    GatewireError,
    HTTPStatusError,
    InvalidArgument,
    InvalidRequest,
    MappingError,
    PluginError,
    ProtocolError,
    RedirectError,
    ResponseTooLarge,
    AuthError,
    Timeout,
    TLSError,
    VersionError,
    WouldDeadlock,
)
from .futures import CallFuture
from .jsontypes import JSON
from .response import Response
from .timeouts import Timeouts
from .hooks import AttemptInfo, FinalResult, Plugin, PreparedRequest, RetryAnswer, RetryTest, RetryVerdict
from .pagination import Pages
from .progress import Progress, ProgressCallback
from .result import Attempt, Result
from .streaming import BodyStream

__all__ = [
    "Client",
    "AsyncClient",
    "Response",
    "Timeouts",
    "JSON",
    "CallFuture",
    "CallOptions",
    "Result",
    "Attempt",
    "Pages",
    "Progress",
    "ProgressCallback",
    "BodyStream",
    "check_config",
    "version",
    "FailureObserver",
    "Plugin",
    "FinalResult",
    "RefreshingCredential",
    "AuthError",
    "PreparedRequest",
    "AttemptInfo",
    "RetryTest",
    "RetryAnswer",
    "RetryVerdict",
    "ErrorKind",
    "GatewireError",
    "InvalidArgument",
    "ConfigError",
    "WouldDeadlock",
    "VersionError",
    "CallError",
    "ConnectionFailed",
    "TLSError",
    "ProtocolError",
    "Timeout",
    "HTTPStatusError",
    "MappingError",
    "Cancelled",
    "CircuitOpen",
    "ResponseTooLarge",
    "RedirectError",
    "PluginError",
    "InvalidRequest",
]

#: The package version, ``"MAJOR.MINOR.PATCH"``, read from the ``VERSION`` file the package
#: carries, which is the repository's (see :mod:`gatewire._version`).
__version__ = _version.VERSION
