"""Why a well-formed choice is not legal now, in words a player can act on."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from engine.choices import (
    Choice,
    Colonise,
    Emigrate,
    EmigrateClosed,
    Expand,
    FoundRoyal,
    Land,
    Place,
    PutTile,
)
from engine.errors import DirectionError, IslandNameError
from engine.hexgrid import (
    DIRECTION_WORDS,
    DIRECTIONS,
    Position,
    closest_directions,
    neighbour,
)
from engine.message import Joined, Message, counted
from engine.notation import no_island
from engine.phase import Decision, Phase
from engine.tiles import BEACH_LETTERS, ISLANDS, START_ISLAND, suggest_island, tile_words


def direction_word(index: int) -> Message:
    """A direction in a sentence ('south'), said in each reader's language (the catalogs
    hold the words: pbem/views/news.py)."""
    return Message(DIRECTION_WORDS[index])


class Game(Protocol):
    """What the explanations read of a game: some of the queries of `State` (which this
    module does not import, so that `State` can import it)."""

    @property
    def decision(self) -> Decision | None: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def active(self) -> int: ...
    def legal_choices(self) -> Sequence[Choice]: ...
    def reserve_of(self, seat: int) -> int: ...
    def royal_islands(self, seat: int) -> int: ...
    def home_islands(self, seat: int) -> tuple[str, ...]: ...
    def position_of(self, tile: str) -> Position | None: ...
    def tile_at(self, position: Position) -> str | None: ...
    def royal_owner(self, island: str) -> int | None: ...
    def boats_on(self, island: str, beach: int) -> tuple[int, ...]: ...
    def free_berths(self, island: str, beach: int) -> int: ...
    def jetties(self, island: str, beach: int) -> tuple[int, ...]: ...
    def full_beaches(self) -> tuple[tuple[str, int], ...]: ...
    def islands(self) -> tuple[str, ...]: ...


_ALLOWED: dict[Phase, tuple[type, ...]] = {
    Phase.SETUP: (Place,),
    Phase.TURN: (Expand, FoundRoyal, Colonise, Place),
    Phase.EMIGRATE: (Emigrate, EmigrateClosed),
    Phase.LAND: (Land,),
    Phase.PUT_TILE: (PutTile,),
    Phase.COLONY_BOAT: (Place,),
}


# Translators: the colour of the player who must decide, at the start of a sentence
WHO: dict[str, Message] = {
    "blue": Message("Blue"),
    "red": Message("Red"),
    "green": Message("Green"),
    "yellow": Message("Yellow"),
    "orange": Message("Orange"),
    "purple": Message("Purple"),
}


def what_is_asked(state: Game) -> str:
    """The current decision as a sentence: 'Red must ...'."""
    decision = state.decision
    if decision is None:
        return Message("The game is over.")
    who = WHO.get(decision.colour) or decision.colour.capitalize()
    kind = decision.kind
    if kind is Phase.SETUP:
        return Message(
            "{who} must put a set-up boat on a beach of {island}.", who=who, island=START_ISLAND
        )
    if kind is Phase.TURN:
        return _turn_asked(state, who)
    if kind is Phase.EMIGRATE:
        asked = Message(
            "{who} must choose which full beach emigrates next, and by which jetty.", who=who
        )
        legal = state.legal_choices()
        closed = [c.island for c in legal if isinstance(c, EmigrateClosed)]
        notes = [  # RULES §8.1: removed when its emigration comes
            Message(
                "Every route from {island} leads back: 'emigrate {island}' removes it from "
                "the game (its boats go back to the reserves).",
                island=island,
            )
            for island in closed
        ]
        # ... and an island whose other full beaches still sail: removed once they have
        sailing = {(c.island, c.beach) for c in legal if isinstance(c, Emigrate)}
        stuck: dict[str, list[str]] = {}
        for island, beach in state.full_beaches():
            if island not in closed and (island, beach) not in sailing:
                stuck.setdefault(island, []).append(BEACH_LETTERS[beach])
        notes += [
            Message(
                "Every route from {island} {beaches} leads back: once its other full beaches "
                "have emigrated, {island} leaves the game, unless a move changes that.",
                island=island,
                beaches=",".join(letters),
            )
            for island, letters in stuck.items()
        ]
        return Joined(" ", [asked, *notes]) if notes else asked
    if kind is Phase.LAND:
        return Message(
            "{who} must land the group arriving at {island}.", who=who, island=decision.island
        )
    if kind is Phase.PUT_TILE:
        return Message(
            "{who} must place the drawn tile {tile}.", who=who, tile=tile_words(decision.tile or "")
        )
    return Message(
        "{who} must put a boat on a beach of the new island {island}.",
        who=who,
        island=decision.island,
    )


def _turn_asked(state: Game, who: str) -> str:
    """The start of a turn, naming only the kinds of choice the options hold (issue 30: no
    'expand' above the placements of a player with only royal boats left)."""
    legal = state.legal_choices()
    may_place = any(isinstance(c, Place) for c in legal)
    may_expand = any(isinstance(c, Expand) for c in legal)
    may_found = any(isinstance(c, FoundRoyal) for c in legal)
    if may_place:  # §11: no boat on an island
        return Message(
            "{who} has no boat on a beach and must start the turn: put boats on an "
            "island, or colonise.",
            who=who,
        )
    if may_expand and may_found:
        return Message(
            "{who} must start the turn: expand, found a royal island, or colonise.", who=who
        )
    if may_expand:
        return Message("{who} must start the turn: expand or colonise.", who=who)
    if may_found:
        return Message("{who} must start the turn: found a royal island or colonise.", who=who)
    return Message("{who} must start the turn: colonise.", who=who)


def explain_illegal(state: Game, choice: Choice) -> str:
    decision = state.decision
    if decision is None:
        return Message("The game is over.")
    if not isinstance(choice, _ALLOWED[decision.kind]):
        return Message(
            "'{choice}' does not fit now. {asked}", choice=str(choice), asked=what_is_asked(state)
        )
    reason = _reason(state, choice) or Message("it is not one of the legal choices now")
    return Message(
        "'{choice}' is not allowed: {reason}. {asked}",
        choice=str(choice),
        reason=reason,
        asked=what_is_asked(state),
    )


def explain_direction(state: Game, error: DirectionError) -> str:
    """A word that is no direction, said with the board: for a jetty, the jetties its beach
    has and the closest of them ('did you mean NW?'); else the error as it is."""
    island, beach = error.island, error.beach
    if (
        island is None
        or beach is None
        or state.position_of(island) is None
        or beach >= len(ISLANDS[island].beaches)
    ):
        return str(error.args[0])
    jetties = state.jetties(island, beach)
    if not jetties:
        return str(error.args[0])
    where = Joined(", ", [DIRECTIONS[d] for d in jetties])
    close = closest_directions(error.word, jetties) if error.word else []
    if close:
        return counted(
            "{word!r} is not a direction: did you mean {direction}? Beach {island} {beach} "
            "has one jetty: {jetties}.",
            "{word!r} is not a direction: did you mean {direction}? Beach {island} {beach} "
            "has jetties {jetties}.",
            len(jetties),
            word=error.word,
            direction=DIRECTIONS[close[0]],
            island=island,
            beach=BEACH_LETTERS[beach],
            jetties=where,
        )
    return counted(
        "{word!r} is not a direction; beach {island} {beach} has one jetty: {jetties}.",
        "{word!r} is not a direction; beach {island} {beach} has jetties {jetties}.",
        len(jetties),
        word=error.word or "nothing",
        island=island,
        beach=BEACH_LETTERS[beach],
        jetties=where,
    )


def explain_island(state: Game, error: IslandNameError) -> str:
    """A name that is no island's, said with the game (issue 30): the islands the open
    decision names first, then the others on the board; never one that is not on it."""
    if state.decision is None:
        return str(error.args[0])
    allowed: list[str] = []
    for choice in state.legal_choices():
        for name in (getattr(choice, "island", None), getattr(choice, "anchor", None)):
            if isinstance(name, str) and name not in allowed:
                allowed.append(name)
    said = no_island(error.word, suggest_island(error.word, allowed, state.islands()))
    if error.form is None:
        return said
    return Message("{error} Write it as: {form}.", error=said, form=error.form)


def _reason(state: Game, choice: Choice) -> str | None:
    seat = state.active
    island = getattr(choice, "island", None)
    if isinstance(choice, PutTile):
        if choice.anchor is None:
            return None
        anchor = state.position_of(choice.anchor)
        decision = state.decision
        if anchor is None and decision is not None and decision.tile == choice.anchor:
            return Message(
                "{tile} is the tile being placed: name a tile on the board next to the empty "
                "place, as the options do",
                tile=tile_words(choice.anchor),
            )
        if anchor is None:
            return Message("{tile} is not on the board", tile=tile_words(choice.anchor))
        if state.tile_at(neighbour(anchor, choice.direction)) is not None:
            return Message(
                "the place {direction} of {tile} is taken",
                direction=direction_word(choice.direction),
                tile=tile_words(choice.anchor),
            )
        return None
    if island is None or state.position_of(island) is None:
        return Message("{tile} is not on the board", tile=island) if island else None
    beaches = ISLANDS[island].beaches
    named = getattr(choice, "beaches", ()) or (getattr(choice, "beach", 0),)
    if any(b >= len(beaches) for b in named):
        return Message(
            "{island} has beaches a to {last}", island=island, last=BEACH_LETTERS[len(beaches) - 1]
        )
    if state.royal_owner(island) is not None and not isinstance(choice, Land):
        return Message("{island} is a royal island", island=island)
    if isinstance(choice, Expand):
        return _expand_reason(state, choice)
    if isinstance(choice, FoundRoyal):
        if island == START_ISLAND:
            return Message("{island} can never become a royal island", island=START_ISLAND)
        if state.royal_islands(seat) >= 2:
            return Message("you have founded two royal islands already")
        boats = [state.boats_on(island, b) for b in range(len(beaches))]
        if not any(b[seat] for b in boats) or any(sum(b) != b[seat] for b in boats):
            return Message(
                "a royal island needs your boats on {island} and nobody else's", island=island
            )
        return None
    if isinstance(choice, EmigrateClosed):
        if not any(name == island for name, _ in state.full_beaches()):
            return Message("{island} has no full beach", island=island)
        return Message(
            "a full beach of {island} has a route that does not lead back: say the beach "
            "and the jetty (emigrate {island} BEACH JETTY)",
            island=island,
        )
    if isinstance(choice, Emigrate):
        if state.free_berths(island, choice.beach) > 0:
            return Message(
                "beach {island} {beach} is not full",
                island=island,
                beach=BEACH_LETTERS[choice.beach],
            )
        jetties = state.jetties(island, choice.beach)
        if choice.jetty not in jetties:
            return Message(
                "beach {beach} has no jetty to the {direction} (its jetties: {jetties})",
                beach=BEACH_LETTERS[choice.beach],
                direction=direction_word(choice.jetty),
                jetties=Joined(", ", [DIRECTIONS[d] for d in jetties]),
            )
        return Message("that route only leads back (RULES §8.1) while another jetty is open")
    if isinstance(choice, Land):
        return _land_reason(state, choice)
    if isinstance(choice, Place) and state.phase is Phase.SETUP:
        full = [b for b in named if sum(state.boats_on(island, b)) >= 2]
        if full:
            letter = BEACH_LETTERS[full[0]]
            return Message(
                "each beach of {island} keeps a free berth in the set-up ({beach} has 2)",
                island=START_ISLAND,
                beach=letter,
            )
    if isinstance(choice, Place) and state.phase is Phase.TURN and state.home_islands(seat):
        return Message("you still have boats on the board: expand instead")
    if isinstance(choice, Place) and any(
        state.free_berths(island, b) < named.count(b) for b in named
    ):
        return Message("that beach has no free berth for it")
    return None


def _expand_reason(state: Game, choice: Expand) -> str | None:
    seat = state.active
    count_beaches = len(ISLANDS[choice.island].beaches)
    mine = sum(state.boats_on(choice.island, b)[seat] for b in range(count_beaches))
    reserve = state.reserve_of(seat)
    if not mine:
        return Message("you have no boats on {island}", island=choice.island)
    if reserve == 0 and choice.borrow is None:
        return Message(
            "your reserve is empty: take one boat from another island, like 'expand X a from Y b'"
        )
    if reserve > 0 and choice.borrow is not None:
        return Message("you may only take a boat from another island when your reserve is empty")
    if reserve > 0:
        count = min(mine, count_beaches, reserve)
        if len(set(choice.beaches)) != len(choice.beaches):
            return Message("at most one boat goes on each beach")
        if len(choice.beaches) != count:
            return counted(
                "expanding on {island} adds {count} boat: name {count} different beaches",
                "expanding on {island} adds {count} boats: name {count} different beaches",
                count,
                island=choice.island,
            )
    return None


def _land_reason(state: Game, choice: Land) -> str | None:
    decision = state.decision
    assert decision is not None
    if choice.island not in (None, decision.island):
        return Message("the group is arriving at {island}", island=decision.island)
    placed = Counter(c for _, cs in choice.placement for c in cs) + Counter(choice.out)
    group = Counter(decision.boats)
    letters = "".join(c[0].upper() for c in decision.boats)
    if (choice.out and placed != group) or not placed <= group:
        return Message("the colours do not match the arriving group ({letters})", letters=letters)
    if not choice.out and placed != group:  # the boats left over would stay out
        return Message(
            "{missing} not placed: every boat of the group ({letters}) lands while a beach has "
            "a free berth; out: names the boats that stay out when none has",
            missing="".join(c[0].upper() for c in (group - placed).elements()),
            letters=letters,
        )
    return Message(
        "each beach with room gets one boat before any beach gets a second,"
        " and only free berths can be used"
    )
