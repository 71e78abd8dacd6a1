#!/usr/bin/env bash
# The Gatewire demo: the `gatewire` CLI and examples/httpbin.json against a real httpbin
# (the PyPI package, served by gunicorn) on 127.0.0.1, on a free port. The server is stopped
# by its PID when the script ends, whatever happens.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh
# The deployable CLI and library, as `make build` makes them (scripts/build.sh).
bash scripts/build.sh release .build .build >/dev/null
gatewire="$root/.build/bin/gatewire"
libdir="$root/.build/lib"
config="$root/examples/httpbin.json"

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

step() { printf '\n== %s\n$ %s\n' "$1" "${*:2}"; }
run() {  # runs the CLI; a failed call (exit 1) is part of the scenario, not of the script
    "$gatewire" "$@" --base-url "$base" || echo "(exit $?)"
}

step "check the gateway config" gatewire check examples/httpbin.json
"$gatewire" check "$config"

step "create an account: POST through the request descriptor (rootKeyPath \"user\")" \
    gatewire call --config examples/httpbin.json createAccount --body '{"name": "Ann Lee", "email": "ann@example.com", "plan": "free"}'
run call --config "$config" createAccount --body '{"name": "Ann Lee", "email": "ann@example.com", "plan": "free"}'

step "log in with a wrong password: 401, reported once by the global failure observer" \
    gatewire call --config examples/httpbin.json login --param user=ann --user ann:wrong --verbose
run call --config "$config" login --param user=ann --user ann:wrong --verbose

step "log in with basic auth from the config" gatewire call --config examples/httpbin.json login --param user=ann
run call --config "$config" login --param user=ann

step "update the account: PUT /anything/accounts/:id" \
    gatewire call --config examples/httpbin.json updateAccount --param id=42 --body '{"name": "Ann Lee", "email": "ann@example.org", "plan": "pro"}'
run call --config "$config" updateAccount --param id=42 --body '{"name": "Ann Lee", "email": "ann@example.org", "plan": "pro"}'

step "map a real payload: GET /json through a response descriptor with keyPath \"slideshow\"" \
    gatewire call --config examples/httpbin.json slideshow
run call --config "$config" slideshow

step "a gateway that keeps failing: GET /status/503 with 3 retries, growing delays, one failure reported" \
    gatewire call --config examples/httpbin.json flaky --verbose
run call --config "$config" flaky --verbose

step "global 401 handling in C: an observer filtered to 401 and a refreshing credential" \
    examples/refresh_401.c
example="$(mktemp -d)"
cc -std=c99 -Wall -I"$root/include" -o "$example/refresh_401" examples/refresh_401.c -L"$libdir" -lGatewire \
    -Wl,-rpath,"$libdir" -lpthread
"$example/refresh_401" "$base"
rm -rf "$example"

step "global 401 handling in Python: the same with the binding" python examples/refresh_401.py
GATEWIRE_LIB="$libdir/libGatewire.so" PYTHONPATH="$root/bindings/python" .venv/bin/python examples/refresh_401.py "$base"

echo
echo "== done; stopping httpbin (pid $server)"
