"""News kept for a reader: what a player of `mail turns` has not been told yet
(`news_seen`), the news of other players' commands that waited past `caused_per_day` or for
the clock (`Held` rows: `hold` writes them; `Kept` reads those of every reader of a round at
once, with the unread table talk, and lets the queueing step take a reader's), and how many
mails a cause may make a reader a day (`may_cause`)."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import timedelta

from sqlalchemy import bindparam
from sqlmodel import col, delete, func, select

from engine import Message, counted
from pbem.core import MoveSource, Settings
from pbem.game.table import Table
from pbem.mail_out.envelope import talk_since
from pbem.store import Caused, Held, Move, Observer, Seat, Talk, found_any, read_rows_of
from pbem.views import i18n
from pbem.views.news import colour

log = logging.getLogger(__name__)

DAY = timedelta(days=1)
HELD_LINES = 5  # lines of news of one player's commands that moved nothing, in one mail
# a game's held rows, read by every round: built once (building costs more than running it)
_HELD = select(Held).where(Held.game_id == bindparam("game")).order_by(col(Held.id))
_ANY_HELD = select(col(Held.id)).where(Held.game_id == bindparam("game")).limit(1)  # mostly none


def news_seen(moves: Sequence[Move], seat: int) -> int:
    """The last move of the log whose news reached `seat` by mail, for a player who gets only
    the mails that ask for their decision (`mail turns`): the mail that answered their last
    move by mail told the whole round it was made in; a move made for them (at the deadline,
    by a bot, by the game master) was asked for in a mail that told everything before it."""
    own = [n for n, move in enumerate(moves) if move.seat == seat]
    if not own:
        return 0
    last = moves[own[-1]]
    if last.source != MoveSource.MAIL:
        return last.number - 1
    seen = last.number
    for move in moves[own[-1] + 1 :]:
        if move.created_at != last.created_at:
            break
        seen = move.number
    return seen


def held_news(rows: Sequence[Held]) -> list[str]:
    """The news held for a reader, oldest first: of each player whose commands that moved
    nothing made news, at most HELD_LINES lines, then how many more there were."""
    lines: list[str] = []
    told: dict[str, int] = {}
    for row in rows:
        for line in json.loads(row.lines):
            if row.cause:
                told[row.cause] = told.get(row.cause, 0) + 1
                if told[row.cause] > HELD_LINES:
                    continue
            lines.append(line)
    for name, count in told.items():
        if count > HELD_LINES:
            lines.append(
                counted(
                    "... and {count} more line about {name}, left out",
                    "... and {count} more lines about {name}, left out",
                    count - HELD_LINES,
                    name=name,
                )
            )
    return lines


class Kept:
    """What the readers of a round have not been told, read once for all of them when first
    asked (a query each: a round with several readers does not read, and flush what the
    mails before wrote, once per reader): the news held for each seat, the game's unread
    table talk, its log. A reader's held news leaves the database when the mail that tells
    it is queued (`taken`), not when it is made."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._held: dict[int, list[Held]] | None = None
        self._talk: list[Talk] | None = None
        self._moves: list[Move] | None = None

    def held(self, seat: int) -> list[Held]:
        """The rows held for `seat`, oldest first."""
        if self._held is None:
            self._held, db, game = {}, self.table.db, {"game": self.table.game.id}
            rows: list[Held] = []
            if found_any(db, Held, _ANY_HELD, game):
                with read_rows_of(db, Held):
                    rows = list(db.exec(_HELD, params=game))
            for row in rows:
                self._held.setdefault(row.seat, []).append(row)
        return self._held.get(seat, [])

    def taken(self, rows: Sequence[Held]) -> None:
        """The rows told by a mail just queued: gone."""
        for row in rows:
            self.table.db.delete(row)
            if self._held is not None:
                self._held[row.seat] = [r for r in self._held[row.seat] if r is not row]

    @property
    def talk(self) -> list[Talk]:
        """The table talk after the last line every player mailed has read, oldest first."""
        if self._talk is None:
            mailed = [s.talk_seen for s in self.table.seats if s.address]
            seen = min(mailed, default=0)
            self._talk = talk_since(self.table, seen)
        return self._talk

    @property
    def moves(self) -> list[Move]:
        """The game's log as stored."""
        if self._moves is None:
            self._moves = self.table.moves()
        return self._moves


def hold(
    table: Table,
    seat: Seat,
    happened: Sequence[str],
    cause: Seat | None = None,
    *,
    soon: bool = False,
) -> None:
    """Keep news for `seat`'s digest or next mail (`soon`: the clock's next round), as the
    player reads it; `cause`: whose command that moved nothing made it (named in the
    reader's words)."""
    if not happened:
        return
    assert table.game.id is not None
    words = i18n.words(seat.lang, seat.tz)
    lines = json.dumps([words.say(line) for line in happened])
    named = words.say(name(cause)) if cause is not None else ""
    row = Held(
        game_id=table.game.id, seat=seat.seat, at=table.now, lines=lines, cause=named, soon=soon
    )
    table.db.add(row)


def may_cause(
    settings: Settings, table: Table, cause: Seat | Observer, reader: Seat | Observer
) -> bool:
    """Whether `cause`'s commands that moved nothing may mail `reader` once more now (and
    it is counted): at most `caused_per_day` such mails in 24 hours per game."""
    assert table.game.id is not None and cause.address and reader.address
    db, now, game_id = table.db, table.now, table.game.id
    who, whom = cause.address.lower(), reader.address.lower()
    db.exec(delete(Caused).where(col(Caused.game_id) == game_id, col(Caused.at) < now - DAY))
    sent = db.exec(
        select(func.count())
        .select_from(Caused)
        .where(Caused.game_id == game_id, Caused.cause == who, Caused.reader == whom)
    ).one()
    if sent >= settings.caused_per_day:
        log.info("game %s: no mail to %s caused by %s today: %d already", game_id, whom, who, sent)
        return False
    db.add(Caused(game_id=game_id, cause=who, reader=whom, at=now))
    return True


def name(seat: Seat) -> str:
    """A player as the news names them: their name and colour."""
    return Message("{name} ({colour})", name=seat.name, colour=colour(seat.colour))


__all__ = ["HELD_LINES", "Kept", "held_news", "hold", "may_cause", "name", "news_seen"]
