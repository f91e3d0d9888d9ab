"""PostgreSQL as the database: the storage and mail-loop tests of the SQLite file run again on
a real PostgreSQL server (tests/support/postgres.py), a few on both databases side by side,
and what only PostgreSQL does: the schema made under a lock, the outbox claimed by one
service at a time, a mail taken by two services acting once, the commands that are for
SQLite files only."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlmodel import col, select
from typer.testing import CliRunner

import tests.test_deadlines as deadline_tests
import tests.test_gm as gm_tests
import tests.test_service as service_tests
from pbem.core.config import ConfigError, Settings, load_settings, settings_toml, shown_url
from pbem.core.files import maildir
from pbem.flow.deadlines import tick
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.host.cli import app
from pbem.host.runner import one_service, take
from pbem.host.sending import CLAIM, flush_outbox
from pbem.host.transport import MaildirSender
from pbem.store.db import open_database, postgres_arguments, reading, session, written_alone
from pbem.store.migrate import SCHEMA_VERSION, SchemaError, schema_version, upgrade
from pbem.store.models import Game, Inbound, Move, Outbox
from tests.support.localmail import START, later, local_service, reply_to, take_mail
from tests.support.postgres import Postgres

ANN, BOB = "ann@example.test", "bob@example.test"
runner = CliRunner()


@pytest.fixture
def pg(tmp_path: Path, migrated_postgres_url: str) -> Iterator[Service]:
    """A service on a new PostgreSQL database, with local mail."""
    service = local_service(tmp_path, database_url=migrated_postgres_url)
    yield service
    service.engine.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def either(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Service]:
    """A service on a new SQLite file, then on a new PostgreSQL database."""
    url = request.getfixturevalue("migrated_postgres_url") if request.param == "postgres" else ""
    service = local_service(tmp_path, database_url=url)
    yield service
    service.engine.dispose()


def _game(service: Service, *, seed: int = 4, hours: int = 48) -> int:
    seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")]
    return service.new_game(
        seats, seed=seed, deadline_seconds=hours * 3600, gm="gm@example.test", now=START
    )


def _prompt(service: Service, to: str) -> Any:
    return next(m for m in take_mail(service) if m["To"] == to and m["X-Tongiaki-Decision"])


# -- the tests of the SQLite file, on PostgreSQL ---------------------------------------------

SERVICE_TESTS: list[Callable[[Service], None]] = [
    service_tests.test_a_reply_with_a_number_applies_that_option,
    service_tests.test_lines_apply_in_order_until_one_fails_and_the_rest_is_ignored,
    service_tests.test_refused_and_ignored_mail_changes_nothing,
    service_tests.test_each_message_is_handled_once,
    deadline_tests.test_a_missed_turn_is_passed_and_a_missed_decision_in_a_turn_takes_the_greedy_choice,
    deadline_tests.test_three_missed_deadlines_make_a_seat_absent_until_the_player_writes,
    deadline_tests.test_vacation_pushes_the_deadline_and_is_bounded,
    deadline_tests.test_after_downtime_a_passed_deadline_gets_fresh_time_not_an_automatic_move,
]


# the first five by default (a deadline among them), the rest with -m slow (each also runs on
# SQLite by default)
SERVICE_WAYS = [
    pytest.param(
        check,
        id=check.__name__.removeprefix("test_"),
        marks=() if n < 5 else pytest.mark.slow,
    )
    for n, check in enumerate(SERVICE_TESTS)
]


@pytest.mark.parametrize("check", SERVICE_WAYS)
def test_on_postgres(check: Callable[[Service], None], pg: Service) -> None:
    check(pg)


@pytest.mark.slow
def test_a_whole_game_played_by_mail_on_postgres(pg: Service) -> None:
    service_tests.test_a_whole_game_played_by_mail(pg)


GM_TESTS: list[Callable[[Any], None]] = [
    gm_tests.test_pause_stops_the_clock_and_resume_gives_the_time_left_back,
    gm_tests.test_undo_across_a_tile_draw_gives_back_the_earlier_state_exactly,
    gm_tests.test_end_finishes_the_game_with_the_scores_as_they_stand,
]


# the first command both ways by default, the rest with -m slow (the command line reaches the
# database by the same `database_url`; each also runs on SQLite by default)
GM_WAYS = [
    pytest.param(
        check,
        how,
        id=f"{check.__name__.removeprefix('test_')}-{how}",
        marks=() if check is GM_TESTS[0] else pytest.mark.slow,
    )
    for check in GM_TESTS
    for how in ("cli", "mail")
]


@pytest.mark.parametrize(("check", "how"), GM_WAYS)
def test_game_master_on_postgres(
    check: Callable[[Any], None], how: str, tmp_path: Path, migrated_postgres_url: str
) -> None:
    """The game master's commands by mail and on the command line (`pbem gm` opens the same
    PostgreSQL database from the settings' `database_url`)."""
    service = local_service(
        tmp_path,
        gm_addresses=(gm_tests.BOSS,),
        answers_per_day=100,
        database_url=migrated_postgres_url,
    )
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(service.settings))
    try:
        check(gm_tests.Table(service, config, how))
    finally:
        service.engine.dispose()


# -- on both databases ---------------------------------------------------------------------


def test_a_replayed_reply_and_a_mail_delivered_twice_act_once(either: Service) -> None:
    _game(either)
    prompt = _prompt(either, ANN)
    reply = reply_to(prompt, "1")
    assert handle(either, reply, later(1)) == "applied"
    assert handle(either, reply, later(2)) == "duplicate"  # the same Message-ID
    again = reply_to(prompt, "1")  # the same reply address and command, a new Message-ID
    assert handle(either, again, later(3)) == "ignored"
    with session(either.engine) as db:
        assert [m.choice for m in db.exec(select(Move))] == ["place Tonga a"]
        assert len(db.exec(select(Inbound)).all()) == 2


def test_a_message_is_recorded_without_a_savepoint_only_where_the_transaction_writes_alone(
    either: Service,
) -> None:
    """SQLite's service sessions hold the one write lock from their first statement: a new
    message's row needs no savepoint there (no other service inserts it meanwhile); on
    PostgreSQL, and in a session that only reads, it keeps one."""
    sqlite = either.engine.dialect.name == "sqlite"
    with session(either.engine) as db:
        assert written_alone(db) is sqlite
    with reading(either.engine) as db:
        assert not written_alone(db)


def test_a_deadline_fires_once_however_often_the_clock_ticks(either: Service) -> None:
    _game(either, hours=1)
    take_mail(either)
    due = START + timedelta(hours=1, minutes=1)
    assert tick(either, due).automatic == 1
    assert tick(either, due).automatic == 0
    with session(either.engine) as db:
        assert [(m.seat, m.source) for m in db.exec(select(Move))] == [(0, "auto")]
        game = db.get(Game, 1)
        assert game is not None and game.decision == 2


def test_the_outbox_sends_each_mail_once_and_keeps_a_refused_one(
    either: Service, tmp_path: Path
) -> None:
    _game(either)
    folder = tmp_path / "sent"
    sent = asyncio.run(
        flush_outbox(either.engine, [MaildirSender(folder)], "t@example.test", START)
    )
    assert sent == (4, 0)  # two welcomes, Ann's prompt, the game master's welcome
    assert asyncio.run(
        flush_outbox(either.engine, [MaildirSender(folder)], "t@example.test", START)
    ) == (0, 0)
    assert len(list((folder / "new").iterdir())) == 4
    with session(either.engine) as db:
        assert db.exec(select(Outbox)).all() == []


# -- what PostgreSQL adds ------------------------------------------------------------------


def test_a_new_postgres_database_starts_at_the_current_version(
    postgres_url: str, postgres: Postgres
) -> None:
    engine = open_database(postgres_url)
    try:
        assert schema_version(engine) == SCHEMA_VERSION
        assert upgrade(engine) == []  # opening it again changes nothing
        with engine.begin() as connection:
            connection.execute(text("UPDATE setting SET value = '99' WHERE key = 'schema_version'"))
    finally:
        engine.dispose()
    with pytest.raises(SchemaError, match="schema version 99"):
        open_database(postgres_url)


def test_services_starting_together_make_the_schema_once(postgres_url: str) -> None:
    """Four services open a new database at the same moment: the advisory lock lets one make
    the tables; the others find them made and the version set."""
    engines: list[Any] = []
    failures: list[BaseException] = []
    start = threading.Barrier(4)

    def open_it() -> None:
        start.wait()
        try:
            engines.append(open_database(postgres_url))
        except BaseException as error:  # reported below
            failures.append(error)

    threads = [threading.Thread(target=open_it) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert failures == [] and len(engines) == 4
        with engines[0].connect() as connection:
            versions = connection.execute(
                text("SELECT value FROM setting WHERE key = 'schema_version'")
            ).all()
        assert versions == [(str(SCHEMA_VERSION),)]
    finally:
        for engine in engines:
            engine.dispose()


def test_times_are_kept_in_utc_whatever_the_servers_zone(pg: Service, postgres_url: str) -> None:
    database = make_url(postgres_url).database
    plain = create_engine(postgres_url)
    with plain.begin() as connection:
        zone = f"ALTER DATABASE \"{database}\" SET timezone TO 'Pacific/Tongatapu'"
        connection.execute(text(zone))
    plain.dispose()
    pg.engine.dispose()  # new connections, with the database's zone as their default
    _game(pg, hours=1)
    with session(pg.engine) as db:
        game = db.get(Game, 1)
        assert game is not None and game.deadline_at is not None
        assert game.deadline_at.replace(tzinfo=START.tzinfo) == START + timedelta(hours=1)
        db.commit()
    assert tick(pg, START + timedelta(minutes=59)).automatic == 0
    assert tick(pg, START + timedelta(minutes=61)).automatic == 1


def test_a_mail_another_service_is_sending_is_left_to_it_until_its_claim_ends(
    pg: Service, tmp_path: Path
) -> None:
    """A service that died after the mail server took a mail, before the mail left the
    outbox: the others send it again (the same bytes) once its claim has run out."""
    _game(pg)
    with session(pg.engine) as db:
        first = db.exec(select(Outbox).order_by(col(Outbox.id))).first()
        assert first is not None
        first.claimed_until = START + CLAIM
        db.commit()
    folder = tmp_path / "sent"
    sender = [MaildirSender(folder)]
    assert asyncio.run(flush_outbox(pg.engine, sender, "t@example.test", START)) == (3, 0)
    assert asyncio.run(flush_outbox(pg.engine, sender, "t@example.test", START + CLAIM)) == (1, 0)
    sent = [p.read_bytes() for p in (folder / "new").iterdir()]
    assert any(first.message in mail for mail in sent)


def test_two_services_given_the_same_mail_act_on_it_once(tmp_path: Path, postgres_url: str) -> None:
    """Both services of one database read the same reply at the same moment: one applies it,
    the other finds it taken (a duplicate); one move, one round of mail."""
    first = local_service(tmp_path / "one", database_url=postgres_url)
    second = Service(open_database(postgres_url), replace(first.settings))
    try:
        _game(first)
        reply = reply_to(_prompt(first, ANN), "2")
        start = threading.Barrier(2)
        outcomes: list[str] = []

        def read(service: Service) -> None:
            start.wait()
            outcomes.append(take(service, reply, later(1)))

        threads = [threading.Thread(target=read, args=(s,)) for s in (first, second)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(outcomes) == ["applied", "duplicate"]
        with session(first.engine) as db:
            assert [m.choice for m in db.exec(select(Move))] == ["place Tonga b"]
            assert len(db.exec(select(Inbound)).all()) == 1
        assert sum(m["To"] == ANN for m in take_mail(first)) == 1  # Ann's answer, once
    finally:
        first.engine.dispose()
        second.engine.dispose()


def test_services_on_postgres_need_no_file_lock(postgres_url: str) -> None:
    with one_service(postgres_url), one_service(postgres_url):
        pass  # a second service on the same PostgreSQL database is welcome


# -- settings and the command line ---------------------------------------------------------


def test_a_postgres_url_is_taken_and_other_databases_are_refused(tmp_path: Path) -> None:
    config = tmp_path / "pbem.toml"
    config.write_text("database_url = 'postgresql+psycopg://pbem@db.example.test/games'\n")
    settings = load_settings(config)
    assert settings.on_postgres and settings.database == settings.database_url
    assert settings.database_shown == "postgresql+psycopg://pbem@db.example.test/games"
    assert shown_url("postgresql+psycopg://pbem:s3cret@db/games") == (
        "postgresql+psycopg://pbem:***@db/games"
    )
    assert not Settings().on_postgres and Settings().database == Path("pbem-data/pbem.sqlite")
    for url, says in (
        ("mysql://db/pbem", "must be an SQLite URL"),
        ("postgresql://db/pbem", "postgresql+psycopg://user@host/database"),
        ("postgresql+psycopg://db.example.test", "must name the database"),
        ("postgresql+psycopg://pbem:s3cret@db.example.test/games", "$PGPASSFILE"),
    ):
        config.write_text(f"database_url = '{url}'\n")
        with pytest.raises(ConfigError, match=re.escape(says)):
            load_settings(config)


def _config(tmp_path: Path, url: str) -> Path:
    config = tmp_path / "pbem.toml"
    settings = Settings(data_dir=tmp_path / "data", database_url=url)
    config.write_text(settings_toml(settings))
    return config


def test_backup_compact_check_config_and_list_on_postgres(pg: Service, tmp_path: Path) -> None:
    _game(pg)
    config = _config(tmp_path, pg.settings.database_url)
    result = runner.invoke(app, ["backup", str(tmp_path / "copy.sqlite"), "--config", str(config)])
    assert result.exit_code == 2 and "pg_dump" in result.stderr
    assert not (tmp_path / "copy.sqlite").exists()
    result = runner.invoke(app, ["compact", "--config", str(config)])
    assert result.exit_code == 0 and "nothing to do" in result.stdout
    result = runner.invoke(app, ["check-config", "--config", str(config)])
    assert f"schema version {SCHEMA_VERSION}; games: 1 running" in result.stdout
    assert "4 mails waiting" in result.stdout
    result = runner.invoke(app, ["list", "--config", str(config)])
    assert result.exit_code == 0 and result.stdout.startswith("g1  running  decision 1 ")


def test_a_postgres_server_that_cannot_be_reached_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PGPASSWORD", "s3cret")  # the password the client library is given
    url = f"postgresql+psycopg://pbem@/games?host={tmp_path / 'nowhere'}"
    config = _config(tmp_path, url)
    result = runner.invoke(app, ["list", "--config", str(config)])
    assert result.exit_code == 5, result.output
    assert "cannot be reached" in result.stderr and "s3cret" not in result.stderr
    assert "$PGPASSFILE" in result.stderr
    result = runner.invoke(app, ["check-config", "--config", str(config)])
    assert "FAIL  database" in result.stdout and "s3cret" not in result.stdout


def test_the_maildir_inbox_is_read_into_postgres(pg: Service) -> None:
    _game(pg)
    prompt = _prompt(pg, ANN)
    maildir(pg.settings.inbox_dir).add(reply_to(prompt, "1"))
    result = runner.invoke(
        app,
        ["poll", "--now", later(1).isoformat(), "--config", str(_config_of(pg))],
    )
    assert result.exit_code == 0, result.output
    assert "handled 1 messages" in result.stdout
    with session(pg.engine) as db:
        assert [m.choice for m in db.exec(select(Move))] == ["place Tonga a"]


def _config_of(service: Service) -> Path:
    config = service.settings.data_dir.parent / "pbem.toml"
    config.write_text(settings_toml(service.settings))
    return config


def test_the_pgpass_credential_is_the_password_file_unless_pgpassfile_names_one(
    tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 30: under `pbem-admin` (systemd-run) `PGPASSFILE=%d/pgpass` is not expanded;
    pbem takes the credential `pgpass` itself, and libpq accepts it (a connection opens)."""
    credentials = tmp_path / "credentials"
    credentials.mkdir()
    assert "passfile" not in postgres_arguments({"CREDENTIALS_DIRECTORY": str(credentials)})
    (credentials / "pgpass").write_text("*:*:*:*:unused\n")
    (credentials / "pgpass").chmod(0o600)
    found = postgres_arguments({"CREDENTIALS_DIRECTORY": str(credentials)})
    assert found["passfile"] == str(credentials / "pgpass")
    chosen = {"CREDENTIALS_DIRECTORY": str(credentials), "PGPASSFILE": "/etc/other"}
    assert "passfile" not in postgres_arguments(chosen)
    assert "passfile" not in postgres_arguments({})
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(credentials))
    monkeypatch.delenv("PGPASSFILE", raising=False)
    engine = open_database(postgres_url)
    try:
        with engine.connect() as connection:
            assert connection.execute(text("select 1")).scalar() == 1
    finally:
        engine.dispose()
