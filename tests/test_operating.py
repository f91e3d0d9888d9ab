"""What a host relies on: log lines that say what happened (and never a secret), backups,
the outbox, and looking at games while the service holds the database."""

from __future__ import annotations

import asyncio
import gc
import itertools
import logging
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import col, select
from typer.testing import CliRunner

from pbem.core import maildir
from pbem.core.config import ImapSettings, Settings, SmtpSettings, settings_toml
from pbem.flow.deadlines import tick
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.host import sending
from pbem.host.cli import app
from pbem.host.runner import YOUNG_COLLECTED_AFTER, Outage, Serving, run_cycle, serve
from pbem.host.sending import DELETE_BATCH, flush_outbox
from pbem.host.transport import MaildirSender, SmtpSender
from pbem.store.db import open_database, session
from pbem.store.models import Game, Move, Outbox, Seat
from tests.support.localmail import START, later, local_service, reply_to, take_mail
from tests.support.mailservers import Mail, mail_settings, refused_port

runner = CliRunner()
ANN, BOB = "ann@example.test", "bob@example.test"


@pytest.fixture
def service(tmp_path: Path) -> Service:
    return local_service(tmp_path)


def _two_players(service: Service) -> int:
    seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")]
    return service.new_game(seats, seed=4, deadline_seconds=24 * 3600, now=START)


def _secrets(service: Service) -> list[str]:
    """Every seat's and game master's secret, and every reply token mailed so far."""
    with session(service.engine) as db:
        seats = [s.secret for s in db.exec(select(Seat))]
        games = [g.gm_secret for g in db.exec(select(Game))]
        mails = [m.message.decode("utf-8", "replace") for m in db.exec(select(Outbox))]
    tokens = re.findall(r"\+g\d+-(?:\d+|gm)-\d+-([a-z2-7]{10})@", "\n".join(mails))
    assert tokens, "the game's mails carry reply tokens"
    return [*seats, *games, *tokens]


def test_one_log_line_per_message_mail_and_deadline_and_no_secret_in_any(
    service: Service, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="pbem")
    _two_players(service)
    secrets = _secrets(service)
    prompt = next(m for m in take_mail(service) if m["To"] == ANN and m["X-Tongiaki-Decision"])
    handle(service, reply_to(prompt, "1"), later(1))
    handle(service, reply_to(prompt, "place Tonga b", sender=BOB), later(2))
    handle(service, b"From: nobody@example.test\r\nSubject: hi\r\n\r\nhello\r\n", later(3))
    untagged = f"From: {ANN}\r\nSubject: my move\r\nMessage-ID: <u@example.test>\r\n\r\n1\r\n"
    handle(service, untagged.encode(), later(4))  # a notice that belongs to no game
    secrets += _secrets(service)
    tick(service, START + timedelta(hours=25))  # Bob's set-up boat is overdue
    report = run_cycle(service, START + timedelta(hours=25, minutes=1))
    assert report.sent > 0
    messages = [r.getMessage() for r in caplog.records]
    handled = [m for m in messages if m.startswith("message ")]
    assert handled[0] == (
        "message 1 (game 1 seat 1 decision 1): applied: 1 -> applied (place Tonga a)"
    )
    assert handled[1].startswith(
        "message 2 (game 1 seat 1 decision 1): refused: sender is not the address of seat 1 "
        "(Ann, red)"
    )
    assert handled[2] == "message 3 (no tag): refused: no game tag"
    assert handled[3].startswith("message 4 (no tag): refused: no game tag")
    assert len(handled) == 4
    fired = [m for m in messages if "deadline passed" in m]
    assert fired == [
        "game 1 decision 2: deadline passed, automatic move for seat 2 (Bob, blue): place Tonga a"
    ]
    sent = [m for m in messages if re.fullmatch(r"mail \d+ sent to \S+ \(game 1\)", m)]
    notice = [m for m in messages if re.fullmatch(rf"mail \d+ sent to {ANN} \(no game\)", m)]
    assert len(sent) + len(notice) == report.sent and len(notice) == 1
    assert "game None" not in caplog.text
    for secret in secrets:
        assert secret not in caplog.text


def test_a_mail_that_cannot_be_sent_is_logged_as_retried(
    service: Service, caplog: pytest.LogCaptureFixture, down: int
) -> None:
    caplog.set_level(logging.INFO, logger="pbem")
    _two_players(service)
    nowhere = SmtpSettings(host="127.0.0.1", port=down, tls="none")
    sent, failed = asyncio.run(
        flush_outbox(service.engine, [SmtpSender(nowhere)], "tongiaki@example.test", START)
    )
    assert (sent, failed) == (0, 1)
    retried = [r.getMessage() for r in caplog.records if "not sent" in r.getMessage()]
    assert len(retried) == 1
    assert re.match(r"mail 1 to (ann|bob)@example.test not sent \(try 1\): ", retried[0])
    caplog.clear()
    later_on = START + timedelta(minutes=1)  # the server is back: the mail goes out
    local = MaildirSender(service.settings.outbox_dir)
    assert asyncio.run(flush_outbox(service.engine, [local], "t@example.test", later_on)) == (3, 0)
    sent = [r.getMessage() for r in caplog.records]
    assert any(re.fullmatch(r"mail 1 sent to \S+ \(game 1\) after 1 failed tries", m) for m in sent)


def _counted_deletes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the outbox's deletes of sent mails, one a transaction, from now on."""
    deleted: list[int] = []
    delete = sending._delete

    def counted(engine: object, ids: list[int | None]) -> None:
        deleted.append(len(ids))
        delete(engine, ids)  # type: ignore[arg-type]

    monkeypatch.setattr("pbem.host.sending._delete", counted)
    return deleted


def test_sent_mail_leaves_the_outbox_a_batch_at_a_time(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """120 waiting mails over one connection leave the outbox in three transactions (one
    per DELETE_BATCH sent mails, the rest at the end), and all of them leave it."""
    for _ in range(40):
        _two_players(service)  # two welcomes and a prompt each
    deleted = _counted_deletes(monkeypatch)
    local = MaildirSender(service.settings.outbox_dir)
    assert asyncio.run(flush_outbox(service.engine, [local], "t@example.test", START)) == (120, 0)
    assert deleted == [DELETE_BATCH, DELETE_BATCH, 120 - 2 * DELETE_BATCH]
    with session(service.engine) as db:
        assert db.exec(select(Outbox)).all() == []
    assert len(list((service.settings.outbox_dir / "new").iterdir())) == 120


def test_mail_sent_over_several_connections_leaves_the_outbox_in_shared_batches(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The connections of a flush share their batches: 30 mails to two players over four
    connections leave the outbox in one transaction, 120 in three."""
    deleted = _counted_deletes(monkeypatch)
    lanes = [MaildirSender(service.settings.outbox_dir) for _ in range(4)]
    for games, batches in ((10, [30]), (40, [DELETE_BATCH, DELETE_BATCH, 20])):
        for _ in range(games):
            _two_players(service)  # two welcomes and a prompt each
        deleted.clear()
        sent = asyncio.run(flush_outbox(service.engine, lanes, "t@example.test", START))
        assert sent == (3 * games, 0)
        assert deleted == batches
        with session(service.engine) as db:
            assert db.exec(select(Outbox)).all() == []


def _config(tmp_path: Path) -> Path:
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(Settings(data_dir=tmp_path / "data")))
    return config


def _cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_backup_copies_every_game_and_refuses_to_overwrite(tmp_path: Path) -> None:
    config = str(_config(tmp_path))
    _cli("new-game", "--player", f"Ann:{ANN}", "--bot", "Kai:greedy", "--config", config)
    copy = tmp_path / "backups" / "pbem-1.sqlite"
    assert "copied to" in _cli("backup", str(copy), "--config", config)
    original = open_database(tmp_path / "data" / "pbem.sqlite")
    restored = open_database(copy)
    for engine in (original, restored):
        with session(engine) as db:
            rows = [
                (g.id, g.snapshot, g.stack, g.decision, [(m.number, m.choice) for m in moves])
                for g in db.exec(select(Game))
                for moves in [db.exec(select(Move).where(Move.game_id == g.id))]
            ]
        engine.dispose()
        if engine is original:
            expected = rows
    assert rows == expected and rows[0][1]
    again = runner.invoke(app, ["backup", str(copy), "--config", config])
    assert again.exit_code == 2 and "exists already" in again.output


def test_list_show_and_backup_do_not_wait_for_a_writer(tmp_path: Path) -> None:
    """While the service holds the write lock, a host can still look and back up."""
    config = str(_config(tmp_path))
    _cli("new-game", "--player", f"Ann:{ANN}", "--player", f"Bob:{BOB}", "--config", config)
    database = tmp_path / "data" / "pbem.sqlite"
    with closing(sqlite3.connect(database, isolation_level=None, timeout=0)) as writer:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("UPDATE game SET created_at = created_at")
        listed = _cli("list", "--config", config)
        assert "g1  running  decision 1    Ann (blue), Bob (red)" in listed
        assert "Now waiting for Ann (blue)" in _cli("show", "1", "--config", config)
        _cli("backup", str(tmp_path / "copy.sqlite"), "--config", config)
        writer.execute("ROLLBACK")


def test_outbox_lists_waiting_mail_retries_and_drops(tmp_path: Path) -> None:
    config = str(_config(tmp_path))
    _cli("new-game", "--player", f"Ann:{ANN}", "--player", f"Bob:{BOB}", "--config", config)
    engine = open_database(tmp_path / "data" / "pbem.sqlite")
    with session(engine) as db:
        first = db.exec(select(Outbox).order_by(col(Outbox.id))).first()
        assert first is not None
        first.attempts, first.last_error = 4, "SMTPRecipientsRefused: 550 5.1.1 no such user"
        first.next_attempt_at = START + timedelta(days=400)
        db.commit()
    listing = _cli("outbox", "--config", config)
    assert f"    1  g1    to {first.recipient}: 4 tries, next " in listing
    assert "; last error: SMTPRecipientsRefused: 550 5.1.1 no such user" in listing
    assert listing.endswith("3 mails waiting\n")
    retried = _cli("outbox", "--retry", "--drop", "2", "--config", config)
    assert f"dropped mail 2 to {BOB}" in retried and retried.endswith("2 mails waiting\n")
    with session(engine) as db:
        due = db.exec(select(Outbox).order_by(col(Outbox.id))).all()
    assert [m.id for m in due] == [1, 3]
    assert due[0].next_attempt_at < START + timedelta(days=400)
    refused = runner.invoke(app, ["outbox", "--drop", "9", "--config", config])
    assert refused.exit_code == 2 and "no mail 9 is waiting; nothing changed" in refused.output


def test_an_outage_is_logged_when_it_starts_now_and_then_and_when_it_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="pbem")
    outage = Outage("reading mail")
    outage.worked()
    for _ in range(2 * Outage.EVERY):
        outage.failed(ConnectionRefusedError(111, "Connection refused"))
    outage.failed(OSError("login refused"))  # a new cause is worth a line
    outage.failed(OSError("login refused"))
    outage.worked()
    outage.worked()
    assert [r.getMessage() for r in caplog.records] == [
        "reading mail failed: ConnectionRefusedError: [Errno 111] Connection refused; "
        "will try again",
        f"reading mail failed {Outage.EVERY} times in a row: ConnectionRefusedError: "
        "[Errno 111] Connection refused; will try again",
        f"reading mail failed {2 * Outage.EVERY} times in a row: ConnectionRefusedError: "
        "[Errno 111] Connection refused; will try again",
        f"reading mail failed {2 * Outage.EVERY + 1} times in a row: OSError: login refused; "
        "will try again",
        f"reading mail works again after {2 * Outage.EVERY + 2} failed tries",
    ]


@pytest.fixture
def down() -> Iterator[int]:
    """The port of mail servers that are down: connecting is refused (held, so that no other
    test's server can take it meanwhile)."""
    with refused_port() as port:
        yield port


def _said(server: subprocess.Popen[str], *waited: str) -> list[str]:
    """The lines `server` logs until it has said each of `waited` (in any order): what the
    test waits for, however long a loaded machine takes to get there."""
    assert server.stderr is not None
    lines: list[str] = []
    while not all(any(w in line for line in lines) for w in waited):
        assert server.poll() is None, "".join(lines)
        lines.append(server.stderr.readline())
    return lines


def test_serve_with_the_mailbox_down_logs_it_once_and_keeps_running(
    tmp_path: Path, down: int
) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        mail="imap",
        from_address="tongiaki@example.test",
        poll_seconds=0.05,
        outbox_seconds=0.05,
        imap=ImapSettings(host="127.0.0.1", port=down, tls="none", user="tongiaki"),
        smtp=SmtpSettings(host="127.0.0.1", port=down, tls="none"),
    )
    config = tmp_path / "down.toml"
    config.write_text(settings_toml(settings))
    command = [str(Path(sys.executable).parent / "pbem"), "serve", "--config", str(config)]
    server = subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    # SIGTERM before "serving:" would stop it uncleanly; its first poll failed when it says so
    started = _said(server, "serving:", "reading mail failed")
    time.sleep(0.5)  # more polls fail (some 10 on a quiet machine, fewer on a loaded one)
    server.send_signal(signal.SIGTERM)
    _, rest = server.communicate(timeout=600)
    log = "".join(started) + rest
    assert server.returncode == 0, log
    assert (
        f"INFO serving: {settings.database_path}; replies from IMAP 127.0.0.1:{down} (none, "
        f"user tongiaki, folder INBOX), mail out by SMTP 127.0.0.1:{down} (none); polling "
        "every 0.05 s, sending every 0.05 s; as tongiaki@example.test"
    ) in log
    assert log.count("reading mail failed") == 1, log
    assert "Traceback" not in log
    assert log.rstrip().endswith("INFO stopped")


def test_serve_refused_by_the_imap_server_says_why_once_in_its_words(
    tmp_path: Path, mail: Mail
) -> None:
    settings = replace(mail_settings(mail, tmp_path / "data"), poll_seconds=0.05)
    config = tmp_path / "refused.toml"
    config.write_text(settings_toml(replace(settings, imap=replace(settings.imap, password=""))))
    wrong = "not-the-password"
    env = {**os.environ, "PBEM_IMAP_PASSWORD": wrong, "PBEM_SMTP_PASSWORD": mail.password}
    command = [str(Path(sys.executable).parent / "pbem"), "serve", "--config", str(config)]
    server = subprocess.Popen(command, cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    started = _said(server, "serving:", "reading mail failed", "with IDLE failed")
    time.sleep(0.5)  # more polls and IDLE sessions are refused (fewer on a loaded machine)
    server.send_signal(signal.SIGTERM)
    _, rest = server.communicate(timeout=600)
    log = "".join(started) + rest
    assert server.returncode == 0, log
    refused = "LoginError: [AUTHENTICATIONFAILED] Authentication failed.; will try again"
    assert log.count(f"reading mail failed: {refused}") == 1, log
    assert log.count(f"waiting for mail with IDLE failed: {refused}") == 1, log
    assert "Traceback" not in log and wrong not in log and "imapclient" not in log
    assert log.rstrip().endswith("INFO stopped")


def test_poll_with_the_mail_servers_down_still_keeps_the_deadlines(
    tmp_path: Path, down: int
) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        mail="imap",
        from_address="tongiaki@example.test",
        imap=ImapSettings(host="127.0.0.1", port=down, tls="none", user="tongiaki"),
        smtp=SmtpSettings(host="127.0.0.1", port=down, tls="none"),
    )
    config = tmp_path / "down.toml"
    config.write_text(settings_toml(settings))
    new_game = ["new-game", "--player", f"Ann:{ANN}", "--player", f"Bob:{BOB}"]
    _cli(*new_game, "--deadline", "1h", "--now", START.isoformat(), "--config", str(config))
    at = (START + timedelta(hours=2)).isoformat()
    result = runner.invoke(app, ["poll", "--now", at, "--config", str(config)])
    assert result.exit_code == 1
    assert "handled 0 messages, 0 reminders, 1 automatic moves" in result.output
    assert "error: the mailbox could not be read: ConnectionRefusedError" in result.output
    engine = open_database(settings.database_path)
    with session(engine) as db:
        assert [(m.choice, m.source) for m in db.exec(select(Move))] == [("place Tonga a", "auto")]


def test_a_poll_that_mail_never_lets_end_still_keeps_the_deadlines(service: Service) -> None:
    """`pbem serve`'s poll reads until a cycle finds nothing; a stranger's mail arriving at
    every cycle must not keep the deadlines from running (they run once `poll_seconds`
    passed, not only in a poll's first cycle)."""
    service.settings = replace(service.settings, poll_seconds=60.0)
    service.new_game(
        [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")],
        seed=4,
        deadline_seconds=2 * 3600,  # the automatic move at 2 h, some 30 cycles in
        now=START,
    )
    inbox = maildir(service.settings.inbox_dir)
    minutes = itertools.count()  # a minute passes at every look at the clock
    serving = Serving(service, clock=lambda: START + timedelta(minutes=next(minutes)))
    loop_of_test: list[asyncio.AbstractEventLoop] = []
    cycles = 0

    def flooded(ticking: bool = True) -> tuple[int, int]:
        nonlocal cycles
        cycles += 1
        inbox.add(f"From: x{cycles}@stranger.test\nTo: tongiaki@example.test\n\nhello\n")
        if cycles == 40:  # the mail never stops: the test ends the poll
            loop_of_test[0].call_soon_threadsafe(serving.stop.set)
        return Serving.read_and_tick(serving, ticking)

    serving.read_and_tick = flooded  # type: ignore[method-assign]

    async def poll() -> None:
        loop_of_test.append(asyncio.get_running_loop())
        await serving.poll()

    asyncio.run(poll())
    assert cycles == 40
    with session(service.engine) as db:
        moves = [(m.choice, m.source) for m in db.exec(select(Move))]
    assert moves == [("place Tonga a", "auto")], "the deadline made the automatic move"


def test_serve_lets_the_collector_look_at_new_objects_less_often(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pbem serve` (a long-running process, where a reply makes thousands of objects) runs
    with the young generation's threshold raised from Python's default, the older
    generations' as they were."""
    seen: list[tuple[int, ...]] = []

    async def served(self: Serving) -> None:
        seen.append(gc.get_threshold())

    suite = gc.get_threshold()  # tests/conftest.py's own
    monkeypatch.setattr(Serving, "run", served)
    gc.set_threshold(700, 10, 10)  # Python's default
    try:
        serve(service, lambda: START)
    finally:
        gc.set_threshold(*suite)
    assert seen == [(YOUNG_COLLECTED_AFTER, 10, 10)]
    assert YOUNG_COLLECTED_AFTER > 700
