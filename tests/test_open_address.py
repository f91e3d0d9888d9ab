"""The service on an open address: what anyone on the internet can make it do by mail.

Each test sends mail as it comes from outside (replies, autoresponders, another service,
replays, odd text, forged senders) through `Service.handle` and checks what it came to: the
outcome, the Inbound rows, the moves, and exactly which mails were queued to whom. The
bounds of the mail loops follow from the design: an address gets at most `answers_per_day`
error answers in 24 hours, a notice of a kind in `pbem.mail_out.budget.ONCE_A_DAY` at most once
a day, and the same reply address with the same commands acts (and is answered) once.
"""

from __future__ import annotations

import email
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.policy import default as default_policy
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select
from typer.testing import CliRunner

from pbem.core.config import settings_toml
from pbem.flow.deadlines import send_held, tick
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.host.cli import app
from pbem.store.db import session
from pbem.store.models import Answered, Game, GmAction, GmTag, Inbound, Move, Outbox, Seat
from tests.support.localmail import START, local_service, parse, reply_to, take_mail, text_of

ANN, BOB, GM = "ann@example.test", "bob@example.test", "gm@example.test"
EVE = "eve@evil.test"
HOME = "ann.home@example.test"  # where Ann's mail is forwarded to
A_SERVICE, B_SERVICE = "tongiaki@a.test", "tongiaki@b.test"
MINUTE, HOUR, DAY = timedelta(minutes=1), timedelta(hours=1), timedelta(days=1)
BUDGET = 10  # the default `answers_per_day`
ROUNDS = 50

runner = CliRunner()
Sent = tuple[str, str, str]  # (To, X-Tongiaki-Kind, subject without "[Tongiaki g1] ")

# a refused line in a reply to the open decision of its sender comes back in a prompt
REFUSED = (
    ANN,
    "prompt",
    "Your move: place a set-up boat on Tonga (decision 1); a line of your reply was not applied",
)


def flat(text: str) -> str:
    return " ".join(text.split())


def _subject(mail: EmailMessage) -> str:
    return re.sub(r"^\[Tongiaki( g\d+)?\] ", "", str(mail["Subject"]))


def _sent(mails: list[EmailMessage]) -> list[Sent]:
    return [(str(m["To"]), str(m["X-Tongiaki-Kind"]), _subject(m)) for m in mails]


@dataclass
class Table:
    """Game 1 of `service`: Ann (red) and Bob (blue), seed 4, 48 h, game master GM."""

    service: Service
    first: list[EmailMessage] = field(default_factory=list)  # the mails of the new game
    latest: dict[str, EmailMessage] = field(default_factory=dict)  # the newest to each

    def mail(self) -> list[EmailMessage]:
        """The mails queued since the last look, noting the newest one to each address."""
        mails = take_mail(self.service)
        for mail in mails:
            self.latest[str(mail["To"])] = mail
        return mails

    def sent(self) -> list[Sent]:
        return _sent(self.mail())

    def handle(self, raw: bytes, at: datetime) -> str:
        """One mail read as a poll reads it: the quiet news it made goes at the poll's end."""
        outcome = handle(self.service, raw, at)
        send_held(self.service, at)
        return outcome

    def reply(self, address: str, body: str, at: datetime, **headers: str) -> str:
        """`address` answers the newest mail they got."""
        return self.handle(reply_to(self.latest[address], body, **headers), at)


def _start(tmp_path: Path, **settings: object) -> Table:
    table = Table(local_service(tmp_path, **settings))
    seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")]
    table.service.new_game(seats, seed=4, deadline_seconds=48 * 3600, gm=GM, now=START)
    table.first = table.mail()
    assert _sent(table.first) == [
        (ANN, "welcome", "Welcome to game 1"),
        (BOB, "welcome", "Welcome to game 1"),
        (ANN, "prompt", "Your move: place a set-up boat on Tonga (decision 1)"),
        (GM, "gm", "You are the game master of game 1"),
    ]
    return table


def _rows(service: Service) -> dict[str, list[dict[str, Any]]]:
    """Everything a mail may change about the games."""
    with session(service.engine) as db:
        return {
            "games": [g.model_dump() for g in db.exec(select(Game).order_by(col(Game.id)))],
            "seats": [s.model_dump() for s in db.exec(select(Seat).order_by(col(Seat.id)))],
            "moves": [m.model_dump() for m in db.exec(select(Move).order_by(col(Move.id)))],
            "actions": [a.model_dump() for a in db.exec(select(GmAction))],
        }


def _moves(service: Service) -> list[tuple[int, int, str, str]]:
    with session(service.engine) as db:
        rows = db.exec(select(Move).order_by(col(Move.game_id), col(Move.number)))
        return [(m.number, m.seat, m.choice, m.source) for m in rows]


def _inbound(service: Service) -> list[tuple[str, str]]:
    with session(service.engine) as db:
        return [(i.outcome, i.detail) for i in db.exec(select(Inbound).order_by(col(Inbound.id)))]


def _seat(service: Service, seat: int) -> Seat:
    with session(service.engine) as db:
        row = db.exec(select(Seat).where(Seat.game_id == 1, Seat.seat == seat)).one()
        return row


def _take_raw(service: Service) -> list[tuple[str, bytes]]:
    """Every queued mail as (recipient, the bytes that would be sent), oldest first."""
    with session(service.engine) as db:
        rows = list(db.exec(select(Outbox).order_by(col(Outbox.id))))
        for row in rows:
            db.delete(row)
        db.commit()
    return [(row.recipient, row.message) for row in rows]


def _untagged(sender: str, body: str, to: str = "tongiaki@example.test") -> bytes:
    """A mail to the service's own address, with no game tag in its address or subject."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = "Tongiaki?"
    message["Message-ID"] = make_msgid("untagged", domain="example.test")
    message.set_content(body + "\n")
    return bytes(message)


# -- 1. the answer budget ---------------------------------------------------------------------


def test_a_player_gets_ten_error_answers_a_day_and_a_move_is_always_answered(
    tmp_path: Path,
) -> None:
    table = _start(tmp_path)
    prompt = table.latest[ANN]
    before = _rows(table.service)
    told = []
    texts = []
    for n in range(1, 16):
        outcome = table.handle(reply_to(prompt, f"hello {n}"), START + n * MINUTE)
        assert outcome == "rejected"
        mails = table.mail()
        told.append(_sent(mails))
        texts += [flat(text_of(m)) for m in mails]
    assert told[:BUDGET] == [[REFUSED]] * BUDGET
    # the answer that spends the budget says so (a player whose refused move met silence
    # would wait for the deadline); the answers before it do not
    last = (
        "This is the last answer to a reply that moves nothing (a refused line, help, status "
        "...) that you get before Tue 24 Nov 2026, 09:01 UTC: until then such replies get no "
        "answer, so that no autoresponder can make the game mail without end. A move you make "
        "is still applied, and everyone is mailed the news."
    )
    assert [last in text for text in texts] == [False] * (BUDGET - 1) + [True]
    assert told[BUDGET:] == [[]] * 5
    assert _rows(table.service) == before
    inbound = _inbound(table.service)
    assert [outcome for outcome, _ in inbound] == ["rejected"] * 15
    assert inbound[0][1].startswith("hello 1 -> rejected ('hello' is not a command.")
    assert all("answer budget" not in detail for _, detail in inbound[:BUDGET])
    assert all(
        detail.endswith("; not answered (answer budget spent)") for _, detail in inbound[BUDGET:]
    )
    with session(table.service.engine) as db:
        counted = [(a.address, a.kind) for a in db.exec(select(Answered))]
    assert counted == [(ANN, "error")] * BUDGET

    # a reply that moves the game is answered and announced, budget or not
    assert table.handle(reply_to(prompt, "place Tonga a"), START + 20 * MINUTE) == "applied"
    assert table.sent() == [
        (ANN, "update", "Waiting for Bob (blue)"),
        (BOB, "prompt", "Your move: place a set-up boat on Tonga (decision 2)"),
    ]
    assert _moves(table.service) == [(1, 0, "place Tonga a", "mail")]
    assert table.reply(ANN, "hello again", START + 21 * MINUTE) == "rejected"
    assert table.sent() == []

    # 24 hours after the last answer, answers come again
    assert table.reply(ANN, "hello tomorrow", START + DAY + 11 * MINUTE) == "rejected"
    assert table.sent() == [(ANN, "error", "Not applied: see why")]
    assert _moves(table.service) == [(1, 0, "place Tonga a", "mail")]


def test_a_game_masters_refused_commands_count_against_their_budget(tmp_path: Path) -> None:
    table = _start(tmp_path)
    before = _rows(table.service)
    told = []
    for n in range(1, 13):  # each to the newest mail the game master got
        assert table.reply(GM, f"frobnicate {n}", START + n * MINUTE) == "rejected"
        told.append(table.sent())
    assert told[:BUDGET] == [[(GM, "gm", "Not applied: frobnicate")]] * BUDGET
    assert told[BUDGET:] == [[], []]
    assert _rows(table.service) == before
    assert [outcome for outcome, _ in _inbound(table.service)] == ["rejected"] * 12
    with session(table.service.engine) as db:
        assert [(a.address, a.kind) for a in db.exec(select(Answered))] == [(GM, "error")] * 10

    # a command that acts is done and told, budget or not
    assert table.reply(GM, "extend 1d", START + HOUR) == "applied"
    sent = table.sent()  # the game master's answer, then the quiet change at the poll's end
    assert sent[0] == (GM, "gm", "Done: extend")
    news = [(ANN, "update", "News of game 1"), (BOB, "update", "News of game 1")]
    assert sorted(sent[1:]) == news
    assert _moves(table.service) == []


# -- 2. mail without a game tag ---------------------------------------------------------------


def test_untagged_mail_gets_one_notice_a_day_listing_the_senders_games(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    for seed in (4, 5, 6):
        seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")]
        service.new_game(seats, seed=seed, deadline_seconds=48 * 3600, now=START)
    take_mail(service)
    before = _rows(service)

    assert handle(service, _untagged(ANN, "place Tonga a"), START + HOUR) == "refused"
    mails = take_mail(service)
    assert _sent(mails) == [(ANN, "notice", "Not applied: which game?")]
    assert mails[0]["Reply-To"] is None and mails[0]["Auto-Submitted"] == "auto-generated"
    text = flat(text_of(mails[0]))
    for game in (1, 2, 3):
        assert f"Game {game}: you are Ann (red); it is at decision 1." in text
    assert "sent at most once a day" in text

    assert handle(service, _untagged(ANN, "place Tonga b"), START + 2 * HOUR) == "refused"
    assert handle(service, _untagged(EVE, "place Tonga a"), START + 3 * HOUR) == "refused"
    assert take_mail(service) == []
    assert _inbound(service) == [("refused", "no game tag")] * 3
    assert _rows(service) == before
    with session(service.engine) as db:
        assert [(a.address, a.kind) for a in db.exec(select(Answered))] == [(ANN, "untagged")]

    assert handle(service, _untagged(ANN, "hello"), START + DAY + 2 * HOUR) == "refused"
    assert _sent(take_mail(service)) == [(ANN, "notice", "Not applied: which game?")]


def test_untagged_mail_from_an_address_with_capitals_gets_its_notice(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    seats = [SeatSpec("Ann", "Ann.Smith@example.test", "red"), SeatSpec("Bob", BOB, "blue")]
    service.new_game(seats, seed=4, deadline_seconds=48 * 3600, now=START)
    take_mail(service)
    assert handle(service, _untagged("Ann.Smith@example.test", "1"), START + HOUR) == "refused"
    assert _sent(take_mail(service)) == [
        ("Ann.Smith@example.test", "notice", "Not applied: which game?")
    ]


# -- 3. an autoresponder that ignores Auto-Submitted ------------------------------------------


def _out_of_office(mail: EmailMessage, answers: str, text: str) -> bytes:
    """What a careless autoresponder sends back: to the Reply-To (or From), new Message-ID,
    no Auto-Submitted, no X-Tongiaki headers, no quote; `forwarded`: from the address the
    player's mail is forwarded to."""
    message = EmailMessage()
    message["From"] = HOME if answers == "forwarded" else str(mail["To"])
    target = mail["Reply-To"] if answers != "from" and mail["Reply-To"] else mail["From"]
    message["To"] = str(target)
    message["Subject"] = "Out of office: " + str(mail["Subject"])
    message["In-Reply-To"] = str(mail["Message-ID"])
    message["Message-ID"] = make_msgid("ooo", domain="example.test")
    message.set_content(text + "\n")
    return bytes(message)


@pytest.mark.parametrize(
    ("answers", "counter", "expected"),
    [
        # the same tag and text again is a replay: the first reply alone is answered
        ("reply-to", False, [REFUSED]),
        # no tag: one notice a day, and a notice has no tag either
        ("from", False, [(ANN, "notice", "Not applied: which game?")]),
        # a new text each time: answered until the budget is spent
        ("reply-to", True, [REFUSED] * BUDGET),
        ("from", True, [(ANN, "notice", "Not applied: which game?")]),
        # from another address: the seat's own address hears of it once a day
        ("forwarded", True, [(ANN, "notice", "Not applied: a reply from another address")]),
    ],
)
def test_an_autoresponder_that_ignores_auto_submitted_gets_a_bounded_number_of_mails(
    tmp_path: Path, answers: str, counter: bool, expected: list[Sent]
) -> None:
    table = _start(tmp_path)
    before = _rows(table.service)
    waiting = [m for m in table.first if m["To"] == ANN]  # its welcome and its prompt
    received: list[Sent] = []
    count = 0
    for round_ in range(1, ROUNDS + 1):  # half an hour apart: over a day, the budget renews
        at = START + round_ * 30 * MINUTE
        for mail in waiting:
            count += 1
            text = "I am out of the office until Monday" + (f" (note {count})" if counter else "")
            outcome = table.handle(_out_of_office(mail, answers, text), at)
            assert outcome in ("rejected", "refused", "ignored")
        mails = table.mail()
        assert {m["To"] for m in mails} <= {ANN}  # nobody else hears of it
        waiting = [m for m in mails if m["To"] == ANN]
        received += _sent(waiting)
    assert received == expected
    assert len(received) <= BUDGET  # the bound: answers_per_day, and the loop dies with it
    assert _rows(table.service) == before
    assert _moves(table.service) == []
    inbound = _inbound(table.service)
    if answers == "reply-to" and not counter:
        assert [o for o, _ in inbound] == ["rejected", "ignored", "ignored"]
        assert inbound[1][1] == "a replay of message 1: the same reply address and commands"
    elif answers == "reply-to":
        assert [o for o, _ in inbound] == ["rejected"] * (BUDGET + 2)
    elif answers == "forwarded":
        assert [o for o, _ in inbound] == ["refused"] * 3
        assert inbound[0][1] == "sender is not the address of seat 1 (Ann, red)"
        assert inbound[2][1] == "no game tag"  # the answer to the notice: a stranger's
    else:
        assert inbound == [("refused", "no game tag")] * 3


# -- 4. two services answering each other -----------------------------------------------------


def _relay(how: str) -> Callable[[bytes], bytes]:
    """A mail hop between the services: `as-is`; `no-auto-submitted` drops Auto-Submitted;
    `stripped` drops Auto-Submitted and every X-Tongiaki-* header."""

    def relay(raw: bytes) -> bytes:
        if how == "as-is":
            return raw
        message = email.message_from_bytes(raw, policy=default_policy)
        for name in {k for k in message if k.lower() == "auto-submitted"}:
            del message[name]
        if how == "stripped":
            for name in {k for k in message if k.lower().startswith("x-tongiaki-")}:
                del message[name]
        return bytes(message)

    return relay


NOTICE = "Not applied: which game?"


@pytest.mark.parametrize(
    ("how", "why", "notices"),
    [
        ("as-is", "Auto-Submitted: auto-generated", []),
        ("no-auto-submitted", "sent by a Tongiaki service (X-Tongiaki-Kind)", []),
        # untagged mail from a seat's address: one notice a day each way (ONCE_A_DAY), and a
        # notice carries no tag to answer: so at most 2 a day, and here the loop ends after them
        ("stripped", "no game tag", [(B_SERVICE, "notice", NOTICE), (A_SERVICE, "notice", NOTICE)]),
    ],
)
def test_two_services_that_answer_each_other_stop(
    tmp_path: Path, how: str, why: str, notices: list[Sent]
) -> None:
    a = local_service(tmp_path / "a", from_address=A_SERVICE)
    b = local_service(tmp_path / "b", from_address=B_SERVICE)
    # in A, B's address has the second seat (a welcome); in B, A's has the first (a prompt too)
    a.new_game([SeatSpec("Ann", ANN, "red"), SeatSpec("Bee", B_SERVICE, "blue")], now=START)
    b.new_game([SeatSpec("Ace", A_SERVICE, "red"), SeatSpec("Bob", BOB, "blue")], now=START)
    relay = _relay(how)
    outbox_a, outbox_b = _take_raw(a), _take_raw(b)
    assert [to for to, _ in outbox_a] == [ANN, B_SERVICE, ANN]
    assert [to for to, _ in outbox_b] == [A_SERVICE, BOB, A_SERVICE]
    to_b = [raw for to, raw in outbox_a if to == B_SERVICE]
    to_a = [raw for to, raw in outbox_b if to == A_SERVICE]
    exchanged: list[Sent] = []
    for round_ in range(1, ROUNDS + 1):
        at = START + round_ * 30 * MINUTE
        for raw in to_b:
            assert handle(b, relay(raw), at) in ("ignored", "refused")
        for raw in to_a:
            assert handle(a, relay(raw), at) in ("ignored", "refused")
        outbox_a, outbox_b = _take_raw(a), _take_raw(b)
        assert all(to == B_SERVICE for to, _ in outbox_a)  # the players hear nothing of it
        assert all(to == A_SERVICE for to, _ in outbox_b)
        to_b = [raw for _, raw in outbox_a]
        to_a = [raw for _, raw in outbox_b]
        exchanged += _sent([parse(raw) for raw in to_b + to_a])
    assert exchanged == notices
    assert len(exchanged) <= 2  # the bound
    inbound_a, inbound_b = _inbound(a), _inbound(b)
    assert inbound_a[0][1] == why and inbound_b[0][1] == why
    assert len(inbound_a) == 2 + len(notices) // 2 and len(inbound_b) == 1 + len(notices) // 2
    assert _moves(a) == [] and _moves(b) == []


# -- 5. replays -------------------------------------------------------------------------------


def test_a_reply_sent_again_with_a_new_message_id_changes_nothing_and_is_not_answered(
    tmp_path: Path,
) -> None:
    table = _start(tmp_path)
    prompt = table.latest[ANN]
    first = reply_to(prompt, "place Tonga a")
    assert table.handle(first, START + MINUTE) == "applied"
    assert len(table.mail()) == 2
    after = _rows(table.service)
    for n, body in enumerate(["place Tonga a", "Place  TONGA a"], start=2):
        again = reply_to(prompt, body)
        assert parse(again)["Message-ID"] != parse(first)["Message-ID"]
        assert table.handle(again, START + n * MINUTE) == "ignored"
        assert table.sent() == []
        assert _rows(table.service) == after
    assert (
        _inbound(table.service)[1:]
        == [("ignored", "a replay of message 1: the same reply address and commands")] * 2
    )
    assert _moves(table.service) == [(1, 0, "place Tonga a", "mail")]


def test_a_vacation_replayed_does_not_spend_the_allowance_twice(tmp_path: Path) -> None:
    table = _start(tmp_path)
    prompt = table.latest[ANN]
    assert table.handle(reply_to(prompt, "vacation 1d"), START + MINUTE) == "applied"
    assert [to for to, _, _ in table.sent()] == [ANN]  # the others, once it was on an hour
    seat = _seat(table.service, 0)
    assert seat.vacation_used == 86400
    after = _rows(table.service)
    assert table.handle(reply_to(prompt, "vacation 1d"), START + 2 * MINUTE) == "ignored"
    assert table.sent() == []
    assert _rows(table.service) == after
    assert _seat(table.service, 0).vacation_used == 86400


def test_a_game_masters_mail_acts_once(tmp_path: Path) -> None:
    table = _start(tmp_path)
    welcome = table.latest[GM]
    assert table.handle(reply_to(welcome, "extend 1d"), START + HOUR) == "applied"
    sent = table.sent()
    assert (GM, "gm", "Done: extend") in sent
    done = table.latest[GM]
    after = _rows(table.service)

    # the same commands again, with a new Message-ID
    assert table.handle(reply_to(welcome, "extend 1d"), START + 2 * HOUR) == "ignored"
    assert table.sent() == []
    assert _inbound(table.service)[-1] == (
        "ignored",
        "a replay of message 1: the same reply address and commands",
    )
    assert _rows(table.service) == after
    # other commands from the mail that acted once already
    for n, line in enumerate(["kick 2", f"replace 2 {EVE} Eve"], start=3):
        assert table.handle(reply_to(welcome, line), START + n * HOUR) == "rejected"
        mails = table.mail()
        assert _sent(mails) == [(GM, "gm", "Not applied: " + line.split()[0])]
        assert "used for a change already" in flat(text_of(mails[0]))
        assert _rows(table.service) == after
        assert "used for a change already" in _inbound(table.service)[-1][1]
    assert EVE not in [to for to, _, _ in _sent(table.mail())]

    # the answer mail acts for the next change
    assert table.handle(reply_to(done, "kick 2"), START + 6 * HOUR) == "applied"
    assert _sent(table.mail()) == [  # Ann hears of it at the poll's end: a quiet change
        (BOB, "update", "You left game 1"),
        (GM, "gm", "Done: kick"),
        (ANN, "update", "News of game 1"),
    ]
    bob = _seat(table.service, 1)
    assert (bob.address, bob.bot) == (None, "greedy")
    with session(table.service.engine) as db:
        used = [t.used_at is not None for t in db.exec(select(GmTag).order_by(col(GmTag.serial)))]
    assert used == [True, True, False, False, False]  # the welcome, then "Done: extend"


@pytest.mark.parametrize("how", ["cli", "mail"])
def test_a_reply_to_a_decision_taken_back_does_not_apply_again(tmp_path: Path, how: str) -> None:
    table = _start(tmp_path)
    prompt = table.latest[ANN]
    assert table.handle(reply_to(prompt, "place Tonga a"), START + MINUTE) == "applied"
    table.mail()
    assert _moves(table.service) == [(1, 0, "place Tonga a", "mail")]
    if how == "cli":
        config = tmp_path / "pbem.toml"
        config.write_text(settings_toml(table.service.settings))
        args = ["gm", "1", "undo", "1", "--now", (START + HOUR).isoformat()]
        result = runner.invoke(app, [*args, "--config", str(config)])
        assert result.exit_code == 0, result.output
    else:  # a fresh mail from the game master, answering the decision open now
        assert table.reply(GM, "status", START + 30 * MINUTE) == "answered"
        table.mail()
        assert table.reply(GM, "undo 1", START + HOUR) == "applied"
    sent = table.sent()
    assert (ANN, "prompt", "Your move: place a set-up boat on Tonga (decision 1)") in sent
    assert _moves(table.service) == []
    new_prompt = table.latest[ANN]
    assert new_prompt["Reply-To"] != prompt["Reply-To"]  # a new epoch signs new tokens

    # the original reply again, with a new Message-ID
    assert table.handle(reply_to(prompt, "place Tonga a"), START + 2 * HOUR) == "ignored"
    assert table.sent() == [] and _moves(table.service) == []
    assert _inbound(table.service)[-1] == (
        "ignored",
        "a replay of message 1: the same reply address and commands",
    )
    # another reply to the mail from before the undo
    assert table.handle(reply_to(prompt, "1"), START + 3 * HOUR) == "rejected"
    answer = table.mail()
    assert _sent(answer) == [REFUSED]
    assert "before the game master took decisions back" in flat(text_of(answer[0]))
    assert _moves(table.service) == []
    # the new prompt works
    assert table.handle(reply_to(new_prompt, "place Tonga b"), START + 4 * HOUR) == "applied"
    assert _moves(table.service) == [(1, 0, "place Tonga b", "mail")]


def test_an_old_reply_address_no_longer_acts(tmp_path: Path) -> None:
    table = _start(tmp_path)
    prompt = table.latest[ANN]
    gm_welcome = table.latest[GM]
    assert table.handle(reply_to(prompt, "place Tonga a"), START + MINUTE) == "applied"
    table.mail()
    current = table.latest[ANN]  # "Waiting for Bob": decision 2
    before = _rows(table.service)

    late = START + 15 * DAY  # decision 1 closed 14 days and more ago
    assert table.handle(reply_to(prompt, "tz Europe/Berlin"), late) == "rejected"
    answer = table.mail()
    assert _sent(answer) == [(ANN, "error", "Not applied: see why")]
    assert "which closed more than 14 days ago" in flat(text_of(answer[0]))
    assert _rows(table.service) == before and _seat(table.service, 0).tz is None

    assert table.handle(reply_to(current, "tz Europe/Berlin"), late + MINUTE) == "applied"
    assert [(to, kind) for to, kind, _ in table.sent()] == [(ANN, "answer")]
    assert _seat(table.service, 0).tz == "Europe/Berlin"
    assert _moves(table.service) == [(1, 0, "place Tonga a", "mail")]

    # a game master's mail acts for 14 days after it was sent
    before = _rows(table.service)
    assert table.handle(reply_to(gm_welcome, "extend 1d"), late + 2 * MINUTE) == "refused"
    assert _sent(table.mail()) == [(GM, "gm", "Not applied: an old mail")]
    assert _inbound(table.service)[-1] == ("refused", "game master token expired")
    assert _rows(table.service) == before


def test_a_command_refused_while_paused_acts_when_sent_again_after_resume(
    tmp_path: Path,
) -> None:
    table = _start(tmp_path)
    prompt = table.latest[ANN]
    assert table.reply(GM, "pause", START + MINUTE) == "applied"
    table.mail()
    assert table.handle(reply_to(prompt, "place Tonga a"), START + 2 * MINUTE) == "rejected"
    table.mail()
    assert table.reply(GM, "resume", START + 3 * MINUTE) == "applied"
    table.mail()
    newest = table.latest[ANN]
    assert _subject(newest) == "Your move: place a set-up boat on Tonga (decision 1)"
    assert table.handle(reply_to(newest, "place Tonga a"), START + 4 * MINUTE) == "applied"
    assert _moves(table.service) == [(1, 0, "place Tonga a", "mail")]


def test_the_answer_to_a_seat_command_names_it_in_its_subject(tmp_path: Path) -> None:
    table = _start(tmp_path)
    assert table.reply(ANN, "place Tonga a", START + MINUTE) == "applied"
    table.mail()
    assert table.reply(ANN, "tz Europe/Berlin", START + 2 * MINUTE) == "applied"
    answer = table.mail()
    assert [(to, kind) for to, kind, _ in _sent(answer)] == [(ANN, "answer")]
    assert _subject(answer[0]) == "Your answer: tz"


# -- 6. duplicates by the whole Message-ID ----------------------------------------------------


def _with_message_id(raw: bytes, message_id: str) -> bytes:
    changed, count = re.subn(rb"(?m)^Message-ID: .*$", b"Message-ID: " + message_id.encode(), raw)
    assert count == 1
    return changed


def test_message_ids_that_differ_only_after_400_characters_are_two_mails(tmp_path: Path) -> None:
    table = _start(tmp_path)
    prompt = table.latest[ANN]
    shared = "<" + "x" * 399
    first_id, second_id = shared + "a@example.test>", shared + "b@example.test>"
    first = _with_message_id(reply_to(prompt, "place Tonga a"), first_id)
    second = _with_message_id(reply_to(prompt, "status"), second_id)
    assert table.handle(first, START + MINUTE) == "applied"
    assert table.handle(second, START + 2 * MINUTE) == "answered"
    assert [to for to, _, _ in table.sent()] == [ANN, BOB, ANN]
    after = _rows(table.service)

    assert table.handle(first, START + 3 * MINUTE) == "duplicate"
    other_text = _with_message_id(reply_to(prompt, "board"), second_id)
    assert table.handle(other_text, START + 4 * MINUTE) == "duplicate"
    assert table.sent() == [] and _rows(table.service) == after
    with session(table.service.engine) as db:
        rows = list(db.exec(select(Inbound).order_by(col(Inbound.id))))
    assert [r.outcome for r in rows] == ["applied", "answered"]
    assert [r.message_hash for r in rows] == [
        hashlib.sha256(m.encode()).hexdigest() for m in (first_id, second_id)
    ]
    assert all(len(r.message_id) == 300 for r in rows)  # kept for people, cut short


# -- 7. no mail is dropped in silence ---------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("¹", "'¹' is not a number the game reads: write the option's number in digits 0-9"),
        ("②", "'②' is not a number the game reads"),
        ("٣", "'٣' is not a number the game reads"),
        ("1" * 5000, "There is no option 11111"),
        ("vacation " + "1" * 5000 + "d", "is not a duration (for example 48h, 2d, 90m)."),
    ],
)
def test_odd_player_lines_are_rejected_with_a_reason(
    tmp_path: Path, line: str, reason: str
) -> None:
    table = _start(tmp_path)
    before = _rows(table.service)
    assert table.reply(ANN, line, START + MINUTE) == "rejected"
    mails = table.mail()
    assert _sent(mails) == [REFUSED]
    assert reason in flat(text_of(mails[0]))
    assert reason in _inbound(table.service)[0][1]
    assert _rows(table.service) == before


@pytest.mark.parametrize(
    "line",
    [
        "Ich möchte mein Boot auf den Strand c von Tonga stellen, aber ich weiß nicht, ob das "
        "geht, weil dort schon zwei Boote liegen und ich die Regeln nicht ganz verstehe.",
        "1" * 300,
    ],
)
def test_a_long_line_is_quoted_within_the_plain_texts_width(tmp_path: Path, line: str) -> None:
    """README "What players receive": plain text of 78 columns, the quote of a reply too."""
    table = _start(tmp_path)
    assert table.reply(ANN, line, START + MINUTE) == "rejected"
    (mail,) = table.mail()
    text = text_of(mail)
    quote = [row for row in text.splitlines() if row.startswith("> ")]
    assert len(quote) >= 2 and "".join(row[2:] for row in quote).replace(" ", "") == (
        line.replace(" ", "")
    )
    assert max(len(row) for row in text.splitlines()) <= 78


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("extend 99999999999d", "'99999999999d' is longer than ten years; give at most 3650d."),
        ("kick ²", "No seat '²': name a seat by its number (1-2), its colour or its player."),
    ],
)
def test_odd_game_master_lines_are_rejected_with_a_reason(
    tmp_path: Path, line: str, reason: str
) -> None:
    table = _start(tmp_path)
    before = _rows(table.service)
    assert table.reply(GM, line, START + MINUTE) == "rejected"
    mails = table.mail()
    assert _sent(mails) == [(GM, "gm", "Not applied: " + line.split()[0])]
    assert reason in flat(text_of(mails[0]))
    assert reason in _inbound(table.service)[0][1]
    assert _rows(table.service) == before


def test_an_odd_seat_on_the_command_line_is_one_error_line(tmp_path: Path) -> None:
    table = _start(tmp_path)
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(table.service.settings))
    before = _rows(table.service)
    args = ["gm", "1", "kick", "²", "--now", (START + HOUR).isoformat(), "--config", str(config)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert isinstance(result.exception, SystemExit)
    assert result.stdout.splitlines() == [
        "rejected: No seat '²': name a seat by its number (1-2), its colour or its player."
    ]
    assert "Traceback" not in result.output
    assert _rows(table.service) == before and table.mail() == []


# -- 8. who the sender is ---------------------------------------------------------------------

VOUCHED = "mx.example.test; dmarc=pass (p=none dis=none) header.from=example.test"


@pytest.mark.parametrize(
    ("header", "why"),
    [
        (None, "no dmarc=pass or aligned dkim=pass from mx.example.test"),
        (
            "mx.other.test; dmarc=pass (p=none dis=none) header.from=example.test",
            "no dmarc=pass or aligned dkim=pass from mx.example.test",
        ),
        (
            "mx.example.test; dmarc=fail (p=reject dis=reject) header.from=example.test",
            "dmarc=fail from mx.example.test",
        ),
    ],
)
def test_with_dmarc_only_a_reply_the_server_vouches_for_acts(
    tmp_path: Path, header: str | None, why: str
) -> None:
    table = _start(tmp_path, authenticated_from="dmarc", authserv_id="mx.example.test")
    prompt = table.latest[ANN]
    before = _rows(table.service)
    headers = {} if header is None else {"Authentication_Results": header}
    assert table.handle(reply_to(prompt, "place Tonga a", **headers), START + MINUTE) == "refused"
    assert table.sent() == []
    assert _rows(table.service) == before
    assert _inbound(table.service) == [("refused", f"sender not accepted: {why}")]

    # the same reply, vouched for by the service's own mail server
    genuine = reply_to(prompt, "place Tonga a", Authentication_Results=VOUCHED)
    assert table.handle(genuine, START + 2 * MINUTE) == "applied"
    assert [to for to, _, _ in table.sent()] == [ANN, BOB]
    assert _moves(table.service) == [(1, 0, "place Tonga a", "mail")]


@pytest.mark.parametrize(
    ("sender", "why"),
    [
        (f"{ANN}, {EVE}", "From holds 2 addresses"),
        (f"Ann <{ANN}>, Eve <{EVE}>", "From holds 2 addresses"),
        (f'"{EVE}" <{ANN}>', "display name holds another address"),
    ],
)
def test_a_from_that_is_not_one_plain_address_is_refused_even_without_dmarc(
    tmp_path: Path, sender: str, why: str
) -> None:
    table = _start(tmp_path)
    assert table.service.settings.authenticated_from == "off"
    before = _rows(table.service)
    prompt = table.latest[ANN]
    assert (
        table.handle(reply_to(prompt, "place Tonga a", sender=sender), START + MINUTE) == "refused"
    )
    assert table.sent() == []
    assert _rows(table.service) == before
    assert _inbound(table.service) == [("refused", f"sender not accepted: {why}")]


def test_with_dmarc_a_too_large_mail_the_server_vouches_for_is_answered_once(
    tmp_path: Path,
) -> None:
    table = _start(
        tmp_path,
        authenticated_from="dmarc",
        authserv_id="mx.example.test",
        max_message_bytes=20_000,
    )
    prompt = table.latest[ANN]
    for n in range(2):
        raw = reply_to(prompt, "place Tonga a\n" + "x" * 30_000, Authentication_Results=VOUCHED)
        assert table.handle(raw, START + n * MINUTE) == "quarantined"
    assert table.sent() == [(ANN, "notice", "Not applied: your mail was too large")]
    assert _moves(table.service) == []


def test_with_dmarc_a_too_large_mail_nobody_vouches_for_is_not_answered(tmp_path: Path) -> None:
    table = _start(
        tmp_path,
        authenticated_from="dmarc",
        authserv_id="mx.example.test",
        max_message_bytes=20_000,
    )
    raw = reply_to(table.latest[ANN], "place Tonga a\n" + "x" * 30_000)
    assert table.handle(raw, START + MINUTE) == "quarantined"
    assert table.sent() == []


# -- 9. the headers of every mail the service writes ------------------------------------------

LONG_NAMES = tuple(
    (name + "ŷ" * 40)[:40]
    for name in ("Ðåñïèł Ŵøłłęñšţęïñ-Çhâtęâùbŕïâñð ", "Ŕøśąłïñđę Ĳsselmüñđęŕ ")
)


def _check_headers(raw: bytes) -> None:
    head = raw.split(b"\n\n", 1)[0]
    lines = head.split(b"\n")
    assert max(len(line) for line in lines) <= 998, max(lines, key=len)
    assert b"\r" not in head
    assert all(b":" in line or line[:1] in (b" ", b"\t") for line in lines)
    message = parse(raw)
    for name, value in message.items():
        assert "\r" not in str(value) and "\n" not in str(value), (name, value)


def test_every_header_line_of_every_mail_is_short_and_whole(tmp_path: Path) -> None:
    assert all(len(name) == 40 and not name.isascii() for name in LONG_NAMES)
    service = local_service(tmp_path)
    seats = [SeatSpec(LONG_NAMES[0], ANN, "red"), SeatSpec(LONG_NAMES[1], BOB, "blue")]
    service.new_game(seats, seed=4, deadline_seconds=48 * 3600, gm=GM, now=START)
    kinds: set[str] = set()
    latest: dict[str, EmailMessage] = {}
    at = START

    def look() -> None:
        for recipient, raw in _take_raw(service):
            _check_headers(raw)
            message = parse(raw)
            kinds.add(str(message["X-Tongiaki-Kind"]))
            latest[recipient] = message

    look()
    for _ in range(24):  # whoever is asked picks their first option
        at += HOUR
        asked = [m for m in latest.values() if m["X-Tongiaki-Kind"] == "prompt"]
        assert len(asked) == 1
        assert handle(service, reply_to(asked[0], "1"), at) == "applied"
        look()
    assert len(_moves(service)) >= 24
    for address, body, outcome in [
        (ANN, "status", "answered"),
        (ANN, "frobnicate", "rejected"),
        (GM, "status", "answered"),
        (GM, "Ünïcødé" * 3, "rejected"),
    ]:
        assert handle(service, reply_to(latest[address], body), at + MINUTE) == outcome
        look()
    assert handle(service, _untagged(BOB, "hello"), at + 2 * MINUTE) == "refused"
    look()
    assert tick(service, at + 25 * HOUR).automatic == 0  # half the time gone: a reminder
    look()
    assert handle(service, reply_to(latest[GM], "end"), at + 26 * HOUR) == "applied"
    look()
    subjects = {str(m["Subject"]) for m in latest.values()}
    assert any(LONG_NAMES[0] in s or LONG_NAMES[1] in s for s in subjects), subjects
    assert kinds >= {"welcome", "prompt", "update", "notice", "gm", "error", "answer"}
    assert {"reminder", "game_over"} <= kinds
