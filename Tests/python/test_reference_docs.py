"""The Python reference's docstrings: what Sphinx renders from them (scripts/docs-python.sh)
is what a user reads, so their examples run, their Raises sections name exceptions, and every
call method links every call keyword."""

from __future__ import annotations

import importlib
import inspect
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import gatewire

CALL_METHODS = (gatewire.Client.call, gatewire.Client.call_route, gatewire.Client.call_async,
                gatewire.AsyncClient.call, gatewire.AsyncClient.call_route)
EXAMPLES = {"gatewire": gatewire, "Client": gatewire.Client, "AsyncClient": gatewire.AsyncClient}


def public_docstrings() -> list[tuple[str, str]]:
    """(name, docstring) of every public object of the package and of its classes' public members."""
    found = []
    for name in gatewire.__all__:
        value = getattr(gatewire, name)
        found.append((name, inspect.getdoc(value) or ""))
        if inspect.isclass(value):
            for member, attribute in vars(value).items():
                if not member.startswith("_") and callable(attribute) and attribute.__doc__:
                    found.append((f"{name}.{member}", inspect.getdoc(attribute) or ""))
    return found


def raises_entries(docstring: str) -> list[str]:
    """The entries of a Google-style ``Raises:`` section: its lines at the section's first indentation."""
    lines = docstring.splitlines()
    entries = []
    for index, line in enumerate(lines):
        if line.strip() != "Raises:":
            continue
        indent = len(line) - len(line.lstrip())
        body = [body for body in lines[index + 1:]]
        first = None
        for entry in body:
            if not entry.strip():
                break
            depth = len(entry) - len(entry.lstrip())
            if depth <= indent:
                break
            first = depth if first is None else first
            if depth == first:
                entries.append(entry.strip())
    return entries


def is_exception(name: str, names: dict[str, object]) -> bool:
    """``name`` is an exception class: a builtin or gatewire name, or ``module.Name``."""
    if "." in name:
        module, _, attribute = name.rpartition(".")
        value = getattr(importlib.import_module(module), attribute, None)
    else:
        value = names.get(name)
    return inspect.isclass(value) and issubclass(value, BaseException)


def test_raises_sections_name_exceptions() -> None:
    """napoleon renders a ``Raises:`` entry as ``:raises TYPE: why``; an entry that does not
    start with exception names (``the same as Client.``) renders as a literal ``:raises ...:``."""
    import builtins

    names = {**vars(builtins), **vars(gatewire)}
    bad = []
    for owner, docstring in public_docstrings():
        for entry in raises_entries(docstring):
            head = re.match(r"^([\w.]+(?:, [\w.]+)*):(\s|$)", entry)
            kinds = head.group(1).split(", ") if head else []
            resolved = [kind for kind in kinds if is_exception(kind, names)]
            if not head or len(resolved) != len(kinds):
                bad.append(f"{owner}: {entry!r}")
    assert bad == []


def test_call_option_groups_name_every_keyword_once() -> None:
    from gatewire._base_client import CALL_OPTION_GROUPS

    named = [name for _, names in CALL_OPTION_GROUPS for name in names]
    assert sorted(named) == sorted(gatewire.CallOptions.__annotations__)
    documented = re.findall(r"^        (\w+): ", gatewire.CallOptions.__doc__ or "", re.MULTILINE)
    assert documented == list(gatewire.CallOptions.__annotations__)


@pytest.mark.parametrize("method", CALL_METHODS, ids=lambda method: method.__qualname__)
def test_call_methods_link_every_keyword(method) -> None:
    linked = re.findall(r":attr:`~gatewire\.CallOptions\.(\w+)`", method.__doc__ or "")
    assert sorted(linked) == sorted(gatewire.CallOptions.__annotations__)


def examples(docstring: str) -> list[str]:
    """The literal blocks (``::`` then an indented block) of a docstring, dedented."""
    blocks = []
    for match in re.finditer(r"::\n\n((?:(?:[ ]{4,}.*)?\n)+)", inspect.cleandoc(docstring) + "\n"):
        blocks.append(textwrap.dedent(match.group(1)))
    return blocks


@pytest.mark.parametrize("owner", sorted(EXAMPLES))
def test_docstring_examples_run_against_httpbin(owner: str, httpbin: str, tmp_path: Path) -> None:
    """Each example in the opening docstrings runs against a real httpbin (its port in place of
    the examples' 8080) and prints what its comments show."""
    blocks = examples(EXAMPLES[owner].__doc__ or "")
    assert blocks, f"{owner}'s docstring has no example"
    for number, block in enumerate(blocks):
        script = tmp_path / f"{owner}_{number}.py"
        script.write_text(block.replace("http://127.0.0.1:8080", httpbin))
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        shown = [line.split("#", 1)[1].strip() for line in block.splitlines()
                 if line.lstrip().startswith("print(") and "#" in line]
        assert shown, f"{owner}'s example shows no printed value"
        for value in shown:
            assert value in done.stdout, (value, done.stdout)
