#!/usr/bin/env bash
# The API references, built offline, each failing on any warning (make docs):
#
#   scripts/docs.sh [c] [swift] [python]     (no argument: all three)
#
#   build/docs/c/       Doxygen over include/gatewire.h (docs/c/Doxyfile)
#   build/docs/swift/   DocC over the Gatewire module's symbol graphs and
#                       Sources/Gatewire/Gatewire.docc (static hosting layout: serve the
#                       folder over HTTP, e.g. python3 -m http.server -d build/docs/swift)
#   build/docs/python/  Sphinx over bindings/python (scripts/docs-python.sh OUTDIR)
#
# Every part runs even when an earlier one failed, so one run reports every problem; the
# script exits non-zero if any part failed. Prints each part's time and its index.html.
# The symbol graphs come from the debug build of the Gatewire target in SwiftPM's default
# scratch path (.build), the build `swift build` and scripts/test.sh make, so after them it
# compiles nothing. The swift-docc-plugin package cannot be fetched offline, so the
# toolchain's docc is called directly.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

out=build/docs
parts=("$@")
[ "${#parts[@]}" -gt 0 ] || parts=(c swift python)

# Where each part's front page is written.
index_of() {
    case "$1" in
        c) echo "$out/c/index.html" ;;
        swift) echo "$out/swift/documentation/gatewire/index.html" ;;
        python) echo "$out/python/index.html" ;;
    esac
}

docs_c() {
    command -v doxygen >/dev/null || { echo "docs: doxygen is missing (run scripts/bootstrap.sh)" >&2; return 1; }
    rm -rf "$out/c"
    mkdir -p "$out/c"
    # WARN_AS_ERROR=FAIL_ON_WARNINGS: every warning is printed, then doxygen exits 1.
    GW_VERSION="$(cat VERSION)" GW_DOCS_C_OUTPUT="$out/c" doxygen docs/c/Doxyfile
}

docs_swift() {
    local bin docc modules graphs
    bin="$(dirname "$(command -v swift)")"
    docc="$bin/docc"
    [ -x "$docc" ] || { echo "docs: $docc is missing (the Swift toolchain's docc)" >&2; return 1; }
    modules=.build/debug
    graphs=build/docs-symbol-graphs
    swift build --target Gatewire
    # One symbol graph: the Gatewire module with the public API it re-exports from the lower
    # targets (`@_exported import`). Given a graph per module, DocC sees several modules and
    # picks the root among them at random, and links across them fail.
    rm -rf "$graphs"
    mkdir -p "$graphs" "$out"
    "$bin/swift-symbolgraph-extract" -module-name Gatewire -target "$(uname -m)-unknown-linux-gnu" \
        -I "$modules/Modules" -I Sources/CCurl -I Sources/CJansson -I Sources/CZlib -I Sources/CCrypto -I Sources/CHiredis -I Sources/CGatewireABI \
        -I Sources/CGatewireArena/include -Xcc -fmodule-map-file="$modules/CGatewireArena.build/module.modulemap" \
        -minimum-access-level public \
        -experimental-allowed-reexported-modules=GatewireBase,GatewireDescriptors,GatewireJSON,GatewireMapping,GatewireTransport \
        -output-dir "$graphs"
    rm -rf "$out/swift"
    "$docc" convert Sources/Gatewire/Gatewire.docc \
        --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name Gatewire --fallback-bundle-identifier gatewire.Gatewire \
        --warnings-as-errors --transform-for-static-hosting \
        --output-path "$out/swift"
}

docs_python() {
    bash scripts/docs-python.sh "$out/python"
}

failed=()
summary=()
for part in "${parts[@]}"; do
    case "$part" in
        c|swift|python) ;;
        *) echo "usage: scripts/docs.sh [c] [swift] [python]" >&2; exit 2 ;;
    esac
    echo "docs: building $part" >&2
    index="$(index_of "$part")"
    start=$EPOCHREALTIME
    # A subshell with errexit of its own, outside any if or ||, where bash would ignore it.
    set +e
    ( set -e; "docs_$part"; [ -f "$index" ] || { echo "docs: $index was not written" >&2; exit 1; } )
    rc=$?
    set -e
    status=ok
    if [ "$rc" -ne 0 ]; then
        status=FAILED
        failed+=("$part")
    fi
    seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    summary+=("$(printf '%-7s %-7s %7s s  %s' "$part" "$status" "$seconds" "$root/$index")")
done

echo "docs:"
printf '  %s\n' "${summary[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "docs: FAILED: ${failed[*]}" >&2
    exit 1
fi
