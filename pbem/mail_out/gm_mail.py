"""The game masters' mails: what happened in their game, their commands' results, the
table talk when the host lets them read it. Each mail has a number of its own (`GmTag`): a
reply to it acts once."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import func, select

from engine import Message
from pbem.core import GM_SEAT, GameStatus, MailKind, Tag, as_utc, gm_token
from pbem.game.table import Table
from pbem.mail_out.board import moment
from pbem.mail_out.gm_words import gm_lang, gm_seat
from pbem.mail_out.held import name
from pbem.mail_out.outbox import Post
from pbem.store import GmTag, Talk
from pbem.views import i18n, news, view
from pbem.views.view import Answer, LineResult


class GmMails:
    """The game masters' mails of the games, rendered and queued by `post`."""

    def __init__(self, post: Post) -> None:
        self.post = post

    def queue_gm(
        self,
        table: Table,
        *,
        subject: str,
        notice: str = "",
        results: Sequence[LineResult] = (),
        answers: Sequence[Answer] = (),
        happened: Sequence[str] = (),
        show_board: bool = False,
        to: Sequence[str] | None = None,
    ) -> None:
        """A mail to the game masters (the game's own and the host's, or `to`), answerable
        with game master commands."""
        game = table.game
        assert game.id is not None
        recipients = list(to) if to is not None else table.gm_addresses()
        if not recipients:
            return
        at, picture = moment(self.post.settings, table)
        mail = view.GmMail(
            kind=MailKind.GM,
            game=game.id,
            subject=subject,
            notice=notice,
            results=tuple(results),
            answers=tuple(answers),
            happened=tuple(happened),
            status=at.waiting,
            deadline=view.deadline(as_utc(game.deadline_at))
            if game.deadline_at is not None and game.status == GameStatus.RUNNING
            else None,
            seats=tuple(gm_seat(seat, self.post.settings.absent_bot) for seat in table.seats),
            board=at.board if show_board else None,
            final=at.final,
            picture=at.picture if show_board else None,
        )
        tag = self._tag(table)
        for address in dict.fromkeys(recipients):
            words = i18n.words(gm_lang(game, address))
            self.post.send(
                table, address, mail, tag=tag, picture=picture if show_board else None, words=words
            )

    def _tag(self, table: Table) -> Tag:
        """The reply address of a new mail to the game masters: a number of its own, kept."""
        db, game = table.db, table.game
        assert game.id is not None
        last = select(func.max(GmTag.serial)).where(GmTag.game_id == game.id)
        serial = (db.exec(last).one() or 0) + 1
        db.add(GmTag(game_id=game.id, serial=serial, decision=game.decision, sent_at=table.now))
        return Tag(game.id, GM_SEAT, serial, gm_token(game.gm_secret, game.id, serial))

    def deliver_talk(self, table: Table, said: Sequence[Talk]) -> None:
        """Table talk just said: the game masters read it at once when the host lets them
        (every time: `talk_per_day` bounds them); the players get it from the clock
        (`send_talk`) or with their next mail of the game."""
        if not said or not self.post.settings.gm_reads_talk:
            return
        names = {s.seat: name(s) for s in table.seats}
        lines = [
            Message("{speaker} to the table: {text}", speaker=news.speaker(t.speaker), text=t.text)
            if t.to_seat is None
            else Message(
                "{speaker} to {to}: {text}",
                speaker=news.speaker(t.speaker),
                to=names[t.to_seat],
                text=t.text,
            )
            for t in said
        ]
        subject = Message("Table talk in game {game}", game=table.game.id)
        self.queue_gm(table, subject=subject, happened=lines)


__all__ = ["GmMails"]
