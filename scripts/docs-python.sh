#!/usr/bin/env bash
# Builds the Python API reference (HTML) from the gatewire package's docstrings:
#
#   scripts/docs-python.sh OUTDIR        (make docs passes build/docs/python)
#
# Sphinx from the project's .venv (scripts/bootstrap.sh), offline (no intersphinx), every
# warning an error (-W), all of them reported (--keep-going). Sources: docs/python/.
set -euo pipefail
if [ $# -ne 1 ]; then
    echo "usage: scripts/docs-python.sh OUTDIR" >&2
    exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$1"
sphinx="$root/.venv/bin/sphinx-build"
if [ ! -x "$sphinx" ]; then
    echo "docs-python.sh: $sphinx is missing (run scripts/bootstrap.sh)" >&2
    exit 1
fi
# The doctrees (Sphinx's cache) beside the output, never in docs/; no .pyc in the checkout.
PYTHONDONTWRITEBYTECODE=1 "$sphinx" -W --keep-going -q -b html \
    -d "$out/.doctrees" "$root/docs/python" "$out"
echo "docs-python.sh: $out/index.html"
