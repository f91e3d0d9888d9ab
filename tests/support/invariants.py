"""Checks that hold after every choice of every game (used by the random playouts)."""

from __future__ import annotations

import json
from itertools import combinations

from engine import (
    BOATS_PER_PLAYER,
    ISLANDS,
    START_ISLAND,
    Colonise,
    Emigrate,
    Expand,
    FoundRoyal,
    IllegalChoiceError,
    Land,
    Phase,
    Place,
    Position,
    PutTile,
    State,
    neighbour,
    parse_choice,
)


def check_invariants(state: State) -> None:
    for seat in range(state.seats):
        total = state.reserve_of(seat) + state.boats_on_board(seat) + state.out_of_play[seat]
        assert total == BOATS_PER_PLAYER, (seat, total)
        assert state.reserve_of(seat) >= 0
        assert state.royal_islands(seat) <= 2
    for name in state.islands():
        island = ISLANDS[name]
        beaches = [state.boats_on(name, b) for b in range(len(island.beaches))]
        for index, (beach, boats) in enumerate(zip(island.beaches, beaches, strict=True)):
            assert min(boats) >= 0
            assert sum(boats) <= beach.berths, (name, beaches)
            assert state.free_berths(name, index) == beach.berths - sum(boats)
        if state.royal_owner(name) is not None:
            assert name != START_ISLAND
            assert all(sum(b) == 0 for b in beaches)
    if state.phase is Phase.TURN:
        assert not state.full_beaches(), "a beach is full at the start of a turn"
    if state.phase is Phase.SETUP:
        tonga = range(len(ISLANDS[START_ISLAND].beaches))
        assert all(sum(state.boats_on(START_ISLAND, b)) <= 2 for b in tonga)
    placed = [name for name, _ in state.tiles.values()]
    assert len(placed) == len(set(placed))
    for position, (name, _) in state.tiles.items():
        assert state.tile_at(position) == name and state.position_of(name) == position
    assert state.drawn + 1 == len(placed) + len(state.set_aside) + (state.tile is not None)
    assert state.tiles_left == len(state.stack_left) == state.islands_left + state.seas_left
    decision = state.decision
    if decision is not None:
        assert len(state.legal_choices()) >= 2, "a forced choice was left to the player"
        assert decision.number == len(state.log) + 1


def check_round_trips(state: State) -> None:
    """JSON (through real JSON text) and notation round-trips for the current state."""
    text = json.dumps(state.to_json())
    restored = State.from_json(json.loads(text))
    assert restored == state
    assert restored.legal_choices() == state.legal_choices()
    for choice in state.legal_choices():
        assert parse_choice(str(choice)) == choice, choice
        assert parse_choice(str(choice).upper()) == choice, choice


def check_every_listed_choice_applies(state: State, limit: int = 12) -> None:
    legal = state.legal_choices()
    step = max(1, len(legal) // limit)
    for choice in legal[::step]:
        state.copy().apply(choice)


def candidates(state: State) -> list[object]:
    """A wide superset of the choices of the current decision's kind, legal or not."""
    names = [state.tile_at(pos) or "" for pos in state.tiles]
    found: list[object] = []
    for name in names:
        if name not in ISLANDS:
            continue
        count = len(ISLANDS[name].beaches)
        for size in (1, 2, 3):
            for combo in combinations(range(count), size):
                found.append(Expand(name, combo))
                found.append(Place(name, combo))
        found.append(Place(name, (0, 0)))
        found.append(FoundRoyal(name))
        for beach in range(count):
            for direction in range(6):
                found.append(Emigrate(name, beach, direction))
            for other in names:
                if other in ISLANDS and other != name:
                    found.append(Expand(name, (beach,), (other, 0)))
    found.append(Colonise())
    for anchor in names[:4]:
        for direction in range(6):
            found.append(PutTile(anchor, direction, direction))
    decision = state.decision
    if decision is not None and decision.kind is Phase.LAND:
        island = decision.island
        boats = decision.boats
        found.append(Land(island, ((0, boats),), ()))
        found.append(Land(island, tuple((b, (c,)) for b, c in enumerate(boats)), ()))
    return found


def check_nothing_unlisted_applies(state: State) -> None:
    """An unlisted candidate is refused, except a tile place named from another neighbour,
    which must stand for the listed choice for that same place."""
    legal = state.legal_choices()
    for candidate in candidates(state):
        if candidate in legal:
            assert state.resolve(candidate) == candidate
            continue
        try:
            resolved = state.resolve(candidate)  # type: ignore[arg-type]
        except IllegalChoiceError:
            continue
        assert isinstance(candidate, PutTile) and isinstance(resolved, PutTile), candidate
        assert candidate.anchor is not None and resolved.anchor is not None
        place = neighbour(_at(state, candidate.anchor), candidate.direction)
        assert place == neighbour(_at(state, resolved.anchor), resolved.direction)
        assert (candidate.red, resolved in legal) == (resolved.red, True)


def _at(state: State, tile: str) -> Position:
    position = state.position_of(tile)
    assert position is not None, tile
    return position
