#!/usr/bin/env bash
# Installs what building and using the Gatewire library needs on Debian 12, and nothing else:
# libcurl (OpenSSL flavour), Jansson, zlib, OpenSSL's libcrypto, hiredis (the Redis
# client's protocol and async API) and libyaml (OpenAPI documents written in YAML) with their
# headers, CMake
# and pkg-config. The Swift 6.3 toolchain must be on PATH already (swift.org's tarball).
# A developer runs scripts/bootstrap.sh instead, which runs this first and then adds the test,
# bench and documentation tools.
# Idempotent: a second run only checks. Needs root for apt-get.
set -euo pipefail

debs=(libcurl4-openssl-dev libjansson-dev zlib1g-dev libssl-dev libhiredis-dev libyaml-dev cmake pkg-config)
missing=()
for p in "${debs[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "install-deps: installing ${missing[*]} (apt-get)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v swift >/dev/null || echo "install-deps: no swift on PATH: Gatewire builds with the Swift 6.3 toolchain" >&2
