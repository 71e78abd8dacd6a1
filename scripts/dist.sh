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
# unpacked; the symlinks are stored as symlinks. The library and the CLI are installed
# without their debug info (scripts/split-debug.sh), which goes to a second tarball,
# OUT/gatewire-VERSION-OS-ARCH-dbgsym.tar.gz (Debian's name for such a package): the same top
# folder with lib/.debug/ and bin/.debug/, unpacked over the first where a debugger needs it.
# Prints the dbgsym tarball's path, then the tarball's (the last line).
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
mkdir -p "$out"
stem="$(cd "$out" && pwd)/$name-$os-$(uname -m)"
# Owner root and sorted names: the same tree always gives the same archive listing.
pack() { tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner "$@"; }
pack -czf "$stem-dbgsym.tar.gz" "$name/lib/.debug" "$name/bin/.debug"
pack --exclude=.debug -czf "$stem.tar.gz" "$name"
echo "$stem-dbgsym.tar.gz"
echo "$stem.tar.gz"
