"""The SQLite database: WAL, a busy timeout, and BEGIN IMMEDIATE for every transaction."""

from __future__ import annotations

import threading
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
