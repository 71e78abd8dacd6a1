#!/usr/bin/env python3
"""deploy_without_toolchain: the shipped artifacts run on a machine with no Swift toolchain.

    deploy_check.py --build-dir BUILD --consumer Tests/c/consumer --cmake cmake --cc cc
                    --pkg-config pkg-config --version 0.1.0 [--libdir lib] [--includedir include]

1. `cmake --install BUILD` into a temporary prefix; builds Tests/c/consumer against it twice,
   with find_package(Gatewire) and with `pkg-config --cflags --libs gatewire`.
2. Re-runs itself with `unshare -m` (a private mount namespace: needs root, as CI has) and
   mounts an empty tmpfs over the Swift toolchain's folder (`dirname $(dirname $(readlink -f
   $(which swift)))`), as on a machine that has only Debian's packages.
3. There, against the scripted test server on 127.0.0.1, each of these sends GET /headers and
   must print status 200 and the server's view of the request, whose User-Agent must be
   "gatewire/VERSION libcurl/X.Y.Z": both installed C consumers, the installed `gatewire`
   CLI, and the Python binding (bindings/python) loading the built BUILD/lib/libGatewire.so.
Every step has a time bound; any failure exits non-zero. Nothing is skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import select
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from install_consumer import StepFailed, expect, run

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "Tests" / "support" / "testserver.py"


def toolchain_folder() -> Path:
    """The toolchain's folder, as a user would find it: two levels above the real `swift`."""
    swift = shutil.which("swift")
    if swift is None:
        raise StepFailed("swift is not on PATH: cannot find the toolchain folder to hide")
    return Path(os.path.realpath(swift)).parent.parent.parent


def start_server(timeout: float) -> tuple[subprocess.Popen[bytes], str]:
    process = subprocess.Popen([sys.executable, str(SERVER)], stdout=subprocess.PIPE)
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    line = process.stdout.readline() if ready else b""
    words = line.decode().split()
    if len(words) != 2 or words[0] != "PORT":
        process.kill()
        raise StepFailed(f"the test server printed {line!r}, not 'PORT <n>', within {timeout:.0f} s")
    return process, f"http://127.0.0.1:{words[1]}"


def expect_user_agent(output: str, version: str, who: str) -> None:
    """`output` holds the server's /headers JSON; its user-agent names this Gatewire and a libcurl."""
    start = output.find("{")
    expect(start >= 0, f"{who} printed the server's JSON")
    seen = json.loads(output[start:])["headers"].get("user-agent")
    expect(re.fullmatch(rf"gatewire/{re.escape(version)} libcurl/\d+\.\d+\.\d+", seen or "") is not None,
           f"{who}: the server saw User-Agent {seen!r}")


def inside(args: argparse.Namespace) -> int:
    """Step 3, in the private mount namespace."""
    timeout = args.step_timeout
    hidden = Path(args.hide)
    run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(hidden)], timeout)
    expect(not any(hidden.iterdir()), f"the toolchain folder {hidden} is hidden (empty)")
    expect(shutil.which("swift") is None or subprocess.run(["swift", "--version"], capture_output=True).returncode != 0,
           "swift cannot run")
    server, base_url = start_server(30.0)
    try:
        prefix = Path(args.prefix)
        for name in ("gatewire_consumer", "gatewire_consumer_pc"):
            out = run([str(Path(args.work) / name), base_url], timeout)
            expect(out.startswith(f"gatewire {args.version}\nstatus 200 body "), f"{name} made a call: status 200")
            expect_user_agent(out, args.version, name)
        out = run([str(prefix / "bin" / "gatewire"), "call", "--base-url", base_url, "GET", "/headers"], timeout)
        expect_user_agent(out, args.version, "the installed gatewire CLI")
        script = ("import gatewire, sys\n"
                  "with gatewire.Client(sys.argv[1]) as client:\n"
                  "    result = client.call('GET', '/headers')\n"
                  "print(gatewire.__version__, result.status, result.text)\n")
        env = dict(os.environ, GATEWIRE_LIB=args.library, PYTHONPATH=str(ROOT / "bindings" / "python"),
                   PYTHONDONTWRITEBYTECODE="1")
        out = run([sys.executable, "-c", script, base_url], timeout, env=env, cwd=Path(args.work))
        expect(out.startswith(f"{args.version} 200 "), "the Python binding made a call: status 200")
        expect_user_agent(out, args.version, "the Python binding")
    finally:
        server.kill()
        server.wait(timeout=10)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", type=Path)
    parser.add_argument("--consumer", type=Path)
    parser.add_argument("--cmake")
    parser.add_argument("--cc")
    parser.add_argument("--pkg-config")
    parser.add_argument("--version", required=True)
    parser.add_argument("--libdir", default="lib")
    parser.add_argument("--includedir", default="include")
    parser.add_argument("--step-timeout", type=float, default=120.0)
    # Set by the outer run for the inner one.
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--hide", help=argparse.SUPPRESS)
    parser.add_argument("--prefix", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    parser.add_argument("--library", help=argparse.SUPPRESS)
    args = parser.parse_args()
    timeout = args.step_timeout
    try:
        if args.inside:
            return inside(args)
        if os.geteuid() != 0:
            raise StepFailed("needs root (unshare -m and mount), as CI runs it")
        hide = toolchain_folder()
        library = args.build_dir / args.libdir / "libGatewire.so"
        expect(library.exists(), f"built {library}")
        tmp = Path(tempfile.mkdtemp(prefix="gatewire-deploy-"))
        try:
            prefix = tmp / "prefix"
            run([args.cmake, "--install", str(args.build_dir), "--prefix", str(prefix)], timeout)
            env = dict(os.environ)
            env.pop("CMAKE_PREFIX_PATH", None)
            build = tmp / "consumer-build"
            run([args.cmake, "-S", str(args.consumer), "-B", str(build), f"-DCMAKE_PREFIX_PATH={prefix}",
                 f"-DCMAKE_C_COMPILER={args.cc}", "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF"], timeout, env=env)
            run([args.cmake, "--build", str(build)], timeout, env=env)
            shutil.copy2(build / "gatewire_consumer", tmp / "gatewire_consumer")
            pc_env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / args.libdir / "pkgconfig"))
            flags = shlex.split(run([args.pkg_config, "--cflags", "--libs", "gatewire"], timeout, env=pc_env))
            run([args.cc, str(args.consumer / "main.c"), *flags, "-o", str(tmp / "gatewire_consumer_pc")], timeout)
            started = time.monotonic()
            run(["unshare", "-m", "--propagation", "private", "--", sys.executable, str(Path(__file__).resolve()),
                 "--inside", "--version", args.version, "--hide", str(hide), "--prefix", str(prefix),
                 "--work", str(tmp), "--library", str(library.resolve()), "--step-timeout", str(timeout)],
                timeout * 4)
            print(f"the namespace part took {time.monotonic() - started:.1f} s")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    except StepFailed as error:
        print(f"deploy_check: FAIL: {error}", file=sys.stderr)
        return 1
    print("deploy_check: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
