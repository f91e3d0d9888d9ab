"""Players' names and addresses, checked once, where they come in (a new game, a GM's
`replace`, the settings), so that nothing later has to wonder what they hold."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from email_validator import EmailNotValidError, validate_email

from pbem.core.errors import PbemError

ADDRESS_LIMIT = 254  # RFC 5321's limit on a path, less its angle brackets
NAME_LIMIT = 40
_REFUSED_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "an invisible formatting character",
    "Cs": "a lone surrogate",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
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
            f"{_shown(text)} is not a mail address: it is longer than {ADDRESS_LIMIT} characters."
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
        raise IdentityError(f"{_shown(text)} is not a mail address. {error}") from None
    if checked.ascii_local_part is None or checked.ascii_domain is None:
        raise IdentityError(f"{_shown(text)} is not a mail address.")
    return f"{checked.ascii_local_part}@{_LOCALHOST if at_localhost else checked.ascii_domain}"


def check_name(text: str) -> str:
    """`text` stripped, when it can stand in mails and lists as a player's name."""
    name = text.strip()
    if not name:
        raise IdentityError("A name cannot be empty.")
    if len(name) > NAME_LIMIT:
        raise IdentityError(
            f"{_shown(name)} is too long for a name: at most {NAME_LIMIT} characters."
        )
    for char in name:
        what = _REFUSED_CATEGORIES.get(unicodedata.category(char))
        if what is not None:
            raise IdentityError(
                f"{_shown(name)} holds {what} (U+{ord(char):04X}); a name cannot hold one."
            )
        if char in _NO_ADDRESS_SIGNS:
            raise IdentityError(f"{_shown(name)} holds {char!r}; a name is not an address.")
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
