"""Inbound mail at the door: bounded work before anything reads it, and a quarantine (a
shunt queue, as Mailman's) for the mail the service fails on.

A mail is parsed only after its size was checked and its header block cut to bounded size:
at most `MAX_FIELDS` header fields of at most `MAX_FIELD` bytes each (Python's address parser
is quadratic in a header's length). Whatever raises while one mail is handled puts it in the
quarantine with the error, and the next mail is handled: one mail never blocks the rest.
"""

from __future__ import annotations

import email
import hashlib
import logging
import re
from dataclasses import dataclass
from datetime import datetime
from email.message import Message
from email.policy import EmailPolicy, compat32
from email.utils import parseaddr
from functools import lru_cache
from itertools import islice

from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import defer
from sqlmodel import col, select

from pbem.core.errors import PbemError
from pbem.core.headers import header_text, raw_header_texts
from pbem.core.text import SHOWN, shown
from pbem.store.db import session
from pbem.store.models import Quarantined

log = logging.getLogger(__name__)

MAX_FIELDS = 200  # header fields kept; a mail client writes a few dozen
MAX_FIELD = 4000  # bytes kept of one header field, folded lines included
MAX_CONTENT_FIELD = 300  # of a Content-* field: its parameters are parsed at every look
MAX_ADDRESS_FIELD = 500  # of a field the service reads an address from (Python's address
# parser takes quadratic time); a real From is far shorter
ADDRESS_FIELDS = (b"from", b"sender", b"reply-to", b"return-path")
MAX_COPIES = 2  # copies kept of one field (two From: authres refuses them)
MANY_COPIES = (b"received", b"authentication-results", b"arc-authentication-results")
MAX_MANY_COPIES = 30  # copies kept of a field that real mail repeats
MAX_HEAD = 512_000  # bytes searched for the end of the header block
MAX_DEPTH = 20  # multipart levels read; real mail has three or four
MAX_MULTIPARTS = 50  # multipart containers in one mail; real mail has a few

_MULTIPART = re.compile(rb"content-type:\s*multipart/", re.IGNORECASE)
_MESSAGE = re.compile(rb"content-type:\s*message/", re.IGNORECASE)  # a mail inside a mail


class _Reading(EmailPolicy):
    """The `email` package's default policy, each header field parsed once: the parser and
    the checks at the door ask a mail's Content-Type some six times, and the default policy
    parses the field again at each (its header objects cannot change, so one is shared)."""

    def header_fetch_parse(self, name: str, value: str) -> str:
        if hasattr(value, "name"):
            return value
        return _parsed(name, value)


@lru_cache(maxsize=64)
def _parsed(name: str, value: str) -> str:
    return EmailPolicy.header_fetch_parse(READING, name, value)  # type: ignore[no-any-return]


READING = _Reading()  # the policy inbound mail is parsed with


class MailError(PbemError, ValueError):
    """A mail the service will not read (too deep, ...): it goes to the quarantine."""


@dataclass(frozen=True)
class Arrival:
    """A mail as the door saw it."""

    message: Message  # parsed from the capped header block and the body
    message_hash: str  # SHA-256 of the whole Message-ID (or of the mail, without one)
    message_id: str  # for people: at most SHOWN characters
    sender: str  # the From address, lower case ("" if none could be read)
    size: int


def split_head(raw: bytes) -> tuple[bytes, bytes, bytes]:
    """(header block, the blank line, body); a mail without a blank line is all header."""
    window = raw[:MAX_HEAD]
    ends = [found for found in (window.find(b"\n\n"), window.find(b"\n\r\n")) if found >= 0]
    if not ends:
        return window, b"", b""
    end = min(ends)
    start = end - 1 if raw[end - 1 : end] == b"\r" else end
    after = end + (2 if raw[end + 1 : end + 2] == b"\n" else 3)
    return raw[:start], raw[start:after], raw[after:]


def _fields(head: bytes) -> list[bytes]:
    """The header fields, each with its folded lines, each cut at MAX_FIELD bytes; a line
    that does not begin a field (no colon) is dropped. Linear in the size of `head`."""
    fields: list[list[bytes]] = []
    sizes: list[int] = []
    for line in head.splitlines(keepends=True):
        if line[:1] in (b" ", b"\t") and fields:
            if sizes[-1] < MAX_FIELD:
                fields[-1].append(line)
                sizes[-1] += len(line)
        elif b":" in line[:200]:
            fields.append([line])
            sizes.append(len(line))
    return [b"".join(lines) for lines in fields]


def _limit(name: bytes) -> int:
    """How many bytes of a field named `name` are kept."""
    if name.startswith(b"content-"):
        return MAX_CONTENT_FIELD
    return MAX_ADDRESS_FIELD if name in ADDRESS_FIELDS else MAX_FIELD


def capped(raw: bytes) -> tuple[bytes, bytes | None]:
    """The mail with a bounded header block, and the raw value of its first Message-ID:
    at most MAX_FIELDS fields, each cut to its limit, and at most MAX_COPIES of each name
    (MAX_MANY_COPIES of those that real mail repeats), so that no header is parsed long."""
    head, blank, body = split_head(raw)
    message_id = None
    kept: list[bytes] = []
    copies: dict[bytes, int] = {}
    for field in _fields(head):
        name = field.split(b":", 1)[0].strip().lower()
        if name == b"message-id" and message_id is None:
            message_id = re.sub(rb"\r?\n", b"", field.split(b":", 1)[1]).strip()
        copies[name] = copies.get(name, 0) + 1
        if copies[name] > (MAX_MANY_COPIES if name in MANY_COPIES else MAX_COPIES):
            continue
        if len(kept) < MAX_FIELDS:
            limit = _limit(name)
            if len(field) > limit:
                field = field[:limit].rstrip(b"\r\n") + b"\n"
            if not field.endswith(b"\n"):
                field += b"\n"
            kept.append(field)
    return b"".join(kept) + (blank or b"\n") + body, message_id


def depth(message: Message) -> int:
    """How deep multiparts nest in `message` (walked without recursion)."""
    deepest = 0
    stack: list[tuple[Message, int]] = [(message, 1)]
    while stack:
        part, level = stack.pop()
        deepest = max(deepest, level)
        if level > MAX_DEPTH:
            break
        payload = part.get_payload() if part.is_multipart() else None
        if isinstance(payload, list):
            stack.extend((child, level + 1) for child in payload if isinstance(child, Message))
    return deepest


def arrive(raw: bytes) -> Arrival:
    """Read a mail at the door; MailError (or any parser error) sends it to the quarantine."""
    containers = sum(1 for _ in islice(_MULTIPART.finditer(raw), MAX_MULTIPARTS + 1))
    if containers > MAX_MULTIPARTS:  # checked before parsing: the parser recurses
        raise MailError(f"more than {MAX_MULTIPARTS} multipart parts")
    bounded, message_id = capped(raw)
    if containers or _MESSAGE.search(raw):  # parts with headers of their own
        _check_parts(bounded)
    message = email.message_from_bytes(bounded, policy=READING)
    if depth(message) > MAX_DEPTH:
        raise MailError(f"multipart nested more than {MAX_DEPTH} levels deep")
    if not message_id:
        message_id = f"<sha256-{hashlib.sha256(raw).hexdigest()}@tongiaki>".encode()
    digest = hashlib.sha256(message_id).hexdigest()
    return Arrival(
        message=message,
        message_hash=digest,
        message_id=shown_id(message_id, digest),
        sender=shown(sender_of(message), 254),
        size=len(raw),
    )


def _check_parts(bounded: bytes) -> None:
    """Refuse a mail whose MIME parts have a Content-* header field over MAX_CONTENT_FIELD:
    the parser of the default policy takes quadratic time over one. The check parses with
    `compat32`, whose header fields are plain text."""
    probe = email.message_from_bytes(bounded, policy=compat32)
    for part in probe.walk():  # as deep as the multipart count allows
        for name, value in part.raw_items():
            if name.lower().startswith("content-") and len(value) > MAX_CONTENT_FIELD:
                raise MailError(f"a part's {shown(name, 40)} header is {len(value)} long")


def shown_id(message_id: bytes, digest: str) -> str:
    """A Message-ID for people: at most SHOWN characters, and never alike for two different
    ones (databases upgraded from version 3 keep a UNIQUE constraint on that column)."""
    text = shown(message_id.decode("utf-8", "replace"), SHOWN * 2)
    return text if len(text) <= SHOWN else f"{text[: SHOWN - 20]}...#{digest[:16]}"


def sender_of(message: Message) -> str:
    """The address in the first From, lower case ("" if none): parsed once, from the raw
    field (cut at MAX_ADDRESS_FIELD by `capped`), not through the header registry."""
    values = raw_header_texts(message, "From")
    return parseaddr(values[0])[1].lower() if values else ""


def headers_only(raw: bytes) -> tuple[Message, bytes | None]:
    """The capped header block of a mail parsed without its body (for a mail too large),
    and the raw value of its Message-ID."""
    head, _, _ = split_head(raw)
    bounded, message_id = capped(head + b"\n\n")
    return email.message_from_bytes(bounded, policy=READING), message_id


# -- the quarantine ------------------------------------------------------------------------


def database_down(error: BaseException) -> bool:
    """An error of the database or the disk, not of the mail: the mail is tried again."""
    return isinstance(error, OperationalError)


def quarantine_row(
    raw: bytes, error: str, now: datetime, limit: int, head: Message | None = None
) -> Quarantined:
    """The quarantine's row for a mail (its first `limit` bytes) and why it is there;
    `head`: its headers, when the caller parsed them already."""
    try:
        message = head if head is not None else headers_only(raw)[0]
        sender, subject = header_text(message, "From"), header_text(message, "Subject")
    except Exception:  # the headers cannot be read either: the error says enough
        sender = subject = ""
    return Quarantined(
        received_at=now,
        sender=shown(sender),
        subject=shown(subject),
        size=len(raw),
        raw=raw[:limit],
        error=shown(error, 500),
    )


def quarantined(engine: Engine) -> list[Quarantined]:
    """The mails in the quarantine, oldest first, without their raw text (`raw` unread)."""
    query = select(Quarantined).options(defer(Quarantined.raw)).order_by(col(Quarantined.id))  # type: ignore[arg-type]
    with session(engine) as db:
        rows = list(db.exec(query))
        db.commit()
    return rows


def quarantined_mail(engine: Engine, number: int) -> Quarantined | None:
    """Mail `number` of the quarantine, raw text and all."""
    with session(engine) as db:
        row = db.get(Quarantined, number)
        db.commit()
    return row


def take_out(engine: Engine, number: int) -> Quarantined | None:
    """Remove mail `number` from the quarantine; returns it (None if there is none)."""
    with session(engine) as db:
        row = db.get(Quarantined, number)
        if row is not None:
            db.delete(row)
        db.commit()
    return row
