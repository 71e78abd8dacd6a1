"""libGatewire.so (its Swift runtime linked in, only gw_* exported) and another Swift-built
shared library (on the toolchain's dynamic runtime) work side by side in one process.

The other library is built here with swiftc. Both are loaded RTLD_GLOBAL, in both orders, in
a fresh Python process: had libGatewire.so exported its runtime's symbols (swift_retain, type
metadata, ...), the one loaded first would interpose on the other's, and two runtimes would
manage the same objects.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

BINDINGS = Path(__file__).resolve().parents[2] / "bindings" / "python"

OTHER_SOURCE = textwrap.dedent("""
    // Exercises the Swift runtime: classes (retain/release), generic arrays and
    // dictionaries (metadata), string interpolation and hashing.
    final class Box { let value: Int; init(_ value: Int) { self.value = value } }

    @_cdecl("other_checksum")
    public func otherChecksum(_ count: Int32) -> Int64 {
        let boxes = (1...Int(count)).map { Box($0) }
        var byName: [String: Box] = [:]
        for box in boxes { byName["box-\\(box.value)"] = box }
        return Int64(byName.values.reduce(0) { $0 + $1.value })
    }
    """)

SCRIPT = textwrap.dedent("""
    import ctypes, json, sys
    gatewire_path, other_path, base_url, order = sys.argv[1:5]
    def load_other():
        other = ctypes.CDLL(other_path, mode=ctypes.RTLD_GLOBAL)
        other.other_checksum.restype = ctypes.c_int64
        other.other_checksum.argtypes = [ctypes.c_int32]
        return other
    def load_gatewire():
        ctypes.CDLL(gatewire_path, mode=ctypes.RTLD_GLOBAL)  # the binding then gets this one
    if order == "gatewire-first":
        load_gatewire(); other = load_other()
    else:
        other = load_other(); load_gatewire()
    import gatewire
    before = other.other_checksum(100)
    with gatewire.Client(base_url) as client:
        result = client.call("GET", "/echo/beside", params={"n": 7})
    after = other.other_checksum(1000)
    echoed = result.json()
    print(json.dumps([before, after, result.status, echoed["path"], echoed["query"]]))
    """)


@pytest.fixture(scope="module")
def other_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    swiftc = shutil.which("swiftc")
    if swiftc is None:
        pytest.fail("swiftc is not on PATH: it builds the other Swift library of this test")
    folder = tmp_path_factory.mktemp("other-swift")
    source = folder / "Other.swift"
    source.write_text(OTHER_SOURCE)
    library = folder / "libother.so"
    subprocess.run([swiftc, "-emit-library", "-parse-as-library", "-O", "-module-name", "Other",
                    str(source), "-o", str(library)], check=True, timeout=300)
    needed = subprocess.run(["readelf", "-d", str(library)], check=True, capture_output=True, text=True,
                            timeout=60).stdout
    assert "libswiftCore.so" in needed  # on the toolchain's dynamic runtime, as most Swift libraries
    return library


@pytest.mark.timeout(360)
@pytest.mark.parametrize("order", ["gatewire-first", "other-first"])
def test_both_libraries_work_in_one_process(server: str, library: str, other_library: Path, order: str) -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT, library, str(other_library), server, order],
                          capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(BINDINGS), "GATEWIRE_LIB": library, "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [5050, 500500, 200, "/echo/beside", {"n": "7"}]
