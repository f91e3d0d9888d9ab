"""The commands around the table (`say`, `tell`, `resign` and `confirm` alone in a later mail,
the refusals of a resigned player, "did you mean") against a stranger, a malformed mail, a
replayed mail, a careless autoresponder and a service killed with SIGKILL mid-poll."""

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
from pbem.store.models import Inbound, Seat, Talk
from tests.support.localmail import (
    START,
    handled,
    killed_mid_batch,
    later,
    local_service,
    parse,
    poll_command,
    reply_to,
    take_mail,
)
from tests.test_open_address import _out_of_office
from tests.test_poison import poisons

ANN, BOB, GM, EVE = "ann@example.test", "bob@example.test", "gm@example.test", "eve@example.test"
BUDGET = 10  # the default answers_per_day


def _game(service: Service) -> dict[str, EmailMessage]:
    """Ann and Bob at a table with a game master; the newest mail of each."""
    seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")]
    service.new_game(seats, seed=4, gm=GM, now=START)
    return {str(m["To"]): m for m in take_mail(service)}


def _ann(service: Service) -> Seat:
    with session(service.engine) as db:
        return db.exec(select(Seat).where(Seat.seat == 0)).one()


def _talk(service: Service) -> list[str]:
    with session(service.engine) as db:
        return [t.text for t in db.exec(select(Talk).order_by(col(Talk.id)))]


def _asked(service: Service, latest: dict[str, EmailMessage]) -> EmailMessage:
    """Ann asks to resign; the answer that asks her to confirm."""
    assert handle(service, reply_to(latest[ANN], "resign"), later(1)) == "applied"
    (asking,) = [m for m in take_mail(service) if m["To"] == ANN]
    assert _ann(service).asked == "resign"
    return asking


def _address(mail: EmailMessage) -> str:
    return str(mail["Reply-To"]).split("<")[-1].rstrip(">")


def test_a_stranger_or_a_malformed_mail_cannot_confirm_a_resignation(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    asking = _asked(service, _game(service))
    target = _address(asking)
    MaildirInbox(service.settings.inbox_dir)  # the local mailbox, made as the service makes it
    new = service.settings.inbox_dir / "new"
    for n, raw in enumerate(poisons(target, ANN).values()):
        (new / f"{time.time_ns()}.{n}.poison").write_bytes(raw)
    from_eve = reply_to(asking, "confirm", sender=EVE)
    broken_to = b'From: ann@example.test\nTo: "\nMessage-ID: <b@x.test>\n\nconfirm\n'
    eight_bit = f"From: {ANN}\nTo: {target}\nMessage-ID: <c@x.test>\n\n".encode() + b"conf\xffirm\n"
    for name, raw in (("eve", from_eve), ("broken", broken_to), ("8bit", eight_bit)):
        (new / f"{time.time_ns()}.{name}").write_bytes(raw)
    run_cycle(service, later(2))
    ann = _ann(service)
    assert (ann.resigned, ann.asked) == (False, "resign")  # still only asked
    assert EVE not in [m["To"] for m in take_mail(service)]  # a stranger hears nothing
    assert handle(service, reply_to(asking, "confirm"), later(3)) == "applied"
    assert _ann(service).resigned


def test_a_confirm_or_a_say_sent_again_acts_once(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    latest = _game(service)
    assert handle(service, reply_to(latest[BOB], "say good luck"), later(1)) == "applied"
    again = reply_to(latest[BOB], "say good luck")  # a new Message-ID, the same reply
    assert parse(again)["Message-ID"]
    assert handle(service, again, later(2)) == "ignored"
    assert _talk(service) == ["good luck"]
    take_mail(service)
    asking = _asked(service, latest)
    assert handle(service, reply_to(asking, "confirm"), later(3)) == "applied"
    told = [m for m in take_mail(service) if m["To"] == GM]
    assert len(told) == 1
    assert handle(service, reply_to(asking, "confirm"), later(4)) == "ignored"
    assert [m for m in take_mail(service) if m["To"] in (GM, BOB)] == []  # told once
    with session(service.engine) as db:
        outcomes = [i.outcome for i in db.exec(select(Inbound).order_by(col(Inbound.id)))]
    assert outcomes[-1] == "ignored"


def test_an_autoresponder_neither_resigns_nor_gets_more_than_the_budget(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    asking = _asked(service, _game(service))
    waiting, received = [asking], 0
    for n in range(1, 31):  # every answer answered again, a new text each time
        for mail in waiting:
            text = f"I am away until Monday (note {n})"
            outcome = handle(service, _out_of_office(mail, "reply-to", text), later(10 + n))
            assert outcome in ("rejected", "refused", "ignored")
        mails = take_mail(service)
        assert {str(m["To"]) for m in mails} <= {ANN}
        waiting = mails
        received += len(mails)
    assert received <= BUDGET
    ann = _ann(service)
    assert (ann.resigned, ann.asked) == (False, "resign")
    # resigned, the refusals of what she may no longer do are bounded the same way
    assert handle(service, reply_to(asking, "confirm"), later(60)) == "applied"
    waiting = [m for m in take_mail(service) if m["To"] == ANN]
    received = 0
    for n in range(1, 31):
        for mail in waiting:
            body = f"staus {n}"  # a misspelt command: answered with "did you mean"
            outcome = handle(service, _out_of_office(mail, "reply-to", body), later(60 + n))
            assert outcome in ("rejected", "refused", "ignored")
        waiting = take_mail(service)
        received += len(waiting)
    assert received <= BUDGET
    assert _talk(service) == []


def test_poll_killed_mid_batch_of_table_talk_and_a_resignation_acts_on_each_once(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path, talk_per_day=1000, inbound_batch=5)
    latest = _game(service)
    asking = _asked(service, latest)
    count = 40
    MaildirInbox(service.settings.inbox_dir)  # the local mailbox, made as the service makes it
    new = service.settings.inbox_dir / "new"
    for n in range(count):
        who = BOB if n % 2 else ANN
        body = f"say hello {n}" if n != count // 2 else "confirm"
        raw = reply_to(asking if who == ANN else latest[BOB], body)
        (new / f"{time.time_ns()}.{n:03}").write_bytes(raw)
    database = service.settings.database_path
    before = handled(database)
    killed_at = killed_mid_batch(poll_command(service, tmp_path, later(5)), database)
    assert 0 < killed_at < count, "the kill did not land in the middle of the poll"
    run_cycle(service, later(6))  # the next poll, as the service restarted would make it
    assert handled(database) - before == count
    # Bob's all, Ann's until she resigned (after it hers are refused), each once
    kept = [n for n in range(count) if n % 2 or n < count // 2]
    assert sorted(_talk(service)) == sorted(f"hello {n}" for n in kept)
    assert _ann(service).resigned
