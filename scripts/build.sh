#!/usr/bin/env bash
# Builds the deployable artifacts, the one way both `make build` and CMake use:
#
#   scripts/build.sh CONFIG SCRATCH OUT [SWIFT BUILD FLAGS...]   (CONFIG: debug or release)
#
#   OUT/lib/libGatewire.so.MAJOR.MINOR.PATCH   SONAME libGatewire.so.MAJOR, exports gw_* only
#   OUT/lib/libGatewire.so.MAJOR -> libGatewire.so.MAJOR.MINOR.PATCH
#   OUT/lib/libGatewire.so       -> libGatewire.so.MAJOR
#   OUT/bin/gatewire                           the CLI
#   OUT/lib/_speedups<suffix>                  the Python binding's C extension (when Python.h is there)
#
# The library is SwiftPM's GatewireDynamic product (libGatewireDynamic.so), installed under
# the C name libGatewire: the `Gatewire` product is the one Swift programs link into themselves.
# Both link the Swift runtime statically (-static-stdlib), so at run time they need only
# Debian's libc, libm, libstdc++, libgcc_s, libcurl, libjansson, libhiredis, libyaml, zlib and libcrypto: no Swift toolchain
# (docs/deployment.md). The version comes from the VERSION file; SCRATCH is SwiftPM's
# scratch path (both products share its compiled modules). Extra flags after OUT are passed
# to both swift builds.
set -euo pipefail
if [ $# -lt 3 ] || [[ ! "$1" =~ ^(debug|release)$ ]]; then
    echo "usage: scripts/build.sh debug|release SCRATCH OUT [SWIFT BUILD FLAGS...]" >&2
    exit 2
fi
config="$1" scratch="$2" out="$3"
shift 3  # the rest goes to both swift builds (e.g. -Xswiftc -sanitize=address)
root="$(cd "$(dirname "$0")/.." && pwd)"
version="$(tr -d '[:space:]' < "$root/VERSION")"
if [[ ! "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
    echo "build.sh: VERSION must be MAJOR.MINOR.PATCH, not '$version'" >&2
    exit 1
fi
major="${version%%.*}"

# The same -Xswiftc flags in both builds, so the second reuses the first's compiled modules.
swift_flags=(-c "$config" --package-path "$root" --scratch-path "$scratch" -Xswiftc -static-stdlib "$@")
# A line per stage on stderr, so a long build says where it is (SwiftPM's own progress follows
# on stdout).
echo "build.sh: [1/3] the library, libGatewire.so (swift build -c $config; the longest stage)" >&2
swift build "${swift_flags[@]}" --product GatewireDynamic \
    -Xlinker "-soname=libGatewire.so.$major" -Xlinker "--version-script=$root/scripts/libgatewire.map"
echo "build.sh: [2/3] the CLI, gatewire (reuses the library's compiled modules)" >&2
swift build "${swift_flags[@]}" --product gatewire
echo "build.sh: [3/3] $out/lib and $out/bin" >&2

built="$scratch/$config"
mkdir -p "$out/lib" "$out/bin"
# cmp first: an unchanged library keeps its time stamp, so dependants are not relinked.
if ! cmp -s "$built/libGatewireDynamic.so" "$out/lib/libGatewire.so.$version"; then
    cp "$built/libGatewireDynamic.so" "$out/lib/libGatewire.so.$version"
fi
ln -sfn "libGatewire.so.$version" "$out/lib/libGatewire.so.$major"
ln -sfn "libGatewire.so.$major" "$out/lib/libGatewire.so"
if ! cmp -s "$built/gatewire" "$out/bin/gatewire"; then
    cp "$built/gatewire" "$out/bin/gatewire"
fi

# The Python binding's optional C extension (bindings/python/gatewire/_speedups.c), for the
# project's Python (.venv, else python3) when its headers are there: OUT/lib/_speedups<suffix>,
# next to the library, where the binding looks for it. Without it the binding uses ctypes alone.
python="$root/.venv/bin/python"
[ -x "$python" ] || python="$(command -v python3 || true)"
if [ -n "$python" ]; then
    read -r include suffix < <("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"], sysconfig.get_config_var("EXT_SUFFIX"))')
    if [ -f "$include/Python.h" ]; then
        "${CC:-cc}" -O2 -Wall -Wextra -Werror -shared -fPIC -I"$root/include" -I"$include" \
            -o "$out/lib/_speedups$suffix" "$root/bindings/python/gatewire/_speedups.c"
    else
        echo "build.sh: no Python.h for $python: the Python binding will use ctypes alone" >&2
    fi
fi
