"""A mail to a seat (a player) addressed, rendered and queued: `SeatPost` addresses it as
the game stands (`pbem.mail_out.envelope`), has `Post` render and queue it, and then writes
what queueing it changes on the seat (the talk it tells read, its calendar part sent)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from engine import Joined, Message
from pbem.commands.manual import NO_COMMANDS, RESIGNED_HELP
from pbem.core import GameStatus, as_utc
from pbem.game.table import Table
from pbem.mail_out import policy
from pbem.mail_out.board import BoardPicture, folded
from pbem.mail_out.envelope import Envelope, addressed, marked
from pbem.mail_out.outbox import Post
from pbem.store import Game, Seat, Talk
from pbem.views import view
from pbem.views.view import CommandHelp


class SeatPost(Post):
    """`Post`, and the mails to the seats of a game."""

    def queue(
        self,
        table: Table,
        seat: Seat,
        mail: view.Mail,
        picture: BoardPicture | None,
        *,
        digest: bool = False,
        asked: bool = False,
        talk: Sequence[Talk] | None = None,
    ) -> None:
        """Render a mail and put it in the outbox; its reply address names the seat and the
        decision open now, so that any mail of the game can be answered. It carries the
        board picture where `policy.picture` says (a `digest`, a board the player `asked`
        for, their prompt), by the player's choice. `talk`: the game's unread table talk,
        read once for the round. Once queued, its talk is read and its calendar part sent."""
        if mail.picture and not policy.picture(seat.picture, mail.kind, digest=digest, asked=asked):
            mail = replace(mail, picture=None)
        mail = folded(mail, digest=digest, asked=asked)
        letter = addressed(table, seat, mail, talk=talk)
        self.post(table, letter, picture)
        marked(seat, letter)

    def post(self, table: Table, letter: Envelope, picture: BoardPicture | None) -> None:
        """Render a mail addressed already and put it in the outbox."""
        mail, record = self.records.attached(table, letter.mail)
        self.send(
            table,
            letter.address,
            mail,
            tag=letter.tag,
            picture=picture,
            calendar=letter.calendar,
            record=record,
            words=letter.words,
            commands=self._help(letter),
        )

    def _help(self, letter: Envelope) -> CommandHelp:
        """The commands a mail to a player lists: none in the last mail of a seat, those
        that look to a player who resigned, all of them to a player."""
        if letter.leaving:
            return NO_COMMANDS
        return RESIGNED_HELP if letter.resigned else self.commands

    def deadline_view(self, game: Game, seat: Seat) -> view.Deadline | None:
        """The open decision's deadline as `seat` reads it: in UTC and in their zone."""
        if game.deadline_at is None or game.status != GameStatus.RUNNING:
            return None
        return view.deadline(as_utc(game.deadline_at), seat.tz)

    def remark(self, seat: Seat, note: str = "") -> str:
        """A word to a player about how their seat is played, when it is not by them, and the
        `note` for them."""
        said = self._played_by(seat)
        return Joined(" ", [said, note]) if said and note else said or note

    def _played_by(self, seat: Seat) -> str:
        if seat.resigned:
            return Message(
                "You resigned from this game: the {bot} bot plays your seat to the end.",
                bot=seat.bot or self.settings.absent_bot,
            )
        if seat.absent:
            return Message(
                "You are marked absent: the game moves for you (the {bot} bot plays your seat "
                "without waiting while another player plays on). Reply to this mail with any "
                "command (status, for example) to play again.",
                bot=self.settings.absent_bot,
            )
        if seat.bot:
            return Message(
                "The game master has the {bot} bot play your seat for now.", bot=seat.bot
            )
        return ""


__all__ = ["SeatPost"]
