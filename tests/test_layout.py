"""How the packages are put together: one base error class per package, no import cycle."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import engine
import pbem
from engine import EngineError
from pbem.errors import PbemError


@pytest.mark.parametrize(("package", "base"), [(engine, EngineError), (pbem, PbemError)])
def test_every_error_a_package_defines_has_its_base(package: object, base: type) -> None:
    """A caller tells the package's own errors from faults by one class."""
    path = package.__path__  # type: ignore[attr-defined]
    names = [info.name for info in pkgutil.iter_modules(path) if not info.name.startswith("__")]
    found = []
    for name in names:
        module = importlib.import_module(f"{package.__name__}.{name}")  # type: ignore[attr-defined]
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, Exception) and value.__module__ == module.__name__:
                found.append(value)
    assert len(found) >= 5
    assert [error for error in found if not issubclass(error, base)] == []


def _imports(path: Path, package: str) -> set[str]:
    """The modules of `package` that a module imports when it runs (anywhere in it, inside
    functions too; not the imports kept for the type checker under TYPE_CHECKING)."""
    tree = ast.parse(path.read_text())
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only |= {id(n) for n in ast.walk(node)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == package:
                found |= {f"{package}.{alias.name}" for alias in node.names}
            elif node.module.startswith(f"{package}."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith(f"{package}.")}
    return found


@pytest.mark.parametrize("package", ["engine", "pbem"])
def test_no_import_cycle_in_a_package(package: str) -> None:
    """Each module of a package can be read before the ones that use it: no module imports,
    even lazily inside a function, one that imports it back."""
    root = Path(__file__).parent.parent / package
    modules = {f"{package}.{p.stem}": p for p in root.glob("*.py") if p.stem != "__init__"}
    graph = {name: _imports(path, package) & modules.keys() for name, path in modules.items()}
    assert len(graph) >= 10 and sum(map(len, graph.values())) >= 20  # the walk found imports

    cycles: list[list[str]] = []
    done: set[str] = set()

    def visit(name: str, trail: list[str]) -> None:
        if name in trail:
            cycles.append([*trail[trail.index(name) :], name])
            return
        if name in done:
            return
        for imported in sorted(graph[name]):
            visit(imported, [*trail, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    assert cycles == []
