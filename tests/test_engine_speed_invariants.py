"""What the state keeps up to date as boats and tiles move (full beaches, empty places, each
seat's islands) always equals what a scan of the whole board finds, and what a state
replayed from the log says, also in copies and reloaded states. Read through the public
queries only."""

from __future__ import annotations

import random
from dataclasses import FrozenInstanceError

import pytest

from engine import COLOURS, ISLANDS, Decision, Phase, Setup, State, empty_places


def _kept_equals_scanned(state: State) -> None:
    scanned = tuple(
        (island, beach)
        for island in state.islands()
        for beach in range(len(ISLANDS[island].beaches))
        if state.free_berths(island, beach) <= 0
    )
    assert state.full_beaches() == scanned
    for seat in range(state.seats):  # the islands kept per seat, in the order placed
        homes = tuple(
            island
            for island in state.islands()
            if any(
                state.boats_on(island, beach)[seat] for beach in range(len(ISLANDS[island].beaches))
            )
        )
        assert state.home_islands(seat) == homes
    assert list(state.empty_places().items()) == list(empty_places(state.tiles).items())


def _kept_equals_replayed(state: State) -> None:
    replayed = State.replay(state.setup, state.log)
    assert replayed.full_beaches() == state.full_beaches()
    for seat in range(state.seats):
        assert replayed.home_islands(seat) == state.home_islands(seat)
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


def test_the_decisions_a_game_makes_are_the_values_their_class_makes() -> None:
    """The engine makes the decisions of a landing, a colony boat and a tile to put by a
    cheaper path than calling the class (`values.maker`): they are the class's own values."""
    rng = random.Random(5)
    state = State(Setup.from_seed(COLOURS[:4], 5))
    seen = set()
    while state.decision is not None:
        decision = state.decision
        called = Decision(*(getattr(decision, f) for f in Decision.__slots__))
        assert type(decision) is Decision
        assert decision == called and hash(decision) == hash(called)
        assert repr(decision) == repr(called)
        with pytest.raises(FrozenInstanceError):
            decision.seat = 3  # type: ignore[misc]
        seen.add(decision.kind)
        state.apply(rng.choice(state.legal_choices()))
    assert {Phase.LAND, Phase.COLONY_BOAT, Phase.PUT_TILE} <= seen
