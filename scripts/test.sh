#!/usr/bin/env bash
# Runs every Gatewire test suite on a fresh machine:
#   1. Swift (swift test): the core, against the scripted test server it starts itself;
#   2. ctest: the C ABI tests (one ctest each), the shared case runners, the Python binding
#      (pytest), the exports-vs-header check, strict header compiles, the version check, the
#      installed consumers, the README's examples (readme_examples), and the deploy test with
#      the toolchain hidden (installed and unpacked C consumers and CLI, a --static-swift-stdlib
#      Swift app, both Python wheels);
#   3. the bench's smoke mode (bench/run.py --smoke, on the library ctest built): every bench
#      client completes its requests with correct bodies (no speed is asserted);
#   4. the API references (scripts/docs.sh: Doxygen, DocC, Sphinx), failing on any warning;
#   5. the sanitizers (scripts/test-asan.sh: ASan+UBSan on the C suites and a Python subset;
#      scripts/test-tsan.sh: TSan on the Swift suites), the libFuzzer targets for
#      FUZZ_SECONDS each (scripts/fuzz.sh, default 60) and the fault soak with SOAK_CALLS calls
#      (scripts/soak.sh, default 10000 here).
# Each suite starts and stops its own servers. Fails on any compiler warning in our sources.
# Each build configuration compiles once: the debug build (.build) serves swift test and the
# Swift API reference; the release build (build/, scripts/build.sh) serves ctest, the bench
# smoke, the wheel and the tarball. The sanitizer and fuzz builds are configurations of their
# own, and the deploy test builds examples/swift-app as a user's package would be built.
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
# The failures are printed again last, with what each recorded, so that the end of a long
# log says which test and case failed.
test_log="$(mktemp)"
if ! python3 scripts/watchdog.py 900 "swift test" -- swift test --skip-build 2>&1 | tee "$test_log"; then
    echo "== swift test: the failures"
    grep -E -A3 "recorded an issue|^✘ Test .* failed" "$test_log" | grep -v "^◇" >&2 || true
    exit 1
fi
rm -f "$test_log"

echo "== cmake build, bench smoke, ctest (C ABI, mapping cases, Python binding, exports, install)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGW_BUILD_TESTS=ON >/dev/null
cmake --build build

echo "== bench smoke (every client completes with correct bodies; no speed asserted)"
python3 scripts/watchdog.py 600 "bench smoke" -- python3 bench/run.py --smoke --lib build/lib

ctest --test-dir build --output-on-failure

echo "== API references (make docs; any warning fails)"
python3 scripts/watchdog.py 900 "docs" -- bash scripts/docs.sh

# Each script limits its own test steps; these limits cover its builds too.
echo "== ASan + UBSan (make test-asan)"
python3 scripts/watchdog.py 2400 "test-asan" -- bash scripts/test-asan.sh
echo "== TSan (make test-tsan)"
python3 scripts/watchdog.py 3000 "test-tsan" -- bash scripts/test-tsan.sh
echo "== fuzz (make fuzz)"
python3 scripts/watchdog.py 3000 "fuzz" -- env FUZZ_SECONDS="${FUZZ_SECONDS:-60}" bash scripts/fuzz.sh
echo "== soak (make soak)"
python3 scripts/watchdog.py 1200 "soak" -- env SOAK_CALLS="${SOAK_CALLS:-10000}" bash scripts/soak.sh
