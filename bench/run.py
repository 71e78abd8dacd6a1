"""Gatewire's benchmark: Gatewire (C ABI, Swift, Python) against the raw-libcurl ceiling
and the peers, in one run, on one nginx.

    python3 bench/run.py            # the full bench (make bench): 3 runs per row
    python3 bench/run.py --smoke    # CI (make bench-smoke): few requests, one run, a few
                                    # clients; checks every client completed with correct
                                    # bodies, never speed

What it does: generates the two bodies (gen_data.py, fixed seed), starts nginx with its own
config in a temp dir on a free loopback port (stopped by its PID whatever happens), builds
the C clients (gcc) and the Swift clients (SwiftPM, bench/swift), then runs every client as
its own process, each doing the same fixed number of requests, at 1 and at 64 in flight.
Pinned (the default on 2+ cores), nginx has CPU 0 and each client the others; the Gatewire
clients also run (b) at 64 in flight on every core (rows "..., all cores"), where the worker
pool parses and maps beside the event loop: the target against the best Python peer on this
machine reads those rows.

Each client prints its timed phase (requests, verified responses, elapsed, CPU of the whole
process in that phase); the runner adds the whole-process peak RSS and CPU from wait4's
rusage. The rows of a workload take turns: run 1 of every row, then run 2, and so on.
Reported per row: requests/s (median of the runs), spread ((max - min) / median),
CPU ms per request (timed phase, every thread), peak RSS (MiB), and for Gatewire rows the
ratio to the ceiling and to the best peer of the same workload and in-flight count. Written
as a table (stdout, bench/results/latest.md) and as JSON (bench/results/latest.json); a run
of some rows (``--only``) writes only.md and only.json instead, so the last full run's record
is kept.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from upload import upload_rows, upload_table, upload_targets
import downloads as bench_downloads  # bench/downloads.py, beside this file
import fleet as bench_fleet  # bench/fleet.py
import telemetry as bench_telemetry  # bench/telemetry.py

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
WORKLOADS = {"a": "small.json", "b": "users.json"}
DESCRIPTION = {"a": "(a) 224 B object", "b": "(b) 1,000 users"}


@dataclass
class Client:
    """One bench client: a name, its kind (ceiling, gatewire, peer) and how to run it."""

    name: str
    kind: str
    workloads: tuple[str, ...]
    inflight: tuple[int, ...]
    command: object  # (workload, requests, inflight) -> argv
    smoke: bool = False
    env: dict[str, str] = field(default_factory=dict)
    all_cores: bool = False  # run on every CPU (beside nginx) even when the others are pinned


@dataclass
class Row:
    client: str
    kind: str
    workload: str
    inflight: int
    requests: int
    runs: list[dict]
    rate: float = 0.0
    spread: float = 0.0
    cpu_ms: float = 0.0
    process_cpu_ms: float = 0.0
    rss_mib: float = 0.0
    vs_ceiling: float | None = None
    vs_best_peer: float | None = None
    best_peer: str | None = None

    def summarize(self) -> None:
        rates = [run["requests"] / run["elapsed"] for run in self.runs]
        self.rate = statistics.median(rates)
        self.spread = (max(rates) - min(rates)) / self.rate if self.rate else 0.0
        self.cpu_ms = statistics.median(run["cpu"] / run["requests"] for run in self.runs) * 1000
        self.process_cpu_ms = statistics.median(run["process_cpu"] / run["requests"] for run in self.runs) * 1000
        self.rss_mib = max(run["maxrss_kib"] for run in self.runs) / 1024


# ---- nginx --------------------------------------------------------------------------------
NGINX_CONF = """daemon off;
master_process off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
worker_rlimit_nofile 8192;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    keepalive_requests 10000000;
    keepalive_timeout 300s;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    etag off;
    types {{ application/json json; }}
    default_type application/json;
    client_body_temp_path {dir}/tmp;
    proxy_temp_path {dir}/tmp;
    fastcgi_temp_path {dir}/tmp;
    uwsgi_temp_path {dir}/tmp;
    scgi_temp_path {dir}/tmp;
    server {{
        listen 127.0.0.1:{port} backlog=4096;
        root {dir}/www;
        # (a) as a response a client cache may keep for an hour: the cache-hit row.
        location = /cached/small.json {{
            alias {dir}/www/small.json;
            add_header Cache-Control "max-age=3600";
        }}
    }}
    # The HTTP/2 rows: TLS (a self-signed certificate made for the run), nginx's default
    # stream limit written out, and each request's connection serial logged, so a row says
    # how many connections its client opened.
    log_format connection '$connection';
    server {{
        listen 127.0.0.1:{h2_port} ssl http2 backlog=4096;
        ssl_certificate {dir}/cert.pem;
        ssl_certificate_key {dir}/key.pem;
        http2_max_concurrent_streams 128;
        access_log {dir}/h2.log connection buffer=256k flush=1s;
        root {dir}/www;
    }}
}}
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Nginx:
    """nginx in the foreground (one process, one worker: the other core is the client's)."""

    def __init__(self, workdir: Path) -> None:
        self.dir = workdir / "nginx"
        (self.dir / "tmp").mkdir(parents=True)
        (self.dir / "www").mkdir()
        subprocess.run([sys.executable, str(BENCH / "gen_data.py"), str(self.dir / "www")], check=True)
        self.process: subprocess.Popen | None = None
        self.port = 0
        self.h2_port = 0
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(self.dir / "key.pem"),
                        "-out", str(self.dir / "cert.pem")], check=True, capture_output=True)

    def sizes(self) -> dict[str, int]:
        return {w: (self.dir / "www" / name).stat().st_size for w, name in WORKLOADS.items()}

    def start(self) -> None:
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        for _ in range(5):
            self.port, self.h2_port = free_port(), free_port()
            conf = self.dir / "nginx.conf"
            conf.write_text(NGINX_CONF.format(dir=self.dir, port=self.port, h2_port=self.h2_port))
            self.process = subprocess.Popen([binary, "-c", str(conf), "-p", str(self.dir), "-e", str(self.dir / "error.log")],
                                            stdin=subprocess.DEVNULL, preexec_fn=lambda: setup_child(SERVER_CPUS))
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and self.process.poll() is None:
                try:
                    with urllib.request.urlopen(f"{self.url}/small.json", timeout=1) as response:
                        if response.status == 200:
                            return
                except OSError:
                    time.sleep(0.05)
            self.stop()  # the port was taken meanwhile, or nginx failed: try another
        raise RuntimeError(f"nginx did not start; see {self.dir / 'error.log'}")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def h2_url(self) -> str:
        return f"https://127.0.0.1:{self.h2_port}"

    @property
    def certificate(self) -> Path:
        return self.dir / "cert.pem"

    def forget_h2_connections(self) -> None:
        """Empties the HTTP/2 server's log (nginx appends to it: O_APPEND)."""
        (self.dir / "h2.log").write_text("")

    def h2_connections(self) -> int:
        """Connections that served a request since ``forget_h2_connections``; waits out the
        log's 1 s flush first."""
        time.sleep(1.3)
        return len(set((self.dir / "h2.log").read_text().split()))

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


# With --pin (the default on 2+ cores) nginx runs on CPU 0 and every client on the others:
# unpinned, a ping-pong at 1 in flight is bimodal (server and client on one core or on two)
# and the spread of the runs grows past 50%.
SERVER_CPUS: set[int] | None = None
CLIENT_CPUS: set[int] | None = None
PINNED = False


def setup_child(cpus: set[int] | None) -> None:
    """Runs in each child before exec: the CPU set, and a descriptor limit high enough for
    1,000 connections in flight (the usual soft limit is 1,024)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else 65536
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(target, 65536)), hard))
    if cpus:
        os.sched_setaffinity(0, cpus)


# ---- Building the clients -------------------------------------------------------------------
def build(args: argparse.Namespace, out: Path) -> dict[str, Path]:
    """Builds the library (unless --lib), the C clients and (unless --no-swift) the Swift clients."""
    lib = Path(args.lib).resolve() if args.lib else None
    if lib is None:
        log("building libGatewire (scripts/build.sh release, as make build)")
        subprocess.run(["bash", str(ROOT / "scripts" / "build.sh"), "release", ".build", ".build"], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
        lib = ROOT / ".build" / "lib"
    if not (lib / "libGatewire.so").exists():
        raise SystemExit(f"run.py: no libGatewire.so in {lib}")
    cflags = ["-O2", "-Wall", "-Wextra", "-Werror"]
    curl = subprocess.run(["pkg-config", "--cflags", "--libs", "libcurl", "jansson"], check=True,
                          capture_output=True, text=True).stdout.split()
    out.mkdir(parents=True, exist_ok=True)
    paths = {"lib": lib}
    log("building the C clients (gcc)")
    subprocess.run(["gcc", *cflags, "-o", str(out / "ceiling"), str(BENCH / "c" / "ceiling.c"), *curl], check=True)
    subprocess.run(["gcc", *cflags, f"-I{ROOT / 'include'}", "-o", str(out / "gatewire_c"), str(BENCH / "c" / "gatewire_c.c"),
                    f"-L{lib}", "-lGatewire", f"-Wl,-rpath,{lib}", "-lpthread"], check=True)
    subprocess.run(["gcc", *cflags, f"-I{ROOT / 'include'}", "-o", str(out / "openloop"), str(BENCH / "c" / "openloop.c"), *curl,
                    f"-L{lib}", "-lGatewire", f"-Wl,-rpath,{lib}", "-lpthread", "-lm"], check=True)
    subprocess.run(["gcc", *cflags, f"-I{ROOT / 'include'}", "-o", str(out / "upload"), str(BENCH / "c" / "upload.c"),
                    f"-L{lib}", "-lGatewire", f"-Wl,-rpath,{lib}"], check=True)
    subprocess.run(["gcc", *cflags, "-o", str(out / "otlp_sink"), str(BENCH / "c" / "otlp_sink.c"), "-lpthread"], check=True)
    paths["ceiling"] = out / "ceiling"
    paths["otlp_sink"] = out / "otlp_sink"
    paths["gatewire_c"] = out / "gatewire_c"
    paths["openloop"] = out / "openloop"
    paths["upload"] = out / "upload"
    if args.swift:
        log("building the Swift clients (swift build -c release --package-path bench/swift)")
        swift = BENCH / "swift"
        subprocess.run(["swift", "build", "-c", "release", "--package-path", str(swift)], check=True, stdout=subprocess.DEVNULL)
        paths["swift_bin"] = swift / ".build" / "release"
    return paths


def gateway_config(url: str) -> dict:
    """The gateway config of the Gatewire clients: (a) has no descriptor (the raw body), (b) maps
    every user: renames, a nested object, integer coercion of a digit string, a date."""
    return {
        "baseURL": url,
        "routes": {"small": {"method": "GET", "pathPattern": "/small.json"},
                   "users": {"method": "GET", "pathPattern": "/users.json"}},
        "mappings": {
            "User": {"attributes": {"id": {"to": "userId", "type": "integer"}, "name": "fullName",
                                    "admin": {"to": "isAdmin", "type": "boolean"},
                                    "score": {"to": "score", "type": "number"},
                                    "posts": {"to": "postCount", "type": "integer"},
                                    "created": {"to": "createdAt", "type": "date"}, "team": "team"},
                     "relationships": {"home": {"to": "home", "mapping": "Place"}}},
            "Place": {"attributes": {"city": "cityName"}},
        },
        "responseDescriptors": [{"mapping": "User", "method": "GET", "pathPattern": "/users.json"}],
    }


def clients(paths: dict[str, Path], url: str, config: Path, sizes: dict[str, int], swift: bool) -> list[Client]:
    python = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable
    py_clients = str(BENCH / "python" / "clients.py")
    route = {"a": "small", "b": "users"}

    def ceiling(w: str, n: int, k: int) -> list[str]:
        return [str(paths["ceiling"]), f"{url}/{WORKLOADS[w]}", str(n), str(k), str(sizes[w]), "raw" if w == "a" else "parse"]

    def gw_c(w: str, n: int, k: int) -> list[str]:
        return [str(paths["gatewire_c"]), str(config), route[w], str(n), str(k), str(sizes[w]), "raw" if w == "a" else "mapped"]

    def gw_swift(w: str, n: int, k: int) -> list[str]:
        return [str(paths["swift_bin"] / "gatewire-swift"), str(config), route[w], str(n), str(k), str(sizes[w]),
                "raw" if w == "a" else "mapped"]

    def urlsession(w: str, n: int, k: int) -> list[str]:
        return [str(paths["swift_bin"] / "urlsession"), f"{url}/{WORKLOADS[w]}", str(n), str(k), str(sizes[w]),
                "raw" if w == "a" else "decode"]

    def gw_py(w: str, n: int, k: int) -> list[str]:
        return [python, py_clients, "gatewire", str(config), route[w], str(n), str(k), str(sizes[w]), "raw" if w == "a" else "mapped"]

    def gw_py_async(w: str, n: int, k: int) -> list[str]:
        return [python, py_clients, "gatewire-async", str(config), route[w], str(n), str(k), str(sizes[w]),
                "raw" if w == "a" else "mapped"]

    def peer(name: str, mode: str = "parse"):
        def command(w: str, n: int, k: int) -> list[str]:
            return [python, py_clients, name, url, f"/{WORKLOADS[w]}", str(n), str(k), str(sizes[w]), "raw" if w == "a" else mode]
        return command

    py_env = {"PYTHONPATH": str(ROOT / "bindings" / "python"), "GATEWIRE_LIB": str(paths["lib"] / "libGatewire.so")}
    both, one, many = (1, 64), (1,), (64,)
    result = [
        Client("libcurl multi (ceiling)", "ceiling", ("a", "b"), both, ceiling, smoke=True),
        Client("Gatewire C ABI", "gatewire", ("a", "b"), both, gw_c, smoke=True),
    ]
    if swift:
        result.append(Client("Gatewire Swift", "gatewire", ("a", "b"), both, gw_swift))
    result += [
        Client("Gatewire Python", "gatewire", ("a", "b"), both, gw_py, smoke=True, env=py_env),
        Client("Gatewire Python async", "gatewire", ("a", "b"), both, gw_py_async, smoke=True, env=py_env),
        Client("requests", "peer", ("a", "b"), one, peer("requests")),
        Client("urllib3", "peer", ("a", "b"), one, peer("urllib3")),
        Client("httpx", "peer", ("a", "b"), one, peer("httpx")),
        Client("httpx async", "peer", ("a", "b"), many, peer("httpx-async")),
        Client("aiohttp", "peer", ("a", "b"), many, peer("aiohttp"), smoke=True),
        # The peers that map as Gatewire's (b) config does (renames, an integer from a digit
        # string, a datetime, a nested object), with pydantic 2 instead of json.loads.
        Client("aiohttp + pydantic", "peer", ("b",), many, peer("aiohttp", "pydantic"), smoke=True),
        Client("httpx + pydantic", "peer", ("b",), one, peer("httpx", "pydantic")),
    ]
    if swift:
        result.append(Client("URLSession", "peer", ("a", "b"), both, urlsession))
    # The (b) target "above the best Python peer on this 2-core machine" is about the worker
    # pool, which needs more than the one core a pinned client gets: these rows run the same
    # Gatewire clients unpinned (every core, shared with nginx), in the same run.
    if PINNED:
        for name, command, env in (("Gatewire C ABI", gw_c, {}), ("Gatewire Swift", gw_swift, {}),
                                   ("Gatewire Python", gw_py, py_env)):
            if name != "Gatewire Swift" or swift:
                result.append(Client(f"{name}, all cores", "gatewire", ("b",), many, command, env=env, all_cores=True))
    return result


# ---- Running --------------------------------------------------------------------------------
def run_once(argv: list[str], env: dict[str, str], timeout: float, all_cores: bool = False) -> dict:
    """Runs one client process (on the client CPUs, or on every CPU with `all_cores`); its JSON
    line plus wait4's rusage (peak RSS, whole-process CPU) and "peak_fds", the most open
    descriptors seen in /proc/PID/fd, sampled every 5 ms while it runs."""
    full_env = dict(os.environ, **env)
    cpus = None if all_cores else CLIENT_CPUS
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env,
                               preexec_fn=lambda: setup_child(cpus))
    deadline = time.monotonic() + timeout
    peak_fds = 0
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        try:
            peak_fds = max(peak_fds, len(os.listdir(f"/proc/{process.pid}/fd")))
        except OSError:
            pass  # exiting: wait4 reaps it next time round
        if time.monotonic() > deadline:
            process.kill()
            os.wait4(process.pid, 0)
            raise RuntimeError(f"timed out after {timeout:.0f} s: {' '.join(argv)}")
        time.sleep(0.005)
    process.returncode = os.waitstatus_to_exitcode(status)
    stdout = process.stdout.read().decode() if process.stdout else ""
    stderr = process.stderr.read().decode() if process.stderr else ""
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if process.returncode != 0 or not lines:
        raise RuntimeError(f"exit {process.returncode}: {' '.join(argv)}\n{stdout}{stderr[-2000:]}")
    report = json.loads(lines[-1])
    if report["ok"] != report["requests"]:
        raise RuntimeError(f"{report['ok']} of {report['requests']} responses were correct: {' '.join(argv)}")
    report["maxrss_kib"] = usage.ru_maxrss
    report["peak_fds"] = peak_fds
    report["process_cpu"] = usage.ru_utime + usage.ru_stime
    return report


def log(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def rank(rows: list[Row]) -> None:
    """Each Gatewire row's ratio to the ceiling and to the best peer of its workload and in-flight count."""
    for row in rows:
        if row.kind != "gatewire":
            continue
        same = [r for r in rows if r.workload == row.workload and r.inflight == row.inflight]
        ceiling = next((r for r in same if r.kind == "ceiling"), None)
        peers = [r for r in same if r.kind == "peer"]
        if ceiling:
            row.vs_ceiling = row.rate / ceiling.rate
        if peers:
            best = max(peers, key=lambda r: r.rate)
            row.vs_best_peer, row.best_peer = row.rate / best.rate, best.client


def table(rows: list[Row]) -> str:
    lines = ["| client | workload | in flight | req/s (median) | spread | CPU ms/req | peak RSS MiB | vs ceiling | vs best peer |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        ceiling = f"{r.vs_ceiling:.2f}x" if r.vs_ceiling is not None else ""
        peer = f"{r.vs_best_peer:.2f}x ({r.best_peer})" if r.vs_best_peer is not None else ""
        lines.append(f"| {r.client} | {DESCRIPTION[r.workload]} | {r.inflight} | {r.rate:,.0f} | {r.spread * 100:.0f}% | "
                     f"{r.cpu_ms:.3f} | {r.rss_mib:.1f} | {ceiling} | {peer} |")
    return "\n".join(lines)


def in_turns(cells: list[Any], runs: int, measure: Callable[[Any], Any], rotate: bool = False) -> list[list[Any]]:
    """``measure(cell)`` ``runs`` times for each cell, the cells taking turns (run 1 of every
    cell, then run 2, ...), so that a machine whose speed drifts during the bench moves them
    alike: the targets are ratios between cells. With ``rotate``, each round starts one cell
    further on, so no cell always runs first. Returns each cell's results, in cell order."""
    results: list[list[Any]] = [[] for _ in cells]
    for round_ in range(runs):
        start = round_ % len(cells) if rotate and cells else 0
        for index in list(range(start, len(cells))) + list(range(start)):
            results[index].append(measure(cells[index]))
    return results


def find(rows: list[Row], client: str, workload: str, inflight: int) -> Row | None:
    return next((r for r in rows if r.client == client and r.workload == workload and r.inflight == inflight), None)


def targets(rows: list[Row], memory: dict | None) -> list[dict]:
    """The issue's targets, each with its measured value (None when the row was not run)."""
    out: list[dict] = []

    def ratio(name: str, value: float | None, goal: float, unit: str = "x") -> None:
        out.append({"target": name, "measured": value, "goal": goal, "unit": unit,
                    "met": None if value is None else value >= goal})

    for k in (64, 1):
        row = find(rows, "Gatewire C ABI", "a", k)
        ratio(f"(a) C ABI vs ceiling, {k} in flight", row and row.vs_ceiling, 0.9)
    row = find(rows, "Gatewire C ABI", "a", 64)
    ceiling = find(rows, "libcurl multi (ceiling)", "a", 64)
    if row and ceiling:
        extra = (row.cpu_ms - ceiling.cpu_ms) * 1000
        out.append({"target": "(a) C ABI CPU added per call over the ceiling, 64 in flight", "measured": extra,
                    "goal": 5.0, "unit": "us", "met": extra <= 5.0})
    py, aio = find(rows, "Gatewire Python", "a", 64), find(rows, "aiohttp", "a", 64)
    ratio("(a) Python vs aiohttp, 64 in flight", py.rate / aio.rate if py and aio else None, 2.0)
    c_abi = find(rows, "Gatewire C ABI", "a", 64)
    for client in ("Gatewire Python", "Gatewire Python async"):
        row = find(rows, client, "a", 64)
        ratio(f"(a) {client} vs C ABI, 64 in flight", row.rate / c_abi.rate if row and c_abi else None, 0.8)
    row = find(rows, "Gatewire C ABI", "b", 1)
    ratio("(b) C ABI mapped vs libcurl+Jansson parse and walk, 1 in flight (one core)", row and row.vs_ceiling, 0.85)
    mine = find(rows, "Gatewire C ABI", "b", 64)
    for peer, goal in (("aiohttp", 1.0), ("aiohttp + pydantic", 1.5)):
        other = find(rows, peer, "b", 64)
        ratio(f"(b) C ABI mapped vs {peer}, 64 in flight{', one core each' if PINNED else ''}", mine.rate / other.rate if mine and other else None, goal)
    python_peers = [r for r in rows if r.workload == "b" and r.kind == "peer" and r.client != "URLSession"]
    best = max(python_peers, key=lambda r: r.rate) if python_peers else None
    for client in ("Gatewire C ABI", "Gatewire Swift", "Gatewire Python"):
        row = find(rows, f"{client}, all cores", "b", 64) or find(rows, client, "b", 64)
        if row and best:
            ratio(f"(b) {row.client} mapped, 64 in flight, vs best Python peer ({best.client})", row.rate / best.rate, 1.0)
    if memory:
        out.append({"target": "peak RSS, 1,000 calls in flight (C ABI)", "measured": memory["peak_mib"], "goal": 60.0,
                    "unit": "MiB", "met": memory["peak_mib"] < 60.0})
        growth = memory["rss_end_mib"] - memory["rss_early_mib"]
        out.append({"target": f"RSS growth from {memory['early']:,} to {memory['requests']:,} calls", "measured": growth,
                    "goal": 5.0, "unit": "MiB", "met": growth <= 5.0})
    return out


def targets_table(items: list[dict]) -> str:
    lines = ["| target | goal | measured | met |", "|---|---:|---:|---|"]
    for t in items:
        # A ratio is a floor and a quantity a ceiling, unless the goal says "at_most".
        at_most = t.get("at_most", t["unit"] != "x")
        goal = f"{'<=' if at_most else '>='} {t['goal']:g}{' ' + t['unit'] if t['unit'] != 'x' else 'x'}"
        measured = "not run" if t["measured"] is None else f"{t['measured']:.2f}{' ' + t['unit'] if t['unit'] != 'x' else 'x'}"
        met = "" if t["met"] is None else ("yes" if t["met"] else "**no**")
        lines.append(f"| {t['target']} | {goal} | {measured} | {met} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="CI mode: few requests, one run, a few clients")
    parser.add_argument("--runs", type=int, help="runs per row (default 3; smoke 1)")
    parser.add_argument("--requests-a", type=int, help="requests per run on (a) (default 10000; smoke 200)")
    parser.add_argument("--requests-b", type=int, help="requests per run on (b) (default 300; smoke 20)")
    parser.add_argument("--lib", help="directory with libGatewire.so (default: scripts/build.sh release into .build/lib)")
    parser.add_argument("--no-swift", dest="swift", action="store_false", help="skip the Swift clients")
    parser.add_argument("--only", help="comma-separated substrings of client names to run; \"memory\", \"http/2\", "
                        "\"10k\", \"latency\", \"upload\", \"cache\", \"download\", \"fleet\" and \"telemetry\" select those runs")
    parser.add_argument("--no-pin", dest="pin", action="store_false", help="do not pin nginx to CPU 0 and the clients to the others")
    parser.add_argument("--out", default=str(BENCH / "results"),
                        help="where latest.json and latest.md go (only.json and only.md with --only)")
    args = parser.parse_args()
    if args.smoke:
        args.swift = False
    global SERVER_CPUS, CLIENT_CPUS, PINNED
    cpus = sorted(os.sched_getaffinity(0))
    if args.pin and len(cpus) >= 2:
        SERVER_CPUS, CLIENT_CPUS = {cpus[0]}, set(cpus[1:])
        PINNED = True
    runs = args.runs or (1 if args.smoke else 3)
    counts = {"a": args.requests_a or (200 if args.smoke else 10000), "b": args.requests_b or (20 if args.smoke else 300)}

    workdir = Path(tempfile.mkdtemp(prefix="gatewire-bench-"))
    nginx = Nginx(workdir)
    rows: list[Row] = []
    memory = None
    h2: list[dict] = []
    crowd = None
    latency: list[dict] = []
    upload = None
    cache = None
    downloads: list[dict] = []
    download_goals: list[dict] = []
    fleet = None
    telemetry: list[dict] = []
    try:
        paths = build(args, BENCH / ".build")
        nginx.start()
        log(f"nginx on {nginx.url} (pid {nginx.process.pid if nginx.process else '?'})")
        config = workdir / "gateway.json"
        config.write_text(json.dumps(gateway_config(nginx.url)))
        sizes = nginx.sizes()
        selected = clients(paths, nginx.url, config, sizes, args.swift)
        if args.smoke:
            selected = [c for c in selected if c.smoke]
        if args.only:
            wanted = [w.strip().lower() for w in args.only.split(",")]
            selected = [c for c in selected if any(w in c.name.lower() for w in wanted)]
        smoke_env = {"BENCH_VERIFY": "all"} if args.smoke else {}
        for workload in ("a", "b"):
            n = counts[workload]
            cells = [(client, inflight) for client in selected if workload in client.workloads for inflight in client.inflight]
            reports = in_turns(cells, runs, lambda cell: run_once(cell[0].command(workload, n, cell[1]), {**cell[0].env, **smoke_env},
                                                                   timeout=600, all_cores=cell[0].all_cores))
            for (client, inflight), row_reports in zip(cells, reports):
                row = Row(client.name, client.kind, workload, inflight, n, row_reports)
                row.summarize()
                rows.append(row)
                log(f"{client.name:26} {workload} x{inflight:<3} {row.rate:10,.0f} req/s  {row.cpu_ms:.3f} CPU ms/req  "
                    f"{row.rss_mib:.1f} MiB")
        if not args.smoke and (not args.only or "memory" in args.only):
            memory = memory_run(paths, config, sizes)
        if not args.smoke and (not args.only or "http/2" in args.only.lower()):
            h2 = h2_rows(paths, nginx, workdir, sizes, runs, counts["a"])
        if not args.smoke and (not args.only or "10k" in args.only.lower()):
            crowd = crowd_run(paths, config, sizes, f"{nginx.url}/{WORKLOADS['a']}")
        if not args.smoke and (not args.only or "latency" in args.only.lower()):
            latency = latency_rows(paths, nginx.url, config, sizes, rows)
        if not args.only or "upload" in args.only.lower():
            upload = upload_rows(paths["upload"], workdir, runs, args.smoke, run_once, log, SERVER_CPUS)
        if not args.only or "cache" in args.only.lower():  # in smoke mode too: gatewire_c checks every hit
            cache = cache_run(paths, workdir, nginx.url, sizes, runs, counts["a"])
        if not args.smoke and (not args.only or "download" in args.only.lower()):
            downloads, download_goals = download_rows(paths, nginx, workdir, runs)
        if not args.smoke and (not args.only or "fleet" in args.only.lower()):
            fleet = bench_fleet.fleet_rows(paths, nginx.url, sizes["a"], runs, counts["a"], run_once, log, workdir)
        if not args.smoke and (not args.only or "telemetry" in args.only.lower()):
            telemetry = bench_telemetry.telemetry_rows(paths, nginx.url, sizes["a"], runs, counts["a"], run_once, log,
                                                       workdir, SERVER_CPUS)
    finally:
        nginx.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    rank(rows)
    goals = targets(rows, memory) + h2_targets(h2) + latency_targets(latency) + download_goals if not args.smoke else []
    if upload and not args.smoke:
        goals += upload_targets(upload)
    if fleet:
        goals += bench_fleet.targets(fleet)
    if telemetry:
        goals += bench_telemetry.targets(telemetry)
    if crowd:
        goals.append({"target": "peak RSS, 10,000 calls in flight (C ABI)", "measured": crowd["peak_mib"], "goal": 200.0,
                      "unit": "MiB", "met": crowd["peak_mib"] <= 200.0})
    if cache:
        goals.append({"target": "CPU per call, network / HTTP cache hit (C ABI, (a), 1 in flight)",
                      "measured": cache["ratio"], "goal": 1.0, "unit": "x", "met": cache["ratio"] > 1.0})
    machine = {"cores": os.cpu_count(), "server_cpus": sorted(SERVER_CPUS or []), "client_cpus": sorted(CLIENT_CPUS or []), "nginx": nginx_version(), "runs": runs, "requests": counts,
               "bodies_bytes": sizes, "python": sys.version.split()[0]}
    result = {"machine": machine, "rows": [row_json(r) for r in rows], "memory": memory, "http2": h2,
              "in_flight_10k": crowd, "latency": latency, "upload": upload, "cache": cache, "downloads": downloads,
              "fleet": fleet, "telemetry": telemetry,
              "targets": goals,
              "smoke": args.smoke, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    text = table(rows)
    if h2:
        text += "\n\n" + h2_table(h2)
    if latency:
        text += "\n\n" + latency_table(latency)
    if upload:
        text += "\n\n" + upload_table(upload)
    if downloads:
        text += "\n\n" + bench_downloads.table(downloads)
    if fleet:
        text += "\n\n" + bench_fleet.table(fleet)
    if telemetry:
        text += "\n\n" + bench_telemetry.table(telemetry)
    if goals:
        text += "\n\n" + targets_table(goals)
    if memory:
        text += (f"\n\nMemory (Gatewire C ABI, (a), {memory['inflight']:,} in flight, {memory['requests']:,} calls): "
                 f"peak RSS {memory['peak_mib']:.1f} MiB; RSS after {memory['early']:,} calls {memory['rss_early_mib']:.1f} MiB, "
                 f"after {memory['requests']:,} {memory['rss_end_mib']:.1f} MiB.")
    if crowd:
        text += (f"\n\n10,000 in flight (Gatewire C ABI, (a), HTTP/1.1, {crowd['requests']:,} calls, default maxConnections 100): "
                 f"peak RSS {crowd['peak_mib']:.1f} MiB, peak open descriptors {crowd['peak_fds']}, {crowd['rate']:,.0f} req/s; "
                 f"raw libcurl (PIPEWAIT, 100 per host): peak RSS {crowd['raw_peak_mib']:.1f} MiB, peak open descriptors "
                 f"{crowd['raw_peak_fds']}, {crowd['raw_rate']:,.0f} req/s ({crowd['rate'] / crowd['raw_rate']:.2f}x).")
    if cache:
        text += (f"\n\nHTTP cache (Gatewire C ABI, (a), 1 in flight, {cache['requests']:,} calls, median of {runs}): "
                 f"network {cache['network_cpu_ms']:.4f} CPU ms/call ({cache['network_rate']:,.0f} calls/s), "
                 f"cache hit {cache['hit_cpu_ms']:.4f} CPU ms/call ({cache['hit_rate']:,.0f} calls/s): "
                 f"a hit costs {cache['ratio']:.1f}x less CPU.")
    print(text)
    if not args.smoke:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        name = "only" if args.only else "latest"
        (out / f"{name}.json").write_text(json.dumps(result, indent=2) + "\n")
        (out / f"{name}.md").write_text(text + "\n")
        log(f"wrote {out / (name + '.json')} and {out / (name + '.md')}")
    else:
        log(f"smoke: {len(rows)} rows, every client completed its requests with correct bodies")
    return 0


def download_rows(paths: dict[str, Path], nginx: Nginx, workdir: Path, runs: int) -> tuple[list[dict], list[dict]]:
    """The 1 GiB download rows (bench/downloads.py) on the bench's nginx."""
    log("writing the 1 GiB file for the download rows")
    expected = bench_downloads.make_file(nginx.dir / "www")
    python = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable
    env = {"PYTHONPATH": str(ROOT / "bindings" / "python"), "GATEWIRE_LIB": str(paths["lib"] / "libGatewire.so")}
    try:
        return bench_downloads.run_rows(nginx.url, workdir, expected, paths["lib"].parent / "bin" / "gatewire", python, env,
                                        runs, lambda: setup_child(CLIENT_CPUS), log)
    finally:
        (nginx.dir / "www" / bench_downloads.NAME).unlink()


def memory_run(paths: dict[str, Path], config: Path, sizes: dict[str, int]) -> dict:
    """Gatewire C ABI on (a) with 1,000 calls in flight for 200,000 calls: peak RSS, and RSS
    after 20,000 calls against RSS at the end (growth)."""
    requests, inflight = 200_000, 1000
    log(f"memory: {requests:,} calls, {inflight:,} in flight")
    report = run_once([str(paths["gatewire_c"]), str(config), "small", str(requests), str(inflight), str(sizes["a"]), "memory"],
                      {}, timeout=600)
    return {"requests": requests, "early": requests // 10, "inflight": inflight, "peak_mib": report["maxrss_kib"] / 1024,
            "rss_early_mib": report["rss_early_kib"] / 1024, "rss_end_mib": report["rss_end_kib"] / 1024,
            "rate": report["requests"] / report["elapsed"]}


H2_INFLIGHT = (64, 256, 1024)


def h2_rows(paths: dict[str, Path], nginx: Nginx, workdir: Path, sizes: dict[str, int], runs: int,
            requests: int) -> list[dict]:
    """HTTP/2 over TLS on (a), at 64, 256 and 1,024 in flight: raw libcurl (reused handles)
    without and with CURLOPT_PIPEWAIT, and with it and 8 connections per host; Gatewire's C
    ABI with the default config (PIPEWAIT always; maxConnections 100) and with
    maxConnectionsPerHost 8. Each row: median req/s and CPU ms per request over the runs, and
    the most connections nginx saw in a run (its access log's connection serials)."""
    url, cert, size = f"{nginx.h2_url}/{WORKLOADS['a']}", str(nginx.certificate), str(sizes["a"])

    def config(name: str, extra: dict) -> str:
        path = workdir / f"gateway-h2-{name}.json"
        path.write_text(json.dumps({**gateway_config(nginx.h2_url), "caFile": cert, **extra}))
        return str(path)

    default, limited = config("default", {}), config("limited", {"maxConnectionsPerHost": 8})
    variants = [
        ("libcurl multi, no PIPEWAIT", "ceiling", lambda k: [str(paths["ceiling"]), url, str(requests), str(k), size, "raw", cert, "0", "0"]),
        ("libcurl multi + PIPEWAIT", "ceiling", lambda k: [str(paths["ceiling"]), url, str(requests), str(k), size, "raw", cert, "1", "0"]),
        ("libcurl multi + PIPEWAIT, 8 per host", "ceiling",
         lambda k: [str(paths["ceiling"]), url, str(requests), str(k), size, "raw", cert, "1", "8"]),
        ("Gatewire C ABI", "gatewire", lambda k: [str(paths["gatewire_c"]), default, "small", str(requests), str(k), size, "raw"]),
        ("Gatewire C ABI, maxConnectionsPerHost 8", "gatewire",
         lambda k: [str(paths["gatewire_c"]), limited, "small", str(requests), str(k), size, "raw"]),
    ]
    out = []
    for name, kind, command in variants:
        def measure(inflight: int) -> tuple[dict, int]:
            nginx.forget_h2_connections()
            report = run_once(command(inflight), {}, timeout=600)
            return report, nginx.h2_connections()

        for inflight, measured in zip(H2_INFLIGHT, in_turns(list(H2_INFLIGHT), runs, measure)):
            reports, connections = [report for report, _ in measured], [count for _, count in measured]
            row = Row(name, kind, "a", inflight, requests, reports)
            row.summarize()
            out.append({"client": name, "kind": kind, "inflight": inflight, "requests": requests,
                        "requests_per_second": round(row.rate, 1), "spread": round(row.spread, 4),
                        "cpu_ms_per_request": round(row.cpu_ms, 4), "connections": max(connections)})
            log(f"HTTP/2 {name:40} x{inflight:<5} {row.rate:10,.0f} req/s  {row.cpu_ms:.3f} CPU ms/req  "
                f"{max(connections)} connections")
    return out


def h2_table(rows: list[dict]) -> str:
    """The HTTP/2 rows, each with its ratio to raw libcurl with PIPEWAIT at the same in-flight count."""
    lines = ["HTTP/2 over TLS, (a), nginx http2_max_concurrent_streams 128:", "",
             "| client | in flight | req/s | spread | CPU ms/req | connections | vs libcurl + PIPEWAIT |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        base = next((b for b in rows if b["client"] == "libcurl multi + PIPEWAIT" and b["inflight"] == r["inflight"]), None)
        ratio = f"{r['requests_per_second'] / base['requests_per_second']:.2f}x" if base else ""
        lines.append(f"| {r['client']} | {r['inflight']:,} | {r['requests_per_second']:,.0f} | {r['spread'] * 100:.0f}% | "
                     f"{r['cpu_ms_per_request']:.3f} | {r['connections']} | {ratio} |")
    return "\n".join(lines)


def h2_targets(rows: list[dict]) -> list[dict]:
    """HTTP/2 at 256 and 1,024 in flight (Gatewire, default config): req/s at least that at 64,
    and at least 0.9x raw libcurl with PIPEWAIT."""
    def rate(client: str, k: int) -> float | None:
        return next((r["requests_per_second"] for r in rows if r["client"] == client and r["inflight"] == k), None)

    out = []
    for client in ("Gatewire C ABI", "Gatewire C ABI, maxConnectionsPerHost 8"):
        for k in (256, 1024):
            mine, at64, ceiling = rate(client, k), rate(client, 64), rate("libcurl multi + PIPEWAIT", k)
            for name, value, goal in ((f"HTTP/2 {client}, {k:,} vs 64 in flight", mine / at64 if mine and at64 else None, 1.0),
                                      (f"HTTP/2 {client}, {k:,} in flight vs libcurl + PIPEWAIT", mine / ceiling if mine and ceiling else None, 0.9)):
                out.append({"target": name, "measured": value, "goal": goal, "unit": "x", "met": None if value is None else value >= goal})
    return out


def crowd_run(paths: dict[str, Path], config: Path, sizes: dict[str, int], url: str) -> dict:
    """Gatewire C ABI on (a), HTTP/1.1, with 10,000 calls in flight to one host under the default
    connection limit (maxConnections 100): 50,000 calls; peak RSS and open descriptors. Then
    raw libcurl (`ceiling.c`, PIPEWAIT, 100 connections per host) the same way, its 9,900
    waiting transfers in libcurl's own queue."""
    requests, inflight = 50_000, 10_000
    log(f"10,000 in flight: {requests:,} calls")
    report = run_once([str(paths["gatewire_c"]), str(config), "small", str(requests), str(inflight), str(sizes["a"]), "memory"],
                      {}, timeout=600)
    raw = run_once([str(paths["ceiling"]), url, str(requests), str(inflight), str(sizes["a"]), "raw", "", "1", "100"],
                   {}, timeout=600)
    return {"requests": requests, "inflight": inflight, "peak_mib": report["maxrss_kib"] / 1024,
            "peak_fds": report["peak_fds"], "rate": report["requests"] / report["elapsed"],
            "raw_peak_mib": raw["maxrss_kib"] / 1024, "raw_peak_fds": raw["peak_fds"],
            "raw_rate": raw["requests"] / raw["elapsed"]}


LATENCY_LOADS = (0.25, 0.5, 0.75)
LATENCY_SECONDS = 6  # the first is the warm-up, not counted
LATENCY_ROUNDS = 3  # runs per client and rate, in turns; the rows give their medians
LATENCY_PROBE_SECONDS = 3  # the probe that measures each client's open-loop CPU per request


def latency_rows(paths: dict[str, Path], url: str, config: Path, sizes: dict[str, int], rows: list[Row]) -> list[dict]:
    """Latency under load on (a), open loop (bench/c/openloop.c, bench/python/openloop.py):
    raw libcurl, Gatewire's C ABI and Gatewire's Python AsyncClient, each sent at the same
    fixed rates, 25%, 50% and 75% of the open-loop saturation rate, three runs each, the
    clients taking turns. Each row: the medians over its runs of p50, p99, p99.9 and the worst
    latency in microseconds (each run 5 s after a 1 s warm-up), the spread of its p99 ((max -
    min) / median) and CPU ms per request.

    The saturation rate is the open-loop capacity of the slowest of the three clients: each
    is first sent at a probe rate (1/16 of Gatewire C ABI's closed-loop rate on (a) at 64 in
    flight, measured here when that row was not run) for 3 s, and its capacity is 1 / its CPU
    seconds per request there: the rate at which it would keep its core busy all the time.
    An open-loop client pays a wake-up per request that a closed loop at 64 in flight shares
    across many (on a VM, tens of microseconds each), so its capacity is a fraction of the
    closed-loop rate; rates taken from the closed loop overload every client, raw libcurl
    included, and then measure the queue, not the client."""
    closed_row = find(rows, "Gatewire C ABI", "a", 64)
    if closed_row is None:
        report = run_once([str(paths["gatewire_c"]), str(config), "small", "20000", "64", str(sizes["a"]), "raw"], {}, timeout=600)
        closed = report["requests"] / report["elapsed"]
    else:
        closed = closed_row.rate
    python = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable
    py_env = {"PYTHONPATH": str(ROOT / "bindings" / "python"), "GATEWIRE_LIB": str(paths["lib"] / "libGatewire.so")}
    size = str(sizes["a"])
    variants = [
        ("libcurl multi (ceiling)", "ceiling", lambda r, t: [str(paths["openloop"]), "curl", f"{url}/{WORKLOADS['a']}", r, t, size], {}),
        ("Gatewire C ABI", "gatewire", lambda r, t: [str(paths["openloop"]), "gatewire", str(config), "small", r, t, size], {}),
        ("Gatewire Python async", "gatewire",
         lambda r, t: [python, str(BENCH / "python" / "openloop.py"), str(config), "small", r, t, size], py_env),
    ]
    probe = f"{closed / 16:.0f}"
    capacity = {}
    for name, _, command, env in variants:
        report = run_once(command(probe, str(LATENCY_PROBE_SECONDS)), env, timeout=120)
        capacity[name] = report["requests"] / report["cpu"]
        log(f"latency {name:24} at {float(probe):,.0f} req/s: {report['cpu'] / report['requests'] * 1e6:,.0f} us CPU "
            f"per request, open-loop capacity {capacity[name]:,.0f} req/s")
    saturation = min(capacity.values())
    out = []
    for load in LATENCY_LOADS:
        rate = f"{saturation * load:.0f}"
        reports = in_turns(variants, LATENCY_ROUNDS,
                           lambda variant: run_once(variant[2](rate, str(LATENCY_SECONDS)), variant[3], timeout=120), rotate=True)
        for (name, kind, _, _), runs in zip(variants, reports):
            median = {k: statistics.median(r[k] for r in runs) for k in ("p50_us", "p99_us", "p999_us", "max_us")}
            p99s = [r["p99_us"] for r in runs]
            out.append({"client": name, "kind": kind, "load": load, "saturation": round(saturation, 1),
                        "closed_loop": round(closed, 1), "probe": float(probe), "capacity": round(capacity[name], 1),
                        "rate": float(rate), "runs": len(runs),
                        "achieved": round(statistics.median(r["requests"] / r["elapsed"] for r in runs), 1),
                        "counted": runs[0]["counted"], **{k: round(v, 1) for k, v in median.items()},
                        "p99_spread": round((max(p99s) - min(p99s)) / median["p99_us"], 3),
                        "cpu_ms_per_request": round(statistics.median(r["cpu"] / r["requests"] for r in runs) * 1000, 4)})
            log(f"latency {name:24} {load:.0%} of {saturation:,.0f} req/s: p50 {median['p50_us']:,.0f} us, "
                f"p99 {median['p99_us']:,.0f} us (spread {out[-1]['p99_spread']:.0%}), p99.9 {median['p999_us']:,.0f} us")
    return out


def latency_table(rows: list[dict]) -> str:
    """The open-loop rows, with each Gatewire row's p99 added over raw libcurl at the same rate."""
    first = rows[0]
    capacities = ", ".join(f"{r['client']} {r['capacity']:,.0f}" for r in rows if r["load"] == first["load"])
    lines = [f"Latency under load, (a), open loop; rates are fractions of {first['saturation']:,.0f} req/s, the open-loop "
             f"capacity of the slowest client (1 / CPU seconds per request at {first['probe']:,.0f} req/s: {capacities}; "
             f"closed loop at 64 in flight, Gatewire C ABI: {first['closed_loop']:,.0f} req/s); medians of {first['runs']} "
             "runs each, the clients taking turns:", "",
             "| client | load | rate req/s | achieved | p50 us | p99 us | p99 spread | p99.9 us | max us | CPU ms/req | p99 added over libcurl |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        base = next((b for b in rows if b["kind"] == "ceiling" and b["load"] == r["load"]), None)
        added = f"{r['p99_us'] - base['p99_us']:,.0f} us" if base and r["kind"] != "ceiling" else ""
        lines.append(f"| {r['client']} | {r['load']:.0%} | {r['rate']:,.0f} | {r['achieved']:,.0f} | {r['p50_us']:,.0f} | "
                     f"{r['p99_us']:,.0f} | {r['p99_spread']:.0%} | {r['p999_us']:,.0f} | {r['max_us']:,.0f} | {r['cpu_ms_per_request']:.3f} | "
                     f"{added} |")
    return "\n".join(lines)


def latency_targets(rows: list[dict]) -> list[dict]:
    """p99 added over raw libcurl at half the saturation rate: at most 100 us."""
    out = []
    base = next((r for r in rows if r["kind"] == "ceiling" and r["load"] == 0.5), None)
    for r in rows:
        if r["kind"] == "gatewire" and r["load"] == 0.5 and base:
            added = r["p99_us"] - base["p99_us"]
            out.append({"target": f"latency: {r['client']} p99 added over libcurl at 50% of saturation", "measured": added,
                        "goal": 100.0, "unit": "us", "met": added <= 100.0})
    return out
def cache_run(paths: dict[str, Path], workdir: Path, url: str, sizes: dict[str, int], runs: int, requests: int) -> dict:
    """Gatewire C ABI on (a), one call in flight, side by side: every call on the network
    (the route of the other rows), and every call but the first a fresh hit of the client's
    HTTP cache (the same body served with max-age=3600, config "cache": true). CPU ms per
    call (the process, every thread; median of `runs`) and the ratio network / hit."""
    config = workdir / "gateway-cache.json"
    config.write_text(json.dumps({**gateway_config(url), "cache": True,
                                  "routes": {"small": {"method": "GET", "pathPattern": "/cached/small.json"}}}))
    plain = workdir / "gateway.json"
    log(f"cache: {requests:,} calls each, network and cache hits")
    measured = {}
    for name, path, mode in (("network", plain, "raw"), ("hit", config, "cached")):
        reports = [run_once([str(paths["gatewire_c"]), str(path), "small", str(requests), "1", str(sizes["a"]), mode], {},
                            timeout=600) for _ in range(runs)]
        measured[name] = (statistics.median(r["cpu"] / r["requests"] for r in reports) * 1000,
                          statistics.median(r["requests"] / r["elapsed"] for r in reports))
    return {"requests": requests, "network_cpu_ms": measured["network"][0], "network_rate": measured["network"][1],
            "hit_cpu_ms": measured["hit"][0], "hit_rate": measured["hit"][1],
            "ratio": measured["network"][0] / measured["hit"][0]}


def nginx_version() -> str:
    done = subprocess.run([shutil.which("nginx") or "/usr/sbin/nginx", "-v"], capture_output=True, text=True)
    return (done.stderr or done.stdout).strip().split("/")[-1]


def row_json(r: Row) -> dict:
    return {"client": r.client, "kind": r.kind, "workload": r.workload, "inflight": r.inflight, "requests": r.requests,
            "requests_per_second": round(r.rate, 1), "spread": round(r.spread, 4), "cpu_ms_per_request": round(r.cpu_ms, 4),
            "process_cpu_ms_per_request": round(r.process_cpu_ms, 4), "peak_rss_mib": round(r.rss_mib, 1),
            "vs_ceiling": r.vs_ceiling and round(r.vs_ceiling, 3), "vs_best_peer": r.vs_best_peer and round(r.vs_best_peer, 3),
            "best_peer": r.best_peer,
            "runs": [{k: run[k] for k in ("elapsed", "cpu", "process_cpu", "maxrss_kib")} for run in r.runs]}


if __name__ == "__main__":
    sys.exit(main())
