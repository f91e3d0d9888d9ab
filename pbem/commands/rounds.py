"""A writer's lines run as one `Round`, whoever wrote them (a player, an observer, a game master
by mail or on the host's command line, the clock): `act` is the one entry of the commands layer
for the flow, and keeps what the game keeps of the lines (the move's save, the game master's
log, the mail answered as used, the replay key)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import insert

from engine import Message
from pbem.commands.player import asked_before, back_if_absent, greeting, remember_asked
from pbem.commands.registry import Commands, Round, after_rejected, run_lines
from pbem.commands.writer import Role, Writer
from pbem.core import LineOutcome, MailOutcome, Tag, shown
from pbem.game.table import Table
from pbem.store import GmAction, Observer, ReplyUse, Seat
from pbem.views.view import LineResult

_USED = insert(ReplyUse.__table__)  # type: ignore[attr-defined]  # built once

log = logging.getLogger(__name__)

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
        round.results += [LineResult(first, LineOutcome.REJECTED, refused, code="reply-too-old")]
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


def act(
    table: Table,
    writer: Writer,
    lines: Sequence[str],
    *,
    inbound_id: int | None = None,
    address_leaving: Callable[[Seat, Any], Any] | None = None,
) -> Round:
    """Run `lines` of `writer` on `table` until one fails, and keep what the game keeps of
    them. A writer whose reply address no longer acts has every line refused with its
    reason, through the same results. The round's `outcome` and `summary` say what it came
    to."""
    round = run_round(
        table,
        writer.commands,
        lines,
        actor=writer.actor,
        answering=writer.answering,
        seat=writer.seat,
        observer=writer.observer,
        may_change=writer.may_change,
        refused=writer.too_old,
        first_only=writer.quiet,
        inbound_id=inbound_id,
        address_leaving=address_leaving,
    )
    _keep(round, writer)
    round.outcome, round.summary = round.mail_outcome, told(round.results)
    if writer.role is Role.GM and writer.too_old:
        round.outcome, round.summary = MailOutcome.REFUSED, "game master token expired"
    return round


def _keep(round: Round, writer: Writer) -> None:
    """What the game keeps of the lines: the game master's changes in its log, the mail
    answered as used, and the reply's replay key (the one for a mail that acted, else the
    one for a game and seat as they are)."""
    table = round.table
    if writer.role in (Role.GM, Role.HOST):
        for result in round.results:
            if result.outcome == LineOutcome.APPLIED:
                _log_gm(table, writer.actor, result)
    if writer.sent is not None and round.applied:
        writer.sent.used_at = table.now
    if writer.keys is not None and round.results:
        acted = round.applied and not writer.too_old
        inbound = round.inbound_id
        key = writer.keys[0 if acted else 1]
        # one INSERT now (nothing reads the row back as an object): the round's reads that
        # follow need not flush it first
        table.db.connection().execute(_USED, {"key": key, "inbound_id": inbound, "at": table.now})


def _log_gm(table: Table, actor: str, result: LineResult) -> None:
    game_id = table.game.id
    assert game_id is not None
    said = shown(result.line)  # what is stored and logged: one line, no control chars
    table.db.add(
        GmAction(game_id=game_id, at=table.now, actor=actor, command=said, detail=result.detail)
    )
    log.info("game %s: game master %s: %s -> %s", game_id, actor, said, shown(result.detail))


def told(results: Sequence[LineResult]) -> str:
    """What the lines of a mail came to, for the log and the inbound row."""
    said = [
        f"{r.line} -> {r.outcome}" + (f" ({r.detail})" if r.detail and r.detail != r.line else "")
        for r in results
    ]
    return "; ".join(said)[:500]
