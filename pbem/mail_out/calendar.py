"""The deadline of a player's open decision as a calendar event (iCalendar, RFC 5545/5546).

Pure: the caller passes every time. A game keeps one event per seat, named by
`event_uid`: each prompt carries a REQUEST for it (the deadline of the decision the seat
has open now), and the first mail to the seat after the decision is made carries a CANCEL.
A client replaces its copy when the same UID comes with a higher SEQUENCE; `sequence_at`
gives one that grows with every mail (see there).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from icalendar import STATUS, TRANSP, Alarm, Calendar, Event, vCalAddress

from pbem.core import Reminder, as_utc, reminder_times

PRODID = "-//Tongiaki by email//deadline//EN"
LENGTH = timedelta(minutes=15)  # the event is the last quarter hour before the deadline
_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


def event_uid(game_id: int, seat: int, domain: str) -> str:
    """The UID of a seat's deadline event in a game: every update of it names the same one."""
    return f"tongiaki-g{game_id}-s{seat}@{domain or 'localhost'}"


def sequence_at(now: datetime) -> int:
    """The SEQUENCE of an event sent at `now`: whole seconds since 2000-01-01 UTC.

    Each mail of the service to a seat is composed later than the one before, so each
    REQUEST or CANCEL outranks every earlier one, whatever moved (a deadline extended or
    shortened, a new decision, a decision taken back by the game master). It stays below
    2**31, the limit of many clients, until 2068."""
    return max(0, int((as_utc(now) - _EPOCH).total_seconds()))


def first_reminder(
    start: datetime, deadline: datetime, reminders: Sequence[Reminder], now: datetime
) -> datetime | None:
    """When the next reminder of the decision is due after `now` (the alarm of its event):
    the times of `pbem.core.clock.reminder_times`; None when no reminder is left."""
    return next((at for at in reminder_times(start, deadline, reminders) if at > now), None)


def deadline_event(
    *,
    game_id: int,
    seat: int,
    decision_number: int,
    deadline_at: datetime,
    first_reminder_at: datetime | None,
    organizer_address: str,
    now: datetime,
    sequence: int | None = None,
    summary: str | None = None,
    description: str | None = None,
    organizer_name: str = "",
    attendee: str | None = None,
) -> bytes:
    """A METHOD:REQUEST calendar with one event: the 15 minutes up to the deadline, with a
    DISPLAY alarm at `first_reminder_at` (none when it is None or not before the deadline).

    `sequence` defaults to `sequence_at(now)`; `now` is also the DTSTAMP. The attendee, when
    given, is marked as not asked to answer (RSVP=FALSE)."""
    deadline = as_utc(deadline_at)
    start = deadline - LENGTH
    domain = organizer_address.partition("@")[2]
    summary = summary or f"Tongiaki game {game_id}: your decision {decision_number}"
    event = Event.new(
        uid=event_uid(game_id, seat, domain),
        stamp=as_utc(now),
        sequence=sequence_at(now) if sequence is None else sequence,
        start=start,
        end=deadline,
        summary=summary,
        description=description
        or (
            f"The deadline of your decision {decision_number} in Tongiaki game {game_id} is "
            f"{deadline:%Y-%m-%d %H:%M} UTC. Reply to the game's mail with your choice before "
            "then; after it the game moves for you."
        ),
        organizer=_address(organizer_address, organizer_name),
        status=STATUS.CONFIRMED,
        transparency=TRANSP.TRANSPARENT,
    )
    if attendee:
        event.add("attendee", vCalAddress.new(attendee, partstat="ACCEPTED", rsvp=False))
    if first_reminder_at is not None and as_utc(first_reminder_at) < deadline:
        alarm = Alarm.new_display(description=summary, trigger=as_utc(first_reminder_at) - start)
        event.add_component(alarm)
    return _calendar("REQUEST", event)


def cancel_event(
    *,
    game_id: int,
    seat: int,
    organizer_address: str,
    now: datetime,
    sequence: int | None = None,
    summary: str | None = None,
    organizer_name: str = "",
    attendee: str | None = None,
) -> bytes:
    """A METHOD:CANCEL calendar for the seat's deadline event: the decision is made."""
    domain = organizer_address.partition("@")[2]
    event = Event.new(
        uid=event_uid(game_id, seat, domain),
        stamp=as_utc(now),
        sequence=sequence_at(now) if sequence is None else sequence,
        summary=summary or f"Tongiaki game {game_id}: no decision of yours is open",
        organizer=_address(organizer_address, organizer_name),
        status=STATUS.CANCELLED,
    )
    if attendee:
        event.add("attendee", vCalAddress.new(attendee, rsvp=False))
    return _calendar("CANCEL", event)


def _address(address: str, name: str) -> vCalAddress:
    return vCalAddress.new(address, cn=name or None)


def _calendar(method: str, event: Event) -> bytes:
    calendar = Calendar()
    calendar.prodid = PRODID
    calendar.version = "2.0"
    calendar.method = method
    calendar.add_component(event)
    return bytes(calendar.to_ical())


__all__ = [
    "cancel_event",
    "deadline_event",
    "event_uid",
    "first_reminder",
    "sequence_at",
]
