#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build and test Gatewire:
# Debian packages (libcurl, Jansson, zlib, OpenSSL's libcrypto, CMake, pkg-config; nginx for the bench; Doxygen for the
# C API reference) and a project-local Python virtual environment (.venv) with the test and
# demo servers.
# Idempotent: a second run only checks. Needs root for apt-get.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

debs=(libcurl4-openssl-dev libjansson-dev zlib1g-dev cmake pkg-config openssl
      libssl-dev   # libcrypto's SHA-256: the HTTP cache's entry names
      nginx-light  # the resilience tests and the bench run a real nginx
      gdb          # scripts/watchdog.py prints a hung test's thread stacks
      doxygen)     # make docs: the C API reference from include/gatewire.h (docs/c/Doxyfile)
missing=()
for p in "${debs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "bootstrap: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

venv="$here/.venv"
if [ ! -x "$venv/bin/python" ]; then
    echo "bootstrap: creating $venv" >&2
    python3 -m venv "$venv"
fi
# The venv keeps a copy of the requirements it was installed from: a changed list (a package
# added, a version moved) installs again, an unchanged one costs a file compare.
installed="$venv/gatewire-requirements.txt"
if ! cmp -s "$here/scripts/requirements.txt" "$installed"; then
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/scripts/requirements.txt"
    cp "$here/scripts/requirements.txt" "$installed"
fi
