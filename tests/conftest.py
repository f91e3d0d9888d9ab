"""Shared fixtures: real mail servers (see tests/support/mailservers.py), started once per session.

- `dovecot`: a Dovecot IMAP server with the users of `mailservers.DEFAULT_USERS`.
- `smtp_server`: an SMTP server that delivers into that Dovecot.
- `mail`: both, with every mailbox emptied (and SMTP up again) before the test.

Without Dovecot installed these fixtures fail (they do not skip): `python3 dev.py test`
installs it.

- `postgres`: a PostgreSQL server (tests/support/postgres.py); `postgres_url`: a new, empty
  database on it, dropped after the test; `migrated_postgres_url`: a new database with the
  service's schema, copied from one migrated once per session. They skip only when
  PostgreSQL is not installed.
"""

from __future__ import annotations

import functools
import gc
import os
from collections.abc import Iterator
from typing import Any

import pytest
import typer.main
import typer.testing
from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.util import LRUCache

from pbem.store.db import open_database
from tests.support.mailservers import Dovecot, DovecotMissing, Mail, SmtpServer
from tests.support.postgres import Postgres, PostgresMissing


@pytest.fixture(scope="session")
def dovecot() -> Iterator[Dovecot]:
    """A running Dovecot (IMAP + STARTTLS on `port`, implicit TLS on `tls_port`)."""
    server = Dovecot()
    missing = None
    try:
        server.start()
    except DovecotMissing as error:
        missing = str(error)
    if missing:
        pytest.fail(missing, pytrace=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def smtp_server(dovecot: Dovecot) -> Iterator[SmtpServer]:
    """A running SMTP server (STARTTLS on `port`, implicit TLS on `tls_port`) into `dovecot`."""
    server = SmtpServer(dovecot)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def mail(dovecot: Dovecot, smtp_server: SmtpServer) -> Mail:
    """Both servers, with empty mailboxes, no accepted messages, no failure, SMTP running."""
    kit = Mail(dovecot, smtp_server)
    kit.reset()
    return kit


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    """A running PostgreSQL server, one per test session (and xdist worker)."""
    try:
        server = Postgres()
    except PostgresMissing as error:
        pytest.skip(str(error))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres: Postgres) -> Iterator[str]:
    """The `database_url` of a new, empty PostgreSQL database."""
    url = postgres.new_database()
    try:
        yield url
    finally:
        postgres.drop_database(url)


@pytest.fixture(scope="session")
def _migrated_template(postgres: Postgres) -> str:
    """The name of a database with the service's schema, migrated once per session."""
    url = postgres.new_database()
    open_database(url).dispose()
    name = make_url(url).database
    assert name is not None
    return name


@pytest.fixture
def migrated_postgres_url(postgres: Postgres, _migrated_template: str) -> Iterator[str]:
    """The `database_url` of a new database with the service's schema (a copy of the
    template: cheaper than migrating each time)."""
    url = postgres.new_database(template=_migrated_template)
    try:
        yield url
    finally:
        postgres.drop_database(url)


@pytest.fixture(autouse=True)
def _umask_kept() -> Iterator[None]:
    """The `pbem` command sets the process's umask (077) when run in-process (CliRunner):
    each test starts with the worker's own umask."""
    mask = os.umask(0o022)
    os.umask(mask)
    yield
    os.umask(mask)


# typer's CliRunner builds the click command of the app again at each `invoke` (some 35 ms of
# CPU, hundreds of times in the suite): the same app makes the same command, built once
setattr(typer.testing, "_get_command", functools.cache(typer.main.get_command))  # noqa: B010


# Each test opens its own database, so each has an engine of its own, and SQLAlchemy compiles
# every statement again for each engine (its cache of compiled SQL is the engine's, keyed by
# the dialect object): about a third of the CPU of a test that plays by mail. The service
# itself opens one engine and compiles each statement once. Here every engine of a worker
# shares one cache, and dialects of one kind count as the same key: what they compile is the
# same text (SQLite's and PostgreSQL's dialect hold no setting that differs between tests).
_COMPILED: LRUCache[Any, Any] = LRUCache(4000)
_SHARED_DIALECTS = (SQLiteDialect_pysqlite, PGDialect_psycopg)
for _kind in _SHARED_DIALECTS:
    _kind.__hash__ = lambda self: hash(type(self))  # type: ignore[method-assign]
    _kind.__eq__ = lambda self, other: type(self) is type(other)  # type: ignore[method-assign,assignment]
_engine_made = Engine.__init__


def _engine_sharing_compiled_sql(self: Engine, *args: Any, **kwargs: Any) -> None:
    _engine_made(self, *args, **kwargs)
    if isinstance(self.dialect, _SHARED_DIALECTS):
        self._compiled_cache = _COMPILED


setattr(Engine, "__init__", _engine_sharing_compiled_sql)  # noqa: B010


def pytest_collection_finish(session: pytest.Session) -> None:
    """What the worker has made by now (the modules, the tests) lives to its end: the
    collector stops looking through it (`gc.freeze`), and looks less often at what the tests
    make (every 20,000 new objects rather than 700: a test makes tens of thousands). Some 7%
    of a worker's CPU went to collecting, half of it after this."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
