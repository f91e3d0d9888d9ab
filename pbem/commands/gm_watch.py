"""The game master's refusals (`GmError`), and the commands about who watches: `observe` (an
invitation, nothing more until it is accepted) and `unobserve`."""

from __future__ import annotations

import secrets

from sqlmodel import col, select

from engine import Joined, Message
from pbem.commands.registry import (
    CommandError,
    Round,
    said_by,
)
from pbem.core import (
    IdentityError,
    WatchEnd,
    as_utc,
    check_address,
    check_name,
    shown,
    unnamed_observer,
)
from pbem.game.table import Table
from pbem.store import (
    INVITATION_DAYS,
    MAX_OBSERVERS,
    Declined,
    Observer,
)
from pbem.views.view import when


class GmError(CommandError):
    """A game master's command that cannot be carried out; nothing was changed. Its `code`
    names the refusal in every language ("not-paused")."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message, code=code)


def _observe(round: Round, rest: str) -> str:
    """Someone is invited to watch the game: one mail that asks them, and nothing more
    until they accept (then every update and the final board, never a prompt)."""
    parts = rest.split()
    if not parts:
        raise GmError(
            "observe-form",
            # Translators: keep "observe", translate ADDRESS and NAME as in its help
            Message("Write it as: observe ADDRESS [NAME]."),
        )
    table = round.table
    rows = every_observer(table)
    try:
        address = check_address(parts[0])
        if len(parts) > 1:
            name = check_name(" ".join(parts[1:]))
        else:
            name = unnamed_observer(o.name for o in rows)
    except IdentityError as error:
        raise GmError("bad-address", said_by(error)) from error
    if any(s.address and s.address.lower() == address.lower() for s in table.seats):
        raise GmError(
            "in-the-game",
            Message("{address} has a seat or watches this game already.", address=address),
        )
    found = next((o for o in rows if o.address.lower() == address.lower()), None)
    if found is not None:
        _refuse_again(found)
    _refuse_declined_or_full(table, address, rows)
    assert table.game.id is not None
    if found is None:  # found: they watched once, and the game master removed them
        found = Observer(
            game_id=table.game.id, address=address, name=name, secret="", added_at=table.now
        )
    found.name, found.secret, found.added_at = name, secrets.token_hex(16), table.now
    found.confirmed_at = found.ended_at = found.ended = None
    table.db.add(found)
    table.db.flush()
    round.invited.append(found)
    return Message(
        "{name} ({address}) is invited to watch: they get the game's mails once they accept "
        "(within {days} days)",
        name=name,
        address=address,
        days=INVITATION_DAYS,
    )


def _refuse_declined_or_full(table: Table, address: str, rows: list[Observer]) -> None:
    """Refuse an address that said stop to any invitation, and a game with every observer's
    place taken (counting the invitations not accepted)."""
    declined = table.db.get(Declined, address.lower())
    if declined is not None:
        raise GmError(
            "declined",
            Message(
                "{address} said stop to an invitation to watch (game {game}, {when}): no game "
                "master invites it again. The host may still add it to a new game (new-game "
                "--observer), or its owner accept another invitation.",
                address=address,
                game=declined.game_id,
                when=when(as_utc(declined.at)),
            ),
        )
    if sum(1 for o in rows if _counted(o)) >= MAX_OBSERVERS:
        raise GmError(
            "observers-full",
            Message(
                "A game has at most {most} observers, counting the invitations not accepted "
                "(waiting, declined, lapsed or withdrawn); this one has them all.",
                most=MAX_OBSERVERS,
            ),
        )


def every_observer(table: Table) -> list[Observer]:
    """Everyone the game ever invited or had watch, whether they watch now or not."""
    query = select(Observer).where(Observer.game_id == table.game.id)
    return list(table.db.exec(query.order_by(col(Observer.id))))


def _counted(observer: Observer) -> bool:
    """Whether an observer counts towards MAX_OBSERVERS: they watch now, or an invitation
    to them was never accepted (so that a game master cannot mail stranger after stranger
    by withdrawing each invitation)."""
    return observer.ended is None or observer.confirmed_at is None


def _refuse_again(found: Observer) -> None:
    """Refuse to invite an address the game has had: it watches or is invited, it said
    stop, or it let an invitation lapse; one removed before it accepted is not asked twice.
    Raises nothing for one who watched and was removed by the game master."""
    since = when(as_utc(found.ended_at or found.added_at))
    address = found.address
    if found.ended is None and found.confirmed_at is not None:
        raise GmError(
            "in-the-game",
            Message("{address} has a seat or watches this game already.", address=address),
        )
    if found.ended is None:
        raise GmError(
            "invited-already",
            Message(
                "{address} is invited already ({since}); they watch once they accept.",
                address=address,
                since=since,
            ),
        )
    if found.ended == WatchEnd.STOP:
        raise GmError(
            "said-stop",
            Message(
                "{address} said stop to this game ({since}): it is not invited again.",
                address=address,
                since=since,
            ),
        )
    if found.ended == WatchEnd.LAPSED:
        raise GmError(
            "invitation-lapsed",
            Message(
                "{address} did not accept the invitation to this game within {days} days "
                "({since}): it is not invited again.",
                address=address,
                days=INVITATION_DAYS,
                since=since,
            ),
        )
    if found.confirmed_at is None:
        raise GmError(
            "invitation-withdrawn",
            Message(
                "{address} was invited to this game and did not accept before the invitation "
                "was withdrawn ({since}): an address is invited once.",
                address=address,
                since=since,
            ),
        )


def _unobserve(round: Round, rest: str) -> str:
    table = round.table
    text = rest.strip().lower()
    active = [o for o in every_observer(table) if o.ended is None]
    found = [o for o in active if text in (o.address.lower(), o.name.lower())]
    if not text or not found:
        watching = [
            o.name if o.confirmed_at is not None else Message("{name} (invited)", name=o.name)
            for o in active
        ]
        raise GmError(
            "no-observer",
            Message(
                "Nobody watches as {word!r}; watching: {watching}.",
                word=shown(rest, 40),
                watching=Joined(", ", watching) if watching else Message("nobody"),
            ),
        )
    watcher = found[0]
    watcher.ended, watcher.ended_at = WatchEnd.GM, table.now
    if watcher.confirmed_at is None:  # the players never heard of them
        return Message(
            "the invitation to {name} ({address}) is withdrawn",
            name=watcher.name,
            address=watcher.address,
        )
    table.observers[:] = [o for o in table.observers if o is not watcher]
    round.announced.append(Message("{name} no longer watches the game.", name=watcher.name))
    return Message("{name} no longer watches the game", name=watcher.name)
