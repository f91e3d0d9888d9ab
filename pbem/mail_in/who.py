"""Who wrote: a tagged mail's sender checked against its game (a player's seat, an observer,
a game master) once, in one place, with the one replay check and the one check of an old
reply address. What comes out is a `Writer` (`pbem.commands.writer`): the registry their
lines run in and what the flow needs to answer them; or the outcome of a mail that is not
read."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import bindparam
from sqlmodel import col, select

import engine
from pbem.commands.gm import GM_COMMANDS
from pbem.commands.player import (
    INVITED_COMMANDS,
    OBSERVER_COMMANDS,
    PLAYER_COMMANDS,
    QUIET_OBSERVER_COMMANDS,
    RESIGNED_COMMANDS,
    wants_stop,
)
from pbem.commands.writer import Role, Writer
from pbem.core import (
    GM_SEAT,
    MailOutcome,
    Tag,
    WatchEnd,
    as_utc,
    format_duration,
    gm_token_ok,
    observer_of,
    token_epoch,
)
from pbem.game.table import Table
from pbem.store import INVITATION_DAYS, Game, GmTag, Move, Observer, ReplyUse, Seat
from pbem.views.i18n import duration

# the one replay check's statement, built once (building it costs more than running it); read
# through the connection: the keys are written there too (`pbem.commands.rounds`), never as
# objects of the session
_USED = select(ReplyUse.inbound_id).where(col(ReplyUse.key).in_(bindparam("keys", expanding=True)))


@dataclass(frozen=True)
class Refused:
    """A mail not read: its outcome and why; `owner` is the seat whose reply address someone
    else used (its own address hears of it)."""

    outcome: MailOutcome
    detail: str
    owner: Seat | None = None


def identify(
    table: Table,
    sender: str,
    tag: Tag,
    lines: Sequence[str],
    token_lifetime: timedelta,
    *,
    automatic: bool = False,
) -> Writer | Refused:
    """The writer of a tagged mail on its game, or why it is not read."""
    if tag.seat == GM_SEAT:
        return _game_master(table, sender, tag, lines, token_lifetime)
    if observer_of(tag.seat) is not None:
        return _observer(table, sender, tag, lines, automatic)
    return _player(table, sender, tag, lines, token_lifetime)


def _replayed(table: Table, writer: Writer, lines: Sequence[str]) -> Refused | None:
    """The one replay check, whatever the mail's Message-ID: the same signed tag with the
    same commands acted once already, or changed nothing in a game and seat that are as
    they were then (sent again once the game changed, it is read anew: a move refused
    while the game was paused acts after it resumes)."""
    assert writer.answering is not None
    writer.keys = replay_keys(writer.answering, lines, table.game, writer.seat)
    first = table.db.connection().execute(_USED, {"keys": list(writer.keys)}).first()
    if first is None:
        return None
    said = f"a replay of message {first.inbound_id}: the same reply address and commands"
    return Refused(MailOutcome.IGNORED, said)


def _player(
    table: Table, sender: str, tag: Tag, lines: Sequence[str], lifetime: timedelta
) -> Writer | Refused:
    game, seats = table.game, table.seats
    epoch = None
    if 0 <= tag.seat < len(seats):
        epoch = token_epoch(seats[tag.seat].secret, tag, game.epoch)
    if epoch is None:
        return Refused(MailOutcome.REFUSED, "bad token")
    seat = seats[tag.seat]
    if sender != (seat.address or "").lower():
        return Refused(MailOutcome.REFUSED, f"sender is not the address of {seat.label}", seat)
    # a player who resigned may still look at the game, and do nothing else
    commands = RESIGNED_COMMANDS if seat.resigned else PLAYER_COMMANDS
    writer = Writer(Role.PLAYER, seat.address or "", commands, tag, seat=seat)
    replayed = _replayed(table, writer, lines)
    if replayed:
        return replayed
    writer.too_old = _too_old(table, tag.decision, epoch, lifetime)
    return writer


def _too_old(table: Table, decision: int, epoch: int, lifetime: timedelta) -> str:
    """Why a seat's reply address no longer acts ("" if it does): it was made before the
    game master took decisions back, or its decision closed `token_lifetime` ago."""
    game = table.game
    if epoch != game.epoch:
        return engine.Message(
            "Your mail answers a mail from before the game master took decisions back. "
            "Reply to the newest mail the game sent you."
        )
    if decision >= game.decision:
        return ""
    closed = table.db.exec(
        select(Move.created_at).where(Move.game_id == game.id, Move.number == decision)
    ).first()
    if closed is not None and as_utc(closed) + lifetime < table.now:
        return engine.Message(
            "Your mail answers decision {number}, which closed more than "
            "{lifetime} ago: its reply address no "
            "longer acts. Reply to the newest mail the game sent you.",
            number=decision,
            lifetime=duration(int(lifetime.total_seconds())),
        )
    return ""


def _game_master(
    table: Table,
    sender: str,
    tag: Tag,
    lines: Sequence[str],
    lifetime: timedelta,
) -> Writer | Refused:
    """A reply to a game master's mail: each such mail acts for `token_lifetime` and changes
    the game once."""
    game = table.game
    if sender not in table.gm_addresses():
        return Refused(MailOutcome.REFUSED, "not a game master of this game")
    sent = table.db.exec(
        select(GmTag).where(GmTag.game_id == game.id, GmTag.serial == tag.decision)
    ).first()
    if sent is None or not gm_token_ok(game.gm_secret, tag):
        return Refused(MailOutcome.REFUSED, "bad game master token")
    writer = Writer(Role.GM, sender, GM_COMMANDS, tag, may_change=sent.used_at is None)
    writer.sent = sent
    replayed = _replayed(table, writer, lines)
    if replayed:
        return replayed
    writer.answering = Tag(tag.game, GM_SEAT, sent.decision, tag.token)
    if as_utc(sent.sent_at) + lifetime < table.now:
        writer.too_old = engine.Message(
            "Your mail answers a mail of the game sent more than {lifetime} ago, so nothing "
            "in it was done. Reply to this mail instead.",
            lifetime=format_duration(int(lifetime.total_seconds())),
        )
    return writer


def _observer(
    table: Table, sender: str, tag: Tag, lines: Sequence[str], automatic: bool
) -> Writer | Refused:
    """Someone who watches, or is invited to: `stop` from anyone who has their reply
    address; from their own address `watch` to accept an invitation, and once they watch
    the commands that look (`say` when the game lets observers talk). An `automatic` mail
    (an unsubscribing agent's) may only stop."""
    watcher_id = observer_of(tag.seat)
    watcher = table.db.get(Observer, watcher_id)
    if (
        watcher is None
        or watcher.game_id != table.game.id
        or token_epoch(watcher.secret, tag, table.game.epoch) is None
    ):
        return Refused(MailOutcome.REFUSED, "bad token")
    own = sender == watcher.address.lower()
    if not own and not wants_stop(list(lines)):
        return Refused(MailOutcome.REFUSED, "sender is not the observer's address")
    invited = watcher.confirmed_at is None
    writer = Writer(Role.OBSERVER, sender, INVITED_COMMANDS, tag, observer=watcher)
    writer.automatic, writer.invited, writer.quiet = automatic, invited, automatic or not own
    replayed = _replayed(table, writer, lines)
    if replayed:
        return replayed
    lapse = timedelta(days=INVITATION_DAYS)
    if invited and watcher.ended is None and as_utc(watcher.added_at) + lapse <= table.now:
        watcher.ended, watcher.ended_at = WatchEnd.LAPSED, table.now  # before the clock saw it
    if watcher.ended is not None:
        said = f"observer {watcher_id} ended ({watcher.ended}): not read"
        return Refused(MailOutcome.IGNORED, said)
    if not (automatic or not own or invited):
        talking = table.game.observers_talk
        writer.commands = OBSERVER_COMMANDS if talking else QUIET_OBSERVER_COMMANDS
    return writer


def replay_keys(tag: Tag, lines: Sequence[str], game: Game, seat: Seat | None) -> tuple[str, str]:
    """The keys a reply leaves behind: the first when it acted (the same tag and commands
    never act again), the second when it did not (nor while the game and the seat stay as
    they are)."""
    said = "\n".join(" ".join(line.lower().split()) for line in lines)
    signed = f"g{tag.game}-{tag.seat_text}-{tag.decision}-{tag.token.lower()}"
    state = f"{game.status} {game.epoch} {game.decision} {game.deadline_at} {game.ended_by}" + (
        f" {seat.tz} {seat.away_until} {seat.vacation_used} {seat.absent}" if seat else ""
    )
    acted = hashlib.sha256(f"{signed}\n{said}".encode()).hexdigest()
    unchanged = hashlib.sha256(f"{signed}\n{said}\n{state}".encode()).hexdigest()
    return acted, unchanged
