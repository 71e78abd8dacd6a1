#!/usr/bin/env python3
"""readme_examples: every example of README.md and bindings/python/README.md runs, as doctest
would run a docstring's.

    readme_examples.py --root ROOT --build-dir BUILD [--list] [--only FILE:LINE ...]

Each fenced block in C, Python, Swift or shell (```c, ```python, ```swift, ```sh) is either
run or marked, in the Markdown source, by the line just before its fence:

    <!-- not run: why -->

(an excerpt, a fragment of a larger program, a step that installs or builds). A block that is
neither fails the test, as does a mark without a reason. Blocks in other languages (json,
cmake, none) are data and are not run.

How each block runs, from a temporary folder outside the repository (one folder per README
section, shared by that section's blocks), with what the README's Quickstart tells a user to
set: GATEWIRE_EXAMPLES (ROOT/examples), PATH (BUILD/bin first, for `gatewire`), HOME (a
temporary one, into which BUILD is `cmake --install`ed as `$HOME/.local`, the README's C
install), and, for Python from the checkout, PYTHONPATH (ROOT/bindings/python) and
GATEWIRE_LIB (BUILD/lib/libGatewire.so):

- python: saved as a file and run by this interpreter (the project's .venv);
- sh: run by bash (no -e: a block may show a failing command);
- c: a whole program, saved under the name the paragraph before it gives (`login.c`:); a
  later shell block of the same section must compile and run it;
- swift: each block is the main.swift of an executable target of one throwaway package that
  depends on ROOT by path, for its Gatewire and GatewireOpenAPI products (BUILD/readme-swift, a debug build, so one compile of the core
  serves every block and a rerun is incremental), then run; a warning in a block fails.

Servers: httpbin (the venv's gunicorn) on 127.0.0.1:8080, Tests/support/testserver.py on
127.0.0.1:8081, Debian's redis-server (no persistence, for the fleet's shared state) on
127.0.0.1:6380 and Tests/support/otlpreceiver.py (an OTLP/HTTP collector's receiver, for
telemetry) on 127.0.0.1:4318, the ports the examples name; any of them in use fails the test at once,
naming it. Each block must exit 0 unless EXPECT says otherwise, and every string EXPECT lists
for it must appear both in the block's text (the comment that shows it to the reader) and in
what the block printed. Every step has a time bound.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

READMES = ("README.md", "bindings/python/README.md")
LANGUAGES = {"c", "python", "swift", "sh"}
NOT_RUN = re.compile(r"<!-- not run: (.*\S.*) -->")
MARK = re.compile(r"<!--\s*not run\b")
FILE_NAME = re.compile(r"^`([\w.-]+\.c)`:$")
PORTS = {"httpbin": 8080, "test server": 8081, "redis-server": 6380, "OTLP receiver": 4318}


@dataclass
class Expect:
    output: list[str] = field(default_factory=list)  # each in the block's text and in its output
    status: int = 0


# (README, section heading, language, n-th block of that language in the section) -> expectation.
EXPECT: dict[tuple[str, str, str, int], Expect] = {
    ("README.md", "First call from C", "sh", 0): Expect(['200 {"":{"authenticated":true,"user":"ann"}}']),
    ("README.md", "The gateway config", "sh", 0): Expect(["pets.json: OK (3 routes, 2 mappings, 3 response descriptors)"]),
    ("README.md", "The gateway config", "python", 0): Expect(["['server_variable_default']"]),
    ("README.md", "The gateway config", "swift", 0): Expect(['3 ["server_variable_default"]',
                                                            '["createPet", "listPets", "showPet"]']),
    ("README.md", "The gateway config", "sh", 1): Expect(["server_variable_default", "check: 0"]),
    ("README.md", "First call from Python", "python", 0): Expect(
        ["Sample Slide Show", "observer: http_status 404", "404 False", "404 /status/404"]),
    ("README.md", "First call from Swift", "swift", 0): Expect(
        ["Ann 2026-03-01T09:30:00.000Z", "/anything/search?page=2&q=gate%20wire&ids=1&ids=2",
         "Sample Slide Show Yours Truly 2", "deadline"]),
    ("README.md", "First call from the CLI", "sh", 0): Expect(['"title": "Sample Slide Show"', "deadline"], status=1),
    ("README.md", "Descriptors and mapping", "swift", 0): Expect(["2, then 1"]),
    ("README.md", "Descriptors and mapping", "python", 0): Expect(
        ["1061 4242 2016-10-25T20:59:27.000Z", "['general', 'random']", "['random']"]),
    ("README.md", "The fleet: state shared through Redis", "python", 0): Expect(
        ["b sent it: 503", "b refused it: circuit_open", "['open']"]),
    ("README.md", "The fleet: state shared through Redis", "sh", 0): Expect(
        ["b: 503", "b: circuit_open", '"state":"open"']),
    ("README.md", "The fleet: state shared through Redis", "swift", 0): Expect(
        ["b: http_status", "b: circuit_open", '"state":"open"']),
    ("README.md", "The fleet: state shared through Redis", "sh", 1): Expect(['"state":"open"']),
    ("README.md", "Telemetry: traces and metrics", "python", 0): Expect(
        ["GET INTERNAL 200 None", "GET CLIENT 503 None", "GET CLIENT 500 1", "GET CLIENT 200 2",
         "checkout INTERNAL None None", "http.client.request.duration [200, 500, 503]"]),
    ("README.md", "Telemetry: traces and metrics", "sh", 0): Expect(["200 after 3 attempts, 4 spans"]),
    ("README.md", "Telemetry: traces and metrics", "swift", 0): Expect(
        ["GET internal 200 00f067aa0ba902b7", "GET client 503", "GET client 500", "3 attempts measured"]),
    ("README.md", "Telemetry: traces and metrics", "sh", 1): Expect(
        ['"Traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-']),
    ("README.md", "Cookies", "swift", 0): Expect(['["k"]']),
    ("README.md", "Cookies", "python", 0): Expect(["'name': 'k', 'value': 'v'"]),
    ("README.md", "HTTP cache", "swift", 0): Expect(["false true false"]),
    ("README.md", "HTTP cache", "python", 0): Expect(["False True False"]),
    ("README.md", "HTTP cache", "sh", 0): Expect(["cache: hit"]),
    ("bindings/python/README.md", "Calls", "python", 0): Expect(
        ["200 application/json /echo/users/7 {'expand': 'teams'}", "{'name': 'Ada'} k1",
         "HTTPStatusError 404"]),
    ("bindings/python/README.md", "asyncio", "python", 0): Expect(
        ["100 /echo/users/0", "False 404", "503 {'status': 503}"]),
    ("bindings/python/README.md", "Config, routes and descriptors", "python", 0): Expect(
        ["{'user': {'full_name': 'Ada', 'email': 'ada@example.org'}}", "{'user': {'full_name': 'Bo', 'email': None}}"]),
    ("bindings/python/README.md", "Hooks (run on the client's event-loop thread; must not block)", "python", 0): Expect(
        ["200 [429, 200]", "Bearer t0ken", "failed: GET /status/404: http_status (status 404)"]),
}
# Values a comment shows in a shape the block cannot print verbatim: the Swift pagination
# prints "2" then "1" (one a line), shown as "2, then 1".
SHOWN_AS = {"2, then 1": "2\n1\n"}


class Failed(Exception):
    pass


@dataclass
class Block:
    readme: str
    line: int            # of the opening fence, 1-based
    language: str
    text: str
    section: str
    ordinal: int         # among the section's blocks of this language
    not_run: str | None  # the mark's reason
    file_name: str | None

    @property
    def where(self) -> str:
        return f"{self.readme}:{self.line}"

    @property
    def key(self) -> tuple[str, str, str, int]:
        return (self.readme, self.section, self.language, self.ordinal)


def parse(root: Path, readme: str) -> list[Block]:
    lines = (root / readme).read_text().splitlines()
    blocks: list[Block] = []
    section = ""
    counts: dict[tuple[str, str], int] = {}
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("#"):
            section = line.lstrip("#").strip()
        fence = re.match(r"^```(\w*)\s*$", line)
        if not fence:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and lines[end] != "```":
            end += 1
        if end == len(lines):
            raise Failed(f"{readme}:{index + 1}: a fence that is never closed")
        previous = next((lines[i] for i in range(index - 1, -1, -1) if lines[i].strip()), "")
        language = fence.group(1)
        mark = NOT_RUN.fullmatch(previous.strip())
        if MARK.match(previous.strip()) and not mark:
            raise Failed(f"{readme}:{index}: a 'not run' mark without a reason: {previous.strip()!r}")
        name = FILE_NAME.match(previous.strip())
        ordinal = counts.get((section, language), 0)
        counts[(section, language)] = ordinal + 1
        blocks.append(Block(readme, index + 1, language, "\n".join(lines[index + 1:end]) + "\n", section, ordinal,
                            mark.group(1) if mark else None, name.group(1) if name else None))
        index = end + 1
    return blocks


def check_marks(blocks: list[Block]) -> None:
    """Every block in a run language is run or marked; EXPECT names only run blocks, and its
    strings are in the blocks' text; a C program has a shell block that compiles it."""
    problems = []
    keys = {block.key: block for block in blocks}
    for key, expect in EXPECT.items():
        block = keys.get(key)
        if block is None or block.not_run is not None or block.language not in LANGUAGES:
            problems.append(f"EXPECT names {key}, which is not a run block")
            continue
        for text in expect.output:
            if text not in block.text:
                problems.append(f"{block.where}: the block does not show {text!r}, which the test checks")
    for block in blocks:
        if block.language not in LANGUAGES or block.not_run is not None:
            continue
        if block.language == "c":
            if block.file_name is None:
                problems.append(f"{block.where}: a C block must be named by the line before it (`name.c`:) "
                                f"or marked <!-- not run: why -->")
                continue
            if not any(other.language == "sh" and other.not_run is None and other.section == block.section
                       and other.line > block.line and block.file_name in other.text for other in blocks):
                problems.append(f"{block.where}: no run shell block of its section compiles {block.file_name}")
    if problems:
        raise Failed("\n".join(problems))


# ---- Servers ---------------------------------------------------------------------------------
def port_free(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def wait_for(port: int, process: subprocess.Popen[bytes], who: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise Failed(f"{who} exited with status {process.returncode} before listening on {port}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise Failed(f"{who} did not listen on 127.0.0.1:{port} within {timeout:.0f} s")


def start_servers(root: Path, log: Path) -> list[subprocess.Popen[bytes]]:
    busy = [f"{who} needs 127.0.0.1:{port}" for who, port in PORTS.items() if not port_free(port)]
    if busy:
        raise Failed("the README's examples name these ports, which are in use: " + "; ".join(busy)
                     + " (stop what listens there)")
    gunicorn = Path(sys.executable).parent / "gunicorn"
    output = log.open("wb")
    servers = [subprocess.Popen([str(gunicorn), "--bind", f"127.0.0.1:{PORTS['httpbin']}", "--workers", "2",
                                 "--log-level", "warning", "httpbin:app"], stdout=output, stderr=output),
               subprocess.Popen([sys.executable, str(root / "Tests" / "support" / "testserver.py"),
                                 "--port", str(PORTS["test server"])], stdout=output, stderr=output),
               subprocess.Popen(["redis-server", "--port", str(PORTS["redis-server"]), "--bind", "127.0.0.1",
                                 "--save", "", "--appendonly", "no", "--dir", tempfile.gettempdir()],
                                stdout=output, stderr=output),
               subprocess.Popen([sys.executable, str(root / "Tests" / "support" / "otlpreceiver.py"),
                                 "--port", str(PORTS["OTLP receiver"])], stdout=output, stderr=output)]
    try:
        for (who, port), process in zip(PORTS.items(), servers):
            wait_for(port, process, who, 30)
    except Failed:
        stop(servers)
        raise
    return servers


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


# ---- Running ---------------------------------------------------------------------------------
def run(command: list[str], cwd: Path, env: dict[str, str], timeout: float) -> tuple[int, str]:
    try:
        done = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired as error:
        output = error.stdout.decode(errors="replace") if isinstance(error.stdout, bytes) else (error.stdout or "")
        raise Failed(f"timed out after {timeout:.0f} s: {' '.join(command)}\n{output}") from error
    return done.returncode, done.stdout


def verify(block: Block, status: int, output: str) -> None:
    expect = EXPECT.get(block.key, Expect())
    missing = [text for text in expect.output if SHOWN_AS.get(text, text) not in output]
    if status != expect.status or missing:
        raise Failed(f"{block.where} ({block.language}, section {block.section!r}): exit status {status} "
                     f"(expected {expect.status}); missing from its output: {missing}\n--- output ---\n{output}")
    print(f"ok: {block.where} {block.language}, {len(expect.output)} values checked", flush=True)


def folder(work: Path, block: Block) -> Path:
    name = re.sub(r"[^\w]+", "-", f"{Path(block.readme).stem}-{block.section}").strip("-").lower()
    path = work / name
    path.mkdir(exist_ok=True)
    return path


def swift_package(root: Path, package: Path, blocks: list[Block]) -> list[str]:
    """Writes the throwaway package, one executable target per block; returns the targets."""
    sources = package / "Sources"
    if sources.exists():
        shutil.rmtree(sources)
    targets = []
    for block in blocks:
        target = f"readme_{Path(block.readme).stem.lower()}_{block.line}"
        (sources / target).mkdir(parents=True)
        (sources / target / "main.swift").write_text(block.text)
        targets.append(target)
    products = ",\n        ".join(
        f'.executableTarget(name: "{t}", dependencies: [.product(name: "Gatewire", package: "{root.name}"), '
        f'.product(name: "GatewireOpenAPI", package: "{root.name}")])'
        for t in targets)
    (package / "Package.swift").write_text(
        "// swift-tools-version:6.0\n"
        "// Written by Tests/tools/readme_examples.py: the README's Swift examples, one target each.\n"
        "import PackageDescription\n\n"
        f'let package = Package(\n    name: "ReadmeExamples",\n'
        f'    dependencies: [.package(path: "{root}")],\n'
        f"    targets: [\n        {products},\n    ]\n)\n")
    return targets


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--build-dir", type=Path, required=True, help="the CMake build: lib/, bin/, cmake --install")
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--list", action="store_true", help="print every block and whether it runs; run nothing")
    parser.add_argument("--only", nargs="*", default=None, help="run only these blocks (README:LINE)")
    parser.add_argument("--step-timeout", type=float, default=120.0)
    parser.add_argument("--swift-build-timeout", type=float, default=1500.0)
    args = parser.parse_args()
    root, build = args.root.resolve(), args.build_dir.resolve()
    started = time.monotonic()
    try:
        blocks = [block for readme in READMES for block in parse(root, readme)]
        if args.list:
            for block in blocks:
                state = ("data" if block.language not in LANGUAGES
                         else f"not run: {block.not_run}" if block.not_run is not None else "run")
                print(f"{block.where:32} {block.language or '-':7} {block.section[:40]:40} {state}")
        check_marks(blocks)
        if args.list:
            return 0
        runnable = [b for b in blocks if b.language in LANGUAGES and b.not_run is None
                    and (args.only is None or b.where in args.only)]
        work = Path(tempfile.mkdtemp(prefix="gatewire-readme-"))
        servers: list[subprocess.Popen[bytes]] = []
        try:
            home = work / "home"
            home.mkdir()
            env = {key: value for key, value in os.environ.items()
                   if key not in ("PKG_CONFIG_PATH", "LD_LIBRARY_PATH", "VIRTUAL_ENV", "GATEWIRE_NO_SPEEDUPS")}
            env.update(HOME=str(home), GATEWIRE_EXAMPLES=str(root / "examples"),
                       PATH=f"{build / 'bin'}:{env.get('PATH', '')}", PYTHONPATH=str(root / "bindings" / "python"),
                       GATEWIRE_LIB=str(build / "lib" / "libGatewire.so"), PYTHONDONTWRITEBYTECODE="1")
            status, output = run([args.cmake, "--install", str(build), "--prefix", str(home / ".local")], work, env,
                                 args.step_timeout)
            if status != 0:
                raise Failed(f"cmake --install {build} into $HOME/.local failed:\n{output}")
            servers = start_servers(root, work / "servers.log")
            swift = [b for b in runnable if b.language == "swift"]
            for block in runnable:
                cwd = folder(work, block)
                if block.language == "c":
                    assert block.file_name is not None
                    (cwd / block.file_name).write_text(block.text)
                    print(f"ok: {block.where} c, saved as {block.file_name}", flush=True)
                elif block.language == "python":
                    script = cwd / f"example_{block.line}.py"
                    script.write_text(block.text)
                    verify(block, *run([sys.executable, str(script)], cwd, env, args.step_timeout))
                elif block.language == "sh":
                    script = cwd / f"example_{block.line}.sh"
                    script.write_text(block.text)
                    verify(block, *run(["bash", str(script)], cwd, env, args.step_timeout))
            if swift:
                package = build / "readme-swift"
                package.mkdir(exist_ok=True)
                targets = swift_package(root, package, swift)
                swift_build = ["swift", "build", "--package-path", str(package)]
                begun = time.monotonic()
                status, output = run(swift_build, package, dict(os.environ), args.swift_build_timeout)
                if status != 0:
                    raise Failed(f"the README's Swift examples do not build:\n{output[-6000:]}")
                warnings = [line for line in output.splitlines() if f"{package}/Sources/" in line and "warning:" in line]
                if warnings:
                    raise Failed("the README's Swift examples compile with warnings:\n" + "\n".join(warnings))
                print(f"the Swift examples' package built in {time.monotonic() - begun:.0f} s", flush=True)
                _, bin_path = run([*swift_build, "--show-bin-path"], package, dict(os.environ), args.step_timeout)
                for block, target in zip(swift, targets):
                    binary = Path(bin_path.strip().splitlines()[-1]) / target
                    verify(block, *run([str(binary)], folder(work, block), env, args.step_timeout))
        finally:
            stop(servers)
            shutil.rmtree(work, ignore_errors=True)
    except Failed as error:
        print(f"readme_examples: FAIL: {error}", file=sys.stderr)
        return 1
    print(f"readme_examples: OK, {len(runnable)} blocks in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
