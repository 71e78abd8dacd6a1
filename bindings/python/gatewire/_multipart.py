"""``files=``: the parts of a multipart/form-data body as the library's ``gw_part`` array."""

from __future__ import annotations

import ctypes
import os
from typing import Any, Iterable, Mapping, Tuple, Union

from . import _native

#: What ``files=`` takes for one field: a path (``str`` or :class:`os.PathLike`), an open
#: binary file, bytes, or a tuple ``(filename, content)`` / ``(filename, content,
#: content_type)`` whose content is bytes, a ``str`` (sent as UTF-8 text), an open file or an
#: :class:`os.PathLike` path.
FileValue = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, Any, Tuple[Any, ...]]

_BYTES = (bytes, bytearray, memoryview)


def parts_array(files: Mapping[str, FileValue] | Iterable[tuple[str, FileValue]]) -> ctypes.Array[Any]:
    """The ``gw_part`` array of ``files`` (a mapping, or ``(name, value)`` pairs to repeat a
    name), in order. Its strings and bytes stay alive with the array (ctypes keeps what a
    field was set from).

    A path, and an open file that has one (``open(path, "rb")``: its ``name``), is sent from
    disk by the library, whole and from its first byte on every attempt, never read into
    memory here; its filename defaults to the path's last component. Other file objects
    (``io.BytesIO``) are read here. Bytes without a tuple take the field's name as their
    filename, as requests does.

    Raises:
        TypeError: a value or tuple of another shape.
    """
    items = list(files.items()) if isinstance(files, Mapping) else list(files)
    array = (_native.gw_part * len(items))()
    for part, (name, value) in zip(array, items):
        name = str(name)
        part.name = name.encode("utf-8")
        if isinstance(value, tuple):
            if not 2 <= len(value) <= 3:
                raise TypeError(f"files[{name!r}]: a tuple is (filename, content) or (filename, content, content_type)")
            filename, content = value[0], value[1]
            if len(value) == 3 and value[2] is not None:
                part.content_type = str(value[2]).encode("utf-8")
            _fill(part, name, content.encode("utf-8") if isinstance(content, str) else content, filename)
        else:
            _fill(part, name, value, name if isinstance(value, _BYTES) else None)
    return array


def _fill(part: Any, name: str, content: Any, filename: str | None) -> None:
    """Sets ``part``'s kind and content from ``content``, and its filename (None: the
    library's default, a path's last component, or none)."""
    if filename is not None:
        part.filename = str(filename).encode("utf-8")
    path = _path_of(content)
    if path is not None:
        part.kind = _native.GW_PART_FILE
        part.path = os.fsencode(path)
        return
    if hasattr(content, "read"):
        label = getattr(content, "name", None)
        if filename is None and isinstance(label, str):
            part.filename = os.path.basename(label).encode("utf-8")
        data = content.read()
        content = data.encode("utf-8") if isinstance(data, str) else data
    if not isinstance(content, _BYTES):
        raise TypeError(f"files[{name!r}]: expected a path, an open file, bytes or a (filename, content"
                        f"[, content_type]) tuple, not {type(content).__name__}")
    raw = bytes(content)
    part.kind = _native.GW_PART_BYTES
    # The cast keeps raw alive as long as the array (ctypes' _objects).
    part.bytes = ctypes.cast(ctypes.c_char_p(raw), ctypes.c_void_p)
    part.length = len(raw)


def _path_of(content: Any) -> str | bytes | None:
    """The file path ``content`` names: itself (``str``, :class:`os.PathLike`), or the
    ``name`` of an open file that has a descriptor; else None."""
    if isinstance(content, (str, os.PathLike)):
        return os.fspath(content)
    name = getattr(content, "name", None)
    if hasattr(content, "fileno") and isinstance(name, (str, bytes)):
        return name
    return None
