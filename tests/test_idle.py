"""`pbem serve` waiting for replies with IMAP IDLE (RFC 2177) on the real Dovecot, falling
back to polling on a server that does not offer it, and stopping promptly while it idles.

`serve` runs in the test's main thread (it handles SIGTERM there); a second thread plays the
player and sends SIGTERM when it is done.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import col, select

from pbem.flow.service import SeatSpec, Service
from pbem.host.runner import run_cycle, serve
from pbem.host.transport import ImapIdle
from pbem.store.db import open_database, session
from pbem.store.models import Move
from tests.support.localmail import START, later, reply_to
from tests.support.mailservers import SERVICE, Accepted, Dovecot, Mail, address, mail_settings


class DovecotWithoutIdle(Dovecot):
    """A Dovecot whose CAPABILITY after login leaves IDLE out."""

    def _config(self) -> str:
        return super()._config() + "imap_capability = IMAP4rev1 LITERAL+ UIDPLUS\n"


@pytest.fixture
def no_idle(mail: Mail) -> Iterator[Dovecot]:
    certificates = mail.dovecot.certificates
    with DovecotWithoutIdle(("tongiaki",), spare_users=0, certificates=certificates) as server:
        yield server


class Waits:
    """Every `ImapIdle` made and every IDLE wait begun and ended (with its result)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sessions: list[ImapIdle] = []
        self.begun = 0
        self.ended: list[bool] = []
        made, wait = ImapIdle.__init__, ImapIdle.wait

        def spied_init(idle: ImapIdle, *args: object) -> None:
            made(idle, *args)  # type: ignore[arg-type]
            self.sessions.append(idle)

        def spied_wait(idle: ImapIdle, seconds: float) -> bool:
            self.begun += 1
            news = wait(idle, seconds)
            self.ended.append(news)
            return news

        monkeypatch.setattr(ImapIdle, "__init__", spied_init)
        monkeypatch.setattr(ImapIdle, "wait", spied_wait)


def _game(mail: Mail, tmp_path: Path, **changes: object) -> tuple[Service, EmailMessage]:
    """A three-player game whose first prompt waits in p1's inbox."""
    settings = replace(mail_settings(mail, tmp_path), **changes)  # type: ignore[arg-type]
    service = Service(open_database(tmp_path / "pbem.sqlite"), settings)
    seats = [SeatSpec(f"P{i}", address(f"p{i}")) for i in (1, 2, 3)]
    service.new_game(seats, seed=4, deadline_seconds=3650 * 86400, now=START)
    run_cycle(service, later(0))
    prompt = mail.wait_for("p1", lambda m: "Your move" in str(m["Subject"]))
    return service, prompt


def _until(condition: Callable[[], object], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the condition did not come true in time")
        time.sleep(0.01)


def _answers(mail: Mail, before: int) -> list[Accepted]:
    return [a for a in mail.smtp.accepted[before:] if a.mail_from == SERVICE]


def _serve_while(service: Service, player: Callable[[], None]) -> float:
    """Run `serve` here while `player` runs in a thread, then SIGTERM; the seconds from the
    first SIGTERM until `serve` returned."""
    done = threading.Event()
    failures: list[BaseException] = []
    signalled: list[float] = []

    def play() -> None:
        try:
            player()
        except BaseException as error:
            failures.append(error)
        while not done.is_set():  # again if it came before serve listened for it
            signalled.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGTERM)
            done.wait(2)

    previous = signal.signal(signal.SIGTERM, lambda *_: None)
    thread = threading.Thread(target=play)
    thread.start()
    try:
        serve(service, lambda: datetime.now(UTC))
        returned = time.monotonic()
    finally:
        done.set()
        thread.join(10)
        signal.signal(signal.SIGTERM, previous)
    if failures:
        raise failures[0]
    return returned - signalled[0]


def _moves(service: Service) -> list[str]:
    with session(service.engine) as db:
        return [m.choice for m in db.exec(select(Move).order_by(col(Move.number)))]


def test_idle_answers_a_reply_long_before_the_next_poll(
    mail: Mail, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pbem.host.runner.IDLE_RENEW", 0.3)  # renewed a few times before the reply
    waits = Waits(monkeypatch)
    service, prompt = _game(mail, tmp_path, poll_seconds=600, outbox_seconds=600)
    before = len(mail.smtp.accepted)
    appended: list[float] = []

    def player() -> None:
        _until(lambda: len(waits.ended) >= 3)  # IDLE issued, ended and issued again
        mail.dovecot.append("tongiaki", reply_to(prompt, "1"))
        appended.append(time.monotonic())
        _until(lambda: _answers(mail, before))

    _serve_while(service, player)
    assert _moves(service) == ["place Tonga a"]
    delay = _answers(mail, before)[0].at - appended[0]
    assert delay < 3, f"answered {delay:.2f} s after delivery"  # the next poll: in 600 s
    assert True in waits.ended, "the IDLE session did not report the reply"
    assert len(waits.sessions) == 1, "the IDLE session was not kept"


def test_without_idle_the_service_polls(
    mail: Mail, no_idle: Dovecot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    waits = Waits(monkeypatch)
    # the service reads from the Dovecot without IDLE, and mails the players on the usual one
    settings = mail_settings(mail, tmp_path)
    imap = replace(settings.imap, port=no_idle.port)
    service, prompt = _game(mail, tmp_path, imap=imap, poll_seconds=1, outbox_seconds=600)
    before = len(mail.smtp.accepted)

    def player() -> None:
        _until(lambda: waits.sessions)  # serve has started, and seen the capabilities
        no_idle.append("tongiaki", reply_to(prompt, "1"))
        _until(lambda: _answers(mail, before))

    _serve_while(service, player)
    assert _moves(service) == ["place Tonga a"]
    assert [s.offered for s in waits.sessions] == [False]
    assert waits.begun == 0


def test_serve_stops_promptly_while_idling(
    mail: Mail, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    waits = Waits(monkeypatch)
    service, _ = _game(mail, tmp_path, poll_seconds=600, outbox_seconds=600)

    def player() -> None:
        _until(lambda: waits.begun)
        time.sleep(0.3)  # well inside the IDLE, which would last 25 minutes

    caplog.set_level("INFO", logger="pbem")
    stopped_in = _serve_while(service, player)
    assert stopped_in < 2, f"serve took {stopped_in:.2f} s to stop"
    assert waits.ended == [False]  # the wait ended with DONE, without new mail
    assert not [r for r in caplog.records if r.levelname in ("WARNING", "ERROR")]
    assert caplog.records[-1].getMessage() == "stopped"


def test_a_broken_idle_session_is_replaced_at_once(
    mail: Mail, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    waits = Waits(monkeypatch)
    service, prompt = _game(mail, tmp_path, poll_seconds=600, outbox_seconds=600)
    before = len(mail.smtp.accepted)

    def player() -> None:
        _until(lambda: waits.begun)
        time.sleep(0.2)
        waits.sessions[0].sock.shutdown(socket.SHUT_RDWR)  # the connection drops
        _until(lambda: waits.begun >= 2)  # a new session waits
        time.sleep(0.2)
        mail.dovecot.append("tongiaki", reply_to(prompt, "1"))
        _until(lambda: _answers(mail, before))

    caplog.set_level("INFO", logger="pbem")
    _serve_while(service, player)
    assert _moves(service) == ["place Tonga a"]
    assert len(waits.sessions) == 2
    assert any("waiting for mail with IDLE failed" in r.getMessage() for r in caplog.records)
    assert any("works again" in r.getMessage() for r in caplog.records)
