"""The mail that waits for its time, sent at a poll's end (`pbem.flow.deadlines.tick`, and
after `pbem gm`): the news held for a player (the quiet changes of the poll in one short mail,
the daily digest at its hour), a vacation told an hour after it began, and table talk to those
who read it at once, gathered for a few minutes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import col, func, or_, select

from engine import Message
from pbem.commands.player import TELL_AFTER, on_vacation
from pbem.core import GameStatus, MailMode, as_utc, time_zone
from pbem.flow.service import Service
from pbem.game.table import Table
from pbem.mail_out import policy
from pbem.mail_out.mailing import held_news
from pbem.store import Game, Held, Seat, Talk, hold_game, reading, session
from pbem.views import letters

# what each poll asks, built once with the time as a parameter (building a select costs more
# than SQLite takes to run it); read without the write lock: each seat is read again under
# its game's lock before anything is sent (`_each_seat`)
_WAITING = select(Held.game_id, Held.seat, func.min(Held.at)).group_by(
    col(Held.game_id), col(Held.seat)
)
_TALK_DUE = (
    select(Seat.game_id, Seat.seat)
    .join(Game)
    .join(Talk, col(Talk.game_id) == col(Seat.game_id))
    .where(
        col(Seat.talk_now),
        col(Seat.address).is_not(None),
        col(Seat.resigned).is_(False),
        col(Talk.id) > col(Seat.talk_seen),
        col(Talk.at) <= bindparam("gathered"),
        or_(col(Talk.seat).is_(None), col(Talk.seat) != col(Seat.seat)),
        or_(col(Talk.to_seat).is_(None), col(Talk.to_seat) == col(Seat.seat)),
        col(Game.status).in_((GameStatus.RUNNING, GameStatus.PAUSED)),
    )
    .distinct()
)
_AWAY_DUE = (
    select(Seat.game_id, Seat.seat)
    .join(Game)
    .where(
        col(Seat.away_told).is_(False),
        col(Seat.away_since) <= bindparam("began"),
        col(Seat.away_until) > bindparam("now"),
        col(Game.status).in_((GameStatus.RUNNING, GameStatus.PAUSED)),
    )
)


def digest_due(seat: Seat, since: datetime) -> datetime:
    """When the digest after `since` is due: the next `digest_hour` o'clock in the player's
    zone (UTC if they set none)."""
    zone = time_zone(seat.tz) or UTC
    local = as_utc(since).astimezone(zone)
    due = local.replace(hour=seat.digest_hour, minute=0, second=0, microsecond=0)
    if due <= local:
        due = (local + timedelta(days=1)).replace(hour=seat.digest_hour, minute=0, second=0)
    return due.astimezone(UTC)


def send_held(service: Service, now: datetime) -> int:
    """The news held for each player, as `policy.release` says: the quiet changes of the
    poll in one short mail, the daily digest at its hour (one mail per game)."""
    with reading(service.engine) as db:
        waiting = db.exec(_WAITING).all()
    return _each_seat(
        service,
        now,
        waiting,
        lambda table, seat, first: _release(service, table, seat, as_utc(first)),
    )


def _each_seat(
    service: Service,
    now: datetime,
    due: Sequence[Sequence[Any]],
    act: Callable[..., int],
) -> int:
    """`act(table, seat, *rest)` for each row (game, seat number, *rest) of `due`, each in a
    transaction of its own with its game held and read again there (another service may
    have done it meanwhile); the mails it queued, counted."""
    done = 0
    for game_id, number, *rest in due:
        with session(service.engine) as db:
            hold_game(db, game_id)
            table = service.table(db, game_id, now)
            done += act(table, table.seats[number], *rest)
            db.commit()
    return done


def _release(service: Service, table: Table, seat: Seat, first: datetime) -> int:
    """One reader's held news (the first of it held at `first`), if its time came: 1 if a
    mail was queued."""
    first = as_utc(first)
    db, game_id = table.db, table.game.id
    digest_at = as_utc(seat.digest_at) if seat.digest_at is not None else None
    since = digest_at if digest_at is not None and digest_at > first else first
    held = list(
        db.exec(
            select(Held)
            .where(Held.game_id == game_id, Held.seat == seat.seat)
            .order_by(col(Held.id))
        )
    )
    soon = [row for row in held if row.soon]
    how = policy.release(
        seat.mail_mode,
        due=table.now >= digest_due(seat, since),
        soon=bool(soon),
        caused_only=all(row.cause for row in held),
    )
    if how is policy.Release.WAIT or not held:
        return 0  # not yet, or another service sent it meanwhile
    told = held if how is policy.Release.DIGEST or seat.mail_mode != MailMode.DIGEST else soon
    for row in told:
        db.delete(row)
    if how is policy.Release.DIGEST:
        seat.digest_at = table.now
    if not seat.address or seat.resigned:
        return 0
    mail, deadline = service.mail, service.mail.deadline_view(table.game, seat)
    if how is policy.Release.DIGEST:
        at, picture = mail.moment(table, announced=held_news(told))
        daily = Message("Your daily digest of game {game}", game=game_id)
        digest = letters.letter(
            at, seat.seat, remark=mail.remark(seat), subject=daily, deadline=deadline
        )
        mail.queue(table, seat, digest, picture, digest=True)
        return 1
    at, _ = mail.moment(table)
    subject = "" if soon else Message("News of game {game} held for you", game=game_id)
    news = letters.changes(
        at, seat.seat, held_news(told), subject=subject, deadline=deadline, remark=mail.remark(seat)
    )
    mail.queue(table, seat, news, None)
    return 1


def send_talk(service: Service, now: datetime) -> int:
    """Table talk reaches the players who want it at once (`Mailer.send_talk`): one mail
    for what was said within a few minutes (`policy.TALK_GATHER`). Returns the mails."""
    with reading(service.engine) as db:
        due = db.exec(_TALK_DUE, params={"gathered": now - policy.TALK_GATHER}).all()
    return _each_seat(service, now, due, service.mail.send_talk)


def tell_vacations(service: Service, now: datetime) -> int:
    """A vacation on for an hour (`TELL_AFTER`) is news to the others now, charged to its
    player as if they had told it (one switched off within the hour told nobody)."""
    with reading(service.engine) as db:
        due = db.exec(_AWAY_DUE, params={"began": now - TELL_AFTER, "now": now}).all()

    def tell(table: Table, seat: Seat) -> int:
        since, until = seat.away_since, seat.away_until
        if seat.away_told or since is None or as_utc(since) > now - TELL_AFTER:
            return 0  # told by another service meanwhile, or ended
        if until is None or as_utc(until) <= now:
            return 0
        seat.away_told = True
        service.mail.queue_round(table, [], announced=[on_vacation(seat)], cause=seat)
        return 1

    return _each_seat(service, now, due, tell)


__all__ = ["digest_due", "send_held", "send_talk", "tell_vacations"]
