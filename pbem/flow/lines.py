"""The lines of one writer run on one game, whoever wrote them (a player, an observer, a game
master by mail or on the host's command line): one `Round`, one registry, what the game
keeps of it (the move's save, the game master's log, the replay key)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import engine
from pbem.commands.player import asked_before, greeting, remember_asked
from pbem.commands.registry import Round, after_rejected, run_lines
from pbem.core.kinds import LineOutcome
from pbem.core.text import shown
from pbem.flow.who import Role, Writer
from pbem.game.table import Table
from pbem.store.models import GmAction, ReplyUse, Seat
from pbem.views import news, view
from pbem.views.view import LineResult

log = logging.getLogger(__name__)

GREETING = engine.Message("a greeting, not a command: skipped, as a line after it moves")


def act(
    table: Table,
    writer: Writer,
    lines: Sequence[str],
    *,
    inbound_id: int | None = None,
    address_leaving: Callable[[Seat, view.Mail], Any] | None = None,
) -> Round:
    """Run `lines` of `writer` on `table` until one fails, and keep what the game keeps of
    them. A writer whose reply address no longer acts has every line refused with its
    reason, through the same results."""
    round = Round(
        table,
        writer.actor,
        writer.seat,
        writer.answering,
        opened=table.game.decision,
        may_change=writer.may_change,
        inbound_id=inbound_id,
        observer=writer.observer,
        address_leaving=address_leaving,
    )
    if writer.seat is not None and writer.answering is not None:
        round.asked_before = asked_before(writer.seat, writer.answering.decision, table.now)
    if writer.too_old:
        first, *rest = lines or ["(nothing)"]
        round.results += [LineResult(first, LineOutcome.REJECTED, writer.too_old)]
        round.results += [after_rejected(line) for line in rest]
    else:
        _run(round, writer, lines)
    _keep(round, writer)
    return round


def _run(round: Round, writer: Writer, lines: Sequence[str]) -> None:
    if writer.quiet:  # an agent's or another address's mail to an observer: `stop` alone
        lines = lines[:1]
    skipped = greeting(round, lines, writer.commands) if writer.role is Role.PLAYER else 0
    for line in lines[:skipped]:  # "Hi everyone!" above a move
        round.results.append(LineResult(line, LineOutcome.IGNORED, GREETING))
    run_lines(round, lines[skipped:], writer.commands)
    if writer.seat is not None:
        remember_asked(round)
        _back(round, writer.seat)
        if round.moves:
            round.table.save()


def _back(round: Round, seat: Seat) -> None:
    """A player marked absent who wrote a line that was read plays again."""
    done = (LineOutcome.APPLIED, LineOutcome.ANSWERED)
    if not seat.absent or not any(r.outcome in done for r in round.results):
        return
    seat.absent = False
    seat.auto_moves = 0
    round.announced.insert(
        0,
        engine.Message(
            "{name} ({colour}) is back and plays again.",
            name=seat.name,
            colour=news.colour(seat.colour),
        ),
    )


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
        table.db.add(ReplyUse(key=writer.keys[0 if acted else 1], inbound_id=inbound, at=table.now))


def _log_gm(table: Table, actor: str, result: LineResult) -> None:
    game_id = table.game.id
    assert game_id is not None
    said = shown(result.line)  # what is stored and logged: one line, no control chars
    table.db.add(
        GmAction(game_id=game_id, at=table.now, actor=actor, command=said, detail=result.detail)
    )
    log.info("game %s: game master %s: %s -> %s", game_id, actor, said, shown(result.detail))
