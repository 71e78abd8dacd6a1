#!/usr/bin/env bash
# Runs every Gatewire test suite on a fresh machine:
#   1. Swift (swift test): the core, against the scripted test server it starts itself;
#   2. ctest: the C ABI test program, the Python binding (pytest), the exports-vs-header
#      check, strict header compiles, and an install + find_package/pkg-config consumer;
#   3. the bench's smoke mode (bench/run.py --smoke, on the library ctest built): every bench
#      client completes its requests with correct bodies (no speed is asserted).
# Each suite starts and stops its own servers. Fails on any compiler warning in our sources.
# Every step that runs tests has a time limit (scripts/watchdog.py; ctest's own per-test
# TIMEOUT; pytest-timeout): a hung step fails in minutes and prints where it hung.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh

echo "== swift build (debug; warnings are errors)"
build_log="$(mktemp)"
swift build --build-tests 2>&1 | tee "$build_log"
if grep -E "^$root/(Sources|Tests)/.*warning:" "$build_log"; then
    echo "test.sh: the build has warnings" >&2
    exit 1
fi
rm -f "$build_log"

echo "== swift test"
python3 scripts/watchdog.py 900 "swift test" -- swift test --skip-build

echo "== cmake build, bench smoke, ctest (C ABI, mapping cases, Python binding, exports, install)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build

echo "== bench smoke (every client completes with correct bodies; no speed asserted)"
python3 scripts/watchdog.py 600 "bench smoke" -- python3 bench/run.py --smoke --lib build/lib

ctest --test-dir build --output-on-failure
