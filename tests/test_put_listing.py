"""The puts of a drawn tile: listed as a sequence that reads like the list of them, place
after place with the six facings of the red edge each, and that nobody can change."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import pytest

from engine import COLOURS, Choice, Phase, PutTile, Setup, State


def _put_decisions(games: int) -> Iterator[State]:
    """The states of random 4-player games at each decision where a drawn tile is put."""
    for seed in range(games):
        rng = random.Random(seed)
        state = State(Setup.from_seed(COLOURS[:4], seed))
        while state.decision is not None:
            if state.decision.kind is Phase.PUT_TILE:
                yield state
            state.apply(rng.choice(state.legal_choices()))


def _as_built(state: State) -> list[Choice]:
    """The puts as a list built the plain way: each empty place's six, in the order of
    `empty_places`, by the facing of the red edge."""
    puts: list[Choice] = []
    for anchor, direction in state.empty_places().values():
        puts += [PutTile(anchor, direction, red) for red in range(6)]
    return puts


def test_the_puts_read_as_the_list_of_every_place_and_facing() -> None:
    seen = 0
    for state in _put_decisions(12):
        listing = state.legal_choices()
        built = _as_built(state)
        assert len(listing) == len(built) and len(built) % 6 == 0
        assert list(listing) == built
        assert [listing[i] for i in range(len(built))] == built
        assert [listing[i] for i in range(-len(built), 0)] == built
        assert listing == built and built == listing
        seen += 1
    assert seen > 50


def test_a_put_listing_answers_as_a_list_would() -> None:
    state = next(_put_decisions(1))
    listing = state.legal_choices()
    built = list(listing)
    n = len(built)
    for index in (n, -n - 1, 10 * n):
        with pytest.raises(IndexError):
            listing[index]
    with pytest.raises(TypeError):
        listing["1"]  # type: ignore[call-overload]
    for part in (slice(3, 10), slice(None, None, -7), slice(-8, None), slice(n, None)):
        assert listing[part] == built[part]
    assert all(put in listing for put in built)
    assert PutTile(built[0].anchor, built[0].direction, 6) not in listing  # type: ignore[union-attr]
    assert listing.index(built[-1]) == n - 1 and listing.count(built[0]) == 1
    assert listing != built[:-1] and listing != tuple(built)
    assert repr(listing) == repr(built)
    with pytest.raises(TypeError):
        hash(listing)


def test_a_put_listing_cannot_be_changed_and_each_put_is_applied() -> None:
    state = next(_put_decisions(1))
    listing = state.legal_choices()
    assert isinstance(listing, Sequence)
    with pytest.raises(TypeError):
        listing[0] = listing[1]  # type: ignore[index]
    assert not hasattr(listing, "append") and not hasattr(listing, "clear")
    for index in (0, len(listing) // 2, -1):
        copy = state.copy()
        put = listing[index]
        copy.apply(put)
        assert copy.log[-1] == put
    assert state.legal_choices() == listing  # reading and applying copies changed nothing
