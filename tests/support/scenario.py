"""Positions for the rule scenarios: explicit stacks, arranged boards, readable read-outs.

A scenario either plays from the start (`new_game`) or starts from a position arranged by
hand (`arrange`): Tonga at the centre, the given tiles around it, boats written as colour
letters per beach ("Tonga a": "BR"), reserves holding whatever is not on the board, and the
active player at the start of a turn. Every stack is explicit: the tiles named first, in
that order, then the other tiles in the fixed order of `engine.STACK_TILES`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from engine import (
    BEACH_LETTERS,
    BOATS_PER_PLAYER,
    BY_LETTER,
    CENTRE,
    COLOURS,
    ISLANDS,
    LETTERS,
    STACK_TILES,
    START_ISLAND,
    ChoiceMade,
    Phase,
    Position,
    PutTile,
    Setup,
    State,
    neighbour,
    tile_name,
)

PlacedTile = tuple[str, Position, int]  # tile name, position, rotation


def stack(*top: str) -> list[str]:
    """All 31 stack tiles: `top` first (names, prefixes or sea letters), then the rest in
    the fixed order of STACK_TILES."""
    names = [tile_name(t) for t in top]
    if len(set(names)) != len(names):
        raise ValueError(f"a tile is named twice: {names}")
    return names + [t for t in STACK_TILES if t not in names]


def new_game(colours: Sequence[str], *top: str) -> State:
    """A game at its first set-up decision, with `top` on top of the stack."""
    return State(Setup.from_names(colours, stack(*top)))


def group(letters: str) -> tuple[str, ...]:
    """Boats given as colour letters ("BBR"), as colour names in the fixed colour order."""
    return tuple(sorted((BY_LETTER[c] for c in letters), key=COLOURS.index))


def chose(colour: str, text: str, forced: bool = False) -> ChoiceMade:
    """The event of `colour` making the choice whose canonical text is `text`."""
    return ChoiceMade(colour, text, forced)


def arrange(
    colours: Sequence[str],
    *,
    tiles: Iterable[PlacedTile] = (),
    boats: Mapping[str, str] | None = None,
    royal: Mapping[str, str] | None = None,
    gone: Iterable[str] = (),
    top: Iterable[str] = (),
    active: int = 0,
    turn: int = 1,
    phase: Phase = Phase.TURN,
) -> State:
    """A position at the start of the turn of seat `active` (or, with `phase`, at that kind
    of decision), loaded from a snapshot written by hand.

    `tiles` are placed around Tonga (they are the first tiles of the stack, already drawn);
    `gone` are tiles drawn earlier whose place does not matter to the scenario (they count as
    drawn but are not on the board); `top` are the next tiles to be drawn, in order.
    `boats` maps "ISLAND BEACH" to colour letters; `royal` maps an island to its owner.
    Reserves hold every boat not on the board; nothing is out of play.
    """
    seats = len(colours)
    placed = list(tiles)
    drawn_first = [tile_name(name) for name, _, _ in placed] + [tile_name(t) for t in gone]
    setup = Setup.from_names(colours, stack(*drawn_first, *top))
    laid: dict[Position, tuple[str, int]] = {CENTRE: (START_ISLAND, 0)}  # in the order placed
    for name, position, rotation in placed:
        if position in laid:
            raise ValueError(f"two tiles at {position}")
        laid[position] = (tile_name(name), rotation)
    where = {name: position for position, (name, _) in laid.items()}
    on_beaches = {  # boats per beach per seat, for each island
        position: [[0] * seats for _ in ISLANDS[name].beaches]
        for position, (name, _) in laid.items()
        if name in ISLANDS
    }
    for place, letters in (boats or {}).items():
        island, beach = place.rsplit(" ", 1)
        name = START_ISLAND if island == START_ISLAND else tile_name(island)
        index = BEACH_LETTERS.index(beach)
        for letter in letters:
            on_beaches[where[name]][index][colours.index(BY_LETTER[letter])] += 1
        if sum(on_beaches[where[name]][index]) > ISLANDS[name].beaches[index].berths:
            raise ValueError(f"too many boats on {place}")
    owners = {where[tile_name(i)]: colours.index(owner) for i, owner in (royal or {}).items()}
    reserve = [
        BOATS_PER_PLAYER
        - sum(beach[seat] for beaches in on_beaches.values() for beach in beaches)
        - sum(1 for owner in owners.values() if owner == seat)
        for seat in range(seats)
    ]
    if min(reserve) < 0:
        raise ValueError(f"more than {BOATS_PER_PLAYER} boats of one colour: {reserve}")
    snapshot = {
        "setup": setup.to_json(),
        "tiles": [[q, r, name, rot] for (q, r), (name, rot) in laid.items()],
        "boats": [[q, r, beaches] for (q, r), beaches in on_beaches.items()],
        "royal": [[q, r, seat] for (q, r), seat in owners.items()],
        "reserve": reserve,
        "out_of_play": [0] * seats,
        "drawn": len(drawn_first),
        "set_aside": [],
        "phase": phase.value,
        "active": active,
        "setup_placed": 2 * seats,
        "turn": turn,
        "group": None,
        "target": None,
        "tile": None,
        "colonising": False,
        "redraw_due": False,
        "ending": None,
        "log": [],
    }
    return State.from_json(snapshot)


def layout(state: State) -> dict[str, tuple[str, ...]]:
    """Every island on the board with each beach's boats as colour letters, in colour order."""
    order = [c for c in COLOURS if c in state.colours]

    def letters(beach: tuple[int, ...]) -> str:
        return "".join(LETTERS[c] * beach[state.colours.index(c)] for c in order)

    return {
        island: tuple(
            letters(state.boats_on(island, b)) for b in range(len(ISLANDS[island].beaches))
        )
        for island in state.islands()
    }


def placed_tiles(state: State) -> dict[str, tuple[Position, int]]:
    """Every tile on the board: its position and rotation."""
    return {name: (pos, rotation) for pos, (name, rotation) in state.tiles.items()}


def royal(state: State) -> dict[str, str]:
    """Every royal island with its owner's colour."""
    owners = {island: state.royal_owner(island) for island in state.islands()}
    return {island: state.colours[seat] for island, seat in owners.items() if seat is not None}


def legal(state: State) -> set[str]:
    """The legal choices of the current decision, in their canonical text."""
    return {str(choice) for choice in state.legal_choices()}


def put_places(state: State) -> set[Position]:
    """The positions a drawn tile may go to; asserts each of them allows all six rotations."""
    rotations: dict[Position, set[int]] = {}
    for choice in state.legal_choices():
        assert isinstance(choice, PutTile)
        if choice.anchor is None:
            place = CENTRE
        else:
            anchor = state.position_of(choice.anchor)
            assert anchor is not None
            place = neighbour(anchor, choice.direction)
        rotations.setdefault(place, set()).add(choice.red)
    assert all(r == set(range(6)) for r in rotations.values()), rotations
    assert len(state.legal_choices()) == 6 * len(rotations)
    return set(rotations)


def sealed_stack(state: State) -> State:
    """A copy of `state` whose stack cannot be read past the tiles already drawn."""

    class Sealed(tuple[str, ...]):
        drawn = state.drawn

        def __getitem__(self, index: Any) -> Any:
            if isinstance(index, slice):
                hidden = index.stop is None or index.stop > self.drawn
            else:
                hidden = index < 0 or index >= self.drawn
            if hidden:
                raise AssertionError("the stack was read")
            return super().__getitem__(index)

        def __iter__(self) -> Iterator[str]:
            raise AssertionError("the stack was read")

    setup = Setup.__new__(Setup)
    object.__setattr__(setup, "colours", state.setup.colours)
    object.__setattr__(setup, "stack", Sealed(state.setup.stack))
    sealed = state.copy()
    sealed._setup = setup
    return sealed
