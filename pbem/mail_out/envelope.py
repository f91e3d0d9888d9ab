"""A mail to a seat addressed as the game stands at this moment (`Envelope`): the reply
address of the seat and the decision open now, the table talk the player has not read yet,
who watches, and the calendar part of the open decision. Addressing reads only
(`addressed`); what the mail changes on the seat (that talk read, the calendar event sent or
cancelled: its `Marks`) is written when it is queued (`marked`), after it was rendered.

Commands address the mails they cause here (a player who loses their seat gets a last mail,
addressed as the seat was) and the game master's flow queues them after the commands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import bindparam
from sqlmodel import col, select

from engine import Message
from pbem.core import GameStatus, Tag, as_utc, observer_seat, token
from pbem.game.table import Table
from pbem.mail_out import calendar as ics
from pbem.mail_out import policy
from pbem.store import Observer, Seat, Talk, found_any, read_rows_of
from pbem.views import i18n, news, view

# a game's table talk after a line, read by every round: built once
_SAID = (Talk.game_id == bindparam("game"), col(Talk.id) > bindparam("seen"))
_TALK = select(Talk).where(*_SAID).order_by(col(Talk.id))
_ANY_TALK = select(col(Talk.id)).where(*_SAID).limit(1)  # mostly none: asked first


@dataclass(frozen=True)
class Marks:
    """What queueing a mail to a seat writes on it."""

    talk_seen: int  # the last line of table talk it tells
    calendar: tuple[bool, datetime | None] | None = None  # (open, at) when its part changes it


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
    marks: Marks | None = None  # what queueing it writes on the seat (`marked`)


def envelope(table: Table, seat: Seat, mail: view.Mail, *, leaving: bool = False) -> Envelope:
    """`mail` to `seat` as the game stands now, addressed and marked on the seat at once (the
    last mail to a player `leaving` the seat is addressed before the commands change it)."""
    letter = addressed(table, seat, mail, leaving=leaving)
    marked(seat, letter)
    return letter


def addressed(
    table: Table,
    seat: Seat,
    mail: view.Mail,
    *,
    leaving: bool = False,
    talk: Sequence[Talk] | None = None,
) -> Envelope:
    """`mail` to `seat` as the game stands now; its reply address names the seat and the
    decision open now, so that any mail of the game can be answered. The last mail to a
    player `leaving` the seat cancels their calendar event, even of a decision still open.
    `talk`: the game's table talk read already for the round (else it is read here). Reads
    only: what the mail changes on the seat is in its `marks`."""
    game = table.game
    assert seat.address is not None and game.id is not None
    number = mail.decision.number if mail.decision is not None else game.decision
    signed = token(seat.secret, game.id, seat.seat, number, game.epoch)
    unread = talk_for(table, seat.talk_seen, seat.seat, talk)
    mail = replace(
        mail,
        talk=tuple(said(t, seat.seat) for t in unread),
        watching=tuple(o.name for o in table.observers),
    )
    part, calendar = _calendar(table, seat, mail, leaving)
    seen = (unread[-1].id or seat.talk_seen) if unread else seat.talk_seen
    return Envelope(
        seat.address,
        mail,
        Tag(game.id, seat.seat, number, signed),
        part,
        i18n.words(seat.lang, seat.tz),
        seat.resigned,
        leaving,
        Marks(seen, calendar),
    )


def observer_tag(table: Table, watcher: Observer) -> Tag:
    """The tag of a mail to an observer: their reply address, for their commands and
    their `stop`."""
    game = table.game
    assert game.id is not None and watcher.id is not None
    seat = observer_seat(watcher.id)
    signed = token(watcher.secret, game.id, seat, game.decision, game.epoch)
    return Tag(game.id, seat, game.decision, signed)


def watcher_addressed(
    table: Table, watcher: Observer, mail: view.Mail, talk: Sequence[Talk] | None = None
) -> Envelope:
    """`mail` to someone who watches the game, with the table talk to everyone they have not
    read (but their own), in the game's language; reads only, as `addressed`."""
    unread = [
        t for t in talk_for(table, watcher.talk_seen, None, talk) if t.observer_id != watcher.id
    ]
    mail = replace(
        mail,
        talk=tuple(said(t, None) for t in unread),
        watching=tuple(o.name for o in table.observers),
    )
    seen = (unread[-1].id or watcher.talk_seen) if unread else watcher.talk_seen
    tag = observer_tag(table, watcher)
    words = i18n.words(table.game.lang)
    return Envelope(watcher.address, mail, tag, None, words, marks=Marks(seen))


def marked(seat: Seat | Observer, letter: Envelope) -> None:
    """What a mail queued to `seat` changes on it: the talk it tells is read, its calendar
    part sent or cancelled."""
    if letter.marks is None:
        return
    if seat.talk_seen != letter.marks.talk_seen:  # a row set alike still goes through a flush
        seat.talk_seen = letter.marks.talk_seen
    if letter.marks.calendar is not None and isinstance(seat, Seat):
        seat.calendar_open, seat.calendar_at = letter.marks.calendar


def talk_for(
    table: Table, seen: int, seat: int | None, talk: Sequence[Talk] | None = None
) -> list[Talk]:
    """Table talk after `seen` that `seat` may read (None: an observer), oldest first:
    what was said to everyone and to that seat, not what the seat said itself; from `talk`
    (the game's talk after at most `seen`, read for all readers of a round) when given."""
    talk = talk_since(table, seen) if talk is None else [t for t in talk if (t.id or 0) > seen]
    if seat is None:
        return [t for t in talk if t.to_seat is None]
    return [t for t in talk if t.seat != seat and t.to_seat in (None, seat)]


def talk_since(table: Table, seen: int) -> list[Talk]:
    """The game's table talk after line `seen`, oldest first: one query."""
    asked = {"game": table.game.id, "seen": seen}
    if not found_any(table.db, Talk, _ANY_TALK, asked):
        return []
    with read_rows_of(table.db, Talk):
        return list(table.db.exec(_TALK, params=asked))


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


def _calendar(
    table: Table, seat: Seat, mail: view.Mail, leaving: bool
) -> tuple[bytes | None, tuple[bool, datetime | None] | None]:
    """The calendar part of a mail to `seat` (`policy.calendar`): the deadline of their open
    decision when it is new or moved (a request, updated by every later one), the cancelling
    of that event with the first mail after the decision was made (by the player, a bot or
    the game at its deadline) or the game paused; nothing while it stands as the calendar has
    it (a mail of table talk, a reminder, an answer to `status`). With the part, the seat's
    calendar as it will stand once the mail is queued (open, at), or None: unchanged."""
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
        return _request(table, seat, decision.number, deadline), (True, deadline)
    if part is policy.Calendar.CANCEL:
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
        ), (False, None)
    return None, None


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


__all__ = [
    "Envelope",
    "Marks",
    "addressed",
    "envelope",
    "marked",
    "observer_tag",
    "said",
    "talk_for",
    "talk_since",
    "watcher_addressed",
]
