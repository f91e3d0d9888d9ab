"""Schema versions: a new database gets the current schema, an older one is upgraded in place.

The version is kept in the `setting` table under `schema_version`; a database made before
versions were kept is version 1. Each upgrade is a list of SQL statements run in one
transaction with the new version number, so an interrupted upgrade is simply run again.

PostgreSQL keeps its version the same way (a new database starts at the current one), and
the service that starts first upgrades it under an advisory lock, in one transaction: the
steps of a later version are written for both databases.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

from pbem.core.errors import PbemError

if TYPE_CHECKING:  # SQLAlchemy is imported when a database is opened, not by SCHEMA_VERSION
    from sqlalchemy import Connection, Engine

SCHEMA_VERSION = 11
SCHEMA_LOCK = (1, 0)  # PostgreSQL's advisory lock (class, object) held while upgrading


def _hash_message_ids(connection: Connection) -> None:
    """Inbound messages are known by a hash of their whole Message-ID (SHA-256, in hex)."""
    raw = connection.connection.driver_connection
    assert raw is not None
    raw.create_function(
        "pbem_sha256", 1, lambda text: hashlib.sha256(str(text).encode()).hexdigest()
    )
    connection.exec_driver_sql("UPDATE inbound SET message_hash = pbem_sha256(message_id)")


def _observers_consent(connection: Connection) -> None:
    """Observers accept before they are mailed (issue 27): those a game has already watch
    as they did (accepted when added); a database from before observers gets the table
    whole from `create_all` (the table `declined` is new: `create_all` makes it)."""
    from sqlalchemy import inspect

    if not inspect(connection).has_table("observer"):
        return
    for step in (
        "ALTER TABLE observer ADD COLUMN confirmed_at TIMESTAMP",
        "ALTER TABLE observer ADD COLUMN ended_at TIMESTAMP",
        "ALTER TABLE observer ADD COLUMN ended VARCHAR",
        "UPDATE observer SET confirmed_at = added_at",
    ):
        connection.exec_driver_sql(step)


def _held_cause(connection: Connection) -> None:
    """Whose command made the news a digest holds (a database from before version 5 has no
    `held` table yet: `create_all` makes it whole)."""
    from sqlalchemy import inspect

    if inspect(connection).has_table("held"):
        connection.exec_driver_sql("ALTER TABLE held ADD COLUMN cause VARCHAR NOT NULL DEFAULT ''")


Step: TypeAlias = "str | Callable[[Connection], None]"

UPGRADES: dict[int, tuple[Step, ...]] = {
    # time and the game master: deadlines, reminders, absence, vacations, time zones
    2: (
        "ALTER TABLE game ADD COLUMN gm_secret VARCHAR NOT NULL DEFAULT ''",
        "UPDATE game SET gm_secret = lower(hex(randomblob(16)))",
        "ALTER TABLE game ADD COLUMN ended_by VARCHAR",
        "ALTER TABLE game ADD COLUMN clock_from DATETIME",
        "ALTER TABLE game ADD COLUMN deadline_at DATETIME",
        "ALTER TABLE game ADD COLUMN reminded_at DATETIME",
        "ALTER TABLE game ADD COLUMN wake_at DATETIME",
        "CREATE INDEX ix_game_wake_at ON game (wake_at)",
        "ALTER TABLE game ADD COLUMN paused_left INTEGER",
        "ALTER TABLE seat ADD COLUMN tz VARCHAR",
        "ALTER TABLE seat ADD COLUMN auto_moves INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE seat ADD COLUMN absent BOOLEAN NOT NULL DEFAULT 0",
        "ALTER TABLE seat ADD COLUMN away_until DATETIME",
        "ALTER TABLE seat ADD COLUMN vacation_used INTEGER NOT NULL DEFAULT 0",
    ),
    # outbox numbers are never used twice (logs and `pbem outbox --drop N` name mails by them)
    3: (
        "CREATE TABLE outbox_new (id INTEGER PRIMARY KEY AUTOINCREMENT, game_id INTEGER, "
        "recipient VARCHAR NOT NULL, message BLOB NOT NULL, created_at DATETIME NOT NULL, "
        "attempts INTEGER NOT NULL, next_attempt_at DATETIME NOT NULL, "
        "last_error VARCHAR NOT NULL)",
        "INSERT INTO outbox_new SELECT id, game_id, recipient, message, created_at, attempts, "
        "next_attempt_at, last_error FROM outbox",
        "DROP TABLE outbox",
        "ALTER TABLE outbox_new RENAME TO outbox",
    ),
    # an open address: duplicates by a hash of the whole Message-ID, reply tokens signed with
    # the game's epoch, game master mails numbered (the tables quarantined, reply_use, gm_tag
    # and answered are new: `create_all` makes them)
    4: (
        "ALTER TABLE game ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE inbound ADD COLUMN message_hash VARCHAR",
        _hash_message_ids,
        "CREATE UNIQUE INDEX ix_inbound_message_hash ON inbound (message_hash)",
    ),
    # around the table: resigning, languages, how much mail, table talk (the tables
    # observer, talk, mail_choice and held are new: `create_all` makes them)
    5: (
        "ALTER TABLE game ADD COLUMN observers_talk BOOLEAN NOT NULL DEFAULT 0",
        "ALTER TABLE seat ADD COLUMN resigned BOOLEAN NOT NULL DEFAULT 0",
        "ALTER TABLE seat ADD COLUMN lang VARCHAR NOT NULL DEFAULT 'en'",
        "ALTER TABLE seat ADD COLUMN mail_mode VARCHAR NOT NULL DEFAULT 'all'",
        "ALTER TABLE seat ADD COLUMN digest_hour INTEGER NOT NULL DEFAULT 8",
        "ALTER TABLE seat ADD COLUMN digest_at DATETIME",
        "ALTER TABLE seat ADD COLUMN talk_now BOOLEAN NOT NULL DEFAULT 0",
        "ALTER TABLE seat ADD COLUMN talk_seen INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE seat ADD COLUMN calendar_open BOOLEAN NOT NULL DEFAULT 0",
    ),
    # PostgreSQL: several services share one database; each claims the mail it sends
    6: ("ALTER TABLE outbox ADD COLUMN claimed_until TIMESTAMP",),
    # the game's language (issue 17), for its observers and the seats that chose none
    7: ("ALTER TABLE game ADD COLUMN lang VARCHAR NOT NULL DEFAULT 'en'",),
    # around the table, mended: when a player resigned; `confirm` alone in a later mail
    8: (
        "ALTER TABLE seat ADD COLUMN resigned_at INTEGER",
        "ALTER TABLE seat ADD COLUMN asked VARCHAR NOT NULL DEFAULT ''",
        "ALTER TABLE seat ADD COLUMN asked_decision INTEGER",
        "ALTER TABLE seat ADD COLUMN asked_at TIMESTAMP",
    ),
    # `gm undo` keeps a reopened decision's deadline: each move keeps the clock it had (the
    # table gamerecord, the record of a game made once at its end, is new: `create_all`)
    9: (
        "ALTER TABLE move ADD COLUMN clock_from TIMESTAMP",
        "ALTER TABLE move ADD COLUMN deadline_at TIMESTAMP",
        # a seat whose player the game master removed, marked in `pbem list` and the final
        "ALTER TABLE seat ADD COLUMN kicked BOOLEAN NOT NULL DEFAULT FALSE",
    ),
    # nobody is mailed without consent: observers invited, their stop, addresses that declined
    10: (_observers_consent,),
    # one sender cannot flood the table (issue 27): when a vacation began and whether the
    # others were told (a vacation running now was told at once, as before), whose command
    # made the news a digest holds (the table caused is new: `create_all` makes it)
    11: (
        "ALTER TABLE seat ADD COLUMN away_since TIMESTAMP",
        "ALTER TABLE seat ADD COLUMN away_told BOOLEAN NOT NULL DEFAULT FALSE",
        "UPDATE seat SET away_told = TRUE WHERE away_until IS NOT NULL",
        _held_cause,
    ),
}


class SchemaError(PbemError, RuntimeError):
    """A database this version of the service cannot use."""


def schema_version(engine: Engine) -> int | None:
    """The version of the database's schema; None for an empty database."""
    from sqlalchemy import inspect

    looking = engine.execution_options(reading=True)  # no write lock: the service may be busy
    if not inspect(looking).has_table("game"):
        return None
    with looking.connect() as connection:
        version = _version_in(connection)
        connection.commit()
    return version


def upgrade(engine: Engine) -> list[int]:
    """Bring the database to SCHEMA_VERSION; returns the versions it was upgraded to."""
    from sqlalchemy import inspect
    from sqlmodel import SQLModel

    if engine.dialect.name == "postgresql":
        return _upgrade_postgres(engine)
    version = schema_version(engine)
    _check_not_newer(version)
    if version == SCHEMA_VERSION:
        looking = engine.execution_options(reading=True)  # no write lock when nothing is missing
        present = set(inspect(looking).get_table_names())
        if not set(SQLModel.metadata.tables) <= present:
            SQLModel.metadata.create_all(engine)  # tables an interrupted upgrade did not make
        return []
    done: list[int] = []
    if version is not None:
        for target in range(version + 1, SCHEMA_VERSION + 1):
            with engine.begin() as connection:  # BEGIN IMMEDIATE: one process at a time
                if _version_in(connection) >= target:
                    continue  # another process did this step meanwhile
                for step in UPGRADES[target]:
                    if isinstance(step, str):
                        connection.exec_driver_sql(step)
                    else:
                        step(connection)
                _set_version(connection, target)
            done.append(target)
    SQLModel.metadata.create_all(engine)  # new tables, and every table of a new database
    if version is None:
        with engine.begin() as connection:
            _set_version(connection, SCHEMA_VERSION)
    return done


def _check_not_newer(version: int | None) -> None:
    if version is not None and version > SCHEMA_VERSION:
        raise SchemaError(
            f"the database has schema version {version}, newer than this service's "
            f"{SCHEMA_VERSION}: run a newer version of the service"
        )


def _upgrade_postgres(engine: Engine) -> list[int]:
    """`upgrade` on PostgreSQL: one transaction (its DDL is transactional) under an advisory
    lock, so that services starting together upgrade once and never see half a schema."""
    from sqlalchemy import inspect, text
    from sqlmodel import SQLModel

    done: list[int] = []
    with engine.begin() as connection:
        connection.execute(
            text("SELECT pg_advisory_xact_lock(:kind, :key)"),
            {"kind": SCHEMA_LOCK[0], "key": SCHEMA_LOCK[1]},
        )
        version = _version_in(connection) if inspect(connection).has_table("game") else None
        _check_not_newer(version)
        for target in range(version + 1 if version else SCHEMA_VERSION + 1, SCHEMA_VERSION + 1):
            for step in UPGRADES[target]:
                if isinstance(step, str):
                    connection.exec_driver_sql(step)
                else:
                    step(connection)
            done.append(target)
        SQLModel.metadata.create_all(connection)  # every table of a new database, new tables
        if version != SCHEMA_VERSION:
            _set_version(connection, SCHEMA_VERSION)
    return done


def _version_in(connection: Connection) -> int:
    row = connection.exec_driver_sql(
        "SELECT value FROM setting WHERE key = 'schema_version'"
    ).first()
    return int(row[0]) if row else 1


def _set_version(connection: Connection, version: int) -> None:
    from sqlalchemy import text

    connection.execute(
        text(
            "INSERT INTO setting (key, value) VALUES ('schema_version', :version) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
        ),
        {"version": str(version)},
    )
