"""Reply addresses that say which game, seat and decision a reply answers, signed per seat."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass
from email.message import Message

from pbem.core.headers import header_text, raw_header_texts

# numbers of at most 9 digits: a longer one is no tag of ours (and int() would refuse it)
_PLUS = re.compile(
    r"\+g(\d{1,9})-(\d{1,9}|gm|o[1-9]\d{0,8})-(\d{1,9})-([a-z2-7]{10})@", re.IGNORECASE
)
_SUBJECT = re.compile(
    r"\[Tongiaki g(\d{1,9}) #(\d{1,9}) s(\d{1,9}|gm|o[1-9]\d{0,8})-([a-z2-7]{10})\]", re.IGNORECASE
)

GM_SEAT = -1  # the seat number of the game master's tags: "gm" in addresses


def observer_seat(observer_id: int) -> int:
    """The seat number of an observer's tags ("o7" in addresses for observer 7): below
    GM_SEAT, so that it is never a seat of the game."""
    return GM_SEAT - observer_id


def observer_of(seat: int) -> int | None:
    """The observer a tag's seat number names, or None for a seat or the game master."""
    return GM_SEAT - seat if seat < GM_SEAT else None


@dataclass(frozen=True)
class Tag:
    game: int
    seat: int  # GM_SEAT for the game master
    decision: int
    token: str

    @property
    def seat_text(self) -> str:
        if self.seat == GM_SEAT:
            return "gm"
        observer = observer_of(self.seat)
        return str(self.seat) if observer is None else f"o{observer}"

    @property
    def seat_label(self) -> str:
        """The seat as logs name it: numbered from 1, as the game master names seats."""
        if self.seat == GM_SEAT:
            return "game master"
        observer = observer_of(self.seat)
        return f"seat {self.seat + 1}" if observer is None else f"observer {observer}"


def _seat(text: str) -> int:
    text = text.lower()
    if text == "gm":
        return GM_SEAT
    if text.startswith("o"):
        return observer_seat(int(text[1:]))
    return int(text)


def token(secret: str, game: int, seat: int, decision: int, epoch: int = 0) -> str:
    """Ten base32 letters of an HMAC over the game, seat and decision, and the game's epoch
    (how often decisions were taken back): after `undo` a decision number comes again, but
    its tokens are new. For the game master's mails `decision` is the mail's serial number
    (see `gm_token`)."""
    text = f"g{game}-{seat}-{decision}" + (f"-e{epoch}" if epoch else "")
    digest = hmac.new(secret.encode(), text.encode(), hashlib.sha256)
    return base64.b32encode(digest.digest()).decode()[:10].lower()


def gm_token(secret: str, game: int, serial: int) -> str:
    """The token of the game master's mail number `serial` of a game."""
    return token(secret, game, GM_SEAT, serial, epoch=-1)


def token_epoch(secret: str, tag: Tag, current: int) -> int | None:
    """The epoch a seat's tag was signed in (the current one first), or None if in none."""
    for epoch in range(current, -1, -1):
        signed = token(secret, tag.game, tag.seat, tag.decision, epoch)
        if hmac.compare_digest(signed, tag.token.lower()):
            return epoch
    return None


def gm_token_ok(secret: str, tag: Tag) -> bool:
    return hmac.compare_digest(gm_token(secret, tag.game, tag.decision), tag.token.lower())


def reply_address(service: str, tag: Tag) -> str:
    """`local+g42-1-31-token@domain` for the service address `local@domain`."""
    local, _, domain = service.partition("@")
    return f"{local}+g{tag.game}-{tag.seat_text}-{tag.decision}-{tag.token}@{domain}"


def subject_tag(tag: Tag) -> str:
    return f"[Tongiaki g{tag.game} #{tag.decision} s{tag.seat_text}-{tag.token}]"


def find_tag(message: Message) -> Tag | None:
    """The tag of a reply: from a plus address among its recipients, else from the subject."""
    headers = ("Delivered-To", "X-Original-To", "To", "Cc", "Envelope-To")
    for value in (v for h in headers for v in raw_header_texts(message, h)):
        found = _PLUS.search(value)
        if found:
            game, seat, decision, signed = found.groups()
            return Tag(int(game), _seat(seat), int(decision), signed.lower())
    found = _SUBJECT.search(header_text(message, "Subject"))
    if found:
        game, decision, seat, signed = found.groups()
        return Tag(int(game), _seat(seat), int(decision), signed.lower())
    return None
