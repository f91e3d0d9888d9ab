"""`pbem list`: one line per game with its players. On an SQLite database at the current
schema it is read with `sqlite3` alone, so that the command starts at once; `pbem.host.cli`'s
`game_lines` reads the same through SQLAlchemy (PostgreSQL, or a database to upgrade first)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

from pbem.core import BUSY_SECONDS, make_private
from pbem.store import SCHEMA_VERSION

# the same query as `pbem.host.cli.game_lines`, in SQLite's words
GAMES = (
    "SELECT game.id, game.status, game.decision, seat.name, seat.colour, seat.bot, "
    "seat.resigned, seat.kicked, seat.absent "
    "FROM game JOIN seat ON seat.game_id = game.id ORDER BY game.id, seat.seat"
)
VERSION = "SELECT value FROM setting WHERE key = 'schema_version'"


def quick_game_lines(path: Path) -> list[str] | None:
    """The lines of `pbem list` read straight from the SQLite file at `path`; None when that
    is not the whole story and the database must be opened as the service does: no file yet
    (it is made), another schema version (upgraded, or refused as newer), anything SQLite
    refuses (the service's way says what is wrong)."""
    if not path.is_file():
        return None
    for part in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        make_private(part)  # as opening it for the service does
    try:
        with closing(sqlite3.connect(path, timeout=BUSY_SECONDS)) as db:
            found = db.execute(VERSION).fetchone()
            if found is None or found[0] != str(SCHEMA_VERSION):
                return None
            return lines_of(db.execute(GAMES))
    except sqlite3.Error:
        return None


def lines_of(rows: Iterable[Sequence[Any]]) -> list[str]:
    """One line per game of rows (game, status, decision, and one seat's name, colour, bot,
    resigned, kicked, absent) ordered by game and seat."""
    lines: list[str] = []
    current: tuple[int, str, int] | None = None
    who: list[str] = []
    for row in rows:
        game_id, status, decision, name, colour, bot, resigned, kicked, absent = row
        if game_id != (current[0] if current else None):
            if current is not None:
                lines.append(_game_line(*current, who))
            current, who = (game_id or 0, status, decision), []
        who.append(_seat_label(name, colour, bot, resigned, kicked, absent))
    if current is not None:
        lines.append(_game_line(*current, who))
    return lines


def _seat_label(
    name: str, colour: str, bot: str | None, resigned: bool, kicked: bool, absent: bool
) -> str:
    """'Ann (red)', and how the seat is played when not by its player: 'Cy (green, removed:
    greedy bot)', 'Bob (blue, resigned: greedy bot)', 'Kai (red, expert bot)', 'absent'."""
    how = f"{bot} bot" if bot else ""
    for left, said in ((kicked, "removed"), (resigned, "resigned"), (absent, "absent")):
        if left:
            how = f"{said}: {how}" if how else said
            break
    return f"{name} ({colour}{', ' + how if how else ''})"


def _game_line(game_id: int, status: str, decision: int, who: list[str]) -> str:
    return f"g{game_id}  {status:<8} decision {decision:<4} {', '.join(who)}"


__all__ = ["lines_of", "quick_game_lines"]
