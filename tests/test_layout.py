"""How the packages are put together: one base error class per package, no import cycle."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from itertools import pairwise
from pathlib import Path

import pytest

import engine
import pbem
from engine import EngineError
from pbem.core.errors import PbemError
from tests.support.layers import imports, modules


@pytest.mark.parametrize(("package", "base"), [(engine, EngineError), (pbem, PbemError)])
def test_every_error_a_package_defines_has_its_base(package: object, base: type) -> None:
    """A caller tells the package's own errors from faults by one class."""
    path = package.__path__  # type: ignore[attr-defined]
    prefix = f"{package.__name__}."  # type: ignore[attr-defined]
    found_modules = pkgutil.walk_packages(path, prefix)
    names = [m.name for m in found_modules if not m.ispkg and not m.name.endswith("__main__")]
    found = []
    for name in names:
        module = importlib.import_module(name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, Exception) and value.__module__ == module.__name__:
                found.append(value)
    assert len(found) >= 5
    assert [error for error in found if not issubclass(error, base)] == []


def _imports(path: Path, package: str) -> set[str]:
    """The modules of `package` that a module imports: anywhere in it, inside functions and
    under TYPE_CHECKING too (a cycle the type checker alone sees is a cycle of the design)."""
    return imports(path, set(modules(package)), package)


@pytest.mark.parametrize("package", ["engine", "pbem"])
def test_no_import_cycle_in_a_package(package: str) -> None:
    """Each module of a package can be read before the ones that use it: no module imports,
    even lazily inside a function, one that imports it back."""
    found = modules(package)
    graph = {name: _imports(path, package) - {name} for name, path in found.items()}
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


# The attributes that hold one of a closed set of values (a StrEnum each): compared with a
# member, never with the member's text.
CLOSED_SETS = {
    "authenticated_from",  # pbem.core.config.AuthenticatedFrom
    "bot",  # engine.BotKind
    "decided_by",  # engine.DecidedBy
    "end",  # the end of a route (engine.board.RouteEnd)
    "ended",  # pbem.core.kinds.WatchEnd
    "export_on_game_over",  # pbem.core.config.ExportOnGameOver
    "kind",  # engine.Phase, pbem.core.kinds.AnswerTopic, MailKind, rulestext.BlockKind
    "mail",  # pbem.core.config.MailTransport
    "outcome",  # pbem.core.kinds.LineOutcome, MailOutcome, diagnose.Verdict
    "phase",  # engine.Phase
    "source",  # pbem.core.kinds.MoveSource
    "status",  # pbem.core.kinds.GameStatus
    "tls",  # pbem.core.config.Tls
}


def _text_comparisons(path: Path) -> list[str]:
    """`x.NAME == "text"` and `x.NAME != "text"` in a module, for NAME in CLOSED_SETS."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        for op, (left, right) in zip(node.ops, pairwise(sides), strict=True):
            if not isinstance(op, ast.Eq | ast.NotEq):
                continue
            for attribute, other in ((left, right), (right, left)):
                if (
                    isinstance(attribute, ast.Attribute)
                    and attribute.attr in CLOSED_SETS
                    and isinstance(other, ast.Constant)
                    and isinstance(other.value, str)
                ):
                    found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_closed_sets_are_compared_as_members_not_as_text() -> None:
    root = Path(__file__).parent.parent
    files = sorted([*(root / "engine").rglob("*.py"), *(root / "pbem").rglob("*.py")])
    assert len(files) > 40
    found = [line for path in files for line in _text_comparisons(path)]
    assert found == []


def test_the_closed_set_check_finds_a_comparison_with_text(tmp_path: Path) -> None:
    module = tmp_path / "sample.py"
    module.write_text(
        'if route.end == "fail" or "over" != game.status or seat.bot == BotKind.EXPERT:\n    pass\n'
    )
    assert _text_comparisons(module) == [
        "sample.py:1: route.end == 'fail'",
        "sample.py:1: 'over' != game.status",
    ]


def test_the_cycle_check_counts_the_imports_for_the_type_checker(tmp_path: Path) -> None:
    module = tmp_path / "sample.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "from pbem.views import news\n"
        "if TYPE_CHECKING:\n"
        "    from pbem.mail_out.mailing import Mailer\n"
        "def later() -> None:\n"
        "    import pbem.flow.gm\n"
    )
    assert _imports(module, "pbem") == {"pbem.views.news", "pbem.mail_out.mailing", "pbem.flow.gm"}
