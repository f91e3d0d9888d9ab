"""The mails of a moment of a game, for the flow: `Mailer` is the one face of the pieces
of `pbem.mail_out` that make them, each rendered, composed and put in the outbox in the
caller's transaction (sending is the runner's job).

Who gets what is `policy`'s (pure); the pieces do what it says: `rounds` (the players'
mails of a round), `watchers` and `invitations` (the observers'), `talk` (table talk in a
mail of its own), `gm_mail` (the game masters'), `seats` (a mail to a seat addressed,
queued, and what queueing it writes on the seat), `outbox` (render, compose, queue),
`held` (news kept for a reader, the `caused_per_day` bound), `board` (what the mails of a
round share, with the picture). Rendering writes nothing: the rows (`Held`, `Caused`,
`Outbox`) and the seat's `talk_seen` and calendar are written by the queueing step."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import ParamSpec, TypeVar

from pbem.core import Settings
from pbem.mail_out.board import BoardPicture, moment
from pbem.mail_out.gm_mail import GmMails
from pbem.mail_out.held import HELD_LINES, held_news, news_seen
from pbem.mail_out.invitations import Invitations
from pbem.mail_out.rounds import RoundMails
from pbem.mail_out.seats import SeatPost
from pbem.mail_out.talk import TalkMails
from pbem.mail_out.watchers import WatcherMails

P = ParamSpec("P")
R = TypeVar("R")


def _face(method: Callable[P, R]) -> Callable[P, R]:
    """A piece's method called through the face: the flow hands its mails to this one
    module (the way of a reply passes `mail_out` once: `tests/test_way.py`)."""

    def face(*args: P.args, **kwargs: P.kwargs) -> R:
        return method(*args, **kwargs)

    face.__doc__ = method.__doc__
    return face


class Mailer:
    """Queues the mails of a game for one configuration of the service: the methods of its
    pieces, under the names and arguments the flow calls."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        post = self.seat_post = SeatPost(settings)
        self.commands, self.records = post.commands, post.records
        watchers, invitations = WatcherMails(post), Invitations(post)
        rounds, gm, talk = RoundMails(post, watchers), GmMails(post), TalkMails(post)
        # a mail to a player, and the words of their mails
        self.queue, self.post = _face(post.queue), _face(post.post)
        self.queue_notice = _face(post.queue_notice)
        self.deadline_view, self.remark = _face(post.deadline_view), _face(post.remark)
        # what the mails of a round share, with the board picture: made once per round
        self.moment = _face(partial(moment, settings))
        # the rounds: the players' mails, then the observers'
        self.queue_round, self.reader = _face(rounds.queue_round), _face(rounds.reader)
        self.watchers_hear = _face(watchers.watchers_hear)
        self.queue_watch = _face(watchers.queue_watch)
        self.welcome_watchers = _face(watchers.welcome_watchers)
        self.observer_tag = _face(watchers.observer_tag)
        self.invite = _face(invitations.invite)
        self.queue_stopped = _face(invitations.queue_stopped)
        # table talk and the game masters
        self.send_talk, self.deliver_talk = _face(talk.send_talk), _face(gm.deliver_talk)
        self.queue_gm = _face(gm.queue_gm)


__all__ = ["HELD_LINES", "BoardPicture", "Mailer", "held_news", "news_seen"]
