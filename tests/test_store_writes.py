"""The rows a reply changes (its game, its seats) written through the connection when the
session commits (`pbem.store.write_changed`, a hook of `pbem.store.session`): the same rows
as the ORM's flush writes, in as many statements, and nothing left for the commit's flush."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import col, select

from pbem.flow.service import SeatSpec, Service
from pbem.store import Game, Seat, Talk, session, write_changed
from tests.support.localmail import START, local_service


@pytest.fixture
def service(tmp_path: Path) -> Service:
    return local_service(tmp_path)


@pytest.fixture
def updates(service: Service) -> Iterator[list[tuple[str, int]]]:
    """The UPDATE statements sent, each with its number of rows."""
    sent: list[tuple[str, int]] = []

    def seen(_c: Any, _cursor: Any, statement: str, params: Any, _x: Any, many: bool) -> None:
        if statement.startswith("UPDATE"):
            sent.append((statement.split(" WHERE")[0], len(params) if many else 1))

    event.listen(service.engine, "before_cursor_execute", seen)
    yield sent
    event.remove(service.engine, "before_cursor_execute", seen)


def _game(service: Service) -> int:
    seats = [SeatSpec("Ann", "ann@example.test"), SeatSpec("Bob", "bob@example.test")]
    return service.new_game(seats, seed=3, now=START)


def _seats(db: Any, game_id: int) -> list[Seat]:
    return list(db.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat))))


def test_changed_columns_are_written_and_the_commit_flushes_nothing(
    service: Service, updates: list[tuple[str, int]]
) -> None:
    game_id = _game(service)
    updates.clear()  # those of the game's start
    with session(service.engine) as db:
        game = db.get(Game, game_id)
        assert game is not None
        ann, bob = _seats(db, game_id)
        bob.tz = "Europe/Rome"  # changed first, written last
        bob.talk_seen, ann.talk_seen = 6, 5
        game.decision, game.lang = 7, game.lang  # the language set to what it was: unchanged
        write_changed(db)
        assert not db.dirty
        assert updates == [  # in the flush's order: the game, then its seats by key
            ("UPDATE game SET decision=?", 1),
            ("UPDATE seat SET talk_seen=?", 1),
            ("UPDATE seat SET tz=?, talk_seen=?", 1),
        ]
        db.commit()
    assert len(updates) == 3  # the commit sent none
    with session(service.engine) as db:
        game = db.get(Game, game_id)
        assert game is not None and game.decision == 7
        assert [(s.talk_seen, s.tz) for s in _seats(db, game_id)] == [
            (5, None),
            (6, "Europe/Rome"),
        ]


def test_seats_with_the_same_columns_changed_go_in_one_statement(
    service: Service, updates: list[tuple[str, int]]
) -> None:
    game_id = _game(service)
    updates.clear()
    with session(service.engine) as db:
        for n, seat in enumerate(_seats(db, game_id)):
            seat.talk_seen = 10 + n
        db.commit()  # the session's hook writes them
    assert updates == [("UPDATE seat SET talk_seen=?", 2)]
    with session(service.engine) as db:
        assert [s.talk_seen for s in _seats(db, game_id)] == [10, 11]


def test_a_row_gone_meanwhile_is_refused_as_the_flush_refuses_it(service: Service) -> None:
    game_id = _game(service)
    with session(service.engine) as db:
        ann, _ = _seats(db, game_id)
        db.connection().execute(text("DELETE FROM seat WHERE id = :id"), {"id": ann.id})
        ann.talk_seen = 3
        with pytest.raises(StaleDataError):
            write_changed(db)


def test_with_a_new_row_pending_everything_is_left_to_the_flush(
    service: Service, updates: list[tuple[str, int]]
) -> None:
    game_id = _game(service)
    updates.clear()
    with session(service.engine) as db:
        game = db.get(Game, game_id)
        assert game is not None
        game.decision = 4
        db.add(Talk(game_id=game_id, at=START, seat=0, speaker="Ann (red)", text="hi"))
        write_changed(db)
        assert game in db.dirty and not updates  # the flush writes both, in its order
        db.commit()
    assert updates == [("UPDATE game SET decision=?", 1)]
    with session(service.engine) as db:
        game = db.get(Game, game_id)
        assert game is not None and game.decision == 4
        assert db.exec(select(Talk)).one().text == "hi"
