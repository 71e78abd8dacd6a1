"""The Gatewire repository this package is imported from, if it is.

The package is run straight from a checkout (``PYTHONPATH=bindings/python``, or
``pip install -e bindings/python``) as well as installed from a wheel. Only in the first case
are the repository's build outputs meaningful places to look for the library
(:mod:`gatewire._native`); an installed copy must never wander up into whatever folders
happen to lie above it.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["repository_root"]

# Files that only the Gatewire repository has around bindings/python/gatewire.
_MARKERS = ("VERSION", "Package.swift", "include/gatewire.h")


def repository_root() -> Path | None:
    """The repository's root when this package is its ``bindings/python/gatewire``, else None.

    Returns:
        The absolute root path (symlinks resolved), or None for an installed copy (a wheel in
        ``site-packages``, or any folder that is not ``bindings/python`` of a checkout with
        ``VERSION``, ``Package.swift`` and ``include/gatewire.h`` at its root).
    """
    package = Path(__file__).resolve().parent
    bindings = package.parent.parent
    if (package.name, package.parent.name, bindings.name) != ("gatewire", "python", "bindings"):
        return None
    root = bindings.parent
    return root if all((root / marker).is_file() for marker in _MARKERS) else None
