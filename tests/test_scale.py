"""Bounded memory and disk (issue 16 item 5): the state cache keeps at most its size, free
pages go back to the disk, `pbem list` reads every game in one query."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from sqlmodel import col, select
from typer.testing import CliRunner

from engine import Setup, State
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.game.table import StateCache
from pbem.host.cli import app, game_lines
from pbem.host.runner import one_service
from pbem.store.db import compact, incremental, open_database, reading, session
from pbem.store.models import Game, Outbox
from tests.support.localmail import START, later, local_service, reply_to, take_mail

runner = CliRunner()


def test_the_state_cache_keeps_the_games_used_last_and_the_games_play_on(tmp_path: Path) -> None:
    service = local_service(tmp_path, state_cache_games=2)
    for n in range(3):
        service.new_game(
            [SeatSpec("Ann", f"ann{n}@example.test"), SeatSpec("Kai", None, bot="greedy")],
            seed=n,
            now=START,
        )
    assert len(service.cache) == 2
    prompts = {m["To"]: m for m in take_mail(service) if m["X-Tongiaki-Decision"]}
    for n in range(3):  # game 1 was dropped from the cache: read from the database again
        assert handle(service, reply_to(prompts[f"ann{n}@example.test"], "1"), later(n + 1)) == (
            "applied"
        )
        assert len(service.cache) <= 2
    fresh = local_service(tmp_path)  # what another process reads: the same games
    for n in range(3):
        with reading(service.engine) as db:
            cached = service.table(db, n + 1, START).state
        with reading(fresh.engine) as db:
            assert fresh.table(db, n + 1, START).state == cached


def test_the_cache_drops_the_least_recently_used_game() -> None:
    cache = StateCache(2)
    games = [
        Game(id=n, created_at=START, colours="", stack="", snapshot=f"s{n}") for n in (1, 2, 3)
    ]
    state = State(Setup.from_seed(("blue", "red"), 1))
    cache.put(games[0], state)
    cache.put(games[1], state)
    assert cache.get(games[0]) == state  # 1 is used: 2 is now the oldest
    cache.put(games[2], state)
    assert cache.get(games[1]) is None
    assert cache.get(games[0]) == state and cache.get(games[2]) == state


def test_pbem_list_reads_every_game_with_its_players(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    for n in range(3):
        service.new_game(
            [
                SeatSpec(f"P{n}", f"p{n}@example.test", "red"),
                SeatSpec("Kai", None, "blue", "greedy"),
            ],
            seed=n,
            now=START,
        )
    with reading(service.engine) as db:
        lines = game_lines(db)
    assert lines == [
        f"g{n + 1}  running  decision {d:<4} P{n} (red), Kai (blue, greedy bot)"
        for n, d in zip(range(3), _decisions(service), strict=True)
    ]


def _decisions(service: Service) -> list[int]:
    with reading(service.engine) as db:
        return [g.decision for g in db.exec(select(Game).order_by(col(Game.id)))]


def _bloat(path: Path) -> None:
    engine = open_database(path)
    with session(engine) as db:
        for _ in range(200):
            db.add(
                Outbox(
                    recipient="x@example.test",
                    message=bytes(50_000),
                    created_at=START,
                    next_attempt_at=START,
                )
            )
        db.commit()
    with session(engine) as db:
        for row in db.exec(select(Outbox)):
            db.delete(row)
        db.commit()
    engine.dispose()


def test_compact_gives_the_pages_of_sent_mail_back(tmp_path: Path) -> None:
    path = tmp_path / "pbem.sqlite"
    open_database(path).dispose()
    assert incremental(path)  # a new database frees pages without a rebuild
    _bloat(path)
    with one_service(path):  # safe while the service runs
        before, after = compact(path)
    assert before > 9_000_000 and after < 1_000_000


def test_an_older_database_is_rebuilt_once_and_only_with_the_service_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "pbem-data" / "pbem.sqlite"
    path.parent.mkdir()
    open_database(path).dispose()
    with closing(sqlite3.connect(path, isolation_level=None)) as db:  # as 0.1 made them
        db.execute("PRAGMA auto_vacuum=NONE")
        db.execute("VACUUM")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    assert not incremental(path)
    with one_service(path):
        refused = runner.invoke(app, ["compact"])
    assert refused.exit_code == 3, refused.output
    assert not incremental(path)
    _bloat(path)
    done = runner.invoke(app, ["compact"])
    assert done.exit_code == 0, done.output
    assert "KB before" in done.output and incremental(path)
