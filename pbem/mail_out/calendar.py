"""The deadline of a player's open decision as a calendar event (iCalendar, RFC 5545/5546).

Pure: the caller passes every time. A game keeps one event per seat, named by
`event_uid`: each prompt carries a REQUEST for it (the deadline of the decision the seat
has open now), and the first mail to the seat after the decision is made carries a CANCEL.
A client replaces its copy when the same UID comes with a higher SEQUENCE; `sequence_at`
gives one that grows with every mail (see there).

Written out here as the few lines RFC 5545 asks for (escaped and folded as the icalendar
library writes them, byte for byte: `tests/test_calendar.py` compares): building the
library's objects for each mail cost more than the rest of addressing it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

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
    description = description or (
        f"The deadline of your decision {decision_number} in Tongiaki game {game_id} is "
        f"{deadline:%Y-%m-%d %H:%M} UTC. Reply to the game's mail with your choice before "
        "then; after it the game moves for you."
    )
    lines = [
        f"SUMMARY:{_text(summary)}",
        f"DTSTART:{_utc(start)}",
        f"DTEND:{_utc(deadline)}",
        *_stamped(game_id, seat, domain, now, sequence),
    ]
    if attendee:
        lines.append(f"ATTENDEE;PARTSTAT=ACCEPTED;RSVP=FALSE:{_mailto(attendee)}")
    lines += [
        f"DESCRIPTION:{_text(description)}",
        _organizer(organizer_address, organizer_name),
        "STATUS:CONFIRMED",
        "TRANSP:TRANSPARENT",
    ]
    if first_reminder_at is not None and as_utc(first_reminder_at) < deadline:
        trigger = _duration(as_utc(first_reminder_at) - start)
        lines += ["BEGIN:VALARM", "ACTION:DISPLAY", f"DESCRIPTION:{_text(summary)}"]
        lines += [f"TRIGGER:{trigger}", "END:VALARM"]
    return _calendar("REQUEST", lines)


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
    summary = summary or f"Tongiaki game {game_id}: no decision of yours is open"
    lines = [f"SUMMARY:{_text(summary)}", *_stamped(game_id, seat, domain, now, sequence)]
    if attendee:
        lines.append(f"ATTENDEE;RSVP=FALSE:{_mailto(attendee)}")
    lines += [_organizer(organizer_address, organizer_name), "STATUS:CANCELLED"]
    return _calendar("CANCEL", lines)


def _stamped(
    game_id: int, seat: int, domain: str, now: datetime, sequence: int | None
) -> list[str]:
    """The lines every update of the event carries: when, which event, which version."""
    number = sequence_at(now) if sequence is None else sequence
    uid = _text(event_uid(game_id, seat, domain))
    return [f"DTSTAMP:{_utc(now)}", f"UID:{uid}", f"SEQUENCE:{number}"]


def _calendar(method: str, lines: list[str]) -> bytes:
    """The calendar of one event (its property `lines`, in the order the icalendar library
    writes them), folded at 75 octets, lines ended with CRLF."""
    head = ["BEGIN:VCALENDAR", "VERSION:2.0", f"PRODID:{_text(PRODID)}", f"METHOD:{method}"]
    every = [*head, "BEGIN:VEVENT", *lines, "END:VEVENT", "END:VCALENDAR"]
    return "".join(_fold(line) + "\r\n" for line in every).encode()


def _utc(moment: datetime) -> str:
    return f"{as_utc(moment):%Y%m%dT%H%M%SZ}"


def _text(value: str) -> str:
    """A TEXT value escaped (RFC 5545, 3.3.11)."""
    return (
        str(value)
        .replace(r"\N", "\n")
        .replace("\\", "\\\\")
        .replace(";", r"\;")
        .replace(",", r"\,")
        .replace("\r\n", r"\n")
        .replace("\n", r"\n")
        .replace("\r", r"\n")
    )


_CARETED = re.compile(r'\^|\r\n|\r|\n|"')
_CARET = {"^": "^^", "\n": "^n", "\r": "^n", "\r\n": "^n", '"': "^'"}
_QUOTED = re.compile("[,;:\u2019]")


def _param(value: str) -> str:
    """A name's (CN) value: RFC 6868's escapes, quoted where it must be (a space, a quote
    or a character that ends a parameter)."""
    spaced = " " in value or "'" in value
    value = _CARETED.sub(lambda m: _CARET[m.group(0)], value)
    return f'"{value}"' if spaced or _QUOTED.search(value) else value


def _mailto(address: str) -> str:
    return address if address.lower().startswith("mailto:") else f"mailto:{address}"


def _organizer(address: str, name: str) -> str:
    cn = f";CN={_param(name)}" if name else ""
    return f"ORGANIZER{cn}:{_mailto(address)}"


def _duration(delta: timedelta) -> str:
    """A DURATION value (RFC 5545, 3.3.6), as the icalendar library writes one."""
    sign = "-" if delta.days < 0 else ""
    delta = -delta if delta.days < 0 else delta
    time = ""
    if delta.seconds:
        hours, rest = divmod(delta.seconds, 3600)
        minutes, seconds = divmod(rest, 60)
        time = "T" + (f"{hours}H" if hours else "")
        time += f"{minutes}M" if minutes or (hours and seconds) else ""
        time += f"{seconds}S" if seconds else ""
    if delta.days == 0 and time:
        return f"{sign}P{time}"
    return f"{sign}P{abs(delta.days)}D{time}"


def _fold(line: str, limit: int = 75) -> str:
    """A content line folded (RFC 5545, 3.1): pieces under `limit` octets, never parting an
    escape (a backslash or a caret) from what it escapes."""
    if len(line) < limit and line.isascii():
        return line
    pieces: list[str] = []
    current: list[str] = []
    count = 0
    for char in line:
        size = len(char.encode())
        if current and count + size >= limit:
            if len(current) > 1 and current[-1] in "\\^":
                carried = current.pop()
                pieces.append("".join(current))
                current, count = [carried], len(carried.encode())
            else:
                pieces.append("".join(current))
                current, count = [], 0
        current.append(char)
        count += size
    if current:
        pieces.append("".join(current))
    return "\r\n ".join(pieces)


__all__ = [
    "cancel_event",
    "deadline_event",
    "event_uid",
    "first_reminder",
    "sequence_at",
]
