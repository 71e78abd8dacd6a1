"""The package version, read from the ``VERSION`` file inside the package.

In the repository ``bindings/python/gatewire/VERSION`` is a symlink to the repository's
``VERSION``, the one source of the version (CMake, the header, ``gw_version()`` and the CLI
take theirs from it too); a wheel carries a copy of that file (``scripts/wheel.sh``), and
the wheel's own version is read from the same file (``pyproject.toml``). The
``version_agrees`` test checks that they all agree.
"""

from __future__ import annotations

import os

__all__ = ["VERSION", "MAJOR"]

def _read_version_file() -> str:
    with open(os.path.join(os.path.dirname(__file__), "VERSION"), encoding="ascii") as file:
        return file.read().strip()


#: ``"MAJOR.MINOR.PATCH"``, the version of this package and of the library it was built with.
VERSION: str = _read_version_file()

#: The major version: the library's SONAME is ``libGatewire.so.MAJOR``.
MAJOR: str = VERSION.split(".", 1)[0]
