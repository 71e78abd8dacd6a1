"""Where the package finds libGatewire.so (gatewire._native's lookup order).

Each test lays out a copy of the package in a temporary folder the way it is used (an
installed wheel with the library beside it, a bare installed copy, a checkout with builds)
and imports it in a fresh interpreter with no GATEWIRE_LIB, PYTHONPATH or LD_LIBRARY_PATH
of ours, so the lookup is the package's alone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PACKAGE = REPO / "bindings" / "python" / "gatewire"
VERSION = (REPO / "VERSION").read_text().strip()
MAJOR = VERSION.split(".")[0]
PROBE = (
    "import gatewire, gatewire._native as n\n"
    "try:\n"
    "    print('loaded', n.library_path(), gatewire.version())\n"
    "except OSError as error:\n"
    "    print('error', error)\n"
)


def copy_package(destination: Path) -> Path:
    """A copy of the package's files (VERSION dereferenced, as a wheel has it) in destination/gatewire."""
    package = destination / "gatewire"
    package.mkdir(parents=True)
    for source in PACKAGE.iterdir():
        if source.suffix == ".py" or source.name in ("VERSION", "py.typed"):
            shutil.copyfile(source, package / source.name)
    return package


def probe(sys_path: Path, cwd: Path, **extra_env: str) -> str:
    """What a fresh interpreter that imports gatewire from sys_path prints for PROBE."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("GATEWIRE_LIB", "PYTHONPATH", "LD_LIBRARY_PATH")}
    env.update(PYTHONPATH=str(sys_path), PYTHONDONTWRITEBYTECODE="1", **extra_env)
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_an_installed_copy_loads_the_library_beside_it(library: str, tmp_path: Path) -> None:
    package = copy_package(tmp_path / "site")
    shutil.copyfile(os.path.realpath(library), package / "libGatewire.so")
    assert probe(tmp_path / "site", tmp_path) == f"loaded {package / 'libGatewire.so'} {VERSION}"


def test_an_installed_copy_without_a_library_says_what_it_tried(tmp_path: Path) -> None:
    package = copy_package(tmp_path / "site")
    out = probe(tmp_path / "site", tmp_path).splitlines()
    # Only the place beside the package and the loader: never folders above an installed copy.
    assert out[:4] == [
        "error cannot load libGatewire.so; tried:",
        f"  {package / 'libGatewire.so'}: not found",
        f"  libGatewire.so.{MAJOR} (dynamic loader): libGatewire.so.{MAJOR}: cannot open shared object "
        "file: No such file or directory",
        "Install a gatewire wheel, which bundles the library (make wheel; pip install --no-index "
        "--find-links dist gatewire), build it in the repository (make build, or cmake -S . -B build && "
        "cmake --build build), install it where the dynamic loader finds it (cmake --install "
        "build, then ldconfig), or set GATEWIRE_LIB to the path of libGatewire.so.",
    ]
    assert len(out) == 4


def test_gatewire_lib_is_the_only_candidate(library: str, tmp_path: Path) -> None:
    package = copy_package(tmp_path / "site")
    shutil.copyfile(os.path.realpath(library), package / "libGatewire.so")  # would load, is not tried
    missing = tmp_path / "nowhere" / "libGatewire.so"
    out = probe(tmp_path / "site", tmp_path, GATEWIRE_LIB=str(missing)).splitlines()
    assert out[0] == "error cannot load libGatewire.so; tried:"
    assert out[1].startswith(f"  {missing}: {missing}: cannot open shared object file")
    assert out[2].startswith("GATEWIRE_LIB is the only candidate when it is set")
    assert len(out) == 3


def checkout(root: Path) -> Path:
    """A minimal repository around a copy of the package: the files that mark it as Gatewire's."""
    (root / "include").mkdir(parents=True)
    for marker in ("VERSION", "Package.swift", "include/gatewire.h"):
        shutil.copyfile(REPO / marker, root / marker)
    copy_package(root / "bindings" / "python")
    return root / "bindings" / "python"


def test_a_checkout_loads_its_newest_build(library: str, tmp_path: Path) -> None:
    python_dir = checkout(tmp_path / "repo")
    builds = [tmp_path / "repo" / ".build" / "lib", tmp_path / "repo" / "build" / "lib"]
    for build in builds:
        build.mkdir(parents=True)
        shutil.copyfile(os.path.realpath(library), build / "libGatewire.so")
    now = time.time()
    for newest, older in (builds, builds[::-1]):
        os.utime(newest / "libGatewire.so", (now, now))
        os.utime(older / "libGatewire.so", (now - 60, now - 60))
        assert probe(python_dir, tmp_path) == f"loaded {newest / 'libGatewire.so'} {VERSION}"


def test_a_folder_that_only_looks_like_a_checkout_is_not_searched(library: str, tmp_path: Path) -> None:
    python_dir = checkout(tmp_path / "repo")
    (tmp_path / "repo" / "Package.swift").unlink()
    build = tmp_path / "repo" / "build" / "lib"
    build.mkdir(parents=True)
    shutil.copyfile(os.path.realpath(library), build / "libGatewire.so")
    out = probe(python_dir, tmp_path)
    assert out.startswith("error cannot load libGatewire.so; tried:")
    assert str(build) not in out
