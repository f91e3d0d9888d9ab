"""Running the service and looking after it: `pbem poll`, `serve`, `demo`, `check-config`,
`backup`, `compact`, `outbox` and `quarantine`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pbem.host.cli_app import (
    ConfigOption,
    alone,
    app,
    fail,
    open_service,
    parse_time,
    read_settings,
    say_broken_catalogs,
)

if TYPE_CHECKING:
    from pbem.flow.service import SeatSpec


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

    service = open_service(config, logs=True, check=True)
    say_broken_catalogs()
    moment = parse_time(now) if now else utc_now()
    with alone(service):
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


@app.command("serve")
def serve_command(config: ConfigOption = None) -> None:
    """Poll the mailbox and send mail at the configured intervals until stopped."""
    from pbem.core.clock import utc_now
    from pbem.host.runner import serve

    service = open_service(config, logs=True, check=True)
    say_broken_catalogs()
    with alone(service):
        serve(service, utc_now)


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

    service = open_service(config, logs=True, check=True)
    say_broken_catalogs()
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
    with alone(service):
        serve(Service(service.engine, settings), utc_now)


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

    settings = read_settings(config)
    source = config or os.environ.get("PBEM_CONFIG") or "the embedded defaults"
    typer.echo(f"configuration: {source} (mail = {settings.mail})")
    checks = check_settings(settings, send_to=send_to, round_trip=round_trip, wait=wait)
    if not report(checks, typer.echo):
        raise typer.Exit(code=1)


@app.command("backup")
def backup_command(
    target: Annotated[Path, typer.Argument(help="The new file to write the copy to.")],
    config: ConfigOption = None,
) -> None:
    """Copy the database to a new file, safely while the service runs."""
    from pbem.store.db import backup

    settings = read_settings(config)
    if settings.on_postgres:
        fail(
            f"the games are in PostgreSQL ({settings.database_shown}): back them up with "
            "PostgreSQL's pg_dump, e.g. `pg_dump -Fc -f pbem.dump DATABASE`, safely while the "
            "service runs (README 'PostgreSQL'); nothing was copied"
        )
    try:
        backup(settings.database_path, target)
    except (FileExistsError, FileNotFoundError) as error:
        fail(str(error))
    typer.echo(f"{settings.database_path} copied to {target}")


@app.command()
def compact(config: ConfigOption = None) -> None:
    """Give the database's free pages back to the disk (sent mail leaves them). Safe while
    the service runs; only a database from before version 0.2 is rebuilt once, which needs
    the service stopped."""
    from pbem.store.db import compact as compact_database
    from pbem.store.db import incremental

    service = open_service(config, check=True)
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
        with alone(service):
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

    service = open_service(config, check=retry or bool(drop))
    now = utc_now()
    if retry or drop:
        with session(service.engine) as db:
            mails = {m.id: m for m in db.exec(select(Outbox))}
            unknown = [n for n in drop if n not in mails]
            if unknown:
                fail(f"no mail {unknown[0]} is waiting; nothing changed")
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
        fail(f"{action!r}: say one of {', '.join(QUARANTINE_ACTIONS)}")
    if action != "list" and number is None:
        fail(f"say which mail: pbem quarantine {action} N")
    service = open_service(config, logs=action == "retry", check=action in ("retry", "drop"))
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
        fail(f"there is no mail {number} in the quarantine; nothing changed")
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
            fail(f"mail {number} was cut at the size limit: it cannot be handled again")
        outcome = take(service, row.raw, parse_time(now) if now else utc_now())
        take_out(service.engine, number)
        typer.echo(f"mail {number}: {outcome}")
        return
    take_out(service.engine, number)
    typer.echo(f"dropped mail {number} from {row.sender or '-'}")


SHOW_BYTES = 20_000  # of a quarantined mail shown by `pbem quarantine show`


def printable(text: str) -> str:
    """Text safe to print on a terminal: control characters (escape sequences) as '?'."""
    return "".join(c if c in "\n\t" or c.isprintable() else "?" for c in text)
