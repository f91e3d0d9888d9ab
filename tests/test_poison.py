"""Poisoned mail never blocks a game: each mail the service fails on is put in the
quarantine and marked handled, and the next mail is handled, from the local Maildir and
from a real IMAP server (`pbem serve` against Dovecot)."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import col, select
from typer.testing import CliRunner, Result

from pbem.core.config import settings_toml
from pbem.flow.service import SeatSpec, Service
from pbem.host.cli import app
from pbem.host.runner import run_cycle, take
from pbem.host.transport import MaildirInbox
from pbem.mail_in import door
from pbem.store.db import open_database, session
from pbem.store.models import Inbound, Move, Outbox, Quarantined
from tests.support.localmail import START, later, local_service, parse, reply_to, take_mail
from tests.support.mailservers import Mail, _select, mail_settings

runner = CliRunner()
ANN, BOB = "ann@example.test", "bob@example.test"


def nested(depth: int, leaf: bytes = b"place Tonga a\n") -> bytes:
    """A multipart `depth` levels deep around one text part."""
    body = b"Content-Type: text/plain\n\n" + leaf
    for level in range(depth):
        boundary = f"b{level}".encode()
        body = (
            b'Content-Type: multipart/mixed; boundary="'
            + boundary
            + b'"\n\n--'
            + boundary
            + b"\n"
            + body
            + b"\n--"
            + boundary
            + b"--\n"
        )
    return body


def poisons(target: str, player: str) -> dict[str, bytes]:
    """The mails that stopped every game before (issue: hardened for the open internet):
    each sent from the player to their own valid reply address."""
    head = f"From: {player}\nTo: {target}\nSubject: Re: your move\n"
    return {
        "nested 1,000 deep": (head + "Message-ID: <deep@x.test>\n").encode() + nested(1000),
        "nested 300 deep": (head + "Message-ID: <deep300@x.test>\n").encode() + nested(300),
        "8-bit Message-ID": head.encode() + b"Message-ID: <\xff@x.test>\n\nhello\n",
        "tag of 5,000 digits": (
            f"From: {player}\nTo: tongiaki+g{'7' * 5000}-0-1-aaaaaaaaaa@example.test\n"
            "Subject: hi\nMessage-ID: <digits@x.test>\n\nplace Tonga a\n"
        ).encode(),
        "multipart without a boundary, one 8-bit byte": (
            head + "Message-ID: <noboundary@x.test>\nMIME-Version: 1.0\n"
            "Content-Type: multipart/mixed\n\n"
        ).encode()
        + b"caf\xe9\n",
        "To of 900 KB": (
            f"From: {player}\nTo: {target}, "
            + ", ".join(f"x{n}@example.test" for n in range(50_000))
            + "\nSubject: Re: your move\nMessage-ID: <bigto@x.test>\n\nhello\n"
        ).encode()[:900_000]
        + b"\n\nhello\n",
        "2.2 MB To, over the size limit": (
            f"From: {player}\nTo: {target}, "
            + ", ".join(f"x{n}@example.test" for n in range(120_000))
            + "\nSubject: Re: your move\nMessage-ID: <hugeto@x.test>\n\nhello\n"
        ).encode(),
        "765 KiB of attributions": (
            head
            + "Message-ID: <wrote@x.test>\n\nhello\n"
            + "On Mon, 1 Jan 2024 at 10:00, Ann <ann@example.org> wrote:\n" * 13_500
        ).encode(),
        "empty": b"",
        "only a header line": b"Subject: nothing else",
    }


def _prompt_to(mails: list[EmailMessage], address: str) -> EmailMessage:
    return [m for m in mails if m["To"] == address and "Your move" in str(m["Subject"])][-1]


def _moves(service: Service) -> list[str]:
    with session(service.engine) as db:
        return [m.choice for m in db.exec(select(Move).order_by(col(Move.number)))]


def test_poisoned_mail_in_the_maildir_is_quarantined_and_the_next_reply_applied(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    service = local_service(tmp_path)
    service.new_game([SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")], seed=4, now=START)
    prompt = _prompt_to(take_mail(service), ANN)
    target = str(prompt["Reply-To"]).split("<")[-1].rstrip(">")
    inbox = MaildirInbox(service.settings.inbox_dir)
    for raw in poisons(target, ANN).values():
        (service.settings.inbox_dir / "new" / f"{time.time_ns()}.poison").write_bytes(raw)
    (service.settings.inbox_dir / "new" / f"{time.time_ns()}.valid").write_bytes(
        reply_to(prompt, "place Tonga a")
    )
    caplog.set_level(logging.INFO)
    report = run_cycle(service, later(1))
    assert report.handled == len(poisons(target, ANN)) + 1
    assert list(inbox.new_messages()) == []  # nothing stuck
    assert _moves(service) == ["place Tonga a"]
    assert not [r for r in caplog.records if r.exc_info], "no traceback in the log"
    with session(service.engine) as db:
        kept = db.exec(select(Quarantined)).all()
        outcomes = [i.outcome for i in db.exec(select(Inbound))]
    errors = " | ".join(q.error for q in kept)
    assert "more than 50 multipart parts" in errors and "too large" in errors
    assert all(len(q.raw) <= service.settings.max_message_bytes for q in kept)
    assert outcomes.count("applied") == 1
    # a poll with nothing new reads no mail at all: the handled ones are known by their names
    for path in (service.settings.inbox_dir / "cur").iterdir():
        path.write_bytes(b"")  # would be quarantined if it were read again
    assert run_cycle(service, later(2)).handled == 0


def test_a_poisoned_batch_through_serve_over_dovecot_blocks_nothing(
    mail: Mail, tmp_path: Path
) -> None:
    settings = mail_settings(mail, tmp_path / "data")
    service = Service(open_database(settings.database_path), settings)
    service.new_game(
        [SeatSpec("P1", "p1@example.test", "red"), SeatSpec("P2", "p2@example.test", "blue")],
        seed=4,
        now=START,
    )
    with session(service.engine) as db:
        queued = [parse(m.message) for m in db.exec(select(Outbox))]
        db.commit()
    prompt = _prompt_to(queued, "p1@example.test")
    target = str(prompt["Reply-To"]).split("<")[-1].rstrip(">")
    batch = poisons(target, "p1@example.test")
    for raw in batch.values():
        if raw:  # an IMAP server stores no empty message
            mail.dovecot.append("tongiaki", raw)
    mail.dovecot.append("tongiaki", reply_to(prompt, "place Tonga a"))
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(replace(settings, poll_seconds=0.2, outbox_seconds=0.2)))
    env = {**os.environ, "PBEM_IMAP_PASSWORD": mail.password, "PBEM_SMTP_PASSWORD": mail.password}
    command = [str(Path(sys.executable).parent / "pbem"), "serve", "--config", str(config)]
    serving = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not _moves(service):
            time.sleep(0.1)
    finally:
        serving.send_signal(signal.SIGTERM)
        _, log_text = serving.communicate(timeout=30)
    assert serving.returncode == 0
    assert _moves(service) == ["place Tonga a"]
    assert "Traceback" not in log_text
    assert log_text.count("quarantined as") >= 3
    with mail.dovecot.session("tongiaki") as client:
        _select(client, "INBOX")
        status, data = client.uid("SEARCH", "UNSEEN")
        assert status == "OK" and data[0] == b"", "every message was marked handled"
    with session(service.engine) as db:
        assert db.exec(select(Quarantined)).all()


def test_the_host_lists_shows_retries_and_drops_quarantined_mail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = local_service(tmp_path)
    service.new_game([SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")], seed=4, now=START)
    prompt = _prompt_to(take_mail(service), ANN)
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(service.settings))
    reply = reply_to(prompt, "place Tonga a")

    def broken(message: object, settings: object) -> list[str]:
        raise RuntimeError("a fault of the service")

    with monkeypatch.context() as patch:
        patch.setattr(door, "reply_lines", broken)
        assert take(service, reply, later(1)) == "quarantined"
    escape = b"From: eve@example.test\nSubject: \x1b[2J\n\n\x1b]0;owned\x07" + b"x" * 2_000_000
    assert take(service, escape, later(2)) == "quarantined"

    def pbem(*args: str) -> Result:
        return runner.invoke(app, ["quarantine", *args, "--config", str(config)])

    listed = pbem()
    assert listed.exit_code == 0, listed.output
    lines = listed.stdout.splitlines()
    assert lines[-1] == "2 mails in the quarantine"
    assert lines[0].split()[0] == "1" and "RuntimeError: a fault of the service" in lines[0]
    assert "too large: 2000048 bytes" in lines[1]
    shown = pbem("show", "2")
    assert shown.exit_code == 0 and "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    assert "size: 2000048 bytes (kept: the first 1000000)" in shown.stdout
    assert "?]0;owned?" in shown.stdout and "bytes more" in shown.stdout
    refused = pbem("retry", "2")
    assert refused.exit_code == 2 and "cut at the size limit" in refused.stderr
    retried = pbem("retry", "1", "--now", later(3).isoformat())
    assert retried.exit_code == 0 and retried.stdout.strip() == "mail 1: applied"
    assert _moves(service) == ["place Tonga a"]
    assert pbem("drop", "2").stdout.strip() == "dropped mail 2 from eve@example.test"
    assert pbem().stdout.strip() == "0 mails in the quarantine"
    missing = pbem("drop", "2")
    assert missing.exit_code == 2 and "there is no mail 2" in missing.stderr


def test_a_retry_killed_before_the_mail_left_the_quarantine_applies_nothing_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pbem quarantine retry N` handles the mail, then takes it out: killed in between, the
    mail is still listed, and the next retry finds it handled (a duplicate) and takes it out."""
    service = local_service(tmp_path)
    service.new_game([SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")], seed=4, now=START)
    prompt = _prompt_to(take_mail(service), ANN)
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(service.settings))
    reply = reply_to(prompt, "place Tonga a")

    def broken(message: object, settings: object) -> list[str]:
        raise RuntimeError("a fault of the service")

    with monkeypatch.context() as patch:
        patch.setattr(door, "reply_lines", broken)
        assert take(service, reply, later(1)) == "quarantined"
    assert take(service, reply, later(2)) == "applied"  # the retry's handling, then the kill
    retried = runner.invoke(app, ["quarantine", "retry", "1", "--config", str(config)])
    assert retried.exit_code == 0 and retried.stdout.strip() == "mail 1: duplicate"
    assert _moves(service) == ["place Tonga a"]
    listed = runner.invoke(app, ["quarantine", "--config", str(config)])
    assert listed.stdout.strip() == "0 mails in the quarantine"
