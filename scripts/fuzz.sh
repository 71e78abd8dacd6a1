#!/usr/bin/env bash
# make fuzz: builds the libFuzzer targets of fuzz/ (their own package, release, with ASan and
# libFuzzer's coverage) and runs each for FUZZ_SECONDS (default 60)
# from its seed corpus in fuzz/corpus/<target>. What the fuzzer adds goes to
# fuzz/.build/corpus/<target> (kept between local runs, not tracked); a crashing or hanging
# input is written to fuzz/.build/findings/ and fails the run. fuzz/README.md has longer runs.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh
seconds="${FUZZ_SECONDS:-60}"
targets="${FUZZ_TARGETS:-config mapper headers network abi}"
# --sanitize=fuzzer makes SwiftPM link libFuzzer's main in place of the targets' own; the
# -Xswiftc list, which comes after it, is what swiftc compiles with (only its last -sanitize=
# counts, so `--sanitize=fuzzer --sanitize=address` would lose the coverage instrumentation).
build=(swift build --package-path fuzz -c release --sanitize=fuzzer
       -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address)

echo "== fuzz build (${build[*]})"
"${build[@]}"
bin="$("${build[@]}" --show-bin-path)"
mkdir -p fuzz/.build/findings

for target in $targets; do
    corpus="fuzz/.build/corpus/$target"
    mkdir -p "$corpus"
    dict=()
    [ -f "fuzz/dict/$target.dict" ] && dict=(-dict="fuzz/dict/$target.dict")
    echo "== fuzz-$target for ${seconds}s"
    log="fuzz/.build/fuzz-$target.log"
    # -timeout: one input may take 10 s at most (a hang is a finding); -rss_limit_mb bounds a
    # runaway allocation. The watchdog allows the build-up and the final merge on top.
    status=0
    python3 scripts/watchdog.py $((seconds + 300)) "fuzz-$target" -- \
        "$bin/fuzz-$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="fuzz/.build/findings/$target-" "${dict[@]}" \
        "$corpus" "fuzz/corpus/$target" >"$log" 2>&1 || status=$?
    grep -E "^(#[0-9]+[[:space:]]+(INITED|DONE)|stat::number_of_executed_units|stat::average_exec_per_sec)" "$log" || true
    if [ "$status" -ne 0 ]; then
        tail -60 "$log" >&2
        echo "fuzz.sh: fuzz-$target failed (status $status); the input is in fuzz/.build/findings/" >&2
        exit 1
    fi
done
