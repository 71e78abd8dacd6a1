"""Sphinx configuration of the gatewire Python API reference (scripts/docs-python.sh).

The reference is generated from the package's docstrings (autodoc; napoleon reads their
``Args:``/``Returns:``/``Raises:`` sections). Importing gatewire does not load
libGatewire.so, so the reference builds without the library, offline.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))

import gatewire  # noqa: E402 - after the path is set

project = "gatewire"
author = "Gatewire"
copyright = "Gatewire authors"
# The package's version is the repository's VERSION file (gatewire._version).
version = release = gatewire.__version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
napoleon_google_docstring = True
napoleon_numpy_docstring = False
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "show-inheritance": True}

html_theme = "alabaster"
html_title = f"gatewire {release}"
exclude_patterns = ["_build"]
# Signatures name these aliases instead of spelling out the types they stand for.
autodoc_type_aliases = {
    "Config": "gatewire._config.Config",
    "RetryTest": "gatewire.RetryTest",
    "RetryAnswer": "gatewire.RetryAnswer",
    "FailureObserver": "gatewire.FailureObserver",
}
