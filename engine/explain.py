"""Why a well-formed choice is not legal now, in words a player can act on."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

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
from engine.hexgrid import DIRECTION_WORDS, neighbour
from engine.phase import Phase
from engine.tiles import BEACH_LETTERS, ISLANDS, START_ISLAND

if TYPE_CHECKING:
    from engine.state import State

_ALLOWED: dict[Phase, tuple[type, ...]] = {
    Phase.SETUP: (Place,),
    Phase.TURN: (Expand, FoundRoyal, Colonise, Place),
    Phase.EMIGRATE: (Emigrate, EmigrateClosed),
    Phase.LAND: (Land,),
    Phase.PUT_TILE: (PutTile,),
    Phase.COLONY_BOAT: (Place,),
}


def what_is_asked(state: State) -> str:
    """The current decision as a sentence: 'Red must ...'."""
    decision = state.decision
    if decision is None:
        return "The game is over."
    who = decision.colour.capitalize()
    kind = decision.kind
    if kind is Phase.SETUP:
        return f"{who} must put a set-up boat on a beach of {START_ISLAND}."
    if kind is Phase.TURN:
        return f"{who} must start the turn: expand, found a royal island, or colonise."
    if kind is Phase.EMIGRATE:
        asked = f"{who} must choose which full beach emigrates next, and by which jetty."
        closed = [c.island for c in state.legal_choices() if isinstance(c, EmigrateClosed)]
        for island in closed:  # RULES §8.1: removed when its emigration comes
            asked += (
                f" Every route from {island} leads back: 'emigrate {island}' removes it from "
                "the game (its boats go back to the reserves)."
            )
        return asked
    if kind is Phase.LAND:
        return f"{who} must land the group arriving at {decision.island}."
    if kind is Phase.PUT_TILE:
        return f"{who} must place the drawn tile {decision.tile}."
    return f"{who} must put a boat on a beach of the new island {decision.island}."


def explain_illegal(state: State, choice: Choice) -> str:
    decision = state.decision
    if decision is None:
        return "The game is over."
    if not isinstance(choice, _ALLOWED[decision.kind]):
        return f"'{choice}' does not fit now. {what_is_asked(state)}"
    reason = _reason(state, choice) or "it is not one of the legal choices now"
    return f"'{choice}' is not allowed: {reason}. {what_is_asked(state)}"


def _reason(state: State, choice: Choice) -> str | None:
    board, seat = state.board, state.active
    island = getattr(choice, "island", None)
    if isinstance(choice, PutTile):
        if choice.anchor is not None and choice.anchor not in board.where:
            return f"{choice.anchor} is not on the board"
        if choice.anchor is not None:
            place = neighbour(board.where[choice.anchor], choice.direction)
            if place in board.tiles:
                return f"the place {DIRECTION_WORDS[choice.direction]} of {choice.anchor} is taken"
        return None
    if island is None or island not in board.where:
        return f"{island} is not on the board" if island else None
    pos = board.where[island]
    beaches = ISLANDS[island].beaches
    named = getattr(choice, "beaches", ()) or (getattr(choice, "beach", 0),)
    if any(b >= len(beaches) for b in named):
        return f"{island} has beaches a to {BEACH_LETTERS[len(beaches) - 1]}"
    if pos in board.royal and not isinstance(choice, Land):
        return f"{island} is a royal island"
    if isinstance(choice, Expand):
        return _expand_reason(state, choice)
    if isinstance(choice, FoundRoyal):
        if island == START_ISLAND:
            return f"{START_ISLAND} can never become a royal island"
        if state.royal_islands(seat) >= 2:
            return "you have founded two royal islands already"
        if not board.seat_boats(pos, seat) or any(sum(b) != b[seat] for b in board.boats[pos]):
            return f"a royal island needs your boats on {island} and nobody else's"
        return None
    if isinstance(choice, EmigrateClosed):
        if not any(b == pos for b, _ in board.full_beaches()):
            return f"{island} has no full beach"
        return (
            f"a full beach of {island} has a route that does not lead back: say the beach "
            f"and the jetty (emigrate {island} BEACH JETTY)"
        )
    if isinstance(choice, Emigrate):
        if board.free(pos, choice.beach) > 0:
            return f"beach {island} {BEACH_LETTERS[choice.beach]} is not full"
        if choice.jetty not in board.jetties(pos, choice.beach):
            where = DIRECTION_WORDS[choice.jetty]
            return f"beach {BEACH_LETTERS[choice.beach]} has no jetty to the {where}"
        return "that route only leads back (RULES §8.1) while another jetty is open"
    if isinstance(choice, Land):
        return _land_reason(state, choice)
    if isinstance(choice, Place) and state.phase is Phase.SETUP:
        full = [b for b in named if sum(board.boats[pos][b]) >= 2]
        if full:
            letter = BEACH_LETTERS[full[0]]
            return f"each beach of {START_ISLAND} keeps a free berth in the set-up ({letter} has 2)"
    if isinstance(choice, Place) and state.phase is Phase.TURN and state.home_islands(seat):
        return "you still have boats on the board: expand instead"
    if isinstance(choice, Place) and any(board.free(pos, b) < named.count(b) for b in named):
        return "that beach has no free berth for it"
    return None


def _expand_reason(state: State, choice: Expand) -> str | None:
    board, seat = state.board, state.active
    pos = board.where[choice.island]
    mine = board.seat_boats(pos, seat)
    if not mine:
        return f"you have no boats on {choice.island}"
    if state.reserve[seat] == 0 and choice.borrow is None:
        return (
            "your reserve is empty: take one boat from another island, like 'expand X a from Y b'"
        )
    if state.reserve[seat] > 0 and choice.borrow is not None:
        return "you may only take a boat from another island when your reserve is empty"
    if state.reserve[seat] > 0:
        count = min(mine, len(ISLANDS[choice.island].beaches), state.reserve[seat])
        if len(set(choice.beaches)) != len(choice.beaches):
            return "at most one boat goes on each beach"
        if len(choice.beaches) != count:
            boats = f"{count} boat{'s' * (count != 1)}"
            return f"expanding on {choice.island} adds {boats}: name {count} different beaches"
    return None


def _land_reason(state: State, choice: Land) -> str | None:
    decision = state.decision
    assert decision is not None
    if choice.island not in (None, decision.island):
        return f"the group is arriving at {decision.island}"
    placed = Counter(c for _, cs in choice.placement for c in cs) + Counter(choice.out)
    group = Counter(decision.boats)
    if (choice.out and placed != group) or not placed <= group:
        return (
            "the colours do not match the arriving group ("
            + "".join(c[0].upper() for c in decision.boats)
            + ")"
        )
    return (
        "each beach with room gets one boat before any beach gets a second,"
        " and only free berths can be used"
    )
