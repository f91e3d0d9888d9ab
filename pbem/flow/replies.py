"""Replies to the game's mails: each message handled exactly once, its lines applied in
order until one fails, and everyone told, in one transaction with the message itself."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pbem.commands.player import (
    wants_stop,
)
from pbem.core import (
    GM_SEAT,
    MailOutcome,
    Tag,
    as_utc,
    find_tag,
    shown,
    token_epoch,
)
from pbem.flow import notices
from pbem.flow.lines import answer
from pbem.flow.service import Service
from pbem.flow.who import Refused, identify
from pbem.game.table import LineFault, Table
from pbem.mail_in import (
    Arrival,
    door,
    headers_only,
    quarantine_row,
    sender_of,
    shown_id,
)
from pbem.store import Game, Inbound, Seat, hold_game, session

log = logging.getLogger(__name__)


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
        # what needs no database is done before the transaction first asks for its write lock
        letter = door.read(raw, self.settings, wants_stop)
        arrival, tag = letter.arrival, letter.tag
        inbound = self._first_time(db, arrival.message_hash, arrival, now)
        if inbound is None:
            return Taken(MailOutcome.DUPLICATE)
        outcome, detail = letter.turned_away or self._handle(
            db, arrival.sender, tag, letter.lines, inbound, now, raw, automatic=letter.automatic
        )
        inbound.outcome, inbound.detail = outcome, shown(detail, 500)
        where = f"game {tag.game} {tag.seat_label} decision {tag.decision}" if tag else "no tag"
        return Taken(
            outcome,
            logging.INFO,
            "message %s (%s): %s: %s",
            (inbound.id, where, inbound.outcome, inbound.detail),
        )

    def _first_time(
        self, db: Session, message_hash: str, arrival: Arrival | None, now: datetime
    ) -> Inbound | None:
        """The new row of a message not seen before, or None (logged) for a duplicate."""
        seen = db.exec(select(Inbound).where(Inbound.message_hash == message_hash)).first()
        if seen is not None:
            log.info("message %s: duplicate of message %s", seen.message_id, seen.id)
            return None
        inbound = Inbound(
            message_hash=message_hash,
            message_id=arrival.message_id if arrival else "",
            sender=arrival.sender if arrival else "",
            received_at=now,
            outcome="",
        )
        try:
            with db.begin_nested():  # a failure rolls back this row only
                db.add(inbound)
        except IntegrityError:  # PostgreSQL: another service took this message meanwhile
            log.info("message %s: handled by another service", inbound.message_id)
            return None
        return inbound

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
        inbound = self._first_time(db, digest, None, now)
        if inbound is None:
            return Taken(MailOutcome.DUPLICATE)
        inbound.message_id = shown_id(message_id, digest)
        inbound.sender = sender
        inbound.outcome, inbound.detail = MailOutcome.QUARANTINED, why
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

    def _handle(
        self,
        db: Session,
        sender: str,
        tag: Tag | None,
        lines: list[str],
        inbound: Inbound,
        now: datetime,
        raw: bytes,
        *,
        automatic: bool = False,
    ) -> tuple[MailOutcome, str]:
        """What a tagged mail does; an `automatic` one only says `stop` to an observer's
        address (see `take_in`)."""
        if tag is not None:
            hold_game(db, tag.game)  # other services wait: one mail at a time acts on a game
        game = db.get(Game, tag.game) if tag else None
        if tag is None or game is None:
            if not automatic:
                notices.answer_lost(self.service.mail, self.settings, db, sender, now)
            return MailOutcome.REFUSED, "no game tag" if tag is None else f"no game {tag.game}"
        inbound.game_id = game.id
        table = self.service.table(db, tag.game, now)
        done = self._at_table(table, sender, tag, lines, inbound, automatic=automatic)
        for fault in table.faults:  # lines undone, the mail's other lines applied
            self._keep_copy(table, raw, inbound, fault)
        return done

    def _keep_copy(self, table: Table, raw: bytes, inbound: Inbound, fault: LineFault) -> None:
        """A copy of a mail with a line the service failed on, in the quarantine for the
        host: the mail itself was handled (its other lines applied, its sender answered),
        so handing the copy to the service again does nothing (it is a duplicate)."""
        why = (
            f"a copy: line {fault.number} {shown(fault.line, 60)!r} failed and was undone alone; "
            f"the mail was handled as message {inbound.id}: {fault.error}"
        )
        kept = quarantine_row(raw, why, table.now, self.settings.max_message_bytes)
        table.db.add(kept)
        table.db.flush()  # its number, for the log
        log.warning(
            "message %s: line %d failed; a copy is in the quarantine as %s: %s",
            inbound.id,
            fault.number,
            kept.id,
            fault.error,
        )

    def _at_table(
        self,
        table: Table,
        sender: str,
        tag: Tag,
        lines: list[str],
        inbound: Inbound,
        *,
        automatic: bool = False,
    ) -> tuple[MailOutcome, str]:
        """A tagged mail on its game: who wrote it (checked once), their lines run, and
        everyone told under one policy."""
        lifetime = timedelta(seconds=self.settings.token_lifetime_seconds)
        mail = self.service.mail
        writer = identify(table, sender, tag, lines, lifetime, automatic=automatic)
        if isinstance(writer, Refused):
            if writer.owner is not None:
                notices.other_sender(
                    mail, self.settings, table.db, table.game, writer.owner, table.now
                )
            return writer.outcome, writer.detail
        return answer(mail, self.settings, table, writer, lines, inbound.id)


def handle(service: Service, raw: bytes, now: datetime) -> MailOutcome:
    """Handle one inbound message of `service` exactly once; returns its outcome."""
    return Replies(service).handle(raw, now)
