"""The deadline in the player's calendar: the .ics of a prompt, its updates and its cancel,
and the mail that carries it."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from icalendar import STATUS, TRANSP, Alarm, Calendar, Event, vCalAddress

from pbem.core.config import Settings
from pbem.mail_out.calendar import (
    cancel_event,
    deadline_event,
    event_uid,
    first_reminder,
    sequence_at,
)
from pbem.mail_out.compose import Picture, compose
from tests.support.localmail import parse

NOW = datetime(2026, 11, 24, 9, 30, tzinfo=UTC)
HOURS = timedelta(hours=1)
ORGANIZER = "tongiaki@example.test"
REMINDERS = Settings().parsed_reminders  # at half-time and six hours before


def _request(now: datetime = NOW, hours: int = 48, reminder: datetime | None = None) -> bytes:
    deadline = now + hours * HOURS
    return deadline_event(
        game_id=3,
        seat=1,
        decision_number=41,
        deadline_at=deadline,
        first_reminder_at=reminder or first_reminder(now, deadline, REMINDERS, now),
        organizer_address=ORGANIZER,
        organizer_name="Tongiaki",
        attendee="ana@example.test",
        now=now,
    )


def _event(ics: bytes) -> tuple[Calendar, Event]:
    calendar = Calendar.from_ical(ics)
    assert isinstance(calendar, Calendar)
    (event,) = calendar.events
    return calendar, event


def test_a_prompt_s_event_ends_at_the_deadline_with_an_alarm_at_the_first_reminder() -> None:
    calendar, event = _event(_request())
    assert calendar["METHOD"] == "REQUEST"
    assert calendar["VERSION"] == "2.0" and calendar["PRODID"]
    assert str(event["UID"]) == "tongiaki-g3-s1@example.test" == event_uid(3, 1, "example.test")
    assert event.sequence == sequence_at(NOW)
    start, end = event.start, event.end
    assert isinstance(start, datetime) and isinstance(end, datetime)
    assert end == NOW + 48 * HOURS and end.utcoffset() == timedelta(0)
    assert start == end - timedelta(minutes=15)
    assert event.stamp == NOW
    assert str(event["SUMMARY"]) == "Tongiaki game 3: your decision 41"
    assert "Reply to the game's mail" in str(event["DESCRIPTION"])
    assert str(event["ORGANIZER"]) == f"mailto:{ORGANIZER}"
    assert event["ATTENDEE"].params["RSVP"] == "FALSE"
    (alarm,) = event.walk("VALARM")
    assert isinstance(alarm, Alarm)
    assert str(alarm["ACTION"]) == "DISPLAY"
    # '50%' of 48 hours comes before '6h': the alarm is at half time, relative to the start
    trigger = alarm.TRIGGER
    assert isinstance(trigger, timedelta) and alarm.TRIGGER_RELATED == "START"
    assert start + trigger == NOW + 24 * HOURS
    assert b"DTEND:20261126T093000Z\r\n" in _request()


def test_a_moved_deadline_updates_the_same_event_with_a_higher_sequence() -> None:
    _, first = _event(_request())
    _, moved = _event(_request(NOW + 2 * HOURS, hours=70))
    assert moved.uid == first.uid
    assert moved.sequence > first.sequence
    assert moved.end == NOW + 72 * HOURS


def test_a_made_decision_cancels_the_same_event() -> None:
    _, request = _event(_request())
    calendar, cancel = _event(
        cancel_event(game_id=3, seat=1, organizer_address=ORGANIZER, now=NOW + HOURS)
    )
    assert calendar["METHOD"] == "CANCEL"
    assert str(cancel["STATUS"]) == "CANCELLED"
    assert cancel.uid == request.uid
    assert cancel.sequence > request.sequence
    assert str(cancel["ORGANIZER"]) == f"mailto:{ORGANIZER}"


def test_each_seat_and_game_has_its_own_event() -> None:
    uids = {event_uid(game, seat, "example.test") for game in (1, 2, 12) for seat in (1, 2, 21)}
    assert len(uids) == 9


def test_the_alarm_follows_the_reminders_left() -> None:
    deadline = NOW + 48 * HOURS
    assert first_reminder(NOW, deadline, REMINDERS, NOW) == NOW + 24 * HOURS
    assert first_reminder(NOW, deadline, REMINDERS, NOW + 24 * HOURS) == deadline - 6 * HOURS
    assert first_reminder(NOW, deadline, REMINDERS, deadline - 6 * HOURS) is None
    assert first_reminder(NOW, deadline, (), NOW) is None


@pytest.mark.parametrize("reminder", [None, NOW + 48 * HOURS, NOW + 49 * HOURS])
def test_no_alarm_without_a_reminder_before_the_deadline(reminder: datetime | None) -> None:
    ics = deadline_event(
        game_id=3,
        seat=1,
        decision_number=41,
        deadline_at=NOW + 48 * HOURS,
        first_reminder_at=reminder,
        organizer_address=ORGANIZER,
        now=NOW,
    )
    _, event = _event(ics)
    assert event.walk("VALARM") == []


def test_the_sequence_grows_with_time_and_fits_in_32_bits() -> None:
    times = [datetime(1999, 1, 1, tzinfo=UTC), NOW, NOW + timedelta(seconds=1)]
    assert [sequence_at(t) for t in times] == sorted({sequence_at(t) for t in times})
    assert sequence_at(times[0]) == 0
    assert sequence_at(datetime(2068, 1, 1, tzinfo=UTC)) < 2**31
    assert sequence_at(NOW.replace(tzinfo=None)) == sequence_at(NOW)  # SQLite's naive UTC


def test_a_name_out_of_ascii_survives() -> None:
    ics = deadline_event(
        game_id=3,
        seat=1,
        decision_number=41,
        deadline_at=NOW,
        first_reminder_at=None,
        organizer_address=ORGANIZER,
        organizer_name="Tongiaki Ŕøśąłïñđę",
        summary="Tongiaki game 3: Ŵøłłęñšţęïñ, your decision 41",
        now=NOW,
    )
    _, event = _event(ics)
    assert str(event["SUMMARY"]) == "Tongiaki game 3: Ŵøłłęñšţęïñ, your decision 41"
    assert event["ORGANIZER"].params["CN"] == "Tongiaki Ŕøśąłïñđę"


# -- the mail that carries it -------------------------------------------------------------


def _mail(calendar: bytes | None, subject: str = "Your decision 41") -> bytes:
    return compose(
        Settings(from_address=ORGANIZER),
        recipient="ana@example.test",
        subject=subject,
        text="Your options:\n 1) wait\n",
        html='<p>Your options</p><img src="cid:x">',
        picture=Picture.of(b"\x89PNG not really", "example.test"),
        game_id=3,
        tag=None,
        now=NOW,
        calendar=calendar,
    )


def test_a_prompt_carries_text_html_picture_and_the_invitation() -> None:
    ics = _request()
    message = parse(_mail(ics))
    assert message.get_content_type() == "multipart/mixed"
    text, html = message.get_body(("plain",)), message.get_body(("html",))
    assert text is not None and "1) wait" in text.get_content()
    assert html is not None and "Your options" in html.get_content()
    types = [part.get_content_type() for part in message.walk()]
    assert types.count("image/png") == 1
    (part,) = [p for p in message.walk() if p.get_content_type() == "text/calendar"]
    assert part.get_param("method") == "REQUEST"
    assert part.get_content_charset() == "utf-8"
    assert part.get_filename() == "deadline.ics"
    assert part.get_content_disposition() == "attachment"
    assert part.get_payload(decode=True) == ics
    _, event = _event(part.get_content().encode("utf-8"))
    assert str(event["UID"]) == event_uid(3, 1, "example.test")
    # the text and the HTML are still the alternatives a client chooses between
    (alternative,) = [p for p in message.walk() if p.get_content_type() == "multipart/alternative"]
    assert [p.get_content_type() for p in alternative.iter_parts()] == [
        "text/plain",
        "multipart/related",
    ]


def test_a_cancel_is_marked_as_one_in_the_mail() -> None:
    ics = cancel_event(game_id=3, seat=1, organizer_address=ORGANIZER, now=NOW)
    (part,) = [p for p in parse(_mail(ics)).walk() if p.get_content_type() == "text/calendar"]
    assert part.get_param("method") == "CANCEL"


def test_without_a_calendar_the_mail_is_as_before() -> None:
    message = parse(_mail(None))
    assert message.get_content_type() == "multipart/alternative"
    assert "text/calendar" not in {p.get_content_type() for p in message.walk()}


def test_every_header_line_of_a_mail_with_a_calendar_is_short_and_whole() -> None:
    """The rules of tests/test_open_address.py, for the mail and each of its parts."""
    subject = "Ðåñïèł Ŵøłłęñšţęïñ-Çhâtęâùbŕïâñð " * 4 + "your decision 41"
    raw = _mail(_request(), subject)
    assert b"\r" not in raw
    assert max(len(line) for line in raw.split(b"\n")) <= 998
    # the mail's own head, then the head of each part: what follows a boundary line
    chunks = re.split(rb"^--=_tongiaki_[0-9a-f]+(?:_[a-z])?\n", raw, flags=re.MULTILINE)
    heads = [chunk.split(b"\n\n", 1)[0] for chunk in chunks]
    assert len(heads) == 7  # mixed, alternative, text, related, html, picture, calendar
    for head in heads:
        lines = head.split(b"\n")
        assert all(b":" in line or line[:1] in (b" ", b"\t") for line in lines), head
    message = parse(raw)
    assert str(message["Subject"]) == subject
    for part in message.walk():
        for name, value in part.items():
            assert "\r" not in str(value) and "\n" not in str(value), (name, value)


# The calendar parts are written out by hand (pbem/mail_out/calendar.py); these are the same
# events built with the icalendar library as they were before: the bytes must not differ.
def _by_the_library(method: str, event: Event) -> bytes:
    calendar = Calendar()
    calendar.prodid = "-//Tongiaki by email//deadline//EN"
    calendar.version = "2.0"
    calendar.method = method
    calendar.add_component(event)
    return bytes(calendar.to_ical())


TEXTS = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",), include_characters='\\;,"^:\r\n’'),
    min_size=1,
    max_size=200,
)
NAMES = st.one_of(st.just(""), TEXTS.filter(lambda t: t.strip() == t and t))


@settings(max_examples=150, deadline=None)
@given(
    summary=TEXTS,
    description=TEXTS,
    name=NAMES,
    minutes=st.integers(min_value=16, max_value=60 * 24 * 9),
    reminder=st.one_of(st.none(), st.integers(min_value=-600_000, max_value=600_000)),
    seconds=st.integers(min_value=0, max_value=59),
)
def test_a_request_is_written_as_the_icalendar_library_writes_it(
    summary: str, description: str, name: str, minutes: int, reminder: int | None, seconds: int
) -> None:
    deadline = NOW + timedelta(minutes=minutes, seconds=seconds)
    alarm_at = None if reminder is None else NOW + timedelta(seconds=reminder)
    mine = deadline_event(
        game_id=12,
        seat=2,
        decision_number=40,
        deadline_at=deadline,
        first_reminder_at=alarm_at,
        organizer_address=ORGANIZER,
        organizer_name=name,
        attendee="ana@example.test",
        now=NOW,
        summary=summary,
        description=description,
    )
    start = deadline - timedelta(minutes=15)
    event = Event.new(
        uid=event_uid(12, 2, "example.test"),
        stamp=NOW,
        sequence=sequence_at(NOW),
        start=start,
        end=deadline,
        summary=summary,
        description=description,
        organizer=vCalAddress.new(ORGANIZER, cn=name or None),
        status=STATUS.CONFIRMED,
        transparency=TRANSP.TRANSPARENT,
    )
    event.add("attendee", vCalAddress.new("ana@example.test", partstat="ACCEPTED", rsvp=False))
    if alarm_at is not None and alarm_at < deadline:
        event.add_component(Alarm.new_display(description=summary, trigger=alarm_at - start))
    assert mine == _by_the_library("REQUEST", event)


@settings(max_examples=60, deadline=None)
@given(summary=TEXTS, name=NAMES)
def test_a_cancel_is_written_as_the_icalendar_library_writes_it(summary: str, name: str) -> None:
    mine = cancel_event(
        game_id=12,
        seat=2,
        organizer_address=ORGANIZER,
        organizer_name=name,
        attendee="ana@example.test",
        now=NOW,
        summary=summary,
    )
    event = Event.new(
        uid=event_uid(12, 2, "example.test"),
        stamp=NOW,
        sequence=sequence_at(NOW),
        summary=summary,
        organizer=vCalAddress.new(ORGANIZER, cn=name or None),
        status=STATUS.CANCELLED,
    )
    event.add("attendee", vCalAddress.new("ana@example.test", rsvp=False))
    assert mine == _by_the_library("CANCEL", event)
