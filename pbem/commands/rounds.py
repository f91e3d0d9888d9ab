"""A writer's lines run as one `Round`, whoever wrote them: the one entry of the commands
layer for the flow (`pbem.flow.lines.act`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine import Message
from pbem.commands.player import asked_before, back_if_absent, greeting, remember_asked
from pbem.commands.registry import Commands, Round, after_rejected, run_lines
from pbem.core import LineOutcome, Tag
from pbem.game.table import Table
from pbem.store import Observer, Seat
from pbem.views.view import LineResult

GREETING = Message("a greeting, not a command: skipped, as a line after it moves")


def run_round(
    table: Table,
    commands: Commands,
    lines: Sequence[str],
    *,
    actor: str,
    answering: Tag | None = None,
    seat: Seat | None = None,
    observer: Observer | None = None,
    may_change: bool = True,
    refused: str = "",
    first_only: bool = False,
    inbound_id: int | None = None,
    address_leaving: Callable[[Seat, Any], Any] | None = None,
) -> Round:
    """Run the lines `actor` wrote (a player's, `seat`; an observer's; a game master's or
    "host") in `commands` until one fails; a player's moves are saved once, after the last
    line. `answering`: the tag of the mail answered; without `may_change` the mail answered
    changed the game once already; `refused`: why every line is refused (a reply address
    that no longer acts); `first_only`: only the first line is read (`stop` from an agent)."""
    round = Round(
        table,
        actor,
        seat,
        answering,
        opened=table.game.decision,
        may_change=may_change,
        inbound_id=inbound_id,
        observer=observer,
        address_leaving=address_leaving,
    )
    if refused:
        first, *rest = lines or ["(nothing)"]
        round.results += [LineResult(first, LineOutcome.REJECTED, refused)]
        round.results += [after_rejected(line) for line in rest]
        return round
    if seat is not None and answering is not None:
        round.asked_before = asked_before(seat, answering.decision, table.now)
    if first_only:
        lines = lines[:1]
    skipped = greeting(round, lines, commands) if seat is not None else 0
    for line in lines[:skipped]:  # "Hi everyone!" above a move
        round.results.append(LineResult(line, LineOutcome.IGNORED, GREETING))
    run_lines(round, lines[skipped:], commands)
    if seat is not None:
        remember_asked(round)
        back_if_absent(round, seat)
        if round.moves:
            table.save()
    return round
