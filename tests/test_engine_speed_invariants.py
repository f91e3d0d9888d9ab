"""What the state keeps up to date as boats and tiles move (full beaches, empty places) always
equals what a scan of the whole board finds, also in copies and reloaded states."""

from __future__ import annotations

import random

import pytest

from engine import COLOURS, Board, Setup, State


def _kept_equals_scanned(state: State) -> None:
    board: Board = state._board
    assert state._full_beaches() == board.full_beaches()
    assert list(state._empty_places().items()) == list(board.empty_places().items())


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
            state.apply(rng.choice(state.legal_choices()))
        _kept_equals_scanned(state)
