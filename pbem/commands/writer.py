"""Who a round of lines comes from, once checked: a player, an observer, a game master by mail,
the host on its command line, or the clock at a deadline (`pbem.commands.clock`).
`pbem.mail_in.who` checks a mail's sender and makes its `Writer`; the commands run in the
writer's registry (`pbem.commands.rounds.act`); `pbem.mail_out.tell` mails what the round
caused."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pbem.commands.gm import GM_COMMANDS, HOST
from pbem.commands.registry import Commands
from pbem.core import Tag
from pbem.store import GmTag, Observer, Seat


class Role(StrEnum):
    PLAYER = "player"
    OBSERVER = "observer"
    GM = "game master"  # by mail
    HOST = "host"  # a game master's commands on the host's command line
    CLOCK = "clock"  # the automatic move at a deadline


@dataclass
class Writer:
    """Who a mail's (or the command line's, or the clock's) lines come from, checked."""

    role: Role
    actor: str  # the sender's address, HOST or CLOCK
    commands: Commands  # the registry their lines run in
    answering: Tag | None = None  # the tag of the mail answered (None: no mail)
    seat: Seat | None = None
    observer: Observer | None = None
    keys: tuple[str, str] | None = None  # replay keys: (if it acts, if it does not)
    may_change: bool = True  # False: the mail answered changed the game once already
    sent: GmTag | None = None  # the game master's mail answered
    too_old: str = ""  # why its reply address no longer acts ("": it does)
    automatic: bool = False  # an unsubscribing agent's `stop` (observers only)
    invited: bool = False  # an observer invited who did not accept yet
    # no answer but a `stop`'s: an agent's mail, or another address's to an observer
    quiet: bool = False


def host() -> Writer:
    """The host giving game master commands on the command line (every game has the host
    as its game master)."""
    return Writer(Role.HOST, HOST, GM_COMMANDS)


__all__ = ["Role", "Writer", "host"]
