"""The mails of those who watch a game: their first mail with the board, the news of each
round (bounded by `caused_per_day` for news of a player's command that moved nothing).
Their invitation and the answer to their `stop` are `pbem.mail_out.invitations`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from engine import Message
from pbem.commands.manual import QUIET_WATCH_HELP, WATCH_HELP
from pbem.core import MailKind, Tag
from pbem.game.table import Table
from pbem.mail_out.board import BoardPicture, folded, moment
from pbem.mail_out.envelope import marked, observer_tag, talk_since, watcher_addressed
from pbem.mail_out.held import may_cause
from pbem.mail_out.outbox import Post
from pbem.store import Observer, Seat, Talk
from pbem.views import letters, view


class WatcherMails:
    """The observers' mails of the games, rendered and queued by `post`."""

    def __init__(self, post: Post) -> None:
        self.post = post

    def observer_tag(self, table: Table, watcher: Observer) -> Tag:
        """The tag of a mail to an observer: their reply address, for their commands and
        their `stop`."""
        return observer_tag(table, watcher)

    def queue_watch(
        self,
        table: Table,
        watcher: Observer,
        mail: view.Mail,
        picture: BoardPicture | None,
        *,
        pictured: bool = False,
        talk: Sequence[Talk] | None = None,
    ) -> None:
        """A mail to someone who watches the game; its reply address is theirs (for `say`,
        `status` and the other commands that look), and so is its List-Unsubscribe. The
        board picture goes with their first mail (`pictured`) and the game over. `talk`:
        the game's unread table talk, read once for the round."""
        game = table.game
        if not pictured and mail.kind != MailKind.GAME_OVER:
            mail = replace(mail, picture=None)
        mail = folded(mail, asked=pictured or bool(mail.answers))
        letter = watcher_addressed(table, watcher, mail, talk)
        mail, record = self.post.records.attached(table, letter.mail)
        self.post.send(
            table,
            watcher.address,
            mail,
            tag=letter.tag,
            picture=picture,
            record=record,
            words=letter.words,
            commands=WATCH_HELP if game.observers_talk else QUIET_WATCH_HELP,
            unsubscribe=True,
        )
        marked(watcher, letter)

    def welcome_watchers(self, table: Table, watchers: Sequence[Observer]) -> None:
        """Someone starts to watch the game: a first mail with the board."""
        if not watchers:
            return
        at, picture = moment(self.post.settings, table)
        for watcher in watchers:
            subject = Message("You watch game {game}", game=at.game)
            mail = letters.watch(at, watcher.name, subject=subject)
            self.queue_watch(table, watcher, mail, picture, pictured=True)

    def watchers_hear(
        self,
        table: Table,
        at: letters.Moment,
        picture: BoardPicture,
        *,
        sender: Observer | None = None,
        results: Sequence[view.LineResult] = (),
        answers: Sequence[view.Answer] = (),
        skip: Sequence[Observer] = (),
        cause: Seat | None = None,
    ) -> None:
        """Everyone who watches gets the news of this moment (the sender their answer); news
        a player's command that moved nothing made (`cause`), at most `caused_per_day`
        times a day of each player (past that, an observer does without it)."""
        talk: list[Talk] | None = None
        for watcher in table.observers:
            if any(watcher is other for other in skip):
                continue
            mine = watcher is sender
            if not mine and not at.happened and at.final is None:
                continue
            if (
                cause is not None
                and not mine
                and not may_cause(self.post.settings, table, cause, watcher)
            ):
                continue
            if talk is None:  # read once for all who watch
                talk = talk_since(table, min(o.talk_seen for o in table.observers))
            mail = letters.watch(
                at,
                watcher.name,
                results=results if mine else (),
                answers=answers if mine else (),
            )
            self.queue_watch(table, watcher, mail, picture, talk=talk)


__all__ = ["WatcherMails"]
