"""`pbem check-config`: which parts of the configured set-up work, step by step.

Each step (the database, the IMAP server's connection, TLS, login and folder, the SMTP
server's connection, TLS and login, and on request a test mail) gives one `Check`. A step
whose step before it failed is skipped. Nothing is sent unless asked; no password or token
is ever printed.
"""

from __future__ import annotations

import asyncio
import imaplib
import os
import secrets
import socket
import sqlite3
import ssl
import time
from collections.abc import Callable, Iterator
from contextlib import closing, suppress
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formataddr, formatdate, make_msgid
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiosmtplib
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.exc import DBAPIError

from pbem.core import ImapSettings, MailTransport, Settings, SmtpSettings, Tls, others_may_read
from pbem.host.transport import (
    imap_client,
    imap_connect,
    imap_login,
    imap_logout,
    server_words,
    tls_context,
)
from pbem.store import SCHEMA_VERSION, damaged, explain, problems, storage_problem
from pbem.views.i18n import TRANSLATED, catalog_problems

if TYPE_CHECKING:
    from imapclient import IMAPClient

TIMEOUT = 15.0  # seconds for each network step


class Verdict(StrEnum):
    """How one step of `pbem check-config` went."""

    OK = "ok"
    WARN = "warn"  # it works, but should not be left so
    FAIL = "fail"
    SKIP = "skip"  # not tried: an earlier step failed


@dataclass(frozen=True)
class Check:
    step: str
    outcome: Verdict
    detail: str

    def line(self) -> str:
        return f"{self.outcome.upper():<5} {self.step:<13} {self.detail}"


def check_settings(
    settings: Settings,
    *,
    send_to: str | None = None,
    round_trip: bool = False,
    wait: float = 60.0,
) -> list[Check]:
    """Every check of `settings`; `send_to` mails a test message there; `round_trip` mails
    one to the service's own reply address and waits up to `wait` s for it in the mailbox."""
    checks = [*_database(settings), _catalogs()]
    if settings.mail != MailTransport.IMAP:
        return [*checks, *_maildir(settings)]
    checks += _imap(settings.imap)
    mark = f"check-{secrets.token_hex(4)}"  # tells this run's test mails from all others
    own = _own_address(settings, mark) if round_trip else None
    checks += asyncio.run(_smtp(settings, send_to, own, mark))
    if own is not None and checks[-1].outcome == Verdict.OK:  # the round-trip mail went out
        checks[-1] = _wait_for(settings, own, mark, wait)
    return checks


def _catalogs() -> Check:
    """The players' languages: each catalog compiles (else its players read English)."""
    problems = catalog_problems()
    if problems:
        return Check("catalogs", Verdict.FAIL, "; ".join(problems))
    return Check("catalogs", Verdict.OK, f"{', '.join(TRANSLATED)} compile")


def _nearest(path: Path) -> Path:
    """`path` if it exists, else its nearest parent that does."""
    return next((p for p in [path, *path.parents] if os.path.exists(p)), Path("."))


OUTBOX_QUERY = (
    "SELECT count(*), max(attempts), "
    "(SELECT last_error FROM outbox ORDER BY attempts DESC LIMIT 1) FROM outbox"
)


def _database(settings: Settings) -> Iterator[Check]:
    """The database's file, folder and disk, `PRAGMA quick_check`, its schema and games."""
    if settings.on_postgres:
        yield from _postgres(settings)
        return
    path = settings.database_path
    problem = storage_problem(path)
    if problem is not None:
        yield Check("database", Verdict.FAIL, str(problem))
        return
    if not path.exists():
        yield Check("database", Verdict.OK, f"{path} does not exist yet; it will be created")
        return
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            found = problems(db)
            if found:
                yield Check("database", Verdict.FAIL, str(damaged(path, found)))
                return
            version = db.execute("SELECT value FROM setting WHERE key = 'schema_version'")
            row = version.fetchone()
            games = dict(db.execute("SELECT status, count(*) FROM game GROUP BY status"))
            waiting, tries, error = db.execute(OUTBOX_QUERY).fetchone()
    except sqlite3.Error as failure:
        explained = explain(failure, path)
        yield Check("database", Verdict.FAIL, str(explained) if explained else f"{path}: {failure}")
        return
    yield from _contents(str(path), row, games, (waiting, tries, error))
    yield _privacy(settings.data_dir, path)


def _privacy(data_dir: Path, path: Path) -> Check:
    """Whether other users of the host may read the database (every seat's secret is in it)
    or enter the data folder; the service takes their access away when it starts."""
    files = (data_dir, path, Path(f"{path}-wal"), Path(f"{path}-shm"))
    open_to_others = [f"{f} ({f.stat().st_mode & 0o777:o})" for f in files if others_may_read(f)]
    if not open_to_others:
        return Check("privacy", Verdict.OK, f"{data_dir} and the database: their owner's only")
    return Check(
        "privacy",
        Verdict.WARN,
        f"other users of the host may read {', '.join(open_to_others)}: the service makes "
        "them its user's only when it starts (or `chmod go= PATH`)",
    )


def _postgres(settings: Settings) -> Iterator[Check]:
    """The PostgreSQL database: reached as its user, its schema and games (nothing made)."""
    where = settings.database_shown
    engine = create_engine(
        settings.database_url,
        connect_args={"options": "-c timezone=UTC", "connect_timeout": int(TIMEOUT)},
    )
    try:
        with engine.connect() as db:
            if not inspect(db).has_table("game"):
                yield Check(
                    "database", Verdict.OK, f"{where}: reached, empty; the service makes its tables"
                )
                return
            version = "SELECT value FROM setting WHERE key = 'schema_version'"
            row = db.execute(text(version)).first()
            counted = "SELECT status, count(*) FROM game GROUP BY status"
            games = {status: n for status, n in db.execute(text(counted))}
            waiting, tries, error = db.execute(text(OUTBOX_QUERY)).one()
    except DBAPIError as failure:
        explained = explain(failure, settings.database_url)
        said = " ".join(str(failure.orig).split())[:300]
        yield Check("database", Verdict.FAIL, str(explained) if explained else f"{where}: {said}")
        return
    finally:
        engine.dispose()
    yield from _contents(where, row, games, (waiting, tries, error))


def _contents(
    path: str, row: Any, games: dict[Any, Any], outbox: tuple[Any, Any, Any]
) -> Iterator[Check]:
    """The schema version, the games and the waiting mail of a database that was read."""
    waiting, tries, error = outbox
    counts = ", ".join(f"{n} {status}" for status, n in sorted(games.items())) or "none"
    schema = int(row[0]) if row else 1
    if schema > SCHEMA_VERSION:
        yield Check(
            "database",
            Verdict.FAIL,
            f"{path}: schema version {schema} is newer than this service's {SCHEMA_VERSION}: "
            "run a newer version of the service",
        )
        return
    old = schema < SCHEMA_VERSION
    later = f" (upgraded to {SCHEMA_VERSION} when the service starts)" if old else ""
    yield Check("database", Verdict.OK, f"{path}: schema version {schema}{later}; games: {counts}")
    if waiting and tries:
        yield Check(
            "outbox",
            Verdict.WARN,
            f"{waiting} mails waiting; one was tried {tries} times, last error: {error}",
        )
    else:
        yield Check("outbox", Verdict.OK, f"{waiting} mails waiting")


def _maildir(settings: Settings) -> Iterator[Check]:
    for step, folder in (("inbox", settings.inbox_dir), ("outbox", settings.outbox_dir)):
        existing = _nearest(folder)
        ok = os.access(existing, os.W_OK)
        yield Check(
            f"maildir {step}",
            Verdict.OK if ok else Verdict.FAIL,
            f"{folder} (mail = maildir: local folders, no mail server)"
            if ok
            else f"{folder} cannot be written: {existing} is read-only",
        )


def _tls_detail(tls: object, host: str, ca_file: str) -> str:
    """`tls`: the connection's SSLSocket (imaplib) or SSLObject (asyncio)."""
    version = tls.version() if isinstance(tls, ssl.SSLSocket | ssl.SSLObject) else None
    trusted = f"the CA in {ca_file}" if ca_file else "the system's CAs"
    return f"{version or 'TLS'}, certificate of {host} verified against {trusted}"


def _tls_failure(error: BaseException, ca_file: str) -> str:
    hint = "" if ca_file else " (a server with a private CA needs ca_file)"
    if isinstance(error, ssl.SSLCertVerificationError):
        return f"certificate not trusted: {error.verify_message}{hint}"
    return f"{type(error).__name__}: {error}"


def _reach(step: str, host: str, port: int) -> Check:
    try:
        socket.create_connection((host, port), timeout=TIMEOUT).close()
    except OSError as error:
        return Check(step, Verdict.FAIL, f"{host}:{port}: {error}")
    return Check(step, Verdict.OK, f"{host}:{port}")


def _no_password(server: str, user: str) -> Check:
    return Check(
        f"{server} login",
        Verdict.FAIL,
        f"no password for {user}: set $PBEM_{server}_PASSWORD, {server.lower()}.password_file "
        f"or the systemd credential {server.lower()}_password",
    )


def _skipped(steps: list[str], why: str) -> list[Check]:
    return [Check(step, Verdict.SKIP, why) for step in steps]


def _imap(imap: ImapSettings) -> list[Check]:
    steps = ["IMAP TLS", "IMAP login", "IMAP folder"]
    checks = [_reach("IMAP connect", imap.host, imap.port)]
    if checks[0].outcome == Verdict.FAIL:
        return [*checks, *_skipped(steps, "no connection")]
    try:
        client = imap_client(imap, timeout=TIMEOUT)
    except (OSError, imaplib.IMAP4.error) as error:
        failed = Check("IMAP TLS", Verdict.FAIL, f"{imap.tls}: {_tls_failure(error, imap.ca_file)}")
        return [*checks, failed, *_skipped(steps[1:], "no TLS")]
    with closing(_LoggedOut(client)):
        if imap.tls == Tls.NONE:
            checks.append(Check("IMAP TLS", Verdict.WARN, "tls = none: the password goes in clear"))
        else:
            detail = _tls_detail(client.socket(), imap.host, imap.ca_file)
            checks.append(Check("IMAP TLS", Verdict.OK, f"{imap.tls}: {detail}"))
        if not imap.password:
            return [*checks, _no_password("IMAP", imap.user), *_skipped(steps[2:], "no login")]
        try:
            imap_login(client, imap)
        except (OSError, imaplib.IMAP4.error) as error:
            refused = Check("IMAP login", Verdict.FAIL, f"{imap.user} refused: {_said(error)}")
            return [*checks, refused, *_skipped(steps[2:], "no login")]
        checks.append(Check("IMAP login", Verdict.OK, imap.user))
        try:
            selected = client.select_folder(imap.folder, readonly=True)
            unseen = client.search("UNSEEN")
        except (OSError, imaplib.IMAP4.error) as error:
            detail = f"{imap.folder!r} cannot be opened: {_said(error)}"
            return [*checks, Check("IMAP folder", Verdict.FAIL, detail)]
        count = selected.get(b"EXISTS", "?")
        detail = f"{imap.folder}: {count} messages, {len(unseen)} not yet read by the service"
        checks.append(Check("IMAP folder", Verdict.OK, detail))
    return checks


class _LoggedOut:
    """Logs an IMAP client out on close, whatever state it is in."""

    def __init__(self, client: IMAPClient) -> None:
        self.client = client

    def close(self) -> None:
        imap_logout(self.client)


def _said(error: BaseException) -> str:
    """What an error says, its server's words as text (imaplib's errors hold bytes)."""
    if isinstance(error, imaplib.IMAP4.error):
        return server_words(error)
    return _text(error.args[0]) if len(error.args) == 1 else _text(error)


def _text(value: object) -> str:
    if isinstance(value, list):
        return " ".join(_text(v) for v in value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


async def _smtp(settings: Settings, send_to: str | None, own: str | None, mark: str) -> list[Check]:
    smtp: SmtpSettings = settings.smtp
    steps = ["SMTP TLS", "SMTP login"]
    if send_to:
        steps.append("test mail")
    if own:
        steps.append("round trip")
    client = aiosmtplib.SMTP(
        hostname=smtp.host,
        port=smtp.port,
        use_tls=smtp.tls == Tls.TLS,
        start_tls=False,
        tls_context=tls_context(smtp.ca_file) if smtp.tls != Tls.NONE else None,
        timeout=TIMEOUT,
    )
    checks = [_reach("SMTP connect", smtp.host, smtp.port)]
    if checks[0].outcome == Verdict.FAIL:
        return [*checks, *_skipped(steps, "no connection")]
    try:
        await client.connect()
        if smtp.tls == Tls.STARTTLS:
            await client.starttls()
    except (OSError, aiosmtplib.SMTPException) as error:
        if smtp.tls == Tls.NONE:  # no TLS to blame: the server did not greet as SMTP should
            failed = Check("SMTP greeting", Verdict.FAIL, f"{type(error).__name__}: {error}")
            return [*checks, failed, *_skipped(steps[1:], "no SMTP session")]
        cause = error.__cause__ or error.__context__ or error
        failed = Check("SMTP TLS", Verdict.FAIL, f"{smtp.tls}: {_tls_failure(cause, smtp.ca_file)}")
        return [*checks, failed, *_skipped(steps[1:], "no TLS")]
    try:
        if smtp.tls == Tls.NONE:
            checks.append(Check("SMTP TLS", Verdict.WARN, "tls = none: the password goes in clear"))
        else:
            tls = client.get_transport_info("ssl_object")
            checks.append(
                Check(
                    "SMTP TLS",
                    Verdict.OK,
                    f"{smtp.tls}: {_tls_detail(tls, smtp.host, smtp.ca_file)}",
                )
            )
        if smtp.user:
            if not smtp.password:
                return [*checks, _no_password("SMTP", smtp.user), *_skipped(steps[2:], "no login")]
            try:
                await client.login(smtp.user, smtp.password)
            except aiosmtplib.SMTPException as error:
                refused = Check("SMTP login", Verdict.FAIL, f"{smtp.user} refused: {error}")
                return [*checks, refused, *_skipped(steps[2:], "no login")]
            checks.append(Check("SMTP login", Verdict.OK, smtp.user))
        else:
            checks.append(Check("SMTP login", Verdict.OK, "no user set: sending without a login"))
        if send_to:
            checks.append(await _send(client, settings, "test mail", send_to, mark))
        if own:
            checks.append(await _send(client, settings, "round trip", own, mark))
    finally:
        with suppress(aiosmtplib.SMTPException, OSError):
            await client.quit()
    return checks


def _own_address(settings: Settings, mark: str) -> str:
    """Where replies to the service go: a plus address of its own, or the plain address."""
    if not settings.plus_addressing:
        return settings.from_address
    local, _, domain = settings.from_address.partition("@")
    return f"{local}+{mark}@{domain}"


async def _send(
    client: aiosmtplib.SMTP, settings: Settings, step: str, to: str, mark: str
) -> Check:
    message = EmailMessage()
    message["From"] = formataddr((settings.from_name, settings.from_address))
    message["To"] = to
    message["Subject"] = f"Tongiaki by email: a test mail from pbem check-config ({mark})"
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = make_msgid("check", domain=settings.from_address.partition("@")[2])
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(
        "This mail was sent by `pbem check-config` to check the service's mail settings.\n"
        "There is nothing to do.\n"
    )
    try:
        await client.send_message(message, sender=settings.from_address, recipients=[to])
    except aiosmtplib.SMTPException as error:
        return Check(step, Verdict.FAIL, f"to {to}: {error}")
    return Check(step, Verdict.OK, f"sent {to}")


def _wait_for(settings: Settings, to: str, mark: str, wait: float) -> Check:
    """The round-trip mail in the service's own folder, found by the `mark` in its subject
    (never a player's mail); deleted once found."""
    try:
        with closing(_LoggedOut(imap_connect(settings.imap))) as session:
            return _watch(session.client, settings, to, mark, wait)
    except (OSError, imaplib.IMAP4.error) as error:
        return Check("round trip", Verdict.FAIL, f"sent to {to}, but IMAP failed: {_said(error)}")


def _watch(client: IMAPClient, settings: Settings, to: str, mark: str, wait: float) -> Check:
    """Look for the round-trip mail every half second for `wait` seconds."""
    imap = settings.imap
    started = time.monotonic()
    deadline = started + wait
    while True:
        client.noop()
        found: list[int] = client.search(["HEADER", "Subject", mark])
        if found:
            client.add_flags(found, [rb"\Seen", rb"\Deleted"])
            # only these: a plain EXPUNGE would also remove what a mail client flagged
            gone = "deleted" if client.has_capability("UIDPLUS") else "flagged deleted"
            if gone == "deleted":
                client.uid_expunge(found)
            took = time.monotonic() - started
            how = "plus addressing works" if settings.plus_addressing else "replies arrive"
            return Check(
                "round trip",
                Verdict.OK,
                f"{how}: a mail to {to} arrived in {imap.folder} "
                f"after {took:.1f} s (and was {gone})",
            )
        if time.monotonic() > deadline:
            hint = (
                "; if the provider has no plus addressing, set plus_addressing = false"
                if settings.plus_addressing
                else ""
            )
            return Check(
                "round trip",
                Verdict.FAIL,
                f"a mail to {to} did not arrive in {imap.folder} within {wait:.0f} s{hint}",
            )
        time.sleep(0.5)


def report(checks: list[Check], echo: Callable[[str], None]) -> bool:
    """Print every check; True when none failed."""
    for check in checks:
        echo(check.line())
    failed = [c for c in checks if c.outcome == Verdict.FAIL]
    echo("everything works" if not failed else f"{len(failed)} checks failed")
    return not failed
