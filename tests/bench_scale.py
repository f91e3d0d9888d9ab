"""How the service's reading and memory scale with the number of games: `pbem list` over
10,000 games (in one query), the state cache's size, and the database after mail was sent.
Run with `python3 dev.py bench-scale`; prints figures, asserts nothing."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from sqlmodel import delete

from engine import Setup, State
from pbem.core.config import Settings
from pbem.flow.service import Service
from pbem.game.table import StateCache
from pbem.host.cli import game_lines
from pbem.store.db import compact, open_database, reading, session
from pbem.store.models import Game, Outbox, Seat
from tests.support.localmail import START

GAMES = 10_000


def _fill(path: Path) -> None:
    engine = open_database(path)
    snapshot = json.dumps(State(Setup.from_seed(("blue", "red", "green", "yellow"), 1)).to_json())
    with session(engine) as db:
        for n in range(1, GAMES + 1):
            db.add(
                Game(
                    id=n,
                    created_at=START,
                    colours="blue,red,green,yellow",
                    stack="",
                    snapshot=snapshot,
                )
            )
            for seat, colour in enumerate(("blue", "red", "green", "yellow")):
                db.add(
                    Seat(
                        game_id=n,
                        seat=seat,
                        name=f"P{seat}",
                        address=f"p{seat}-{n}@example.test",
                        colour=colour,
                        secret="s",
                    )
                )
            if n % 1000 == 0:
                print(f"  made {n} games", file=sys.stderr)
        db.commit()
    engine.dispose()


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "pbem.sqlite"
        _fill(path)
        service = Service(open_database(path), Settings(data_dir=Path(folder)))
        runs = []
        for _ in range(5):
            started = time.perf_counter()
            with reading(service.engine) as db:
                lines = game_lines(db)
            runs.append(time.perf_counter() - started)
        print(
            f"pbem list, {len(lines)} games, one query: "
            f"best {min(runs):.3f} s, worst {max(runs):.3f} s"
        )

        cache = StateCache(1000)
        state = State(Setup.from_seed(("blue", "red", "green", "yellow"), 1))
        with reading(service.engine) as db:
            for game in db.exec(Game.__table__.select().limit(GAMES)):  # type: ignore[attr-defined]
                row = Game(
                    id=game.id, created_at=START, colours="", stack="", snapshot=game.snapshot
                )
                cache.put(row, state)
        print(f"state cache after {GAMES} games saved: {len(cache)} kept (state_cache_games 1000)")

        with session(service.engine) as db:
            for _ in range(500):
                db.add(
                    Outbox(
                        recipient="x@example.test",
                        message=bytes(60_000),
                        created_at=START,
                        next_attempt_at=START,
                    )
                )
            db.commit()
        with session(service.engine) as db:
            db.exec(delete(Outbox))
            db.commit()
        service.engine.dispose()
        before, after = compact(path)
        print(
            f"database after 500 mails of 60 KB sent: {before // 1024} KB, "
            f"after pbem compact {after // 1024} KB"
        )


if __name__ == "__main__":
    main()
