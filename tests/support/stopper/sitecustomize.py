"""Loaded by a `pbem` process that `tests.support.localmail.killed_mid_batch` starts (this
folder is put on its PYTHONPATH): once the process has committed a transaction that recorded
inbound mail in the SQLite file named by PBEM_TEST_STOP_AFTER_RECORD (or, with
PBEM_TEST_STOP_COUNTING, made that count of rows grow: "outbox", a mail queued), the process
stops itself (SIGSTOP), so that the test's SIGKILL lands between two transactions of a poll
however slow or loaded the machine is. Nothing else is changed."""

from __future__ import annotations

import os
import signal
import sqlite3
from contextlib import closing

_DATABASE = os.environ.pop("PBEM_TEST_STOP_AFTER_RECORD", "")
_TABLE = os.environ.pop("PBEM_TEST_STOP_COUNTING", "inbound")
assert _TABLE.isidentifier(), _TABLE


def _recorded(database: str) -> int:
    uri = f"file:{database}?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as reader:
        try:
            return int(reader.execute(f"SELECT count(*) FROM {_TABLE}").fetchone()[0])
        except sqlite3.OperationalError:  # no such table: not migrated yet
            return 0


if _DATABASE:
    from sqlalchemy import event
    from sqlalchemy.orm import Session

    _before = _recorded(_DATABASE)

    @event.listens_for(Session, "after_commit")
    def _stop_once_recorded(_session: Session) -> None:
        if _recorded(_DATABASE) > _before:
            os.kill(os.getpid(), signal.SIGSTOP)
