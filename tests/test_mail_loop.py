"""Games played through real mail servers: Dovecot (IMAP) and aiosmtpd (SMTP) on loopback.

Every human seat is a test client that reads its prompts over IMAP and answers over SMTP.
"""

from __future__ import annotations

import contextlib
import imaplib
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from email.message import EmailMessage
from email.utils import parseaddr
from pathlib import Path

import pytest
from sqlmodel import col, select

from engine import State
from pbem.core.config import settings_toml
from pbem.flow.service import SeatSpec, Service
from pbem.host.runner import run_cycle
from pbem.store.db import open_database, session
from pbem.store.models import Game, GmAction, Inbound, Move, Outbox
from tests.support.localmail import (
    START,
    handled,
    killed_mid_batch,
    later,
    option_count,
    reply_to,
    text_of,
)
from tests.support.mailservers import SERVICE, Mail, _fetch_new, _select, address, mail_settings


class Player:
    """A player's mail client: one IMAP session, new mail by UID."""

    def __init__(self, mail: Mail, user: str, stack: contextlib.ExitStack) -> None:
        self.mail = mail
        self.user = user
        self.client: imaplib.IMAP4 = stack.enter_context(mail.dovecot.session(user))
        _select(self.client, "INBOX")
        self.seen: set[bytes] = set()

    def new_mail(self) -> list[EmailMessage]:
        self.client.noop()
        from tests.support.mailservers import parse

        return [parse(raw) for _, raw in _fetch_new(self.client, self.seen)]

    def answer(self, prompt: EmailMessage, text: str) -> None:
        target = parseaddr(str(prompt["Reply-To"]))[1]
        self.mail.send(address(self.user), [target], reply_to(prompt, text))


def _options(prompt: EmailMessage) -> int:
    return option_count(prompt)


@pytest.fixture
def players(mail: Mail) -> Iterator[dict[str, Player]]:
    with contextlib.ExitStack() as stack:
        yield {f"p{i}": Player(mail, f"p{i}", stack) for i in range(1, 7)}


def _new_game(service: Service, count: int, seed: int) -> int:
    """A game of `count` players at the simulated START; its deadlines are far off, so that
    `pbem serve` on the real clock never reaches one."""
    seats = [SeatSpec(f"P{i}", address(f"p{i}")) for i in range(1, count + 1)]
    return service.new_game(seats, seed=seed, deadline_seconds=3650 * 86400, now=START)


def _moves(service: Service) -> list[str]:
    with session(service.engine) as db:
        return [m.choice for m in db.exec(select(Move).order_by(col(Move.number)))]


def _play_to_the_end(
    mail: Mail, service: Service, players: dict[str, Player], count: int, seed: int
) -> None:
    rng = random.Random(seed)
    seated = [players[f"p{i}"] for i in range(1, count + 1)]
    finished: set[str] = set()
    minute = 0
    while len(finished) < count:
        minute += 1
        assert minute < 1500, "the game did not end"
        run_cycle(service, later(minute))
        prompts = []
        for player in seated:
            for message in player.new_mail():
                subject = str(message["Subject"])
                if "Your move" in subject:
                    prompts.append((player, message))
                if "Game over" in subject:
                    finished.add(player.user)
        if len(finished) == count:
            break
        assert len(prompts) == 1, [str(m["Subject"]) for _, m in prompts]
        player, prompt = prompts[0]
        player.answer(prompt, str(rng.randint(1, _options(prompt))))


@pytest.mark.parametrize(
    ("count", "seed"),
    [pytest.param(3, 21, marks=pytest.mark.slow), pytest.param(5, 8, marks=pytest.mark.slow)],
)
def test_a_whole_game_by_mail_through_real_servers(
    mail: Mail, players: dict[str, Player], tmp_path: Path, count: int, seed: int
) -> None:
    service = Service(open_database(tmp_path / "pbem.sqlite"), mail_settings(mail, tmp_path))
    game = _new_game(service, count, seed)
    _play_to_the_end(mail, service, players, count, seed)
    with session(service.engine) as db:
        table = service.table(db, game, START)
        row, state = table.game, table.state
        assert row.status == "over" and state.decision is None
        assert State.replay(state.setup, state.log) == state
        inbound = list(db.exec(select(Inbound)))
        assert {i.outcome for i in inbound} == {"applied"}
        assert len(inbound) == len(state.log)
        assert list(db.exec(select(Outbox))) == []
    accepted = mail.smtp.accepted
    ids = [a.message["Message-ID"] for a in accepted]
    assert len(ids) == len(set(ids)), "a mail was sent twice"
    assert all(a.tls and a.login == "tongiaki" for a in accepted if a.mail_from == SERVICE)


@pytest.fixture
def game(mail: Mail, players: dict[str, Player], tmp_path: Path) -> Iterator[Service]:
    """A three-player game by mail whose first prompt (to p1) is waiting in p1's inbox."""
    service = Service(open_database(tmp_path / "pbem.sqlite"), mail_settings(mail, tmp_path))
    _new_game(service, 3, seed=4)
    run_cycle(service, later(0))
    yield service


def _prompt(player: Player) -> EmailMessage:
    prompts = [m for m in player.new_mail() if "Your move" in str(m["Subject"])]
    assert prompts, f"no prompt for {player.user}"
    return prompts[-1]


def _sent_since(mail: Mail, count: int) -> list[tuple[str, str]]:
    """(recipient, subject) of every mail the service sent since `count` were accepted."""
    return [
        (a.rcpt_tos[0], str(a.message["Subject"]))
        for a in mail.smtp.accepted[count:]
        if a.message["X-Tongiaki-Game"] is not None
    ]


def test_refusals_through_real_servers(
    mail: Mail, players: dict[str, Player], game: Service
) -> None:
    prompt = _prompt(players["p1"])
    target = parseaddr(str(prompt["Reply-To"]))[1]
    before = len(mail.smtp.accepted)

    # wrong sender: p2 sends p1's reply; p1 is told (once a day), p2 is not, nothing moves
    mail.send(address("p2"), [target], reply_to(prompt, "1", sender=address("p2")))
    # a wrong token, from the right sender: logged, not answered
    forged_target = re.sub(r"-[a-z2-7]{10}@", "-aaaaaaaaaa@", target)
    mail.send(address("p1"), [forged_target], reply_to(prompt, "1"))
    # an auto-reply, and a mail claiming to come from the service itself (a loop)
    mail.send(address("p1"), [target], reply_to(prompt, "I am away", Auto_Submitted="auto-replied"))
    mail.send(SERVICE, [target], reply_to(prompt, "1", sender=SERVICE), login="tongiaki")
    # garbage from the right sender
    mail.send(address("p1"), [target], reply_to(prompt, "Let us play!"))
    report = run_cycle(game, later(1))
    assert report.handled == 5
    assert _moves(game) == []
    sent = _sent_since(mail, before)  # recipients are served in parallel: compare per recipient
    to_p1 = [subject.split("] ")[1] for to, subject in sent if to == address("p1")]
    to_p2 = [subject.split("] ")[1] for to, subject in sent if to == address("p2")]
    assert to_p2 == []
    # the refused line comes back in a prompt: the decision is p1's
    assert sorted(to_p1) == [
        "Not applied: a reply from another address",
        "Your move: place a set-up boat on Tonga (decision 1); a line of your reply was not "
        "applied",
    ]
    assert len(sent) == 2
    garbage = [m for m in players["p1"].new_mail() if "Let us play" in text_of(m)]
    assert garbage and "'let' is not a command" in text_of(garbage[0])
    assert "  1) place Tonga a" in text_of(garbage[0])
    with session(game.engine) as db:
        outcomes = [i.outcome for i in db.exec(select(Inbound).order_by(col(Inbound.id)))]
    assert outcomes == ["refused", "refused", "ignored", "ignored", "rejected"]


def test_a_stale_decision_is_refused_with_the_current_options(
    mail: Mail, players: dict[str, Player], game: Service
) -> None:
    first = _prompt(players["p1"])
    players["p1"].answer(first, "1")
    run_cycle(game, later(1))
    players["p1"].answer(first, "2")
    run_cycle(game, later(2))
    assert _moves(game) == ["place Tonga a"]
    answer = [m for m in players["p1"].new_mail() if "which is past" in text_of(m)]
    assert len(answer) == 1 and "Now waiting for P2" in text_of(answer[0])


def test_an_html_only_reply_is_read(mail: Mail, players: dict[str, Player], game: Service) -> None:
    prompt = _prompt(players["p1"])
    reply = EmailMessage()
    reply["From"] = address("p1")
    reply["To"] = str(prompt["Reply-To"])
    reply["Subject"] = "Re: " + str(prompt["Subject"])
    reply.set_content(
        '<html><body><div dir="ltr">place tonga c</div><div class="gmail_quote">'
        '<div class="gmail_attr">On Mon, Nov 23, 2026 at 9:00 AM Tongiaki '
        "&lt;tongiaki@example.test&gt; wrote:</div><blockquote>1) place Tonga a</blockquote>"
        "</div></body></html>",
        subtype="html",
    )
    mail.send(address("p1"), [parseaddr(str(prompt["Reply-To"]))[1]], reply)
    run_cycle(game, later(1))
    assert _moves(game) == ["place Tonga c"]


def test_mail_waits_while_smtp_is_down_and_goes_out_once_when_it_is_back(
    mail: Mail, players: dict[str, Player], game: Service
) -> None:
    prompt = _prompt(players["p1"])
    mail.smtp.stop()
    reply = reply_to(prompt, "1")
    mail.dovecot.append("tongiaki", reply)  # delivered by the provider while our SMTP is down
    before = len(mail.smtp.accepted)
    report = run_cycle(game, later(1))
    assert (report.handled, report.sent) == (1, 0) and report.failed >= 1
    assert _moves(game) == ["place Tonga a"]
    with session(game.engine) as db:
        waiting = list(db.exec(select(Outbox)))
    assert len(waiting) == 3  # what happened, to each of the three players
    assert all("SMTPConnectError" in w.last_error for w in waiting if w.attempts)
    assert all(w.next_attempt_at > later(1) for w in waiting)
    assert run_cycle(game, later(1)).sent == 0  # still backing off
    mail.smtp.start()
    report = run_cycle(game, later(5))
    assert report.sent == 3
    sent = sorted(to for to, _ in _sent_since(mail, before))
    assert sent == [address("p1"), address("p2"), address("p3")]
    assert run_cycle(game, later(10)).sent == 0
    with session(game.engine) as db:
        assert list(db.exec(select(Outbox))) == []


class Killed(BaseException):
    """The process dies: nothing after this point runs."""


def test_a_mail_sent_again_after_a_crash_keeps_its_message_id(
    mail: Mail, players: dict[str, Player], game: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed after the SMTP server accepted a mail but before it left the outbox, the
    service sends it again at the next start: the same bytes, so the same Message-ID, and
    the players' servers and clients drop the copy."""
    prompt = _prompt(players["p1"])
    mail.dovecot.append("tongiaki", reply_to(prompt, "1"))
    before = len(mail.smtp.accepted)

    def killed(*_: object) -> None:
        raise Killed

    with monkeypatch.context() as patch:
        patch.setattr("pbem.host.runner._delete", killed)
        with pytest.raises(Killed):
            run_cycle(game, later(1))
    first = mail.smtp.accepted[before:]
    assert first, "the server accepted mail before the kill"
    run_cycle(game, later(2))  # the next start: every waiting mail goes out
    again = mail.smtp.accepted[before + len(first) :]
    ids = [a.message["Message-ID"] for a in first]
    copies = [a for a in again if a.message["Message-ID"] in ids]
    assert copies, "the mail accepted before the kill was sent again"
    for copy in copies:
        original = next(a for a in first if a.message["Message-ID"] == copy.message["Message-ID"])
        assert copy.content == original.content
    with session(game.engine) as db:
        assert list(db.exec(select(Outbox))) == []


def test_serve_killed_mid_poll_loses_and_repeats_nothing(
    mail: Mail, players: dict[str, Player], tmp_path: Path
) -> None:
    # forty answers to one player: more than the answer budget, which is not what this tests
    settings = replace(mail_settings(mail, tmp_path / "data"), answers_per_day=100, inbound_batch=5)
    service = Service(open_database(settings.database_path), settings)
    _new_game(service, 2, seed=3)
    run_cycle(service, later(0))
    prompt = _prompt(players["p1"])
    before = len(mail.smtp.accepted)
    mail.smtp.stop()  # nothing is accepted while the first process may be killed
    count = 40
    for n in range(count):  # forty different replies: the same one again would be a replay
        lines = ["status" if n % 2 else "board"] * (n // 2 + 1)
        mail.dovecot.append("tongiaki", reply_to(prompt, "\n".join(lines)))
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(replace(settings, poll_seconds=0.2, outbox_seconds=0.2)))
    env = {**os.environ, "PBEM_IMAP_PASSWORD": mail.password, "PBEM_SMTP_PASSWORD": mail.password}
    command = [str(Path(sys.executable).parent / "pbem"), "serve", "--config", str(config)]

    database = settings.database_path
    killed_at = killed_mid_batch(command, database, env)
    assert 0 < killed_at < count, "the kill did not land in the middle of the poll"

    mail.smtp.start()
    second = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with session(service.engine) as db:
                waiting = len(list(db.exec(select(Outbox))))
            if handled(database) == count and waiting == 0:
                break
            time.sleep(0.1)
    finally:
        second.send_signal(signal.SIGTERM)
        assert second.wait(20) == 0  # a clean stop on SIGTERM
    assert handled(database) == count
    answers = [a for a in mail.smtp.accepted[before:] if a.mail_from == SERVICE]
    assert {a.rcpt_tos for a in answers} == {(address("p1"),)}
    assert len(answers) == count
    assert len({a.message["Message-ID"] for a in answers}) == count
    with session(service.engine) as db:
        assert {i.outcome for i in db.exec(select(Inbound))} == {"answered"}


def test_implicit_tls_for_imap_and_smtp(
    mail: Mail, players: dict[str, Player], tmp_path: Path
) -> None:
    settings = mail_settings(mail, tmp_path)
    settings = replace(
        settings,
        imap=replace(settings.imap, port=mail.dovecot.tls_port, tls="tls"),
        smtp=replace(settings.smtp, port=mail.smtp.tls_port, tls="tls"),
    )
    service = Service(open_database(tmp_path / "pbem.sqlite"), settings)
    _new_game(service, 2, seed=1)
    assert run_cycle(service, later(0)).sent == 3
    players["p1"].answer(_prompt(players["p1"]), "4")
    report = run_cycle(service, later(1))
    assert (report.handled, report.sent, report.failed) == (1, 2, 0)
    assert _moves(service) == ["place Tonga d"]
    assert all(a.tls for a in mail.smtp.accepted if a.mail_from == SERVICE)


def test_the_game_master_by_mail_through_real_servers(
    mail: Mail, players: dict[str, Player], tmp_path: Path
) -> None:
    service = Service(open_database(tmp_path / "pbem.sqlite"), mail_settings(mail, tmp_path))
    seats = [SeatSpec("P1", address("p1")), SeatSpec("P2", address("p2"))]
    service.new_game(seats, seed=6, deadline_seconds=24 * 3600, gm=address("gm"), now=START)
    run_cycle(service, later(0))
    with contextlib.ExitStack() as stack:
        gm = Player(mail, "gm", stack)
        welcome = gm.new_mail()
        assert [str(m["Subject"]) for m in welcome] == [
            "[Tongiaki g1] You are the game master of game 1"
        ]
        target = parseaddr(str(welcome[0]["Reply-To"]))[1]
        assert re.fullmatch(r"tongiaki\+g1-gm-1-[a-z2-7]{10}@example\.test", target)
        players["p1"].new_mail()
        players["p2"].new_mail()

        # a player using the game master's reply address, and a forged token: refused
        mail.send(address("p1"), [target], reply_to(welcome[0], "end", sender=address("p1")))
        forged = re.sub(r"-[a-z2-7]{10}@", "-aaaaaaaaaa@", target)
        mail.send(address("gm"), [forged], reply_to(welcome[0], "end"))
        assert run_cycle(service, later(1)).handled == 2
        with session(service.engine) as db:
            row = db.get(Game, 1)
            assert row is not None and row.status == "running"
            assert [i.outcome for i in db.exec(select(Inbound))] == ["refused", "refused"]
        assert players["p1"].new_mail() == []
        assert gm.new_mail() == []  # a forged token is logged, not answered

        # the real thing: pause, and the players are told
        gm.answer(welcome[0], "pause")
        run_cycle(service, later(2))
        done = gm.new_mail()
        assert [str(m["Subject"]) for m in done] == ["[Tongiaki g1] Done: pause"]
        assert "> pause\n  applied: paused with 23h 58m left" in text_of(done[0])
        for user in ("p1", "p2"):
            news = players[user].new_mail()
            assert len(news) == 1
            assert "The game master paused the game" in " ".join(text_of(news[0]).split())
        with session(service.engine) as db:
            row = db.get(Game, 1)
            assert row is not None and row.status == "paused"
            actions = [(a.actor, a.command) for a in db.exec(select(GmAction))]
        assert actions == [(address("gm"), "pause")]
