#!/usr/bin/env python3
"""install_consumer: an installed Gatewire works for a downstream project, from anywhere.

    install_consumer.py --build-dir BUILD --consumer Tests/c/consumer --cmake cmake --cc cc
                        --pkg-config pkg-config --version 0.1.0 --libdir lib --includedir include

1. `cmake --install BUILD --prefix <tmp>/stage`, and checks the installed files (the library
   libGatewire.so.VERSION with its two symlinks, the header, both package files, bin/gatewire),
   and that the library and the CLI are installed without debug info, each linked
   (.gnu_debuglink) to a .debug file in the .debug folder beside it that holds it.
2. Moves the tree to <tmp>/moved, so only a relocatable package can pass what follows.
3. Configures, builds and runs Tests/c/consumer (find_package(Gatewire 0.1 CONFIG REQUIRED),
   Gatewire::Gatewire) with CMAKE_PREFIX_PATH=<tmp>/moved; checks it found the moved package,
   recorded NEEDED libGatewire.so.MAJOR (the SONAME, not a path) and printed the version.
4. Compiles the same main.c with `pkg-config --cflags --libs gatewire` (PKG_CONFIG_PATH only)
   and runs it.
Every step has a time bound; any failure (a missing tool included) exits non-zero.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path


class StepFailed(Exception):
    pass


def run(command: list[str], timeout: float, env: dict[str, str] | None = None,
        cwd: Path | None = None, quiet: bool = False) -> str:
    print("$ " + shlex.join(command), flush=True)
    try:
        done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError as error:
        raise StepFailed(f"command not found: {command[0]} ({error})") from error
    except subprocess.TimeoutExpired as error:
        raise StepFailed(f"timed out after {timeout:.0f} s: {shlex.join(command)}") from error
    output = done.stdout + done.stderr
    if output.strip() and (not quiet or done.returncode != 0):
        print(output.rstrip(), flush=True)
    if done.returncode != 0:
        raise StepFailed(f"exit status {done.returncode}: {shlex.join(command)}")
    return done.stdout


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise StepFailed(message)
    print(f"ok: {message}", flush=True)


def needed_libraries(binary: Path, timeout: float) -> list[str]:
    """DT_NEEDED entries of an ELF file, via readelf (binutils)."""
    readelf = shutil.which("readelf")
    if readelf is None:
        raise StepFailed("readelf not found (binutils)")
    out = run([readelf, "-d", str(binary)], timeout, quiet=True)
    return [line.split("[", 1)[1].split("]", 1)[0] for line in out.splitlines() if "(NEEDED)" in line]


def sections(binary: Path, timeout: float) -> set[str]:
    """The section names of an ELF file, via readelf (binutils)."""
    out = run(["readelf", "-S", "-W", str(binary)], timeout, quiet=True)
    return {line.split("]", 1)[1].split()[0] for line in out.splitlines() if line.strip().startswith("[") and "]" in line
            and line.split("]", 1)[1].split()}


def debug_link(binary: Path, timeout: float) -> str:
    """The file name a .gnu_debuglink section names: the first string readelf dumps of it (the
    CRC after it is binary, hence bytes)."""
    command = ["readelf", "--string-dump=.gnu_debuglink", str(binary)]
    done = subprocess.run(command, capture_output=True, timeout=timeout)
    if done.returncode != 0:
        raise StepFailed(f"exit status {done.returncode}: {shlex.join(command)}")
    names = [line.split(b"]", 1)[1].strip() for line in done.stdout.splitlines() if line.strip().startswith(b"[")]
    return names[0].decode(errors="replace") if names else ""


def expect_split_debug_info(binary: Path, timeout: float) -> None:
    """`binary` has no DWARF but its symbols, and links to .debug/NAME.debug, which has the DWARF."""
    own = sections(binary, timeout)
    expect(".debug_info" not in own and ".symtab" in own, f"{binary.name} is installed without debug info, with symbols")
    expect(debug_link(binary, timeout) == f"{binary.name}.debug", f"{binary.name} links to {binary.name}.debug")
    separate = binary.parent / ".debug" / f"{binary.name}.debug"
    expect(separate.is_file() and ".debug_info" in sections(separate, timeout),
           f"{separate.parent.name}/{separate.name} holds {binary.name}'s debug info")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", type=Path, required=True)
    parser.add_argument("--consumer", type=Path, required=True)
    parser.add_argument("--cmake", required=True)
    parser.add_argument("--cc", required=True)
    parser.add_argument("--pkg-config", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--libdir", default="lib")
    parser.add_argument("--includedir", default="include")
    parser.add_argument("--step-timeout", type=float, default=120.0)
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    timeout = args.step_timeout

    for name, value in (("--cc", args.cc), ("--pkg-config", args.pkg_config), ("--cmake", args.cmake)):
        if not value or value.endswith("-NOTFOUND"):
            print(f"install_consumer: {name} was not found at configure time ({value!r})", file=sys.stderr)
            return 1

    tmp = Path(tempfile.mkdtemp(prefix="gatewire-install-"))
    try:
        stage, moved = tmp / "stage", tmp / "moved"
        run([args.cmake, "--install", str(args.build_dir), "--prefix", str(stage)], timeout)
        major = args.version.split(".")[0]
        soname = f"libGatewire.so.{major}"
        library = stage / args.libdir / f"libGatewire.so.{args.version}"
        expect(library.is_file() and not library.is_symlink(), f"installed {library.relative_to(tmp)}")
        expect(bool(library.stat().st_mode & stat.S_IXUSR), "the installed library is executable (install(PROGRAMS))")
        for link, target in ((soname, library.name), ("libGatewire.so", soname)):
            path = stage / args.libdir / link
            expect(path.is_symlink() and os.readlink(path) == target, f"installed the symlink {link} -> {target}")
        cli = stage / "bin" / "gatewire"
        expect(cli.is_file() and bool(cli.stat().st_mode & stat.S_IXUSR), "installed bin/gatewire")
        for binary in (library, cli):
            expect_split_debug_info(binary, timeout)
        for relative in (f"{args.includedir}/gatewire.h", f"{args.libdir}/pkgconfig/gatewire.pc",
                         f"{args.libdir}/cmake/Gatewire/GatewireConfig.cmake",
                         f"{args.libdir}/cmake/Gatewire/GatewireConfigVersion.cmake"):
            expect((stage / relative).is_file(), f"installed {relative}")
        pc_text = (stage / args.libdir / "pkgconfig" / "gatewire.pc").read_text()
        expect(str(stage) not in pc_text and "${pcfiledir}" in pc_text,
               "gatewire.pc has no absolute install prefix (relocatable via ${pcfiledir})")
        stage.rename(moved)
        print(f"moved the installed tree to {moved}", flush=True)

        # find_package + Gatewire::Gatewire
        build = tmp / "consumer-build"
        env = dict(os.environ)
        env.pop("CMAKE_PREFIX_PATH", None)
        out = run([args.cmake, "-S", str(args.consumer), "-B", str(build),
                   f"-DCMAKE_PREFIX_PATH={moved}", f"-DCMAKE_C_COMPILER={args.cc}",
                   "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF", "-DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF"],
                  timeout, env=env)
        expect(f"Found Gatewire {args.version} in {moved}/" in out, "find_package found the moved package")
        run([args.cmake, "--build", str(build)], timeout, env=env)
        consumer = build / "gatewire_consumer"
        needed = needed_libraries(consumer, timeout)
        expect(soname in needed, f"the consumer records NEEDED {soname} (NEEDED: {needed})")
        expect(not any(n.startswith("libswift") for n in needed), "no Swift runtime library on the consumer's link line")
        out = run([str(consumer)], timeout, env=env)
        expect(out.strip() == f"gatewire {args.version}", f"the CMake consumer printed 'gatewire {args.version}'")

        # pkg-config
        pc_env = dict(os.environ, PKG_CONFIG_PATH=str(moved / args.libdir / "pkgconfig"))
        pc_env.pop("PKG_CONFIG_LIBDIR", None)
        version = run([args.pkg_config, "--modversion", "gatewire"], timeout, env=pc_env).strip()
        expect(version == args.version, f"pkg-config --modversion gatewire is {args.version}")
        flags = shlex.split(run([args.pkg_config, "--cflags", "--libs", "gatewire"], timeout, env=pc_env))
        expect(any(flag.startswith("-I") and flag[2:].startswith(str(moved)) for flag in flags),
               "pkg-config's include dir is inside the moved prefix")
        pc_consumer = tmp / "gatewire_consumer_pc"
        run([args.cc, str(args.consumer / "main.c"), *flags, "-o", str(pc_consumer)], timeout, env=pc_env)
        out = run([str(pc_consumer)], timeout, env=pc_env)
        expect(out.strip() == f"gatewire {args.version}", f"the pkg-config consumer printed 'gatewire {args.version}'")
    except StepFailed as error:
        print(f"install_consumer: FAIL: {error}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print("install_consumer: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
