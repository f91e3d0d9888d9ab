"""What the state keeps up to date as boats and tiles move (full beaches, empty places) always
equals what a scan of the whole board finds, and what a state replayed from the log says,
also in copies and reloaded states. Read through the public queries only."""

from __future__ import annotations

import random
from dataclasses import FrozenInstanceError

import pytest

from engine import COLOURS, ISLANDS, Setup, State, empty_places
from engine.phase import Decision, Phase
from engine.values import maker


def _kept_equals_scanned(state: State) -> None:
    scanned = tuple(
        (island, beach)
        for island in state.islands()
        for beach in range(len(ISLANDS[island].beaches))
        if state.free_berths(island, beach) <= 0
    )
    assert state.full_beaches() == scanned
    assert list(state.empty_places().items()) == list(empty_places(state.tiles).items())


def _kept_equals_replayed(state: State) -> None:
    replayed = State.replay(state.setup, state.log)
    assert replayed.full_beaches() == state.full_beaches()
    assert list(replayed.empty_places().items()) == list(state.empty_places().items())


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_kept_full_beaches_and_empty_places_equal_a_scan(players: int) -> None:
    for seed in range(12):
        rng = random.Random(seed)
        state = State(Setup.from_seed(rng.sample(COLOURS, players), seed))
        while state.decision is not None:
            _kept_equals_scanned(state)
            if len(state.log) % 9 == 4:
                _kept_equals_scanned(state.copy())
                _kept_equals_scanned(State.from_json(state.to_json()))
                if seed % 4 == 0:
                    _kept_equals_replayed(state)
            state.apply(rng.choice(state.legal_choices()))
        _kept_equals_scanned(state)
        _kept_equals_replayed(state)


def test_a_value_made_by_its_maker_is_the_value_its_class_makes() -> None:
    made = maker(Decision)(7, 2, "red", Phase.LAND, "Hiva", ("red", "blue"))
    called = Decision(7, 2, "red", Phase.LAND, "Hiva", ("red", "blue"))
    assert type(made) is Decision
    assert made == called and hash(made) == hash(called) and repr(made) == repr(called)
    assert made.tile is None  # the default
    with pytest.raises(FrozenInstanceError):
        made.seat = 3  # type: ignore[misc]
