"""The lines of one writer run on one game, whoever wrote them (a player, an observer, a game
master by mail or on the host's command line): one `Round`, one registry, what the game
keeps of it (the move's save, the game master's log, the replay key)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from pbem.commands.registry import Round
from pbem.commands.rounds import run_round
from pbem.core import LineOutcome, MailOutcome, Settings, shown
from pbem.flow.tell import tell
from pbem.flow.who import Role, Writer
from pbem.game.table import Table
from pbem.mail_out.envelope import envelope
from pbem.mail_out.mailing import Mailer
from pbem.store import GmAction, ReplyUse, Seat
from pbem.views.view import LineResult

log = logging.getLogger(__name__)


def answer(
    mail: Mailer,
    settings: Settings,
    table: Table,
    writer: Writer,
    lines: Sequence[str],
    inbound_id: int | None,
) -> tuple[MailOutcome, str]:
    """A mail's lines run and everyone told: the mail's outcome, and what it came to."""
    leaving = partial(envelope, table, leaving=True)
    round = act(table, writer, lines, inbound_id=inbound_id, address_leaving=leaving)
    note = tell(mail, settings, writer, round)
    if writer.role is Role.GM and writer.too_old:
        return MailOutcome.REFUSED, "game master token expired"
    return round.mail_outcome, told(round.results) + note


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
    reason, through the same results."""
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
        table.db.add(ReplyUse(key=writer.keys[0 if acted else 1], inbound_id=inbound, at=table.now))


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
