"""The `pbem` command's application: the Typer app with its guard (every failure one line
`error: ...` and an exit status), `--version`, and what the commands share: the settings,
the service, the lock of the one service, errors and times as the host types them. The
commands are in `cli_games`, `cli_look`, `cli_quick` and `cli_run`; `pbem.host.cli` puts them
together."""

from __future__ import annotations

import logging
import os
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup

from pbem import __version__
from pbem.core import PRIVATE_UMASK

# Every command starts at once (README, "Speed"): what only some commands need is imported
# inside them, and the help is made of light modules (`tests/test_quick_start.py`).
if TYPE_CHECKING:
    from pbem.core.config import Settings
    from pbem.flow.service import Service

log = logging.getLogger("pbem.host.cli")  # also when run as `python -m pbem.host.cli`
_database: ContextVar[Path | str | None] = ContextVar("database", default=None)  # once known
BUG = 1  # exit statuses (README, "Logs and troubleshooting"); pbem.store.db has 4 and 5
BAD_INPUT = 2
LOCKED = 3


class _Guarded(TyperGroup):
    """Every command's failure as one line `error: ...` on stderr and an exit status, never a
    traceback: a failure of the database or its disk says what to do."""

    def invoke(self, ctx: Any) -> Any:
        token = _database.set(None)
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, typer.TyperException, BrokenPipeError):
            raise  # typer shows these itself (a closed pipe: quietly)
        except OverflowError as error:  # a game number beyond SQLite's 64 bits, --now 9999-...
            typer.echo(f"error: a number or time out of range: {error}", err=True)
            raise typer.Exit(code=BAD_INPUT) from None
        except Exception as error:
            path = _database.get()
            problem = None
            if path is not None:
                from pbem.store.db import explain

                problem = explain(error, path)
            if problem is None:
                log.debug("unexpected failure", exc_info=error)
                typer.echo(f"error: {_bug(error)}", err=True)
                raise typer.Exit(code=BUG) from None
            typer.echo(f"error: {' '.join(str(problem).split())}", err=True)
            raise typer.Exit(code=problem.status) from None
        finally:
            _database.reset(token)


def _ours(file: Path, home: Path) -> bool:
    """Whether `file` is one of ours: in engine/ or pbem/ under `home`."""
    return any(file.is_relative_to(home / package) for package in ("pbem", "engine"))


def _bug(error: Exception) -> str:
    """One line naming `error` and where in our code it was raised."""
    from sqlalchemy.exc import DBAPIError

    cause = error.orig if isinstance(error, DBAPIError) and error.orig is not None else error
    text = " ".join(str(cause).split())
    said = (f": {text}" if len(text) <= 200 else f": {text[:199]}…") if text else ""
    home = Path(__file__).resolve().parents[2]  # holds pbem/ and engine/
    ours = [
        (Path(frame.filename).resolve(), frame.lineno)
        for frame in traceback.extract_tb(error.__traceback__)
        if _ours(Path(frame.filename).resolve(), home)
    ]
    where = ""
    if ours:
        file, line = ours[-1]
        where = f" (at {file.relative_to(home).as_posix()}:{line})"
    return f"{type(cause).__name__}{where}{said}: this is a bug: please report it with the log"


app = typer.Typer(
    cls=_Guarded,
    help="Tongiaki by email: a play-by-email server for Tongiaki.",
    no_args_is_help=True,
    # the help and the usage errors in Click's plain text: Rich's boxes took `pbem --help`
    # 0.3 s of CPU to draw (README, "Speed and scale")
    rich_markup_mode=None,
)


def _version(shown: bool) -> None:
    if shown:
        typer.echo(f"pbem {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and stop."
        ),
    ] = False,
) -> None:
    """Tongiaki by email: a play-by-email server for Tongiaki."""
    os.umask(PRIVATE_UMASK)  # the database, its backups and the mail folders: ours alone


ConfigOption = Annotated[
    Path | None, typer.Option("--config", help="TOML settings (else $PBEM_CONFIG, else defaults).")
]


def read_settings(config: Path | None) -> Settings:
    """The settings of `--config` (else $PBEM_CONFIG, else the embedded defaults), or exit 2
    saying what is wrong with them."""
    from pbem.core.config import ConfigError, load_settings

    try:
        settings = load_settings(config)
    except ConfigError as error:
        fail(f"bad configuration: {error}")
    except UnicodeDecodeError as error:  # the settings or a password_file
        fail(f"bad configuration: a file that is not UTF-8 text: {error}")
    _database.set(settings.database)
    return settings


def open_service(config: Path | None, *, logs: bool = False, check: bool = False) -> Service:
    """The service on the configured database; with `logs`, logging at the configured level;
    with `check` (every command that writes), only if `PRAGMA quick_check` finds the database
    intact: writing into a damaged file spreads the damage."""
    return service_on(read_settings(config), logs=logs, check=check)


def service_on(settings: Settings, *, logs: bool = False, check: bool = False) -> Service:
    """`open_service` on settings read already."""
    from pbem.core.files import make_private
    from pbem.flow.service import Service
    from pbem.store.db import check_intact, open_database
    from pbem.store.migrate import SchemaError

    if logs:
        stamp = "" if os.environ.get("JOURNAL_STREAM") else "%(asctime)s "  # journald stamps
        logging.basicConfig(
            level=settings.log_level.upper(),
            format=stamp + "%(levelname)s %(message)s",
            stream=sys.stderr,
        )
        logging.getLogger("apscheduler").setLevel(logging.WARNING)
    make_private(settings.data_dir)  # made before the service set its umask, maybe
    if check and not settings.on_postgres:
        check_intact(settings.database_path)
    try:
        return Service(open_database(settings.database), settings)
    except SchemaError as error:
        fail(str(error))


def say_broken_catalogs() -> None:
    """One error line at the start of a service naming each listed language whose catalog is
    missing or broken (check-config's 'catalogs' step): its players would read English."""
    from pbem.views.i18n import catalog_problems

    problems = catalog_problems()
    if problems:
        log.error("catalogs: %s; their players read English", "; ".join(problems))


def fail(message: str) -> NoReturn:
    """Stop the command with `error: MESSAGE` and exit status 2 (bad input)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=BAD_INPUT)


@contextmanager
def alone(service: Service) -> Iterator[None]:
    """The block as the only service on the database, or a clear error."""
    from pbem.host.runner import ServiceRunning, one_service

    try:
        with one_service(service.settings.database):
            yield
    except ServiceRunning as error:  # exit 3, not 2: under systemd, a later try may work
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(code=LOCKED) from None


def parse_time(text: str) -> datetime:
    """An ISO 8601 time as the host typed it (UTC if it names no zone), or exit 2."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        fail(f"{text!r} is not an ISO 8601 time, like 2026-11-22T10:00:00Z")
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)
