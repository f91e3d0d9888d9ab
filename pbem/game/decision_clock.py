"""The clock of a game's open decision: the only code that writes its columns of `Game`
(`clock_from`, `deadline_at`, `reminded_at`, `wake_at`, `paused_left`).

The clock runs from `clock_from` to `deadline_at`; `wake_at` is when the service must next
look at the game (a reminder or the deadline), `reminded_at` the last reminder sent, and
`paused_left` the time the decision had left when the game master paused the game (`pause`
and `resume` set the game's status too: the clock runs exactly while the game does). Every
function takes `now`; durations come as seconds, parsed once when the settings or the
command were read.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from pbem.core import GameStatus, Reminder, as_utc, next_wake
from pbem.store import Game


def start(
    game: Game,
    *,
    seconds: int,
    away_until: datetime | None,
    reminders: Sequence[Reminder],
    now: datetime,
) -> None:
    """The open decision gets `seconds`, counted from now or from when its player is back
    from a vacation (`away_until`); a paused game keeps the time for when it resumes."""
    begin = max(now, as_utc(away_until)) if away_until else now
    game.reminded_at = None
    game.clock_from = begin
    game.deadline_at = begin + timedelta(seconds=seconds)
    if game.status == GameStatus.PAUSED:
        game.paused_left = int((game.deadline_at - now).total_seconds())
        game.wake_at = None
    else:
        game.wake_at = wake_time(game, reminders, now)


def restore(
    game: Game,
    *,
    clock_from: datetime,
    deadline_at: datetime,
    decided_at: datetime,
    reminders: Sequence[Reminder],
    now: datetime,
) -> None:
    """A decision taken back (`gm undo`) gets the clock it had when it was made at
    `decided_at`: its deadline with the extensions and vacations it had; if that has passed,
    the time it had left then, counted from now. Reminders already due are not sent again."""
    begin, deadline = as_utc(clock_from), as_utc(deadline_at)
    if deadline <= now:
        later = now - as_utc(decided_at)
        begin, deadline = begin + later, deadline + later
    game.clock_from, game.deadline_at, game.reminded_at = begin, deadline, now
    if game.status == GameStatus.PAUSED:
        game.paused_left = max(int((deadline - now).total_seconds()), 0)
        game.wake_at = None
    else:
        game.wake_at = wake_time(game, reminders, now)


def stop(game: Game) -> None:
    """No decision is open (the game is over): no clock."""
    game.clock_from = game.deadline_at = game.wake_at = game.reminded_at = None
    game.paused_left = None


def wake_time(game: Game, reminders: Sequence[Reminder], now: datetime) -> datetime | None:
    """When the game next needs the service: a reminder or the deadline; None when no clock
    runs (no decision, or the game is paused or over)."""
    if game.deadline_at is None or game.clock_from is None or game.status != GameStatus.RUNNING:
        return None
    reminded = as_utc(game.reminded_at) if game.reminded_at else None
    return next_wake(as_utc(game.clock_from), as_utc(game.deadline_at), reminded, reminders, now)


def shift(game: Game, seconds: int, reminders: Sequence[Reminder], now: datetime) -> None:
    """Move the open decision's deadline, and its reminders, `seconds` later (a vacation,
    `extend`, a resume)."""
    if game.deadline_at is None or game.clock_from is None:
        return
    later = timedelta(seconds=seconds)
    game.deadline_at = as_utc(game.deadline_at) + later
    game.clock_from = as_utc(game.clock_from) + later
    if game.reminded_at is not None:
        game.reminded_at = as_utc(game.reminded_at) + later
    if game.status == GameStatus.PAUSED:
        game.paused_left = (game.paused_left or 0) + seconds
    game.wake_at = wake_time(game, reminders, now)


def pause(game: Game, now: datetime) -> int:
    """Pause the game and stop its clock; returns the seconds the open decision had left."""
    left = (as_utc(game.deadline_at) - now).total_seconds() if game.deadline_at else 0
    game.status = GameStatus.PAUSED
    game.paused_left = max(int(left), 0)
    game.wake_at = None
    return game.paused_left


def resume(game: Game, reminders: Sequence[Reminder], now: datetime) -> None:
    """Run the game again, its clock with the time it had left when it was paused."""
    game.status = GameStatus.RUNNING
    if game.deadline_at is not None:
        target = now.timestamp() + (game.paused_left or 0)
        shift(game, int(target - as_utc(game.deadline_at).timestamp()), reminders, now)
    game.paused_left = None


def looked(game: Game, reminders: Sequence[Reminder], now: datetime, *, reminded: bool) -> None:
    """The service looked at the game now (and sent a reminder if `reminded`): when next."""
    if reminded:
        game.reminded_at = now
    game.wake_at = wake_time(game, reminders, now)


def grace(game: Game, seconds: int, reminders: Sequence[Reminder], now: datetime) -> None:
    """A deadline that passed while the service was down gets `seconds` from now; the
    reminders that fell in the gap are not sent."""
    game.deadline_at = now + timedelta(seconds=seconds)
    game.reminded_at = now
    game.wake_at = wake_time(game, reminders, now)
