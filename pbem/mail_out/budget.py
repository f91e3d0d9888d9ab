"""The answer budget (RFC 3834; Mailman's autoresponse limit): how many error and refusal
answers one address may get, so that no autoresponder, forger or second service can make
the service send mail without end. Moves and news are never held back.

Two budgets, counted apart: what autoresponders write (text that is no command) and every
answer to a game master or an observer count against `answers_per_day`; a seat's own
address writing real commands (`AnswerKind.COMMAND`) against `command_answers_per_day`, so
that a person trying the commands is answered generously, and still within a bound."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement
from sqlmodel import Session, col, delete, func, select

from pbem.core import AnswerKind, as_utc
from pbem.store import Answered

log = logging.getLogger(__name__)

DAY = timedelta(days=1)

# kinds of answer that an address gets at most once a day, whatever the budget
ONCE_A_DAY = (AnswerKind.UNTAGGED, AnswerKind.OTHER_SENDER, AnswerKind.TOO_LARGE)


def _pool(kind: AnswerKind) -> ColumnElement[bool]:
    """The answers counted in the same budget as one of `kind`."""
    if kind == AnswerKind.COMMAND:
        return col(Answered.kind) == AnswerKind.COMMAND
    return col(Answered.kind) != AnswerKind.COMMAND


def may_answer(db: Session, address: str, kind: AnswerKind, now: datetime, per_day: int) -> bool:
    """True (and counted) if `address` may get one more answer of `kind` now: at most
    `per_day` in 24 hours of its budget (COMMAND answers have one of their own), and those
    of ONCE_A_DAY kinds once a day each."""
    address = address.lower()
    since = now - DAY
    db.exec(delete(Answered).where(col(Answered.address) == address, col(Answered.at) < since))
    recent = select(func.count()).where(
        col(Answered.address) == address, Answered.at >= since, _pool(kind)
    )
    if db.exec(recent.select_from(Answered)).one() >= per_day:
        log.info("no answer to %s (%s): %d answers in 24 hours already", address, kind, per_day)
        return False
    if kind in ONCE_A_DAY:
        same = recent.where(col(Answered.kind) == kind).select_from(Answered)
        if db.exec(same).one():
            log.info("no answer to %s (%s): answered once today already", address, kind)
            return False
    db.add(Answered(address=address, at=now, kind=kind))
    return True


def spent_until(
    db: Session, address: str, now: datetime, per_day: int, kind: AnswerKind = AnswerKind.ERROR
) -> datetime | None:
    """When `address` may be answered again in the budget of `kind`, if the answers it got
    in the last 24 hours (the one just counted included) have spent it; None while some
    are left."""
    address = address.lower()
    times = db.exec(
        select(Answered.at)
        .where(col(Answered.address) == address, col(Answered.at) >= now - DAY, _pool(kind))
        .order_by(col(Answered.at))
    ).all()
    if len(times) < per_day:
        return None
    return as_utc(times[len(times) - per_day]) + DAY
