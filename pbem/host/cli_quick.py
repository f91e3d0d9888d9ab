"""The commands a newcomer types first, which start at once (README, "Speed and scale"):
`pbem read` and `pbem reply` (the local mail folders of the embedded defaults) and `pbem
list` (on SQLite read with sqlite3 alone)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

import typer

from pbem.host.cli_app import ConfigOption, app, fail, read_settings, service_on

if TYPE_CHECKING:
    from email.message import EmailMessage

    from sqlmodel import Session

    from pbem.core.config import Settings


@app.command("list")
def list_games(config: ConfigOption = None) -> None:
    """Every game with its players and state."""
    from pbem.host.listing import quick_game_lines

    settings = read_settings(config)
    lines = None
    if not settings.on_postgres:  # as the service would find it, read with sqlite3 alone
        from pbem.core.files import make_private

        make_private(settings.data_dir)
        lines = quick_game_lines(settings.database_path)
    if lines is None:  # PostgreSQL, a database to make or to upgrade, or a fault to explain
        from pbem.store.db import reading

        service = service_on(settings)
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

    settings = read_settings(config)
    mails = [header for header, _ in _mails_to(settings, sender)]
    if not mails:
        fail(f"no mail to {sender} in {settings.outbox_dir}")
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

    settings = read_settings(config)
    mails = _mails_to(settings, address)
    if not mails:
        fail(f"no mail for {address} in {settings.outbox_dir} yet")
    if listing:
        for index, (header, _) in enumerate(mails, 1):
            asks = "  (asks for your decision)" if header["X-Tongiaki-Decision"] else ""
            typer.echo(f"{index:>4}  {header['Subject']}{asks}")
        return
    if number is not None and not 1 <= number <= len(mails):
        fail(f"there is no mail {number}: the mails are 1-{len(mails)} (see read --list)")
    _, raw = mails[-1] if number is None else mails[number - 1]
    chosen = email.message_from_bytes(raw, policy=default_policy)
    assert isinstance(chosen, EmailMessage)
    body = chosen.get_body(("plain",))
    typer.echo(f"Subject: {chosen['Subject']}\n")
    typer.echo(body.get_content() if body is not None else "")
