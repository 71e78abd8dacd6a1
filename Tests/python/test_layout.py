"""The package's layout, read from its sources (no library needed): the public names come from
``gatewire/__init__.py`` alone, the modules behind them are private and import one another
without a cycle, and the ctypes layer imports no exception or model module (it declares the
C ABI; the layers above turn its statuses and results into Python objects)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import gatewire

PACKAGE = Path(gatewire.__file__).resolve().parent

#: The submodules of earlier releases, kept as compatibility aliases of the same objects.
ALIASES = ("async_client", "auth", "client", "errors", "futures", "hooks", "jsontypes", "pagination", "progress",
           "response", "result", "streaming", "timeouts")


def private_modules() -> list[str]:
    return sorted(path.stem for path in PACKAGE.glob("_*.py") if path.stem != "__init__")


def imported(module: str) -> set[str]:
    """The package's modules that ``module`` imports anywhere in its source (top level,
    functions, ``if TYPE_CHECKING:`` blocks: every import statement counts)."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gatewire."):
            found.add(node.module.split(".")[1])  # type: ignore[union-attr]
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[1] for alias in node.names if alias.name.startswith("gatewire."))
    return {name for name in found if (PACKAGE / f"{name}.py").exists()}


def test_every_module_imports() -> None:
    for module in private_modules() + list(ALIASES):
        importlib.import_module(f"gatewire.{module}")


def test_the_modules_import_one_another_without_a_cycle() -> None:
    graph = {module: imported(module) for module in private_modules() + list(ALIASES)}
    state: dict[str, str] = {}
    cycles: list[list[str]] = []

    def visit(module: str, trail: list[str]) -> None:
        state[module] = "open"
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                cycles.append(trail[trail.index(target):] + [target] if target in trail else [module, target])
            elif target not in state:
                visit(target, trail + [target])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_the_ctypes_layer_imports_no_exception_or_model_module() -> None:
    assert imported("_native") <= {"_repository", "_version"}


def test_public_names_come_from_the_package_and_the_aliases_are_the_same_objects() -> None:
    assert all(not name.startswith("_") for name in gatewire.__all__)
    for name in gatewire.__all__:
        assert getattr(gatewire, name) is not None
    for alias in ALIASES:
        module = importlib.import_module(f"gatewire.{alias}")
        for name in module.__all__:
            # TimeoutArgument, a type alias of the docs, is the one name gatewire itself lacks.
            assert getattr(module, name) is getattr(gatewire, name, getattr(module, name)), f"gatewire.{alias}.{name}"
    public_modules = sorted(path.stem for path in PACKAGE.glob("*.py") if not path.stem.startswith("_"))
    assert public_modules == sorted(ALIASES)
    for alias in ALIASES:  # thin: imports and __all__ only
        tree = ast.parse((PACKAGE / f"{alias}.py").read_text(encoding="utf-8"))
        body = [node for node in tree.body if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
        assert all(isinstance(node, (ast.ImportFrom, ast.Assign)) for node in body), alias


def test_client_and_async_client_share_one_base() -> None:
    from gatewire._base_client import BaseClient

    assert issubclass(gatewire.Client, BaseClient)
    assert issubclass(gatewire.AsyncClient, BaseClient)
    assert "_options" not in vars(gatewire.Client) and "_options" not in vars(gatewire.AsyncClient)
