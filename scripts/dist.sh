#!/usr/bin/env bash
# The relocatable binary tarball of an install prefix (make dist):
#
#   scripts/dist.sh BUILD OUT
#
# installs the CMake build BUILD (cmake --install --prefix) into a fresh staging directory
# and packs it as OUT/gatewire-VERSION-OS-ARCH.tar.gz, e.g. gatewire-0.1.0-linux-x86_64.tar.gz,
# with one top folder gatewire-VERSION/ holding bin/gatewire, include/gatewire.h and lib/
# (libGatewire.so.VERSION, its two symlinks, pkgconfig/gatewire.pc, cmake/Gatewire/). Both
# package files find the prefix from their own location, so the tree works wherever it is
# unpacked; the symlinks are stored as symlinks. The library and the CLI are shipped without
# their debug info (strip --strip-debug). Prints the tarball's path.
set -euo pipefail
if [ $# -ne 2 ]; then
    echo "usage: scripts/dist.sh BUILD OUT" >&2
    exit 2
fi
build="$1" out="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
version="$(tr -d '[:space:]' < "$root/VERSION")"
os="$(uname -s | tr '[:upper:]' '[:lower:]')"
name="gatewire-$version"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cmake --install "$build" --prefix "$stage/$name" >/dev/null
# Without DWARF debug info, as the wheel's library: 27-32 MB each becomes 12-16 MB; the
# symbol table stays, so backtraces still name functions.
strip --strip-debug "$stage/$name/lib/libGatewire.so.$version" "$stage/$name/bin/gatewire"
mkdir -p "$out"
tarball="$(cd "$out" && pwd)/$name-$os-$(uname -m).tar.gz"
# Owner root and sorted names: the same tree always gives the same archive listing.
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner -czf "$tarball" "$name"
echo "$tarball"
