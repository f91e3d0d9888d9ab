"""Building the outgoing mails: headers that thread per game and stop mail loops."""

from __future__ import annotations

import html
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, formataddr, make_msgid

from pbem.addressing import Tag, reply_address, subject_tag
from pbem.config import Settings


def game_thread_id(settings: Settings, game_id: int) -> str:
    """The Message-ID every mail of a game refers to, so that clients keep one thread."""
    domain = settings.from_address.partition("@")[2] or "localhost"
    return f"<tongiaki-game-{game_id}@{domain}>"


def compose(
    settings: Settings,
    *,
    recipient: str,
    subject: str,
    text: str,
    game_id: int | None,
    tag: Tag | None,
    now: datetime,
) -> EmailMessage:
    """A multipart (text and HTML) mail; `tag` makes its reply address answer a decision."""
    message = EmailMessage()
    domain = settings.from_address.partition("@")[2] or "localhost"
    message["From"] = formataddr((settings.from_name, settings.from_address))
    message["To"] = recipient
    if tag is not None:
        if settings.plus_addressing:
            message["Reply-To"] = formataddr(
                (settings.from_name, reply_address(settings.from_address, tag))
            )
        else:
            subject = f"{subject} {subject_tag(tag)}"
    message["Subject"] = subject
    message["Date"] = format_datetime(now)
    message["Message-ID"] = make_msgid("tongiaki", domain=domain)
    if game_id is not None:
        message["In-Reply-To"] = game_thread_id(settings, game_id)
        message["References"] = game_thread_id(settings, game_id)
        message["X-Tongiaki-Game"] = str(game_id)
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(text)
    page = (
        '<html><body><pre style="font-family: monospace; white-space: pre; overflow-x: auto;">'
        f"{html.escape(text)}</pre></body></html>"
    )
    message.add_alternative(page, subtype="html")
    return message
