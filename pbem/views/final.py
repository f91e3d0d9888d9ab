"""The final table of a game over: each player's points, islands and place, and how a tie
was broken."""

from __future__ import annotations

from collections.abc import Sequence

from engine import (
    DecidedBy,
    Message,
    Outcome,
    counted,
)
from pbem.views import news
from pbem.views.i18n import listed
from pbem.views.view import Final, Player, points_from


def final(outcome: Outcome, everyone: Sequence[Player]) -> Final:
    """The final standings of an ended game (`Table.outcome`)."""
    by_colour = {p.colour: p for p in everyone}
    termination = outcome.termination
    return Final(
        reason=news.ending(termination),
        standings=tuple((s.rank, by_colour[s.colour], s.boats) for s in outcome.standings),
        tie_break=tie_break(outcome, by_colour),
        termination=termination,
        points_from=tuple(points_from(s.islands) for s in outcome.standings),
    )


def tie_break(outcome: Outcome, by_colour: dict[str, Player]) -> str:
    """Why the first place is what it is, in a sentence, when points alone did not decide."""
    if len(outcome.standings) < 2:
        return ""
    first, second = outcome.standings[0], outcome.standings[1]
    a, b = by_colour[first.colour].name, by_colour[second.colour].name
    points = counted("{count} point", "{count} points", first.points)
    islands = counted("{count} island", "{count} islands", len(first.islands))
    if outcome.decided_by is DecidedBy.ISLANDS:
        return Message(
            "{a} and {b} both have {points}; the tie is broken by islands: "
            "{a} is on {a_islands}, {b} on {b_islands}.",
            a=a,
            b=b,
            points=points,
            a_islands=len(first.islands),
            b_islands=len(second.islands),
        )
    if outcome.decided_by is DecidedBy.BOATS:
        return Message(
            "{a} and {b} both have {points} and {islands} each; the tie is "
            "broken by the fewest boats on the board: {a} has {a_boats}, {b} {b_boats}.",
            a=a,
            b=b,
            points=points,
            islands=islands,
            a_boats=first.boats,
            b_boats=second.boats,
        )
    if outcome.decided_by is DecidedBy.SHARED:
        winners = [by_colour[s.colour].name for s in outcome.standings if s.rank == 1]
        names = listed(winners)
        boats = counted("{count} boat", "{count} boats", first.boats)
        if len(winners) == 2:
            return Message(
                "{names} both have {points}, {islands} and {boats} on the board each: "
                "the win is shared.",
                names=names,
                points=points,
                islands=islands,
                boats=boats,
            )
        return Message(
            "{names} all have {points}, {islands} and {boats} on the board each: "
            "the win is shared.",
            names=names,
            points=points,
            islands=islands,
            boats=boats,
        )
    return ""
