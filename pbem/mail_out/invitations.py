"""The short mails to someone the game master named as an observer: the invitation to
watch, and the one answer to their `stop`. Each in the game's language, answerable with the
observer's own reply address and List-Unsubscribe."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from engine import Message
from pbem.commands.manual import NO_COMMANDS
from pbem.core import MailKind, as_utc
from pbem.game.table import Table
from pbem.mail_out.envelope import observer_tag
from pbem.mail_out.outbox import Post, put
from pbem.store import INVITATION_DAYS, Game, Observer
from pbem.views import i18n, view
from pbem.views.view import when


def invitation(game: Game, watcher: Observer) -> view.Notice:
    """Who invites (the game, its game master, never their address nor the names and words
    the game master gave), how to accept, how to decline."""
    lapses = when(as_utc(watcher.added_at) + timedelta(days=INVITATION_DAYS))
    return view.Notice(
        kind=MailKind.INVITATION,
        subject=Message("Will you watch game {game}?", game=game.id),
        paragraphs=(
            Message(
                "The game master of game {game} of Tongiaki by email (a board game "
                "played by mail) invites you to watch it: a mail after each round with "
                "the news and the board, and the final result. You make no moves and "
                "nobody waits for you.",
                game=game.id,
            ),
            Message(
                "To accept, reply to this mail with the word watch. Until you do, "
                "this game mails you nothing more; without an answer by {time}, the "
                "invitation lapses.",
                time=lapses,
            ),
            Message(
                "If you do not want it, do nothing, or reply stop (your mail "
                "program's unsubscribe does the same): then no game master of this "
                "service invites you again."
            ),
        ),
        footer=Message(
            "Tongiaki by email. You get this mail because the game master of game "
            "{game} gave your address; a reply to it is read only for watch or stop.",
            game=game.id,
        ),
    )


def stopped(game: Game, *, invited: bool) -> view.Notice:
    """The answer to an observer's `stop` (one that was `invited` declined an invitation)."""
    said = (
        Message(
            "You said stop: this is the last mail you get from game {game}, and no game "
            "master of this service invites you to watch a game again.",
            game=game.id,
        )
        if invited
        else Message("You said stop: this is the last mail you get from game {game}.", game=game.id)
    )
    return view.Notice(
        kind=MailKind.NOTICE,
        subject=Message("No more mail from game {game}", game=game.id),
        paragraphs=(said,),
        footer=Message("Tongiaki by email. A reply to this mail is not read."),
    )


class Invitations:
    """The invitations to watch and the answers to `stop`, rendered and queued by `post`."""

    def __init__(self, post: Post) -> None:
        self.post = post

    def invite(self, table: Table, watchers: Sequence[Observer]) -> None:
        """Someone the game master named is asked whether they will watch: nothing else goes
        to them until then."""
        for watcher in watchers:
            queue_observer_notice(self.post, table, watcher, invitation(table.game, watcher))

    def queue_stopped(self, table: Table, watcher: Observer, *, invited: bool) -> None:
        """The one short answer to an observer's `stop` (a stop that was `invited` declined
        an invitation): after it, nothing."""
        queue_observer_notice(self.post, table, watcher, stopped(table.game, invited=invited))


def queue_observer_notice(post: Post, table: Table, watcher: Observer, notice: view.Notice) -> None:
    """A short mail to an observer (an invitation, the answer to a stop) in the game's
    language, answerable with their own reply address and List-Unsubscribe."""
    game = table.game
    assert game.id is not None
    tag = observer_tag(table, watcher)
    words = i18n.words(game.lang)
    message = post.notice(
        watcher.address,
        notice,
        words,
        now=table.now,
        game_id=game.id,
        tag=tag,
        commands=NO_COMMANDS,
    )
    put(table.db, game.id, watcher.address, message, table.now)


__all__ = ["Invitations", "invitation", "queue_observer_notice", "stopped"]
