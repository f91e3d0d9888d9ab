"""The door: one call reads a mail as far as it can be read without the database: parsed
within bounds, its game tag found, automatic mail and senders that are not taken turned
away, the new lines of a reply read. It knows nothing of commands: whether an observer's
first line stops their mail is asked of the caller (`stops`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from email.message import Message

from pbem.core import MailOutcome, Settings, Tag, find_tag, observer_of
from pbem.mail_in.authres import sender_refusal
from pbem.mail_in.automatic import automatic_reason
from pbem.mail_in.inbound import Arrival, arrive
from pbem.mail_in.replytext import reply_text

MAX_LINES = 30
MAX_LINE = 300  # characters of a line read; a command is far shorter


@dataclass(frozen=True)
class Letter:
    """A mail as the door read it."""

    arrival: Arrival
    tag: Tag | None
    lines: list[str]  # the reply's new lines (none for a mail turned away)
    turned_away: tuple[MailOutcome, str] | None  # never answered: why
    automatic: bool = False  # an unsubscribing agent's `stop` to an observer's address


def read(raw: bytes, settings: Settings, stops: Callable[[list[str]], bool]) -> Letter:
    """Read `raw` at the door. Raises what makes a mail unreadable (it goes to the
    quarantine)."""
    arrival = arrive(raw)
    message, sender = arrival.message, arrival.sender
    tag = find_tag(message)
    turned_away = turned_away_why(message, sender, settings)
    lines = reply_lines(message, settings) if tag is not None and not turned_away else []
    if turned_away and turned_away[0] == MailOutcome.IGNORED and tag is not None:
        # an unsubscribing agent's `stop` to an observer's address (List-Unsubscribe) may
        # be marked automatic: it still stops their mail, and is not answered
        first = reply_lines(message, settings)[:1] if observer_of(tag.seat) else []
        if stops(first):
            return Letter(arrival, tag, first, None, automatic=True)
    return Letter(arrival, tag, lines, turned_away)


def turned_away_why(
    message: Message, sender: str, settings: Settings
) -> tuple[MailOutcome, str] | None:
    """The outcome of a mail never to answer (automatic mail), or from a sender that is
    not taken; None for the others."""
    reason = automatic_reason(message, settings.from_address, sender)
    if reason:
        return MailOutcome.IGNORED, reason
    refusal = sender_refusal(
        message,
        authenticated_from=settings.authenticated_from,
        authserv_id=settings.authserv_id,
    )
    if refusal:
        return MailOutcome.REFUSED, f"sender not accepted: {refusal}"
    return None


def reply_lines(message: Message, settings: Settings) -> list[str]:
    """The lines of the new text of a reply, without what the mail client quoted."""
    text = reply_text(
        message, own_addresses=[settings.from_address], own_names=[settings.from_name]
    )
    lines = [line.strip() for line in text.replace("\r\n", "\n").split("\n")]
    return [line[:MAX_LINE] for line in lines if line][:MAX_LINES]
