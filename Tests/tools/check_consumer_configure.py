#!/usr/bin/env python3
"""check_consumer_configure: a consumer's CMake build compiles the library and the CLI only.

    check_consumer_configure.py --root REPO --cmake cmake --ctest ctest

Configures REPO in a temporary folder as the README's C install does (no options but the
build type) and checks, without building anything: the build has the library's target
(`gatewire_swift`) and none of the C test programs (`cmake --build --target help`), and ctest
knows no test (`ctest -N`). Then configures again with -DGW_BUILD_TESTS=ON and checks the
test programs and suites are there, so the check cannot pass by listing nothing.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def run(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise SystemExit(f"check_consumer_configure: exit {done.returncode}: {' '.join(command)}\n{done.stdout}{done.stderr}")
    return done.stdout


def configure(args: argparse.Namespace, build: Path, *options: str) -> tuple[set[str], int]:
    """The targets `cmake --build --target help` lists and ctest's test count."""
    run([args.cmake, "-S", str(args.root), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release", *options])
    targets = set(re.findall(r"^\.\.\. (\S+)", run([args.cmake, "--build", str(build), "--target", "help"]), re.M))
    total = re.search(r"Total Tests: (\d+)", run([args.ctest, "--test-dir", str(build), "-N"]))
    return targets, int(total.group(1)) if total else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--ctest", default="ctest")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gatewire-configure-") as folder:
        targets, tests = configure(args, Path(folder) / "consumer")
        programs = sorted(t for t in targets if t.startswith("test_"))
        problems = []
        if "gatewire_swift" not in targets:
            problems.append(f"no gatewire_swift target among {sorted(targets)}")
        if programs or tests:
            problems.append(f"a default build has test programs {programs} and {tests} ctest tests")
        developer_targets, developer_tests = configure(args, Path(folder) / "developer", "-DGW_BUILD_TESTS=ON")
        if not any(t.startswith("test_") for t in developer_targets) or developer_tests == 0:
            problems.append("-DGW_BUILD_TESTS=ON has no test programs or no ctest tests")
    for problem in problems:
        print(f"check_consumer_configure: {problem}", file=sys.stderr)
    if not problems:
        print(f"ok: a default build has no test programs and no tests; with GW_BUILD_TESTS=ON, {developer_tests} tests")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
