#!/usr/bin/env bash
# make test-asan: the library and the C tests under AddressSanitizer, UndefinedBehaviorSanitizer
# on the C targets (CMake option GW_SANITIZE=address, in build-asan/ with the toolchain's clang):
#   1. ctest's C programs (label "c": c_api.*, c_mapping_cases, jansson_sharing_*,
#      c_resilience_cases, c_*_reject_unknown_keys), whose executables carry the shared ASan runtime;
#   2. a Python subset (calls, call_many, the native layer, the shared mapping and resilience
#      cases) with that runtime in LD_PRELOAD. Leak detection is off for Python only: CPython
#      keeps its interned objects until exit by design, and every report would name it.
# Any report ends the run (halt_on_error; UBSan does not recover) with a non-zero status.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh

clang="$(dirname "$(command -v swift)")/clang"
runtime="$("$clang" -print-file-name=libclang_rt.asan-x86_64.so)"
if [ ! -f "$runtime" ]; then
    echo "test-asan.sh: no libclang_rt.asan-x86_64.so next to $clang" >&2
    exit 1
fi

# verify_asan_link_order=0: the watchdog runs each step under stdbuf, whose LD_PRELOAD puts
# libstdbuf.so (it only sets stdout's buffering) ahead of the ASan runtime. Set before the
# build too: it runs test_gatewire_c --list to register the c_api.* tests.
export ASAN_OPTIONS="halt_on_error=1:verify_asan_link_order=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

echo "== cmake build with GW_SANITIZE=address (Swift -sanitize=address; C -fsanitize=address,undefined)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGW_SWIFT_CONFIG=debug -DGW_SANITIZE=address -DGW_BUILD_TESTS=ON \
      -DCMAKE_C_COMPILER="$clang" >/dev/null
cmake --build build-asan

echo "== ASan+UBSan: the C suites"
python3 scripts/watchdog.py 900 "asan ctest" -- ctest --test-dir build-asan -L '^c$' --output-on-failure

echo "== ASan: a Python subset (LD_PRELOAD=$(basename "$runtime"), detect_leaks=0 for CPython)"
GATEWIRE_LIB="$root/build-asan/lib/libGatewire.so" \
PYTHONPATH="$root/bindings/python:$root/Tests/tools" PYTHONDONTWRITEBYTECODE=1 \
LD_PRELOAD="$runtime" ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
    python3 scripts/watchdog.py 900 "asan pytest" -- .venv/bin/python -m pytest -q -p gw_no_skip \
        -o cache_dir="$root/build-asan/pytest_cache" \
        Tests/python/test_calls.py Tests/python/test_call_many.py Tests/python/test_native.py \
        Tests/python/test_mapping_cases.py Tests/python/test_resilience_cases.py
