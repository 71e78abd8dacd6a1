"""``files=``: the parts of a multipart/form-data body as the library's ``gw_part`` array."""

from __future__ import annotations

import ctypes
import io
import os
from typing import Any, Iterable, Mapping, Tuple, Union

from . import _native
from ._encoding import c_path, c_text

#: What ``files=`` takes for one field: a path (``str`` or :class:`os.PathLike`), a file
#: object (anything with ``read()``), bytes, or a tuple ``(filename, content)`` / ``(filename, content,
#: content_type)`` whose content is bytes, a ``str`` (sent as UTF-8 text), an open file or an
#: :class:`os.PathLike` path.
FileValue = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, Any, Tuple[Any, ...]]

_BYTES = (bytes, bytearray, memoryview)


def parts_array(files: Mapping[str, FileValue] | Iterable[tuple[str, FileValue]]) -> ctypes.Array[Any]:
    """The ``gw_part`` array of ``files`` (a mapping, or ``(name, value)`` pairs to repeat a
    name), in order. Its strings and bytes stay alive with the array (ctypes keeps what a
    field was set from).

    A path, and a file ``open(path, "rb")`` returned that is still at its start (its
    ``name``), is sent from disk by the library, whole and from its first byte on every
    attempt, never read into memory here; its filename defaults to the path's last
    component. Any other file object is read here (``read()``, as requests reads one), so what
    is sent is what the object reads: ``gzip.open(path)``'s decompressed bytes, an
    :class:`io.BytesIO`'s, a text file's (as UTF-8), a file read partway's rest. Bytes
    without a tuple take the field's name as their filename, as requests does.

    Raises:
        InvalidArgument: a name, filename, content type or path with a NUL character (C would
            end it there: :func:`gatewire._encoding.c_text`); the message names the part.
        TypeError: a value or tuple of another shape.
    """
    items = list(files.items()) if isinstance(files, Mapping) else list(files)
    array = (_native.gw_part * len(items))()
    for part, (name, value) in zip(array, items):
        name = str(name)
        label = f"files[{name!r}]"
        part.name = c_text(name, f"{label} name")
        if isinstance(value, tuple):
            if not 2 <= len(value) <= 3:
                raise TypeError(f"{label}: a tuple is (filename, content) or (filename, content, content_type)")
            filename, content = value[0], value[1]
            if len(value) == 3 and value[2] is not None:
                part.content_type = c_text(str(value[2]), f"{label} content_type")
            _fill(part, label, content.encode("utf-8") if isinstance(content, str) else content, filename)
        else:
            _fill(part, label, value, name if isinstance(value, _BYTES) else None)
    return array


def _fill(part: Any, label: str, content: Any, filename: str | None) -> None:
    """Sets ``part``'s kind and content from ``content``, and its filename (None: the
    library's default, a path's last component, or none); ``label`` names the part in errors."""
    if filename is not None:
        part.filename = c_text(str(filename), f"{label} filename")
    path = _path_of(content)
    if path is not None:
        part.kind = _native.GW_PART_FILE
        part.path = c_path(path, f"{label} path")
        return
    if hasattr(content, "read"):
        object_name = getattr(content, "name", None)
        if filename is None and isinstance(object_name, str):
            part.filename = c_text(os.path.basename(object_name), f"{label} filename")
        data = content.read()
        content = data.encode("utf-8") if isinstance(data, str) else data
    if not isinstance(content, _BYTES):
        raise TypeError(f"{label}: expected a path, an open file, bytes or a (filename, content"
                        f"[, content_type]) tuple, not {type(content).__name__}")
    raw = bytes(content)
    part.kind = _native.GW_PART_BYTES
    # The cast keeps raw alive as long as the array (ctypes' _objects).
    part.bytes = ctypes.cast(ctypes.c_char_p(raw), ctypes.c_void_p)
    part.length = len(raw)


#: The types ``open(path, "rb")`` (and ``"r+b"``, buffering 0) return: their bytes are the
#: file's own, so the library may read the file by its name. Subclasses may read otherwise.
_PLAIN_FILES = (io.BufferedReader, io.BufferedRandom, io.FileIO)


def _path_of(content: Any) -> str | bytes | os.PathLike[str] | os.PathLike[bytes] | None:
    """The file path ``content`` names: itself (``str``, :class:`os.PathLike`), or the
    ``name`` of a plain binary file (:data:`_PLAIN_FILES`, opened by path) at its start, whose
    bytes are the file's from its first byte; else None (the object is read instead)."""
    if isinstance(content, (str, os.PathLike)):
        return content
    name = getattr(content, "name", None)
    if type(content) not in _PLAIN_FILES or not isinstance(name, (str, bytes)):
        return None
    try:
        at_start = content.seekable() and content.tell() == 0
    except (OSError, ValueError):  # a pipe, a closed file: read() says what it has
        return None
    return name if at_start else None
