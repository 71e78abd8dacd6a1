"""``config_from_openapi``: a gateway config made from an OpenAPI document (``gw_config_from_openapi``)."""

from __future__ import annotations

import ctypes
import json as _json
import os
from typing import NamedTuple, Optional, Union

from . import _exceptions, _native


class OpenAPIConfig(NamedTuple):
    """What :func:`config_from_openapi` made.

    Attributes:
        config_json: the gateway config as JSON text (keys sorted, two spaces of indentation,
            ended by a newline: the same document gives the same bytes), ready for
            ``Client(config=config_json)`` or a file.
        report: what the config cannot express, one dict per place:
            ``{"pointer": JSON pointer into the document, "reason": code, "message": str}``
            (and ``"document"`` for a place in another file); the codes are listed in
            docs/openapi.md.
    """

    config_json: str
    report: list


def config_from_openapi(document: Union[str, os.PathLike], server: Optional[int] = None) -> OpenAPIConfig:
    """Make a gateway config from an OpenAPI 3.0 or 3.1 document, JSON or YAML.

    The same import as ``gatewire import openapi`` (every rule and approximation is in
    docs/openapi.md): baseURL from the servers, a route per operation, mappings from the
    schemas, descriptors from the responses and request bodies, auth with placeholders for
    the secrets, pagination where the document says it. Reads the document and the files that
    its ``$ref`` entries name (relative to its folder); no network.

    Args:
        document: the document's path.
        server: the index of the document's ``servers`` entry that gives baseURL (None: the first).

    Returns:
        An :class:`OpenAPIConfig` (the config's JSON text and the report's lines).

    Raises:
        ConfigError: the document cannot be imported (unreadable, not OpenAPI 3.0/3.1, invalid
            JSON or YAML, a dangling or cyclic ``$ref``, a cyclic ``allOf``, no such server);
            the message is ``"DOCUMENT#/json/pointer: why"`` or ``"DOCUMENT: line L, column C: why"``.
        InvalidArgument: ``server`` is negative.
    """
    if server is not None and server < 0:
        _exceptions.raise_status(_native.GW_ERROR_INVALID_ARGUMENT, f"server must be 0 or more, not {server}")
    config = ctypes.c_void_p()
    report = ctypes.c_void_p()
    status = _native.lib.gw_config_from_openapi(
        os.fsencode(document), -1 if server is None else server, ctypes.byref(config), ctypes.byref(report)
    )
    if status != _native.GW_OK:
        message = _native.last_error_message()
        _exceptions.raise_status(status, message)
    config_json = _native.take_string(config.value) or ""
    lines = (_native.take_string(report.value) or "").splitlines()
    return OpenAPIConfig(config_json, [_json.loads(line) for line in lines])
