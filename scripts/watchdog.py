#!/usr/bin/env python3
"""Runs one test step with a time limit, so that a hung step fails in minutes with a diagnosis
instead of holding CI until its own limit.

    python3 scripts/watchdog.py SECONDS LABEL -- COMMAND [ARG...]

COMMAND runs in its own process group with stdout and stderr passed through line by line (and
``stdbuf -oL`` in front of it when stdbuf exists, so a C-stdio child such as the Swift test
runner flushes every line instead of every 4 KiB). Exit status: COMMAND's own, or 124 when it
was still running after SECONDS. Then, before the group is killed, it prints:

  1. the thread stacks (gdb ``thread apply all bt``) of every process under COMMAND that is not
     an interpreter or shell (a deadlock shows there), and
  2. last, as the final lines (what a CI log's tail keeps): the Swift Testing tests that were
     started and had not finished, read from the output.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

STARTED = re.compile(r"Test (\S+\(.*?\)) started\.")
ENDED = re.compile(r"Test (\S+\(.*?\)) (?:with \d+ test cases? )?(?:passed|failed|skipped)")
NOT_STACKED = {"bash", "sh", "python", "python3", "make", "gmake", "timeout", "stdbuf", "tee", "cat"}


def descendants(root: int) -> list[int]:
    """Every process under `root` (from /proc), parents first."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    found, queue = [], [root]
    while queue:
        pid = queue.pop(0)
        found.append(pid)
        queue.extend(children.get(pid, []))
    return found


def command_name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as comm:
            return comm.read().strip()
    except OSError:
        return "?"


def dump_stacks(root: int) -> None:
    gdb = shutil.which("gdb")
    for pid in descendants(root):
        name = command_name(pid)
        if re.sub(r"[\d.]+$", "", name) in NOT_STACKED:
            continue
        print(f"watchdog: ---- stacks of {pid} ({name}) ----", flush=True)
        if gdb is None:
            print("watchdog: gdb is not installed; no stacks", flush=True)
            return
        try:
            out = subprocess.run([gdb, "-p", str(pid), "-batch", "-nx", "-ex", "thread apply all bt 30"],
                                 capture_output=True, text=True, timeout=120).stdout
        except subprocess.TimeoutExpired:
            out = "gdb timed out"
        print("\n".join(line for line in out.splitlines() if line.startswith(("#", "Thread"))), flush=True)


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    limit, label, command = float(argv[0]), argv[1], argv[3:]
    if shutil.which("stdbuf"):
        command = ["stdbuf", "-oL", "-eL"] + command
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True, bufsize=0)
    running: dict[str, None] = {}

    def relay() -> None:
        assert child.stdout is not None
        for raw in iter(child.stdout.readline, b""):
            sys.stdout.buffer.write(raw)
            sys.stdout.buffer.flush()
            line = raw.decode(errors="replace")
            if (match := STARTED.search(line)) is not None:
                running[match.group(1)] = None
            elif (match := ENDED.search(line)) is not None:
                running.pop(match.group(1), None)

    reader = threading.Thread(target=relay, daemon=True)
    reader.start()
    deadline = time.monotonic() + limit
    while child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    if child.poll() is not None:
        reader.join(timeout=10)
        return child.returncode
    print(f"\nwatchdog: {label} still running after {limit:.0f} s; thread stacks follow", flush=True)
    dump_stacks(child.pid)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    reader.join(timeout=5)
    unfinished = ", ".join(running) or "none seen (not a Swift Testing step, or it hung outside a test)"
    print(f"watchdog: {label} TIMED OUT after {limit:.0f} s and was killed", flush=True)
    print(f"watchdog: tests started and not finished: {unfinished}", flush=True)
    return 124


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
