"""Table talk to a player in a mail of its own, when they want it at once: gathered for a
few minutes, charged to its speakers (`caused_per_day`)."""

from __future__ import annotations

from pbem.core import as_utc
from pbem.game.table import Table
from pbem.mail_out import policy
from pbem.mail_out.board import moment
from pbem.mail_out.envelope import talk_for
from pbem.mail_out.held import may_cause
from pbem.mail_out.seats import SeatPost
from pbem.store import Observer, Seat
from pbem.views import letters


class TalkMails:
    """The players' mails of table talk, rendered and queued by `post`."""

    def __init__(self, post: SeatPost) -> None:
        self.post = post

    def send_talk(self, table: Table, seat: Seat) -> bool:
        """The table talk `seat` has not read, in one mail now if `policy.talk_due` says so:
        charged to its speakers, each of whom may cause `caused_per_day` such mails a day to
        this reader (a speaker past it rides along with the others' talk, or waits for the
        reader's next mail). Whether a mail was queued."""
        unread = talk_for(table, seat.talk_seen, seat.seat)
        said_at = [as_utc(t.at) for t in unread]
        if not seat.address or seat.resigned:
            return False
        if not policy.talk_due(said_at, table.now, talk_now=seat.talk_now):
            return False
        speakers = {(t.seat, t.observer_id) for t in unread}
        settings = self.post.settings
        charged = [may_cause(settings, table, who, seat) for who in _speakers(table, speakers)]
        if not any(charged):
            return False
        at, _ = moment(settings, table)
        self.post.queue(table, seat, letters.talk(at, seat.seat), None)
        return True


def _speakers(table: Table, speakers: set[tuple[int | None, int | None]]) -> list[Seat | Observer]:
    """The seats and observers who said the talk, by seat number or observer id."""
    found: list[Seat | Observer] = []
    for number, observer_id in sorted(speakers, key=str):
        if number is not None:
            found.append(table.seats[number])
        else:
            found += [o for o in table.observers if o.id == observer_id]
    return [who for who in found if who.address]


__all__ = ["TalkMails"]
