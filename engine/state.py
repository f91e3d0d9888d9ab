"""The game state: whose decision it is, its legal choices, and applying one (RULES.md §2-§13)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any

from engine import events as ev
from engine.board import BERTHS, Board
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
from engine.colours import BOATS_PER_PLAYER, COLOURS
from engine.errors import GameOverError, IllegalChoiceError
from engine.explain import explain_illegal
from engine.hexgrid import CENTRE, Position, neighbour
from engine.landing import landings
from engine.outcome import Outcome, Termination, score
from engine.phase import Phase
from engine.setup import Setup
from engine.tiles import ISLANDS, SEAS, START_ISLAND

MAX_ROYAL_ISLANDS = 2
COLONISE = Colonise()


@dataclass(frozen=True)
class Decision:
    """Who must decide what now; `island`, `boats` and `tile` say more where they apply."""

    number: int
    seat: int
    colour: str
    kind: Phase
    island: str | None = None  # LAND: where the group arrives; COLONY_BOAT: the new island
    boats: tuple[str, ...] = ()  # LAND: the arriving group
    tile: str | None = None  # PUT_TILE: the tile drawn


@lru_cache(maxsize=4096)
def _land_choices(
    name: str, group: tuple[int, ...], free: tuple[int, ...], order: tuple[tuple[int, str], ...]
) -> tuple[Land, ...]:
    memo: dict[tuple[int, ...], tuple[str, ...]] = {}

    def colours(counts: tuple[int, ...]) -> tuple[str, ...]:
        found = memo.get(counts)
        if found is None:
            found = memo[counts] = tuple(c for seat, c in order for _ in range(counts[seat]))
        return found

    return tuple(
        Land(name, tuple((b, colours(counts)) for b, counts in placement), colours(out))
        for placement, out in landings(group, free)
    )


@lru_cache(maxsize=1024)
def _put_choices(anchor: str | None, direction: int) -> tuple[PutTile, ...]:
    return tuple(PutTile(anchor, direction, red) for red in range(6))


@lru_cache(maxsize=1024)
def _expand_choices(name: str, open_beaches: tuple[int, ...], count: int) -> tuple[Expand, ...]:
    return tuple(Expand(name, combo) for combo in combinations(open_beaches, count))


def _colour_order(colours: tuple[str, ...]) -> tuple[tuple[int, str], ...]:
    """(seat, colour) pairs in the fixed colour order."""
    return tuple(sorted(enumerate(colours), key=lambda pair: COLOURS.index(pair[1])))


class State:
    """A game in progress. `apply` changes it in place; `copy` is cheap."""

    def __init__(self, setup: Setup) -> None:
        n = len(setup.colours)
        self.setup = setup
        self.colours = setup.colours
        self._order = _colour_order(setup.colours)
        self.board = Board()
        self.board.place(START_ISLAND, CENTRE, 0, n)
        self.reserve = [BOATS_PER_PLAYER] * n
        self.out_of_play = [0] * n
        self.drawn = 0
        self.islands_left = sum(1 for t in setup.stack if t in ISLANDS)
        self.seas_left = len(setup.stack) - self.islands_left
        self.set_aside: list[str] = []
        self.phase = Phase.SETUP
        self.active = 0
        self.setup_placed = 0
        self.turn = 0
        self.group: list[int] | None = None
        self.target: Position | None = None
        self.tile: str | None = None
        self.colonising = False
        self.redraw_due = False
        self.ending: Termination | None = None
        self.log: list[Choice] = []
        self._legal: list[Choice] | None = None
        self._settle([])

    # -- reading the state -------------------------------------------------------------

    def colours_of(self, counts: list[int] | tuple[int, ...]) -> tuple[str, ...]:
        """Boats per seat as colour names, in the fixed colour order."""
        return tuple(colour for seat, colour in self._order for _ in range(counts[seat]))

    @property
    def seats(self) -> int:
        return len(self.colours)

    @property
    def decision(self) -> Decision | None:
        if self.phase is Phase.OVER:
            return None
        island = boats = tile = None
        if self.phase in (Phase.LAND, Phase.COLONY_BOAT):
            assert self.target is not None
            island = self.board.name(self.target)
        if self.phase is Phase.LAND:
            assert self.group is not None
            boats = self.colours_of(self.group)
        if self.phase is Phase.PUT_TILE:
            tile = self.tile
        return Decision(
            number=len(self.log) + 1,
            seat=self.active,
            colour=self.colours[self.active],
            kind=self.phase,
            island=island,
            boats=boats or (),
            tile=tile,
        )

    @property
    def outcome(self) -> Outcome | None:
        if self.phase is not Phase.OVER:
            return None
        return score(self.board, self.colours, self.ending)

    def standings(self) -> Outcome:
        """The score as it stands now (the final one once the game is over)."""
        return score(self.board, self.colours, self.ending)

    def boats_on_board(self, seat: int) -> int:
        """Boats on beaches, royal boats, and boats of a group waiting to land."""
        on_beaches = sum(self.board.seat_boats(pos, seat) for pos in self.board.boats)
        in_transit = self.group[seat] if self.group is not None else 0
        royal = sum(1 for owner in self.board.royal.values() if owner == seat)
        return on_beaches + in_transit + royal

    def royal_islands(self, seat: int) -> int:
        return sum(1 for owner in self.board.royal.values() if owner == seat)

    @property
    def stack_left(self) -> tuple[str, ...]:
        return self.setup.stack[self.drawn :]

    def copy(self) -> State:
        other = State.__new__(State)
        other.__dict__.update(self.__dict__)
        other.board = self.board.copy()
        other.reserve = list(self.reserve)
        other.out_of_play = list(self.out_of_play)
        other.set_aside = list(self.set_aside)
        other.group = None if self.group is None else list(self.group)
        other.log = list(self.log)
        return other

    # -- legal choices -----------------------------------------------------------------

    def legal_choices(self) -> list[Choice]:
        """Every choice the rules allow at the current decision, in a fixed order."""
        if self._legal is None:
            self._legal = self._list_choices()
        return self._legal

    def _list_choices(self) -> list[Choice]:
        phase = self.phase
        if phase is Phase.SETUP:
            tonga = self.board.where[START_ISLAND]
            return [
                Place(START_ISLAND, (b,))
                for b, free in enumerate(self.board.free_berths(tonga))
                if free >= 2
            ]
        if phase is Phase.TURN:
            return self._turn_choices()
        if phase is Phase.EMIGRATE:
            return self._emigrations()
        if phase is Phase.LAND:
            return self._landings()
        if phase is Phase.PUT_TILE:
            return self._puts()
        if phase is Phase.COLONY_BOAT:
            assert self.target is not None
            name = self.board.name(self.target)
            return [Place(name, (b,)) for b in range(len(ISLANDS[name].beaches))]
        return []

    def relist(self) -> None:
        """Forget the listed legal choices, so that the next `legal_choices` works them out
        again: after a test arranged a state by hand, or to time the listing."""
        self._legal = None

    def home_islands(self, seat: int) -> list[Position]:
        """Non-royal islands where `seat` has boats on beaches."""
        return [pos for pos, beaches in self.board.boats.items() if any(b[seat] for b in beaches)]

    def _turn_choices(self) -> list[Choice]:
        seat, board = self.active, self.board
        reserve = self.reserve[seat]
        may_found = self.royal_islands(seat) < MAX_ROYAL_ISLANDS
        choices: list[Choice] = []
        royal: list[Choice] = []
        homes: list[Position] = []
        for pos, beaches in board.boats.items():
            mine = 0
            for boats in beaches:
                mine += boats[seat]
            if not mine:
                continue
            homes.append(pos)
            name = board.tiles[pos][0]
            totals = [sum(boats) for boats in beaches]
            everyone = sum(totals)
            if reserve:
                berths = BERTHS[name]
                open_beaches = tuple(i for i, n in enumerate(totals) if n < berths[i])
                count = min(mine, len(berths), reserve)
                choices += _expand_choices(name, open_beaches, count)
            if may_found and everyone == mine and name != START_ISLAND:
                royal.append(FoundRoyal(name))
        if not homes:
            choices += self._no_boat_placements()
        elif not reserve:
            choices += self._borrowing_expansions(homes)
        choices += royal
        choices.append(COLONISE)
        return choices

    def _borrowing_expansions(self, homes: list[Position]) -> list[Choice]:
        """§11: with an empty reserve, the expansion moves one boat from another island."""
        seat, board = self.active, self.board
        choices: list[Choice] = []
        for pos in homes:
            name = board.name(pos)
            sources = [
                (board.name(other), b)
                for other in homes
                if other != pos
                for b, boats in enumerate(board.boats[other])
                if boats[seat]
            ]
            open_beaches = [b for b, free in enumerate(board.free_berths(pos)) if free > 0]
            choices += [Expand(name, (b,), source) for b in open_beaches for source in sources]
        return choices

    def _no_boat_placements(self) -> list[Choice]:
        board, reserve = self.board, self.reserve[self.active]
        choices: list[Choice] = []
        if reserve == 0:
            return choices
        for pos in board.boats:
            if pos in board.royal:
                continue
            name = board.name(pos)
            free = board.free_berths(pos)
            if name == START_ISLAND:
                count = min(2, sum(free), reserve)
                if count == 2:
                    for a, b in combinations(range(len(free)), 2):
                        if free[a] and free[b]:
                            choices.append(Place(name, (a, b)))
                    choices += [Place(name, (a, a)) for a, f in enumerate(free) if f >= 2]
                    choices.sort(key=lambda c: c.beaches if isinstance(c, Place) else ())
                elif count == 1:
                    choices += [Place(name, (a,)) for a, f in enumerate(free) if f]
            else:
                choices += [Place(name, (a,)) for a, f in enumerate(free) if f]
        return choices

    def _emigration_options(self) -> tuple[list[Choice], list[Position]]:
        """The emigrations over open routes, and the islands whose every full beach's route
        is closed (RULES §8.1)."""
        board = self.board
        by_island: dict[Position, list[tuple[int, int, bool]]] = {}
        for pos, beach in board.full_beaches():
            colours = sum(1 for n in board.boats[pos][beach] if n)
            options = by_island.setdefault(pos, [])
            for direction in board.jetties(pos, beach):
                options.append((beach, direction, board.is_closed(pos, direction, colours)))
        choices: list[Choice] = []
        doomed: list[Position] = []
        for pos, options in by_island.items():
            open_options = [(b, d) for b, d, closed in options if not closed]
            if not open_options:
                doomed.append(pos)
            name = board.name(pos)
            choices += [Emigrate(name, b, d) for b, d in open_options]
        return choices, doomed

    def _emigrations(self) -> list[Choice]:
        """The legal emigrations: over open routes, and from each island whose routes are
        all closed (which removes it) while others wait (RULES §8.1)."""
        options, closed = self._emigration_options()
        return options + [EmigrateClosed(self.board.name(pos)) for pos in closed]

    def _landings(self) -> list[Choice]:
        assert self.group is not None and self.target is not None
        name = self.board.name(self.target)
        free = tuple(self.board.free_berths(self.target))
        return list(_land_choices(name, tuple(self.group), free, self._order))

    def _puts(self) -> list[Choice]:
        choices: list[Choice] = []
        for anchor, direction in self.board.empty_places().values():
            choices += _put_choices(anchor, direction)
        return choices

    # -- applying a choice -------------------------------------------------------------

    def resolve(self, choice: Choice) -> Choice:
        """The legal choice that `choice` stands for (filling in what the text left out)."""
        if self.phase is Phase.OVER:
            raise GameOverError("The game is over; no more choices can be made.")
        if isinstance(choice, Pass):
            if self.phase is Phase.TURN:
                return choice
            raise IllegalChoiceError("A turn can only be passed at its start.")
        legal = self.legal_choices()
        if any(c is choice for c in legal) or choice in legal:
            return choice
        filled = self._fill_in(choice)
        if filled is not None and filled in legal:
            return filled
        raise IllegalChoiceError(explain_illegal(self, choice))

    def _fill_in(self, choice: Choice) -> Choice | None:
        board = self.board
        if isinstance(choice, PutTile):
            if choice.anchor is None:
                place = CENTRE
            elif choice.anchor in board.where:
                place = neighbour(board.where[choice.anchor], choice.direction)
            else:
                return None
            named = board.empty_places().get(place)
            return None if named is None else PutTile(named[0], named[1], choice.red)
        if isinstance(choice, Land) and self.phase is Phase.LAND and self.target is not None:
            island = board.name(self.target)
            if choice.island not in (None, island):
                return None
            if not choice.out:
                assert self.group is not None
                placed = [c for _, cs in choice.placement for c in cs]
                out = list(self.colours_of(self.group))
                for colour in placed:
                    if colour not in out:
                        return None
                    out.remove(colour)
                return Land(island, choice.placement, tuple(out))
            return Land(island, choice.placement, choice.out)
        if isinstance(choice, Place) and choice.island is None:
            if self.phase is Phase.SETUP:
                return Place(START_ISLAND, choice.beaches)
            if self.phase is Phase.COLONY_BOAT and self.target is not None:
                return Place(board.name(self.target), choice.beaches)
        return None

    def apply(self, choice: Choice) -> list[ev.Event]:
        """Make a choice for the current decision; returns everything that followed, up to
        the next decision that has more than one option (forced ones are made on the way)."""
        choice = self.resolve(choice)
        events: list[ev.Event] = []
        self.log.append(choice)
        self._do(choice, events, forced=False)
        self._settle(events)
        return events

    def _settle(self, events: list[ev.Event]) -> None:
        while self.phase is not Phase.OVER:
            legal = self.legal_choices()
            if len(legal) != 1:
                return
            self._do(legal[0], events, forced=True)

    def _do(self, choice: Choice, events: list[ev.Event], forced: bool) -> None:
        colour = self.colours[self.active]
        events.append(ev.ChoiceMade(colour, str(choice), forced))
        self._legal = None
        if isinstance(choice, Place):
            self._place(choice, events)
        elif isinstance(choice, Expand):
            self._expand(choice, events)
        elif isinstance(choice, FoundRoyal):
            self._found_royal(choice, events)
        elif isinstance(choice, Colonise):
            self._colonise(events)
        elif isinstance(choice, Pass):
            events.append(ev.TurnPassed(colour))
            self._end_turn(events)
        elif isinstance(choice, Emigrate):
            self._emigrate(choice, events)
        elif isinstance(choice, EmigrateClosed):
            self._remove_closed(self.board.where[choice.island], events)
            self._emigrations_or_end(events)
        elif isinstance(choice, Land):
            self._land(choice, events)
        else:
            self._put(choice, events)

    def _add_boats(self, pos: Position, beaches: tuple[int, ...], events: list[ev.Event]) -> None:
        seat = self.active
        for b in beaches:
            self.board.boats[pos][b][seat] += 1
        self.reserve[seat] -= len(beaches)
        events.append(ev.BoatsPlaced(self.colours[seat], self.board.name(pos), beaches))

    def _place(self, choice: Place, events: list[ev.Event]) -> None:
        assert choice.island is not None
        pos = self.board.where[choice.island]
        self._add_boats(pos, choice.beaches, events)
        if self.phase is Phase.SETUP:
            self.setup_placed += 1
            if self.setup_placed < 2 * self.seats:
                self.active = self.setup_placed % self.seats
            else:
                self._start_turn(0, events)
        elif self.phase is Phase.COLONY_BOAT:
            self._end_turn(events)
        else:
            self._emigrations_or_end(events)

    def _expand(self, choice: Expand, events: list[ev.Event]) -> None:
        board, seat = self.board, self.active
        pos = board.where[choice.island]
        if choice.borrow is None:
            self._add_boats(pos, choice.beaches, events)
        else:
            source, source_beach = choice.borrow
            board.boats[board.where[source]][source_beach][seat] -= 1
            board.boats[pos][choice.beaches[0]][seat] += 1
            events.append(
                ev.BoatMoved(
                    self.colours[seat], source, source_beach, choice.island, choice.beaches[0]
                )
            )
        self._emigrations_or_end(events)

    def _found_royal(self, choice: FoundRoyal, events: list[ev.Event]) -> None:
        board, seat = self.board, self.active
        pos = board.where[choice.island]
        returned = board.seat_boats(pos, seat) - 1
        board.boats[pos] = [[0] * self.seats for _ in board.boats[pos]]
        board.royal[pos] = seat
        self.reserve[seat] += returned
        events.append(ev.RoyalIslandFounded(self.colours[seat], choice.island, returned))
        self._end_turn(events)

    def _colonise(self, events: list[ev.Event]) -> None:
        seat = self.active
        recalled = 0
        for beaches in self.board.boats.values():
            for beach in beaches:
                recalled += beach[seat]
                beach[seat] = 0
        self.reserve[seat] += recalled
        events.append(ev.BoatsRecalled(self.colours[seat], recalled))
        self.colonising = True
        self._draw_to_put(events)

    def _draw(self, events: list[ev.Event]) -> str | None:
        """Draw the top tile, noting the end of the game when it was the last of its kind."""
        if self.drawn >= len(self.setup.stack):
            return None
        name = self.setup.stack[self.drawn]
        self.drawn += 1
        if name in SEAS:
            self.seas_left -= 1
            if self.seas_left == 0 and self.ending is None:
                self.ending = Termination.LAST_SEA_TILE
        else:
            self.islands_left -= 1
            if self.islands_left == 0 and self.ending is None:
                self.ending = Termination.LAST_ISLAND
        events.append(ev.TileDrawn(name, self.islands_left, self.seas_left))
        return name

    def _draw_to_put(self, events: list[ev.Event]) -> None:
        """Draw a tile for the player to place (new colonisation, §8.1); none left ends the turn."""
        name = self._draw(events)
        if name is None:
            self.tile = None
            self._end_turn(events)
            return
        self.tile = name
        self.phase = Phase.PUT_TILE

    def _put(self, choice: PutTile, events: list[ev.Event]) -> None:
        board = self.board
        place = (
            CENTRE
            if choice.anchor is None
            else neighbour(board.where[choice.anchor], choice.direction)
        )
        name = self.tile
        assert name is not None
        board.place(name, place, choice.red, self.seats)
        events.append(ev.TilePlaced(name, place, choice.red))
        self.tile = None
        if name in SEAS:
            self._draw_to_put(events)
        elif self.colonising:
            self.colonising = False
            self.target = place
            self.phase = Phase.COLONY_BOAT
        else:
            self._end_turn(events)

    def _emigrate(self, choice: Emigrate, events: list[ev.Event]) -> None:
        board = self.board
        home = board.where[choice.island]
        group = board.boats[home][choice.beach]
        board.boats[home][choice.beach] = [0] * self.seats
        events.append(
            ev.GroupSailed(choice.island, choice.beach, choice.jetty, self.colours_of(group))
        )
        self._voyage(home, choice.jetty, group, events)

    def _voyage(
        self, home: Position, direction: int, group: list[int], events: list[ev.Event]
    ) -> None:
        board = self.board
        colours = sum(1 for n in group if n)
        boats = self.colours_of(group)
        target = neighbour(home, direction)
        while True:
            route = board.trace(target, direction, colours)
            for tile, danger in route.crossed[:-1] if route.end == "fail" else route.crossed:
                events.append(ev.VoyagePassed(tile, danger, colours))
            if route.end == "fail":
                tile, danger = route.crossed[-1]
                events.append(ev.VoyageFailed(tile, danger, boats))
                self._return_to_reserves(group)
                self._emigrations_or_end(events)
                return
            if route.end == "empty":
                name = self._draw(events)
                if name is not None:
                    rotation = (route.direction + 3) % 6
                    board.place(name, route.position, rotation, self.seats)
                    events.append(ev.TilePlaced(name, route.position, rotation))
                if name is None or (name in SEAS and self.seas_left == 0):
                    events.append(ev.StayedAtSea(boats))
                    for seat, n in enumerate(group):
                        self.out_of_play[seat] += n
                    self._emigrations_or_end(events)
                    return
                target, direction = route.position, route.direction
                continue
            if route.end == "royal":
                events.append(ev.TurnedBack(board.name(route.position), board.name(home)))
                self._arrive(home, group, events)
            else:
                self._arrive(route.position, group, events)
            return

    def _arrive(self, pos: Position, group: list[int], events: list[ev.Event]) -> None:
        events.append(ev.GroupArrived(self.board.name(pos), self.colours_of(group)))
        self.group = group
        self.target = pos
        self.phase = Phase.LAND

    def _land(self, choice: Land, events: list[ev.Event]) -> None:
        board = self.board
        assert self.target is not None and self.group is not None
        beaches = board.boats[self.target]
        placed = [0] * self.seats
        for b, colours in choice.placement:
            for colour in colours:
                seat = self.colours.index(colour)
                beaches[b][seat] += 1
                placed[seat] += 1
        out = [g - p for g, p in zip(self.group, placed, strict=True)]
        self._return_to_reserves(out)
        events.append(ev.GroupLanded(board.name(self.target), choice.placement, choice.out))
        self.group = None
        self.target = None
        self._emigrations_or_end(events)

    def _return_to_reserves(self, counts: list[int]) -> None:
        for seat, n in enumerate(counts):
            self.reserve[seat] += n

    def _emigrations_or_end(self, events: list[ev.Event]) -> None:
        """After boats were placed: either ask which full beach emigrates next, or finish the
        turn (with the §8.1 redraw if due). An island whose full beaches have only closed
        routes is removed when its emigration comes (RULES §8.1): by the player's choice
        while other full beaches wait, by itself when only such islands are left."""
        while True:
            options, closed = self._emigration_options()
            if options or not closed:
                break
            for pos in closed:
                self._remove_closed(pos, events)
        if options:
            self.phase = Phase.EMIGRATE
            self._legal = options + [EmigrateClosed(self.board.name(pos)) for pos in closed]
            return
        if self.redraw_due:
            self.redraw_due = False
            self.colonising = False
            self._draw_to_put(events)
            return
        self._end_turn(events)

    def _remove_closed(self, pos: Position, events: list[ev.Event]) -> None:
        """Remove an island whose routes all lead back; the redraw is due if that leaves no
        island, or no boat of the active player (royal boats count), on the board."""
        self._remove_island(pos, events)
        if not self.board.boats or self.boats_on_board(self.active) == 0:
            self.redraw_due = True

    def _remove_island(self, pos: Position, events: list[ev.Event]) -> None:
        name = self.board.name(pos)
        beaches = self.board.remove(pos)
        totals = [sum(beach[seat] for beach in beaches) for seat in range(self.seats)]
        self._return_to_reserves(totals)
        self.set_aside.append(name)
        events.append(ev.IslandRemoved(name, self.colours_of(totals)))

    def _end_turn(self, events: list[ev.Event]) -> None:
        if self.ending is not None:
            self.phase = Phase.OVER
            outcome = score(self.board, self.colours, self.ending)
            events.append(ev.GameEnded(outcome.winners, self.ending))
            return
        self._start_turn((self.active + 1) % self.seats, events)

    def _start_turn(self, seat: int, events: list[ev.Event]) -> None:
        self.active = seat
        self.turn += 1
        self.phase = Phase.TURN
        events.append(ev.TurnStarted(self.colours[seat], self.turn))

    # -- saving and replaying -----------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        board = self.board
        return {
            "setup": self.setup.to_json(),
            "tiles": [[q, r, name, rot] for (q, r), (name, rot) in board.tiles.items()],
            "boats": [[q, r, beaches] for (q, r), beaches in board.boats.items()],
            "royal": [[q, r, seat] for (q, r), seat in board.royal.items()],
            "reserve": list(self.reserve),
            "out_of_play": list(self.out_of_play),
            "drawn": self.drawn,
            "set_aside": list(self.set_aside),
            "phase": self.phase.value,
            "active": self.active,
            "setup_placed": self.setup_placed,
            "turn": self.turn,
            "group": self.group,
            "target": None if self.target is None else list(self.target),
            "tile": self.tile,
            "colonising": self.colonising,
            "redraw_due": self.redraw_due,
            "ending": None if self.ending is None else self.ending.value,
            "log": [str(choice) for choice in self.log],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> State:
        from engine.notation import parse_choice

        setup = Setup.from_json(data["setup"])
        state = cls.__new__(cls)
        state.setup = setup
        state.colours = setup.colours
        state._order = _colour_order(setup.colours)
        board = state.board = Board()
        for q, r, name, rot in data["tiles"]:
            board.tiles[(q, r)] = (name, rot)
            board.where[name] = (q, r)
        for q, r, beaches in data["boats"]:
            board.boats[(q, r)] = [list(beach) for beach in beaches]
        for q, r, seat in data["royal"]:
            board.royal[(q, r)] = seat
        state.reserve = list(data["reserve"])
        state.out_of_play = list(data["out_of_play"])
        state.drawn = data["drawn"]
        left = setup.stack[state.drawn :]
        state.islands_left = sum(1 for t in left if t in ISLANDS)
        state.seas_left = len(left) - state.islands_left
        state.set_aside = list(data["set_aside"])
        state.phase = Phase(data["phase"])
        state.active = data["active"]
        state.setup_placed = data["setup_placed"]
        state.turn = data["turn"]
        state.group = None if data["group"] is None else list(data["group"])
        state.target = None if data["target"] is None else (data["target"][0], data["target"][1])
        state.tile = data["tile"]
        state.colonising = data["colonising"]
        state.redraw_due = data["redraw_due"]
        state.ending = None if data["ending"] is None else Termination(data["ending"])
        state.log = [parse_choice(text) for text in data["log"]]
        state._legal = None
        return state

    @classmethod
    def replay(cls, setup: Setup, choices: list[Choice]) -> State:
        """The state reached from `setup` by making `choices` in order."""
        state = cls(setup)
        for choice in choices:
            state.apply(choice)
        return state

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]
