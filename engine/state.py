"""The game state: whose decision it is, its legal choices, and applying one (RULES.md §2-§13)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from itertools import combinations, repeat
from operator import add, is_
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from engine import events as ev
from engine.board import BERTHS, PASSES, Board, Voyage
from engine.choices import (
    Choice,
    Colonise,
    Emigrate,
    EmigrateClosed,
    Expand,
    FoundRoyal,
    Land,
    Pass,
    Place,
    Puts,
    PutTile,
)
from engine.colours import BOATS_PER_PLAYER, COLOURS
from engine.errors import GameOverError, IllegalChoiceError
from engine.explain import explain_illegal
from engine.hexgrid import CENTRE_HEX, HEX_STEPS, Hex, Position, has_hex, hex_of, position_at
from engine.landing import Landings, Order
from engine.message import Message
from engine.notation import parse_choice
from engine.outcome import Outcome, Termination, score
from engine.phase import Decision, Phase
from engine.setup import Setup
from engine.tally import Homes, IslandTally, join_home
from engine.tiles import ISLANDS, SEAS, STACK_TILES, START_ISLAND
from engine.values import maker

MAX_ROYAL_ISLANDS = 2
_STACK_ISLANDS = sum(1 for tile in STACK_TILES if tile in ISLANDS)  # island tiles in a stack

# The phases by plain names (the route ends too, from board): in Python 3.11 reading a
# member off its enum class goes through a __getattr__ hook, ten times the cost of a global.
SETUP, TURN, EMIGRATE, LAND = Phase.SETUP, Phase.TURN, Phase.EMIGRATE, Phase.LAND
PUT_TILE, COLONY_BOAT, OVER = Phase.PUT_TILE, Phase.COLONY_BOAT, Phase.OVER
COLONISE = Colonise()
_DECISION = maker(Decision)  # Decision(...), made without calling the class
_COPY_ROW = list.copy  # read once: list's attribute is read through a general path
_FACING = tuple((direction + 3) % 6 for direction in range(6))  # the opposite direction
_CHOICE_MADE, _APPLIED = ev.choice_made, ev.Applied  # read at every choice: plain globals


def _land_choices(
    name: str, group: tuple[int, ...], free: tuple[int, ...], landings: Landings
) -> tuple[Land, ...]:
    """Every landing of `group` on the island `name` with `free` berths per beach, kept in
    `landings.listed` for the next group like it. Each beach with room takes a boat before
    any takes a second (RULES §7, `landing.Landings`), so a beach never takes more than the
    group's boats less one for each other beach with room (one, when those beaches outnumber
    the boats): a beach with room for more is counted as having room for that many, and the
    same landings are found again (kept a second time, by the berths so counted) for more
    groups and islands."""
    listed = landings.listed
    found = listed.get((name, group, free))
    if found is None:
        usable = _usable_room(free, sum(group))
        found = listed.get((name, group, usable))
        if found is None:
            found = landings.lands(name, group, usable)
        if len(listed) >= _KEPT_LISTED:
            listed.clear()
        listed[name, group, free] = listed[name, group, usable] = found
    return found


# the most landings kept listed for a colour order before they are all forgotten (a dict, not
# an lru_cache: its wrapper costs more than a look-up written out in `_landings`, and one of
# 8,192 entries missed three look-ups in ten after a few thousand games; a dict holds some
# 44,000 after 18,000 games, 11 MB more than the lru_caches held)
_KEPT_LISTED = 50_000


@lru_cache(maxsize=4096)
def _usable_room(free: tuple[int, ...], boats: int) -> tuple[int, ...]:
    """The free berths of each beach, counted as at most what a group of `boats` boats can
    put there (`_land_choices`)."""
    if min(free) < 0:
        return free
    most = max(boats - (len(free) - free.count(0)) + 1, 1)
    return tuple([f if f < most else most for f in free]) if max(free) > most else free


# the landings worked out so far, by colour order (a game looks its own up once)
_LANDINGS: dict[Order, Landings] = {}


def _landings_of(order: Order) -> Landings:
    landings = _LANDINGS.get(order)
    if landings is None:
        landings = _LANDINGS[order] = Landings(order)
    return landings


# the puts onto the places around a tile, by the tile's name and the direction of the place
_PUTS: dict[str | None, tuple[tuple[PutTile, ...], ...]] = {}


def _puts_around(anchor: str | None) -> tuple[tuple[PutTile, ...], ...]:
    """The puts onto each place next to `anchor` (by direction), kept for the next time."""
    puts = _PUTS.get(anchor)
    if puts is None:
        puts = _PUTS[anchor] = tuple(
            tuple(PutTile(anchor, direction, red) for red in range(6)) for direction in range(6)
        )
    return puts


# the step to each place around a tile and the puts onto it, by the tile's name
# (a list: Python 3.11 runs a loop over a list at once, over a tuple through a general path)
_STEPPED_PUTS: dict[str, list[tuple[Hex, tuple[PutTile, ...]]]] = {}


def _stepped_puts(name: str) -> list[tuple[Hex, tuple[PutTile, ...]]]:
    stepped = _STEPPED_PUTS[name] = list(zip(HEX_STEPS, _puts_around(name), strict=True))
    return stepped


Expansions = tuple[tuple[Expand, ...], ...]
# the expansions onto an island's open beaches (`_expand_choices`), by its name, then by the
# bits of its full beaches (`IslandTally.bits`): a list, read without hashing a tuple
_EXPANSIONS: dict[str, list[Expansions | None]] = {
    name: [None] * (1 << len(berths)) for name, berths in BERTHS.items()
}


def _expand_choices(isle: IslandTally) -> Expansions:
    """The expansions onto the open beaches of an island, by the smaller of the player's
    boats on it and in the reserve (RULES §4: the entry for n places min(n, beaches) boats,
    at most one a beach), kept for the next island of its name with those beaches open."""
    name, beaches = isle.name, len(isle.room)
    by_count = [
        tuple(Expand(name, combo) for combo in combinations(isle.open, count))
        for count in range(beaches + 1)
    ]
    found = _EXPANSIONS[name][isle.bits] = (
        *by_count,
        *[by_count[-1]] * (BOATS_PER_PLAYER - beaches),
    )
    return found


# one boat from the reserve onto each beach of an island, by its name
_PLACE_ONE: dict[str, tuple[Place, ...]] = {
    name: tuple(Place(name, (b,)) for b in range(len(berths))) for name, berths in BERTHS.items()
}
_ROYAL: dict[str, FoundRoyal] = {name: FoundRoyal(name) for name in ISLANDS}
# the emigrations from each beach of an island, by the board direction of the jetty
_EMIGRATIONS: dict[str, tuple[tuple[Emigrate, ...], ...]] = {
    name: tuple(tuple(Emigrate(name, b, jetty) for jetty in range(6)) for b in range(len(berths)))
    for name, berths in BERTHS.items()
}


def _jetties(name: str, rotation: int) -> tuple[list[tuple[int, Hex, Emigrate]], ...]:
    emigrations = _EMIGRATIONS[name]
    return tuple(
        [
            (direction, HEX_STEPS[direction], emigrations[b][direction])
            for direction in [(edge + rotation) % 6 for edge in beach.jetties]
        ]
        for b, beach in enumerate(ISLANDS[name].beaches)
    )


# the jetties of each beach of an island, by its name, then by the rotation it is laid with: the
# board direction of each, the step to the place it faces, the emigration by it (in a list, to
# be looped over: see _STEPPED_PUTS)
_JETTIES = {name: tuple(_jetties(name, rotation) for rotation in range(6)) for name in ISLANDS}


class _Borrows(dict[tuple[str, int], Expand]):
    """The expansions onto one beach of an island with a boat from another beach, by that
    beach (island, beach): each made the first time it is asked for."""

    __slots__ = ("beach", "name")

    def __init__(self, name: str, beach: int) -> None:
        super().__init__()
        self.name, self.beach = name, beach

    def __missing__(self, source: tuple[str, int]) -> Expand:
        made = self[source] = Expand(self.name, (self.beach,), source)
        return made


# the expansions by borrowing onto each beach of an island, by island, then beach
_BORROWS: dict[str, tuple[_Borrows, ...]] = {
    name: tuple(_Borrows(name, beach) for beach in range(len(berths)))
    for name, berths in BERTHS.items()
}
# each beach of each island as the source of a borrowed boat, as one tuple kept here: a row of
# `_BORROWS` finds the very tuple it keeps as its key, and compares no fields (a borrowing turn
# lists some 170 expansions)
_SOURCES: dict[str, tuple[tuple[str, int], ...]] = {
    name: tuple((name, beach) for beach in range(len(berths))) for name, berths in BERTHS.items()
}


@lru_cache(maxsize=1024)
def _place_choices(name: str, free: tuple[int, ...], count: int) -> tuple[Place, ...]:
    """`count` boats (1 or 2) from the reserve onto beaches of `name` with free berths."""
    if count == 2:
        pairs = [(a, b) for a, b in combinations(range(len(free)), 2) if free[a] and free[b]]
        pairs += [(a, a) for a, f in enumerate(free) if f >= 2]
        two = _PLACE_TWO.get(name)
        if two is None:
            beaches = range(len(free))
            two = _PLACE_TWO[name] = {
                (a, b): Place(name, (a, b)) for a in beaches for b in beaches if a <= b
            }
        return tuple(two[beaches] for beaches in sorted(pairs))
    if count == 1:
        one = _PLACE_ONE[name]
        return tuple(one[a] for a, f in enumerate(free) if f)
    return ()


_PLACE_TWO: dict[str, dict[tuple[int, int], Place]] = {}  # two boats onto beaches of an island
# the set-up's placements by the free berths of the start island's beaches
_SETUP_PLACES: dict[tuple[int, ...], tuple[Place, ...]] = {}

# the boats on the beaches of an island put on the table, by its name and the number of seats
_EMPTY_BEACHES: dict[str, tuple[list[list[int]], ...]] = {
    name: tuple([[0] * seats for _ in berths] for seats in range(7))
    for name, berths in BERTHS.items()
}


def clear_listing_caches() -> None:
    """Forget the landings, expansions and tile puts listed for earlier games (they are kept
    across games, so that a bench can time the listing without them: `engine.hooks`)."""
    _usable_room.cache_clear()
    _LANDINGS.clear()
    _PUTS.clear()
    _STEPPED_PUTS.clear()
    for expansions in _EXPANSIONS.values():
        expansions[:] = [None] * len(expansions)
    for borrows in _BORROWS.values():
        for row in borrows:
            row.clear()
    _place_choices.cache_clear()


# the decisions that say no more than whose they are and their kind, by kind, seat and colour,
# then by the number of choices made before (values: a game and its copies share them; a row
# is a list indexed by that number, made in one go up to it)
_ROWS: dict[tuple[Phase, int, str], list[Decision]] = {}
# the rows of a game's plain decisions by kind, then seat, by the game's colours in seat order
_PLAIN_ROWS: dict[tuple[str, ...], dict[Phase, tuple[list[Decision], ...]]] = {}
_KEPT_DECISIONS = 4_096  # of each row: a longer game (passes without end) makes the rest anew


def _rows_of(phase: Phase, colours: tuple[str, ...]) -> tuple[list[Decision], ...]:
    """The rows of plain decisions of `phase` for each seat of a game with `colours`."""
    rows = []
    for seat, colour in enumerate(colours):
        row = _ROWS.get((phase, seat, colour))
        if row is None:
            row = _ROWS[phase, seat, colour] = []
        rows.append(row)
    return tuple(rows)


def _plain_decision(
    row: list[Decision], made: int, phase: Phase, seat: int, colour: str
) -> Decision:
    """The decision after `made` choices, of a row that does not reach it yet."""
    if made >= _KEPT_DECISIONS:
        return _DECISION(made + 1, seat, colour, phase, None, (), None)
    row += [_DECISION(n + 1, seat, colour, phase) for n in range(len(row), made + 1)]
    return row[made]


_ORDERS: dict[tuple[str, ...], Order] = {}  # the colour orders worked out, by seat order


def _colour_order(colours: tuple[str, ...]) -> Order:
    """(seat, colour) pairs in the fixed colour order."""
    order = _ORDERS.get(colours)
    if order is None:
        order = _ORDERS[colours] = tuple(
            sorted(enumerate(colours), key=lambda pair: COLOURS.index(pair[1]))
        )
    return order


class State:
    """A game in progress. `apply` changes it in place; `copy` is cheap.

    Its data is private: read it through the properties and queries below, which return
    values and read-only views (the same state always answers the same).
    """

    # slots, not a dict: an attribute is read at a fixed place (a dict of more than 30 keys
    # is no longer shared between instances, and every read of it becomes a lookup)
    __slots__ = (
        "_active",
        "_board",
        "_colonising",
        "_colours",
        "_drawn",
        "_emigration_rows",
        "_ending",
        "_full",
        "_group",
        "_homes",
        "_islands_left",
        "_isles",
        "_landings_known",
        "_legal",
        "_log",
        "_manned",
        "_named",
        "_order",
        "_out_of_play",
        "_phase",
        "_places",
        "_redraw_due",
        "_reserve",
        "_seas_left",
        "_set_aside",
        "_setup",
        "_setup_placed",
        "_setup_rows",
        "_target",
        "_tile",
        "_turn",
        "_turn_rows",
        "decision",
    )

    if TYPE_CHECKING:

        @property
        def decision(self) -> Decision | None:
            """Who must decide what now; None once the game is over."""

    # `decision` is a slot that the state keeps up to date, read-only to the type checker: a
    # caller reads it before every choice, and Python 3.11 reads a slot at once where a
    # property runs its function through the interpreter's slow path (3-4% of a game's cache
    # misses)

    def __init__(self, setup: Setup) -> None:
        n = len(setup.colours)
        self._setup = setup
        self._colours = setup.colours
        self._order = _colour_order(setup.colours)
        self._landings_known = _landings_of(self._order)
        self._named = self._landings_known.named
        self._rows(setup.colours)
        self._board = Board()
        # positions are kept as hexgrid.Hex, turned into Position where read
        self._isles: dict[Hex, IslandTally] = {}  # in the order placed, as board.boats
        self._full: dict[Hex, IslandTally] = {}  # the islands with a full beach
        # the islands that are not royal (a royal island has no boats), in the order placed
        self._manned: dict[Hex, IslandTally] = {}
        # the islands where each seat has boats on a beach, in the order placed (`Homes`)
        self._homes: Homes = [[] for _ in range(n)]
        # the puts onto each empty place, by place (as Board.empty_places orders and names them)
        self._places: dict[Hex, tuple[PutTile, ...]] | None = {CENTRE_HEX: _puts_around(None)[0]}
        self._drawn = 0  # before the start island: the tiles drawn rank the islands placed
        self._place_tile(START_ISLAND, CENTRE_HEX, 0)
        self._reserve = [BOATS_PER_PLAYER] * n
        self._out_of_play = [0] * n
        self._islands_left = _STACK_ISLANDS  # a stack holds each tile once (Setup checks)
        self._seas_left = len(setup.stack) - _STACK_ISLANDS
        self._set_aside: list[str] = []
        self._phase = SETUP
        self._active = 0
        self._setup_placed = 0
        self._turn = 0
        self._group: tuple[int, ...] | None = None  # boats per seat of a group that arrived
        self._target: Hex | None = None
        self._tile: str | None = None
        self._colonising = False
        self._redraw_due = False
        self._ending: Termination | None = None
        self._log: list[Choice] = []
        # the listed choices (a tuple where a cache lists them: never changed in place)
        self._legal: Sequence[Choice] | None = None
        # the first decision: the beaches of the start island that take two boats (all)
        self._legal = self._setup_places()
        self.decision = self._decide()  # type: ignore[misc]

    def _rows(self, colours: tuple[str, ...]) -> None:
        rows = _PLAIN_ROWS.get(colours)
        if rows is None:
            rows = _PLAIN_ROWS[colours] = {p: _rows_of(p, colours) for p in (TURN, EMIGRATE, SETUP)}
        self._turn_rows, self._emigration_rows = rows[TURN], rows[EMIGRATE]
        self._setup_rows = rows[SETUP]

    # -- reading the state -------------------------------------------------------------
    # Views read the game through these properties and queries; they return values or
    # read-only views, never the engine's own lists and dicts.

    @property
    def setup(self) -> Setup:
        """The colours in seat order and the stack the game started with."""
        return self._setup

    @property
    def colours(self) -> tuple[str, ...]:
        """The players' colours in seat order."""
        return self._colours

    @property
    def seats(self) -> int:
        return len(self._colours)

    @property
    def phase(self) -> Phase:
        """The kind of the open decision (OVER when the game has ended)."""
        return self._phase

    @property
    def active(self) -> int:
        """The seat that makes the open decision (the last one to decide once it is over)."""
        return self._active

    @property
    def turn(self) -> int:
        """The number of the turn under way, counted from 1 (0 during the set-up)."""
        return self._turn

    @property
    def log(self) -> tuple[Choice, ...]:
        """The choice of every decision so far, in order; the forced choices the engine made
        on its own between them are not in it (replaying the log makes them again)."""
        return tuple(self._log)

    @property
    def tile(self) -> str | None:
        """The tile drawn and waiting to be put on the table, if any."""
        return self._tile

    @property
    def ending(self) -> Termination | None:
        """Why the game ends (or ended), once the last tile of a kind has been drawn."""
        return self._ending

    @property
    def reserve(self) -> tuple[int, ...]:
        """Boats in each seat's reserve, in seat order."""
        return tuple(self._reserve)

    def reserve_of(self, seat: int) -> int:
        """Boats in the reserve of `seat`."""
        return self._reserve[seat]

    @property
    def out_of_play(self) -> tuple[int, ...]:
        """Boats of each seat that stayed at sea when no tile was left (RULES §12)."""
        return tuple(self._out_of_play)

    @property
    def set_aside(self) -> tuple[str, ...]:
        """Islands removed from the game because every route from them led back (§8.1)."""
        return tuple(self._set_aside)

    @property
    def drawn(self) -> int:
        """Tiles drawn from the stack so far."""
        return self._drawn

    @property
    def stack_left(self) -> tuple[str, ...]:
        """The tiles still in the stack, the next to be drawn first."""
        return self._setup.stack[self._drawn :]

    @property
    def tiles_left(self) -> int:
        """How many tiles are still in the stack."""
        return len(self._setup.stack) - self._drawn

    @property
    def islands_left(self) -> int:
        """Island tiles still in the stack (the game ends when the last one is drawn)."""
        return self._islands_left

    @property
    def seas_left(self) -> int:
        """Sea tiles still in the stack (the game ends when the last one is drawn)."""
        return self._seas_left

    @property
    def tiles(self) -> Mapping[Position, tuple[str, int]]:
        """Every tile on the table by position, in the order placed: its name and rotation
        (the board direction its red edge faces)."""
        tiles = self._board.tiles
        return MappingProxyType({position_at(place): tiles[place] for place in tiles})

    def tile_at(self, position: Position) -> str | None:
        """The name of the tile at `position`, None for an empty place."""
        if not has_hex(position):
            return None
        placed = self._board.tiles.get(hex_of(position))
        return None if placed is None else placed[0]

    def position_of(self, tile: str) -> Position | None:
        """Where the tile (an island's name or a sea letter) lies, None when not on the table."""
        place = self._board.where.get(tile)
        return None if place is None else position_at(place)

    def islands(self) -> tuple[str, ...]:
        """The islands on the table, royal ones included, in the order placed."""
        tiles = self._board.tiles
        return tuple(tiles[pos][0] for pos in self._board.boats)

    def royal_owner(self, island: str) -> int | None:
        """The seat whose royal island `island` is, None when it is not royal."""
        return self._board.royal.get(self._board.where[island])

    def boats_on(self, island: str, beach: int) -> tuple[int, ...]:
        """The boats on a beach, per seat (in seat order; `colours_of` names them)."""
        return tuple(self._board.boats[self._board.where[island]][beach])

    def free_berths(self, island: str, beach: int) -> int:
        """The berths of a beach that no boat takes."""
        return self._isles[self._board.where[island]].room[beach]

    def jetties(self, island: str, beach: int) -> tuple[int, ...]:
        """The board directions of a beach's jetties, in the tile's edge order."""
        return tuple(self._board.jetties(self._board.where[island], beach))

    def full_beaches(self) -> tuple[tuple[str, int], ...]:
        """The full beaches waiting to emigrate, as (island, beach), in placement order."""
        name = self._board.name
        return tuple((name(pos), beach) for pos, beach in self._full_beaches())

    def empty_places(self) -> dict[Position, tuple[str | None, int]]:
        """The empty places a tile may be put on, each with its name in a put command: the
        first-placed tile next to it and the direction from there ((None, 0) is the centre
        of an empty table)."""
        return {
            position_at(place): (puts[0].anchor, puts[0].direction)
            for place, puts in self._puts_at().items()
        }

    def voyage(self, island: str, beach: int, jetty: int) -> Voyage:
        """Where the group on a beach of `island` would stop if it sailed by `jetty` now, over
        the tiles already on the table (its number of colours meets the trails' dangers)."""
        home = self._board.where[island]
        colours = sum(1 for n in self._board.boats[home][beach] if n)
        return self._board.trace(home + HEX_STEPS[jetty], jetty, colours).frozen()

    def colours_of(self, counts: Sequence[int]) -> tuple[str, ...]:
        """Boats per seat as colour names, in the fixed colour order."""
        key = tuple(counts)
        named = self._named.get(key)
        if named is None:
            named = self._landings_known.name(key)
        return named

    def _decide(self) -> Decision | None:
        """The open decision (`decision`), worked out after a change."""
        phase = self._phase
        # a turn's, an emigration's, a set-up boat's: a value, the same decision of another
        # game or of a copy shared (each kind's rows read by name: no look-up by the kind)
        if phase is TURN:
            row = self._turn_rows[self._active]
        elif phase is EMIGRATE:
            row = self._emigration_rows[self._active]
        elif phase is OVER:
            return None
        elif phase is SETUP:
            row = self._setup_rows[self._active]
        else:
            return self._open_decision(phase, self._active)
        made = len(self._log)
        try:
            return row[made]
        except IndexError:  # the first game of these colours to get this far
            seat = self._active
            return _plain_decision(row, made, phase, seat, self._colours[seat])

    def _open_decision(self, phase: Phase, seat: int) -> Decision:
        island = tile = None
        boats: tuple[str, ...] = ()
        if phase is LAND:
            assert self._target is not None and self._group is not None
            island = self._board.tiles[self._target][0]
            group = self._group
            boats = self._named.get(group) or self._landings_known.name(group)
        elif phase is COLONY_BOAT:
            assert self._target is not None
            island = self._board.tiles[self._target][0]
        else:
            tile = self._tile
        return _DECISION(len(self._log) + 1, seat, self._colours[seat], phase, island, boats, tile)

    @property
    def outcome(self) -> Outcome | None:
        """The final result; None while the game goes on."""
        if self._phase is not OVER:
            return None
        return score(self._board, self._colours, self._ending)

    def standings(self) -> Outcome:
        """The score as it stands now (the final one once the game is over)."""
        return score(self._board, self._colours, self._ending)

    def boats_on_board(self, seat: int) -> int:
        """Boats on beaches, royal boats, and boats of a group waiting to land."""
        on_beaches = sum([isle.boats[seat] for isle in self._homes[seat]])
        in_transit = self._group[seat] if self._group is not None else 0
        royal = sum(1 for owner in self._board.royal.values() if owner == seat)
        return on_beaches + in_transit + royal

    def royal_islands(self, seat: int) -> int:
        """How many royal islands `seat` has founded."""
        return sum(1 for owner in self._board.royal.values() if owner == seat)

    def home_islands(self, seat: int) -> tuple[str, ...]:
        """Non-royal islands where `seat` has boats on beaches, in the order placed."""
        return tuple([isle.name for isle in self._homes[seat]])

    def copy(self) -> State:
        other = State.__new__(State)
        # the values, shared
        other._setup, other._colours, other._order = self._setup, self._colours, self._order
        other._landings_known, other._named = self._landings_known, self._named
        other._turn_rows, other._emigration_rows = self._turn_rows, self._emigration_rows
        other._setup_rows, other._legal = self._setup_rows, self._legal
        other.decision = self.decision  # type: ignore[misc]
        other._phase, other._active, other._turn = self._phase, self._active, self._turn
        other._setup_placed, other._drawn = self._setup_placed, self._drawn
        other._islands_left, other._seas_left = self._islands_left, self._seas_left
        other._target, other._tile, other._ending = self._target, self._tile, self._ending
        other._group = self._group
        other._colonising, other._redraw_due = self._colonising, self._redraw_due
        # the rest, copied
        other._board = self._board.copy()
        boats = other._board.boats
        other._isles = {pos: isle.copy(boats[pos]) for pos, isle in self._isles.items()}
        other._full = {pos: other._isles[pos] for pos in self._full}
        other._homes = [[other._isles[isle.position] for isle in row] for row in self._homes]
        other._manned = {pos: other._isles[pos] for pos in self._manned}
        other._places = None if self._places is None else dict(self._places)
        other._reserve = list(self._reserve)
        other._out_of_play = list(self._out_of_play)
        other._set_aside = list(self._set_aside)
        other._log = list(self._log)
        return other

    # -- legal choices -----------------------------------------------------------------

    def legal_choices(self) -> Sequence[Choice]:
        """Every choice the rules allow at the current decision, in a fixed order (a new
        list each time: changing it changes nothing in the game; the puts of a drawn tile,
        some 150, in a `Puts`, read like a list and never changed)."""
        legal = self._legal
        if legal is None:
            if self._phase is PUT_TILE:  # the puts are many and never forced: not kept
                return self._puts()
            legal = self._legal = _LISTINGS[self._phase](self)
        return [*legal]

    def _listed(self) -> Sequence[Choice]:
        legal = self._legal
        if legal is None:
            legal = self._legal = _LISTINGS[self._phase](self)
        return legal

    def _setup_places(self) -> Sequence[Choice]:
        room = tuple(self._isles[self._board.where[START_ISLAND]].room)
        found = _SETUP_PLACES.get(room)
        if found is None:  # the beaches of the start island that take two boats
            one = _PLACE_ONE[START_ISLAND]
            found = _SETUP_PLACES[room] = tuple(
                [one[b] for b, free in enumerate(room) if free >= 2]
            )
        return found

    def _colony_boats(self) -> Sequence[Choice]:
        assert self._target is not None
        return _PLACE_ONE[self._board.tiles[self._target][0]]

    def _nothing(self) -> list[Choice]:
        return []

    def _relist(self) -> None:
        """Forget the listed legal choices, so that the next `legal_choices` works them out
        again (`engine.hooks.relist`)."""
        self._legal = None

    def _turn_choices(self) -> list[Choice]:
        seat = self._active
        reserve = self._reserve[seat]
        if not reserve:
            return self._turn_without_reserve(seat)
        homes = self._homes[seat]
        choices: list[Choice] = []
        royal: list[Choice] = []
        for isle in homes:
            mine = isle.boats[seat]
            expansions = isle.expansions
            if expansions is None:
                expansions = _EXPANSIONS[isle.name][isle.bits] or _expand_choices(isle)
                isle.expansions = expansions
            choices.extend(expansions[mine if mine < reserve else reserve])
            if isle.total == mine and isle.name != START_ISLAND:
                royal.append(_ROYAL[isle.name])
        if royal:  # an island of the seat's boats alone (so the seat has boats on the board)
            if self._may_found(seat):
                choices.extend(royal)
        elif not homes:
            choices.extend(self._no_boat_placements())
        choices.append(COLONISE)
        return choices

    def _turn_without_reserve(self, seat: int) -> list[Choice]:
        """A turn's choices with no boat in the reserve: an expansion borrows a boat (§11)."""
        homes = self._homes[seat]
        choices = self._borrowing_expansions(homes) if homes else []
        royal: list[Choice] = [
            _ROYAL[isle.name]
            for isle in homes
            if isle.total == isle.boats[seat] and isle.name != START_ISLAND
        ]
        if royal and self._may_found(seat):
            choices += royal
        choices.append(COLONISE)
        return choices

    def _may_found(self, seat: int) -> bool:
        """Whether `seat` may found a royal island (fewer than two of its own, or on the table)."""
        royal_islands = self._board.royal
        if len(royal_islands) < MAX_ROYAL_ISLANDS:
            return True
        return [*royal_islands.values()].count(seat) < MAX_ROYAL_ISLANDS

    def _borrowing_expansions(self, homes: list[IslandTally]) -> list[Choice]:
        """§11: with an empty reserve, the expansion moves one boat from another island."""
        seat = self._active
        choices: list[Choice] = []
        boats_at = [
            (isle, _SOURCES[isle.name][b])
            for isle in homes
            for b, boats in enumerate(isle.beaches)
            if boats[seat]
        ]
        for isle in homes:
            sources = [source for other, source in boats_at if other is not isle]
            rows = _BORROWS[isle.name]
            for beach in isle.open:  # each beach's made at C speed, as a dict's lookups
                choices.extend(map(rows[beach].__getitem__, sources))
        return choices

    def _no_boat_placements(self) -> list[Choice]:
        reserve = self._reserve[self._active]
        choices: list[Choice] = []
        if reserve == 0:
            return choices
        for isle in self._manned.values():
            name = isle.name
            free = tuple(isle.room)
            if name == START_ISLAND:
                count = min(2, sum(free), reserve)
                # two boats: the places so far in the order of their beaches; those of the
                # start island alone come in that order already (it is the first placed)
                unsorted = count == 2 and bool(choices)
                choices.extend(_place_choices(name, free, count))
                if unsorted:
                    choices.sort(key=lambda c: c.beaches if isinstance(c, Place) else ())
            else:
                choices.extend(_place_choices(name, free, 1))
        return choices

    def _emigration_options(self) -> tuple[list[Choice], list[Hex]]:
        """The emigrations over open routes, and the islands whose every full beach's route
        is closed (RULES §8.1: a route is closed when it passes every trail and comes back
        home, or meets a royal island). An island's are kept in its tally (`exits`), and each
        full beach's with the places its routes stop at (`routes`), until its boats change or
        a tile comes or goes at one of those places (`_reroute`)."""
        choices: list[Choice] = []
        doomed: list[Hex] = []
        full = self._full
        if not full:
            return choices, doomed
        isles = full.values() if len(full) == 1 else [i for i in self._isles.values() if i.full]
        for isle in isles:
            found = isle.exits
            if found is None:
                routes, found = isle.routes, ()
                for beach in isle.full:  # one, mostly: () + its tuple is that tuple
                    known = routes.get(beach)
                    if known is None:
                        known = routes[beach] = self._beach_exits(isle, beach)
                    found += known[0]
                isle.exits = found
            if found:
                choices.extend(found)
            else:
                doomed.append(isle.position)
        return choices, doomed

    def _beach_exits(
        self, isle: IslandTally, beach: int
    ) -> tuple[tuple[Emigrate, ...], tuple[Hex, ...]]:
        """The emigrations from a full beach over open routes, and where its routes stop."""
        board, pos = self._board, isle.position
        seas, royal = board.seas, board.royal
        name, rotation = board.tiles[pos]
        boats = isle.beaches[beach]
        colours = len(boats) - boats.count(0)
        found = []
        ends = []
        for direction, step, emigration in _JETTIES[name][rotation][beach]:
            target = pos + step
            while True:  # as Board.follow, written out (it runs for every jetty of a full beach)
                passes = seas.get(target)
                if passes is None:  # an island or an empty place: closed home or at a royal one
                    if target != pos and target not in royal:
                        found.append(emigration)
                    break
                direction, step, danger, _ = passes[direction]
                if colours < danger:  # a trail the group cannot pass: it fails, not closed
                    found.append(emigration)
                    break
                target += step
            ends.append(target)
        return tuple(found), tuple(ends)

    def _reroute(self, place: Hex) -> None:
        """A tile came or went at `place` (or its island turned royal): forget the exits
        whose routes stop there (only full beaches keep routes)."""
        for isle in self._full.values():
            routes = isle.routes
            if routes:
                for beach, (_, ends) in list(routes.items()):
                    if place in ends:
                        del routes[beach]
                        isle.exits = None

    def _full_beaches(self) -> list[tuple[Hex, int]]:
        """The full beaches, in the order their islands were placed."""
        if not self._full:
            return []
        return [(pos, b) for pos, isle in self._isles.items() for b in isle.full]

    def _note_full(self, isle: IslandTally) -> None:
        """Keep the islands with a full beach up to date after a beach became full or not."""
        if isle.full:
            self._full[isle.position] = isle
        else:
            self._full.pop(isle.position, None)

    def _count_boats(self) -> None:
        """Count the boats on the whole board (a state loaded from its snapshot)."""
        tiles = self._board.tiles
        self._isles = {
            pos: IslandTally(tiles[pos][0], pos, beaches, rank)
            for rank, (pos, beaches) in enumerate(self._board.boats.items())
        }
        self._full = {pos: isle for pos, isle in self._isles.items() if isle.full}
        royal = self._board.royal
        self._manned = {pos: isle for pos, isle in self._isles.items() if pos not in royal}
        manned = self._manned.values()
        self._homes = [
            [isle for isle in manned if isle.boats[seat]] for seat in range(len(self._colours))
        ]

    def _puts_at(self) -> dict[Hex, tuple[PutTile, ...]]:
        """The puts onto each place of Board.empty_places, kept up to date as tiles are placed
        (found again after one is removed)."""
        places = self._places
        if places is None:  # each place named by the first tile placed next to it
            tiles = self._board.tiles
            if not tiles:
                places = self._places = {CENTRE_HEX: _puts_around(None)[0]}
                return places
            places = self._places = {}
            for position, (name, _) in tiles.items():
                for step, puts in _STEPPED_PUTS.get(name) or _stepped_puts(name):
                    near = position + step
                    if near not in tiles and near not in places:
                        places[near] = puts
        return places

    def _place_tile(self, name: str, place: Hex, rotation: int) -> None:
        """Put a tile on the table; the places around it are named after it unless an
        earlier tile names them already (as Board.empty_places names them)."""
        board = self._board
        board.tiles[place] = (name, rotation)
        board.where[name] = place
        if self._full:  # only full beaches keep routes
            self._reroute(place)
        empty = _EMPTY_BEACHES.get(name)
        if empty is not None:  # an island: no boat on its beaches yet (as Board.place)
            beaches = board.boats[place] = [*map(_COPY_ROW, empty[len(self._colours)])]
            self._isles[place] = self._manned[place] = IslandTally.placed(
                name, place, beaches, self._drawn
            )
        else:
            board.seas[place] = PASSES[name, rotation]
        places = self._places
        if places is None:
            return
        places.pop(place, None)
        tiles = board.tiles
        for step, puts in _STEPPED_PUTS.get(name) or _stepped_puts(name):
            near = place + step
            if near not in tiles and near not in places:
                places[near] = puts

    def _emigrations(self) -> list[Choice]:
        """The legal emigrations: over open routes, and from each island whose routes are
        all closed (which removes it) while others wait (RULES §8.1)."""
        options, closed = self._emigration_options()
        if closed:
            options += [EmigrateClosed(self._board.name(pos)) for pos in closed]
        return options

    def _landings(self) -> Sequence[Choice]:
        assert self._group is not None and self._target is not None
        isle = self._isles[self._target]
        key = (isle.name, self._group, tuple(isle.room))
        found = self._landings_known.listed.get(key)  # `_land_choices`, the look-up written out
        return _land_choices(*key, self._landings_known) if found is None else found

    def _puts(self) -> Puts:
        places = self._places
        if places is None:
            places = self._puts_at()
        return Puts([*places.values()])

    # -- applying a choice -------------------------------------------------------------

    def resolve(self, choice: Choice) -> Choice:
        """The legal choice that `choice` stands for (filling in what the text left out)."""
        if self._phase is OVER:
            raise GameOverError(Message("The game is over; no more choices can be made."))
        if isinstance(choice, Pass) and self._phase is not TURN:
            raise IllegalChoiceError(Message("A turn can only be passed at its start."))
        found = self._resolved(choice)
        if found is None:
            raise IllegalChoiceError(explain_illegal(self, choice))
        return found

    def is_legal(self, choice: Choice) -> bool:
        """Whether `apply` would accept `choice` now (as listed, or as a shorter form that
        stands for a listed choice); nothing is copied or applied."""
        return self._phase is not OVER and self._resolved(choice) is not None

    def _resolved(self, choice: Choice) -> Choice | None:
        if isinstance(choice, Pass):
            return choice if self._phase is TURN else None
        if isinstance(choice, PutTile) and self._phase is PUT_TILE:
            return self._put_choice(choice)
        legal = self._listed()
        if any(map(is_, legal, repeat(choice))) or choice in legal:
            return choice
        filled = self._fill_in(choice)
        if filled is not None and filled in legal:
            return filled
        return None

    def _put_choice(self, choice: PutTile) -> PutTile | None:
        """The listed put that `choice` names (by any tile next to the place): found by its
        place, not looked for among the listed puts."""
        if choice.red not in range(6):
            return None
        if choice.anchor is None:
            place = CENTRE_HEX
        else:
            anchor = self._board.where.get(choice.anchor)
            if anchor is None:
                return None
            place = anchor + HEX_STEPS[choice.direction]
        puts = self._puts_at().get(place)
        return None if puts is None else puts[choice.red]

    def _fill_in(self, choice: Choice) -> Choice | None:
        board = self._board
        if isinstance(choice, PutTile):
            if choice.anchor is None:
                place = CENTRE_HEX
            elif choice.anchor in board.where:
                place = board.where[choice.anchor] + HEX_STEPS[choice.direction]
            else:
                return None
            puts = self._puts_at().get(place)
            return None if puts is None or choice.red not in range(6) else puts[choice.red]
        if isinstance(choice, Land) and self._phase is LAND and self._target is not None:
            island = board.name(self._target)
            if choice.island not in (None, island):
                return None
            if not choice.out:
                assert self._group is not None
                placed = [c for _, cs in choice.placement for c in cs]
                out = list(self.colours_of(self._group))
                for colour in placed:
                    if colour not in out:
                        return None
                    out.remove(colour)
                return Land(island, choice.placement, tuple(out))
            return Land(island, choice.placement, choice.out)
        if isinstance(choice, Place) and choice.island is None:
            if self._phase is SETUP:
                return Place(START_ISLAND, choice.beaches)
            if self._phase is COLONY_BOAT and self._target is not None:
                return Place(board.name(self._target), choice.beaches)
        return None

    def apply(self, choice: Choice) -> ev.Events:
        """Make a choice for the current decision; returns everything that followed, up to
        the next decision that has more than one option (forced ones are made on the way):
        the events, made when first read."""
        # a choice that is one of the listed ones itself needs no resolving (a put is found by
        # its place: no scan of the listed puts)
        legal = self._legal
        if self._phase is PUT_TILE and isinstance(choice, PutTile):
            found = self._put_choice(choice)
            choice = self.resolve(choice) if found is None else found
        else:  # found by identity in a loop of the interpreter's own (any, map and repeat
            # would each run code of their own, and repeat parses its arguments)
            for listed in legal or ():
                if listed is choice:
                    break
            else:
                choice = self.resolve(choice)
        self._log.append(choice)
        events: list[ev.Noted] = []
        colours, forced = self._colours, False
        while True:  # the choice, then the forced ones that follow, until a decision has more
            # than one option (or none: the game is over)
            events.append((_CHOICE_MADE, colours[self._active], choice, forced))
            self._legal = None
            # the frequent steps and listings called by name: a call site that always calls
            # the same function is specialized by Python 3.11, one through a table is not
            # (each such call sets up its frame by the general path)
            kind = type(choice)
            if kind is Expand:
                self._expand(choice, events)  # type: ignore[arg-type]
            elif kind is Emigrate:
                self._emigrate(choice, events)  # type: ignore[arg-type]
            elif kind is Land:
                self._land(choice, events)  # type: ignore[arg-type]
            elif kind is Place:
                self._place(choice, events)  # type: ignore[arg-type]
            else:
                _STEPS[kind](self, choice, events)
            legal = self._legal
            if legal is None:
                phase = self._phase
                if phase is TURN:
                    legal = self._legal = self._turn_choices()
                elif phase is PUT_TILE:  # six puts at least: listed only when asked for
                    break
                elif phase is EMIGRATE:
                    legal = self._legal = self._emigrations()
                elif phase is LAND:
                    legal = self._legal = self._landings()
                else:
                    legal = self._legal = _LISTINGS[phase](self)
            if len(legal) != 1:
                break
            choice = legal[0]
            forced = True
        self.decision = self._decide()  # type: ignore[misc]
        # Events(events), without the call to its __init__ (made at every choice)
        made: ev.Events = _APPLIED()
        made._noted, made._made = events, None
        return made

    def _pass(self, choice: Pass, events: list[ev.Noted]) -> None:
        events.append((ev.TurnPassed, self._colours[self._active]))
        self._end_turn(events)

    def _emigrate_closed(self, choice: EmigrateClosed, events: list[ev.Noted]) -> None:
        self._remove_closed(self._board.where[choice.island], events)
        self._emigrations_or_end(events)

    def _place(self, choice: Place, events: list[ev.Noted]) -> None:
        assert choice.island is not None
        seat, beaches = self._active, choice.beaches
        pos = self._board.where[choice.island]
        isle = self._isles[pos]
        if not isle.boats[seat]:  # the seat's first boats here
            join_home(self._homes[seat], isle)
        if isle.add(beaches, seat):  # a beach filled: the island has a full one (`_note_full`)
            self._full[pos] = isle
        self._reserve[seat] -= len(beaches)
        events.append((ev.BoatsPlaced, self._colours[seat], isle.name, beaches))
        if self._phase is SETUP:
            self._setup_placed += 1
            seats = len(self._colours)
            if self._setup_placed < 2 * seats:
                self._active = self._setup_placed % seats
            else:
                self._start_turn(0, events)
        elif self._phase is COLONY_BOAT:
            self._end_turn(events)
        else:
            self._emigrations_or_end(events)

    def _expand(self, choice: Expand, events: list[ev.Noted]) -> None:
        board, seat = self._board, self._active
        pos = board.where[choice.island]
        if choice.borrow is None:  # as `_place`, onto an island of the seat's
            isle, beaches = self._isles[pos], choice.beaches
            if isle.add(beaches, seat):  # a beach filled (`_note_full`, written out)
                self._full[pos] = isle
            self._reserve[seat] -= len(beaches)
            events.append((ev.BoatsPlaced, self._colours[seat], isle.name, beaches))
        else:
            source, source_beach = choice.borrow
            source_isle, isle = self._isles[board.where[source]], self._isles[pos]
            if source_isle.move(source_beach, seat, -1):
                self._note_full(source_isle)
            if not source_isle.boats[seat]:  # its last boat of the seat's
                self._homes[seat].remove(source_isle)
            if isle.move(choice.beaches[0], seat, 1):
                self._note_full(isle)
            colour, to_beach = self._colours[seat], choice.beaches[0]
            events.append((ev.BoatMoved, colour, source, source_beach, choice.island, to_beach))
        if self._full or self._redraw_due:
            self._emigrations_or_end(events)
        else:  # `_emigrations_or_end`'s way when no beach is full: one call the fewer
            self._end_turn(events)

    def _found_royal(self, choice: FoundRoyal, events: list[ev.Noted]) -> None:
        board, seat = self._board, self._active
        pos = board.where[choice.island]
        isle = self._isles[pos]
        returned = isle.boats[seat] - 1
        board.boats[pos] = [*map(_COPY_ROW, _EMPTY_BEACHES[choice.island][len(self._colours)])]
        self._homes[seat].remove(isle)  # the seat's boats alone were on it
        isle.empty(board.boats[pos])
        self._full.pop(pos, None)
        del self._manned[pos]
        board.royal[pos] = seat
        self._reroute(pos)
        self._reserve[seat] += returned
        events.append((ev.RoyalIslandFounded, self._colours[seat], choice.island, returned))
        self._end_turn(events)

    def _colonise(self, choice: Colonise, events: list[ev.Noted]) -> None:
        seat = self._active
        recalled = 0
        homes = self._homes[seat]
        for isle in homes:
            recalled += isle.recall(seat)
        if self._full:  # a full beach that lost boats has room again (none at a turn's start)
            for isle in homes:
                self._note_full(isle)
        homes.clear()  # no boat of the seat's left on a beach
        self._reserve[seat] += recalled
        events.append((ev.BoatsRecalled, self._colours[seat], recalled))
        self._colonising = True
        self._draw_to_put(events)

    def _draw(self, events: list[ev.Noted]) -> str | None:
        """Draw the top tile, noting the end of the game when it was the last of its kind."""
        try:
            name = self._setup.stack[self._drawn]
        except IndexError:  # no tile left (seldom: a test of the stack's length costs more)
            return None
        self._drawn += 1
        if name in SEAS:
            self._seas_left -= 1
            if self._seas_left == 0 and self._ending is None:
                self._ending = Termination.LAST_SEA_TILE
        else:
            self._islands_left -= 1
            if self._islands_left == 0 and self._ending is None:
                self._ending = Termination.LAST_ISLAND
        events.append((ev.TileDrawn, name, self._islands_left, self._seas_left))
        return name

    def _draw_to_put(self, events: list[ev.Noted]) -> None:
        """Draw a tile for the player to place (new colonisation, §8.1); none left ends the turn."""
        name = self._draw(events)
        if name is None:
            self._tile = None
            self._end_turn(events)
            return
        self._tile = name
        self._phase = PUT_TILE

    def _put(self, choice: PutTile, events: list[ev.Noted]) -> None:
        board = self._board
        place = (
            CENTRE_HEX
            if choice.anchor is None
            else board.where[choice.anchor] + HEX_STEPS[choice.direction]
        )
        name = self._tile
        assert name is not None
        self._place_tile(name, place, choice.red)
        events.append((ev.tile_placed, name, place, choice.red))
        self._tile = None
        if name in SEAS:
            self._draw_to_put(events)
        elif self._colonising:
            self._colonising = False
            self._target = place
            self._phase = COLONY_BOAT
        else:
            self._end_turn(events)

    def _emigrate(self, choice: Emigrate, events: list[ev.Noted]) -> None:
        """The group on a full beach sails by a jetty, across the sea tiles on the table, until
        it fails on a trail, arrives at an island (back home from a royal one), or comes to an
        empty place, where the tile drawn is put (with its red edge facing the group) and the
        voyage goes on, unless no tile is left. (The voyage in one function: it runs at every
        emigration, and each call costs as much as a tenth of the voyage.)"""
        board = self._board
        home = board.where[choice.island]
        isle = self._isles[home]
        group = tuple(isle.clear(choice.beach, self._homes))
        if not isle.full:  # its last full beach emptied (`_note_full`, written out)
            del self._full[home]
        boats = self._named.get(group) or self._landings_known.name(group)  # `colours_of`
        direction = choice.jetty
        events.append((ev.GroupSailed, choice.island, choice.beach, direction, boats))
        seas, tiles = board.seas, board.tiles
        colours = len(group) - group.count(0)
        target = home + HEX_STEPS[direction]
        while True:  # as Board.follow, noting each sea tile as it is passed
            passes = seas.get(target)
            if passes is not None:  # along the trail from the edge the group comes in by
                out, step, danger, tile = passes[direction]
                if colours < danger:
                    events.append((ev.VoyageFailed, tile, danger, boats))
                    self._return_to_reserves(group)
                    self._emigrations_or_end(events)
                    return
                events.append((ev.VoyagePassed, tile, danger, colours))
                direction = out
                target += step
                continue
            if target in tiles:  # an island: the group arrives and lands next
                if target in board.royal:
                    events.append((ev.TurnedBack, tiles[target][0], tiles[home][0]))
                    target = home
                events.append((ev.GroupArrived, tiles[target][0], boats))
                self._group, self._target, self._phase = group, target, LAND
                return
            name = self._draw(events)  # an empty place: the tile drawn is put there
            if name is not None:
                rotation = _FACING[direction]  # its red edge faces the group
                self._place_tile(name, target, rotation)
                events.append((ev.tile_placed, name, target, rotation))
            if name is None or (name in SEAS and self._seas_left == 0):
                events.append((ev.StayedAtSea, boats))
                for seat, n in enumerate(group):
                    self._out_of_play[seat] += n
                self._emigrations_or_end(events)
                return

    def _land(self, choice: Land, events: list[ev.Noted]) -> None:
        assert self._target is not None
        isle = self._isles[self._target]
        known = self._landings_known
        moves = known.moved.get(choice.placement) or known.moves(choice.placement)
        if isle.land(moves, self._homes):  # a beach filled: the island has a full one
            self._full[isle.position] = isle  # (`_note_full`, written out)
        if choice.out:  # the boats that stay out go back (seldom any: one landing in a hundred)
            reserve, seat_of = self._reserve, known.seat_of
            for colour in choice.out:
                reserve[seat_of[colour]] += 1
        events.append((ev.GroupLanded, isle.name, choice.placement, choice.out))
        self._group = None
        self._target = None
        self._emigrations_or_end(events)

    def _return_to_reserves(self, counts: Sequence[int]) -> None:
        self._reserve = list(map(add, self._reserve, counts))

    def _emigrations_or_end(self, events: list[ev.Noted]) -> None:
        """After boats were placed: either ask which full beach emigrates next, or finish the
        turn (with the §8.1 redraw if due). An island whose full beaches have only closed
        routes is removed when its emigration comes (RULES §8.1): by the player's choice
        while other full beaches wait, by itself when only such islands are left."""
        while self._full:
            options, closed = self._emigration_options()
            if options:
                self._phase = EMIGRATE
                if closed:
                    options += [EmigrateClosed(self._board.name(pos)) for pos in closed]
                self._legal = options
                return
            if not closed:
                break
            for pos in closed:
                self._remove_closed(pos, events)
        if self._redraw_due:
            self._redraw_due = False
            self._colonising = False
            self._draw_to_put(events)
            return
        self._end_turn(events)

    def _remove_closed(self, pos: Hex, events: list[ev.Noted]) -> None:
        """Remove an island whose routes all lead back; the redraw is due if that leaves no
        island, or no boat of the active player (royal boats count), on the board."""
        self._remove_island(pos, events)
        if not self._board.boats or self.boats_on_board(self._active) == 0:
            self._redraw_due = True

    def _remove_island(self, pos: Hex, events: list[ev.Noted]) -> None:
        name = self._board.name(pos)
        beaches = self._board.remove(pos)
        self._full.pop(pos, None)
        self._isles.pop(pos).leave(self._homes)
        self._manned.pop(pos, None)
        self._reroute(pos)
        self._places = None
        totals = [sum(beach[seat] for beach in beaches) for seat in range(len(self._colours))]
        self._return_to_reserves(totals)
        self._set_aside.append(name)
        events.append((ev.IslandRemoved, name, self.colours_of(totals)))

    def _end_turn(self, events: list[ev.Noted]) -> None:
        if self._ending is not None:
            self._phase = OVER
            # the winners are scored when the event is read: the board changes no more
            events.append((ev.game_ended, self._board, self._colours, self._ending))
            return
        colours = self._colours
        seat = self._active + 1  # the next seat, as _start_turn (no modulo: a general path)
        if seat == len(colours):
            seat = 0
        self._active = seat
        turn = self._turn = self._turn + 1
        self._phase = TURN
        events.append((ev.TurnStarted, colours[seat], turn))

    def _start_turn(self, seat: int, events: list[ev.Noted]) -> None:
        self._active = seat
        self._turn += 1
        self._phase = TURN
        events.append((ev.TurnStarted, self._colours[seat], self._turn))

    # -- saving and replaying -----------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        board = self._board
        return {
            "setup": self._setup.to_json(),
            "tiles": [[*position_at(place), *placed] for place, placed in board.tiles.items()],
            "boats": [[*position_at(place), beaches] for place, beaches in board.boats.items()],
            "royal": [[*position_at(place), seat] for place, seat in board.royal.items()],
            "reserve": list(self._reserve),
            "out_of_play": list(self._out_of_play),
            "drawn": self._drawn,
            "set_aside": list(self._set_aside),
            "phase": self._phase.value,
            "active": self._active,
            "setup_placed": self._setup_placed,
            "turn": self._turn,
            "group": None if self._group is None else list(self._group),
            "target": None if self._target is None else list(position_at(self._target)),
            "tile": self._tile,
            "colonising": self._colonising,
            "redraw_due": self._redraw_due,
            "ending": None if self._ending is None else self._ending.value,
            "log": [str(choice) for choice in self._log],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> State:
        setup = Setup.from_json(data["setup"])
        state = cls.__new__(cls)
        state._setup = setup
        state._colours = setup.colours
        state._order = _colour_order(setup.colours)
        state._landings_known = _landings_of(state._order)
        state._named = state._landings_known.named
        state._rows(setup.colours)
        board = state._board = Board()
        for q, r, name, rot in data["tiles"]:
            board.tiles[hex_of((q, r))] = (name, rot)
            board.where[name] = hex_of((q, r))
            if name in SEAS:
                board.seas[hex_of((q, r))] = PASSES[name, rot]
        for q, r, beaches in data["boats"]:
            board.boats[hex_of((q, r))] = [list(beach) for beach in beaches]
        for q, r, seat in data["royal"]:
            board.royal[hex_of((q, r))] = seat
        state._count_boats()
        state._places = None
        state._reserve = list(data["reserve"])
        state._out_of_play = list(data["out_of_play"])
        state._drawn = data["drawn"]
        left = setup.stack[state._drawn :]
        state._islands_left = sum(1 for t in left if t in ISLANDS)
        state._seas_left = len(left) - state._islands_left
        state._set_aside = list(data["set_aside"])
        state._phase = Phase(data["phase"])
        state._active = data["active"]
        state._setup_placed = data["setup_placed"]
        state._turn = data["turn"]
        state._group = None if data["group"] is None else tuple(data["group"])
        target = data["target"]
        state._target = None if target is None else hex_of((target[0], target[1]))
        state._tile = data["tile"]
        state._colonising = data["colonising"]
        state._redraw_due = data["redraw_due"]
        state._ending = None if data["ending"] is None else Termination(data["ending"])
        state._log = [parse_choice(text) for text in data["log"]]
        state._legal = None
        state.decision = state._decide()  # type: ignore[misc]
        return state

    @classmethod
    def replay(cls, setup: Setup, choices: Sequence[Choice]) -> State:
        """The state reached from `setup` by making `choices` in order."""
        state = cls(setup)
        for choice in choices:
            state.apply(choice)
        return state

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]


_LISTINGS: dict[Phase, Callable[[State], Sequence[Choice]]] = {
    Phase.SETUP: State._setup_places,
    Phase.TURN: State._turn_choices,
    Phase.EMIGRATE: State._emigrations,
    Phase.LAND: State._landings,
    Phase.PUT_TILE: State._puts,
    Phase.COLONY_BOAT: State._colony_boats,
    Phase.OVER: State._nothing,
}

_STEPS: dict[type, Callable[[State, Any, list[ev.Noted]], None]] = {
    Place: State._place,
    Expand: State._expand,
    FoundRoyal: State._found_royal,
    Colonise: State._colonise,
    Pass: State._pass,
    Emigrate: State._emigrate,
    EmigrateClosed: State._emigrate_closed,
    Land: State._land,
    PutTile: State._put,
}
