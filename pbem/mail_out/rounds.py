"""The players' mails of a round, as `policy.deliveries` says: the sender's answer, the
news and the prompt of whoever decides next now; news kept for a reader's digest or next
mail, or sent with the clock's next round; the observers' news after them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from engine import Event
from pbem.core import GameStatus, MailMode, as_utc
from pbem.game.table import Table
from pbem.mail_out import policy
from pbem.mail_out.board import BoardPicture, moment
from pbem.mail_out.held import Kept, held_news, hold, may_cause, news_seen
from pbem.mail_out.seats import SeatPost
from pbem.mail_out.watchers import WatcherMails
from pbem.store import Observer, Seat
from pbem.views import letters, view


@dataclass(frozen=True)
class Answering:
    """What the sender of a round's reply hears beside the news, and the subjects."""

    sender: Seat | None = None
    results: Sequence[view.LineResult] = ()
    answers: Sequence[view.Answer] = ()
    show_board: bool = False
    subject: str = ""
    told: Mapping[int, str] | None = None  # seats told under a subject of their own
    note: str = ""


class RoundMails:
    """The mails of the rounds of the games, rendered and queued by `post`."""

    def __init__(self, post: SeatPost, watchers: WatcherMails) -> None:
        self.post = post
        self.watchers = watchers

    def queue_round(
        self,
        table: Table,
        events: Sequence[Event],
        *,
        sender: Seat | None = None,
        answers: Sequence[view.Answer] = (),
        results: Sequence[view.LineResult] = (),
        show_board: bool = False,
        announced: Sequence[str] = (),
        subject: str = "",
        welcomed: Sequence[Observer] = (),
        told: Mapping[int, str] | None = None,
        note: str = "",
        cause: Seat | None = None,
        quiet: bool | None = None,
    ) -> None:
        """The mails of a round, as `policy.deliveries` says: the sender hears how their
        reply went (and the `note`, a word to them alone); after a move everyone hears what
        happened (but observers `welcomed` in this round, who got the board) and whoever
        decides next gets their options; a change that is no move (`quiet`: by default, a
        round without events) is a short line the clock's next round sends, gathered with the
        other changes of the poll. The seats `told` (by number) get it whatever their mail
        mode, under the subject given: news about them.

        `cause`: the seat whose command that moved nothing made this round's news (a
        vacation, a resignation): they hear nothing more of it, and each other reader gets
        at most `caused_per_day` such mails of theirs a day; past that, the reader's news
        waits for their next mail (`hold`)."""
        answering = Answering(sender, results, answers, show_board, subject, told or {}, note)
        at, picture = moment(self.post.settings, table, events, announced)
        happening = self.happening(table, at, answering, events, announced, cause, quiet)
        readers = [self.reader(table, seat) for seat in table.seats if seat.address]
        kept = Kept(table)  # what the readers were not told yet: read once for all of them
        with self.post.gathered(table.db):  # the round's mails put in the outbox in one statement
            for each in policy.deliveries(happening, readers):
                seat = table.seats[each.seat]
                send = each.send
                if cause and each.charged and not may_cause(self.post.settings, table, cause, seat):
                    send = each.past_bound
                if send is policy.Send.NOW:
                    self._now(table, seat, at, picture, happening, answering, each, kept)
                elif send is not policy.Send.NOTHING:
                    hold(table, seat, at.happened, cause, soon=send is policy.Send.SOON)
            if happening.news and not happening.quiet:
                self.watchers.watchers_hear(table, at, picture, skip=welcomed, cause=cause)

    def happening(
        self,
        table: Table,
        at: letters.Moment,
        answering: Answering,
        events: Sequence[Event],
        announced: Sequence[str],
        cause: Seat | None,
        quiet: bool | None,
    ) -> policy.Happening:
        """The round as `policy` sees it."""
        over = at.final is not None
        sender = answering.sender
        return policy.Happening(
            news=bool(events) or bool(announced),
            quiet=(not events and not over) if quiet is None else quiet and not over,
            sender=sender.seat if sender is not None else None,
            cause=cause.seat if cause is not None else None,
            told=frozenset(answering.told or {}),
            deadline_moved=self._deadline_moved(table),
            over=over,
        )

    def _now(
        self,
        table: Table,
        seat: Seat,
        at: letters.Moment,
        picture: BoardPicture,
        happening: policy.Happening,
        answering: Answering,
        each: policy.Delivery,
        kept: Kept,
    ) -> None:
        """The mail of this round to `seat`, with the news held for them, queued; the held
        news it tells leaves the database then."""
        mine = seat is answering.sender
        told = answering.told or {}
        mail = letters.letter(
            at,
            seat.seat,
            results=answering.results if mine else (),
            answers=answering.answers if mine else (),
            remark=self.post.remark(seat, answering.note if mine else ""),
            subject=told.get(seat.seat, answering.subject),
            show_board=happening.news or (mine and answering.show_board),
            deadline=self.post.deadline_view(table.game, seat),
            earlier=self._unseen(table, seat, kept) if each.catch_up else (),
        )
        rows = []
        if seat.mail_mode != MailMode.DIGEST and (mail.happened or mail.decision):
            rows = kept.held(seat.seat)  # the news of other players' commands that waited
        if rows:
            mail = replace(mail, happened=(*held_news(rows), *mail.happened))
        asked = mine and answering.show_board
        self.post.queue(table, seat, mail, picture, asked=asked, talk=kept.talk)
        kept.taken(rows)

    def reader(self, table: Table, seat: Seat) -> policy.Reader:
        """A seat as `policy` sees it: its settings, and whether the open decision is its."""
        decision = table.state.decision
        decides = (
            table.game.status == GameStatus.RUNNING
            and decision is not None
            and decision.seat == seat.seat
        )
        return policy.Reader(seat.seat, seat.mail_mode, seat.picture, seat.resigned, decides)

    def _deadline_moved(self, table: Table) -> bool:
        """Whether the open decision's deadline differs from the one its decider's calendar
        has: set, moved, or given back after a pause."""
        game, decision = table.game, table.state.decision
        if decision is None or game.deadline_at is None or game.status != GameStatus.RUNNING:
            return False
        sent = table.seats[decision.seat].calendar_at
        return sent is None or as_utc(sent) != as_utc(game.deadline_at)

    def _unseen(self, table: Table, seat: Seat, kept: Kept) -> Sequence[Event]:
        """What happened since the last mail a player of `mail turns` got, before this round."""
        seen = news_seen(kept.moves, seat.seat)
        if seen + 1 < table.opened:  # rounds this player got no mail of
            return table.events_between(seen, table.opened)
        return ()


__all__ = ["Answering", "RoundMails"]
