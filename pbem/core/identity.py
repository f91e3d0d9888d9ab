"""Players' names and addresses, checked once, where they come in (a new game, a GM's
`replace`, the settings), so that nothing later has to wonder what they hold."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from email_validator import EmailNotValidError, validate_email

from engine import Joined, Message
from pbem.core.errors import PbemError

ADDRESS_LIMIT = 254  # RFC 5321's limit on a path, less its angle brackets
NAME_LIMIT = 40
_REFUSED_CATEGORIES = {
    "Cc": Message("a control character"),
    "Cf": Message("an invisible formatting character"),
    "Cs": Message("a lone surrogate"),
    "Zl": Message("a line separator"),
    "Zp": Message("a paragraph separator"),
}
_NO_ADDRESS_SIGNS = "@<>"
# email_validator refuses "localhost" as a special-use name: the demo and the local mail
# folders use it, so its local part is checked with this stand-in domain instead
_LOCALHOST = "localhost"
_STAND_IN = "localhost.test"


class IdentityError(PbemError, ValueError):
    """A name or address that cannot be used; the message says what is wrong with it."""


def check_address(text: str) -> str:
    """The address the service will write to: ASCII (internationalised domains as IDNA),
    domain lowercase, the part before the @ as written."""
    if len(text) > ADDRESS_LIMIT:
        raise IdentityError(
            Message(
                "{address} is not a mail address: it is longer than {most} characters.",
                address=_shown(text),
                most=ADDRESS_LIMIT,
            )
        )
    local, at, domain = text.rpartition("@")
    at_localhost = bool(at) and domain.lower() == _LOCALHOST
    try:
        checked = validate_email(
            f"{local}@{_STAND_IN}" if at_localhost else text,
            check_deliverability=False,  # no DNS at the door: a host may be offline
            allow_smtputf8=False,  # the SMTP server may not offer SMTPUTF8
            test_environment=True,  # *.test, for the tests and demo games
        )
    except EmailNotValidError as error:
        # the validator's reason stays in its own English
        said = Message("{address} is not a mail address.", address=_shown(text))
        raise IdentityError(Joined(" ", [said, str(error)])) from None
    if checked.ascii_local_part is None or checked.ascii_domain is None:
        raise IdentityError(Message("{address} is not a mail address.", address=_shown(text)))
    return f"{checked.ascii_local_part}@{_LOCALHOST if at_localhost else checked.ascii_domain}"


def check_name(text: str) -> str:
    """`text` stripped, when it can stand in mails and lists as a player's name."""
    name = text.strip()
    if not name:
        raise IdentityError(Message("A name cannot be empty."))
    if len(name) > NAME_LIMIT:
        raise IdentityError(
            Message(
                "{name} is too long for a name: at most {most} characters.",
                name=_shown(name),
                most=NAME_LIMIT,
            )
        )
    for char in name:
        what = _REFUSED_CATEGORIES.get(unicodedata.category(char))
        if what is not None:
            raise IdentityError(
                Message(
                    "{name} holds {what} (U+{code}); a name cannot hold one.",
                    name=_shown(name),
                    what=what,
                    code=f"{ord(char):04X}",
                )
            )
        if char in _NO_ADDRESS_SIGNS:
            raise IdentityError(
                Message(
                    "{name} holds {sign!r}; a name is not an address.", name=_shown(name), sign=char
                )
            )
    return name


def unnamed_observer(taken: Iterable[str]) -> str:
    """The name of an observer added without one: "Observer N", the first N not taken (never
    a part of the address, which players must not learn)."""
    names = {name.lower() for name in taken}
    number = 1
    while f"observer {number}" in names:
        number += 1
    return f"Observer {number}"


def _shown(text: str) -> str:
    """`text` quoted for a message, cut short when it is long."""
    return repr(text) if len(text) <= 60 else repr(text[:60]) + "..."


__all__ = [
    "ADDRESS_LIMIT",
    "NAME_LIMIT",
    "IdentityError",
    "check_address",
    "check_name",
    "unnamed_observer",
]
