#!/usr/bin/env python3
"""Prints the Swift package's target graph, read from Package.swift, as README's Layout shows it.

    scripts/layout.py [--root REPO]

One line per target, the highest layer first (a target comes after every target that depends
on it; ties by name; the test target first, C targets last): the targets of ours it depends on, then the C modules (system
libraries and C targets) after "C:", then, for a target whose sources are in folders, those
folders. README.md's Layout holds this output verbatim between the markers
`<!-- layout.py -->` and `<!-- /layout.py -->`; Tests/tools/check_layout.py (ctest
`layout_matches_package`) fails when they differ.

Package.swift is read as text (no toolchain needed): each `.target`, `.systemLibrary`,
`.executableTarget` and `.testTarget` call with a literal `name:` and an optional literal
`dependencies:` list of target names and an optional literal `path:` (else the folder is
Sources/NAME, or Tests/NAME for a test target). Any other declaration (a product dependency)
makes this script fail, naming it, rather than print a graph that leaves it out.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

WIDTH = 96  # the longest line printed (README's code blocks)
KINDS = {"target": "library", "systemLibrary": "system", "executableTarget": "executable", "testTarget": "test"}
DECLARATION = re.compile(r"\.(target|systemLibrary|executableTarget|testTarget)\(\s*name:\s*\"([^\"]+)\"([^\n]*)")
DEPENDENCIES = re.compile(r"dependencies:\s*\[([^\]]*)\]")
PATH = re.compile(r"path:\s*\"([^\"]+)\"")


@dataclass
class Target:
    name: str
    kind: str  # library, system, executable, test
    dependencies: list[str]
    folder: Path
    folders: list[str] = field(default_factory=list)

    @property
    def is_c(self) -> bool:
        """A system library, or a target with no Swift source (CGatewireArena): shown after "C:"."""
        return self.kind == "system" or not any(self.folder.rglob("*.swift"))


class LayoutError(Exception):
    """Package.swift says something this reader does not understand."""


def read_targets(root: Path) -> dict[str, Target]:
    """The targets Package.swift declares, by name, with their folders under Sources/ or Tests/."""
    text = (root / "Package.swift").read_text()
    body = text[text.index("targets:"):]
    declared = re.findall(r"\.(?:target|systemLibrary|executableTarget|testTarget|binaryTarget|plugin|macro)\(", body)
    targets: dict[str, Target] = {}
    for kind, name, rest in DECLARATION.findall(body):
        if ".product(" in rest:
            raise LayoutError(f"target {name}: a .product( dependency is not read by scripts/layout.py")
        match = DEPENDENCIES.search(rest)
        dependencies = re.findall(r"\"([^\"]+)\"", match.group(1)) if match else []
        path = PATH.search(rest)
        folder = root / (path.group(1) if path else ("Tests" if kind == "testTarget" else "Sources") + "/" + name)
        if not folder.is_dir():
            raise LayoutError(f"target {name}: its folder {folder.relative_to(root)} does not exist")
        targets[name] = Target(name, KINDS[kind], dependencies, folder)
    if len(targets) != len(declared):
        raise LayoutError(f"Package.swift declares {len(declared)} targets, scripts/layout.py read {len(targets)} "
                          "(one declaration per line, with a literal name:)")
    for target in targets.values():
        for dependency in target.dependencies:
            if dependency not in targets:
                raise LayoutError(f"target {target.name}: dependency {dependency} is not a target of the package")
        if not target.is_c:
            target.folders = sorted(p.name for p in target.folder.iterdir()
                                    if p.is_dir() and any(p.rglob("*.swift")))
    return targets


def ordered(targets: dict[str, Target]) -> list[Target]:
    """Tests first, then the highest layer first, C modules last. A Swift target's height is
    1 + the highest of the Swift targets it depends on (C modules do not count)."""
    height: dict[str, int] = {}

    def measure(name: str, path: tuple[str, ...] = ()) -> int:
        if name in path:
            raise LayoutError("a dependency cycle: " + " -> ".join(path + (name,)))
        if name not in height:
            dependencies = [d for d in targets[name].dependencies if not targets[d].is_c]
            height[name] = 1 + max((measure(d, path + (name,)) for d in dependencies), default=0)
        return height[name]

    return sorted(targets.values(), key=lambda t: (t.kind != "test", -measure(t.name), t.is_c, t.name.lower()))


def layout(root: Path) -> list[str]:
    """The lines README's Layout shows between its markers."""
    targets = read_targets(root)
    lines: list[str] = []
    order = [t.name for t in ordered(targets)]
    shown = [targets[name] for name in order if targets[name].kind != "system"]
    labels = {t.name: t.name + (" (test)" if t.kind == "test" else "") for t in shown}
    width = max(len(label) for label in labels.values())
    indent = " " * (width + 5)
    for target in shown:
        ours = sorted((d for d in target.dependencies if not targets[d].is_c), key=order.index)
        c_modules = sorted(d for d in target.dependencies if targets[d].is_c)
        parts = [", ".join(ours)] if ours else []
        if c_modules:
            parts.append("C: " + ", ".join(c_modules))
        sees = textwrap.wrap("; ".join(parts) if parts else "nothing", WIDTH - len(indent), break_on_hyphens=False)
        lines.append(f"{labels[target.name]:<{width}}  -> {sees[0]}")
        lines.extend(indent + line for line in sees[1:])
        if target.folders:
            lines.append(f"{indent}folders: {', '.join(f + '/' for f in target.folders)}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args()
    try:
        print("\n".join(layout(args.root)))
    except LayoutError as error:
        print(f"layout.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
