"""Replies to the game's mails, the one flow in: each message let in once (`pbem.mail_in.entry`:
the door, the duplicate check, who wrote), its writer's lines run until one fails
(`pbem.commands.rounds.act`), and everyone told under one policy (`pbem.mail_out.tell`), in
one transaction with the message itself. The door's side stays here: the transaction, the
quarantine of a mail too large or of a line the service failed on."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from sqlalchemy import bindparam, update
from sqlmodel import Session, select

from pbem.commands.rounds import act
from pbem.core import GM_SEAT, MailOutcome, Tag, as_utc, find_tag, shown, token_epoch
from pbem.flow import notices
from pbem.flow.service import Service
from pbem.game.table import LineFault, Table
from pbem.mail_in import (
    Entry,
    Received,
    admit,
    door,
    first_time,
    headers_only,
    quarantine_row,
    sender_of,
    shown_id,
)
from pbem.mail_out.envelope import envelope
from pbem.mail_out.tell import tell
from pbem.store import Game, Inbound, Seat, session

log = logging.getLogger(__name__)
# what a message came to, written to its row (`first_time` wrote it through the connection,
# not the session: see `pbem.mail_in.entry`); built once
_INBOUND = Inbound.__table__  # type: ignore[attr-defined]
_SETTLED = update(_INBOUND).where(_INBOUND.c.id == bindparam("row"))
_CHANGING = ("message_id", "sender", "game_id", "outcome", "detail")


@dataclass(frozen=True)
class Taken:
    """What one inbound message came to, and the line the log gets once the transaction
    that recorded it committed (a transaction rolled back recorded nothing to tell)."""

    outcome: MailOutcome
    level: int = logging.INFO
    said: str = ""
    args: tuple[object, ...] = ()

    def log(self) -> None:
        if self.said:
            log.log(self.level, self.said, *self.args)


class Replies:
    """Handles inbound mail for a `Service`."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.settings = service.settings

    def handle(self, raw: bytes, now: datetime) -> MailOutcome:
        """Handle one inbound message exactly once, in a transaction of its own; returns its
        outcome, and logs it.

        Raises whatever the mail makes fail; the runner puts such a mail in the quarantine.
        """
        with session(self.service.engine) as db:
            taken = self.take_in(db, raw, now)
            db.commit()
        taken.log()
        return taken.outcome

    def take_in(self, db: Session, raw: bytes, now: datetime) -> Taken:
        """Handle one inbound message in `db`'s transaction, which the caller commits (the
        message is recorded in it: the same message is a duplicate after that commit); what
        it came to, with the line for the log once committed.

        Raises whatever the mail makes fail.
        """
        now = as_utc(now)
        if len(raw) > self.settings.max_message_bytes:
            return self._too_large(db, raw, now)
        entry = admit(db, raw, now, self.settings, self.service.cache)
        inbound = entry.inbound
        if inbound is None:
            return Taken(MailOutcome.DUPLICATE)
        outcome, detail = self._answer(db, entry, raw, now)
        inbound.outcome, inbound.detail = outcome, shown(detail, 500)
        _settle(db, inbound)
        tag = entry.letter.tag if entry.letter else None
        where = f"game {tag.game} {tag.seat_label} decision {tag.decision}" if tag else "no tag"
        return Taken(
            outcome,
            logging.INFO,
            "message %s (%s): %s: %s",
            (inbound.id, where, inbound.outcome, inbound.detail),
        )

    def _answer(
        self, db: Session, entry: Entry, raw: bytes, now: datetime
    ) -> tuple[MailOutcome, str]:
        """The writer's lines run and everyone told; a mail read no further answered where
        someone should hear of it. Its outcome, and what it came to."""
        mail, table, writer = self.service.mail, entry.table, entry.writer
        if writer is None or table is None or entry.letter is None:
            assert entry.outcome is not None and entry.inbound is not None
            if entry.lost:
                notices.answer_lost(mail, self.settings, db, entry.inbound.sender, now)
            if entry.owner is not None and table is not None:
                notices.other_sender(mail, self.settings, db, table.game, entry.owner, now)
            return entry.outcome, entry.detail
        inbound_id = entry.inbound.id if entry.inbound else None
        leaving = partial(envelope, table, leaving=True)
        lines = entry.letter.lines
        round = act(table, writer, lines, inbound_id=inbound_id, address_leaving=leaving)
        note = tell(mail, self.settings, writer, round)
        for fault in table.faults:  # lines undone, the mail's other lines applied
            self._keep_copy(table, raw, inbound_id, fault)
        return round.outcome, round.summary + note

    def _too_large(self, db: Session, raw: bytes, now: datetime) -> Taken:
        """A mail over the size limit: kept in the quarantine unread (in the transaction that
        records it as handled); a tagged one from its seat's own address is answered once,
        briefly."""
        limit = self.settings.max_message_bytes
        message, message_id = headers_only(raw)
        if not message_id:
            message_id = f"<sha256-{hashlib.sha256(raw).hexdigest()}@tongiaki>".encode()
        sender = shown(sender_of(message), 254)
        why = f"too large: {len(raw)} bytes, the limit is {limit}"
        tag = find_tag(message)
        answer = tag is not None and not door.turned_away_why(message, sender, self.settings)
        digest = hashlib.sha256(message_id).hexdigest()
        inbound = first_time(db, digest, None, now)
        if inbound is None:
            return Taken(MailOutcome.DUPLICATE)
        inbound.message_id = shown_id(message_id, digest)
        inbound.sender = sender
        inbound.outcome, inbound.detail = MailOutcome.QUARANTINED, why
        _settle(db, inbound)
        kept = quarantine_row(raw, why, now, limit, message)
        db.add(kept)
        found = self._seat_of(db, tag, sender) if tag is not None and answer else None
        if found is not None:
            game, seat = found
            mail, per_day = self.service.mail, self.settings.answers_per_day
            notices.too_large(mail, per_day, db, game, seat, sender, len(raw), limit, now)
        db.flush()  # the quarantine's number, for the log
        return Taken(
            MailOutcome.QUARANTINED,
            logging.WARNING,
            "message %s: quarantined as %s: %s",
            (inbound.id, kept.id, why),
        )

    def _seat_of(self, db: Session, tag: Tag, sender: str) -> tuple[Game, Seat] | None:
        """The game and seat of a tag signed for that seat and sent from its address."""
        game = db.get(Game, tag.game)
        if game is None or tag.seat == GM_SEAT:
            return None
        seat = db.exec(select(Seat).where(Seat.game_id == game.id, Seat.seat == tag.seat)).first()
        if seat is None or (seat.address or "").lower() != sender:
            return None
        if token_epoch(seat.secret, tag, game.epoch) is None:
            return None
        return game, seat

    def _keep_copy(
        self, table: Table, raw: bytes, inbound_id: int | None, fault: LineFault
    ) -> None:
        """A copy of a mail with a line the service failed on, in the quarantine for the
        host: the mail itself was handled (its other lines applied, its sender answered),
        so handing the copy to the service again does nothing (it is a duplicate)."""
        why = (
            f"a copy: line {fault.number} {shown(fault.line, 60)!r} failed and was undone alone; "
            f"the mail was handled as message {inbound_id}: {fault.error}"
        )
        kept = quarantine_row(raw, why, table.now, self.settings.max_message_bytes)
        table.db.add(kept)
        table.db.flush()  # its number, for the log
        log.warning(
            "message %s: line %d failed; a copy is in the quarantine as %s: %s",
            inbound_id,
            fault.number,
            kept.id,
            fault.error,
        )


def _settle(db: Session, inbound: Received) -> None:
    """Write what a message's row holds now: its game, what it came to and why (and its
    Message-ID and sender, which a mail too large is read for after `first_time`)."""
    changes = {name: getattr(inbound, name) for name in _CHANGING}
    db.connection().execute(_SETTLED, {"row": inbound.id, **changes})


def handle(service: Service, raw: bytes, now: datetime) -> MailOutcome:
    """Handle one inbound message of `service` exactly once; returns its outcome."""
    return Replies(service).handle(raw, now)
