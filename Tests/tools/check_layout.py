#!/usr/bin/env python3
"""layout_matches_package: README.md's Layout says what Package.swift and Sources/ say.

    check_layout.py --root REPO

Fails (exit 1), printing each difference, unless:
  - the text between `<!-- layout.py -->` and `<!-- /layout.py -->` in README's Layout section
    is, inside its code fence, exactly what scripts/layout.py prints (every target, its
    dependencies and folders);
  - the Layout's `Sources/` listing names every folder under Sources/ (each target, e.g.
    `  GatewireBase/`, or a system library on a shared line such as `  CCurl, CJansson, CZlib`)
    and every folder of a target's sources (e.g. `    Cache/` under `  Gatewire/`), and names
    no folder that does not exist;
  - the folders of a target with several (`Gatewire/`) are listed from the lowest: no file in
    one uses a type declared at the top level of a folder listed after it (a type is used
    when its name appears outside `//` comments as a whole word, `X-Request-ID` not counting
    as `Request`; the folders of one module are layers no compiler checks, so this does).
Regenerate the block with `python3 scripts/layout.py` and paste it between the markers.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from pathlib import Path

BEGIN, END = "<!-- layout.py -->", "<!-- /layout.py -->"


def load_layout(root: Path):
    """scripts/layout.py as a module (it is a script, not a package)."""
    spec = importlib.util.spec_from_file_location("layout", root / "scripts" / "layout.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["layout"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def layout_section(readme: str) -> str:
    """The text of README's `### Layout` section, up to the next heading."""
    match = re.search(r"^### Layout\n(.*?)(?=^#{1,3} )", readme, re.M | re.S)
    return match.group(1) if match else ""


def generated_block(section: str) -> list[str] | None:
    """The lines inside the code fence between the markers, or None when the markers are missing."""
    if BEGIN not in section or END not in section:
        return None
    inner = section.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n").splitlines()
    if len(inner) < 2 or not inner[0].startswith("```") or inner[-1] != "```":
        return None
    return inner[1:-1]


def sources_listing(section: str) -> list[str]:
    """The lines of the listing from `Sources/` to the next line at the listing's top level."""
    lines = section.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("Sources/")), None)
    if start is None:
        return []
    listing = []
    for line in lines[start + 1:]:
        if not line.startswith(" "):
            break
        listing.append(line)
    return listing


def check(root: Path, layout) -> list[str]:
    """Each difference between README's Layout and `layout` (scripts/layout.py) on `root`."""
    problems: list[str] = []
    section = layout_section((root / "README.md").read_text())
    if not section:
        return ["README.md has no \"### Layout\" section"]

    expected = layout.layout(root)
    found = generated_block(section)
    if found is None:
        problems.append(f"README's Layout has no ``` block between {BEGIN} and {END}")
    elif found != expected:
        for number, (want, have) in enumerate(zip(expected, found), 1):
            if want != have:
                problems.append(f"line {number} of the block is {have!r}; scripts/layout.py prints {want!r}")
                break
        if len(found) != len(expected):
            problems.append(f"the block has {len(found)} lines; scripts/layout.py prints {len(expected)}")

    listing = sources_listing(section)
    if not listing:
        return problems + ["README's Layout lists no Sources/"]
    # A name at the listing's first level (two spaces) or at the second (four), as written.
    level_one = [re.split(r"\s{2,}", line.strip())[0] for line in listing if re.match(r"  \S", line)]
    level_two = [re.split(r"\s{2,}", line.strip())[0] for line in listing if re.match(r"    \S", line)]
    named_one = {name.strip() for entry in level_one for name in entry.rstrip("/").split(",")}
    targets = layout.read_targets(root)
    in_sources = [t for t in targets.values() if t.kind != "test" and t.folder.parent == root / "Sources"]
    for name in sorted(t.name for t in in_sources):
        if name not in named_one:
            problems.append(f"the Sources/ listing does not name the target {name}")
    # A target kept elsewhere (the fuzz drivers beside their fuzz package) is named by its path.
    for target in sorted((t for t in targets.values() if t.kind != "test" and t not in in_sources), key=lambda t: t.name):
        path = f"{target.folder.relative_to(root)}/"
        if path not in section:
            problems.append(f"README's Layout does not name {path}, the folder of the target {target.name}")
    for name in sorted(named_one - {t.name for t in targets.values()}):
        problems.append(f"the Sources/ listing names {name}, which Package.swift does not declare")
    folders = {f for t in in_sources for f in t.folders}
    for folder in sorted(folders - {entry.rstrip("/") for entry in level_two}):
        problems.append(f"the Sources/ listing does not name the folder {folder}/")
    for entry in sorted({entry.rstrip("/") for entry in level_two} - folders):
        problems.append(f"the Sources/ listing names {entry}/, which is no folder of a target under Sources/")
    for target in in_sources:
        if len(target.folders) > 1:
            problems += folder_order_problems(target, folder_order(listing, target.name))
    return problems


TOP_LEVEL_TYPE = re.compile(r"^(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate|final|indirect)\s+)*"
                            r"(?:struct|class|enum|protocol|typealias|actor)\s+(\w+)", re.M)


def folder_order(listing: list[str], target: str) -> list[str]:
    """The folders the Sources/ listing names under `  target/`, in the listing's order."""
    order: list[str] = []
    inside = False
    for line in listing:
        if re.match(r"  \S", line):
            inside = line.strip().startswith(f"{target}/")
        elif inside and re.match(r"    \S", line):
            order.append(re.split(r"\s{2,}", line.strip())[0].rstrip("/"))
    return order


def folder_order_problems(target, order: list[str]) -> list[str]:
    """Each use, in a folder of `target`, of a type declared in a folder listed after it."""
    files = {folder: sorted((target.folder / folder).rglob("*.swift")) for folder in target.folders}
    declared: dict[str, str] = {}
    for folder, paths in files.items():
        for path in paths:
            for name in TOP_LEVEL_TYPE.findall(path.read_text()):
                declared.setdefault(name, folder)
    rank = {folder: index for index, folder in enumerate(order)}
    problems = []
    for folder, paths in files.items():
        for path in paths:
            code = re.sub(r"//.*", "", path.read_text())
            for name, home in sorted(declared.items()):
                if home != folder and rank.get(home, -1) > rank.get(folder, -1) \
                        and re.search(rf"(?<![\w-]){name}(?![\w-])", code):
                    problems.append(f"{path.relative_to(target.folder.parent.parent)} uses {name} of {home}/, "
                                    f"which the Layout lists after {folder}/ (a folder uses only those listed before it)")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, required=True)
    args = parser.parse_args()
    layout = load_layout(args.root)
    try:
        problems = check(args.root, layout)
    except layout.LayoutError as error:  # a Package.swift that layout.py cannot read
        problems = [f"scripts/layout.py: {error}"]
    for problem in problems:
        print(f"FAIL: {problem}")
    if not problems:
        print("ok: README's Layout agrees with Package.swift and Sources/")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
