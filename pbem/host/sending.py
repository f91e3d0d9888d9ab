"""Sending the outbox: each due mail over one of a few SMTP connections (a recipient's mails
over one, in order), taken out once the server accepted it, tried again after a growing wait
when it was not; on PostgreSQL each service claims the mails it sends."""

from __future__ import annotations

import asyncio
import logging
import time
import zlib
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from datetime import datetime, timedelta

import aiosmtplib
from sqlalchemy import Engine, bindparam
from sqlmodel import col, delete, or_, select, update

from pbem.core import as_utc
from pbem.host.transport import Sender
from pbem.store import Outbox, on_postgres, reading, session

log = logging.getLogger(__name__)

MAX_BACKOFF = timedelta(hours=1)


def backoff(attempts: int) -> timedelta:
    """30 s, 1 min, 2 min, ... up to an hour between tries of one mail."""
    return min(timedelta(seconds=30 * 2 ** max(attempts - 1, 0)), MAX_BACKOFF)


LANES = 4  # SMTP connections used at once by a flush
# sent mails taken out of the outbox in one transaction: a crash sends at most these again
# (the very same mails, which servers and clients recognise as copies)
DELETE_BATCH = 50
CLAIM = timedelta(seconds=25)  # PostgreSQL: a claim's life unless renewed (the default)
BATCH = 200  # PostgreSQL: mails claimed at once


async def flush_outbox(
    engine: Engine,
    senders: Sequence[Sender],
    from_address: str,
    now: datetime,
    *,
    force: bool = False,
    claim: timedelta = CLAIM,
) -> tuple[int, int]:
    """Send every due mail (`force`: every waiting mail); a mail leaves the outbox only once
    the server accepted it (at least once: a crash in between sends it again, the very same
    bytes with the same Message-ID). Mails go out over a few connections at once, each recipient's
    mails over one of them, in order. Returns (sent, failed).

    On PostgreSQL, where several services may share the outbox, a service claims the mails
    it sends, a batch at a time (`_claim`), for `claim`, and renews the claim every third of
    it while it sends them (`_claims_renewed`): each mail is sent by one of them; one that
    died before its mails left the outbox leaves them to the others when its claim ends."""
    if on_postgres(engine):
        sent = failed = 0
        while True:
            due = _claim(engine, now, force, claim)
            async with _claims_renewed(engine, due, now, claim):
                done = await _send_due(engine, senders, due, from_address, now)
            sent, failed = sent + done[0], failed + done[1]
            if len(due) < BATCH or done[1]:
                return sent, failed
    with reading(engine) as db:  # in the event loop: never waits for the reader's batch
        due = list(db.exec(_WAITING if force else _DUE, params={"now": now}))
        db.commit()
    return await _send_due(engine, senders, due, from_address, now)


_WAITING = select(Outbox).order_by(col(Outbox.id))  # statements built once: a flush follows
_DUE = _WAITING.where(Outbox.next_attempt_at <= bindparam("now"))  # every cycle with mail
_SENT = delete(Outbox).where(col(Outbox.id).in_(bindparam("ids", expanding=True)))


def _claim(engine: Engine, now: datetime, force: bool, claim: timedelta) -> list[Outbox]:
    """Up to BATCH due mails (`force`: waiting mails) that no other service is sending, now
    held by this one until `now + claim` (PostgreSQL: rows another transaction is claiming
    are skipped, not waited for)."""
    query = (
        select(Outbox)
        .where(or_(col(Outbox.claimed_until).is_(None), col(Outbox.claimed_until) <= now))
        .order_by(col(Outbox.id))
        .limit(BATCH)
        .with_for_update(skip_locked=True)
    )
    if not force:
        query = query.where(Outbox.next_attempt_at <= now)
    with session(engine) as db:
        due = list(db.exec(query))
        for mail in due:
            mail.claimed_until = now + claim
        db.commit()
    return due


@asynccontextmanager
async def _claims_renewed(
    engine: Engine, mails: list[Outbox], now: datetime, claim: timedelta
) -> AsyncIterator[None]:
    """While the block sends `mails`, renew this service's claim on those still waiting every
    third of `claim` (a heartbeat: the claim ends `claim` after the last beat), as long as the
    claim is still this service's. `now` moves on by the time the block has taken."""
    if not mails:
        yield
        return
    ids = [mail.id for mail in mails]
    started = time.monotonic()

    async def beat() -> None:
        held = now + claim
        while True:
            await asyncio.sleep(claim.total_seconds() / 3)
            until = now + timedelta(seconds=time.monotonic() - started) + claim
            held = await asyncio.to_thread(_renew, engine, ids, held, until)

    beating = asyncio.create_task(beat())
    try:
        yield
    finally:
        beating.cancel()
        with suppress(asyncio.CancelledError):
            await beating


def _renew(engine: Engine, ids: list[int | None], held: datetime, until: datetime) -> datetime:
    """Move the claim on the mails `ids` that this service still holds (claimed until
    `held`: not sent, postponed or taken over) to `until`."""
    with session(engine) as db:
        db.exec(
            update(Outbox)
            .where(col(Outbox.id).in_(ids), col(Outbox.claimed_until) == held)
            .values(claimed_until=until)
        )
        db.commit()
    return until


async def _send_due(
    engine: Engine, senders: Sequence[Sender], due: list[Outbox], from_address: str, now: datetime
) -> tuple[int, int]:
    lanes: dict[int, list[Outbox]] = {}
    for mail in due:
        lane = zlib.crc32(mail.recipient.lower().encode()) % len(senders)
        lanes.setdefault(lane, []).append(mail)
    done: list[int | None] = []  # sent by any lane, still in the outbox: deleted in batches
    try:  # every lane ends before the rest is deleted, a lane that raised too
        ended = await asyncio.gather(
            *(
                _send_lane(engine, senders[n], mails, from_address, now, done)
                for n, mails in lanes.items()
            ),
            return_exceptions=True,
        )
    finally:
        if done:
            await asyncio.to_thread(_delete, engine, done)
    results: list[tuple[int, int]] = []
    for result in ended:
        if isinstance(result, BaseException):
            raise result
        results.append(result)
    return sum(r[0] for r in results), sum(r[1] for r in results)


async def _send_lane(
    engine: Engine,
    sender: Sender,
    mails: list[Outbox],
    from_address: str,
    now: datetime,
    done: list[int | None],
) -> tuple[int, int]:
    """Send `mails` in order over `sender`; each sent mail's id goes into `done`, the lanes'
    shared list, taken out of the outbox by the lane that fills it to DELETE_BATCH (and the
    rest by `_send_due` when every lane is done: one transaction a flush, not one a lane)."""
    sent = failed = 0
    try:
        async with sender:
            for mail in mails:
                try:
                    await sender.send(mail.message, from_address, mail.recipient)
                except (aiosmtplib.SMTPRecipientsRefused, aiosmtplib.SMTPDataError) as error:
                    failed += 1  # this mail only: the connection is still good
                    _postpone(engine, mail.id, error, now)
                    continue
                done.append(mail.id)
                sent += 1
                log.info(
                    "mail %s sent to %s (%s)%s",
                    mail.id,
                    mail.recipient,
                    f"game {mail.game_id}" if mail.game_id is not None else "no game",
                    f" after {mail.attempts} failed tries" if mail.attempts else "",
                )
                if len(done) >= DELETE_BATCH:
                    batch = done[:]
                    done.clear()  # other lanes add to it meanwhile
                    # off the event loop: the reader thread may hold the database a while
                    await asyncio.to_thread(_delete, engine, batch)
    except (OSError, aiosmtplib.SMTPException, TimeoutError) as error:
        failed += 1
        rest = mails[sent + failed - 1 :]  # the mail that failed, and those not tried
        if rest:
            _postpone(engine, rest[0].id, error, now)
            _postpone_rest(engine, [m.id for m in rest[1:]], now)
    return sent, failed


def _delete(engine: Engine, mail_ids: list[int | None]) -> None:
    """Take sent mails out of the outbox, in one transaction."""
    with session(engine) as db:
        db.exec(_SENT, params={"ids": mail_ids})
        db.commit()


def _postpone(engine: Engine, mail_id: int | None, error: BaseException, now: datetime) -> None:
    with session(engine) as db:
        row = db.get(Outbox, mail_id)
        if row is not None:
            row.claimed_until = None
            row.attempts += 1
            row.next_attempt_at = now + backoff(row.attempts)
            row.last_error = f"{type(error).__name__}: {error}"[:300]
            log.warning(
                "mail %s to %s not sent (try %d): %s",
                row.id,
                row.recipient,
                row.attempts,
                row.last_error,
            )
        db.commit()


def _postpone_rest(engine: Engine, ids: list[int | None], now: datetime) -> None:
    """Mails not tried because the server is unreachable wait as long as the first."""
    if not ids:
        return
    with session(engine) as db:
        for row in db.exec(select(Outbox).where(col(Outbox.id).in_(ids))):
            row.claimed_until = None
            row.next_attempt_at = max(as_utc(row.next_attempt_at), as_utc(now) + backoff(1))
        db.commit()
