#!/usr/bin/env bash
# Builds the gatewire Python wheel with libGatewire.so inside the package:
#
#   scripts/wheel.sh [LIBRARY_DIR [DIST_DIR]]
#
#   LIBRARY_DIR  where scripts/build.sh put libGatewire.so.VERSION (default .build/lib, from
#                `make build`; CMake's is build/lib)
#   DIST_DIR     where the wheel goes (default dist)
#
# Writes DIST_DIR/gatewire-VERSION-py3-none-linux_x86_64.whl (the platform of this machine;
# bindings/python/setup.py explains the tag) and prints its path. The wheel needs Debian's
# libcurl, libjansson and libhiredis at run time, as the library does (docs/deployment.md, "The Python
# wheel", says why they are not vendored). Offline: setuptools from the project's .venv
# (scripts/bootstrap.sh), no build isolation, no index.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
libdir="${1:-$root/.build/lib}"
dist="${2:-$root/dist}"
version="$(tr -d '[:space:]' < "$root/VERSION")"
library="$libdir/libGatewire.so.$version"
if [ ! -f "$library" ]; then
    echo "wheel.sh: $library is not built (make build, or cmake --build build and pass build/lib)" >&2
    exit 1
fi
# The project's .venv when there is one (scripts/bootstrap.sh), else $PYTHON or python3: a user
# building only the wheel needs setuptools >= 70.1 in it and nothing else.
python="$root/.venv/bin/python"
[ -x "$python" ] || python="${PYTHON:-python3}"
if ! "$python" -c 'import setuptools.command.bdist_wheel' 2>/dev/null; then
    echo "wheel.sh: $python lacks setuptools >= 70.1 ('$python -m pip install \"setuptools>=70.1\"')" >&2
    exit 1
fi

# The package is built from a copy, so the checkout gets no build/ or *.egg-info and never
# holds a library of its own; -L turns the VERSION symlink into the file the wheel carries.
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
package="$root/bindings/python"
mkdir "$stage/gatewire"
cp -L "$package/pyproject.toml" "$package/setup.py" "$package/README.md" "$stage/"
cp -L "$package"/gatewire/*.py "$package/gatewire/py.typed" "$package/gatewire/VERSION" "$stage/gatewire/"
# Without its DWARF debug info (27.1 MB -> 16.2 MB installed, a 7.5 MB -> 4.9 MB wheel); the
# symbol table stays, so backtraces and profilers still name functions.
strip --strip-debug -o "$stage/gatewire/libGatewire.so" "$library"

mkdir -p "$dist"
rm -f "$dist/gatewire-$version-"*.whl
"$python" -m pip wheel --quiet --disable-pip-version-check --no-build-isolation --no-deps --no-index \
    --wheel-dir "$dist" "$stage" >&2
wheel=("$dist/gatewire-$version-"*.whl)
if [ "${#wheel[@]}" -ne 1 ] || [[ "${wheel[0]}" == *-none-any.whl ]]; then
    echo "wheel.sh: expected one platform wheel in $dist, found: ${wheel[*]}" >&2
    exit 1
fi
echo "${wheel[0]}"
