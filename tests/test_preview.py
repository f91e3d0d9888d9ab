"""Previews (issue 14) against what the engine then does, on random and bot games.

For every decision of many seeded games, each legal option (a sample when there are many)
is previewed, then applied to a copy of the state; the events and the state reached must
bear the preview out step by step. Previews must leave the state as it was and must not
depend on the order of the stack.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TypeVar

import pytest

from engine import (
    COLOURS,
    ISLANDS,
    SEAS,
    Aftermath,
    Arrival,
    BoatMoved,
    BoatsPlaced,
    BoatsRecalled,
    Choice,
    ChoiceMade,
    ClosedPreview,
    Colonise,
    Draw,
    Emigrate,
    EmigrateClosed,
    Emigration,
    End,
    Event,
    Expand,
    FoundRoyal,
    GameEnded,
    GroupArrived,
    GroupLanded,
    GroupSailed,
    IslandRemoved,
    Land,
    Next,
    Nothing,
    Pass,
    Phase,
    Place,
    Placement,
    PutTile,
    Returned,
    RoyalIslandFounded,
    Setup,
    State,
    StayedAtSea,
    TileDrawn,
    TilePlaced,
    TilePreview,
    TurnedBack,
    TurnStarted,
    VoyageFailed,
    VoyagePassed,
    make_bot,
    neighbour,
    preview,
)
from tests.support.scenario import arrange, sealed_stack

Boats = tuple[tuple[str, int], ...]  # (colour, number of boats), as the previews give them

SAMPLE = 8  # options checked per decision when there are more
MAX_DECISIONS = 3000

E = TypeVar("E")


def _boats(colours: tuple[str, ...]) -> Boats:
    counts = Counter(colours)
    return tuple((c, counts[c]) for c in COLOURS if counts[c])


@dataclass
class Tally:
    decisions: int = 0
    options: int = 0
    kinds: Counter[str] = field(default_factory=Counter)

    def note(self, what: str) -> None:
        self.kinds[what] += 1


class Events:
    """The events of one `apply`, read in order: each check takes the next one."""

    def __init__(self, events: list[Event]) -> None:
        self.events = events
        self.at = 0

    def take(self, kind: type[E]) -> E:
        assert self.at < len(self.events), f"expected {kind.__name__}, the events ended"
        event = self.events[self.at]
        assert isinstance(event, kind), (kind.__name__, self.events[self.at :])
        self.at += 1
        return event

    def peek(self) -> Event | None:
        return self.events[self.at] if self.at < len(self.events) else None

    def done(self) -> bool:
        return self.at == len(self.events)


def check_aftermath(after: Aftermath, events: Events, final: State, tally: Tally) -> None:
    for removal in after.removed:
        removed = events.take(IslandRemoved)
        assert (removed.island, _boats(removed.boats)) == (removal.island, removal.boats)
        tally.note("island removed by itself")
    if after.forced is not None:
        forced = after.forced
        made = events.take(ChoiceMade)
        assert made.forced and made.choice == str(
            Emigrate(forced.island, forced.beach, forced.jetty)
        )
        tally.note("forced emigration")
        check_emigration(forced, events, final, tally)
    elif after.full:
        assert events.done(), events.events[events.at :]
        assert final.phase is Phase.EMIGRATE
        assert final.legal_choices() == list(after.emigrations())
        assert set(final.full_beaches()) == {(b.island, b.beach) for b in after.full}
        tally.note("emigrations offered")
    else:
        following = events.peek()
        if after.redraw and isinstance(following, TileDrawn):
            tally.note("redraw")
        else:
            assert isinstance(following, TurnStarted | GameEnded), following
            assert not after.redraw or final.tiles_left == 0
            tally.note("turn ends")


def check_arrival(arrival: Arrival, events: Events, final: State, tally: Tally) -> None:
    arrived = events.take(GroupArrived)
    assert (arrived.island, _boats(arrived.boats)) == (arrival.island, arrival.boats)
    size = sum(n for _, n in arrival.boats)
    assert arrival.stay_out == max(0, size - sum(arrival.free))
    if arrival.landing is None:
        assert events.done(), events.events[events.at :]
        decision = final.decision
        assert decision is not None and decision.kind is Phase.LAND
        assert decision.island == arrival.island
        frees = tuple(final.free_berths(arrival.island, b) for b in range(len(arrival.free)))
        assert frees == arrival.free
        legal = final.legal_choices()
        assert len(legal) == arrival.options > 1
        assert all(isinstance(c, Land) and len(c.out) == arrival.stay_out for c in legal)
        tally.note("landing offered")
        return
    assert arrival.after is not None and arrival.options == 1
    made = events.take(ChoiceMade)
    assert made.forced and made.choice == str(arrival.landing)
    landed = events.take(GroupLanded)
    assert (landed.placement, landed.out) == (arrival.landing.placement, arrival.landing.out)
    assert len(landed.out) == arrival.stay_out
    tally.note("forced landing")
    check_aftermath(arrival.after, events, final, tally)


def check_emigration(emigration: Emigration, events: Events, final: State, tally: Tally) -> None:
    sailed = events.take(GroupSailed)
    assert (sailed.island, sailed.beach, sailed.jetty) == (
        emigration.island,
        emigration.beach,
        emigration.jetty,
    )
    assert _boats(sailed.boats) == emigration.boats
    colours = emigration.colours
    lost = emigration.end is End.LOST
    passed = emigration.crossings[:-1] if lost else emigration.crossings
    for crossing in passed:
        assert crossing.passes and crossing.colours == colours
        voyage = events.take(VoyagePassed)
        assert (voyage.tile, voyage.danger, voyage.colours) == (
            crossing.tile,
            crossing.danger,
            colours,
        )
    tally.note(f"voyage {emigration.end}")
    if lost:
        crossing = emigration.crossings[-1]
        assert emigration.lost_on == crossing and not crossing.passes
        failed = events.take(VoyageFailed)
        assert (failed.tile, failed.danger, _boats(failed.boats)) == (
            crossing.tile,
            crossing.danger,
            emigration.boats,
        )
        assert emigration.after is not None
        check_aftermath(emigration.after, events, final, tally)
    elif emigration.end is End.OPEN_WATER:
        water = emigration.open_water
        assert water is not None
        drawn = events.take(TileDrawn)
        placed = events.take(TilePlaced)
        assert (placed.tile, placed.position) == (drawn.tile, water.place)
        assert placed.rotation == (water.direction + 3) % 6
        beside = final.position_of(water.beside)
        assert beside is None or neighbour(beside, water.direction) == water.place
        at_sea = isinstance(events.peek(), StayedAtSea)
        tally.note(f"draw {water.draw}")
        assert (water.islands_left, water.seas_left) == (
            drawn.islands_left + (drawn.tile in ISLANDS),
            drawn.seas_left + (drawn.tile in SEAS),
        )
        if water.draw is Draw.ISLAND:
            assert drawn.tile in ISLANDS
        elif water.draw is Draw.SEA:
            assert drawn.tile in SEAS and not at_sea
        elif water.draw is Draw.LAST_SEA:
            assert drawn.tile in SEAS and at_sea
        elif water.draw is Draw.LAST_EITHER:  # the game ends whichever comes
            assert 0 in (drawn.islands_left, drawn.seas_left) and final.ending is not None
        elif water.draw is Draw.MAYBE_LAST_SEA:
            assert (drawn.seas_left == 0) == (drawn.tile in SEAS) == at_sea
        elif water.draw is Draw.MAYBE_LAST_ISLAND:
            assert (drawn.islands_left == 0) == (drawn.tile in ISLANDS)
        else:
            assert drawn.islands_left + (drawn.tile in ISLANDS) > 0
            assert drawn.seas_left + (drawn.tile in SEAS) > 0
    elif emigration.end is End.NO_TILE_LEFT:
        events.take(StayedAtSea)
        assert emigration.after is not None
        check_aftermath(emigration.after, events, final, tally)
    else:
        if emigration.end is End.TURNED_BACK:
            turned = events.take(TurnedBack)
            assert (turned.royal_island, turned.home) == (emigration.royal, emigration.island)
        assert emigration.arrival is not None
        check_arrival(emigration.arrival, events, final, tally)


def check_placement(placement: Placement, choice: Choice, events: Events, final: State) -> None:
    if isinstance(choice, Land):
        landed = events.take(GroupLanded)
        assert landed.island == placement.island
        assert tuple(b for b, _ in landed.placement) == placement.beaches
        assert _boats(landed.out) == placement.returned
        return
    assert not placement.returned
    if isinstance(choice, Expand) and choice.borrow is not None:
        moved = events.take(BoatMoved)
        assert (moved.to_island, (moved.to_beach,)) == (placement.island, placement.beaches)
        assert (moved.from_island, moved.from_beach) == choice.borrow
        return
    placed = events.take(BoatsPlaced)
    assert (placed.island, placed.beaches) == (placement.island, placement.beaches)


def check_tile(tile: TilePreview, events: Events, final: State, tally: Tally) -> None:
    tally.note(f"tile then {tile.next}")
    placed = events.take(TilePlaced)
    assert (placed.tile, placed.position, placed.rotation) == (tile.tile, tile.place, tile.rotation)
    sea = SEAS.get(tile.tile)
    if sea is not None:
        assert len(tile.trails) == 3 and not tile.jetties
        for trail in tile.trails:
            a, b = trail.ends
            edge = (a - tile.rotation) % 6
            assert sea.trail_from(edge) == ((b - tile.rotation) % 6, trail.danger)
            for end, faces in zip(trail.ends, trail.faces, strict=True):
                assert final.tile_at(neighbour(tile.place, end)) == faces
    else:
        assert not tile.trails
        island = ISLANDS[tile.tile]
        assert len(tile.jetties) == len(island.beaches)
        for b, jetties in enumerate(tile.jetties):
            assert final.jetties(tile.tile, b) == jetties
    following = events.peek()
    if tile.next is Next.DRAW_AGAIN:
        assert isinstance(following, TileDrawn)
    elif tile.next is Next.PLACE_BOAT:
        assert events.done() and final.phase is Phase.COLONY_BOAT
    elif tile.next is Next.TURN_ENDS:
        assert isinstance(following, TurnStarted)
    else:
        assert isinstance(following, GameEnded)


def check_option(state: State, choice: Choice, tally: Tally) -> None:
    """Preview `choice`, apply it to a copy, and hold the preview against what happened."""
    before = state.to_json()
    seen = preview(state, choice)
    assert state.to_json() == before, "the preview changed the state"
    assert str(seen)
    final = state.copy()
    events = Events(final.apply(choice))
    made = events.take(ChoiceMade)
    assert not made.forced and made.choice == str(choice)
    tally.options += 1
    tally.note(type(choice).__name__)
    if isinstance(choice, Emigrate):
        assert isinstance(seen, Emigration)
        check_emigration(seen, events, final, tally)
    elif isinstance(choice, EmigrateClosed):
        assert isinstance(seen, ClosedPreview)
        removed = events.take(IslandRemoved)
        assert (removed.island, _boats(removed.boats)) == (seen.removal.island, seen.removal.boats)
        check_aftermath(seen.after, events, final, tally)
    elif isinstance(choice, Expand | Place | Land):
        assert isinstance(seen, Placement)
        check_placement(seen, choice, events, final)
        if isinstance(choice, Place) and state.phase is not Phase.TURN:
            assert seen.after == Aftermath()
        else:
            check_aftermath(seen.after, events, final, tally)
    elif isinstance(choice, FoundRoyal):
        assert isinstance(seen, Returned) and seen.island == choice.island
        founded = events.take(RoyalIslandFounded)
        assert sum(n for _, n in seen.boats) == founded.returned
        assert {c for c, _ in seen.boats} <= {founded.colour}
    elif isinstance(choice, Colonise):
        assert isinstance(seen, Returned) and seen.island is None
        recalled = events.take(BoatsRecalled)
        assert sum(n for _, n in seen.boats) == recalled.count
    else:
        assert isinstance(choice, PutTile) and isinstance(seen, TilePreview)
        check_tile(seen, events, final, tally)


def _sample(options: list[Choice], rng: random.Random) -> list[Choice]:
    return options if len(options) <= SAMPLE else rng.sample(options, SAMPLE)


def play(seed: int, tally: Tally) -> Iterator[State]:
    """A seeded game of 2-6 players, random and greedy bots mixed; yields every decision."""
    rng = random.Random(seed)
    players = 2 + seed % 5
    state = State(Setup.from_seed(rng.sample(COLOURS, players), seed))
    bots = [make_bot(rng.choice(["random", "greedy"]), seed * 10 + s) for s in range(players)]
    while (decision := state.decision) is not None:
        assert len(state.log) < MAX_DECISIONS
        tally.decisions += 1
        yield state
        state.apply(bots[decision.seat].choose(state))


def run(seeds: range) -> Tally:
    tally = Tally()
    for seed in seeds:
        rng = random.Random(-seed)
        for state in play(seed, tally):
            for choice in _sample(state.legal_choices(), rng):
                check_option(state, choice, tally)
    return tally


def test_previews_match_what_the_engine_does() -> None:
    tally = run(range(20))
    assert tally.decisions > 2000 and tally.options > 10000
    for kind in (
        "Emigrate",
        "EmigrateClosed",
        "Expand",
        "Place",
        "Land",
        "FoundRoyal",
        "Colonise",
        "PutTile",
        "voyage lost",
        "voyage arrives",
        "voyage open water",
        "forced landing",
        "forced emigration",
        "landing offered",
        "emigrations offered",
        "turn ends",
    ):
        assert tally.kinds[kind] > 0, (kind, tally.kinds)


@pytest.mark.slow
def test_previews_match_what_the_engine_does_in_many_games() -> None:
    tally = run(range(20, 200))  # about a minute: `python3 dev.py test -m slow`
    assert tally.decisions > 20000 and tally.kinds["island removed by itself"] > 0


def test_pass_previews_nothing() -> None:
    state = arrange(("blue", "red"), boats={"Tonga a": "B", "Tonga b": "R"})
    assert state.is_legal(Pass())
    assert preview(state, Pass()) == Nothing()


def test_s9_preview_of_a_route_to_a_royal_island_turns_back() -> None:
    # O at (0,1) with rotation 3 joins its N side to its NE side, facing red's royal
    # Samoa at (1,0): the route from Tonga a (jetty S) only leads back (RULES §8.1, §9)
    state = arrange(
        ("blue", "red"),
        tiles=[("O", (0, 1), 3), ("Samoa", (1, 0), 0)],
        royal={"Samoa": "red"},
        boats={"Tonga a": "BBB"},
        phase=Phase.EMIGRATE,
    )
    assert state.legal_choices() == [EmigrateClosed("Tonga")]
    closed = preview(state, EmigrateClosed("Tonga"))
    assert isinstance(closed, ClosedPreview)
    assert closed.removal.boats == (("blue", 3),)
    assert closed.after.redraw and not closed.after.full
    # the closed jetty is not offered, but its preview says what the rules would do
    back = preview(state, Emigrate("Tonga", 0, 0))
    assert isinstance(back, Emigration)
    assert back.end is End.TURNED_BACK and back.royal == "Samoa"
    assert [(c.tile, c.danger, c.passes) for c in back.crossings] == [("O", 0, True)]
    assert back.arrival is not None and back.arrival.island == "Tonga"
    assert back.arrival.free == (3, 3, 3, 3, 3, 3) and back.arrival.landing is None


def test_s6_preview_of_a_trail_too_dangerous_is_lost() -> None:
    # O at (0,1) with rotation 0: a group leaving Tonga south enters by edge 3, whose trail
    # (to edge 2) has danger 2; one colour fails
    state = arrange(
        ("blue", "red"),
        tiles=[("O", (0, 1), 0)],
        boats={"Tonga a": "BBB", "Tonga b": "R"},
        phase=Phase.EMIGRATE,
    )
    lost = preview(state, Emigrate("Tonga", 0, 0))
    assert isinstance(lost, Emigration) and lost.end is End.LOST
    assert lost.lost_on is not None and (lost.lost_on.danger, lost.lost_on.colours) == (2, 1)
    assert lost.after == Aftermath(redraw=False)
    check_option(state, Emigrate("Tonga", 0, 0), Tally())


def _shuffled(state: State, rng: random.Random) -> State:
    """The same position with the tiles still in the stack in another order (another tile
    on top)."""
    data = state.to_json()
    stack = data["setup"]["stack"]
    rest = stack[state.drawn :]
    rng.shuffle(rest)
    rest = rest[1:] + rest[:1] if rest[:1] == stack[state.drawn : state.drawn + 1] else rest
    data["setup"]["stack"] = stack[: state.drawn] + rest
    return State.from_json(data)


def test_previews_never_read_the_stack() -> None:
    tally = Tally()
    checked = 0
    for seed in range(8):
        rng = random.Random(seed)
        for state in play(seed, tally):
            if state.phase is Phase.SETUP:
                continue
            sealed = sealed_stack(state)
            with pytest.raises(AssertionError, match="the stack was read"):
                _ = sealed.stack_left
            twin = _shuffled(state, rng)
            assert twin.stack_left[:1] != state.stack_left[:1] or state.tiles_left < 2
            for choice in _sample(state.legal_choices(), rng):
                assert preview(sealed, choice) == preview(state, choice) == preview(twin, choice)
                checked += 1
    assert checked > 1000
