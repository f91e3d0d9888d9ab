"""The SQLite database: WAL, a busy timeout, and BEGIN IMMEDIATE for every transaction that
may write (a `reading` session begins a plain, deferred transaction: it never waits for the
service's writes)."""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event
from sqlmodel import Session, create_engine

from pbem import models  # noqa: F401  (registers the tables)
from pbem.migrate import upgrade


def open_database(path: Path) -> Engine:
    """The database at `path`: created with its tables if new, upgraded if older."""
    path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 30})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    # Threads of this process take turns through a lock: SQLite's own busy handler would
    # make them sleep in growing steps. Other processes still wait through busy_timeout.
    writer = threading.Lock()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        if connection.get_execution_options().get("reading"):
            connection.exec_driver_sql("BEGIN")
            return
        writer.acquire()
        try:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            writer.release()
            raise
        connection.info["writer"] = True

    @event.listens_for(engine, "commit")
    @event.listens_for(engine, "rollback")
    def _on_end(connection: Any) -> None:
        if connection.info.pop("writer", False):
            writer.release()

    upgrade(engine)
    return engine


def session(engine: Engine) -> Session:
    """A session whose objects stay readable after commit."""
    return Session(engine, expire_on_commit=False)


def reading(engine: Engine) -> Session:
    """A session for looking only: a deferred transaction that sees the last commit and never
    queues behind the service's writes (WAL)."""
    return Session(engine.execution_options(reading=True), expire_on_commit=False)


def backup(path: Path, target: Path) -> None:
    """A consistent copy of the database at `path` in the new file `target`, also while the
    service runs (SQLite's online backup)."""
    if target.exists():
        raise FileExistsError(f"{target} exists already")
    if not path.exists():
        raise FileNotFoundError(f"there is no database at {path}")
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with closing(sqlite3.connect(path)) as source, closing(sqlite3.connect(target)) as copy:
            source.execute("PRAGMA busy_timeout=30000")
            source.backup(copy)
    except BaseException:
        target.unlink(missing_ok=True)  # no half copy left to be taken for a backup
        raise
