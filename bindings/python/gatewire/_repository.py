"""The Gatewire repository this package is imported from, if it is.

The package is run straight from a checkout (``PYTHONPATH=bindings/python``, or
``pip install -e bindings/python``) as well as installed from a wheel. Only in the first case
are the repository's build outputs meaningful places to look for the library
(:mod:`gatewire._native`); an installed copy must never wander up into whatever folders
happen to lie above it.
"""

from __future__ import annotations

import os

__all__ = ["repository_root"]

# Files that only the Gatewire repository has around bindings/python/gatewire.
_MARKERS = ("VERSION", "Package.swift", os.path.join("include", "gatewire.h"))


def repository_root() -> str | None:
    """The repository's root when this package is its ``bindings/python/gatewire``, else None.

    Returns:
        The absolute root path (symlinks resolved), or None for an installed copy (a wheel in
        ``site-packages``, or any folder that is not ``bindings/python`` of a checkout with
        ``VERSION``, ``Package.swift`` and ``include/gatewire.h`` at its root).
    """
    package = os.path.dirname(os.path.realpath(__file__))
    python = os.path.dirname(package)
    bindings = os.path.dirname(python)
    names = tuple(os.path.basename(folder) for folder in (package, python, bindings))
    if names != ("gatewire", "python", "bindings"):
        return None
    root = os.path.dirname(bindings)
    return root if all(os.path.isfile(os.path.join(root, marker)) for marker in _MARKERS) else None
