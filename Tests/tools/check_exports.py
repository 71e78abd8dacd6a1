#!/usr/bin/env python3
"""exports_match_header: the C ABI that libGatewire.so exports is exactly include/gatewire.h.

    check_exports.py --header include/gatewire.h --library libGatewire.so [--nm nm] [--cc cc]

Fails (exit 1), printing each difference, when
  - a gw_* function declared in the header is not a defined function symbol of the library
    (for example an internal @_cdecl, which release builds drop),
  - the library defines a gw_* symbol the header does not declare,
  - the library defines any other symbol but the ones the linker always adds (_init, _fini,
    _edata, ...): no Swift symbol ($s...), no Swift runtime or C++ runtime symbol linked in
    (swift_retain, ...), no C shim function. The Swift runtime inside the library must not
    interpose on another Swift runtime in the same process (scripts/libgatewire.map hides
    everything but gw_*); Swift callers link the core instead of this library.
Declarations are read from the preprocessed header (so comments, macros and the C++ guard
cannot confuse the parse); symbols from `nm -D --defined-only`.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

# Symbols GNU ld defines in every shared object, and the ELF init/fini entry points.
LINKER_SYMBOLS = {"_init", "_fini", "_edata", "_end", "__bss_start", "__data_start", "data_start",
                  "__dso_handle", "_IO_stdin_used"}
SWIFT_MANGLED = re.compile(r"^\$s")  # Swift 5+ mangling prefix on Linux
FUNCTION_TYPES = {"T"}               # nm: global symbol in .text


def header_functions(header: Path, cc: str) -> set[str]:
    """Names of the gw_* functions the header declares (typedefs and macros excluded)."""
    preprocessed = subprocess.run([cc, "-E", "-std=c99", "-x", "c", str(header)], check=True,
                                  capture_output=True, text=True, timeout=60).stdout
    own = []
    in_header = False
    for line in preprocessed.splitlines():
        marker = re.match(r'^# \d+ "(.*)"', line)
        if marker:
            in_header = Path(marker.group(1)).name == header.name
        elif in_header:
            own.append(line)
    text = " ".join(own)
    while True:  # drop struct bodies so their function-pointer fields are not read as functions
        stripped = re.sub(r"\{[^{}]*\}", " ", text)
        if stripped == text:
            break
        text = stripped
    names = set()
    for statement in text.split(";"):
        statement = statement.strip()
        if not statement or statement.startswith("typedef"):
            continue
        match = re.search(r"\b(gw_\w+)\s*\(", statement)
        if match:
            names.add(match.group(1))
    return names


def library_symbols(library: Path, nm: str) -> list[tuple[str, str]]:
    """(type, name) of every dynamic symbol the library exports: defined and global or weak.
    Local ones (lower-case type, e.g. "b") are in the dynamic symbol table only for the
    library's own relocations (an initial-exec thread-local variable's offset is one); no
    other object can bind to them, so they are not exports."""
    out = subprocess.run([nm, "-D", "--defined-only", str(library)], check=True,
                         capture_output=True, text=True, timeout=60).stdout
    symbols = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        kind, name = fields[-2], fields[-1]
        if kind.islower() and kind not in ("u", "v", "w"):  # u/v/w: unique-global and weak
            continue
        symbols.append((kind, name.split("@")[0]))  # drop a version suffix (name@@VER)
    return symbols


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--header", type=Path, required=True)
    parser.add_argument("--library", type=Path, required=True)
    parser.add_argument("--nm", default="nm")
    parser.add_argument("--cc", default="cc")
    args = parser.parse_args()

    for path in (args.header, args.library):
        if not path.is_file():
            print(f"check_exports: {path} does not exist", file=sys.stderr)
            return 1
    declared = header_functions(args.header, args.cc)
    if not declared:
        print(f"check_exports: no gw_* function found in {args.header}", file=sys.stderr)
        return 1
    symbols = library_symbols(args.library, args.nm)

    exported_gw = {name for kind, name in symbols if name.startswith("gw_")}
    wrong_type = sorted(f"{name} ({kind})" for kind, name in symbols
                        if name in declared and kind not in FUNCTION_TYPES)
    leaked = sorted(f"{name} ({kind})" for kind, name in symbols
                    if not name.startswith("gw_") and name not in LINKER_SYMBOLS)
    missing = sorted(declared - exported_gw)
    undeclared = sorted(exported_gw - declared)
    swift_count = sum(1 for _, name in symbols if SWIFT_MANGLED.match(name))

    problems = [
        ("declared in the header but not exported by the library", missing),
        ("exported by the library but not declared in the header", undeclared),
        ("declared functions exported as something other than a text symbol", wrong_type),
        ("other exported symbols (neither a declared gw_* function nor linker-defined)", leaked),
    ]
    print(f"header: {len(declared)} gw_* functions; library: {len(symbols)} exported symbols, "
          f"{len(exported_gw)} of them gw_*, {swift_count} Swift-mangled")
    failed = False
    for title, names in problems:
        if names:
            failed = True
            print(f"FAIL: {len(names)} {title}:")
            for name in names:
                print(f"  {name}")
    if not failed:
        print("OK: the library exports exactly the header's gw_* functions")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
