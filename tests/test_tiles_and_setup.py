"""The tile data in the package, and game set-ups from seeds or explicit stacks."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from engine import (
    ISLANDS,
    SEAS,
    STACK_TILES,
    START_ISLAND,
    Setup,
    SetupError,
    State,
)

SHARED_TILES = Path(__file__).resolve().parents[2] / "shared" / "tiles.json"
PACKAGE_TILES = Path(__file__).resolve().parents[1] / "engine" / "tiles.json"


@pytest.mark.skipif(not SHARED_TILES.exists(), reason="../shared is not beside this checkout")
def test_the_package_holds_the_shared_tile_data() -> None:
    assert json.loads(PACKAGE_TILES.read_text()) == json.loads(SHARED_TILES.read_text())


def test_sixteen_islands_and_sixteen_seas_as_printed() -> None:
    assert len(ISLANDS) == 16 and len(SEAS) == 16
    assert START_ISLAND == "Tonga" and ISLANDS["Tonga"].points == 0
    assert [b.berths for b in ISLANDS["Tonga"].beaches] == [3] * 6
    points = Counter(tile.points for tile in ISLANDS.values() if tile.name != "Tonga")
    assert points == {2: 3, 3: 4, 4: 5, 5: 3}
    for sea in SEAS.values():
        edges = sorted(edge for trail in sea.trails for edge in trail.edges)
        assert edges == [0, 1, 2, 3, 4, 5], sea.name
        for trail in sea.trails:
            assert trail.danger in (0, 2, 3, 4)
            a, b = trail.edges
            assert sea.trail_from(a) == (b, trail.danger)
            assert sea.trail_from(b) == (a, trail.danger)


def test_the_stack_is_the_31_other_tiles() -> None:
    assert len(STACK_TILES) == 31 and "Tonga" not in STACK_TILES
    assert set(STACK_TILES) == (set(ISLANDS) | set(SEAS)) - {"Tonga"}


def test_a_seed_always_gives_the_same_stack_and_different_seeds_differ() -> None:
    first = Setup.from_seed(["red", "blue"], 7)
    assert first == Setup.from_seed(["red", "blue"], 7)
    assert sorted(first.stack) == sorted(STACK_TILES)
    assert first.stack != Setup.from_seed(["red", "blue"], 8).stack


def test_an_explicit_stack_by_names_and_prefixes() -> None:
    names = [
        "sam",
        "c",
        "Rapa Nui",
        *[t for t in STACK_TILES if t not in ("Samoa", "C", "Rapa Nui")],
    ]
    setup = Setup.from_names(["green", "purple", "orange"], names)
    assert setup.stack[:3] == ("Samoa", "C", "Rapa Nui")
    state = State(setup)
    assert state.stack_left == setup.stack


@pytest.mark.parametrize(
    ("colours", "stack", "says"),
    [
        (["red"], STACK_TILES, "2 to 6 players"),
        (["red", "pink"], STACK_TILES, "Unknown colour 'pink'"),
        (["red", "red"], STACK_TILES, "colour of their own"),
        (["red", "blue"], STACK_TILES[:-1], "missing: P"),
        (["red", "blue"], (*STACK_TILES[:-1], "A"), "repeated: A"),
    ],
)
def test_a_bad_setup_is_refused(colours: list[str], stack: tuple[str, ...], says: str) -> None:
    with pytest.raises(SetupError) as caught:
        Setup(tuple(colours), tuple(stack))
    assert says in str(caught.value)


@pytest.mark.parametrize(("name", "says"), [("ra", "Rapa Nui or Rarotonga"), ("Q", "Unknown")])
def test_a_bad_tile_name_is_refused(name: str, says: str) -> None:
    with pytest.raises(SetupError) as caught:
        Setup.from_names(["red", "blue"], [name, *STACK_TILES[1:]])
    assert says in str(caught.value)
