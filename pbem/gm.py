"""The game master at work, from the host's command line or by mail: the commands
(`pbem.gm_commands`) run in order until one fails, each one that changed the game logged in
`GmAction` with who gave it, and everyone told.
"""

from __future__ import annotations

import logging
from datetime import datetime

from engine import Message
from pbem import letters
from pbem.addressing import Tag
from pbem.budget import may_answer
from pbem.clock import as_utc
from pbem.commands import Round, run_lines
from pbem.db import hold_game, session
from pbem.gm_commands import GM_COMMANDS, HOST, GmError, gm_help
from pbem.inbound import shown
from pbem.kinds import AnswerKind, LineOutcome
from pbem.models import GmAction
from pbem.service import Service
from pbem.table import Table
from pbem.view import Answer, LineResult

log = logging.getLogger(__name__)


class GameMaster:
    """Runs game master commands on the games of `service`."""

    def __init__(self, service: Service) -> None:
        self.service = service

    def run_host(
        self, game_id: int, lines: list[str], now: datetime
    ) -> tuple[list[LineResult], list[Answer]]:
        """Commands from the host's command line: their results, and the answers to status,
        log, board and help. Raises GameError if there is no such game."""
        with session(self.service.engine) as db:
            hold_game(db, game_id)  # PostgreSQL: no service works on the game meanwhile
            table = self.service.table(db, game_id, as_utc(now))
            round = self.run(table, lines, actor=HOST, answering=None)
            db.commit()
        return round.results, round.answers

    def run(
        self,
        table: Table,
        lines: list[str],
        *,
        actor: str,
        answering: Tag | None,
        may_change: bool = True,
    ) -> Round:
        """Apply `lines` in order until one fails; announce what was done; answer by mail
        when the commands came by mail (`answering` is the tag of the mail answered, with the
        decision open when it was sent). Without `may_change` (a mail whose commands changed
        the game once already) only status, log, board and help are answered."""
        round = Round(
            table,
            actor,
            None,
            answering,
            opened=table.game.decision,
            may_change=may_change,
        )
        run_lines(round, lines, GM_COMMANDS)
        game_id = table.game.id
        assert game_id is not None
        for result in round.results:
            if result.outcome != LineOutcome.APPLIED:
                continue
            said = shown(result.line)  # what is stored and logged: one line, no control chars
            table.db.add(
                GmAction(
                    game_id=game_id, at=table.now, actor=actor, command=said, detail=result.detail
                )
            )
            log.info(
                "game %s: game master %s: %s -> %s", game_id, actor, said, shown(result.detail)
            )
        self._tell(round)
        return round

    def _tell(self, round: Round) -> None:
        """Mail the players what the game master did, the new players their welcome, and
        the game master their results."""
        mail, table = self.service.mail, round.table
        for farewell in round.farewells:  # addressed as the seat was, before the commands
            mail.post(table, farewell, None)
        if round.welcome:
            at, _ = mail.moment(table)
            for seat in round.welcome:
                mail.queue(table, seat, letters.welcome(at, seat.seat), None)
        mail.welcome_watchers(table, round.watchers)
        mail.invite(table, round.invited)
        if round.announced or round.events:
            mail.queue_round(
                table,
                round.events,
                announced=round.announced,
                subject=Message("News from the game master"),
                welcomed=round.watchers,
            )
        if round.answering is not None and not round.applied:  # an answer alone: in the budget
            kind = AnswerKind.ERROR if round.failed else AnswerKind.ANSWER
            per_day = self.service.settings.answers_per_day
            if not may_answer(table.db, round.actor, kind, table.now, per_day):
                return
        if round.answering is not None:
            verbs = ", ".join(dict.fromkeys(r.line.split()[0].lower()[:20] for r in round.results))
            verbs = shown(verbs, 60) or "-"
            subject = (
                Message("Not applied: {commands}", commands=verbs)
                if round.failed
                else Message("Done: {commands}", commands=verbs)
            )
            mail.queue_gm(
                table,
                subject=subject,
                results=round.results,
                answers=round.answers,
                show_board=round.show_board,
                to=[round.actor],
            )
        elif round.announced:  # to every game master of the game
            mail.queue_gm(
                table,
                subject=Message("The host acted as game master"),
                notice=Message("The host gave game master commands on the command line."),
                happened=round.announced,
            )


__all__ = ["HOST", "GameMaster", "GmError", "gm_help"]
