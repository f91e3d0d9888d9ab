"""Time in a game: reminders before a deadline, the automatic move at it, absence after too
many automatic moves, and fresh time after the service was down.

The deadlines live in the database (`Game.wake_at` says when a game next needs the service);
`tick(service, now)` does whatever is due at `now`, so the scheduler only has to call it, and
tests and `pbem poll --now` can run it at any simulated time.

Services sharing a PostgreSQL database may tick at once: each game is woken under its lock
(`hold_game`) and read again there, so what is due is done once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum

from sqlalchemy import bindparam
from sqlmodel import Session, col, or_, select, update

from engine import Message
from pbem.commands.clock import AUTOMATIC, clock, give_grace
from pbem.commands.rounds import act
from pbem.core import (
    GameStatus,
    WatchEnd,
    as_utc,
    due_reminder,
)
from pbem.flow.held import send_held, send_talk, tell_vacations
from pbem.flow.service import Service
from pbem.game import decision_clock
from pbem.game.table import Table
from pbem.mail_out.tell import tell
from pbem.store import (
    CLOCK_LOCK,
    INVITATION_DAYS,
    Game,
    Observer,
    Setting,
    hold,
    hold_game,
    reading,
    session,
)
from pbem.views import letters

log = logging.getLogger(__name__)

LAST_TICK = "last_tick_at"

# the statements every poll runs, built once with the time as a parameter (building a select
# costs more than SQLite takes to run it)
_DUE = select(Game.id).where(
    Game.status == GameStatus.RUNNING,
    or_(col(Game.wake_at).is_(None), col(Game.wake_at) <= bindparam("now")),
)
_UNANSWERED = (  # invitations to watch older than the cutoff, neither accepted nor ended
    col(Observer.confirmed_at).is_(None),
    col(Observer.ended_at).is_(None),
    col(Observer.added_at) <= bindparam("cutoff"),
)
_LAPSING = select(Observer.id).where(*_UNANSWERED).limit(1)
_LAPSE = (
    update(Observer)
    .where(*_UNANSWERED)
    .values(ended=WatchEnd.LAPSED, ended_at=bindparam("lapsed_at"))
)


@dataclass
class TickReport:
    reminders: int = 0
    automatic: int = 0  # automatic moves at a deadline
    graced: int = 0  # games whose passed deadline got fresh time after the service was down
    digests: int = 0  # daily digests sent
    lapsed: int = 0  # invitations to watch not accepted in time, ended (nobody is mailed)
    vacations: int = 0  # vacations told to the others, an hour after they began
    talk: int = 0  # mails of table talk at once


class Woke(Enum):
    """What waking one game came to."""

    NOTHING = "nothing was due"
    CLOCK = "its clock started"  # a game from before deadlines
    REMINDER = "a reminder"
    AUTOMATIC = "the automatic move"


def tick(service: Service, now: datetime) -> TickReport:
    """Do what is due at `now` in every running game."""
    now = as_utc(now)
    report = TickReport()
    grace = service.settings.downtime_grace_seconds
    last = _note_tick(service, now)
    if last is not None and (now - last).total_seconds() > grace:
        report.graced = _give_grace(service, last, now, grace)
    with reading(service.engine) as db:  # each game is read again under its lock
        due = list(db.exec(_DUE, params={"now": now}))
    for game_id in due:
        assert game_id is not None
        with session(service.engine) as db:
            done = _wake(service, db, game_id, now)
            db.commit()
        if done is Woke.REMINDER:
            report.reminders += 1
        elif done is Woke.AUTOMATIC:
            report.automatic += 1
    report.vacations = tell_vacations(service, now)
    report.digests = send_held(service, now)
    report.talk = send_talk(service, now)
    report.lapsed = _lapse_invitations(service, now)
    return report


def _lapse_invitations(service: Service, now: datetime) -> int:
    """Invitations to watch not accepted within INVITATION_DAYS end, without a word to
    anyone; the address is not invited to that game again. One statement, which skips an
    invitation accepted meanwhile (PostgreSQL reads the row again after its lock), written
    only when a read found one to end (almost every poll finds none)."""
    cutoff = now - timedelta(days=INVITATION_DAYS)
    with reading(service.engine) as db:
        if db.exec(_LAPSING, params={"cutoff": cutoff}).first() is None:
            return 0
    with session(service.engine) as db:
        result = db.exec(_LAPSE, params={"cutoff": cutoff, "lapsed_at": now})
        db.commit()
    lapsed = int(result.rowcount)
    if lapsed:
        log.info("%d invitation(s) to watch lapsed", lapsed)
    return lapsed


NOTE_EVERY = timedelta(minutes=1)  # the time of a tick written at most this often


def _note_tick(service: Service, now: datetime) -> datetime | None:
    """Remember that the service ran at `now`; returns when it last ran before. The time is
    written when the one noted is NOTE_EVERY old (at most a tenth of the downtime grace):
    a downtime is then seen up to that much longer than it was, and a poll's tick does not
    write."""
    every = min(NOTE_EVERY, timedelta(seconds=service.settings.downtime_grace_seconds / 10))
    with reading(service.engine) as db:
        row = db.get(Setting, LAST_TICK)
        noted = as_utc(datetime.fromisoformat(row.value)) if row else None
    if noted is not None and noted <= now < noted + every:
        return noted
    with session(service.engine) as db:
        hold(db, *CLOCK_LOCK)
        row = db.get(Setting, LAST_TICK)
        last = as_utc(datetime.fromisoformat(row.value)) if row else None
        if row is None:
            db.add(Setting(key=LAST_TICK, value=now.isoformat()))
        elif last is None or last < now:
            row.value = now.isoformat()
        db.commit()
    return last


def _wake(service: Service, db: Session, game_id: int, now: datetime) -> Woke:
    """Send a reminder or make the automatic move of one game, if either is due."""
    hold_game(db, game_id)
    table = service.table(db, game_id, now)
    game, seats, state = table.game, table.seats, table.state
    decision = state.decision
    if game.status != GameStatus.RUNNING or decision is None:
        return Woke.NOTHING
    if game.deadline_at is None or game.clock_from is None:  # a game from before deadlines
        table.start_clock()
        return Woke.CLOCK
    if game.wake_at is not None and as_utc(game.wake_at) > now:
        return Woke.NOTHING  # another process was here first
    start, deadline = as_utc(game.clock_from), as_utc(game.deadline_at)
    if now >= deadline:
        _automatic_move(service, table)
        return Woke.AUTOMATIC
    reminded = as_utc(game.reminded_at) if game.reminded_at else None
    sent = due_reminder(start, deadline, reminded, service.settings.parsed_reminders, now)
    if sent:
        seat = seats[decision.seat]
        if seat.address:
            at, picture = service.mail.moment(table)
            mail = letters.reminder(at, seat.seat, service.mail.deadline_view(game, seat))
            service.mail.queue(table, seat, mail, picture)
        log.info(
            "game %s decision %s: reminder to %s, deadline %s",
            game.id,
            decision.number,
            seat.label,
            deadline.isoformat(),
        )
    decision_clock.looked(game, service.settings.parsed_reminders, now, reminded=sent)
    return Woke.REMINDER if sent else Woke.NOTHING


def _automatic_move(service: Service, table: Table) -> None:
    """The clock's line, `automatic`, run the way every writer's lines go: the open decision
    made for its seat (`pbem.commands.clock`), then everyone told (`pbem.mail_out.tell`)."""
    writer = clock()
    round = act(table, writer, [AUTOMATIC])
    # a fault of ours raises (`CLOCK_COMMANDS.raises`): the game's transaction rolls back
    assert not round.failed, round.summary
    tell(service.mail, service.settings, writer, round)
    log.info(
        "game %s decision %s: deadline passed, automatic move for %s",
        table.game.id,
        table.opened,
        round.results[0].detail,
    )


def _give_grace(service: Service, last: datetime, now: datetime, grace: int) -> int:
    """The service did not run from `last` to `now`: a deadline that passed meanwhile gets
    `grace` more time from now instead of an automatic move, and everyone is told."""
    with session(service.engine) as db:
        passed = list(
            db.exec(
                select(Game.id).where(
                    Game.status == GameStatus.RUNNING,
                    col(Game.deadline_at) > last,
                    col(Game.deadline_at) <= now,
                )
            )
        )
        db.commit()
    graced = 0
    for game_id in passed:
        assert game_id is not None
        with session(service.engine) as db:
            hold_game(db, game_id)
            table = service.table(db, game_id, now)
            game = table.game
            if (
                game.status != GameStatus.RUNNING
                or game.deadline_at is None
                or not last < as_utc(game.deadline_at) <= now
            ):
                continue  # another service gave it the time meanwhile
            announced = [give_grace(table, grace, last)]
            service.mail.queue_round(
                table,
                [],
                announced=announced,
                subject=Message("Deadline moved: the service was down"),
                quiet=False,  # rare, and about everyone's time: the full mail, as before
            )
            db.commit()
        log.warning(
            "game %s: the service was down from %s; deadline of decision %s moved to %s",
            game_id,
            last.isoformat(),
            game.decision,
            game.deadline_at.isoformat(),
        )
        graced += 1
    return graced


__all__ = ["TickReport", "send_held", "tick"]
