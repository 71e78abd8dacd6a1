#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build, test, benchmark and document
# Gatewire: the library's own needs (scripts/install-deps.sh), then the developer's Debian
# packages (openssl for the TLS test certificates, nginx for the resilience tests and the
# bench, gdb for hung tests' stacks, Doxygen for the C API reference, redis-server (with
# redis-cli) for the Redis client's tests and faketime for tests that move a process's clock)
# and a project-local
# Python virtual environment (.venv) with the test and demo servers and the bench's peers.
# Idempotent: a second run only checks. Needs root for apt-get.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

bash "$here/scripts/install-deps.sh" \
    openssl \
    nginx-light \
    gdb \
    doxygen \
    redis-server \
    libhiredis-dev \
    libyaml-dev \
    faketime

venv="$here/.venv"
if [ ! -x "$venv/bin/python" ]; then
    echo "bootstrap: creating $venv" >&2
    python3 -m venv "$venv"
fi
# The venv keeps a copy of the requirements it was installed from: a changed list (a package
# added, a version moved) installs again, an unchanged one costs a file compare.
installed="$venv/gatewire-requirements.txt"
if ! cmp -s "$here/scripts/requirements.txt" "$installed"; then
    echo "bootstrap: installing the test, demo and bench tools into .venv (pip; a minute or two)" >&2
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/scripts/requirements.txt"
    cp "$here/scripts/requirements.txt" "$installed"
fi
