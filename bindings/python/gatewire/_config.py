"""The client's configuration (private; public names come from :mod:`gatewire`): a gateway
config (:data:`Config`), the time limits (:class:`Timeouts`, ``timeout=``), and the one
translation of the client keywords that stand for config keys (``timeout=``, ``cookies=``,
``cache=``) into the config the library reads (:func:`client_config`).

Pure functions: no native calls, no state.
"""

from __future__ import annotations

import json as _json
import os
from dataclasses import dataclass
from typing import Any, Mapping, Union

from ._encoding import c_path, c_text
from ._exceptions import InvalidArgument

__all__ = ["Config", "Timeouts", "TimeoutArgument", "CookiesArgument", "CacheArgument", "client_config"]

#: A gateway config: a dict or JSON text (docs/config.md).
Config = Union[Mapping[str, Any], str]

@dataclass(frozen=True)
class Timeouts:
    """Time limits in seconds (``httpx.Timeout``'s role; the exception for a timed-out call is
    :class:`gatewire.Timeout`). A field left None keeps the value below it: the call's
    keeps the route's and the client's, the client's keeps the config's ``timeouts``
    (``connect`` 10, ``attempt`` 30, ``deadline`` none). The ranges are the library's
    (0.001...86400), checked by it.

    Attributes:
        connect: seconds to set up a connection (TCP and TLS); per client only (the config's
            ``timeouts.connect``): a call given one raises :class:`gatewire.InvalidArgument`.
        attempt: seconds per attempt (request sent to response read), as ``attempt_timeout``.
        deadline: seconds for the whole call, every attempt and retry delay included, as
            ``deadline``.
    """

    connect: float | None = None
    attempt: float | None = None
    deadline: float | None = None


#: What ``timeout=`` takes: a number of seconds for the whole call, every attempt and retry
#: delay included (its ``deadline``): with one number a ``requests`` or ``httpx`` user expects
#: the call back within that time, and Gatewire retries a timed-out attempt (requests does
#: not), which a per-attempt limit would multiply; a :class:`Timeouts` for each limit apart
#: (``Timeouts(attempt=2, deadline=5)``); or None to keep the defaults.
TimeoutArgument = Union[float, Timeouts, None]


def as_timeouts(timeout: TimeoutArgument) -> Timeouts:
    """``timeout`` as a :class:`Timeouts` (a number is the whole call's limit, its deadline).

    Raises:
        TypeError: ``timeout`` is neither a number, a Timeouts nor None.
    """
    if timeout is None:
        return Timeouts()
    if isinstance(timeout, Timeouts):
        return timeout
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"timeout must be a number of seconds or a gatewire.Timeouts, got {timeout!r}")
    return Timeouts(deadline=float(timeout))


def config_text(config: Config) -> bytes:
    """``config`` as the library's JSON text: a dict is serialised (``json.dumps`` escapes a
    NUL in a string as ``\\u0000``), text is checked by :func:`c_text`."""
    if isinstance(config, str):
        return c_text(config, "config")  # type: ignore[return-value]
    if isinstance(config, Mapping):
        return _json.dumps(config).encode("utf-8")
    raise TypeError(f"config must be a dict or a JSON string, not {type(config).__name__}")


def call_timeouts(options: Mapping[str, Any]) -> dict[str, Any]:
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


#: ``cookies=``: True for a jar in memory, a path for a jar loaded from and written to that
#: file (Netscape format, as curl's ``-b``/``-c``), False or None for none (the config's).
CookiesArgument = Union[bool, str, "os.PathLike[str]", None]


def cookies_key(cookies: CookiesArgument) -> Any:
    """The config's ``cookies`` value for ``cookies=``, or None to keep the config's.

    Raises:
        InvalidArgument: the path has a NUL character (``c_path``: the library would write
            the jar to a shorter path).
        TypeError: ``cookies`` is not a bool, a str or a path.
    """
    if cookies is None or cookies is False:
        return None
    if cookies is True:
        return True
    if isinstance(cookies, (str, os.PathLike)):
        c_path(cookies, "cookies")
        return {"file": os.fspath(cookies)}
    raise TypeError(f"cookies must be True, False, None or a file path, not {type(cookies).__name__}")


#: ``cache=``: True for a memory cache of the defaults, a dict of the config's ``cache``
#: settings (``{"maxBytes": 1048576, "directory": "cache"}``), False or None for the config's.
CacheArgument = Union[bool, Mapping[str, Any], None]


def cache_key(cache: CacheArgument) -> Any:
    """The config's ``cache`` value for ``cache=``, or None to keep the config's.

    Raises:
        InvalidArgument: its ``directory`` has a NUL character (``c_path``).
        TypeError: ``cache`` is not a bool or a mapping.
    """
    if cache is None or cache is False:
        return None
    if cache is True or isinstance(cache, Mapping):
        if cache is True:
            return True
        settings = dict(cache)
        if isinstance(settings.get("directory"), (str, os.PathLike)):
            c_path(settings["directory"], "cache['directory']")
        return settings
    raise TypeError(f"cache must be True, False, None or a dict of settings, not {type(cache).__name__}")


def _timeouts_key(timeout: TimeoutArgument, config: Mapping[str, Any]) -> dict[str, float] | None:
    """The config's ``timeouts`` with ``timeout=`` laid over it (the keys ``connect``,
    ``attempt``, ``deadline``; their ranges are the library's), or None to keep the config's."""
    if timeout is None:
        return None
    timeouts = as_timeouts(timeout)
    limits = dict(config.get("timeouts") or {})
    for key in ("connect", "attempt", "deadline"):
        value = getattr(timeouts, key)
        if value is not None:
            limits[key] = value
    return limits


def client_config(base_url: str | None, config: Config | None, config_path: object, *,
                  timeout: TimeoutArgument = None, cookies: CookiesArgument = None,
                  cache: CacheArgument = None) -> Config | None:
    """The gateway config a client is made with: ``config`` with the client keywords that stand
    for its top-level keys laid over it (``timeout`` over ``timeouts``, ``cookies`` and
    ``cache`` replacing theirs); ``config`` itself when none is given; with neither config nor
    config_path, a config of ``base_url`` and those keys. Text that is not a JSON object is
    returned as it is, for the library's ConfigError. The one place these keywords become
    config keys: the library then checks every value as it checks a config file's.

    Args:
        base_url: the client's ``base_url`` (the library lays it over the config's too).
        config: a dict or JSON text, or None.
        config_path: the client's ``config_path`` (only whether it is given matters: a file's
            keys are the file's).
        timeout: ``Client(timeout=...)``: seconds for each whole call (its deadline) or a
            :class:`Timeouts`.
        cookies: ``Client(cookies=...)`` (:data:`CookiesArgument`).
        cache: ``Client(cache=...)`` (:data:`CacheArgument`).

    Raises:
        InvalidArgument: one of the keywords with ``config_path`` (the message names them:
            put them in the file), or a path with a NUL character.
        TypeError: a keyword of the wrong type.
    """
    keys: dict[str, Any] = {"cookies": cookies_key(cookies), "cache": cache_key(cache)}
    keys = {key: value for key, value in keys.items() if value is not None}
    if timeout is not None:
        as_timeouts(timeout)  # its type is checked before anything else
    named = sorted(keys) + (["timeout"] if timeout is not None else [])
    if not named:
        return config
    if config_path is not None:
        raise InvalidArgument(f"pass {', '.join(named)} with config or base_url; with config_path, "
                              "set them in the file")
    try:
        given: Any = _json.loads(config) if isinstance(config, str) else config
        tree: dict[str, Any] = {"baseURL": base_url} if config is None else dict(given)
    except (ValueError, TypeError):
        return config
    limits = _timeouts_key(timeout, tree)
    if limits is not None:
        keys["timeouts"] = limits
    tree.update(keys)
    return tree
