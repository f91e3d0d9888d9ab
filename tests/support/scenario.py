"""Positions for the rule scenarios: explicit stacks, arranged boards, readable read-outs.

A scenario either plays from the start (`new_game`) or starts from a position arranged by
hand (`arrange`): Tonga at the centre, the given tiles around it, boats written as colour
letters per beach ("Tonga a": "BR"), reserves holding whatever is not on the board, and the
active player at the start of a turn. Every stack is explicit: the tiles named first, in
that order, then the other tiles in the fixed order of `engine.tiles.STACK_TILES`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from engine import Phase, PutTile, Setup, State
from engine.board import Board
from engine.colours import BOATS_PER_PLAYER, BY_LETTER, COLOURS, LETTERS
from engine.events import ChoiceMade
from engine.hexgrid import CENTRE, Position, neighbour
from engine.setup import tile_name
from engine.tiles import BEACH_LETTERS, ISLANDS, SEAS, STACK_TILES, START_ISLAND

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
) -> State:
    """A position at the start of the turn of seat `active`, arranged by editing the state.

    `tiles` are placed around Tonga (they are the first tiles of the stack, already drawn);
    `gone` are tiles drawn earlier whose place does not matter to the scenario (they count as
    drawn but are not on the board); `top` are the next tiles to be drawn, in order.
    `boats` maps "ISLAND BEACH" to colour letters; `royal` maps an island to its owner.
    Reserves hold every boat not on the board; nothing is out of play.
    """
    seats = len(colours)
    placed = list(tiles)
    drawn_first = [tile_name(name) for name, _, _ in placed] + [tile_name(t) for t in gone]
    state = State(Setup.from_names(colours, stack(*drawn_first, *top)))
    board = Board()
    board.place(START_ISLAND, CENTRE, 0, seats)
    for name, position, rotation in placed:
        if position in board.tiles:
            raise ValueError(f"two tiles at {position}")
        board.place(tile_name(name), position, rotation, seats)
    for where, letters in (boats or {}).items():
        island, beach = where.rsplit(" ", 1)
        name = START_ISLAND if island == START_ISLAND else tile_name(island)
        index = BEACH_LETTERS.index(beach)
        for letter in letters:
            board.boats[board.where[name]][index][colours.index(BY_LETTER[letter])] += 1
        if board.free(board.where[name], index) < 0:
            raise ValueError(f"too many boats on {where}")
    for island, owner in (royal or {}).items():
        board.royal[board.where[tile_name(island)]] = colours.index(owner)
    state.board = board
    state.drawn = len(drawn_first)
    left = state.stack_left
    state.islands_left = sum(1 for t in left if t in ISLANDS)
    state.seas_left = sum(1 for t in left if t in SEAS)
    state.reserve = [BOATS_PER_PLAYER - state.boats_on_board(s) for s in range(seats)]
    if min(state.reserve) < 0:
        raise ValueError(f"more than {BOATS_PER_PLAYER} boats of one colour: {state.reserve}")
    state.phase = Phase.TURN
    state.active = active
    state.turn = turn
    state.setup_placed = 2 * seats
    state.relist()
    return state


def layout(state: State) -> dict[str, tuple[str, ...]]:
    """Every island on the board with each beach's boats as colour letters, in colour order."""
    order = [c for c in COLOURS if c in state.colours]

    def letters(beach: list[int]) -> str:
        return "".join(LETTERS[c] * beach[state.colours.index(c)] for c in order)

    return {
        state.board.name(pos): tuple(letters(beach) for beach in beaches)
        for pos, beaches in state.board.boats.items()
    }


def placed_tiles(state: State) -> dict[str, tuple[Position, int]]:
    """Every tile on the board: its position and rotation."""
    return {name: (pos, rotation) for pos, (name, rotation) in state.board.tiles.items()}


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
            place = neighbour(state.board.where[choice.anchor], choice.direction)
        rotations.setdefault(place, set()).add(choice.red)
    assert all(r == set(range(6)) for r in rotations.values()), rotations
    assert len(state.legal_choices()) == 6 * len(rotations)
    return set(rotations)
