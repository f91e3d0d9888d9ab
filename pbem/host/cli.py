"""The `pbem` command: create games, run the service, look at games."""

from __future__ import annotations

import logging
import os
import re
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

from engine import BOT_KINDS
from pbem import __version__
from pbem.commands.usage import gm_examples
from pbem.core.files import PRIVATE_UMASK
from pbem.core.languages import LANGUAGES

# Every command starts at once (README, "Speed"): what only some commands need is imported
# inside them, and the help is made of light modules (`tests/test_quick_start.py`).
if TYPE_CHECKING:
    from email.message import EmailMessage

    from sqlmodel import Session

    from pbem.core.config import Settings
    from pbem.flow.service import SeatSpec, Service

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


def _settings(config: Path | None) -> Settings:
    from pbem.core.config import ConfigError, load_settings

    try:
        settings = load_settings(config)
    except ConfigError as error:
        _fail(f"bad configuration: {error}")
    except UnicodeDecodeError as error:  # the settings or a password_file
        _fail(f"bad configuration: a file that is not UTF-8 text: {error}")
    _database.set(settings.database)
    return settings


def _service(config: Path | None, *, logs: bool = False, check: bool = False) -> Service:
    """The service on the configured database; with `logs`, logging at the configured level;
    with `check` (every command that writes), only if `PRAGMA quick_check` finds the database
    intact: writing into a damaged file spreads the damage."""
    return _open(_settings(config), logs=logs, check=check)


def _open(settings: Settings, *, logs: bool = False, check: bool = False) -> Service:
    """`_service` on settings read already."""
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
        _fail(str(error))


def _say_broken_catalogs() -> None:
    """One error line at the start of a service naming each listed language whose catalog is
    missing or broken (check-config's 'catalogs' step): its players would read English."""
    from pbem.views.i18n import catalog_problems

    problems = catalog_problems()
    if problems:
        log.error("catalogs: %s; their players read English", "; ".join(problems))


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=BAD_INPUT)


@contextmanager
def _alone(service: Service) -> Iterator[None]:
    """The block as the only service on the database, or a clear error."""
    from pbem.host.runner import ServiceRunning, one_service

    try:
        with one_service(service.settings.database):
            yield
    except ServiceRunning as error:  # exit 3, not 2: under systemd, a later try may work
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(code=LOCKED) from None


BOT_NOTATION = "|".join(BOT_KINDS)


LANGS = ", ".join(LANGUAGES)


def _seat(text: str, bot: bool) -> SeatSpec:
    """NAME:ADDRESS[:COLOUR[:LANG]] (the colour may be left empty: `Ann:ann@x::it`), or
    NAME:BOT[:COLOUR]."""
    from pbem.flow.service import GameError, SeatSpec

    parts = text.split(":")
    most = 3 if bot else 4
    if not 2 <= len(parts) <= most or not parts[0] or not parts[1] or "" in parts[3:]:
        kind = f"NAME:{BOT_NOTATION}[:COLOUR]" if bot else "NAME:ADDRESS[:COLOUR[:LANG]]"
        raise GameError(f"{text!r} should be {kind}.")
    colour = parts[2].lower() if len(parts) >= 3 and parts[2] else None
    if bot:
        return SeatSpec(parts[0], None, colour, parts[1].lower())
    lang = parts[3].lower() if len(parts) == 4 else None
    return SeatSpec(parts[0], parts[1], colour, lang=lang)


@app.command("new-game")
def new_game(
    player: Annotated[
        list[str],
        typer.Option(help="NAME:ADDRESS[:COLOUR[:LANG]], in seat order (Ann:ann@x::it)."),
    ] = [],  # noqa: B006
    bot: Annotated[
        list[str], typer.Option(help=f"NAME:{BOT_NOTATION}[:COLOUR], seated after the players.")
    ] = [],  # noqa: B006
    seed: Annotated[
        int | None,
        typer.Option(help="Shuffle the stack from this seed: reproducible, so predictable."),
    ] = None,
    stack: Annotated[
        str | None, typer.Option(help="The whole stack, top first: Samoa,C,...")
    ] = None,
    deadline: Annotated[str | None, typer.Option(help="Time per decision, e.g. 48h or 2d.")] = None,
    gm: Annotated[str | None, typer.Option(help="The game master's address.")] = None,
    observer: Annotated[
        list[str], typer.Option(help="ADDRESS[:NAME] of someone who watches the game.")
    ] = [],  # noqa: B006
    observers_talk: Annotated[
        bool, typer.Option("--observers-talk", help="Observers may say things to the table.")
    ] = False,
    lang: Annotated[
        str, typer.Option(help=f"The game's language, for players who name none: {LANGS}.")
    ] = "en",
    now: Annotated[str | None, typer.Option(help="Create it as if at this ISO 8601 time.")] = None,
    config: ConfigOption = None,
) -> None:
    """Create a game, print its id and mail every player."""
    from pbem.core.clock import DurationError, parse_duration, utc_now
    from pbem.flow.service import GameError

    try:
        seconds = parse_duration(deadline) if deadline is not None else None
    except DurationError as error:
        _fail(f"--deadline: {error}")
    service = _service(config, check=True)
    try:
        specs = [_seat(p, False) for p in player] + [_seat(b, True) for b in bot]
        tiles = [t.strip() for t in stack.split(",")] if stack else None
        game_id = service.new_game(
            specs,
            seed=seed,
            stack=tiles,
            deadline_seconds=seconds,
            gm=gm,
            observers=[(a, n or None) for a, _, n in (o.partition(":") for o in observer)],
            observers_talk=observers_talk,
            lang=lang.lower(),
            now=_parse_time(now) if now else utc_now(),
        )
    except GameError as error:
        _fail(str(error))
    typer.echo(game_id)
    if seed is not None and not tiles:
        typer.echo(
            f"note: game {game_id}'s stack was shuffled from seed {seed}, so it is predictable; "
            "games for real play are made without --seed.",
            err=True,
        )


@app.command()
def poll(
    now: Annotated[str | None, typer.Option(help="Run as if at this ISO 8601 time.")] = None,
    config: ConfigOption = None,
) -> None:
    """Run one cycle: read new mail, do what deadlines call for, send queued mail.

    Exits with 1 when the mailbox could not be read (the rest is done all the same), with 4
    when `PRAGMA quick_check` finds the database damaged (then nothing is done)."""
    from pbem.core.clock import utc_now
    from pbem.host.runner import run_cycle

    service = _service(config, logs=True, check=True)
    _say_broken_catalogs()
    moment = _parse_time(now) if now else utc_now()
    with _alone(service):
        report = run_cycle(service, moment)
    clock = report.clock
    timed = (
        f", {clock.reminders} reminders, {clock.automatic} automatic moves, "
        f"{clock.graced} deadlines moved after downtime"
        if clock
        else ""
    )
    typer.echo(
        f"handled {report.handled} messages{timed}, sent {report.sent} mails, "
        f"{report.failed} failed"
    )
    if report.read_error:
        typer.echo(f"error: the mailbox could not be read: {report.read_error}", err=True)
        raise typer.Exit(code=1)


def _parse_time(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        _fail(f"{text!r} is not an ISO 8601 time, like 2026-11-22T10:00:00Z")
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)


@app.command("gm")
def game_master(
    game: Annotated[int, typer.Argument(help="The game.")],
    command: Annotated[
        list[str],
        typer.Argument(help=f"A game master command: {gm_examples()}."),
    ],
    now: Annotated[str | None, typer.Option(help="Act as if at this ISO 8601 time.")] = None,
    config: ConfigOption = None,
) -> None:
    """Act on a game as its game master; the players are told by mail."""
    from pbem.core.clock import utc_now
    from pbem.core.kinds import LineOutcome
    from pbem.flow.gm import GameMaster
    from pbem.flow.service import GameError

    service = _service(config, logs=True, check=True)
    try:
        results, answers = GameMaster(service).run_host(
            game, [" ".join(command)], _parse_time(now) if now else utc_now()
        )
    except GameError as error:
        _fail(str(error))
    for result in results:
        if result.outcome != LineOutcome.ANSWERED:
            typer.echo(f"{result.outcome}: {result.detail}")
    for answer in answers:
        typer.echo(answer.text)
    if any(r.outcome == LineOutcome.REJECTED for r in results):
        raise typer.Exit(code=2)


@app.command("serve")
def serve_command(config: ConfigOption = None) -> None:
    """Poll the mailbox and send mail at the configured intervals until stopped."""
    from pbem.core.clock import utc_now
    from pbem.host.runner import serve

    service = _service(config, logs=True, check=True)
    _say_broken_catalogs()
    with _alone(service):
        serve(service, utc_now)


@app.command("check-config")
def check_config(
    send_to: Annotated[
        str | None, typer.Option("--send-to", help="Also send a test mail to this address.")
    ] = None,
    round_trip: Annotated[
        bool,
        typer.Option(
            "--round-trip",
            help="Also mail the service's own reply address and wait for it in the mailbox "
            "(checks plus addressing); the test mail is deleted.",
        ),
    ] = False,
    wait: Annotated[float, typer.Option(help="Seconds to wait for the round trip.")] = 60.0,
    config: ConfigOption = None,
) -> None:
    """Check the configuration: database, IMAP and SMTP (connection, TLS, login, folder).

    Sends no mail unless asked; exits with 1 when a check failed."""
    from pbem.host.diagnose import check_settings, report

    settings = _settings(config)
    source = config or os.environ.get("PBEM_CONFIG") or "the embedded defaults"
    typer.echo(f"configuration: {source} (mail = {settings.mail})")
    checks = check_settings(settings, send_to=send_to, round_trip=round_trip, wait=wait)
    if not report(checks, typer.echo):
        raise typer.Exit(code=1)


@app.command("list")
def list_games(config: ConfigOption = None) -> None:
    """Every game with its players and state."""
    from pbem.host.listing import quick_game_lines

    settings = _settings(config)
    lines = None
    if not settings.on_postgres:  # as the service would find it, read with sqlite3 alone
        from pbem.core.files import make_private

        make_private(settings.data_dir)
        lines = quick_game_lines(settings.database_path)
    if lines is None:  # PostgreSQL, a database to make or to upgrade, or a fault to explain
        from pbem.store.db import reading

        service = _open(settings)
        with reading(service.engine) as db:
            lines = game_lines(db)
    if lines:
        typer.echo("\n".join(lines))


def game_lines(db: Session) -> list[str]:
    """One line per game, with its players: read in one query."""
    from sqlalchemy import String, type_coerce
    from sqlalchemy import select as rows_of
    from sqlmodel import col

    from pbem.host.listing import lines_of
    from pbem.store.models import Game, Seat

    query = (
        rows_of(  # SQLAlchemy's select: SQLModel's types only a few columns
            col(Game.id),
            type_coerce(col(Game.status), String),  # the text as stored: no enum per row
            col(Game.decision),
            col(Seat.name),
            col(Seat.colour),
            type_coerce(col(Seat.bot), String),
            col(Seat.resigned),
            col(Seat.kicked),
            col(Seat.absent),
        )
        .join(Seat, col(Seat.game_id) == col(Game.id))
        .order_by(col(Game.id), col(Seat.seat))
    )
    return lines_of(db.connection().execute(query))  # rows, not ORM


@app.command()
def show(game: int, config: ConfigOption = None) -> None:
    """The current board of a game, as text."""
    from pbem.commands.registry import status_text
    from pbem.core.clock import utc_now
    from pbem.flow.service import GameError, stack_note
    from pbem.store.db import reading
    from pbem.views import view
    from pbem.views.render import render_board_text

    service = _service(config)
    with reading(service.engine) as db:
        try:
            table = service.table(db, game, utc_now())
        except GameError as error:
            _fail(str(error))
        typer.echo(render_board_text(view.board(table.state, table.names, table.bots)))
        typer.echo(stack_note(table.game))
        typer.echo(status_text(table))


@app.command("backup")
def backup_command(
    target: Annotated[Path, typer.Argument(help="The new file to write the copy to.")],
    config: ConfigOption = None,
) -> None:
    """Copy the database to a new file, safely while the service runs."""
    from pbem.store.db import backup

    settings = _settings(config)
    if settings.on_postgres:
        _fail(
            f"the games are in PostgreSQL ({settings.database_shown}): back them up with "
            "PostgreSQL's pg_dump, e.g. `pg_dump -Fc -f pbem.dump DATABASE`, safely while the "
            "service runs (README 'PostgreSQL'); nothing was copied"
        )
    try:
        backup(settings.database_path, target)
    except (FileExistsError, FileNotFoundError) as error:
        _fail(str(error))
    typer.echo(f"{settings.database_path} copied to {target}")


@app.command()
def compact(config: ConfigOption = None) -> None:
    """Give the database's free pages back to the disk (sent mail leaves them). Safe while
    the service runs; only a database from before version 0.2 is rebuilt once, which needs
    the service stopped."""
    from pbem.store.db import compact as compact_database
    from pbem.store.db import incremental

    service = _service(config, check=True)
    if service.settings.on_postgres:
        service.engine.dispose()
        typer.echo(
            f"{service.settings.database_shown}: nothing to do: PostgreSQL's autovacuum reuses "
            "the space of sent mail (README 'PostgreSQL')"
        )
        return
    path = service.settings.database_path
    service.engine.dispose()
    if incremental(path):
        before, after = compact_database(path)
    else:
        with _alone(service):
            before, after = compact_database(path)
    typer.echo(f"{path}: {before // 1024} KB before, {after // 1024} KB after")


@app.command()
def outbox(
    retry: Annotated[bool, typer.Option(help="Try every waiting mail at the next cycle.")] = False,
    drop: Annotated[
        list[int], typer.Option(help="Give up on this mail (its number in the list).")
    ] = [],  # noqa: B006
    config: ConfigOption = None,
) -> None:
    """Mail waiting to be sent: to whom, how often it was tried, and the last error."""
    from sqlmodel import col, select

    from pbem.core.clock import as_utc, utc_now
    from pbem.store.db import reading, session
    from pbem.store.models import Outbox

    service = _service(config, check=retry or bool(drop))
    now = utc_now()
    if retry or drop:
        with session(service.engine) as db:
            mails = {m.id: m for m in db.exec(select(Outbox))}
            unknown = [n for n in drop if n not in mails]
            if unknown:
                _fail(f"no mail {unknown[0]} is waiting; nothing changed")
            for number in drop:
                db.delete(mails[number])
                typer.echo(f"dropped mail {number} to {mails[number].recipient}")
            for mail in mails.values():
                if retry and mail.id not in drop:
                    mail.next_attempt_at = now
            db.commit()
    with reading(service.engine) as db:
        waiting = list(db.exec(select(Outbox).order_by(col(Outbox.id))))
    for mail in waiting:
        typer.echo(
            f"{mail.id:>5}  g{mail.game_id or '-':<4} to {mail.recipient}: {mail.attempts} tries, "
            f"next {as_utc(mail.next_attempt_at):%Y-%m-%d %H:%M} UTC"
            + (f"; last error: {mail.last_error}" if mail.last_error else "")
        )
    typer.echo(f"{len(waiting)} mails waiting")


QUARANTINE_ACTIONS = ("list", "show", "retry", "drop")


@app.command()
def quarantine(
    action: Annotated[str, typer.Argument(help="list, show N, retry N or drop N.")] = "list",
    number: Annotated[int | None, typer.Argument(help="The mail's number in the list.")] = None,
    now: Annotated[str | None, typer.Option(help="Retry as if at this ISO 8601 time.")] = None,
    config: ConfigOption = None,
) -> None:
    """Mail the service failed on, kept aside: list them, show one, hand one to the service
    again (retry, once what failed is mended) or delete it (drop)."""
    from pbem.core.clock import as_utc, utc_now
    from pbem.host.runner import take
    from pbem.mail_in.inbound import quarantined, quarantined_mail, take_out

    if action not in QUARANTINE_ACTIONS:
        _fail(f"{action!r}: say one of {', '.join(QUARANTINE_ACTIONS)}")
    if action != "list" and number is None:
        _fail(f"say which mail: pbem quarantine {action} N")
    service = _service(config, logs=action == "retry", check=action in ("retry", "drop"))
    if action == "list":
        kept = quarantined(service.engine)
        for row in kept:
            typer.echo(
                f"{row.id:>5}  {as_utc(row.received_at):%Y-%m-%d %H:%M} UTC  {row.size:>8} bytes"
                f"  from {row.sender or '-'}: {row.error}"
            )
        typer.echo(f"{len(kept)} mails in the quarantine")
        return
    assert number is not None
    found = quarantined_mail(service.engine, number)
    if found is None:
        _fail(f"there is no mail {number} in the quarantine; nothing changed")
    row = found
    if action == "show":
        typer.echo(f"mail {row.id}, received {as_utc(row.received_at):%Y-%m-%d %H:%M} UTC")
        typer.echo(f"from: {row.sender or '-'}\nsubject: {row.subject or '-'}")
        cut = f" (kept: the first {len(row.raw)})" if len(row.raw) < row.size else ""
        typer.echo(f"size: {row.size} bytes{cut}")
        typer.echo(f"error: {row.error}\n")
        text = row.raw[:SHOW_BYTES].decode("utf-8", "replace")
        typer.echo(printable(text))
        if len(row.raw) > SHOW_BYTES:
            typer.echo(f"... and {len(row.raw) - SHOW_BYTES} bytes more")
        return
    if action == "retry":
        if len(row.raw) < row.size:
            _fail(f"mail {number} was cut at the size limit: it cannot be handled again")
        outcome = take(service, row.raw, _parse_time(now) if now else utc_now())
        take_out(service.engine, number)
        typer.echo(f"mail {number}: {outcome}")
        return
    take_out(service.engine, number)
    typer.echo(f"dropped mail {number} from {row.sender or '-'}")


SHOW_BYTES = 20_000  # of a quarantined mail shown by `pbem quarantine show`


def printable(text: str) -> str:
    """Text safe to print on a terminal: control characters (escape sequences) as '?'."""
    return "".join(c if c in "\n\t" or c.isprintable() else "?" for c in text)


@app.command()
def reply(
    text: Annotated[
        list[str], typer.Argument(help="The lines of your reply, e.g. 3 or 'expand Tonga a,b'.")
    ],
    sender: Annotated[
        str, typer.Option("--from", help="Your address in the game.")
    ] = "you@localhost",
    config: ConfigOption = None,
) -> None:
    """Answer the newest mail in the local outbox that asks for your decision (else the
    newest mail, as a game master would), as a reply dropped into the local inbox."""
    from email.message import EmailMessage
    from email.utils import make_msgid

    from pbem.core.files import maildir

    settings = _settings(config)
    mails = [header for header, _ in _mails_to(settings, sender)]
    if not mails:
        _fail(f"no mail to {sender} in {settings.outbox_dir}")
    asking = [m for m in mails if m["X-Tongiaki-Decision"]]
    prompt = (asking or mails)[-1]
    message = EmailMessage()
    message["From"] = sender
    message["To"] = str(prompt["Reply-To"] or prompt["From"])
    message["Subject"] = "Re: " + str(prompt["Subject"])
    message["In-Reply-To"] = str(prompt["Message-ID"])
    message["Message-ID"] = make_msgid("reply", domain="localhost")
    message.set_content("\n".join(text) + "\n")
    maildir(settings.inbox_dir).add(bytes(message))
    typer.echo(f"Replied to: {prompt['Subject']}")
    _say_budget(settings, sender)


def _say_budget(settings: Settings, sender: str) -> None:
    """Why a reply may get no answer: the sender's answer budget is spent, and until when.
    Read with sqlite3 alone (`pbem reply` starts at once); said on SQLite only."""
    import sqlite3
    from contextlib import closing
    from datetime import timedelta

    if settings.on_postgres:
        return
    day = timedelta(days=1)
    since = (datetime.now(UTC) - day).replace(tzinfo=None).isoformat(sep=" ")
    where = f"{settings.database_path.resolve().as_uri()}?mode=ro"
    try:
        with closing(sqlite3.connect(where, uri=True)) as db:
            times = [
                row[0]
                for row in db.execute(
                    "SELECT at FROM answered WHERE address = ? AND kind != 'command' "
                    "AND at >= ? ORDER BY at",
                    (sender.lower(), since),
                )
            ]
    except sqlite3.Error:
        return  # no database to ask: the service will say what is wrong when it runs
    per_day = settings.answers_per_day
    until = (
        datetime.fromisoformat(times[len(times) - per_day]) + day if len(times) >= per_day else None
    )
    if until is not None:
        typer.echo(
            f"Note: {sender} has had {settings.answers_per_day} answers in 24 hours (the "
            f"answer budget, answers_per_day): until {until:%Y-%m-%d %H:%M} UTC a reply "
            "that moves nothing (a mistake, a refused line, a question) gets no answer. "
            "Moves, news and prompts still come."
        )


def _mails_to(settings: Settings, address: str) -> list[tuple[EmailMessage, bytes]]:
    """The header and the whole of each mail in the local outbox to `address`, oldest first
    (only the headers are read: a game's mails carry its picture)."""
    from email.message import EmailMessage
    from email.parser import BytesHeaderParser
    from email.policy import default as default_policy
    from email.utils import parseaddr

    from pbem.core.files import maildir

    outbox = maildir(settings.outbox_dir)
    found = []
    for key in outbox.iterkeys():
        raw = outbox.get_bytes(key)
        header = BytesHeaderParser(policy=default_policy).parsebytes(raw)
        assert isinstance(header, EmailMessage)
        if parseaddr(str(header["To"]))[1].lower() == address.lower():
            found.append((_delivered(key), header, raw))
    return [(header, raw) for _, header, raw in sorted(found, key=lambda item: item[0])]


def _delivered(key: str) -> tuple[int, int, str]:
    """When a Maildir message was added: its key is 'seconds.M<microseconds>P<pid>Q<n>...'."""
    found = re.match(r"(\d+)\.M(\d+)P", key)
    return (int(found.group(1)), int(found.group(2)), key) if found else (0, 0, key)


@app.command()
def read(
    number: Annotated[
        int | None, typer.Argument(help="Which mail (its number in --list); else the newest.")
    ] = None,
    address: Annotated[str, typer.Option("--to", help="Whose mail to show.")] = "you@localhost",
    listing: Annotated[
        bool, typer.Option("--list", help="List the mails, numbered, oldest first.")
    ] = False,
    config: ConfigOption = None,
) -> None:
    """Print a mail in the local outbox for an address (the embedded defaults): the newest,
    or mail N of `--list`."""
    import email
    from email.message import EmailMessage
    from email.policy import default as default_policy

    settings = _settings(config)
    mails = _mails_to(settings, address)
    if not mails:
        _fail(f"no mail for {address} in {settings.outbox_dir} yet")
    if listing:
        for index, (header, _) in enumerate(mails, 1):
            asks = "  (asks for your decision)" if header["X-Tongiaki-Decision"] else ""
            typer.echo(f"{index:>4}  {header['Subject']}{asks}")
        return
    if number is not None and not 1 <= number <= len(mails):
        _fail(f"there is no mail {number}: the mails are 1-{len(mails)} (see read --list)")
    _, raw = mails[-1] if number is None else mails[number - 1]
    chosen = email.message_from_bytes(raw, policy=default_policy)
    assert isinstance(chosen, EmailMessage)
    body = chosen.get_body(("plain",))
    typer.echo(f"Subject: {chosen['Subject']}\n")
    typer.echo(body.get_content() if body is not None else "")


def demo_seats() -> list[SeatSpec]:
    """The demo game's seats: you against two greedy bots."""
    from pbem.flow.service import SeatSpec

    return [
        SeatSpec("Sina", "you@localhost", "blue"),  # the demo player: a name, not "You"
        SeatSpec("Kai", None, "red", "greedy"),
        SeatSpec("Mele", None, "green", "greedy"),
    ]


@app.command()
def demo(config: ConfigOption = None) -> None:
    """Serve a demo game on the embedded defaults: you against two bots, mail in local folders."""
    from dataclasses import replace

    from sqlmodel import select

    from pbem.core.clock import utc_now
    from pbem.core.kinds import GameStatus
    from pbem.flow.service import Service
    from pbem.host.runner import serve
    from pbem.store.db import session
    from pbem.store.models import Game

    service = _service(config, logs=True, check=True)
    _say_broken_catalogs()
    with session(service.engine) as db:
        running = db.exec(select(Game).where(Game.status == GameStatus.RUNNING)).first()
    if running is None:
        game_id = service.new_game(demo_seats(), now=utc_now())
        typer.echo(f"Created demo game g{game_id}: you (Sina, blue) against two greedy bots.")
    settings = replace(service.settings, poll_seconds=2, outbox_seconds=1)
    typer.echo(
        f"Your mail arrives in {settings.outbox_dir}. In another terminal:\n"
        "  .venv/bin/pbem read            # the newest mail for you\n"
        "  .venv/bin/pbem reply 3         # answer it (an option number or a command)\n"
        "Stop the service with Ctrl-C; start it again to carry on."
    )
    with _alone(service):
        serve(Service(service.engine, settings), utc_now)


@app.command("export")
def export_command(
    game: Annotated[int, typer.Argument(help="The game.")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="The HTML file to write (else game-GAME.html)."),
    ] = None,
    notation: Annotated[
        bool,
        typer.Option(
            "--only-notation",
            "--notation",
            help="Write only the game in notation, no HTML page: to --out, else printed "
            "(--notation is the older name).",
        ),
    ] = False,
    config: ConfigOption = None,
) -> None:
    """Write the record of a game: one HTML page (the board after every turn, the moves, the
    public table talk, the final table) and the game in notation next to it (FILE.txt)."""
    from pbem.flow.service import GameError
    from pbem.store.db import reading
    from pbem.views import export

    service = _service(config)
    with reading(service.engine) as db:
        try:
            played = export.load(db, game)
        except GameError as error:
            _fail(str(error))
    text = export.notation(played)
    if notation:
        if out is None:
            typer.echo(text, nl=False)
        else:
            _write(out, text)
            typer.echo(f"wrote {out} ({len(played.moves)} choices)")
        return
    target = out or Path(f"game-{game}.html")
    if target.suffix == ".txt":
        _fail(f"{target}: the page needs a name of its own, like game-{game}.html")

    def progress(done: int, total: int) -> None:
        if done % 10 == 0 or (done == total and total >= 10):
            typer.echo(f"drew {done} of {total} boards", err=True)

    page = export.render_record(export.record(played, progress))
    _write(target, page)
    _write(target.with_suffix(".txt"), text)  # after the page: a failure writes neither
    typer.echo(
        f"wrote {target} ({len(page) // 1024} KB) and {target.with_suffix('.txt')} "
        f"({len(played.moves)} choices)"
    )


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        _fail(f"cannot write {path}: {error.strerror or error}")


def _unwrapped(text: str) -> str:
    """A docstring's paragraphs each on one line, for the terminal to wrap (typer kept the
    source's line breaks: `pbem --help` broke its lines mid-sentence)."""
    import inspect

    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(text).split("\n\n"))


for _command in app.registered_commands:
    _doc = _command.help or (_command.callback.__doc__ if _command.callback else None)
    if _doc:
        _command.help = _unwrapped(_doc)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
