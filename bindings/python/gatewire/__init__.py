"""gatewire: the Python binding of Gatewire, a plugin-based REST gateway SDK.

A thin ctypes layer (:mod:`gatewire._native`) over ``libGatewire.so`` and a Pythonic API::

    import asyncio
    import gatewire

    with gatewire.Client("http://127.0.0.1:8080") as client:     # a local httpbin
        result = client.get("/get", params={"q": "x"})
        print(result.status_code, result.json()["args"])          # 200 {'q': 'x'}

    async def main() -> None:
        async with gatewire.AsyncClient("http://127.0.0.1:8080") as client:
            result = await client.get("/anything", json={"name": "Ann"})
            print(result.status_code, result.json()["json"])      # 200 {'name': 'Ann'}

    asyncio.run(main())

Every public name comes from this package (``gatewire.Client``, ``gatewire.Result``,
``gatewire.HTTPStatusError``, ...); the modules behind them are private (``gatewire._client``,
``gatewire._async_client``, ``gatewire._result``, ``gatewire._exceptions``, ``gatewire._config``,
``gatewire._hooks``, ``gatewire._native``, ...), as in httpx. The submodules of earlier
releases (``gatewire.client``, ``gatewire.result``, ``gatewire.errors``, ``gatewire.hooks``,
``gatewire.async_client``, ``gatewire.timeouts``, ...) stay as compatibility aliases that
re-export the same objects.

``libGatewire.so`` is loaded on first use: the one a wheel bundles next to the package, the
repository's build when the package is imported from a checkout, or the dynamic loader's
``libGatewire.so.MAJOR``; ``GATEWIRE_LIB`` overrides them (see :mod:`gatewire._native`).
"""

from __future__ import annotations

from . import _version
from ._async_client import AsyncClient
from ._auth import RefreshingCredential
from ._base_client import CallOptions
from ._client import Client, check_config, version
from ._openapi import OpenAPIConfig, config_from_openapi
from ._exceptions import (
    CallError,
    Cancelled,
    CircuitOpen,
    RateLimited,
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
from ._futures import CallFuture
from ._types import JSON
from ._models import Headers, Response
from ._config import Timeouts
from ._instrumentation import GatewireInstrumentor
from ._hooks import (
    AttemptInfo,
    FailureObserver,
    FinalResult,
    Plugin,
    PreparedRequest,
    RetryAnswer,
    RetryTest,
    RetryVerdict,
)
from ._pagination import Pages
from ._progress import Progress, ProgressCallback
from ._result import Attempt, Result
from ._streaming import BodyStream

__all__ = [
    "Client",
    "AsyncClient",
    "Response",
    "Headers",
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
    "GatewireInstrumentor",
    "check_config",
    "config_from_openapi",
    "OpenAPIConfig",
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
    "RateLimited",
    "ResponseTooLarge",
    "RedirectError",
    "PluginError",
    "InvalidRequest",
]

#: The package version, ``"MAJOR.MINOR.PATCH"``, read from the ``VERSION`` file the package
#: carries, which is the repository's (see :mod:`gatewire._version`).
__version__ = _version.VERSION
