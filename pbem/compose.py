"""Building the outgoing mails: headers that thread per game and stop mail loops."""

from __future__ import annotations

import hashlib
import quopri
from dataclasses import dataclass
from datetime import datetime
from email.header import Header
from email.mime.image import MIMEImage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import format_datetime, formataddr, make_msgid

from pbem.addressing import Tag, reply_address, subject_tag
from pbem.config import Settings

MAX_LINE = 900


def game_thread_id(settings: Settings, game_id: int) -> str:
    """The Message-ID every mail of a game refers to, so that clients keep one thread."""
    domain = settings.from_address.partition("@")[2] or "localhost"
    return f"<tongiaki-game-{game_id}@{domain}>"


def _header(value: str) -> str | Header:
    """A header value, encoded (RFC 2047) only when it is not plain ASCII."""
    return value if value.isascii() else Header(value, "utf-8")


def compose(
    settings: Settings,
    *,
    recipient: str,
    subject: str,
    text: str,
    html: str,
    picture: Picture | None = None,
    game_id: int | None,
    tag: Tag | None,
    now: datetime,
    headers: dict[str, str] | None = None,
) -> bytes:
    """A multipart mail: text, and HTML with the board picture inline when there is one;
    `tag` makes its reply address answer a decision.

    Built with the `email.mime` classes, which are many times faster than EmailMessage's
    header registry: the service writes several mails for every move.
    """
    message = MIMEMultipart("alternative")
    domain = settings.from_address.partition("@")[2] or "localhost"
    message["From"] = formataddr((settings.from_name, settings.from_address), "utf-8")
    message["To"] = recipient
    if tag is not None:
        if settings.plus_addressing:
            reply_to = reply_address(settings.from_address, tag)
            message["Reply-To"] = formataddr((settings.from_name, reply_to), "utf-8")
        else:
            subject = f"{subject} {subject_tag(tag)}"
    message["Subject"] = _header(subject)  # type: ignore[assignment]
    message["Date"] = format_datetime(now)
    message["Message-ID"] = make_msgid("tongiaki", domain=domain)
    if game_id is not None:
        message["In-Reply-To"] = game_thread_id(settings, game_id)
        message["References"] = game_thread_id(settings, game_id)
        message["X-Tongiaki-Game"] = str(game_id)
    message["Auto-Submitted"] = "auto-generated"
    for name, value in (headers or {}).items():
        message[name] = value
    message.attach(_text(text, "plain"))
    if picture is None:
        message.attach(_text(html, "html"))
    else:
        related = MIMEMultipart("related")
        related.attach(_text(html, "html"))
        image = MIMEImage(picture.png, "png")
        image["Content-ID"] = f"<{picture.cid}>"
        image.add_header("Content-Disposition", "inline", filename="board.png")
        related.attach(image)
        message.attach(related)
    return message.as_bytes()


@dataclass(frozen=True)
class Picture:
    """A PNG shown inline in the HTML part, which refers to it as `cid:<cid>`."""

    png: bytes
    cid: str

    @classmethod
    def of(cls, png: bytes, domain: str = "tongiaki") -> Picture:
        """Named by its content, so that the same picture always has the same Content-ID."""
        return cls(png, f"board-{hashlib.sha256(png).hexdigest()[:20]}@{domain}")


def _text(body: str, subtype: str) -> MIMEText:
    """7-bit when the text is ASCII in short lines, else UTF-8 in quoted-printable: readable
    either way, and no line longer than SMTP allows (998 characters)."""
    if body.isascii() and max(map(len, body.splitlines()), default=0) <= MAX_LINE:
        return MIMEText(body, subtype, "us-ascii")
    part = MIMEText("", subtype, "utf-8")
    part.replace_header("Content-Transfer-Encoding", "quoted-printable")
    part.set_payload(quopri.encodestring(body.encode("utf-8")).decode("ascii"))
    return part
