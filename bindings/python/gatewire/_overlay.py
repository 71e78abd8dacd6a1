"""Client keyword arguments that stand for top-level config keys (private): ``cookies=`` is
the config's ``cookies``, ``cache=`` its ``cache``. Pure functions; only :class:`gatewire.Client` uses them.
"""

from __future__ import annotations

import json as _json
import os
from typing import Any, Mapping, Union

from ._encoding import Config, c_path
from .errors import InvalidArgument

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


def with_keys(config: Config | None, config_path: object, base_url: str | None,
              keys: dict[str, Any]) -> Config | None:
    """``config`` with the top-level ``keys`` whose value is not None set (over the
    config's own); ``config`` itself when there are none; with neither config nor
    config_path, a config of ``base_url`` and the keys. Text that is not a JSON object is
    returned as it is, for the library's ConfigError.

    Raises:
        InvalidArgument: a key to set with ``config_path`` (put it in the file).
    """
    keys = {key: value for key, value in keys.items() if value is not None}
    if not keys:
        return config
    if config_path is not None:
        raise InvalidArgument(f"pass {', '.join(sorted(keys))} with config or base_url; with config_path, "
                              "set them in the file")
    try:
        given: Any = _json.loads(config) if isinstance(config, str) else config
        tree: dict[str, Any] = {"baseURL": base_url} if config is None else dict(given)
    except (ValueError, TypeError):
        return config
    tree.update(keys)
    return tree
