"""The engine's face: everything outside it imports from `engine` alone, its modules import
each other without a cycle, and views read a game through queries that match its snapshot."""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Any, cast

import pytest

from engine import (
    BOATS_PER_PLAYER,
    COLOURS,
    ISLANDS,
    SEAS,
    Choice,
    Emigrate,
    EmigrateClosed,
    Expand,
    Land,
    Pass,
    Phase,
    Place,
    Position,
    PutTile,
    RouteEnd,
    Setup,
    State,
    neighbour,
    parse_choice,
)
from tests.support.invariants import candidates

ROOT = Path(__file__).resolve().parent.parent
ENGINE_MODULES = {path.stem for path in (ROOT / "engine").glob("*.py")} - {"__init__"}

# Files allowed to import engine modules (none: everything comes from `engine`)
NOT_YET_FIXED: set[str] = set()
# the benchmarks' hooks into the engine's caches: no part of the face, for tools/ alone
HOOKS = "engine.hooks"


def _imports(path: Path) -> Iterator[tuple[str, list[str]]]:
    """Every import of a file (at any depth), as (module, names); `import a.b` gives
    ("a.b", [])."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module, [alias.name for alias in node.names]


@cache  # read once for the tests that ask (each file of the project parsed)
def _engine_modules_imported(path: Path) -> frozenset[str]:
    """The engine modules a file imports: `engine.x`, or `engine` for the package itself."""
    found = set()
    for module, names in _imports(path):
        if module.startswith("engine."):
            found.add(module)
        elif module == "engine":
            found.update(f"engine.{n}" if n in ENGINE_MODULES else "engine" for n in names)
            found.update(() if names else ("engine",))
    return frozenset(found)


def _outside_files() -> list[Path]:
    return sorted(p for d in ("pbem", "tools", "tests") for p in (ROOT / d).rglob("*.py"))


def _allowed(path: Path) -> set[str]:
    """The engine modules a file outside it may import: the package; tools/ the hooks too."""
    return {"engine", HOOKS} if path.relative_to(ROOT).parts[0] == "tools" else {"engine"}


def test_nothing_outside_the_engine_imports_its_modules() -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(m for m in modules if m != "engine")
        for path in _outside_files()
        if (modules := _engine_modules_imported(path)) - _allowed(path)
    }
    unexpected = {p: m for p, m in offenders.items() if p not in NOT_YET_FIXED}
    assert unexpected == {}, "import these from `engine` instead"


def test_the_benchmark_hooks_are_no_part_of_the_face() -> None:
    """`engine.hooks` (forgetting the listing caches, to time the listing) is for the
    benchmarks alone: not in `engine.__all__`, not a method of `State`, used by tools/."""
    import engine

    hooks = import_module(HOOKS)
    assert set(hooks.__all__) == {"clear_listing_caches", "relist"}
    assert not set(hooks.__all__) & set(engine.__all__)
    assert not hasattr(State, "relist")
    for name in hooks.__all__:
        with pytest.raises(AttributeError):
            getattr(engine, name)
    users = {
        str(path.relative_to(ROOT))
        for path in _outside_files()
        if HOOKS in _engine_modules_imported(path)
    }
    assert users == {"tools/bench.py"}


def test_the_package_exports_what_it_lists() -> None:
    import engine

    assert sorted(engine.__all__) == sorted(set(engine.__all__))
    missing = [name for name in engine.__all__ if not hasattr(engine, name)]
    assert missing == []


def test_engine_modules_import_each_other_without_a_cycle() -> None:
    graph = {
        name: {
            m.removeprefix("engine.")
            for m in _engine_modules_imported(ROOT / "engine" / f"{name}.py")
            if m != f"engine.{name}"
        }
        for name in ENGINE_MODULES
    }
    assert all("engine" not in deps for deps in graph.values()), (
        "an engine module imports the package (which imports every module)"
    )
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import cycle: {' -> '.join((*path, name))}"
        if name in done:
            return
        for dep in sorted(graph[name]):
            visit(dep, (*path, name))
        done.add(name)

    for name in sorted(graph):
        visit(name, ())


def test_the_engine_does_no_io() -> None:
    forbidden = {"pbem", "os", "io", "time", "datetime", "socket", "subprocess", "sqlite3"}
    for path in (ROOT / "engine").glob("*.py"):
        roots = {module.split(".")[0] for module, _ in _imports(path)}
        assert not roots & forbidden, (path.name, roots & forbidden)


# -- the queries ---------------------------------------------------------------------------


def _games(count: int) -> Iterator[tuple[State, random.Random]]:
    """States met in random games of 2 to 6 players, a few dozen per game."""
    for seed in range(count):
        rng = random.Random(seed)
        players = 2 + seed % 5
        state = State(Setup.from_seed(rng.sample(COLOURS, players), seed))
        while state.decision is not None:
            if rng.random() < 0.3 or state.phase in (Phase.LAND, Phase.COLONY_BOAT):
                yield state, rng
            state.apply(rng.choice(state.legal_choices()))
        yield state, rng


def _check_queries(state: State, snapshot: dict[str, Any]) -> None:
    assert state.tiles == {(q, r): (name, rot) for q, r, name, rot in snapshot["tiles"]}
    for position, (name, _) in state.tiles.items():
        assert state.tile_at(position) == name
        assert state.position_of(name) == position
    assert state.tile_at((99, 99)) is None and state.position_of("Nowhere") is None
    islands = [ISLANDS[state.tile_at((q, r)) or ""].name for q, r, _ in snapshot["boats"]]
    assert state.islands() == tuple(islands)
    royal = {state.tile_at((q, r)): seat for q, r, seat in snapshot["royal"]}
    for island, (_, _, beaches) in zip(islands, snapshot["boats"], strict=True):
        assert state.royal_owner(island) == royal.get(island)
        for index, beach in enumerate(ISLANDS[island].beaches):
            assert state.boats_on(island, index) == tuple(beaches[index])
            assert state.free_berths(island, index) == beach.berths - sum(beaches[index])
            assert len(state.jetties(island, index)) == len(beach.jetties)
    full = {(i, b) for i in islands for b, _ in enumerate(ISLANDS[i].beaches)}
    full = {(i, b) for i, b in full if state.free_berths(i, b) == 0}
    assert set(state.full_beaches()) == full
    assert state.reserve == tuple(snapshot["reserve"])
    assert [state.reserve_of(s) for s in range(state.seats)] == snapshot["reserve"]
    assert state.tiles_left == len(state.stack_left) == state.islands_left + state.seas_left
    assert state.tiles_left == len(state.setup.stack) - snapshot["drawn"]
    for seat in range(state.seats):
        total = state.reserve_of(seat) + state.boats_on_board(seat) + state.out_of_play[seat]
        assert total == BOATS_PER_PLAYER
    if state.phase is Phase.TURN:
        assert state.full_beaches() == ()
    if state.phase is Phase.EMIGRATE:
        sailing = {c.island for c in state.legal_choices() if isinstance(c, Emigrate)}
        closed = {c.island for c in state.legal_choices() if isinstance(c, EmigrateClosed)}
        assert sailing | closed <= {island for island, _ in state.full_beaches()}
        for choice in state.legal_choices():
            if isinstance(choice, Emigrate):
                assert choice.jetty in state.jetties(choice.island, choice.beach)
                route = state.voyage(choice.island, choice.beach, choice.jetty)
                assert route.end in tuple(RouteEnd) and isinstance(route.crossed, tuple)


def _shorter_forms(state: State, choice: Choice) -> Iterator[Choice]:
    """Forms a player may write for a listed choice, leaving out what the game knows."""
    if isinstance(choice, Land):
        yield Land(None, choice.placement, choice.out)
        yield Land(choice.island, choice.placement, ())
    if isinstance(choice, Place) and state.phase in (Phase.SETUP, Phase.COLONY_BOAT):
        yield Place(None, choice.beaches)
    if isinstance(choice, PutTile) and choice.anchor is not None:
        anchor = state.position_of(choice.anchor)
        assert anchor is not None
        place = neighbour(anchor, choice.direction)
        for direction in range(6):
            other = state.tile_at(neighbour(place, direction))
            if other is not None:
                yield PutTile(other, (direction + 3) % 6, choice.red)


def _illegal(state: State) -> Iterator[Choice]:
    """Choices that are never legal: beaches and places that do not exist."""
    yield Place("Tonga", (9,))
    yield Expand("Tonga", (0, 0, 0, 0, 0, 0, 0))
    yield Emigrate("Tonga", 7, 0)
    on_table = set(state.islands())
    absent = next((name for name in ISLANDS if name not in on_table), None)
    if absent is not None:
        yield Expand(absent, (0,))
    for position, _ in state.tiles.items():
        for direction in range(6):
            taken = state.tile_at(neighbour(position, direction))
            if taken is not None:
                name = state.tile_at(position) or ""
                yield PutTile(name, direction, 0)
                return


def test_queries_match_the_snapshot_in_random_games() -> None:
    for state, _ in _games(6):
        _check_queries(state, state.to_json())


def test_the_end_is_known_before_the_last_decisions_are_made() -> None:
    """`Outcome.termination` is set when the last tile of a kind is drawn; the turn is
    still played out (its voyages land), and the final outcome keeps that termination."""
    early = 0
    for seed in range(3):
        rng = random.Random(seed)
        state = State(Setup.from_seed(("red", "blue", "green"), seed))
        known = None
        while state.decision is not None:
            termination = state.standings().termination
            assert known is None or termination == known  # once known, it stays
            known = termination
            early += known is not None
            assert state.outcome is None  # not final while a decision is open
            state.apply(rng.choice(state.legal_choices()))
        assert state.outcome is not None and state.outcome.termination is not None
        assert known in (None, state.outcome.termination)
    assert early > 0


def test_is_legal_accepts_exactly_the_listed_choices_and_their_shorter_forms() -> None:
    for state, rng in _games(8):
        before = state.to_json()
        legal = state.legal_choices()
        if state.phase is Phase.OVER:
            assert legal == []
            assert not any(state.is_legal(c) for c in (Pass(), Place("Tonga", (0,))))
            continue
        for choice in legal:
            assert state.is_legal(choice), choice
            assert state.is_legal(parse_choice(str(choice))), choice
            for form in _shorter_forms(state, choice):
                assert state.is_legal(form), (form, choice)
                assert state.resolve(form) == choice, (form, choice)
        assert state.is_legal(Pass()) == (state.phase is Phase.TURN)
        for choice in _illegal(state):
            assert not state.is_legal(choice), choice
        sample = candidates(state)
        for candidate in (cast(Choice, c) for c in rng.sample(sample, min(len(sample), 60))):
            resolves = _resolves(state, candidate)
            assert state.is_legal(candidate) == resolves, candidate
            if candidate in legal:
                assert resolves
        assert state.to_json() == before, "is_legal changed the game"
        assert state.legal_choices() == legal


def _resolves(state: State, choice: Choice) -> bool:
    try:
        state.resolve(choice)
    except ValueError:
        return False
    return True


def test_views_cannot_change_the_game() -> None:
    state = State(Setup.from_seed(("blue", "red"), 1))
    with pytest.raises(AttributeError):
        state.reserve = (1, 1)  # type: ignore[misc]
    with pytest.raises(AttributeError):
        state.phase = Phase.OVER  # type: ignore[misc]
    with pytest.raises(TypeError):
        state.tiles[(5, 5)] = ("A", 0)  # type: ignore[index]
    listed = state.legal_choices()
    listed.clear()
    assert state.legal_choices() != []
    assert isinstance(state.log, tuple) and isinstance(state.set_aside, tuple)
    public = [name for name in State.__slots__ if not name.startswith("_")]
    # but the open decision, a slot read as it is (a property to the type checker, which
    # refuses a write), kept up to date by the state itself
    assert public == ["decision"], "a State keeps its data in private attributes behind queries"
    before = state.decision
    assert before is not None
    state.apply(state.legal_choices()[0])
    assert state.decision is not None and state.decision.number == before.number + 1
    with pytest.raises(AttributeError):  # and has no room for any other
        state.board = None  # type: ignore[attr-defined]


def test_positions_follow_the_documented_compass() -> None:
    # S is +r, N is -r, NE is +q -r, SW is -q +r (axial coordinates, flat-topped hexes)
    centre: Position = (0, 0)
    steps = [neighbour(centre, d) for d in range(6)]
    assert steps == [(0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0)]
    assert all(neighbour(neighbour(centre, d), (d + 3) % 6) == centre for d in range(6))
    assert {name for name in SEAS} <= set(Setup.from_seed(("blue", "red"), 0).stack)
