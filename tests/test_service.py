"""The game service with local mail: creating games, replies, refusals, a whole game."""

from __future__ import annotations

import random
import re
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import col, select

from engine import BotKind, State
from pbem.core.files import maildir
from pbem.flow.replies import handle
from pbem.flow.service import GameError, SeatSpec, Service
from pbem.host.runner import run_cycle, take
from pbem.mail_in import door
from pbem.store.db import session
from pbem.store.models import Game, Inbound, Move, Quarantined
from tests.support.localmail import (
    START,
    later,
    local_service,
    option_count,
    reply_to,
    take_mail,
    text_of,
)

ANN, BOB = "ann@example.test", "bob@example.test"


def _game(service: Service, *, bot: bool = True, seed: int = 11) -> int:
    seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")]
    if bot:
        seats.append(SeatSpec("Cy", None, None, "greedy"))
    return service.new_game(seats, seed=seed, now=START)


def _prompts(mails: list[EmailMessage], address: str) -> list[EmailMessage]:
    return [m for m in mails if m["To"] == address and "Your move" in str(m["Subject"])]


def _moves(service: Service) -> list[str]:
    with session(service.engine) as db:
        return [m.choice for m in db.exec(select(Move).order_by(col(Move.number)))]


@pytest.fixture
def service(tmp_path: Path) -> Service:
    return local_service(tmp_path)


def test_a_new_game_welcomes_everyone_and_asks_the_first_player(service: Service) -> None:
    game = _game(service)
    mails = take_mail(service)
    assert [(m["To"], str(m["Subject"]).split("] ")[1]) for m in mails] == [
        (ANN, "Welcome to game 1"),
        (BOB, "Welcome to game 1"),
        (ANN, "Your move: place a set-up boat on Tonga (decision 1)"),
    ]
    prompt = mails[2]
    assert re.fullmatch(
        rf"Tongiaki <tongiaki\+g{game}-0-1-[a-z2-7]{{10}}@example\.test>", str(prompt["Reply-To"])
    )
    text = text_of(prompt)
    assert "  1) place Tonga a\n" in text and "  6) place Tonga f\n" in text
    assert "Cy (orange) - a bot" in text_of(mails[0]) or "Cy (green) - a bot" in text_of(mails[0])
    assert all(BOB not in str(m) for m in mails if m["To"] == ANN)
    assert prompt["Auto-Submitted"] == "auto-generated"


def test_a_bot_seat_is_stored_as_its_word_and_read_back_as_its_kind(service: Service) -> None:
    game = _game(service)
    with session(service.engine) as db:
        table = service.table(db, game, START)
        assert [s.bot for s in table.seats] == [None, None, BotKind.GREEDY]
        assert table.seats[2].bot is BotKind.GREEDY
        stored = db.exec(text("SELECT bot FROM seat ORDER BY seat")).all()
    assert [row[0] for row in stored] == [None, None, "greedy"]  # the text it always was


def test_a_reply_with_a_number_applies_that_option(service: Service) -> None:
    _game(service)
    prompt = _prompts(take_mail(service), ANN)[0]
    assert handle(service, reply_to(prompt, "3"), later(5)) == "applied"
    assert _moves(service) == ["place Tonga c"]
    mails = take_mail(service)
    ann = [m for m in mails if m["To"] == ANN]
    assert len(ann) == 1 and "> 3\n  applied: place Tonga c" in text_of(ann[0])
    assert "Waiting for Bob (blue)" in str(ann[0]["Subject"])
    assert len(_prompts(mails, BOB)) == 1
    assert "Red: place Tonga c." not in text_of(ann[0])  # the player's own choice is not retold


def test_lines_apply_in_order_until_one_fails_and_the_rest_is_ignored(service: Service) -> None:
    _game(service, bot=False)
    prompt = _prompts(take_mail(service), ANN)[0]
    handle(service, reply_to(prompt, "place tonga a"), later(1))
    bob = _prompts(take_mail(service), BOB)[0]
    outcome = handle(service, reply_to(bob, "place b\nplace c\nstatus"), later(2))
    assert outcome == "rejected"
    assert _moves(service) == ["place Tonga a", "place Tonga b"]
    text = text_of(next(m for m in take_mail(service) if m["To"] == BOB))
    assert "> place b\n  applied: place Tonga b" in text
    assert "> place c\n  rejected: It is not your decision now" in text
    assert "> status\n  ignored: after a rejected line" in text


def test_refused_and_ignored_mail_changes_nothing(service: Service) -> None:
    _game(service)
    prompt = _prompts(take_mail(service), ANN)[0]
    forged = reply_to(prompt, "1", sender="mallory@example.test")
    assert handle(service, forged, later(1)) == "refused"
    notice = take_mail(service)  # a stranger never gets an answer; the seat hears of it
    assert [m["To"] for m in notice] == [ANN]
    assert "came from another address" in " ".join(text_of(notice[0]).split())
    assert "mallory" not in notice[0].as_string()
    again = reply_to(prompt, "2", sender="mallory@example.test")
    assert handle(service, again, later(2)) == "refused"
    assert take_mail(service) == []  # once a day

    real = re.search(rb"-0-1-([a-z2-7]{10})@", reply_to(prompt, "1"))
    assert real is not None
    bad_token = reply_to(prompt, "1").replace(real.group(1), b"aaaaaaaaaa")
    assert handle(service, bad_token, later(2)) == "refused"
    assert take_mail(service) == []  # a wrong token is logged, not answered
    for _ in range(2):  # no tag at all: the sender's games, once a day
        no_tag = reply_to(prompt, "1").replace(real.group(1), b"nonsense")
        assert handle(service, no_tag, later(2)) == "refused"
    answer = take_mail(service)
    assert [m["To"] for m in answer] == [ANN]
    assert "Game 1: you are Ann (red)" in " ".join(text_of(answer[0]).split())

    for header in ({"Auto_Submitted": "auto-replied"}, {"Precedence": "bulk"}):
        assert handle(service, reply_to(prompt, "1", **header), later(3)) == "ignored"
    loop = reply_to(prompt, "1", sender="tongiaki@example.test")
    assert handle(service, loop, later(4)) == "ignored"
    assert take_mail(service) == []
    assert _moves(service) == []


def test_a_mail_with_another_seats_address_is_refused_and_explained(service: Service) -> None:
    _game(service)
    prompt = _prompts(take_mail(service), ANN)[0]
    assert handle(service, reply_to(prompt, "1", sender=BOB), later(1)) == "refused"
    answer = take_mail(service)
    assert [m["To"] for m in answer] == [ANN]  # the seat's own address, never the sender
    assert answer[0]["X-Tongiaki-Kind"] == "notice"
    assert "Only mail from this address acts for your seat" in " ".join(text_of(answer[0]).split())
    assert _moves(service) == []


def test_a_stale_decision_garbage_and_a_bad_number_are_rejected_with_the_options(
    service: Service,
) -> None:
    _game(service, bot=False)
    first = _prompts(take_mail(service), ANN)[0]
    handle(service, reply_to(first, "1"), later(1))
    bob = _prompts(take_mail(service), BOB)[0]
    handle(service, reply_to(bob, "1"), later(2))
    take_mail(service)
    assert handle(service, reply_to(first, "2"), later(3)) == "rejected"
    stale = take_mail(service)
    assert len(stale) == 1 and "decision 1, which is past" in text_of(stale[0])
    assert "YOUR DECISION (number 3)" in text_of(stale[0])

    current = stale[0]
    for line, reason in [
        ("fly me to the moon", "'fly' is not a command"),
        ("99", "There is no option 99"),
        ("expand Samoa a", "does not fit now"),
    ]:
        assert handle(service, reply_to(current, line), later(4)) == "rejected"
        answer = take_mail(service)
        assert len(answer) == 1, line
        assert f"> {line}\n  rejected: " in text_of(answer[0]) and reason in text_of(answer[0])
        assert "  1) place Tonga" in text_of(answer[0])
    assert _moves(service) == ["place Tonga a", "place Tonga a"]


def test_each_message_is_handled_once(service: Service) -> None:
    _game(service)
    prompt = _prompts(take_mail(service), ANN)[0]
    raw = reply_to(prompt, "1")
    assert handle(service, raw, later(1)) == "applied"
    take_mail(service)
    assert handle(service, raw, later(2)) == "duplicate"
    assert take_mail(service) == []
    with session(service.engine) as db:
        assert len(list(db.exec(select(Inbound)))) == 1


def test_meta_commands_answer_at_any_time(service: Service) -> None:
    _game(service)
    prompt = _prompts(take_mail(service), ANN)[0]
    assert handle(service, reply_to(prompt, "help\nboard\nlog\nstatus"), later(1)) == "answered"
    text = text_of(take_mail(service)[0])
    for heading in ("HOW TO PLAY BY MAIL", "BOARD", "LOG", "STATUS"):
        assert heading in text
    assert _moves(service) == []


def test_status_and_log_after_a_move_in_one_reply_tell_the_game_after_every_line(
    service: Service,
) -> None:
    """`status` before the move of the same reply, and `log` too: they tell the game as
    the reply left it, not as it stood when their line was read."""
    _game(service)
    prompt = _prompts(take_mail(service), ANN)[0]
    outcome = handle(service, reply_to(prompt, "status\nlog\nplace Tonga c"), later(1))
    assert outcome == "applied"
    (ann,) = [m for m in take_mail(service) if m["To"] == ANN]
    text = " ".join(text_of(ann).split())
    assert (
        "Now waiting for Bob (blue) to put a set-up boat on a beach of Tonga (decision 2)" in text
    )
    assert "Now waiting for Ann (red)" not in text
    assert "1 Ann place Tonga c" in text  # the log has the move made after it


@pytest.mark.parametrize(
    "reply",
    [
        "Hi everyone!\nplace tonga c",
        "Hi! Sorry I was away.\n\nThanks for waiting.\n3",  # the option's number: Tonga c
        "Hello all,\nback again\nhere is my move\nplace Tonga c.",
    ],
)
def test_a_greeting_above_a_move_is_skipped_and_said_so(service: Service, reply: str) -> None:
    _game(service)
    prompt = _prompts(take_mail(service), ANN)[0]
    assert handle(service, reply_to(prompt, reply), later(1)) == "applied"
    assert _moves(service) == ["place Tonga c"]
    (ann,) = [m for m in take_mail(service) if m["To"] == ANN]
    greeting = reply.splitlines()[0]
    said = " ".join(text_of(ann).split())
    assert f"> {greeting} ignored: a greeting, not a command: skipped, as a line after it" in said


@pytest.mark.parametrize(
    "reply",
    [
        "I am out of the office until Monday.\nI will answer when I am back.\nRegards",
        "Hello,\n1. I am away\n2. I will reply later",  # numbered prose is no option
        "Hi\nall\nof\nyou\nplace Tonga c",  # more than three lines above it
        "Hi everyone!\nplace Tonga z",  # not a move the decision allows
        "Hi everyone!\nstatus",  # a command, but no move
    ],
)
def test_prose_without_a_move_for_the_open_decision_is_not_skipped(
    service: Service, reply: str
) -> None:
    _game(service)
    prompt = _prompts(take_mail(service), ANN)[0]
    assert handle(service, reply_to(prompt, reply), later(1)) == "rejected"
    assert _moves(service) == []
    text = " ".join(text_of(take_mail(service)[0]).split())
    assert "a greeting, not a command" not in text


def test_a_greeting_above_a_move_for_another_players_decision_is_not_skipped(
    service: Service,
) -> None:
    _game(service)
    welcome = next(m for m in take_mail(service) if m["To"] == BOB)  # Ann decides now
    assert handle(service, reply_to(welcome, "Hi!\nplace Tonga c"), later(1)) == "rejected"
    assert _moves(service) == []
    text = " ".join(text_of(take_mail(service)[0]).split())
    assert "a greeting, not a command" not in text


def test_a_whole_game_played_by_mail(service: Service) -> None:
    game = _game(service, bot=True, seed=5)
    rng = random.Random(5)
    minute = 0
    while True:
        mails = take_mail(service)
        over = [m for m in mails if "Game over" in str(m["Subject"])]
        if over:
            break
        prompts = _prompts(mails, ANN) + _prompts(mails, BOB)
        assert len(prompts) == 1, [m["Subject"] for m in mails]
        count = option_count(prompts[0])
        minute += 1
        assert (
            handle(service, reply_to(prompts[0], str(rng.randint(1, count))), later(minute))
            == "applied"
        )
        assert minute < 1000
    assert sorted(m["To"] for m in over) == [ANN, BOB]
    with session(service.engine) as db:
        table = service.table(db, game, START)
        row, state = table.game, table.state
        assert row.status == "over" and state.decision is None
        replayed = State.replay(state.setup, state.log)
        assert replayed == state
        assert [m.choice for m in db.exec(select(Move).order_by(col(Move.number)))] == [
            str(c) for c in state.log
        ]
        assert db.get(Game, game) is not None
    winner = state.standings().standings[0]
    assert f"1. {['Ann', 'Bob', 'Cy'][state.colours.index(winner.colour)]}" in text_of(over[0])


@pytest.mark.parametrize(
    ("seats", "options", "says"),
    [
        ([SeatSpec("Ann", ANN)], {}, "2 to 6 seats"),
        ([SeatSpec("Ann", ANN), SeatSpec("Bob", ANN)], {}, "same address"),
        ([SeatSpec("Ann", ANN, "pink"), SeatSpec("Bob", BOB)], {}, "Unknown colour 'pink'"),
        ([SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "red")], {}, "same colour"),
        ([SeatSpec("Ann", "ann"), SeatSpec("Bob", BOB)], {}, "not a mail address"),
        ([SeatSpec("Ann", ANN), SeatSpec("Bot", None, None, "clever")], {}, "Unknown bot"),
        ([SeatSpec("Ann", ANN), SeatSpec("Bob", BOB)], {"stack": ["Samoa"]}, "31 tiles"),
        ([SeatSpec("Ann", ANN), SeatSpec("Bob", BOB)], {"deadline_seconds": 30}, "a minute"),
    ],
)
def test_a_game_that_cannot_be_is_refused_and_nothing_is_created(
    service: Service, seats: list[SeatSpec], options: dict[str, object], says: str
) -> None:
    with pytest.raises(GameError, match=says):
        service.new_game(seats, now=START, **options)  # type: ignore[arg-type]
    with session(service.engine) as db:
        assert list(db.exec(select(Game))) == []
    assert take_mail(service) == []


def test_without_plus_addressing_the_subject_carries_the_tag(tmp_path: Path) -> None:
    service = local_service(tmp_path, plus_addressing=False)
    _game(service)
    prompt = _prompts(take_mail(service), ANN)[0]
    assert prompt["Reply-To"] is None
    assert re.search(r"\[Tongiaki g1 #1 s0-[a-z2-7]{10}\]$", str(prompt["Subject"]))
    reply = reply_to(prompt, "2")
    assert b"tongiaki+" not in reply
    assert handle(service, reply, later(1)) == "applied"
    assert _moves(service) == ["place Tonga b"]


@pytest.mark.parametrize("to", ['"', "a.<>;", "é@[ "])
def test_a_mail_with_headers_python_cannot_parse_does_not_block_the_mailbox(
    tmp_path: Path, to: str
) -> None:
    """Through the local mailbox: a bounce with a broken To, then a real reply."""
    service = local_service(tmp_path)
    _game(service)
    prompt = _prompts(take_mail(service), ANN)[0]
    inbox = maildir(service.settings.inbox_dir)
    broken = (
        f"From: mailer-daemon@example.test\r\nTo: {to}\r\nSubject: Out of office\r\n"
        "Auto-Submitted: auto-replied\r\nMessage-ID: <ooo@example.test>\r\n\r\nAway.\r\n"
    )
    inbox.add(broken.encode())
    inbox.add(reply_to(prompt, "place Tonga a"))
    report = run_cycle(service, later(1))
    assert report.handled == 2
    with session(service.engine) as db:
        rows = [(i.sender, i.outcome) for i in db.exec(select(Inbound).order_by(col(Inbound.id)))]
    assert sorted(rows) == [(ANN, "applied"), ("mailer-daemon@example.test", "ignored")]
    assert _moves(service) == ["place Tonga a"]


def test_a_mail_the_service_fails_on_is_recorded_and_the_next_one_is_handled(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    _game(service)
    prompt = _prompts(take_mail(service), ANN)[0]

    def broken(message: object, settings: object) -> list[str]:
        raise RuntimeError("a fault of the service")

    reply = reply_to(prompt, "place Tonga a")
    with monkeypatch.context() as patch:
        patch.setattr(door, "reply_lines", broken)
        assert take(service, reply, later(1)) == "quarantined"
    assert _moves(service) == [] and take_mail(service) == []
    with session(service.engine) as db:
        assert db.exec(select(Inbound)).all() == []  # not handled: it may be tried again
        kept = db.exec(select(Quarantined)).one()
    assert kept.raw == reply and kept.error == "RuntimeError: a fault of the service"
    assert take(service, reply, later(2)) == "applied"  # the fault mended, the same mail
    assert _moves(service) == ["place Tonga a"]
