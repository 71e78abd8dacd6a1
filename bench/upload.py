"""make bench's upload rows: one multipart/form-data upload of a 1 GiB file (sparse, made for
the run) through Gatewire's C ABI (bench/c/upload.c: a GW_PART_FILE part, streamed from
disk by libcurl's MIME API) and through the curl command line tool (``curl -F
file=@FILE``), each to the same sink (bench/upload_sink.py: reads every body byte and drops
it, answers with the count). Each client runs ``runs`` times as its own process; reported:
throughput (MiB of file per second, median), the whole process's peak RSS (max over the
runs, from wait4, which also counts the runner's pages the child held until its exec; for
Gatewire also its own peak since exec, VmHWM) and CPU, and Gatewire's throughput against
curl's. The smoke mode uploads
8 MiB once per client and checks only that the sink read the whole body.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Callable

BENCH = Path(__file__).resolve().parent
FULL_BYTES = 1 << 30
SMOKE_BYTES = 8 << 20
#: What the curl tool prints for run_once: the timed phase is its own time_total.
CURL_REPORT = '{"requests": 1, "ok": 1, "elapsed": %{time_total}, "cpu": 0, "uploaded": %{size_upload}}\n'


def upload_rows(upload_client: Path, workdir: Path, runs: int, smoke: bool, run_once: Callable[..., dict],
                log: Callable[[str], None], server_cpus: set[int] | None) -> dict:
    """Runs both clients ``runs`` times on one file; the summary (see the module's docstring)."""
    size = SMOKE_BYTES if smoke else FULL_BYTES
    path = workdir / "upload.bin"
    with open(path, "wb") as file:
        file.truncate(size)  # sparse: the read costs no disk, the same for both clients
    sink = subprocess.Popen([sys.executable, str(BENCH / "upload_sink.py")], stdout=subprocess.PIPE,
                            stdin=subprocess.DEVNULL,
                            preexec_fn=(lambda: os.sched_setaffinity(0, server_cpus)) if server_cpus else None)
    try:
        assert sink.stdout is not None
        line = sink.stdout.readline().decode()
        if not line.startswith("PORT "):
            raise RuntimeError(f"upload sink: expected PORT <n>, got {line!r}")
        url = f"http://127.0.0.1:{int(line.split()[1])}"
        config = workdir / "gateway-upload.json"
        config.write_text(json.dumps({"baseURL": url, "timeouts": {"attempt": 600}}))
        commands = {
            "Gatewire C ABI": [str(upload_client), str(config), "/upload", str(path), str(size)],
            # "Expect:" as Gatewire sends it: no 100-continue round trip.
            "curl tool": ["curl", "-sS", "--fail", "-o", "/dev/null", "-H", "Expect:", "-F", f"file=@{path}",
                          "-w", CURL_REPORT, f"{url}/upload"],
        }
        clients = {}
        for name, argv in commands.items():
            reports = [run_once(argv, {}, timeout=600) for _ in range(1 if smoke else runs)]
            for report in reports:
                if report["uploaded"] <= size:
                    raise RuntimeError(f"{name}: uploaded {report['uploaded']} bytes of a {size}-byte file")
            clients[name] = {
                "mib_per_s": round(statistics.median(size / (1 << 20) / r["elapsed"] for r in reports), 1),
                # wait4's peak: at least the runner's own RSS, which the child had until its exec.
                "peak_rss_mib": round(max(r["maxrss_kib"] for r in reports) / 1024, 1),
                "peak_rss_since_exec_mib": (round(max(r["vm_hwm_kib"] for r in reports) / 1024, 1)
                                            if "vm_hwm_kib" in reports[0] else None),
                "process_cpu_s": round(statistics.median(r["process_cpu"] for r in reports), 3),
            }
            log(f"upload {size >> 20} MiB {name:16} {clients[name]['mib_per_s']:8,.1f} MiB/s  "
                f"peak RSS {clients[name]['peak_rss_mib']:.1f} MiB  CPU {clients[name]['process_cpu_s']:.2f} s")
    finally:
        sink.terminate()
        sink.wait(timeout=10)
        path.unlink(missing_ok=True)
    mine, curl = clients["Gatewire C ABI"], clients["curl tool"]
    return {"bytes": size, "runs": 1 if smoke else runs, "clients": clients,
            "vs_curl": round(mine["mib_per_s"] / curl["mib_per_s"], 3)}


def upload_table(result: dict) -> str:
    lines = [f"Multipart upload of a {result['bytes'] >> 20} MiB file to a loopback sink ({result['runs']} runs):", "",
             "| client | MiB/s (median) | peak RSS MiB (wait4) | peak RSS MiB since exec | process CPU s |",
             "|---|---:|---:|---:|---:|"]
    for name, row in result["clients"].items():
        since = "" if row["peak_rss_since_exec_mib"] is None else f"{row['peak_rss_since_exec_mib']:.1f}"
        lines.append(f"| {name} | {row['mib_per_s']:,.1f} | {row['peak_rss_mib']:.1f} | {since} | {row['process_cpu_s']:.2f} |")
    return "\n".join(lines)


def upload_targets(result: dict) -> list[dict]:
    """The upload targets: peak RSS under 64 MB, throughput at least 0.9x curl's."""
    rss = result["clients"]["Gatewire C ABI"]["peak_rss_mib"]
    return [{"target": "upload 1 GiB: peak RSS (C ABI)", "measured": rss, "goal": 64.0, "unit": "MiB", "met": rss < 64.0},
            {"target": "upload 1 GiB: throughput vs the curl tool", "measured": result["vs_curl"], "goal": 0.9, "unit": "x",
             "met": result["vs_curl"] >= 0.9}]
