"""What this round added that reads mail (an option's line copied whole, `1 2`, a full stop
after a command, `a:red`; the quiet observers' commands; `undo` over the bots' own moves)
against a stranger and a malformed mail, a replayed mail, a careless autoresponder and a
poll killed with SIGKILL."""

from __future__ import annotations

import time
from email.message import EmailMessage
from pathlib import Path

from sqlmodel import col, select

from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.host.runner import run_cycle
from pbem.host.transport import MaildirInbox
from pbem.store.db import session
from pbem.store.models import Inbound, Move, Talk
from tests.support.localmail import (
    START,
    handled,
    killed_mid_batch,
    later,
    local_service,
    poll_command,
    reply_to,
    take_mail,
    text_of,
)
from tests.test_open_address import _out_of_office
from tests.test_poison import poisons

ANN, BOB, GM, EVE = "ann@example.test", "bob@example.test", "gm@example.test", "eve@example.test"
OLGA = "olga@example.test"
BUDGET = 10  # the default answers_per_day
COPIED = "2) place Tonga b"  # option 2 of Ann's set-up prompt, as the mail prints it


def _game(service: Service, seed: int = 3) -> int:
    seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")]
    return service.new_game(seats, seed=seed, gm=GM, observers=[(OLGA, "Olga")], now=START)


def _newest(mails: list[EmailMessage], address: str) -> EmailMessage:
    return [m for m in mails if m["To"] == address][-1]


def _moves(service: Service, game: int = 1) -> list[str]:
    with session(service.engine) as db:
        query = select(Move).where(Move.game_id == game).order_by(col(Move.number))
        return [m.choice for m in db.exec(query)]


def _address(mail: EmailMessage) -> str:
    return str(mail["Reply-To"]).split("<")[-1].rstrip(">")


def _drop(service: Service, mails: dict[str, bytes]) -> None:
    """Mails put into the local mailbox as a delivery would."""
    MaildirInbox(service.settings.inbox_dir)  # the mailbox, made as the service makes it
    new = service.settings.inbox_dir / "new"
    for name, raw in mails.items():
        (new / f"{time.time_ns()}.{name.replace(' ', '_')}").write_bytes(raw)


def test_a_stranger_or_a_malformed_mail_cannot_play_a_copied_option_line(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    prompt = _newest(take_mail(service), ANN)
    target = _address(prompt)
    hostile = dict(poisons(target, ANN))
    hostile["eve"] = reply_to(prompt, COPIED, sender=EVE)
    hostile["broken to"] = f'From: {ANN}\nTo: "\nMessage-ID: <b@x.test>\n\n{COPIED}\n'.encode()
    hostile["8 bit"] = f"From: {ANN}\nTo: {target}\nMessage-ID: <c@x.test>\n\n".encode() + (
        b"2) place Tonga \xff\n"
    )
    _drop(service, hostile)
    run_cycle(service, later(1))
    assert _moves(service) == []  # nothing was played
    assert EVE not in [m["To"] for m in take_mail(service)]  # a stranger hears nothing
    assert handle(service, reply_to(prompt, COPIED), later(2)) == "applied"
    assert _moves(service) == ["place Tonga b"]


def test_a_copied_option_line_sent_again_acts_once(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    _game(service)
    prompt = _newest(take_mail(service), ANN)
    assert handle(service, reply_to(prompt, COPIED), later(1)) == "applied"
    take_mail(service)
    for n, body in enumerate([COPIED, "2. place tonga b.", "1 2"], 2):  # new Message-IDs
        assert handle(service, reply_to(prompt, body), later(n)) in ("ignored", "rejected")
    assert _moves(service) == ["place Tonga b"]
    assert {m["To"] for m in take_mail(service)} <= {ANN}


def test_an_autoresponder_with_numbered_lines_gets_no_more_than_the_budget(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    for who, body in ((ANN, "1 2 (auto-reply {n})"), (OLGA, "say away {n}")):
        waiting, received = [_newest(mails, who)], 0
        for n in range(1, 31):  # every answer answered again, a new text each time
            for mail in waiting:
                raw = _out_of_office(mail, "reply-to", body.format(n=n))
                assert handle(service, raw, later(10 + n)) in ("rejected", "refused", "ignored")
            waiting = take_mail(service)
            assert {str(m["To"]) for m in waiting} <= {who}
            received += len(waiting)
        assert received <= BUDGET, who
    assert _moves(service) == []
    with session(service.engine) as db:
        assert db.exec(select(Talk)).all() == []  # Olga may not talk in this game


def test_an_autoresponder_with_accented_commands_is_bounded_and_told_when_it_is_spent(
    tmp_path: Path,
) -> None:
    """Accents on command words are read (stâtus is status), so a careless autoresponder
    that writes them is answered, but within the budget; its last answer says until when,
    and nothing moves. A stranger writing the same to Ann's address hears nothing."""
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    prompt = _newest(mails, ANN)
    stranger = _out_of_office(prompt, "reply-to", "stâtus")
    stranger = stranger.replace(ANN.encode(), EVE.encode(), 1)  # its From
    assert handle(service, stranger, later(1)) in ("refused", "rejected", "ignored")
    assert {str(m["To"]) for m in take_mail(service)} <= {ANN}  # the seat is told, not Eve
    waiting, received = [prompt], []
    for n in range(1, 31):
        for mail in waiting:
            raw = _out_of_office(mail, "reply-to", f"Stâtus ({n})\nplâce")
            assert handle(service, raw, later(10 + n)) in ("answered", "rejected", "ignored")
        waiting = take_mail(service)
        assert {str(m["To"]) for m in waiting} <= {ANN}
        received += waiting
    assert 1 <= len(received) <= BUDGET
    assert "This is the last answer to a reply that moves nothing" in " ".join(
        text_of(received[-1]).split()
    )
    assert _moves(service) == []


def test_undo_by_mail_acts_once_and_never_for_a_stranger(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    service.new_game(
        [SeatSpec("Ann", ANN, "red"), SeatSpec("Kai", None, "blue", bot="greedy")],
        seed=3,
        gm=GM,
        now=START,
    )
    mails = take_mail(service)
    assert handle(service, reply_to(_newest(mails, ANN), "1"), later(1)) == "applied"
    made = _moves(service)  # Ann's set-up boat and the bot's
    assert len(made) == 2
    assert handle(service, reply_to(_newest(mails, GM), "status"), later(2)) == "answered"
    gm_mail = _newest(take_mail(service), GM)  # by mail, `undo` answers the decision open now
    assert handle(service, reply_to(gm_mail, "undo 1", sender=EVE), later(2)) == "refused"
    assert handle(service, reply_to(gm_mail, "undo 1"), later(3)) == "applied"
    done = take_mail(service)
    told = " ".join(text_of(_newest(done, GM)).split())
    assert "the bots made the decision again the same way, so nothing changed" in told
    assert handle(service, reply_to(gm_mail, "undo 1"), later(4)) in ("ignored", "rejected")
    assert _moves(service) == made
    with session(service.engine) as db:
        outcomes = [i.outcome for i in db.exec(select(Inbound).order_by(col(Inbound.id)))]
    assert outcomes.count("applied") == 2  # Ann's move and the one undo


def test_poll_killed_mid_batch_of_copied_lines_acts_on_each_once(tmp_path: Path) -> None:
    service = local_service(tmp_path, inbound_batch=5)  # the poll commits 5 mails at a time
    games = 6
    batch: dict[str, bytes] = {}
    for game in range(1, games + 1):
        _game(service, seed=game)
        prompt = _newest(take_mail(service), ANN)
        options = [line for line in text_of(prompt).splitlines() if line.startswith("   2) ")]
        copied = options[0].strip()  # this game's option 2, copied whole
        accented = copied.replace("place", "plâce").replace("Tonga", "Tönga")
        # the copy twice (a replay), and once more with accents (read as the same move)
        for n, body in enumerate([copied, copied, "1 2", accented]):
            batch[f"{game:02}.{n}"] = reply_to(prompt, body)
    _drop(service, batch)
    database = service.settings.database_path
    killed_at = killed_mid_batch(poll_command(service, tmp_path, later(5)), database)
    assert 0 < killed_at < len(batch), "the kill did not land in the middle of the poll"
    run_cycle(service, later(6))  # the next poll, as the service restarted would make it
    assert handled(database) == len(batch)
    for game in range(1, games + 1):  # each game's copied line played once, nothing else
        (made,) = _moves(service, game)
        assert made.startswith("place Tonga "), made
