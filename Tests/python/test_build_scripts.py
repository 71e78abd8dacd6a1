"""`make build`'s script says where a long build is: scripts/build.sh prints a line per stage
on stderr and stops at the stage that fails, with swift's own output kept. Run with a `swift`
of the test's own on PATH (it records its arguments and fails where the test asks), so no
real build runs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FAKE_SWIFT = """#!/bin/sh
echo "swift $*" >> "$SWIFT_LOG"
case "$*" in *"--product $FAIL_PRODUCT"*) echo "error: compiling failed (the test's swift)" >&2; exit 1;; esac
exit 0
"""


def build(tmp_path: Path, fail_product: str) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    swift = bin_dir / "swift"
    swift.write_text(FAKE_SWIFT)
    swift.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", SWIFT_LOG=str(tmp_path / "swift.log"),
               FAIL_PRODUCT=fail_product)
    return subprocess.run(["bash", str(ROOT / "scripts" / "build.sh"), "release", str(tmp_path / "scratch"),
                           str(tmp_path / "out")], capture_output=True, text=True, env=env, timeout=60)


def stages(stderr: str) -> list[str]:
    return [line.split("]", 1)[0] + "]" for line in stderr.splitlines() if line.startswith("build.sh: [")]


def test_each_stage_says_itself_and_a_failure_stops_at_its_stage(tmp_path: Path) -> None:
    done = build(tmp_path, fail_product="gatewire")
    assert done.returncode != 0
    assert stages(done.stderr) == ["build.sh: [1/3]", "build.sh: [2/3]"]
    assert "error: compiling failed (the test's swift)" in done.stderr
    products = [line.split("--product ")[1].split()[0] for line in (tmp_path / "swift.log").read_text().splitlines()]
    assert products == ["GatewireDynamic", "gatewire"]


def test_the_first_stage_is_the_library(tmp_path: Path) -> None:
    done = build(tmp_path, fail_product="GatewireDynamic")
    assert done.returncode != 0
    assert stages(done.stderr) == ["build.sh: [1/3]"]
    assert "libGatewire.so" in done.stderr.splitlines()[0]
