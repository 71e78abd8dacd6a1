"""The download rows of make bench: a 1 GiB body from the bench's nginx (a static file,
sendfile) to a file, by the ``curl`` command line tool (``curl -o``), the ``gatewire`` CLI
(``-o``: the Swift core's file sink) and the Python binding (``download=``: the file sink
through the C ABI), and into a Python ``Client.stream`` iterator (chunks through ctypes,
hashed as they come). Each client is its own process, pinned as the other clients; the
runner times the whole process (start-up included, the same for all) and reads its peak RSS
and CPU from wait4's rusage. Every run's file is checked (size, and SHA-256 on the first
run) and removed. Targets: peak RSS under 64 MiB, and throughput at least 0.9x curl's."""

from __future__ import annotations

import hashlib
import os
import subprocess
import time
from pathlib import Path
from typing import Callable

SIZE = 1 << 30
NAME = "big.bin"

STREAM_SCRIPT = """
import hashlib, sys, gatewire
digest = hashlib.sha256()
with gatewire.Client(sys.argv[1]) as client:
    with client.stream("GET", sys.argv[2], attempt_timeout=600) as body:
        for chunk in body.iter_bytes():
            digest.update(chunk)
print(digest.hexdigest())
"""

DOWNLOAD_SCRIPT = """
import sys, gatewire
with gatewire.Client(sys.argv[1]) as client:
    client.get(sys.argv[2], download=sys.argv[3], attempt_timeout=600)
"""


def make_file(www: Path) -> str:
    """Writes the 1 GiB file (1 MiB of random bytes, each repeat with its index stamped in,
    so no two MiB are equal) and returns its SHA-256."""
    block = bytearray(os.urandom(1 << 20))
    digest = hashlib.sha256()
    with open(www / NAME, "wb") as file:
        for index in range(SIZE >> 20):
            block[:8] = index.to_bytes(8, "little")
            file.write(block)
            digest.update(block)
    return digest.hexdigest()


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        while chunk := file.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def run_rows(url: str, workdir: Path, expected: str, cli: Path, python: str, env: dict[str, str], runs: int,
             setup: Callable[[], None], log: Callable[[str], None]) -> tuple[list[dict], list[dict]]:
    """Runs every download client `runs` times; returns the rows and the targets."""
    out = workdir / "download.out"
    clients = [
        ("curl -o (the tool)", ["curl", "-sS", "-o", str(out), f"{url}/{NAME}"], True),
        ("gatewire CLI -o", [str(cli), "call", "--base-url", url, "GET", f"/{NAME}", "-o", str(out)], True),
        ("Gatewire Python download=", [python, "-c", DOWNLOAD_SCRIPT, url, f"/{NAME}", str(out)], True),
        ("Gatewire Python stream", [python, "-c", STREAM_SCRIPT, url, f"/{NAME}"], False),
    ]
    rows = []
    for name, argv, writes in clients:
        runs_seen = []
        for run in range(runs):
            started = time.monotonic()
            process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, **env),
                                       preexec_fn=setup)
            _, status, usage = os.wait4(process.pid, 0)
            elapsed = time.monotonic() - started
            stdout = process.stdout.read().decode() if process.stdout else ""
            stderr = process.stderr.read().decode() if process.stderr else ""
            if os.waitstatus_to_exitcode(status) != 0:
                raise RuntimeError(f"{name} failed: {stderr[-2000:]}")
            if writes:
                if out.stat().st_size != SIZE or (run == 0 and sha256(out) != expected):
                    raise RuntimeError(f"{name}: the file differs from the one served")
                out.unlink()
            elif stdout.strip() != expected:
                raise RuntimeError(f"{name}: the streamed body differs from the one served")
            runs_seen.append({"seconds": elapsed, "cpu": usage.ru_utime + usage.ru_stime, "maxrss_kib": usage.ru_maxrss})
        seconds = sorted(r["seconds"] for r in runs_seen)[len(runs_seen) // 2]
        row = {"client": name, "runs": runs_seen, "seconds": seconds, "mib_per_s": SIZE / (1 << 20) / seconds,
               "cpu_s": sorted(r["cpu"] for r in runs_seen)[len(runs_seen) // 2],
               "peak_rss_mib": max(r["maxrss_kib"] for r in runs_seen) / 1024}
        rows.append(row)
        log(f"{name:28} 1 GiB  {row['mib_per_s']:8,.0f} MiB/s  {row['cpu_s']:.2f} CPU s  {row['peak_rss_mib']:.1f} MiB")
    curl = rows[0]["mib_per_s"]
    for row in rows:
        row["vs_curl"] = row["mib_per_s"] / curl
    goals = []
    for row in rows[1:3]:
        goals.append({"target": f"1 GiB download, {row['client']}: peak RSS", "measured": round(row["peak_rss_mib"], 1),
                      "goal": 64.0, "unit": "MiB", "met": row["peak_rss_mib"] < 64.0})
        goals.append({"target": f"1 GiB download, {row['client']}: throughput vs curl -o", "measured": round(row["vs_curl"], 2),
                      "goal": 0.9, "unit": "x", "met": row["vs_curl"] >= 0.9})
    return rows, goals


def table(rows: list[dict]) -> str:
    lines = ["| 1 GiB download | MiB/s (median) | vs curl -o | CPU s | peak RSS MiB |", "|---|---:|---:|---:|---:|"]
    for row in rows:
        lines.append(f"| {row['client']} | {row['mib_per_s']:,.0f} | {row['vs_curl']:.2f}x | {row['cpu_s']:.2f} | "
                     f"{row['peak_rss_mib']:.1f} |")
    return "\n".join(lines)
