"""Request encoding for :class:`gatewire.Client` (private): Python values (a config, call
options, a failure-observer filter) to the UTF-8 text and JSON the C ABI takes.

Pure functions: no native calls, no state; only :class:`Client` and :func:`check_config`
use them (and the clients' ``timeout=``).
"""

from __future__ import annotations

import json as _json
from typing import Any, Mapping, Union

from .errors import ErrorKind, InvalidArgument
from .timeouts import TimeoutArgument, as_timeouts

#: A gateway config: a dict or JSON text.
Config = Union[Mapping[str, Any], str]


def _config_text(config: Config) -> str:
    if isinstance(config, str):
        return config
    if isinstance(config, Mapping):
        return _json.dumps(config)
    raise TypeError(f"config must be a dict or a JSON string, not {type(config).__name__}")


def _encode(text: str | None) -> bytes | None:
    return None if text is None else text.encode("utf-8")


def _value_text(what: str, name: object, value: Any) -> str:
    """A parameter or form value as sent: bools ``true``/``false`` (JSON's spelling, the one
    every Gatewire language sends; requests would send Python's ``True``), numbers ``str()``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise TypeError(f"{what} {name!r} must be a str, int, float or bool, or a list or tuple of them, "
                    f"not {type(value).__name__}")


def _values_json(what: str, values: Mapping[str, Any] | None) -> bytes | None:
    """``values`` as the library's JSON object of strings, a list or tuple as an array of them."""
    if values is None:
        return None
    if not isinstance(values, Mapping):
        hint = " (raw bytes go in content=)" if isinstance(values, (bytes, bytearray, memoryview, str)) else ""
        raise TypeError(f"{what}s must be a mapping of names to values, not {type(values).__name__}{hint}")
    document: dict[str, str | list[str]] = {}
    for name, value in values.items():
        if isinstance(value, (list, tuple)):
            document[str(name)] = [_value_text(what, name, item) for item in value]
        else:
            document[str(name)] = _value_text(what, name, value)
    return _json.dumps(document).encode("utf-8")


def _params_json(params: Mapping[str, Any] | None) -> bytes | None:
    """``params_json``: a list or tuple value is a query parameter of several values."""
    return _values_json("parameter", params)


def _form_json(data: Mapping[str, Any] | None) -> bytes | None:
    """``form_json``: a list or tuple value repeats the field."""
    return _values_json("form field", data)


def _headers_json(headers: Mapping[str, str] | None) -> bytes | None:
    if headers is None:
        return None
    return _json.dumps({str(k): str(v) for k, v in headers.items()}).encode("utf-8")


def _filter_json(status: Any, no_response: bool, kinds: Any, path: str | None) -> bytes | None:
    """The library's filter JSON for :meth:`Client.add_failure_observer`, or None for none."""
    document: dict[str, Any] = {}
    if status is not None:
        items = [status] if isinstance(status, (int, str)) else list(status)
        document["statusCodes"] = [str(item) if isinstance(item, str) else int(item) for item in items]
    if no_response:
        document["noResponse"] = True
    if kinds is not None:
        document["kinds"] = [kind if isinstance(kind, str) else ErrorKind(kind).name for kind in kinds]
    if path is not None:
        document["pathPattern"] = path
    return _json.dumps(document).encode("utf-8") if document else None


def _with_call_timeouts(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` with its ``timeout`` (a number or :class:`Timeouts`) turned into
    ``attempt_timeout`` and ``deadline``, whose ranges the library checks.

    Raises:
        InvalidArgument: a ``connect`` timeout (per client only), or ``timeout`` given with
            the field it sets.
        TypeError: ``timeout`` is not a number or a Timeouts.
    """
    timeouts = as_timeouts(options["timeout"])
    if timeouts.connect is not None:
        raise InvalidArgument("timeout.connect: the connect timeout is per client (Client(timeout=...) or the "
                              "config's timeouts.connect), not per call")
    merged = {key: value for key, value in options.items() if key != "timeout"}
    for value, key in ((timeouts.attempt, "attempt_timeout"), (timeouts.deadline, "deadline")):
        if value is not None:
            if merged.get(key) is not None:
                raise InvalidArgument(f"pass timeout or {key}, not both")
            merged[key] = value
    return merged


def _with_timeouts(config: Config | None, config_path: object, timeout: TimeoutArgument,
                   base_url: str | None) -> Config | None:
    """``config`` with a client's ``timeout`` laid over its ``timeouts`` (the config's keys
    ``connect``, ``attempt``, ``deadline``, checked by the library); ``config`` itself when
    ``timeout`` is None; with neither config nor config_path, a config of ``base_url`` and the
    timeouts. Text that is not a JSON object is returned as it is, for the library's
    ConfigError.

    Raises:
        InvalidArgument: ``timeout`` with ``config_path``.
        TypeError: ``timeout`` is not a number or a Timeouts.
    """
    if timeout is None:
        return config
    timeouts = as_timeouts(timeout)
    if config_path is not None:
        raise InvalidArgument("pass timeout with config or base_url; with config_path, set the file's timeouts")
    try:
        given: Any = _json.loads(config) if isinstance(config, str) else config
        tree: dict[str, Any] = {"baseURL": base_url} if config is None else dict(given)
    except (ValueError, TypeError):
        return config
    limits = dict(tree.get("timeouts") or {})
    for key in ("connect", "attempt", "deadline"):
        value = getattr(timeouts, key)
        if value is not None:
            limits[key] = value
    tree["timeouts"] = limits
    return tree
