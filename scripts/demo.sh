#!/usr/bin/env bash
# The Gatewire demo: the `gatewire` CLI and examples/httpbin.json against a real httpbin
# (the PyPI package, served by gunicorn) on 127.0.0.1, on a free port. The server is stopped
# by its PID when the script ends, whatever happens.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
echo "== demo: installing what the machine lacks (scripts/bootstrap.sh)"
bash scripts/bootstrap.sh
# The deployable CLI and library, as `make build` makes them (scripts/build.sh). Its output
# goes to a log; its stage lines and, on failure, the log's end and path come here.
build_log="$root/.build/demo-build.log"
mkdir -p "$root/.build"
echo "== demo: building the library and the CLI (scripts/build.sh release; the first build takes" \
     "about 6 minutes on 2 cores, a rebuild seconds; log: $build_log)"
: >"$build_log"
if ! bash scripts/build.sh release .build .build >>"$build_log" 2> >(tee -a "$build_log" | grep --line-buffered '^build.sh:' >&2); then
    tail -n 30 "$build_log" >&2
    echo "demo: the build failed; the whole log: $build_log" >&2
    exit 1
fi

log="$(mktemp)"
.venv/bin/gunicorn --bind 127.0.0.1:0 --workers 1 --threads 8 --error-logfile - httpbin:app >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -f "$log"' EXIT
port=""
for _ in $(seq 1 300); do
    port="$(sed -n 's/.*Listening at: http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log" | head -n 1)"
    [ -n "$port" ] && break
    kill -0 "$server" 2>/dev/null || { cat "$log" >&2; echo "demo: httpbin did not start" >&2; exit 1; }
    sleep 0.1
done
[ -n "$port" ] || { cat "$log" >&2; echo "demo: httpbin did not report its port within 30 s" >&2; exit 1; }
base="http://127.0.0.1:$port"
echo "== httpbin (gunicorn, pid $server) on $base"

# Each command is printed as it can be pasted into a shell in the repository root (an argument
# the shell would split or expand is single-quoted), then run.
shown() {
    local argument line="$"
    for argument in "$@"; do
        if [[ "$argument" =~ ^[A-Za-z0-9_./:=@%+,-]+$ ]]; then
            line+=" $argument"
        else
            line+=" '${argument//\'/\'\\\'\'}'"
        fi
    done
    printf '%s\n' "$line"
}
step() { printf '\n== %s\n' "$1"; }
gw() {  # the CLI against the demo's httpbin; a failed call (exit 1) is part of the scenario
    shown .build/bin/gatewire "$@" --base-url "$base"
    .build/bin/gatewire "$@" --base-url "$base" || echo "(exit $?)"
}
shell() {  # any other command of the scenario
    shown "$@"
    "$@"
}

step "check the gateway config"
shell .build/bin/gatewire check examples/httpbin.json

step "create an account: POST through the request descriptor (rootKeyPath \"user\")"
gw call --config examples/httpbin.json createAccount --body '{"name": "Ann Lee", "email": "ann@example.com", "plan": "free"}'

step "log in with a wrong password: 401, reported once by the global failure observer"
gw call --config examples/httpbin.json login --param user=ann --user ann:wrong --verbose

step "log in with basic auth from the config"
gw call --config examples/httpbin.json login --param user=ann

step "update the account: PUT /anything/accounts/:id"
gw call --config examples/httpbin.json updateAccount --param id=42 --body '{"name": "Ann Lee", "email": "ann@example.org", "plan": "pro"}'

step "map a real payload: GET /json through a response descriptor with keyPath \"slideshow\""
gw call --config examples/httpbin.json slideshow

step "a gateway that keeps failing: GET /status/503 with 3 retries, growing delays, one failure reported"
gw call --config examples/httpbin.json flaky --verbose

step "global 401 handling in C: an observer filtered to 401 and a refreshing credential"
mkdir -p .build/demo
shell cc -std=c99 -Wall -Iinclude -o .build/demo/refresh_401 examples/refresh_401.c -L.build/lib -lGatewire \
    -Wl,-rpath,.build/lib -lpthread
shell .build/demo/refresh_401 "$base"

step "global 401 handling in Python: the same with the binding"
shell env GATEWIRE_LIB=.build/lib/libGatewire.so PYTHONPATH=bindings/python .venv/bin/python examples/refresh_401.py "$base"

echo
echo "== done; stopping httpbin (pid $server)"
