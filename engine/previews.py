"""Where an option leads, as far as the board shows it (issue 14): never draws, never looks
at the order of the stack, and leaves the state as it was.

`preview(state, choice)` follows the engine's own steps (State._emigrate, _land,
_emigrations_or_end) on a copy of the board, including the choices that would then be made
by themselves (a single landing, a single emigration), and stops where a tile would be
drawn or where the player must choose again.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from engine.board import EMPTY, FAIL, ROYAL, Board
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
    PutTile,
)
from engine.hexgrid import CENTRE_HEX, DIRECTIONS, HEX_STEPS, Hex, Position, position_at
from engine.phase import Phase
from engine.state import State, _land_choices, _landings_of
from engine.tiles import BEACH_LETTERS, ISLANDS, SEAS

Boats = tuple[tuple[str, int], ...]  # (colour, number of boats), in the fixed colour order

MAX_FORCED = 24  # forced emigrations followed in one preview (a guard; games need far fewer)


def boats_text(boats: Boats) -> str:
    """'2 yellow, 1 orange' ('no boats' for none)."""
    return ", ".join(f"{n} {colour}" for colour, n in boats) or "no boats"


def _where(island: str, beach: int) -> str:
    return f"{island} {BEACH_LETTERS[beach]}"


class End(StrEnum):
    """How a voyage ends as far as the board shows."""

    LOST = "lost"  # fails a trail: the boats go back to the reserves
    ARRIVES = "arrives"  # reaches a (non-royal) island and lands there
    TURNED_BACK = "turned back"  # reaches a royal island and lands back home (RULES §9)
    OPEN_WATER = "open water"  # reaches an empty place: a tile is drawn, the preview stops
    NO_TILE_LEFT = "no tile left"  # an empty place with the stack empty: out of play (§12)


class Draw(StrEnum):
    """What the public counts of the stack tell of the tile drawn at open water."""

    UNKNOWN = "unknown"  # an island or a sea tile
    ISLAND = "island"  # no sea tile left: the group lands on a new island
    SEA = "sea"  # no island left: the group sails onto a new sea tile
    LAST_SEA = "last sea"  # only the last sea tile left: the group stays at sea (§12)
    # the draws that can end the game (§12), told before the game's last turn began:
    MAYBE_LAST_SEA = "maybe last sea"  # 1 sea tile and islands left: a sea tile ends it
    MAYBE_LAST_ISLAND = "maybe last island"  # 1 island and sea tiles left: an island ends it
    LAST_EITHER = "last either"  # 1 island and 1 sea tile left: either ends the game


class Next(StrEnum):
    """What follows a placed tile (new colonisation, or the §8.1 redraw)."""

    DRAW_AGAIN = "draw again"
    PLACE_BOAT = "place boat"
    TURN_ENDS = "turn ends"
    GAME_ENDS = "game ends"


@dataclass(frozen=True)
class Crossing:
    """One trail of a voyage: the group needs `danger` colours and has `colours`."""

    tile: str
    danger: int
    colours: int

    @property
    def passes(self) -> bool:
        return self.colours >= self.danger

    def __str__(self) -> str:
        verdict = "passes" if self.passes else "fails"
        return f"{self.tile} (danger {self.danger}, {self.colours} colours: {verdict})"


@dataclass(frozen=True)
class FullBeach:
    """A full beach that must emigrate; `open` and `closed` are jetty directions (§8.1)."""

    island: str
    beach: int
    open: tuple[int, ...]
    closed: tuple[int, ...]
    new: bool  # full only since the step just before

    def __str__(self) -> str:
        text = _where(self.island, self.beach)
        if not self.open:
            text += " (every route leads back)"
        return text


@dataclass(frozen=True)
class Removal:
    """An island removed because every route from its full beaches leads back (§8.1)."""

    island: str
    boats: Boats  # back to the reserves

    def __str__(self) -> str:
        return f"{self.island} leaves the game ({boats_text(self.boats)} back to the reserves)"


@dataclass(frozen=True)
class Aftermath:
    """What must follow once boats were placed or a group was lost (`_emigrations_or_end`).

    `removed`: islands removed by themselves (only closed routes left anywhere);
    `full`: every full beach that must emigrate next; `forced`: that emigration when it is
    the only option (the engine makes it by itself); `redraw`: tiles will be drawn until an
    island appears once no beach is full (§8.1)."""

    full: tuple[FullBeach, ...] = ()
    removed: tuple[Removal, ...] = ()
    redraw: bool = False
    forced: Emigration | None = None

    def emigrations(self) -> tuple[Emigrate | EmigrateClosed, ...]:
        """The emigration options the player is offered next, in the engine's order."""
        opened: list[Emigrate | EmigrateClosed] = []
        islands: dict[str, bool] = {}
        for beach in self.full:
            islands[beach.island] = islands.get(beach.island, False) or bool(beach.open)
            opened += [Emigrate(beach.island, beach.beach, d) for d in beach.open]
        return (*opened, *(EmigrateClosed(name) for name, ok in islands.items() if not ok))

    def __str__(self) -> str:
        parts = [str(r) for r in self.removed]
        if self.forced is not None:
            parts.append(f"then by itself: {self.forced}")
        elif self.full:
            parts.append("must emigrate: " + ", ".join(str(b) for b in self.full))
        elif self.redraw:
            parts.append("tiles are drawn until an island appears")
        return "; ".join(parts) or "no beach is full"


@dataclass(frozen=True)
class Arrival:
    """A group reaching an island: its free berths per beach, how many boats stay out, and
    the landing with what follows when it is the only one."""

    island: str
    boats: Boats
    free: tuple[int, ...]
    stay_out: int
    options: int  # ways to land
    landing: Land | None = None
    after: Aftermath | None = None

    def __str__(self) -> str:
        text = f"lands on {self.island}"
        if self.stay_out:
            text += f" ({self.stay_out} stay out)"
        if self.landing is not None and self.after is not None:
            text += f": {self.landing}; {self.after}"
        return text


@dataclass(frozen=True)
class OpenWater:
    """The empty place a group reaches: beside `beside`, in direction `direction`."""

    place: Position
    beside: str
    direction: int
    draw: Draw
    islands_left: int = 0  # what the stack holds before the draw
    seas_left: int = 0

    def __str__(self) -> str:
        text = f"open water {DIRECTIONS[self.direction]} of {self.beside}: a tile is drawn"
        if self.draw is Draw.ISLAND:
            text += " (an island)"
        elif self.draw is Draw.SEA:
            text += " (a sea tile)"
        elif self.draw is Draw.LAST_SEA:
            text += " (the last sea tile: the group stays at sea)"
        elif self.draw is Draw.MAYBE_LAST_SEA:
            text += " (if it is the last sea tile, the group stays at sea; the game ends)"
        elif self.draw is Draw.MAYBE_LAST_ISLAND:
            text += " (if it is the last island, the game ends)"
        elif self.draw is Draw.LAST_EITHER:
            text += " (the last island or the last sea tile: the game ends)"
        return text


@dataclass(frozen=True)
class Emigration:
    """A full beach's group sailing from a jetty, as far as the board shows."""

    island: str
    beach: int
    jetty: int
    boats: Boats
    crossings: tuple[Crossing, ...]
    end: End
    royal: str | None = None  # TURNED_BACK: the royal island
    arrival: Arrival | None = None  # ARRIVES, TURNED_BACK
    open_water: OpenWater | None = None  # OPEN_WATER, NO_TILE_LEFT
    after: Aftermath | None = None  # LOST, NO_TILE_LEFT: the emigrations still waiting

    @property
    def colours(self) -> int:
        return len(self.boats)

    @property
    def lost_on(self) -> Crossing | None:
        return self.crossings[-1] if self.end is End.LOST else None

    def __str__(self) -> str:
        text = f"{boats_text(self.boats)} sail {DIRECTIONS[self.jetty]}"
        if self.crossings:
            text += " across " + ", ".join(str(c) for c in self.crossings)
        if self.end is End.LOST:
            text += ": lost at sea"
        elif self.arrival is not None:
            if self.royal is not None:
                text += f", turned back by the royal island {self.royal}"
            text += f", {self.arrival}"
        elif self.open_water is not None:
            text += f", {self.open_water}"
            if self.end is End.NO_TILE_LEFT:
                text += " - none is left: out of play"
        if self.after is not None and (self.after.full or self.after.removed):
            text += f"; {self.after}"
        return text


@dataclass(frozen=True)
class ClosedPreview:
    """EmigrateClosed: the island leaves the game and its boats go back to the reserves."""

    removal: Removal
    after: Aftermath

    def __str__(self) -> str:
        return f"{self.removal}; {self.after}"


@dataclass(frozen=True)
class Placement:
    """Expand, Place or Land: boats put on `beaches` of `island`, `returned` to the reserves
    (a landing's boats that stay out), then `after`."""

    island: str
    beaches: tuple[int, ...]
    returned: Boats = ()
    after: Aftermath = field(default_factory=Aftermath)

    def __str__(self) -> str:
        where = ",".join(BEACH_LETTERS[b] for b in self.beaches) or "no beach"
        text = f"boats on {self.island} {where}"
        if self.returned:
            text += f", {boats_text(self.returned)} back to the reserves"
        return f"{text}; {self.after}"


@dataclass(frozen=True)
class Returned:
    """FoundRoyal (`island` set) or Colonise: the boats that go back to the reserve."""

    island: str | None
    boats: Boats
    islands_left: int = 0  # what the stack holds before a colonisation's draws
    seas_left: int = 0

    def __str__(self) -> str:
        if self.island is not None:
            return f"royal island {self.island}: {boats_text(self.boats)} back to the reserve"
        return f"{boats_text(self.boats)} back to the reserve; tiles are drawn until an island"


@dataclass(frozen=True)
class TrailView:
    """A trail of a placed sea tile in board directions, and the tile each end faces (None:
    open water)."""

    ends: tuple[int, int]
    danger: int
    faces: tuple[str | None, str | None]


@dataclass(frozen=True)
class TilePreview:
    """PutTile: where the drawn tile lies, its trails (a sea tile) or jetties per beach (an
    island) in board directions, and what follows."""

    tile: str
    place: Position
    rotation: int
    trails: tuple[TrailView, ...]
    jetties: tuple[tuple[int, ...], ...]
    next: Next

    def __str__(self) -> str:
        if self.trails:
            shown = ", ".join(
                f"{DIRECTIONS[t.ends[0]]}-{DIRECTIONS[t.ends[1]]} ({t.danger})" for t in self.trails
            )
        else:
            shown = "; ".join(
                f"{BEACH_LETTERS[b]}: {' '.join(DIRECTIONS[d] for d in ds)}"
                for b, ds in enumerate(self.jetties)
            )
        return f"{self.tile} at {self.place}: {shown}; {self.next}"


@dataclass(frozen=True)
class Nothing:
    """Pass: nothing happens but the turn ends."""

    def __str__(self) -> str:
        return "nothing happens"


Preview = Emigration | ClosedPreview | Placement | Returned | TilePreview | Nothing


@dataclass
class _World:
    """A scratch copy of what the engine's steps change, and what they read; never the stack."""

    board: Board
    colours: tuple[str, ...]
    order: tuple[tuple[int, str], ...]
    seat: int
    redraw: bool
    islands_left: int
    seas_left: int
    forced: int = 0

    @classmethod
    def of(cls, state: State) -> _World:
        return cls(
            board=state._board.copy(),
            colours=state.colours,
            order=state._order,
            seat=state.active,
            redraw=state._redraw_due,
            islands_left=state.islands_left,
            seas_left=state.seas_left,
        )

    def boats(self, counts: list[int] | tuple[int, ...]) -> Boats:
        return tuple((colour, counts[seat]) for seat, colour in self.order if counts[seat])

    def full(self) -> set[tuple[Hex, int]]:
        return set(self.board.full_beaches())


def preview(state: State, choice: Choice) -> Preview:
    """Where `choice` (one of `state.legal_choices()`) leads; pure."""
    if isinstance(choice, Emigrate):
        return _emigration(_World.of(state), choice)
    if isinstance(choice, EmigrateClosed):
        world = _World.of(state)
        removal = _remove(world, world.board.where[choice.island])
        return ClosedPreview(removal, _aftermath(world, world.full()))
    if isinstance(choice, Expand):
        return _expand(state, choice)
    if isinstance(choice, Place):
        return _place(state, choice)
    if isinstance(choice, Land):
        return _land(state, choice)
    if isinstance(choice, FoundRoyal):
        board = state._board
        mine = board.seat_boats(board.where[choice.island], state.active)
        return Returned(choice.island, _own(state, mine - 1))
    if isinstance(choice, Colonise):
        mine = sum(state._board.seat_boats(pos, state.active) for pos in state._board.boats)
        return Returned(None, _own(state, mine), state.islands_left, state.seas_left)
    if isinstance(choice, PutTile):
        return _put(state, choice)
    assert isinstance(choice, Pass)
    return Nothing()


def _own(state: State, count: int) -> Boats:
    return ((state.colours[state.active], count),) if count else ()


def _expand(state: State, choice: Expand) -> Placement:
    world = _World.of(state)
    board, seat = world.board, world.seat
    before = world.full()
    pos = board.where[choice.island]
    if choice.borrow is not None:
        source, source_beach = choice.borrow
        board.boats[board.where[source]][source_beach][seat] -= 1
    for b in choice.beaches:
        board.boats[pos][b][seat] += 1
    return Placement(choice.island, choice.beaches, (), _aftermath(world, before))


def _place(state: State, choice: Place) -> Placement:
    island = choice.island
    if island is None:
        assert state._target is not None
        island = state._board.name(state._target)
    if state.phase is not Phase.TURN:  # set-up and the colony boat never fill a beach
        return Placement(island, choice.beaches)
    world = _World.of(state)
    before = world.full()
    pos = world.board.where[island]
    for b in choice.beaches:
        world.board.boats[pos][b][world.seat] += 1
    return Placement(island, choice.beaches, (), _aftermath(world, before))


def _land(state: State, choice: Land) -> Placement:
    assert state._group is not None and state._target is not None
    world = _World.of(state)
    before = world.full()
    placed = _put_boats(world, state._target, choice)
    out = [g - p for g, p in zip(state._group, placed, strict=True)]
    beaches = tuple(b for b, _ in choice.placement)
    name = world.board.name(state._target)
    return Placement(name, beaches, world.boats(out), _aftermath(world, before))


def _put_boats(world: _World, pos: Hex, choice: Land) -> list[int]:
    placed = [0] * len(world.colours)
    beaches = world.board.boats[pos]
    for b, colours in choice.placement:
        for colour in colours:
            seat = world.colours.index(colour)
            beaches[b][seat] += 1
            placed[seat] += 1
    return placed


def _remove(world: _World, pos: Hex) -> Removal:
    """State._remove_closed on the scratch board."""
    board = world.board
    name = board.name(pos)
    beaches = board.remove(pos)
    totals = [sum(beach[seat] for beach in beaches) for seat in range(len(world.colours))]
    mine = sum(board.seat_boats(p, world.seat) for p in board.boats)
    mine += sum(1 for owner in board.royal.values() if owner == world.seat)
    if not board.boats or mine == 0:
        world.redraw = True
    return Removal(name, world.boats(totals))


def _options(
    world: _World, before: set[tuple[Hex, int]]
) -> tuple[list[FullBeach], list[Emigrate], list[Hex]]:
    """State._emigration_options on the scratch board, with the full beaches described."""
    board = world.board
    full: list[FullBeach] = []
    by_island: dict[Hex, list[tuple[int, int]]] = {}
    for pos, beach in board.full_beaches():
        colours = sum(1 for n in board.boats[pos][beach] if n)
        open_jetties: list[int] = []
        closed: list[int] = []
        for direction in board.jetties(pos, beach):
            is_closed = board.is_closed(pos, direction, colours)
            (closed if is_closed else open_jetties).append(direction)
        options = by_island.setdefault(pos, [])
        options += [(beach, d) for d in open_jetties]
        name = board.name(pos)
        new = (pos, beach) not in before
        full.append(FullBeach(name, beach, tuple(open_jetties), tuple(closed), new))
    emigrations: list[Emigrate] = []
    doomed: list[Hex] = []
    for pos, options in by_island.items():
        if not options:
            doomed.append(pos)
        emigrations += [Emigrate(board.name(pos), b, d) for b, d in options]
    return full, emigrations, doomed


def _aftermath(world: _World, before: set[tuple[Hex, int]]) -> Aftermath:
    """State._emigrations_or_end, followed through a forced emigration."""
    removed: list[Removal] = []
    while True:
        full, options, doomed = _options(world, before)
        if options or not doomed:
            break
        removed += [_remove(world, pos) for pos in doomed]
    forced = None
    if len(options) == 1 and not doomed and world.forced < MAX_FORCED:
        world.forced += 1
        forced = _emigration(world, options[0])
    return Aftermath(tuple(full), tuple(removed), world.redraw, forced)


def _emigration(world: _World, choice: Emigrate) -> Emigration:
    """State._emigrate on the scratch board, up to the first draw."""
    board = world.board
    home = board.where[choice.island]
    group = board.boats[home][choice.beach]
    board.boats[home][choice.beach] = [0] * len(world.colours)
    before = world.full()
    colours = sum(1 for n in group if n)
    route = board.trace(home + HEX_STEPS[choice.jetty], choice.jetty, colours)
    crossings = tuple(Crossing(tile, danger, colours) for tile, danger in route.crossed)
    boats = world.boats(group)

    sailed = Emigration(choice.island, choice.beach, choice.jetty, boats, crossings, End.LOST)
    if route.end is FAIL:
        return replace(sailed, after=_aftermath(world, before))
    if route.end is EMPTY:
        beside = crossings[-1].tile if crossings else choice.island
        if world.islands_left + world.seas_left == 0:
            water = OpenWater(position_at(route.position), beside, route.direction, Draw.UNKNOWN)
            after = _aftermath(world, before)
            return replace(sailed, end=End.NO_TILE_LEFT, open_water=water, after=after)
        water = OpenWater(
            position_at(route.position),
            beside,
            route.direction,
            _outlook(world),
            world.islands_left,
            world.seas_left,
        )
        return replace(sailed, end=End.OPEN_WATER, open_water=water)
    if route.end is ROYAL:
        royal = board.name(route.position)
        arrival = _arrival(world, home, group)
        return replace(sailed, end=End.TURNED_BACK, royal=royal, arrival=arrival)
    return replace(sailed, end=End.ARRIVES, arrival=_arrival(world, route.position, group))


def _outlook(world: _World) -> Draw:
    if world.seas_left == 0:
        return Draw.ISLAND
    if world.islands_left == 0:
        return Draw.LAST_SEA if world.seas_left == 1 else Draw.SEA
    # both kinds left, so the game's last turn has not begun: a last tile of a kind ends it
    if world.seas_left == 1 and world.islands_left == 1:
        return Draw.LAST_EITHER
    if world.seas_left == 1:
        return Draw.MAYBE_LAST_SEA
    if world.islands_left == 1:
        return Draw.MAYBE_LAST_ISLAND
    return Draw.UNKNOWN


def _arrival(world: _World, pos: Hex, group: list[int]) -> Arrival:
    """State._emigrate's arrival, and the landing with what follows when it is the only one."""
    board = world.board
    name = board.name(pos)
    free = tuple(board.free_berths(pos))
    landings = _land_choices(name, tuple(group), free, _landings_of(world.order))
    stay_out = max(0, sum(group) - sum(free))
    boats = world.boats(group)
    if len(landings) != 1:
        return Arrival(name, boats, free, stay_out, len(landings))
    landing = landings[0]
    before = world.full()
    _put_boats(world, pos, landing)
    return Arrival(name, boats, free, stay_out, 1, landing, _aftermath(world, before))


def _put(state: State, choice: PutTile) -> TilePreview:
    board, tile = state._board, state.tile
    assert tile is not None
    if choice.anchor is None:
        place = CENTRE_HEX
    else:
        place = board.where[choice.anchor] + HEX_STEPS[choice.direction]
    rotation = choice.red
    trails: tuple[TrailView, ...] = ()
    jetties: tuple[tuple[int, ...], ...] = ()
    turn_ends = Next.GAME_ENDS if state.ending is not None else Next.TURN_ENDS
    sea = SEAS.get(tile)
    if sea is not None:
        trails = tuple(_trail_view(board, place, rotation, t.edges, t.danger) for t in sea.trails)
        more = state.islands_left + state.seas_left > 0
        then = Next.DRAW_AGAIN if more else turn_ends
    else:
        beaches = ISLANDS[tile].beaches
        jetties = tuple(tuple((e + rotation) % 6 for e in b.jetties) for b in beaches)
        then = Next.PLACE_BOAT if state._colonising else turn_ends
    return TilePreview(tile, position_at(place), rotation, trails, jetties, then)


def _trail_view(
    board: Board, place: Hex, rotation: int, edges: tuple[int, int], danger: int
) -> TrailView:
    a, b = ((e + rotation) % 6 for e in edges)

    def faces(direction: int) -> str | None:
        found = board.tiles.get(place + HEX_STEPS[direction])
        return None if found is None else found[0]

    return TrailView((a, b), danger, (faces(a), faces(b)))
