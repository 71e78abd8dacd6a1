#!/usr/bin/env python3
"""version_agrees: every copy of the version is the repository's VERSION file.

    check_version.py --root REPO --cmake-version 0.1.0 --library-dir build/lib --cli build/bin/gatewire

Fails (exit 1), printing each difference, unless all of these equal VERSION (MAJOR.MINOR.PATCH):
  - CMake's PROJECT_VERSION (passed in; CMakeLists.txt reads VERSION);
  - include/gatewire.h: GW_VERSION_MAJOR, GW_VERSION_MINOR, GW_VERSION_PATCH, GW_VERSION_STRING;
  - the Swift literal `Version.string` in Sources/GatewireBase/Version.swift (the Swift
    layers read no C header; gw_version, the CLI and the User-Agent return this literal);
  - gw_version() of the built library (loaded with ctypes);
  - the built CLI's `gatewire --version` ("gatewire VERSION");
  - the Python package's VERSION file (bindings/python/gatewire/VERSION, which must be a
    symlink to the repository's VERSION), gatewire.__version__ as the package reads it from
    there, and pyproject.toml's dynamic version, which must be read from that file (the built
    wheel's name and gatewire.__version__ once installed: deploy_without_toolchain);
and the library directory holds libGatewire.so.VERSION with SONAME libGatewire.so.MAJOR, and
the symlinks libGatewire.so -> libGatewire.so.MAJOR -> libGatewire.so.VERSION.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path


def header_macros(header: Path) -> dict[str, str]:
    """The GW_VERSION_* #defines of the header, as written."""
    pattern = re.compile(r"^#define\s+(GW_VERSION_(?:MAJOR|MINOR|PATCH|STRING))\s+(\S+)", re.M)
    return dict(pattern.findall(header.read_text()))


def swift_version(source: Path) -> str | None:
    """The literal of `public static let string: String = "..."` in Version.swift, as written."""
    match = re.search(r'^\s*public static let string: String = "([^"]*)"', source.read_text(), re.M)
    return match.group(1) if match else None


def python_version(package: Path) -> str:
    """gatewire.__version__ as a fresh interpreter imports it from `package` (bindings/python)."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "GATEWIRE_LIB")}
    env.update(PYTHONPATH=str(package), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", "import gatewire; print(gatewire.__version__)"],
                         check=True, capture_output=True, text=True, timeout=60, env=env)
    return out.stdout.strip()


def soname(library: Path) -> str | None:
    out = subprocess.run(["readelf", "-d", str(library)], check=True, capture_output=True,
                         text=True, timeout=60).stdout
    match = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", out)
    return match.group(1) if match else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--cmake-version", required=True)
    parser.add_argument("--library-dir", type=Path, required=True)
    parser.add_argument("--cli", type=Path, required=True)
    args = parser.parse_args()

    version_file = args.root / "VERSION"
    if not version_file.is_file():
        print(f"FAIL: {version_file} does not exist (the one source of the version)")
        return 1
    version = version_file.read_text().strip()
    match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", version)
    if not match:
        print(f"FAIL: VERSION is {version!r}, not MAJOR.MINOR.PATCH")
        return 1
    major, minor, patch = match.groups()
    problems: list[str] = []

    def agree(what: str, found: object, expected: str) -> None:
        if found != expected:
            problems.append(f"{what} is {found!r}, VERSION says {expected!r}")
        else:
            print(f"ok: {what} = {found}")

    agree("CMake PROJECT_VERSION", args.cmake_version, version)
    macros = header_macros(args.root / "include" / "gatewire.h")
    agree("GW_VERSION_MAJOR", macros.get("GW_VERSION_MAJOR"), major)
    agree("GW_VERSION_MINOR", macros.get("GW_VERSION_MINOR"), minor)
    agree("GW_VERSION_PATCH", macros.get("GW_VERSION_PATCH"), patch)
    agree("GW_VERSION_STRING", macros.get("GW_VERSION_STRING"), f'"{version}"')
    agree("Version.string (Sources/GatewireBase/Version.swift)",
          swift_version(args.root / "Sources" / "GatewireBase" / "Version.swift"), version)

    package = args.root / "bindings" / "python"
    package_version = package / "gatewire" / "VERSION"
    if not package_version.is_symlink() or package_version.resolve() != version_file.resolve():
        problems.append(f"{package_version} must be a symlink to {version_file}")
    else:
        print(f"ok: {package_version.relative_to(args.root)} -> VERSION")
    agree("gatewire.__version__", python_version(package), version)
    pyproject = tomllib.loads((package / "pyproject.toml").read_text())
    dynamic = pyproject.get("tool", {}).get("setuptools", {}).get("dynamic", {}).get("version", {})
    if "version" in pyproject.get("project", {}) or dynamic != {"file": "gatewire/VERSION"}:
        problems.append("pyproject.toml must read its version from gatewire/VERSION "
                        "(dynamic = [\"version\"], [tool.setuptools.dynamic] version = { file = ... })")
    else:
        print("ok: pyproject.toml's version is read from gatewire/VERSION")

    real = args.library_dir / f"libGatewire.so.{version}"
    links = {f"libGatewire.so.{major}": real.name, "libGatewire.so": f"libGatewire.so.{major}"}
    if not real.is_file() or real.is_symlink():
        problems.append(f"{real} is not a regular file")
    else:
        agree(f"SONAME of {real.name}", soname(real), f"libGatewire.so.{major}")
        library = ctypes.CDLL(str(real))
        library.gw_version.restype = ctypes.c_char_p
        agree("gw_version()", library.gw_version().decode(), version)
    for link, target in links.items():
        path = args.library_dir / link
        agree(f"symlink {link}", os.readlink(path) if path.is_symlink() else None, target)

    if not os.access(args.cli, os.X_OK):
        problems.append(f"the CLI {args.cli} is not built")
    else:
        cli = subprocess.run([str(args.cli), "--version"], capture_output=True, text=True, timeout=60)
        agree("gatewire --version", cli.stdout.strip(), f"gatewire {version}")

    for problem in problems:
        print(f"FAIL: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
