#!/usr/bin/env bash
# Builds the gatewire Python wheels with libGatewire.so inside the package:
#
#   scripts/wheel.sh [LIBRARY_DIR [DIST_DIR]]
#
#   LIBRARY_DIR  where scripts/build.sh put libGatewire.so.VERSION and the binding's C extension
#                _speedups<EXT_SUFFIX> (default .build/lib, from `make build`; CMake's is build/lib)
#   DIST_DIR     where the wheels go (default dist)
#
# Writes two wheels and prints their paths, one a line (bindings/python/setup.py explains the tags):
#   DIST_DIR/gatewire-VERSION-cp311-cp311-linux_x86_64.whl  with the C extension, for the interpreter
#                                                           that builds it (the .venv's: CPython 3.11 here)
#   DIST_DIR/gatewire-VERSION-py3-none-linux_x86_64.whl     ctypes alone, for any Python 3.9+
# `pip install --no-index --find-links DIST_DIR gatewire` takes the first on that interpreter and
# the second on any other. The wheels need Debian's libcurl, libjansson, libhiredis and libyaml at run
# time, as the library does (docs/deployment.md, "The Python wheel", says why they are not
# vendored). Offline: setuptools from the project's .venv (scripts/bootstrap.sh), no build
# isolation, no index.
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

# The extension scripts/build.sh compiled for this interpreter (its EXT_SUFFIX, e.g.
# .cpython-311-x86_64-linux-gnu.so): a wheel's extension must match the interpreter it is tagged for.
suffix="$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
extension="$libdir/_speedups$suffix"
if [ ! -f "$extension" ]; then
    echo "wheel.sh: $extension is not built: scripts/build.sh compiles it for $python when that" \
         "Python's headers are installed (apt-get install python3-dev, then make build)" >&2
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
# Without their DWARF debug info (27.1 MB -> 16.2 MB installed, a 7.5 MB -> 4.9 MB wheel); the
# symbol table stays, so backtraces and profilers still name functions.
strip --strip-debug -o "$stage/gatewire/libGatewire.so" "$library"

mkdir -p "$dist"
rm -f "$dist/gatewire-$version-"*.whl
build_wheel() {
    rm -rf "$stage/build"  # setuptools' build folder would carry the previous wheel's files over
    "$python" -m pip wheel --quiet --disable-pip-version-check --no-build-isolation --no-deps --no-index \
        --wheel-dir "$dist" "$stage" >&2
}
# First ctypes alone (py3-none), then with the extension beside the library (cp3XX-cp3XX).
build_wheel
strip --strip-debug -o "$stage/gatewire/_speedups$suffix" "$extension"
build_wheel

wheels=("$dist/gatewire-$version-"*.whl)
cp_wheel=("$dist/gatewire-$version-"cp*-cp*-*.whl)
py3_wheel=("$dist/gatewire-$version-"py3-none-*.whl)
if [ "${#wheels[@]}" -ne 2 ] || [ ! -f "${cp_wheel[0]}" ] || [ ! -f "${py3_wheel[0]}" ] \
   || [[ "${py3_wheel[0]}" == *-none-any.whl ]]; then
    echo "wheel.sh: expected a cp3XX and a py3-none platform wheel in $dist, found: ${wheels[*]}" >&2
    exit 1
fi
echo "${cp_wheel[0]}"
echo "${py3_wheel[0]}"
