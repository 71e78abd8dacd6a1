"""Encoding for the C ABI (private): Python values (call options, a failure-observer filter, paths, names, numbers) to the UTF-8 text, JSON and numbers the
library's functions and structs take.

Every ``str`` or path the binding hands to a ``const char *`` goes through :func:`c_text` or
:func:`c_path`, and every number it stores in a narrower C field through :func:`c_integer`
or :func:`c_double`: C ends a string at its first NUL, and ctypes wraps an integer that does
not fit (``c_int32(2**32 + 3)`` is 3), so these refuse such values with an error naming
the argument instead of letting them through shortened.

Pure functions: no native calls, no state.
"""

from __future__ import annotations

import json as _json
import operator
import os
from typing import Any, Mapping

from ._exceptions import ErrorKind, InvalidArgument

#: The C integer types of the ABI's numeric fields, with their ranges.
_C_INTEGER_RANGES = {
    "int32_t": (-(1 << 31), (1 << 31) - 1),
    "int64_t": (-(1 << 63), (1 << 63) - 1),
    "uint64_t": (0, (1 << 64) - 1),
}


def c_text(text: str | None, argument: str) -> bytes | None:
    """``text`` as the NUL-terminated UTF-8 a ``const char *`` takes (None: NULL).

    Args:
        text: the text.
        argument: what it is, as the error names it (``"content_type"``,
            ``"files['avatar'] filename"``).

    Raises:
        InvalidArgument: ``text`` has an embedded NUL character, where C would end it and the
            rest would be lost (``"text/plain\\x00x"`` would be sent as ``text/plain``):
            refused as Python's ``open()`` refuses such a path (``ValueError: embedded null
            byte``; InvalidArgument is a ValueError).
        TypeError: ``text`` is not a str.
        UnicodeEncodeError: ``text`` has a lone surrogate (no UTF-8 for it).
    """
    if text is None:
        return None
    if not isinstance(text, str):
        raise TypeError(f"{argument} must be a str, not {type(text).__name__}")
    if "\x00" in text:
        raise InvalidArgument(f"{argument}: embedded null byte")
    return text.encode("utf-8")


def c_path(path: str | bytes | os.PathLike[str] | os.PathLike[bytes] | None, argument: str) -> bytes | None:
    """``path`` as the bytes ``open(2)`` takes (``os.fsencode``; None: NULL).

    Raises:
        InvalidArgument: the path has an embedded NUL byte (``"secret\\x00.png"`` would open
            ``secret``), as ``open()`` raises ``ValueError: embedded null byte``.
        TypeError: ``path`` is not a str, bytes or :class:`os.PathLike`.
    """
    if path is None:
        return None
    try:
        raw = os.fsencode(path)
    except TypeError:
        raise TypeError(f"{argument} must be a path (str, bytes or os.PathLike), not {type(path).__name__}") from None
    if b"\x00" in raw:
        raise InvalidArgument(f"{argument}: embedded null byte")
    return raw


def c_integer(value: Any, argument: str, c_type: str) -> int:
    """``value`` as an integer for a C field of ``c_type`` (``"int32_t"``, ``"int64_t"`` or
    ``"uint64_t"``), which ctypes would wrap silently when it does not fit. The library
    checks the field's own range (``max_retries`` 0...100) and names it in its message.

    Raises:
        InvalidArgument: ``value`` is outside ``c_type``'s range; the message names the
            argument and the range.
        TypeError: ``value`` is not an integer (a float, a str).
    """
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{argument} must be an int, not {type(value).__name__}") from None
    low, high = _C_INTEGER_RANGES[c_type]
    if not low <= number <= high:
        raise InvalidArgument(f"{argument}: {number} is out of range for the library's {c_type} ({low}...{high})")
    return number


def c_double(value: Any, argument: str) -> float:
    """``value`` (an int or a float) as a C ``double``. NaN and infinities pass: the library
    says what each field makes of them.

    Raises:
        InvalidArgument: an int too large for a double (beyond about 1.8e308).
        TypeError: ``value`` is not a number.
    """
    if isinstance(value, (str, bytes, bytearray)):
        raise TypeError(f"{argument} must be a number, not {type(value).__name__}")
    try:
        return float(value)
    except OverflowError:
        raise InvalidArgument(f"{argument}: {value} is out of range for a double (about -1.8e308...1.8e308)") from None
    except (TypeError, ValueError):
        raise TypeError(f"{argument} must be a number, not {type(value).__name__}") from None


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
        key = _json_key(f"{what} name", name)
        if isinstance(value, (list, tuple)):
            document[key] = [_value_text(what, name, item) for item in value]
        else:
            document[key] = _value_text(what, name, value)
    return _json.dumps(document).encode("utf-8")


def _json_key(argument: str, name: object) -> str:
    """``str(name)`` as a key of the library's JSON: a NUL in it is refused here, naming it
    (a JSON text may escape one in a value, but Jansson takes none in a key)."""
    key = str(name)
    if "\x00" in key:
        raise InvalidArgument(f"{argument} {key!r}: embedded null byte")
    return key


def _params_json(params: Mapping[str, Any] | None) -> bytes | None:
    """``params_json``: a list or tuple value is a query parameter of several values; a
    parameter whose value is None is left out, as ``requests`` leaves it out of the URL
    (``params={"a": None}`` sends no ``a``)."""
    if isinstance(params, Mapping):
        params = {name: value for name, value in params.items() if value is not None}
    return _values_json("parameter", params)


def _form_json(data: Mapping[str, Any] | None) -> bytes | None:
    """``form_json``: a list or tuple value repeats the field."""
    return _values_json("form field", data)


def _headers_json(headers: Mapping[str, str] | None) -> bytes | None:
    if headers is None:
        return None
    return _json.dumps({_json_key("header name", k): str(v) for k, v in headers.items()}).encode("utf-8")


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
