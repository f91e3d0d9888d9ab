"""A mail let in, in one call: read at the door (`pbem.mail_in.door`), recorded once (the same
message again is a duplicate), its game held and loaded, and its writer checked
(`pbem.mail_in.who`). What comes out is an `Entry`: the writer whose lines the flow runs, or
why the mail is read no further and who hears of it."""

from __future__ import annotations

import logging
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import bindparam, insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pbem.commands.player import wants_stop
from pbem.commands.writer import Writer
from pbem.core import MailOutcome, Settings
from pbem.game.table import GameError, StateCache, Table
from pbem.mail_in.door import Letter, read
from pbem.mail_in.inbound import Arrival
from pbem.mail_in.who import Refused, identify
from pbem.store import Inbound, Seat, hold_game, written_alone

log = logging.getLogger(__name__)
# The message's row is written through the connection, not the session's unit of work: an
# INSERT as it comes (its number is the moves' and the replay key's), an UPDATE once handled
# (`pbem.flow.replies`); a flush of the session costs more than the statements. Built once.
_SEEN = select(Inbound.id, Inbound.message_id).where(Inbound.message_hash == bindparam("hash"))
_ARRIVED = insert(Inbound.__table__)  # type: ignore[attr-defined]
_WRITTEN = ("message_hash", "message_id", "sender", "received_at", "game_id", "outcome", "detail")


@dataclass
class Received:
    """A message's row of `Inbound` as this transaction wrote it, and what the mail came to
    (written once it is handled): a plain record of the columns, not the ORM's model, which
    nothing here adds to the session and which costs some 40 µs to make."""

    message_hash: str
    message_id: str
    sender: str
    received_at: datetime
    outcome: str = ""
    detail: str = ""
    game_id: int | None = None
    id: int | None = None  # its number, once written


@dataclass
class Entry:
    """What letting a mail in came to."""

    inbound: Received | None  # its row; None: a duplicate (or another service took it)
    letter: Letter | None = None
    outcome: MailOutcome | None = None  # read no further: the outcome, and why
    detail: str = ""
    table: Table | None = None  # its game, held and loaded
    writer: Writer | None = None  # who wrote, checked: the flow runs their lines
    lost: bool = False  # a person's mail without a known game: told it was not read
    owner: Seat | None = None  # a seat whose reply address another used: its address hears


def admit(db: Session, raw: bytes, now: datetime, settings: Settings, cache: StateCache) -> Entry:
    """Let `raw` in, in `db`'s transaction. Raises what makes a mail unreadable (it goes to
    the quarantine)."""
    # what needs no database is done before the transaction first asks for its write lock
    letter = read(raw, settings, wants_stop)
    arrival, tag = letter.arrival, letter.tag
    inbound = first_time(db, arrival.message_hash, arrival, now)
    if inbound is None:
        return Entry(None)
    if letter.turned_away:
        outcome, detail = letter.turned_away
        return Entry(inbound, letter, outcome, detail)
    table = None
    if tag is not None:
        hold_game(db, tag.game)  # other services wait: one mail at a time acts on a game
        with suppress(GameError):  # no such game
            table = Table.load(db, tag.game, now, settings, cache)
    if tag is None or table is None:
        detail = "no game tag" if tag is None else f"no game {tag.game}"
        return Entry(inbound, letter, MailOutcome.REFUSED, detail, lost=not letter.automatic)
    inbound.game_id = table.game.id
    lifetime = timedelta(seconds=settings.token_lifetime_seconds)
    writer = identify(
        table, arrival.sender, tag, letter.lines, lifetime, automatic=letter.automatic
    )
    if isinstance(writer, Refused):
        return Entry(inbound, letter, writer.outcome, writer.detail, table, owner=writer.owner)
    return Entry(inbound, letter, table=table, writer=writer)


def first_time(
    db: Session, message_hash: str, arrival: Arrival | None, now: datetime
) -> Received | None:
    """The new row of a message not seen before, written (its number set; what the mail came
    to is written once it is handled), or None (logged) for a duplicate."""
    seen = db.connection().execute(_SEEN, {"hash": message_hash}).first()
    if seen is not None:
        log.info("message %s: duplicate of message %s", seen.message_id, seen.id)
        return None
    inbound = Received(
        message_hash=message_hash,
        message_id=arrival.message_id if arrival else "",
        sender=arrival.sender if arrival else "",
        received_at=now,
    )
    if written_alone(db):  # no other service takes it meanwhile
        inbound.id = _written(db, inbound)
        return inbound
    try:
        with db.begin_nested():  # a failure rolls back this row only
            inbound.id = _written(db, inbound)
    except IntegrityError:  # PostgreSQL: another service took this message meanwhile
        log.info("message %s: handled by another service", inbound.message_id)
        return None
    return inbound


def _written(db: Session, inbound: Received) -> int:
    """INSERT the row of `inbound`; its number."""
    row = {name: getattr(inbound, name) for name in _WRITTEN}
    key = db.connection().execute(_ARRIVED, row).inserted_primary_key
    assert key is not None
    return int(key[0])
