#!/usr/bin/env python3
"""deploy_without_toolchain: the shipped artifacts run on a machine with no Swift toolchain.

    deploy_check.py --build-dir BUILD --consumer Tests/c/consumer --cmake cmake --cc cc
                    --pkg-config pkg-config --version 0.1.0 --wheel-from BUILD/lib
                    [--libdir lib] [--includedir include]

Outside the namespace (work in a temporary directory):
1. `cmake --install BUILD` into a temporary prefix; builds Tests/c/consumer against it twice:
   with find_package(Gatewire), then `cmake --install`s that consumer into a prefix of its
   own (its build tree RPATH is gone there), and with `pkg-config --cflags --libs gatewire`.
2. `make dist`'s tarball (scripts/dist.sh BUILD), unpacked into another directory than it was
   staged in; its symlinks must be symlinks. The same two consumers are built against the
   unpacked tree (the find_package one installed into its own prefix again).
3. examples/swift-app built as a Swift application is built for deployment
   (`swift build -c release --static-swift-stdlib`, scratch path BUILD/swift-app): its
   `ldd` must name no libswift* library.
Inside the namespace:
4. Re-runs itself with `unshare -m` (a private mount namespace: needs root, as CI has) and
   mounts an empty tmpfs over the Swift toolchain's folder (`dirname $(dirname $(readlink -f
   $(which swift)))`), as on a machine that has only Debian's packages.
5. There, against the scripted test server on 127.0.0.1, each of these sends GET /headers and
   must print status 200 and the server's view of the request, whose User-Agent must be
   "gatewire/VERSION libcurl/X.Y.Z": the four C consumers of steps 1 and 2 (each must load
   libGatewire.so.MAJOR from the tree it was built against), the installed and the unpacked
   `gatewire` CLI (each also with a config naming Tests/c/plugin_api_only.c, built before
   step 4 against the installed header without -lGatewire: the server must see its X-Seen
   header), the Swift app of step 3, the Python binding (bindings/python) loading
   the built BUILD/lib/libGatewire.so, and the two Python wheels of step 6.
6. The Python wheels: before step 4, scripts/wheel.sh builds both from the library and the
   C extension in --wheel-from (no second Swift build): the interpreter's own
   (cp311-cp311-linux_x86_64 under CPython 3.11), which must carry gatewire/_speedups, and
   py3-none-linux_x86_64, which must not; neither may be py3-none-any. `pip install
   --no-index --find-links` must choose the first for this interpreter; each is installed
   into a fresh venv of its own in a temporary folder outside the repository. In the
   namespace, each venv's python, started in another folder with no GATEWIRE_LIB,
   PYTHONPATH or LD_LIBRARY_PATH, must load the library bundled in the installed package,
   report gatewire.__version__ == VERSION and make the call as above; the cp311 one must run
   the extension (gatewire._reader.speedups() is its bundled module), the py3 one ctypes
   alone (speedups() is None), as a user of another interpreter gets it.
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
import sysconfig
import tempfile
import time
import zipfile
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


# ---- Outside the namespace: what each check builds, under the work directory --------------
# Paths inside the work directory, shared by the builders and the runners below.
INSTALLED_CONSUMER = "app/bin/gatewire_consumer"         # find_package consumer, installed
INSTALLED_CONSUMER_PC = "gatewire_consumer_pc"            # pkg-config consumer
DIST_TREE = "unpacked"                                    # where the dist tarball is unpacked
DIST_CONSUMER = "dist-app/bin/gatewire_consumer"
DIST_CONSUMER_PC = "dist_consumer_pc"
SWIFT_APP = "swift-app"
CLI_PLUGIN = "plugin/libstrict.so"                        # Tests/c/plugin_api_only.c, no -lGatewire


def build_cli_plugin(args: argparse.Namespace, prefix: Path, work: Path) -> None:
    """Tests/c/plugin_api_only.c against the installed header as `work`/CLI_PLUGIN: a plugin that
    reaches Gatewire through the gw_plugin_api table (--no-undefined: it needs no gw_* symbol)."""
    (work / CLI_PLUGIN).parent.mkdir(parents=True, exist_ok=True)
    run([args.cc, "-shared", "-fPIC", "-Wl,--no-undefined", "-I", str(prefix / args.includedir),
         "-o", str(work / CLI_PLUGIN), str(ROOT / "Tests" / "c" / "plugin_api_only.c")], args.step_timeout)


def build_c_consumers(args: argparse.Namespace, prefix: Path, work: Path, app_prefix: Path, pc_binary: Path,
                      label: str) -> None:
    """Builds Tests/c/consumer against the Gatewire installed in `prefix`: with find_package,
    then installed into `app_prefix` (`cmake --install`, which drops the build tree's RPATH),
    and with pkg-config into `pc_binary`."""
    timeout = args.step_timeout
    env = dict(os.environ)
    env.pop("CMAKE_PREFIX_PATH", None)
    build = work / f"consumer-build-{label}"
    run([args.cmake, "-S", str(args.consumer), "-B", str(build), f"-DCMAKE_PREFIX_PATH={prefix}",
         f"-DCMAKE_C_COMPILER={args.cc}", "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF"], timeout, env=env)
    run([args.cmake, "--build", str(build)], timeout, env=env)
    run([args.cmake, "--install", str(build), "--prefix", str(app_prefix)], timeout, env=env)
    pc_env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / args.libdir / "pkgconfig"))
    pc_env.pop("PKG_CONFIG_LIBDIR", None)
    flags = shlex.split(run([args.pkg_config, "--cflags", "--libs", "gatewire"], timeout, env=pc_env))
    run([args.cc, str(args.consumer / "main.c"), *flags, "-o", str(pc_binary)], timeout)


def build_dist(args: argparse.Namespace, work: Path) -> Path:
    """`make dist`'s tarball of BUILD, unpacked under `work`/DIST_TREE; returns the unpacked prefix."""
    timeout = args.step_timeout
    dbgsym, tarball = map(Path, run(["bash", str(ROOT / "scripts" / "dist.sh"), str(args.build_dir), str(work / "dist")],
                                    timeout).strip().splitlines()[-2:])
    expect(tarball.name == f"gatewire-{args.version}-linux-{os.uname().machine}.tar.gz", f"made {tarball.name}")
    listing = run(["tar", "-tzf", str(tarball)], timeout, quiet=True).splitlines()
    expect(not any("/.debug" in entry for entry in listing), "the tarball has no debug info files")
    debug_files = sorted(e for e in run(["tar", "-tzf", str(dbgsym)], timeout, quiet=True).splitlines() if e.endswith(".debug"))
    expect(debug_files == [f"gatewire-{args.version}/bin/.debug/gatewire.debug",
                           f"gatewire-{args.version}/{args.libdir}/.debug/libGatewire.so.{args.version}.debug"],
           f"{dbgsym.name} holds the CLI's and the library's debug info")
    unpacked = work / DIST_TREE
    unpacked.mkdir()
    run(["tar", "-C", str(unpacked), "-xzf", str(tarball)], timeout)
    expect([entry.name for entry in unpacked.iterdir()] == [f"gatewire-{args.version}"],
           f"the tarball's one top folder is gatewire-{args.version}/")
    prefix = unpacked / f"gatewire-{args.version}"
    major = args.version.split(".")[0]
    lib = prefix / args.libdir
    for link, target in ((f"libGatewire.so.{major}", f"libGatewire.so.{args.version}"),
                         ("libGatewire.so", f"libGatewire.so.{major}")):
        expect((lib / link).is_symlink() and os.readlink(lib / link) == target,
               f"the unpacked {args.libdir}/{link} is a symlink to {target}")
    for relative in ("bin/gatewire", f"{args.includedir}/gatewire.h", f"{args.libdir}/pkgconfig/gatewire.pc",
                     f"{args.libdir}/cmake/Gatewire/GatewireConfig.cmake"):
        expect((prefix / relative).is_file(), f"the tarball has {relative}")
    return prefix


def build_swift_app(args: argparse.Namespace, work: Path) -> None:
    """examples/swift-app, built for deployment (the Swift runtime linked in), copied to `work`/SWIFT_APP."""
    package = ROOT / "examples" / "swift-app"
    scratch = args.build_dir / "swift-app"
    build = ["swift", "build", "-c", "release", "--static-swift-stdlib", "--package-path", str(package),
             "--scratch-path", str(scratch)]
    run(build, args.swift_build_timeout, quiet=True)
    binary = Path(run([*build, "--show-bin-path"], args.step_timeout).strip()) / "swift-app"
    shutil.copy2(binary, work / SWIFT_APP)
    libraries = run(["ldd", str(work / SWIFT_APP)], args.step_timeout)
    expect("libswift" not in libraries, "the Swift app's ldd names no libswift* library")


# ---- Inside the namespace: each shipped program makes a call --------------------------------
def run_c_consumers(args: argparse.Namespace, base_url: str) -> None:
    """The four C consumers: each loads libGatewire.so.MAJOR from the tree it was built against."""
    work = Path(args.work)
    soname = f"libGatewire.so.{args.version.split('.')[0]}"
    trees = {INSTALLED_CONSUMER: Path(args.prefix), INSTALLED_CONSUMER_PC: Path(args.prefix),
             DIST_CONSUMER: work / DIST_TREE, DIST_CONSUMER_PC: work / DIST_TREE}
    for name, tree in trees.items():
        binary = work / name
        loads = [line.split("=>")[1].split()[0] for line in run(["ldd", str(binary)], args.step_timeout).splitlines()
                 if line.strip().startswith(soname + " =>")]
        expect(len(loads) == 1 and Path(loads[0]).resolve().is_relative_to(tree.resolve()),
               f"{name} loads {soname} from {tree} ({loads})")
        out = run([str(binary), base_url], args.step_timeout)
        expect(out.startswith(f"gatewire {args.version}\nstatus 200 body "), f"{name} made a call: status 200")
        expect_user_agent(out, args.version, name)


def run_clis(args: argparse.Namespace, base_url: str) -> None:
    """The installed CLI and the one unpacked from the tarball, each also with CLI_PLUGIN named
    in the config: the plugin's header must reach the server."""
    work = Path(args.work)
    unpacked = work / DIST_TREE / f"gatewire-{args.version}"
    config = work / "plugin-gateway.json"
    config.write_text(json.dumps({"baseURL": base_url, "plugins": [{"path": str(work / CLI_PLUGIN)}]}))
    for who, prefix in (("the installed gatewire CLI", Path(args.prefix)), ("the unpacked gatewire CLI", unpacked)):
        cli = str(prefix / "bin" / "gatewire")
        out = run([cli, "call", "--base-url", base_url, "GET", "/headers"], args.step_timeout)
        expect_user_agent(out, args.version, who)
        out = run([cli, "call", "--config", str(config), "GET", "/headers"], args.step_timeout)
        expect_user_agent(out, args.version, f"{who} with a plugin")
        seen = json.loads(out[out.find("{"):])["headers"].get("x-seen")
        expect(seen == "yes", f"{who} ran the shared-object plugin: the server saw X-Seen {seen!r}")


def run_swift_app(args: argparse.Namespace, base_url: str) -> None:
    """The Swift app built with --static-swift-stdlib."""
    out = run([str(Path(args.work) / SWIFT_APP), base_url], args.step_timeout)
    expect(out.startswith("status 200 body "), "the Swift app made a call: status 200")
    expect_user_agent(out, args.version, "the Swift app")


def run_python_binding(args: argparse.Namespace, base_url: str) -> None:
    """bindings/python on the built library."""
    script = ("import gatewire, sys\n"
              "with gatewire.Client(sys.argv[1]) as client:\n"
              "    result = client.call('GET', '/headers')\n"
              "print(gatewire.__version__, result.status, result.text)\n")
    env = dict(os.environ, GATEWIRE_LIB=args.library, PYTHONPATH=str(ROOT / "bindings" / "python"),
               PYTHONDONTWRITEBYTECODE="1")
    out = run([sys.executable, "-c", script, base_url], args.step_timeout, env=env, cwd=Path(args.work))
    expect(out.startswith(f"{args.version} 200 "), "the Python binding made a call: status 200")
    expect_user_agent(out, args.version, "the Python binding")


# ---- The Python wheel ----------------------------------------------------------------------
def interpreter_tag() -> str:
    """This interpreter's wheel tag without the platform, e.g. ``cp311-cp311``."""
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    return f"{tag}-{tag}"


def check_wheel(wheel: Path, version: str, tag: str, extension: str) -> None:
    """`wheel` is gatewire VERSION tagged `tag`-PLATFORM, bundles the library, and holds the
    extension `extension` exactly when the tag names this interpreter."""
    expect(wheel.is_file() and wheel.name.startswith(f"gatewire-{version}-{tag}-")
           and wheel.name.endswith(f"-linux_{os.uname().machine}.whl"), f"built the {tag} wheel: {wheel.name}")
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(f"gatewire-{version}.dist-info/WHEEL").decode()
        package = archive.read(f"gatewire-{version}.dist-info/METADATA").decode()
        names = archive.namelist()
    # pip install gatewire[opentelemetry] brings the instrumentor's one dependency.
    expect("Provides-Extra: opentelemetry" in package
           and 'Requires-Dist: opentelemetry-api>=1.12; extra == "opentelemetry"' in package,
           f"{wheel.name} offers the opentelemetry extra: {[l for l in package.splitlines() if 'xtra' in l]}")
    tags = [line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Tag:")]
    expect(tags == [f"{tag}-linux_{os.uname().machine}"], f"{wheel.name}'s WHEEL file says the tag: {tags}")
    expect("gatewire/libGatewire.so" in names, f"{wheel.name} bundles gatewire/libGatewire.so")
    carries = f"gatewire/{extension}" in names
    wanted = tag != "py3-none"
    expect(carries == wanted, f"{wheel.name} {'carries' if wanted else 'leaves out'} gatewire/{extension}: {names}")


def build_and_install_wheels(library_dir: Path, work: Path, version: str, timeout: float) -> dict[str, Path]:
    """Builds both wheels from library_dir, checks their tags and contents and pip's choice,
    installs each into a fresh venv in work; returns each venv's python by tag."""
    out = run(["bash", str(ROOT / "scripts" / "wheel.sh"), str(library_dir), str(work / "dist")], timeout)
    wheels = [Path(line) for line in out.strip().splitlines()[-2:]]
    extension = "_speedups" + sysconfig.get_config_var("EXT_SUFFIX")
    tags = (interpreter_tag(), "py3-none")
    for wheel, tag in zip(wheels, tags):
        check_wheel(wheel, version, tag, extension)
    pythons = {}
    for wheel, tag in zip(wheels, tags):
        venv = work / f"wheel-venv-{tag}"
        run([sys.executable, "-m", "venv", str(venv)], timeout)
        python = venv / "bin" / "python"
        pip = [str(python), "-m", "pip", "--disable-pip-version-check"]
        if tag == "py3-none":
            run([*pip, "install", "--quiet", "--no-index", str(wheel)], timeout)
        else:  # as README tells a user: pip chooses among the wheels in the folder
            chosen = run([*pip, "install", "--no-index", "--find-links", str(wheels[0].parent), "gatewire"], timeout)
            expect(wheel.name in chosen, f"pip install --find-links chose {wheel.name} for this interpreter: {chosen}")
        pythons[tag] = python
    return pythons


def check_installed_wheel(python: Path, work: Path, base_url: str, version: str, timeout: float,
                          tag: str) -> None:
    """In the namespace: the wheel installed in `python`'s venv, from another folder with no
    path of ours set, loads its bundled library (and, unless `tag` is py3-none, its bundled
    extension) and makes a call."""
    elsewhere = work / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    env = {key: value for key, value in os.environ.items()
           if key not in ("GATEWIRE_LIB", "PYTHONPATH", "LD_LIBRARY_PATH", "VIRTUAL_ENV")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    script = ("import gatewire, gatewire._native, gatewire._reader, sys\n"
              "with gatewire.Client(sys.argv[1]) as client:\n"
              "    result = client.call('GET', '/headers')\n"
              "fast = gatewire._reader.speedups()\n"
              "from importlib.metadata import entry_points\n"
              "found = [e.load() for e in entry_points(group='opentelemetry_instrumentor') if e.name == 'gatewire']\n"
              "print(gatewire.__version__, gatewire._native.library_path(), fast and fast.__file__, result.status,\n"
              "      found == [gatewire.GatewireInstrumentor], result.text)\n")
    out = run([str(python), "-c", script, base_url], timeout, env=env, cwd=elsewhere)
    found_version, library, extension, status, instrumentor = out.split(" ", 5)[:5]
    who = f"the installed {tag} wheel"
    expect(found_version == version, f"{who}'s gatewire.__version__ is {found_version}")
    expect(Path(library).parent.name == "gatewire" and Path(library).is_relative_to(python.parent.parent),
           f"{who} loaded its bundled library {library}")
    if tag == "py3-none":
        expect(extension == "None", f"{who} runs on ctypes alone (speedups() is {extension})")
    else:
        expect(Path(extension).parent == Path(library).parent and Path(extension).name.startswith("_speedups."),
               f"{who} runs its bundled extension (speedups() is {extension})")
    expect(status == "200", f"{who} made a call: status 200")
    expect(instrumentor == "True", f"{who} names GatewireInstrumentor to opentelemetry-instrument (entry point group "
                                   "opentelemetry_instrumentor)")
    expect_user_agent(out, version, who)


def inside(args: argparse.Namespace) -> int:
    """Steps 4 and 5, in the private mount namespace."""
    timeout = args.step_timeout
    hidden = Path(args.hide)
    run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(hidden)], timeout)
    expect(not any(hidden.iterdir()), f"the toolchain folder {hidden} is hidden (empty)")
    expect(shutil.which("swift") is None or subprocess.run(["swift", "--version"], capture_output=True).returncode != 0,
           "swift cannot run")
    server, base_url = start_server(30.0)
    try:
        run_c_consumers(args, base_url)
        run_clis(args, base_url)
        run_swift_app(args, base_url)
        run_python_binding(args, base_url)
        for tag, python in json.loads(args.wheel_pythons).items():
            check_installed_wheel(Path(python), Path(args.work), base_url, args.version, timeout, tag)
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
    parser.add_argument("--wheel-from", type=Path, help="the folder with the built libGatewire.so.VERSION")
    parser.add_argument("--step-timeout", type=float, default=120.0)
    parser.add_argument("--swift-build-timeout", type=float, default=1200.0,
                        help="bound of the Swift app's release build (it compiles the core), seconds")
    # Set by the outer run for the inner one.
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--hide", help=argparse.SUPPRESS)
    parser.add_argument("--prefix", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    parser.add_argument("--library", help=argparse.SUPPRESS)
    parser.add_argument("--wheel-pythons", help=argparse.SUPPRESS)
    args = parser.parse_args()
    timeout = args.step_timeout
    try:
        if args.inside:
            return inside(args)
        if os.geteuid() != 0:
            raise StepFailed("needs root (unshare -m and mount), as CI runs it")
        hide = toolchain_folder()
        args.build_dir = args.build_dir.resolve()
        library = args.build_dir / args.libdir / "libGatewire.so"
        expect(library.exists(), f"built {library}")
        tmp = Path(tempfile.mkdtemp(prefix="gatewire-deploy-"))
        try:
            prefix = tmp / "prefix"
            run([args.cmake, "--install", str(args.build_dir), "--prefix", str(prefix)], timeout)
            build_c_consumers(args, prefix, tmp, tmp / "app", tmp / INSTALLED_CONSUMER_PC, "installed")
            build_cli_plugin(args, prefix, tmp)
            unpacked = build_dist(args, tmp)
            build_c_consumers(args, unpacked, tmp, tmp / "dist-app", tmp / DIST_CONSUMER_PC, "dist")
            build_swift_app(args, tmp)
            if args.wheel_from is None:
                raise StepFailed("--wheel-from is required (the folder with the built libGatewire.so.VERSION)")
            wheel_pythons = build_and_install_wheels(args.wheel_from, tmp, args.version, timeout)
            started = time.monotonic()
            run(["unshare", "-m", "--propagation", "private", "--", sys.executable, str(Path(__file__).resolve()),
                 "--inside", "--version", args.version, "--hide", str(hide), "--prefix", str(prefix),
                 "--work", str(tmp), "--library", str(library.resolve()), "--wheel-pythons", json.dumps({tag: str(python) for tag, python in wheel_pythons.items()}),
                 "--step-timeout", str(timeout)],
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
