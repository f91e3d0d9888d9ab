"""Who gets which mail: a pure function of what a round did and the readers' settings.

No database, no clock, no rendering: the flow describes the round (`Happening`) and each
seat's reader (`Reader`); out come the `Delivery`s (now, with the clock's next round of
short news, into the digest, or nothing; charged to the round's cause or not), and the
smaller choices a mail needs (`picture`, `calendar`, `talk_due`). The flow does what they
say: it counts what is charged (`caused_per_day`), keeps what is held, renders and queues.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from pbem.core import MailKind, MailMode, PictureChoice

TALK_GATHER = timedelta(minutes=3)  # table talk said within it reaches a reader in one mail


class Send(StrEnum):
    """What a reader gets of a round."""

    NOW = "now"  # a mail of this round: the news, the board, their prompt if it is theirs
    SOON = "soon"  # one short news line, gathered with the other quiet changes until the clock
    HELD = "held"  # kept for the reader's next mail of the game (or the hour of the digest)
    DIGEST = "digest"  # kept for the reader's daily digest
    NOTHING = "nothing"


@dataclass(frozen=True)
class Reader:
    """A seat as the policy sees it: its settings and where it stands."""

    seat: int
    mode: MailMode = MailMode.ALL
    picture: PictureChoice = PictureChoice.PROMPTS
    resigned: bool = False
    decides: bool = False  # the open decision is theirs


@dataclass(frozen=True)
class Happening:
    """What a round did, as the policy needs it."""

    news: bool  # anything to tell the table: a move, its events, an announcement
    quiet: bool = False  # no move and nothing reopened: changes (a deadline, an observer)
    sender: int | None = None  # the seat whose reply made the round: they get their answer
    cause: int | None = None  # the seat whose command that moved nothing made the news
    told: frozenset[int] = frozenset()  # seats that get it whatever their mode: news of them
    deadline_moved: bool = False  # the open decision's deadline was set or moved
    over: bool = False  # the game is over: every seat hears it, one who resigned too


@dataclass(frozen=True)
class Delivery:
    """What one reader gets of a round."""

    seat: int
    send: Send
    charged: bool = False  # counted against the cause's `caused_per_day` for this reader
    past_bound: Send = Send.NOTHING  # what it becomes when that bound is reached
    catch_up: bool = False  # a reader of `mail turns`: told what happened since their last mail


def deliveries(happening: Happening, readers: Sequence[Reader]) -> list[Delivery]:
    """Who gets what of a round: one `Delivery` for each reader who gets anything."""
    found = [_delivery(happening, reader) for reader in readers]
    return [each for each in found if each.send is not Send.NOTHING]


def _delivery(happening: Happening, reader: Reader) -> Delivery:
    seat = reader.seat
    if seat == happening.sender:
        return Delivery(seat, Send.NOW)  # their answer, and their prompt if it is theirs
    if seat == happening.cause or not happening.news:
        return Delivery(seat, Send.NOTHING)  # their own command's news: they had their answer
    send = _quiet(happening, reader) if happening.quiet else _moved(happening, reader)
    charged = happening.cause is not None and send in (Send.NOW, Send.SOON)
    past = Send.HELD if charged and reader.mode == MailMode.ALL else Send.NOTHING
    catch_up = send is Send.NOW and reader.mode == MailMode.TURNS and not reader.resigned
    return Delivery(seat, send, charged, past, catch_up)


def _quiet(happening: Happening, reader: Reader) -> Send:
    """A change that is no move: a short line with the clock's next round, never a prompt
    again; the one who decides hears a deadline that moved whatever their mode."""
    if reader.resigned:
        return Send.NOTHING
    if reader.seat in happening.told or (reader.decides and happening.deadline_moved):
        return Send.SOON
    return {MailMode.ALL: Send.SOON, MailMode.DIGEST: Send.DIGEST}.get(reader.mode, Send.NOTHING)


def _moved(happening: Happening, reader: Reader) -> Send:
    """A move (or the game over, or a decision reopened): the mail of the round now to those
    who want every mail, to whoever decides next and to those it is about."""
    if happening.over:
        return Send.NOW
    if reader.resigned:
        return Send.NOTHING
    if reader.seat in happening.told or reader.decides:
        return Send.NOW
    return {MailMode.ALL: Send.NOW, MailMode.DIGEST: Send.DIGEST}.get(reader.mode, Send.NOTHING)


PLANS = (MailKind.PROMPT, MailKind.REMINDER, MailKind.GAME_OVER)


def picture(
    choice: PictureChoice, kind: MailKind, *, digest: bool = False, asked: bool = False
) -> bool:
    """Whether a mail that shows the board carries its picture: where the reader plans (their
    prompt or reminder, the digest, the game over, a board they `asked` for) by default,
    always or never by their choice."""
    if choice == PictureChoice.NEVER:
        return False
    return choice == PictureChoice.ALWAYS or kind in PLANS or digest or asked


NEWS = (MailKind.UPDATE, MailKind.WATCH)


def folded(kind: MailKind, *, digest: bool = False, asked: bool = False) -> bool:
    """Whether a mail shows in full only the islands that changed since the reader's last
    mail, naming the others: news (an update, an observer's mail); where the reader plans
    (their prompt or reminder, the digest, the game over) and a board they `asked` for show
    every island."""
    return kind in NEWS and not digest and not asked


class Calendar(StrEnum):
    """The calendar part of a mail to a seat."""

    REQUEST = "request"  # the event of the deadline of their open decision, new or moved
    CANCEL = "cancel"  # no decision of theirs is open any more
    NONE = "none"


def calendar(
    *, decides: bool, asks: bool, deadline: datetime | None, sent: datetime | None, open: bool
) -> Calendar:
    """The calendar part only when a deadline is set or moves, or its decision was made:
    `decides` (their decision is open, with `deadline`), `asks` (the mail asks for it or
    tells its deadline: not a welcome), `sent` (the deadline their calendar has), `open`
    (their calendar has an event open)."""
    if decides and deadline is not None:
        if open and sent == deadline:
            return Calendar.NONE
        return Calendar.REQUEST if asks or open else Calendar.NONE
    return Calendar.CANCEL if open else Calendar.NONE


class Release(StrEnum):
    """What the clock does with the news held for a reader."""

    DIGEST = "digest"  # their daily digest: all of it, with the board and its picture
    NEWS = "news"  # a short mail of news lines (for a reader of the digest: the quiet ones)
    WAIT = "wait"


def release(mode: MailMode, *, due: bool, soon: bool, caused_only: bool) -> Release:
    """The news held for a reader of `mode` at a round of the clock: `due` (their digest
    hour came), `soon` (quiet changes are among it), `caused_only` (all of it is news of
    other players' commands past `caused_per_day`, which waits for the hour or their next
    mail); the news of a digest kept before the player chose every mail goes at once."""
    if mode == MailMode.DIGEST:
        return Release.DIGEST if due else Release.NEWS if soon else Release.WAIT
    return Release.NEWS if soon or due or not caused_only else Release.WAIT


def talk_due(said_at: Sequence[datetime], now: datetime, *, talk_now: bool) -> bool:
    """Whether a reader's unread table talk, said at `said_at`, goes to them now in one mail:
    at once (`talk_now`), once the first line waited TALK_GATHER for the lines said after it."""
    return talk_now and bool(said_at) and min(said_at) <= now - TALK_GATHER


__all__ = [
    "TALK_GATHER",
    "Calendar",
    "Delivery",
    "Happening",
    "Reader",
    "Release",
    "Send",
    "calendar",
    "deliveries",
    "folded",
    "picture",
    "release",
    "talk_due",
]
