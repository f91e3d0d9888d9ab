"""Schema versions: a database made by the previous version is upgraded on start, and the
game in it goes on."""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlmodel import col, select

from pbem.core.addressing import Tag, reply_address, token
from pbem.core.clock import as_utc
from pbem.flow.deadlines import tick
from pbem.flow.replies import handle
from pbem.flow.service import Service
from pbem.store.db import open_database, session
from pbem.store.migrate import SCHEMA_VERSION, SchemaError, schema_version, upgrade
from pbem.store.models import Declined, Game, Held, Inbound, Observer, Outbox, Seat
from tests.support.localmail import START, later, local_service, take_mail

FIXTURE = Path(__file__).parent / "fixtures" / "schema-v1.sql"
FIXTURE_V2 = Path(__file__).parent / "fixtures" / "schema-v2.sql"


def _version_1(path: Path) -> Path:
    """A database as version 1 of the service left it: game 1 at its first decision (Ann, red,
    to place a set-up boat), with Bob and a greedy bot, a 24 h deadline and a GM."""
    return _old(path, FIXTURE)


def _old(path: Path, fixture: Path) -> Path:
    """A database at `path` made from `fixture`, the dump of one an older version left."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as connection:
        connection.executescript(fixture.read_text())
    return path


def test_a_version_1_database_is_upgraded_on_open_and_its_game_goes_on(tmp_path: Path) -> None:
    service = local_service(tmp_path)  # makes a current database elsewhere; replaced below
    path = _version_1(tmp_path / "old" / "pbem.sqlite")
    assert schema_version(create_engine(f"sqlite:///{path}")) == 1
    engine = open_database(path)
    assert schema_version(engine) == SCHEMA_VERSION
    service = Service(engine, service.settings)
    with session(engine) as db:
        table = service.table(db, 1, START)
        game, seats, state = table.game, table.seats, table.state
        assert game.gm_secret and len(game.gm_secret) == 32
        assert game.deadline_at is None and game.status == "running"
        assert [(s.name, s.auto_moves, s.absent, s.tz) for s in seats] == [
            ("Ann", 0, False, None),
            ("Bob", 0, False, None),
            ("Cy", 0, False, None),
        ]
        assert state.decision is not None and state.decision.number == 1
        secret = seats[0].secret
        db.commit()
    # the first tick gives the old game a clock; the old prompt's reply address still works
    tick(service, START)
    with session(engine) as db:
        game = db.get(Game, 1)
        assert game is not None and as_utc(game.deadline_at) == START.replace(day=24)
        db.commit()
    address = reply_address("tongiaki@example.test", Tag(1, 0, 1, token(secret, 1, 0, 1)))
    reply = (
        f"From: ann@example.test\r\nTo: {address}\r\nSubject: Re: your move\r\n"
        "Message-ID: <upgrade-test@example.test>\r\n\r\nplace Tonga b\r\n"
    ).encode()
    assert handle(service, reply, later(5)) == "applied"
    assert any("Your move" in str(m["Subject"]) for m in take_mail(service))
    # opening it again changes nothing more
    assert upgrade(engine) == []


def test_a_database_newer_than_the_service_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "pbem.sqlite"
    open_database(path).dispose()
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE setting SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(SchemaError, match="schema version 99"):
        open_database(path)


def test_a_new_database_starts_at_the_current_version(tmp_path: Path) -> None:
    engine = open_database(tmp_path / "new.sqlite")
    assert schema_version(engine) == SCHEMA_VERSION
    with session(engine) as db:
        assert db.get(Seat, 1) is None
        db.commit()


def test_a_version_2_database_keeps_its_waiting_mail_and_never_reuses_a_mail_number(
    tmp_path: Path,
) -> None:
    """Version 2 (the previous one) left game 1 at its first decision and four mails waiting,
    numbered 1-4; SQLite gave a deleted last number to the next mail."""
    service = local_service(tmp_path)
    path = _old(tmp_path / "old" / "pbem.sqlite", FIXTURE_V2)
    assert schema_version(create_engine(f"sqlite:///{path}")) == 2
    engine = open_database(path)
    assert schema_version(engine) == SCHEMA_VERSION
    service = Service(engine, service.settings)
    with session(engine) as db:
        waiting = db.exec(select(Outbox).order_by(col(Outbox.id))).all()
        assert [(m.id, m.recipient) for m in waiting] == [
            (1, "ann@example.test"),
            (2, "bob@example.test"),
            (3, "ann@example.test"),
            (4, "gm@example.test"),
        ]
        assert waiting[3].message == b"To: gm@example.test\r\n\r\nmail 4\r\n"
        db.delete(waiting[3])
        db.commit()
    take_mail(service)  # mails 1-3 go out
    with session(engine) as db:
        table = service.table(db, 1, START)
        game, seats = table.game, table.seats
        assert (game.status, game.decision, [s.name for s in seats]) == (
            "running",
            1,
            ["Ann", "Bob", "Cy"],
        )
        db.commit()
    tick(service, START + timedelta(hours=25))  # Ann's deadline: news for everyone
    with session(engine) as db:
        numbers = [m.id for m in db.exec(select(Outbox))]
    assert numbers and min(numbers) > 4


def test_an_upgrade_another_process_finished_meanwhile_is_not_run_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes may both read an old version before either upgrades (the service
    starting while the host runs `pbem-admin list`): the second finds the work done."""
    path = _old(tmp_path / "pbem.sqlite", FIXTURE_V2)
    engine = open_database(path)  # the first process upgrades
    monkeypatch.setattr("pbem.store.migrate.schema_version", lambda _engine: 1)  # the second's view
    assert upgrade(engine) == []
    assert schema_version(create_engine(f"sqlite:///{path}")) == SCHEMA_VERSION


FIXTURE_V3 = Path(__file__).parent / "fixtures" / "schema-v3.sql"


def test_a_version_3_database_knows_its_handled_mail_by_a_hash_of_the_message_id(
    tmp_path: Path,
) -> None:
    """Version 3 (the previous one) handled Ann's reply `place Tonga a` to game 1 (Ann red,
    Bob blue, game master gm@example.test) and refused a mail without a game tag."""
    service = local_service(tmp_path)
    path = _old(tmp_path / "old" / "pbem.sqlite", FIXTURE_V3)
    assert schema_version(create_engine(f"sqlite:///{path}")) == 3
    engine = open_database(path)
    assert schema_version(engine) == SCHEMA_VERSION
    service = Service(engine, service.settings)
    with session(engine) as db:
        first = db.exec(select(Inbound).order_by(col(Inbound.id))).first()
        assert first is not None and first.outcome == "applied"
        assert first.message_hash == hashlib.sha256(first.message_id.encode()).hexdigest()
        table = service.table(db, 1, START)
        game, seats = table.game, table.seats
        assert (game.epoch, game.decision) == (0, 2)
        db.commit()
    # the same reply delivered again (a mailbox that shows it as unread once more)
    again = (
        f"From: ann@example.test\r\nTo: tongiaki@example.test\r\nSubject: Re: your move\r\n"
        f"Message-ID: {first.message_id}\r\n\r\nplace Tonga a\r\n"
    ).encode()
    assert handle(service, again, later(10)) == "duplicate"
    # the open decision's reply address (made by version 3) still acts: Bob places a boat
    address = reply_address("tongiaki@example.test", Tag(1, 1, 2, token(seats[1].secret, 1, 1, 2)))
    reply = (
        f"From: bob@example.test\r\nTo: {address}\r\nSubject: Re: your move\r\n"
        "Message-ID: <after-upgrade@example.test>\r\n\r\nplace Tonga b\r\n"
    ).encode()
    assert handle(service, reply, later(11)) == "applied"


FIXTURE_V4 = Path(__file__).parent / "fixtures" / "schema-v4.sql"


def test_a_version_4_database_gets_the_seats_mail_settings_and_plays_on(tmp_path: Path) -> None:
    """Version 4 (the previous one) handled Ann's reply `place Tonga a` and `tz
    Europe/Berlin` to game 1 (Ann red, Bob blue, game master gm@example.test)."""
    service = local_service(tmp_path)
    path = _old(tmp_path / "old" / "pbem.sqlite", FIXTURE_V4)
    assert schema_version(create_engine(f"sqlite:///{path}")) == 4
    engine = open_database(path)
    assert schema_version(engine) == SCHEMA_VERSION
    service = Service(engine, service.settings)
    with session(engine) as db:
        table = service.table(db, 1, START)
        game, seats = table.game, table.seats
        assert (game.decision, game.observers_talk) == (2, False)
        assert [(s.tz, s.resigned, s.lang, s.mail_mode, s.talk_seen) for s in seats] == [
            ("Europe/Berlin", False, "en", "all", 0),
            (None, False, "en", "all", 0),
        ]
        assert db.exec(select(Observer)).all() == []
        db.commit()
    address = reply_address("tongiaki@example.test", Tag(1, 1, 2, token(seats[1].secret, 1, 1, 2)))
    reply = (
        f"From: bob@example.test\r\nTo: {address}\r\nSubject: Re: your move\r\n"
        "Message-ID: <after-upgrade-5@example.test>\r\n\r\nplace Tonga b\r\n"
    ).encode()
    assert handle(service, reply, later(11)) == "applied"


FIXTURE_V5 = Path(__file__).parent / "fixtures" / "schema-v5.sql"


def test_a_version_5_database_keeps_its_waiting_mail_unclaimed_and_plays_on(
    tmp_path: Path,
) -> None:
    """Version 5 (the previous one) handled Ann's reply `place Tonga a` to game 1 (Ann red,
    Bob blue, game master gm@example.test) and left mails 1-4 waiting (mail 4 tried twice);
    mails 5 and 6 had gone out."""
    service = local_service(tmp_path)
    path = _old(tmp_path / "old" / "pbem.sqlite", FIXTURE_V5)
    assert schema_version(create_engine(f"sqlite:///{path}")) == 5
    engine = open_database(path)
    assert schema_version(engine) == SCHEMA_VERSION
    service = Service(engine, service.settings)
    with session(engine) as db:
        waiting = db.exec(select(Outbox).order_by(col(Outbox.id))).all()
        assert [(m.id, m.attempts, m.claimed_until) for m in waiting] == [
            (1, 0, None),
            (2, 0, None),
            (3, 0, None),
            (4, 2, None),
        ]
        table = service.table(db, 1, START)
        game, seats = table.game, table.seats
        assert (game.decision, game.lang) == (2, "en")  # version 7: the game's language
        db.commit()
    address = reply_address("tongiaki@example.test", Tag(1, 1, 2, token(seats[1].secret, 1, 1, 2)))
    reply = (
        f"From: bob@example.test\r\nTo: {address}\r\nSubject: Re: your move\r\n"
        "Message-ID: <after-upgrade-6@example.test>\r\n\r\nplace Tonga b\r\n"
    ).encode()
    assert handle(service, reply, later(11)) == "applied"
    mails = take_mail(service)
    assert [str(m.get_content()).strip() for m in mails[:4]] == [f"mail {n}" for n in (1, 2, 3, 4)]
    assert len(mails) > 4  # and the news of Bob's move, numbered after mail 6
    with session(engine) as db:
        game = service.table(db, 1, START).game
        assert game.decision == 3
        db.commit()
    assert upgrade(engine) == []


FIXTURE_V7 = Path(__file__).parent / "fixtures" / "schema-v7.sql"


def test_a_version_7_database_gets_when_players_resigned_and_plays_on(tmp_path: Path) -> None:
    """Version 7 (the previous one) handled Ann's reply `1` (her set-up boat) and Cy's
    `resign confirm` in game 1 (Ann red, Bob blue, Cy green, game master gm@example.test)."""
    service = local_service(tmp_path)
    path = _old(tmp_path / "old" / "pbem.sqlite", FIXTURE_V7)
    assert schema_version(create_engine(f"sqlite:///{path}")) == 7
    engine = open_database(path)
    assert schema_version(engine) == SCHEMA_VERSION
    service = Service(engine, service.settings)
    with session(engine) as db:
        table = service.table(db, 1, START)
        game, seats = table.game, table.seats
        assert game.decision == 2
        assert [(s.resigned, s.resigned_at, s.asked, s.asked_at) for s in seats] == [
            (False, None, "", None),
            (False, None, "", None),
            (True, None, "", None),  # when Cy left was not kept
        ]
        db.commit()

    def mail(seat: int, body: str, n: int) -> bytes:
        signed = token(seats[seat].secret, 1, seat, 2)
        address = reply_address("tongiaki@example.test", Tag(1, seat, 2, signed))
        return (
            f"From: {seats[seat].address}\r\nTo: {address}\r\nSubject: Re: game 1\r\n"
            f"Message-ID: <after-upgrade-8-{n}@example.test>\r\n\r\n{body}\r\n"
        ).encode()

    assert handle(service, mail(2, "say hello", 1), later(30)) == "rejected"
    with session(engine) as db:
        detail = db.exec(select(Inbound).order_by(col(Inbound.id).desc())).first()
        assert detail is not None and detail.detail.startswith("say hello -> rejected (You left")
        db.commit()
    assert handle(service, mail(1, "resign", 2), later(40)) == "applied"
    assert handle(service, mail(1, "confirm", 3), later(50)) == "applied"
    with session(engine) as db:
        seats = service.table(db, 1, START).seats
        assert (seats[1].resigned, seats[1].resigned_at) == (True, 2)
        db.commit()
    assert upgrade(engine) == []


FIXTURE_V8 = Path(__file__).parent / "fixtures" / "schema-v8-observers.sql"
FIXTURE_V8_VACATION = Path(__file__).parent / "fixtures" / "schema-v8-vacation.sql"


def test_a_version_8_database_keeps_its_observers_watching_who_may_now_stop(
    tmp_path: Path,
) -> None:
    """Version 8 (the previous one) made game 1 (Ann red, Bob blue, game master
    gm@example.test) with Olga watching from `new-game` and Pia added by `gm observe`, before
    observers were asked: both watch on, and each mail to them now says how to stop it."""
    service = local_service(tmp_path)
    path = _old(tmp_path / "old" / "pbem.sqlite", FIXTURE_V8)
    assert schema_version(create_engine(f"sqlite:///{path}")) == 8
    engine = open_database(path)
    assert schema_version(engine) == SCHEMA_VERSION
    service = Service(engine, service.settings)
    with session(engine) as db:
        table = service.table(db, 1, START)
        assert [(o.name, as_utc(o.confirmed_at or START), o.ended) for o in table.observers] == [
            ("Olga", START, None),
            ("Pia", START + timedelta(minutes=10), None),
        ]
        seats = table.seats
        assert db.exec(select(Declined)).all() == []
        db.commit()
    signed = token(seats[0].secret, 1, 0, 1)
    address = reply_address("tongiaki@example.test", Tag(1, 0, 1, signed))
    reply = (
        f"From: ann@example.test\r\nTo: {address}\r\nSubject: Re: your move\r\n"
        "Message-ID: <after-upgrade-9@example.test>\r\n\r\n1\r\n"
    ).encode()
    assert handle(service, reply, later(20)) == "applied"
    watching = [m for m in take_mail(service) if m["X-Tongiaki-Kind"] == "watch"]
    assert sorted(str(m["To"]) for m in watching) == ["olga@example.test", "pia@example.test"]
    pia = next(m for m in watching if m["To"] == "pia@example.test")
    assert "?subject=stop&body=stop>" in str(pia["List-Unsubscribe"])
    stop = (
        f"From: pia@example.test\r\nTo: {str(pia['Reply-To']).split('<')[-1].rstrip('>')}\r\n"
        "Subject: stop\r\nMessage-ID: <after-upgrade-9-stop@example.test>\r\n\r\nstop\r\n"
    ).encode()
    assert handle(service, stop, later(30)) == "applied"
    with session(engine) as db:
        assert [o.name for o in service.table(db, 1, START).observers] == ["Olga"]
        db.commit()
    assert upgrade(engine) == []


def test_a_version_8_database_keeps_a_vacation_told_and_a_digests_news_and_plays_on(
    tmp_path: Path,
) -> None:
    """Version 8 (the previous one) left game 1 (Ann red, Bob blue, Cy green, game master
    gm@example.test) at decision 1 with Cy in digest mode and Bob on vacation for 2 days
    from 09:02, told to everyone at once as it then was (Cy's digest holds the news)."""
    service = local_service(tmp_path)
    path = _old(tmp_path / "old" / "pbem.sqlite", FIXTURE_V8_VACATION)
    assert schema_version(create_engine(f"sqlite:///{path}")) == 8
    engine = open_database(path)
    assert schema_version(engine) == SCHEMA_VERSION
    service = Service(engine, service.settings)
    with session(engine) as db:
        seats = service.table(db, 1, START).seats
        bob = seats[1]
        assert (bob.away_since, bob.away_told, bob.vacation_used) == (None, True, 2 * 86400)
        assert [h.cause for h in db.exec(select(Held))] == [""]
        db.commit()
    assert tick(service, later(90)).vacations == 0  # told already, by version 8

    def mail(seat: int, body: str, n: int) -> bytes:
        signed = token(seats[seat].secret, 1, seat, 1)
        address = reply_address("tongiaki@example.test", Tag(1, seat, 1, signed))
        return (
            f"From: {seats[seat].address}\r\nTo: {address}\r\nSubject: Re: game 1\r\n"
            f"Message-ID: <after-upgrade-9-{n}@example.test>\r\n\r\n{body}\r\n"
        ).encode()

    back = START + timedelta(hours=10, minutes=2)  # on for 10 hours: the rest given back
    assert handle(service, mail(1, "vacation off", 1), back) == "applied"
    assert [str(m["To"]) for m in take_mail(service)] == ["bob@example.test"]
    with session(engine) as db:
        bob = service.table(db, 1, START).seats[1]
        assert (bob.away_until, bob.vacation_used) == (None, 10 * 3600)
        assert len(db.exec(select(Held).where(Held.seat == 2)).all()) == 2  # Cy's digest: kept
        db.commit()
    tick(service, back)  # the quiet change: a short line with the clock (and Cy's digest, due)
    assert sorted(str(m["To"]) for m in take_mail(service)) == [
        "ann@example.test",
        "cy@example.test",
    ]
    assert handle(service, mail(0, "1", 2), back + timedelta(minutes=1)) == "applied"
    assert upgrade(engine) == []
