"""The database. SQLite: WAL, a busy timeout, and BEGIN IMMEDIATE for every transaction that
may write (a `reading` session begins a plain, deferred transaction: it never waits for the
service's writes). PostgreSQL: plain READ COMMITTED transactions, and a transaction-scoped
advisory lock per game (`hold_game`) where several services may work on the same game. Also
what a failure of it means for the host (`explain`): a damaged file, a read-only or full
disk, a folder that cannot be read, a PostgreSQL server that cannot be reached."""

from __future__ import annotations

import errno
import logging
import os
import pwd
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager, suppress
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, Executable, event, text
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, create_engine

from pbem.core.config import POSTGRES_URL, shown_url
from pbem.core.errors import PbemError
from pbem.core.files import BUSY_SECONDS, make_private
from pbem.store import models  # noqa: F401  (registers the tables)
from pbem.store.migrate import upgrade

LASTING = 4  # exit status: the database cannot be used until the host mends something
FOR_NOW = 5  # exit status: the database cannot be used now; a later try may work
ROOM = 1 << 20  # bytes: a disk with less free space than this counts as full
CONNECT_SECONDS = 10  # how long a connection to PostgreSQL may take
# PostgreSQL's advisory locks are (class, key): a game's is (GAME_LOCK, its number); the
# schema's is pbem.store.migrate.SCHEMA_LOCK
GAME_LOCK = 2
CLOCK_LOCK = (3, 0)  # the service-wide clock (`pbem.flow.deadlines`)
NO_GAME = 2**31  # game numbers are this or more nowhere (PostgreSQL's integer)
log = logging.getLogger(__name__)


def _private_file(path: Path) -> None:
    """Create `path` empty and readable by its owner only, unless it is there already."""
    with suppress(OSError):  # there already; or SQLite says what is wrong, as `explain` reads it
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


def open_database(where: Path | str) -> Engine:
    """The database at `where`, an SQLite file or a `postgresql+psycopg://` URL (the
    settings' `database`): created with its tables if new, upgraded if older."""
    if isinstance(where, str) and where.startswith(POSTGRES_URL):
        return _open_postgres(where)
    path = Path(where)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # made new: ours alone
    _private_file(path)  # SQLite gives its -wal and -shm the database file's mode
    for part in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        make_private(part)
    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": BUSY_SECONDS})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        # a new file frees pages as `pbem compact` asks (set before its first table; asked of
        # a file in use, the pragma would wait for the write lock)
        if cursor.execute("PRAGMA page_count").fetchone()[0] == 0:
            cursor.execute("PRAGMA auto_vacuum=INCREMENTAL")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_SECONDS * 1000}")
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


def postgres_arguments(environ: Mapping[str, str]) -> dict[str, Any]:
    """What each PostgreSQL connection is opened with. Without $PGPASSFILE, the systemd
    credential `pgpass` is the password file: `systemd-run` (pbem-admin) does not expand
    `%d` in `PGPASSFILE=%d/pgpass` on the systemd of Debian 12, so it needs no setting."""
    arguments: dict[str, Any] = {"options": "-c timezone=UTC", "connect_timeout": CONNECT_SECONDS}
    credentials = environ.get("CREDENTIALS_DIRECTORY")
    if credentials and not environ.get("PGPASSFILE"):
        credential = Path(credentials) / "pgpass"
        if credential.is_file():
            arguments["passfile"] = str(credential)
    return arguments


def _open_postgres(url: str) -> Engine:
    """A PostgreSQL database: times are kept in UTC, as in SQLite; a connection the server
    closed meanwhile (a restart) is replaced before use."""
    engine = create_engine(url, pool_pre_ping=True, connect_args=postgres_arguments(os.environ))
    try:
        upgrade(engine)
    except BaseException:
        engine.dispose()
        raise
    return engine


def on_postgres(engine: Engine) -> bool:
    return engine.dialect.name == "postgresql"


def hold_game(db: Session, game_id: int) -> None:
    """Until `db`'s transaction ends, no other service works on game `game_id`: PostgreSQL's
    transaction-scoped advisory lock (SQLite's writes take turns already). Taken before the
    transaction first reads the game, so that it reads what the last holder committed."""
    if 0 < game_id < NO_GAME:
        hold(db, GAME_LOCK, game_id)


def hold(db: Session, kind: int, key: int) -> None:
    """PostgreSQL's advisory lock (`kind`, `key`) until `db`'s transaction ends; nothing on
    SQLite, where one transaction writes at a time."""
    bind = db.get_bind()
    if bind.dialect.name == "postgresql":
        db.connection().execute(
            text("SELECT pg_advisory_xact_lock(:kind, :key)"), {"kind": kind, "key": key}
        )


def session(engine: Engine) -> Session:
    """A session whose objects stay readable after commit."""
    return Session(engine, expire_on_commit=False)


def written_alone(db: Session) -> bool:
    """Whether `db`'s transaction writes alone: on SQLite, a session that may write began
    with BEGIN IMMEDIATE (`_on_begin`), which holds the database's one write lock until the
    transaction ends, so no other service inserts a row meanwhile; not so on PostgreSQL,
    nor for a `reading` session."""
    return bool(db.connection().info.get("writer"))


@contextmanager
def read_rows_of(db: Session, *kinds: type) -> Iterator[None]:
    """A block whose queries read rows of `kinds` only: they see `db`'s pending changes to
    such rows and its new rows of every kind (whose numbers may be read next), flushed
    first; changes to other rows are left for the next flush (each flush is a round of the
    unit of work, whatever it writes)."""
    if db.new or any(isinstance(row, kinds) for row in (*db.dirty, *db.deleted)):
        db.flush()
    with db.no_autoflush:
        yield


def found_any(db: Session, kind: type, query: Executable, params: Mapping[str, Any]) -> bool:
    """Whether `query`, a SELECT of rows of `kind`, finds one: asked through the connection
    (a row, not an object: the ORM's execution of a query costs several times SQLite's), the
    pending rows of `kind` flushed first as for `read_rows_of`. For a query that almost
    always finds nothing, before the ORM reads the objects."""
    with read_rows_of(db, kind):
        return db.connection().execute(query, params).first() is not None


def reading(engine: Engine) -> Session:
    """A session for looking only: a deferred transaction that sees the last commit and never
    queues behind the service's writes (WAL)."""
    return Session(engine.execution_options(reading=True), expire_on_commit=False)


def compact(path: Path) -> tuple[int, int]:
    """Give the free pages of the database at `path` back to the file system (sent mail and
    dropped rows leave them); returns its size in bytes before and after. A database made
    before `auto_vacuum` was set is rebuilt once (VACUUM: the service must not run)."""
    if not os.path.exists(path):
        raise storage_problem(path) or FileNotFoundError(f"there is no database at {path}")
    check_intact(path)
    before = _size(path)
    with closing(sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)) as db:
        db.execute(f"PRAGMA busy_timeout={BUSY_SECONDS * 1000}")
        if db.execute("PRAGMA auto_vacuum").fetchone()[0] != 2:  # 2: incremental
            db.execute("PRAGMA auto_vacuum=INCREMENTAL")
            db.execute("VACUUM")
        else:
            db.executescript("PRAGMA incremental_vacuum;")  # run to the end (execute: one page)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return before, _size(path)


def incremental(path: Path) -> bool:
    """Whether the database at `path` frees pages without a rebuild (`auto_vacuum`)."""
    with closing(sqlite3.connect(path, timeout=BUSY_SECONDS)) as db:
        return bool(db.execute("PRAGMA auto_vacuum").fetchone()[0] == 2)


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


def backup(path: Path, target: Path) -> None:
    """A consistent copy of the database at `path` in the new file `target`, also while the
    service runs (SQLite's online backup). Raises `Unusable` when the database fails
    `PRAGMA quick_check` (nothing is copied) or the copy fails `PRAGMA integrity_check` (the
    copy is removed)."""
    if target.exists():
        raise FileExistsError(f"{target} exists already")
    if not os.path.exists(path):
        raise storage_problem(path) or FileNotFoundError(f"there is no database at {path}")
    check_intact(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _private_file(target)  # a copy of every seat's secret: its owner's alone
        with (
            closing(sqlite3.connect(path, timeout=BUSY_SECONDS)) as source,
            closing(sqlite3.connect(target)) as copy,
        ):
            source.backup(copy)
        found = damage(target, thorough=True)
    except BaseException as error:
        _remove(target)  # no half copy left to be taken for a backup
        if not isinstance(error, sqlite3.Error | OSError):
            raise
        raise _copy_failure(error, path, target) from error
    if found:
        _remove(target)
        raise Unusable(
            f"the copy of {path} is damaged (PRAGMA integrity_check: {_first(found)}), so "
            f"{target} was removed: the database itself is damaged; restore a backup, see "
            "README 'Backing up'",
            LASTING,
        )


def _copy_failure(error: sqlite3.Error | OSError, path: Path, target: Path) -> Unusable:
    """Why copying the database at `path` (intact a moment ago) to `target` failed."""
    what = f"the copy {target}"
    found = storage_problem(target, what)
    if found is None and isinstance(error, sqlite3.Error):
        reading = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_BUSY)
        found = _sqlite_failure(error, path) if _code(error) in reading else None
    detail = getattr(error, "sqlite_errorname", "") or type(error).__name__
    return found or Unusable(f"{what} cannot be made ({detail}: {error}): copy elsewhere", LASTING)


def _remove(target: Path) -> None:
    for leftover in (target, *(Path(f"{target}-{end}") for end in ("wal", "shm", "journal"))):
        leftover.unlink(missing_ok=True)


class Unusable(PbemError, RuntimeError):
    """The database cannot be used as it is: the message says why and what to do; `status`
    is the exit status, LASTING or FOR_NOW."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def damage(path: Path, *, thorough: bool = False) -> list[str]:
    """What `PRAGMA quick_check` (with `thorough`, `integrity_check`, which also holds every
    index against its table) finds wrong in the existing database at `path`: [] if nothing."""
    uri = f"{path.resolve().as_uri()}?mode=rw"  # never makes a new file
    try:
        with closing(sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS)) as db:
            return problems(db, thorough=thorough)
    except sqlite3.DatabaseError as error:
        if _code(error) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
            return [str(error)]
        raise


def problems(db: sqlite3.Connection, *, thorough: bool = False) -> list[str]:
    """The first lines of `PRAGMA quick_check` (or `integrity_check`) on `db`, [] if "ok"."""
    check = "integrity_check" if thorough else "quick_check"
    lines = [
        line.strip()
        for (row,) in db.execute(f"PRAGMA {check}(5)")
        for line in str(row).splitlines()
        if line.strip() and not line.startswith("***")  # "*** in database main ***"
    ]
    return [] if lines == ["ok"] else lines


def check_intact(path: Path) -> None:
    """Raise `Unusable` when `PRAGMA quick_check` finds the database at `path` damaged, or it
    cannot be read; a database not made yet is fine."""
    if not os.path.exists(path):
        return
    try:
        found = damage(path)
    except sqlite3.Error as error:
        problem = explain(error, path)
        if problem is None:
            raise
        raise problem from error
    if found:
        raise damaged(path, found)


def damaged(path: Path, found: list[str], check: str = "quick_check") -> Unusable:
    return Unusable(
        f"the database {path} is damaged (PRAGMA {check}: {_first(found)}): restore a backup, "
        "see README 'Backing up'",
        LASTING,
    )


def _first(lines: list[str]) -> str:
    shown = "; ".join(lines[:2])
    return shown if len(shown) <= 200 else shown[:199] + "…"


def _code(error: sqlite3.Error) -> int:
    """The primary SQLite result code of `error`: SQLITE_IOERR for SQLITE_IOERR_SHMSIZE."""
    return int(getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF


_ON_DISK = {
    sqlite3.SQLITE_CANTOPEN,
    sqlite3.SQLITE_FULL,
    sqlite3.SQLITE_IOERR,
    sqlite3.SQLITE_PERM,
    sqlite3.SQLITE_READONLY,
}
_DISK_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO}


def explain(error: BaseException, path: Path | str) -> Unusable | None:
    """What `error`, met while using the database at `path` (an SQLite file, or a PostgreSQL
    URL), means for the host; None when it is no failure of the database or of a disk (a
    bug, then)."""
    cause = error.orig if isinstance(error, DBAPIError) and error.orig is not None else error
    if isinstance(cause, Unusable):
        return cause
    if isinstance(path, str):
        return _postgres_failure(error, cause, path)
    if isinstance(cause, sqlite3.Error):
        return _sqlite_failure(cause, path)
    if isinstance(cause, OSError) and cause.errno in _DISK_ERRNOS | {errno.ENOTDIR, errno.EEXIST}:
        where = Path(os.fsdecode(cause.filename)) if cause.filename else path
        found = storage_problem(path)
        if found is None and where != path:
            found = storage_problem(where, str(where))
        return found or _os_failure(cause, where)
    return None


def _postgres_failure(error: BaseException, cause: BaseException, url: str) -> Unusable | None:
    """A PostgreSQL server that cannot be reached or refuses the user: the host can mend it."""
    if not isinstance(error, DBAPIError) or not type(cause).__module__.startswith("psycopg"):
        return None
    said = " ".join(str(cause).split())[:300]
    where = shown_url(url)
    if error.connection_invalidated or "connection" in said.lower():
        return Unusable(
            f"the PostgreSQL database {where} cannot be reached ({said}): check that the "
            "server runs, that database_url names it and its user, and the user's password "
            "(in the file $PGPASSFILE names, or $PGPASSWORD; under systemd a credential, see "
            "systemd/README.md)",
            FOR_NOW,
        )
    if getattr(cause, "sqlstate", "") in ("42501", "28000", "28P01", "3D000"):
        return Unusable(
            f"the PostgreSQL database {where} refuses the service ({said}): check the "
            "database, its user and their rights (README 'PostgreSQL')",
            LASTING,
        )
    return None


def _sqlite_failure(cause: sqlite3.Error, path: Path) -> Unusable | None:
    code = _code(cause)
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        try:
            found = damage(path) or [str(cause)]
        except sqlite3.Error:
            found = [str(cause)]
        return damaged(path, found)
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return Unusable(
            f"the database {path} stayed locked by another process for {BUSY_SECONDS} s: try "
            f"again later (`fuser {path}` names the process)",
            FOR_NOW,
        )
    if code not in _ON_DISK:
        return None
    problem = storage_problem(path)
    if problem is not None:
        return problem
    if code == sqlite3.SQLITE_FULL:
        return Unusable(
            f"no room for the database {path}: the disk holding SQLite's temporary files "
            "($SQLITE_TMPDIR, /var/tmp or /tmp) is full: free some space, then try again",
            FOR_NOW,
        )
    name = getattr(cause, "sqlite_errorname", "") or "SQLite"
    return Unusable(
        f"the database {path} cannot be used ({name}: {cause}): check the disk (`dmesg`) and "
        "the file's owner and mode",
        FOR_NOW if code == sqlite3.SQLITE_IOERR else LASTING,
    )


def _os_failure(cause: OSError, where: Path) -> Unusable | None:
    if cause.errno in (errno.ENOSPC, errno.EDQUOT):
        return _full(where)
    if cause.errno == errno.EROFS:
        return Unusable(f"{where} is on a read-only file system: remount it read-write", LASTING)
    if cause.errno in (errno.EACCES, errno.EPERM):
        return Unusable(
            f"user {_user()} may not use {where} ({cause.strerror}): give that user access",
            LASTING,
        )
    if cause.errno == errno.EIO:
        return Unusable(f"an I/O error on {where}: check the disk (`dmesg`)", FOR_NOW)
    return None


def storage_problem(path: Path, what: str = "") -> Unusable | None:
    """Why the file system keeps the file at `path` (the database unless `what` names it)
    from being read and written, if it does: its folder, the disk, the user's rights."""
    what = what or f"the database {path}"
    folder = path.parent
    if not os.path.exists(folder):
        return _missing(folder)
    if not os.path.isdir(folder):
        return Unusable(f"{folder} is not a directory: set data_dir to a folder", LASTING)
    if not os.access(folder, os.R_OK | os.X_OK):
        return Unusable(
            f"the folder {folder} cannot be read by user {_user()}: give that user access to it "
            f"(`chown -R {_user()} {folder}`)",
            LASTING,
        )
    if os.path.exists(path) and not os.access(path, os.R_OK):
        return Unusable(f"{what} cannot be read by user {_user()}: give it to that user", LASTING)
    disk = os.statvfs(folder)
    if disk.f_flag & os.ST_RDONLY:
        return Unusable(
            f"{what} is read-only: the file system holding {folder} is mounted read-only: "
            "remount it read-write (then restart the service)",
            LASTING,
        )
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        return Unusable(
            f"{what} is read-only for user {_user()}: give that user write access to it and to "
            f"{folder} (SQLite writes its -wal and -shm files beside it)",
            LASTING,
        )
    if disk.f_blocks and disk.f_bavail * disk.f_frsize < ROOM:  # /proc has no blocks
        return _full(folder)
    return None


def _missing(folder: Path) -> Unusable | None:
    """None when the missing `folder` can be made."""
    existing = next(p for p in folder.parents if os.path.exists(p))
    if not os.path.isdir(existing):
        why = f"{existing} is not a directory"
    elif not os.access(existing, os.X_OK):
        return Unusable(
            f"{folder} cannot be reached: user {_user()} may not enter {existing}: give that "
            "user access to it",
            LASTING,
        )
    elif os.statvfs(existing).f_flag & os.ST_RDONLY:
        why = f"{existing} is on a read-only file system"
    elif not os.access(existing, os.W_OK | os.X_OK):
        why = f"user {_user()} may not write to {existing}"
    else:
        return None
    return Unusable(f"{folder} does not exist and cannot be made ({why}): check data_dir", LASTING)


def _full(where: Path) -> Unusable:
    return Unusable(
        f"the disk holding {where} is full: free some space, then try again (under systemd the "
        "service tries again every 30 s)",
        FOR_NOW,
    )


def _user() -> str:
    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return f"uid {os.geteuid()}"
