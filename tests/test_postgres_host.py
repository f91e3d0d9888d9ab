"""What a host of a PostgreSQL database relies on. Two `pbem serve` on one database, one of
them killed while it sends: its claim on the mails it was sending is renewed while it lives
(a heartbeat) and ends soon after it dies, so the other service sends them, each once. And
the README's restore of a `pg_dump` into the existing database works."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from email.parser import BytesHeaderParser
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlmodel import func, select
from typer.testing import CliRunner

from pbem.core.config import ImapSettings, MailTransport, Settings, SmtpSettings, Tls, settings_toml
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec
from pbem.host.cli import app
from pbem.store.db import session
from pbem.store.models import Move, Outbox
from tests.support.localmail import START, local_service, reply_to, take_mail
from tests.support.mailservers import refused_port
from tests.support.postgres import PORT, USER, Postgres

PBEM = str(Path(sys.executable).parent / "pbem")
WAIT = 90.0  # seconds: a bound for a loaded machine, never a figure to meet


@contextmanager
def _silent_smtp() -> Iterator[int]:
    """A port that takes connections and never says a word: a mail server that hangs."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        yield int(sock.getsockname()[1])


def _waiting_for(what: str, check: object) -> None:
    """Wait until `check()` is true (at most WAIT seconds, else fail naming `what`)."""
    deadline = time.monotonic() + WAIT
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.1)


def test_a_killed_services_mails_are_sent_by_the_other_once_its_claim_ends(
    tmp_path: Path, postgres_url: str
) -> None:
    claims = create_engine(postgres_url)

    def claimed() -> list[tuple[int, datetime | None]]:
        with claims.connect() as db:
            rows = db.execute(text("SELECT id, claimed_until FROM outbox ORDER BY id"))
            return [(row[0], row[1]) for row in rows]

    with _silent_smtp() as hanging, refused_port() as no_imap:
        first = tmp_path / "first.toml"
        first.write_text(
            settings_toml(
                Settings(
                    data_dir=tmp_path / "first",
                    database_url=postgres_url,
                    mail=MailTransport.IMAP,
                    imap=ImapSettings(host="127.0.0.1", port=no_imap, tls=Tls.NONE),
                    smtp=SmtpSettings(host="127.0.0.1", port=hanging, tls=Tls.NONE),
                    outbox_seconds=1.0,
                    outbox_claim_seconds=3.0,
                )
            )
        )
        players = ["--player", "Ann:ann@example.test", "--player", "Bob:bob@example.test"]
        made = CliRunner().invoke(app, ["new-game", *players, "--config", str(first)])
        assert made.exit_code == 0, made.output
        waiting = [mail_id for mail_id, _ in claimed()]
        assert len(waiting) >= 3  # two welcomes and a prompt
        sending = subprocess.Popen(
            [PBEM, "serve", "--config", str(first)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            _waiting_for("the first service's claim", lambda: all(c for _, c in claimed()))
            first_claim = max(c for _, c in claimed() if c is not None)
            # the heartbeat: the claim moves on while the service waits on the mail server
            _waiting_for(
                "a renewed claim",
                lambda: min(c for _, c in claimed() if c is not None) > first_claim,
            )
        finally:
            sending.send_signal(signal.SIGKILL)
            sending.wait()
    assert [mail_id for mail_id, _ in claimed()] == waiting  # nothing was sent
    second = tmp_path / "second.toml"
    second.write_text(
        settings_toml(
            Settings(
                data_dir=tmp_path / "second",
                database_url=postgres_url,
                outbox_seconds=1.0,
                outbox_claim_seconds=3.0,
            )
        )
    )
    taking_over = subprocess.Popen(
        [PBEM, "serve", "--config", str(second)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    killed_at = time.monotonic()
    try:
        _waiting_for("the other service to send them", lambda: claimed() == [])
        took = time.monotonic() - killed_at
    finally:
        taking_over.send_signal(signal.SIGTERM)
        assert taking_over.wait(timeout=WAIT) == 0
    claims.dispose()
    sent = sorted((tmp_path / "second" / "mail" / "outbox" / "new").iterdir())
    ids = [str(BytesHeaderParser().parsebytes(p.read_bytes())["Message-ID"]) for p in sent]
    assert len(ids) == len(waiting) == len(set(ids))  # each mail once
    print(f"the other service sent the {len(ids)} mails {took:.1f} s after the kill")


def _count(engine: Any, table: type) -> int:
    with session(engine) as db:
        return int(db.exec(select(func.count()).select_from(table)).one())


def test_a_dump_is_restored_over_the_existing_database_as_the_readme_says(
    tmp_path: Path, postgres: Postgres, postgres_url: str
) -> None:
    service = local_service(tmp_path, database_url=postgres_url)
    seats = [SeatSpec("Ann", "ann@example.test", "red"), SeatSpec("Bob", "bob@example.test")]
    service.new_game(seats, seed=4, now=START)
    prompt = next(m for m in take_mail(service) if m["X-Tongiaki-Decision"])
    name = make_url(postgres_url).database
    assert name is not None
    server = ["-h", str(postgres.socket), "-p", str(PORT), "-U", USER]
    dump = tmp_path / "games.dump"
    subprocess.run(
        [str(postgres.bin / "pg_dump"), *server, "-Fc", "-f", str(dump), name], check=True
    )
    assert handle(service, reply_to(prompt, "1"), START + timedelta(hours=1)) == "applied"
    assert _count(service.engine, Move) == 1  # a move made after the dump
    service.engine.dispose()  # the service is stopped to restore
    restore = [str(postgres.bin / "pg_restore"), *server, "-d", name, str(dump)]
    plain = subprocess.run(restore, capture_output=True, text=True)
    assert plain.returncode != 0 and "already exists" in plain.stderr  # `-d` alone fails
    subprocess.run([*restore[:-1], "--clean", "--if-exists", str(dump)], check=True)
    assert _count(service.engine, Move) == 0  # the games as they were at the dump
    assert _count(service.engine, Outbox) == 0  # (the dump was made with the outbox sent)
    again = handle(service, reply_to(prompt, "1"), START + timedelta(hours=2))
    assert again == "applied" and _count(service.engine, Move) == 1  # the game goes on
