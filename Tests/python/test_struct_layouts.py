"""The ctypes Structures of ``gatewire._native`` have the header's exact layouts.

The compiler reads ``include/gatewire.h`` (clang's JSON AST: every ``gw_*`` struct the
header defines and its fields, in order); a probe program generated from that list and built
with the C compiler prints ``sizeof`` and the ``offsetof`` and size of every field; the test
compares them with ``ctypes.sizeof`` and the field descriptors of the Structures. A struct
added to the header without a Structure (or the reverse), a field missing, renamed, moved
or of another size fails here, before any call could read a wrong byte.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from gatewire import _native

ROOT = Path(__file__).resolve().parents[2]
HEADER = ROOT / "include" / "gatewire.h"


def tool(name: str, environment: str) -> str:
    """``$environment`` if set, else ``name`` on PATH; a missing tool fails (never skips)."""
    path = os.environ.get(environment) or shutil.which(name)
    if not path:
        pytest.fail(f"{name} not found (set {environment}); the Swift toolchain ships clang")
    return path


def header_structs() -> dict[str, list[str]]:
    """Every struct the header defines (``gw_*``, with a body) -> its field names, in order."""
    dump = subprocess.run(
        [tool("clang", "GW_CLANG"), "-x", "c", "-std=c99", "-fsyntax-only", "-Xclang", "-ast-dump=json", str(HEADER)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    structs: dict[str, list[str]] = {}
    for node in json.loads(dump.stdout)["inner"]:
        if (node.get("kind") == "RecordDecl" and node.get("tagUsed") == "struct" and node.get("completeDefinition")
                and node.get("name", "").startswith("gw_")):
            structs[node["name"]] = [field["name"] for field in node.get("inner", []) if field.get("kind") == "FieldDecl"]
    return structs


@pytest.fixture(scope="module")
def c_layouts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, tuple[int, int]]]:
    """struct -> {"": (sizeof, alignment), field: (offsetof, sizeof)}, printed by the probe."""
    structs = header_structs()
    lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "gatewire.h"', "", "int main(void)", "{"]
    for struct, fields in structs.items():
        lines.append(f'    printf("{struct} - %zu %zu\\n", sizeof(struct {struct}), _Alignof(struct {struct}));')
        for field in fields:
            lines.append(f'    printf("{struct} {field} %zu %zu\\n", offsetof(struct {struct}, {field}), '
                         f"sizeof(((struct {struct} *)0)->{field}));")
    lines += ["    return 0;", "}", ""]
    work = tmp_path_factory.mktemp("layout_probe")
    source, program = work / "probe.c", work / "probe"
    source.write_text("\n".join(lines))
    subprocess.run([tool("cc", "CC"), "-std=c11", "-Wall", "-Werror", "-I", str(HEADER.parent), "-o", str(program),
                    str(source)], check=True, timeout=120)  # fmt: skip
    output = subprocess.run([str(program)], capture_output=True, text=True, timeout=30, check=True).stdout
    layouts: dict[str, dict[str, tuple[int, int]]] = {struct: {} for struct in structs}
    for line in output.splitlines():
        struct, field, first, second = line.split()
        layouts[struct]["" if field == "-" else field] = (int(first), int(second))
    return layouts


def python_structs() -> dict[str, type[ctypes.Structure]]:
    return {name: value for name, value in vars(_native).items()
            if isinstance(value, type) and issubclass(value, ctypes.Structure) and name.startswith("gw_")}


def test_every_header_struct_has_a_structure(c_layouts: dict[str, dict[str, tuple[int, int]]]) -> None:
    assert set(python_structs()) == set(c_layouts)
    # The header's option and result structs, at least: the probe saw real structs.
    assert {"gw_plugin", "gw_client_options", "gw_call_options", "gw_credential_options",
            "gw_result_fields"} <= set(c_layouts)


@pytest.mark.parametrize("name", sorted(python_structs()))
def test_structure_layout_matches_the_header(name: str, c_layouts: dict[str, dict[str, tuple[int, int]]]) -> None:
    structure = python_structs()[name]
    c_layout = c_layouts.get(name)
    assert c_layout is not None, f"{name} is not a struct of the header"
    assert (ctypes.sizeof(structure), ctypes.alignment(structure)) == c_layout[""], name
    python_fields = [field[0] for field in structure._fields_]
    assert python_fields == [field for field in c_layout if field], f"{name}: fields differ from the header's"
    for field in python_fields:
        descriptor = getattr(structure, field)
        assert (descriptor.offset, descriptor.size) == c_layout[field], f"{name}.{field}: (offset, size)"
