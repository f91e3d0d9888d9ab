"""Building the outgoing mails: headers that thread per game and stop mail loops."""

from __future__ import annotations

import base64
import binascii
import hashlib
import quopri
import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from email.header import Header
from email.message import Message
from email.utils import format_datetime, formataddr, make_msgid
from functools import lru_cache
from urllib.parse import quote

from pbem.core import Settings, Tag, reply_address, subject_tag

MAX_LINE = 900
FOLD = 78  # the line length the `email` package folds header fields at


def game_thread_id(settings: Settings, game_id: int) -> str:
    """The Message-ID every mail of a game refers to, so that clients keep one thread."""
    domain = settings.from_address.partition("@")[2] or "localhost"
    return f"<tongiaki-game-{game_id}@{domain}>"


def list_unsubscribe(settings: Settings, tag: Tag) -> str:
    """The List-Unsubscribe of an observer's mail (RFC 2369): a mail saying `stop` to their
    own reply address (the tag in the subject when the host has no plus addressing). No
    List-Unsubscribe-Post: one-click unsubscribing (RFC 8058) is for https addresses."""
    if settings.plus_addressing:
        address, subject = reply_address(settings.from_address, tag), "stop"
    else:
        address, subject = settings.from_address, f"stop {subject_tag(tag)}"
    return f"<mailto:{address}?subject={quote(subject)}&body=stop>"


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
    calendar: bytes | None = None,
    record: tuple[str, bytes] | None = None,
) -> bytes:
    """A multipart mail: text, and HTML with the board picture inline when there is one;
    `tag` makes its reply address answer a decision. A `calendar` (an iCalendar object, as
    `pbem.mail_out.calendar` makes them) comes after them as the attachment `deadline.ics`, and a
    `record` (file name, HTML) as an attached file.

    The headers are made by the `email` package; the body parts are put together here, with
    the picture encoded once per round: the service writes several such mails for every move,
    and the `email` generator spends most of its time walking the lines of the picture.
    """
    domain = settings.from_address.partition("@")[2] or "localhost"
    fields = [
        ("From", formataddr((settings.from_name, settings.from_address), "utf-8")),
        ("To", recipient),
    ]
    if tag is not None:
        if settings.plus_addressing:
            reply_to = reply_address(settings.from_address, tag)
            fields.append(("Reply-To", formataddr((settings.from_name, reply_to), "utf-8")))
        else:
            subject = f"{subject} {subject_tag(tag)}"
    fields += [
        ("Subject", subject),
        ("Date", format_datetime(now)),
        ("Message-ID", make_msgid("tongiaki", domain=domain)),
    ]
    if game_id is not None:
        fields.append(("In-Reply-To", game_thread_id(settings, game_id)))
        fields.append(("References", game_thread_id(settings, game_id)))
        fields.append(("X-Tongiaki-Game", str(game_id)))
    fields.append(("Auto-Submitted", "auto-generated"))
    fields += list((headers or {}).items())
    fields.append(("MIME-Version", "1.0"))
    head = _head(fields)
    boundary = f"=_tongiaki_{secrets.token_hex(12)}"
    page = _text(html, "html")
    if picture is not None:
        page = _multipart("related", f"{boundary}_r", [page, picture.part])
    shown = [_text(text, "plain"), page]
    extra = [_calendar(calendar)] if calendar is not None else []
    if record is not None:
        extra.append(_attachment(*record))
    if not extra:
        return _multipart("alternative", boundary, shown, head)
    alternative = _multipart("alternative", boundary, shown)
    return _multipart("mixed", f"{boundary}_m", [alternative, *extra], head)


def _head(fields: list[tuple[str, str]]) -> bytes:
    """The header fields and the blank line after them, as the `email` package writes them
    (compat32): written here when every field is printable ASCII that fits on a line (the
    usual mail: the package's generator spends most of a mail's time folding lines that
    need no folding), else by the package, which encodes and folds them."""
    lines = [f"{name}: {value}" for name, value in fields]
    if all(len(line) <= FOLD and line.isascii() and line.isprintable() for line in lines):
        return ("\n".join(lines) + "\n\n").encode("ascii")
    head = Message()
    for name, value in fields:
        head[name] = _header(value) if name == "Subject" else value  # type: ignore[assignment]
    return head.as_bytes()


def _attachment(filename: str, page: bytes) -> bytes:
    """An HTML file attached (the record of a game), in base64."""
    head = (
        f'Content-Type: text/html; charset="utf-8"; name="{filename}"\n'
        "Content-Transfer-Encoding: base64\n"
        f'Content-Disposition: attachment; filename="{filename}"\n\n'
    )
    return head.encode("ascii") + base64.encodebytes(page) + b"\n"


def _body(boundary: str, parts: list[bytes]) -> bytes:
    separator = f"--{boundary}\n".encode("ascii")
    return b"".join(separator + part for part in parts) + f"--{boundary}--\n".encode("ascii")


def _multipart(subtype: str, boundary: str, parts: list[bytes], headers: bytes = b"") -> bytes:
    """A multipart entity; `headers` (ending in their blank line) go before its own."""
    head = f'Content-Type: multipart/{subtype}; boundary="{boundary}"\n\n'.encode("ascii")
    return headers.removesuffix(b"\n") + head + _body(boundary, parts) + b"\n"


@dataclass(frozen=True)
class Picture:
    """A PNG shown inline in the HTML part, which refers to it as `cid:<cid>`."""

    png: bytes
    cid: str
    part: bytes  # the MIME part, encoded

    @classmethod
    def of(cls, png: bytes, domain: str = "tongiaki", cid: str = "") -> Picture:
        """Named `cid`, else by its content: the same picture always has the same Content-ID."""
        cid = cid or f"board-{hashlib.sha256(png).hexdigest()[:20]}@{domain}"
        head = (
            "Content-Type: image/png\n"
            "Content-Transfer-Encoding: base64\n"
            f"Content-ID: <{cid}>\n"
            'Content-Disposition: inline; filename="board.png"\n\n'
        )
        return cls(png, cid, head.encode("ascii") + base64.encodebytes(png) + b"\n")


def _calendar(ics: bytes) -> bytes:
    """The iCalendar part, in base64 so that its CRLF lines arrive as they are; its METHOD
    (REQUEST, CANCEL) is also a parameter of the type, where clients look for invitations."""
    found = re.search(rb"^METHOD:([A-Za-z-]+)\r?$", ics, re.MULTILINE)
    method = found.group(1).decode("ascii").upper() if found else "PUBLISH"
    head = (
        f'Content-Type: text/calendar; charset="utf-8"; method={method}; name="deadline.ics"\n'
        "Content-Transfer-Encoding: base64\n"
        'Content-Disposition: attachment; filename="deadline.ics"\n\n'
    )
    return head.encode("ascii") + base64.encodebytes(ics) + b"\n"


def quoted_printable(body: str) -> bytes:
    """`quopri.encodestring` of `body` in UTF-8, line by line: it encodes each line on its
    own (only a CR could join two), and the mails of a round share most of their lines
    (the board, the news), each encoded once (the encoder takes some 90 instructions a
    byte)."""
    if "\r" in body:
        return quopri.encodestring(body.encode("utf-8"))
    return b"\n".join([_quoted_line(line) for line in body.split("\n")])


@lru_cache(maxsize=4096)
def _quoted_line(line: str) -> bytes:
    return binascii.b2a_qp(line.encode("utf-8"))


def _text(body: str, subtype: str) -> bytes:
    """7-bit when the text is ASCII in short lines, else UTF-8 in quoted-printable: readable
    either way, and no line longer than SMTP allows (998 characters)."""
    if not body.endswith("\n"):
        body += "\n"
    if body.isascii() and max(map(len, body.splitlines()), default=0) <= MAX_LINE:
        charset, encoding, payload = "us-ascii", "7bit", body.encode("ascii")
    else:
        charset, encoding = "utf-8", "quoted-printable"
        payload = quoted_printable(body)
        if not payload.endswith(b"\n"):
            payload += b"\n"
    head = (
        f'Content-Type: text/{subtype}; charset="{charset}"\n'
        f"Content-Transfer-Encoding: {encoding}\n\n"
    )
    return head.encode("ascii") + payload + b"\n"
