#!/usr/bin/env bash
# make soak: the fault soak (soak/soak.c against soak/fault_server.py): SOAK_CALLS calls
# (default 100000) at SOAK_IN_FLIGHT (256) in flight through the C ABI, about 10% with an
# injected fault; every call must complete exactly once with its own body, and RSS and fds
# must stay flat (the checks and figures: soak/soak.c). scripts/test.sh runs 10,000 calls.
# Uses the release library of the
# CMake build in build/ (built here if missing). The server is stopped by its PID.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh
calls="${SOAK_CALLS:-100000}"
in_flight="${SOAK_IN_FLIGHT:-256}"
lib="$root/build/lib"

if [ ! -f "$lib/libGatewire.so" ]; then
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build build
fi
mkdir -p build-soak
cc -std=c99 -O2 -Wall -Wextra -pedantic -D_POSIX_C_SOURCE=200809L -I include soak/soak.c \
   -L "$lib" -Wl,-rpath,"$lib" -lGatewire -o build-soak/soak

# The backlog (4096) exceeds the calls in flight, so no SYN waits for a retransmission; the
# kernel caps it at net.core.somaxconn.
somaxconn="$(cat /proc/sys/net/core/somaxconn)"
if [ "$somaxconn" -le "$in_flight" ]; then
    echo "soak.sh: net.core.somaxconn ($somaxconn) must exceed the calls in flight ($in_flight)" >&2
    exit 1
fi
server_log="build-soak/server.log"
.venv/bin/python soak/fault_server.py --backlog 4096 >"$server_log.port" 2>"$server_log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    grep -q '^PORT ' "$server_log.port" 2>/dev/null && break
    sleep 0.1
done
port="$(sed -n 's/^PORT //p' "$server_log.port")"
if [ -z "$port" ]; then
    cat "$server_log" >&2
    echo "soak.sh: fault_server.py did not start" >&2
    exit 1
fi

echo "== soak: $calls calls, $in_flight in flight, ~10% faults, on 127.0.0.1:$port"
python3 scripts/watchdog.py $((300 + calls / 100)) "soak" -- \
    build-soak/soak "http://127.0.0.1:$port" "$calls" "$in_flight"
echo "soak: server saw $(.venv/bin/python -c "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())" "http://127.0.0.1:$port/stats")"
