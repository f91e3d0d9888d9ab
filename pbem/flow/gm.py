"""The game master's commands on the host's command line: the same flow as a reply's
(`pbem.commands.rounds.act`, then `pbem.mail_out.tell`), with the host as the writer."""

from __future__ import annotations

from datetime import datetime
from functools import partial

from pbem.commands.gm import HOST, GmError, gm_help
from pbem.commands.rounds import act
from pbem.commands.writer import host
from pbem.core import as_utc
from pbem.flow.service import Service
from pbem.mail_out.envelope import envelope
from pbem.mail_out.tell import tell
from pbem.store import hold_game, session
from pbem.views.view import Answer, LineResult


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
            writer = host()
            leaving = partial(envelope, table, leaving=True)
            round = act(table, writer, lines, address_leaving=leaving)
            tell(self.service.mail, self.service.settings, writer, round)
            db.commit()
        return round.results, round.answers


__all__ = ["HOST", "GameMaster", "GmError", "gm_help"]
