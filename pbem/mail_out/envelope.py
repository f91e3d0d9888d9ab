"""A mail to a seat addressed as the game stands at this moment (`Envelope`): the reply
address of the seat and the decision open now, the table talk the player has not read yet,
who watches, and the calendar part of the open decision. Addressing a mail marks that talk
read and the calendar event sent or cancelled; putting it in the outbox is
`pbem.mail_out.mailing`'s.

Commands address the mails they cause here (a player who loses their seat gets a last mail,
addressed as the seat was) and the game master's flow queues them after the commands.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from sqlmodel import col, select

from engine import Message
from pbem.core import GameStatus, Tag, as_utc, token
from pbem.game.table import Table
from pbem.mail_out import calendar as ics
from pbem.mail_out import policy
from pbem.store import Seat, Talk
from pbem.views import i18n, news, view


@dataclass(frozen=True)
class Envelope:
    """A mail to one player, addressed: ready for the outbox."""

    address: str
    mail: view.Mail  # with the unread table talk and who watches
    tag: Tag  # the reply address: the seat and the decision open when it was addressed
    calendar: bytes | None  # the event of the open decision, or its cancelling
    words: i18n.Words  # the reader's language
    resigned: bool = False  # to a player who left the game: only the commands that look
    leaving: bool = False  # the last mail to a player who loses the seat: no commands


def envelope(table: Table, seat: Seat, mail: view.Mail, *, leaving: bool = False) -> Envelope:
    """`mail` to `seat` as the game stands now; its reply address names the seat and the
    decision open now, so that any mail of the game can be answered. The last mail to a
    player `leaving` the seat cancels their calendar event, even of a decision still open."""
    game = table.game
    assert seat.address is not None and game.id is not None
    number = mail.decision.number if mail.decision is not None else game.decision
    signed = token(seat.secret, game.id, seat.seat, number, game.epoch)
    talk = talk_for(table, seat.talk_seen, seat.seat)
    if talk:
        seat.talk_seen = talk[-1].id or seat.talk_seen
    mail = replace(
        mail,
        talk=tuple(said(t, seat.seat) for t in talk),
        watching=tuple(o.name for o in table.observers),
    )
    return Envelope(
        seat.address,
        mail,
        Tag(game.id, seat.seat, number, signed),
        _calendar(table, seat, mail, leaving),
        i18n.words(seat.lang, seat.tz),
        seat.resigned,
        leaving,
    )


def talk_for(table: Table, seen: int, seat: int | None) -> list[Talk]:
    """Table talk after `seen` that `seat` may read (None: an observer), oldest first:
    what was said to everyone and to that seat, not what the seat said itself."""
    query = select(Talk).where(Talk.game_id == table.game.id, col(Talk.id) > seen)
    talk = list(table.db.exec(query.order_by(col(Talk.id))))
    if seat is None:
        return [t for t in talk if t.to_seat is None]
    return [t for t in talk if t.seat != seat and t.to_seat in (None, seat)]


def said(talk: Talk, reader: int | None) -> str:
    """A line of table talk as its reader sees it."""
    if talk.to_seat is None:
        return Message(
            "{speaker} to the table: {text}", speaker=news.speaker(talk.speaker), text=talk.text
        )
    if talk.to_seat == reader:
        return Message(
            "{speaker} to you only: {text}", speaker=news.speaker(talk.speaker), text=talk.text
        )
    return Message(
        "{speaker} to {to}: {text}", speaker=news.speaker(talk.speaker), to="", text=talk.text
    )


def _calendar(table: Table, seat: Seat, mail: view.Mail, leaving: bool) -> bytes | None:
    """The calendar part of a mail to `seat` (`policy.calendar`): the deadline of their open
    decision when it is new or moved (a request, updated by every later one), the cancelling
    of that event with the first mail after the decision was made (by the player, a bot or
    the game at its deadline) or the game paused; nothing while it stands as the calendar has
    it (a mail of table talk, a reminder, an answer to `status`)."""
    game, now, settings = table.game, table.now, table.settings
    assert game.id is not None and seat.address is not None
    decision = table.state.decision
    running = game.status == GameStatus.RUNNING and game.clock_from is not None
    decides = not leaving and running and decision is not None and decision.seat == seat.seat
    deadline = as_utc(game.deadline_at) if decides and game.deadline_at is not None else None
    sent = as_utc(seat.calendar_at) if seat.calendar_at is not None else None
    asks = mail.decision is not None or mail.until is not None
    part = policy.calendar(
        decides=decides, asks=asks, deadline=deadline, sent=sent, open=seat.calendar_open
    )
    if part is policy.Calendar.REQUEST:
        assert game.clock_from is not None and deadline is not None and decision is not None
        seat.calendar_open, seat.calendar_at = True, deadline
        return _request(table, seat, decision.number, deadline)
    if part is policy.Calendar.CANCEL:
        seat.calendar_open, seat.calendar_at = False, None
        return ics.cancel_event(
            summary=i18n.words(seat.lang).say(
                Message("Tongiaki game {game}: no decision of yours is open", game=game.id)
            ),
            game_id=game.id,
            seat=seat.seat,
            organizer_address=settings.from_address,
            organizer_name=settings.from_name,
            attendee=seat.address,
            now=now,
        )
    return None


def _request(table: Table, seat: Seat, number: int, deadline: datetime) -> bytes:
    """The calendar event of the deadline of `seat`'s open decision `number`."""
    game, now, settings = table.game, table.now, table.settings
    assert game.id is not None and game.clock_from is not None and seat.address is not None
    words = i18n.words(seat.lang, seat.tz)
    return ics.deadline_event(
        summary=words.say(
            Message("Tongiaki game {game}: your decision {number}", game=game.id, number=number)
        ),
        description=words.say(
            Message(
                "The deadline of your decision {number} in Tongiaki game {game} is "
                "{deadline}. Reply to the game's mail with your choice before then; "
                "after it the game moves for you.",
                number=number,
                game=game.id,
                deadline=view.when(deadline),  # in the reader's locale and zone
            )
        ),
        game_id=game.id,
        seat=seat.seat,
        decision_number=number,
        deadline_at=deadline,
        first_reminder_at=ics.first_reminder(
            as_utc(game.clock_from), deadline, settings.parsed_reminders, now
        ),
        organizer_address=settings.from_address,
        organizer_name=settings.from_name,
        attendee=seat.address,
        now=now,
    )


__all__ = ["Envelope", "envelope", "said", "talk_for"]
