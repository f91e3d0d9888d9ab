"""Durations and the clock of a decision: when reminders are due, when the deadline is.

Pure: every function takes the times it needs; the service passes `now`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from engine import Message
from pbem.core.errors import PbemError

_UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}


class DurationError(PbemError, ValueError):
    """Text that is not a duration; its text is a message (a player reads it in their
    language)."""


def utc_now() -> datetime:
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """An aware time in UTC; SQLite hands back naive times, which are UTC here."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


LONGEST = 3660 * 86400  # ten years: longer is no duration of a game


def parse_duration(text: str) -> int:
    """Seconds in '48h', '2d', '90m', '1d12h', '3600s' (a bare number counts hours); at most
    ten years."""
    cleaned = text.strip().lower()
    if len(cleaned) > 40:
        raise DurationError(
            Message("{text!r}... is not a duration (for example 48h, 2d, 90m).", text=text[:20])
        )
    if cleaned.isascii() and cleaned.isdigit():
        cleaned += "h"
    parts = re.findall(r"([0-9]+)\s*([dhms])", cleaned)
    if not parts or re.sub(r"[0-9]+\s*[dhms]\s*", "", cleaned):
        raise DurationError(
            Message("{text!r} is not a duration (for example 48h, 2d, 1d12h, 90m).", text=text)
        )
    seconds = sum(int(n) * _UNITS[u] for n, u in parts)
    if seconds > LONGEST:
        raise DurationError(
            Message("{text!r} is longer than ten years; give at most 3650d.", text=text)
        )
    return seconds


# names in the zone folders that are no zone of the world: the host's own, the old rules
HOST_ZONES = frozenset({"localtime", "posixrules"})
LONGEST_ZONE = 60  # characters of a time zone's name; the longest has 32
_ZONE_FORM = re.compile(r"[A-Za-z0-9_+-]+(/[A-Za-z0-9_+-]+)*")  # no dot, no root, no NUL


@cache
def time_zones() -> dict[str, str]:
    """Every time zone the host knows (its tz database), by its name in lower case; read
    once (a walk of the zone folders), when a name is not found as written."""
    return {name.lower(): name for name in available_timezones() if name not in HOST_ZONES}


def zone_named(text: str) -> str | None:
    """The name of the time zone `text` names, in its own case ('europe/berlin' ->
    'Europe/Berlin'); None for anything else (a region alone like 'Europe', a path, a name
    the host does not know). Only names of the form of a zone's are ever opened, and
    whatever opening one raises means no zone."""
    name = text.strip()
    if len(name) > LONGEST_ZONE or not _ZONE_FORM.fullmatch(name) or name in HOST_ZONES:
        return None
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError, UnicodeError):
        return time_zones().get(name.lower())
    return name


def zone_meant(text: str) -> str | None:
    """The time zone a misspelt name may mean ('Europe/Berln' -> 'Europe/Berlin')."""
    word = text.strip().lower()
    if not word or len(word) > LONGEST_ZONE:
        return None
    zones = time_zones()
    close = difflib.get_close_matches(word, list(zones), n=1, cutoff=0.8)
    return zones[close[0]] if close else None


def time_zone(name: str | None) -> ZoneInfo | None:
    """The time zone of that name, None if the host knows none of that name."""
    found = zone_named(name or "")
    return ZoneInfo(found) if found is not None else None


def format_duration(seconds: int) -> str:
    """'2d 4h', '90m' -> '1h 30m'; the largest units first, zero parts left out; a minute
    or more is rounded to the minute ('6d 23h 59m 33s' -> '7d'), less kept in seconds."""
    if seconds >= 60:
        seconds = (seconds + 30) // 60 * 60
    parts = []
    for unit, size in _UNITS.items():
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count}{unit}")
    return " ".join(parts) or "0s"


@dataclass(frozen=True)
class Reminder:
    """When a reminder is due: when `percent` of the decision's time is left (50: at
    half-time), or `seconds` before its deadline."""

    percent: int | None = None
    seconds: int | None = None

    def before(self, span: timedelta) -> timedelta:
        """How long before the deadline of a clock that runs `span` it is due."""
        if self.percent is not None:
            return span * self.percent / 100
        return timedelta(seconds=self.seconds or 0)


def parse_reminders(spec: Sequence[str]) -> tuple[Reminder, ...]:
    """The reminders of the settings ('50%', '6h'); raises DurationError unless every item is
    'N%' (of the time left, 1 to 99) or a duration."""
    parsed = []
    for item in spec:
        if item.strip().endswith("%"):
            number = item.strip()[:-1]
            if not (number.isascii() and number.isdigit()) or not 0 < int(number) < 100:
                raise DurationError(
                    Message("{item!r} is not a share of the time (1% to 99%).", item=item)
                )
            parsed.append(Reminder(percent=int(number)))
        else:
            parsed.append(Reminder(seconds=parse_duration(item)))
    return tuple(parsed)


def reminder_times(
    start: datetime, deadline: datetime, reminders: Sequence[Reminder]
) -> list[datetime]:
    """When reminders are due for a decision whose clock runs from `start` to `deadline`;
    times outside the clock's run are dropped."""
    span = deadline - start
    times = {deadline - reminder.before(span) for reminder in reminders}
    return sorted(at for at in times if start < at < deadline)


def due_reminder(
    start: datetime,
    deadline: datetime,
    reminded: datetime | None,
    reminders: Sequence[Reminder],
    now: datetime,
) -> bool:
    """Whether a reminder is due now: one of the times has come since the last reminder.

    Several times that came together (the service was not running) make one reminder."""
    if now >= deadline:
        return False
    since = reminded or start
    return any(since < at <= now for at in reminder_times(start, deadline, reminders))


def next_wake(
    start: datetime,
    deadline: datetime,
    reminded: datetime | None,
    reminders: Sequence[Reminder],
    now: datetime,
) -> datetime:
    """The next time something is due for this decision: a reminder, else the deadline."""
    since = max(reminded or start, now)
    later = [at for at in reminder_times(start, deadline, reminders) if at > since]
    return later[0] if later else deadline


__all__ = [
    "LONGEST",
    "DurationError",
    "Reminder",
    "as_utc",
    "due_reminder",
    "format_duration",
    "next_wake",
    "parse_duration",
    "parse_reminders",
    "reminder_times",
    "time_zone",
    "time_zones",
    "utc_now",
    "zone_meant",
    "zone_named",
]
