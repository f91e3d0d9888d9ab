"""Waiting mail is handled in batches on SQLite, a transaction each (`inbound_batch`): the
mails of a batch are recorded, applied and answered together or not at all; a mail the
service fails on rolls back its own part only; a database that fails leaves the whole batch
unread, and the next poll takes each mail once."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.exc import OperationalError
from sqlmodel import col, select

from pbem.flow.service import SeatSpec, Service
from pbem.host.runner import read_mail
from pbem.host.transport import MaildirInbox
from pbem.store.db import session
from pbem.store.models import Inbound, Move, Outbox, Quarantined
from tests.support.localmail import START, later, local_service, parse, reply_to, take_mail
from tests.test_open_address import _out_of_office
from tests.test_poison import nested

ANN, BOB = "ann@example.test", "bob@example.test"


def _game(service: Service) -> tuple[bytes, EmailMessage]:
    """A two-player game: Ann's first move as a reply, and the prompt it answers."""
    seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")]
    service.new_game(seats, seed=4, now=START)
    (prompt,) = [m for m in take_mail(service) if m["To"] == ANN and "Your move" in m["Subject"]]
    return reply_to(prompt, "place Tonga a"), prompt


def _drop(service: Service, mails: list[bytes]) -> Path:
    MaildirInbox(service.settings.inbox_dir)  # the mailbox, made as the service makes it
    new = service.settings.inbox_dir / "new"
    for n, raw in enumerate(mails):
        (new / f"{time.time_ns()}.{n:03}").write_bytes(raw)
    return new


def STOPPED() -> float:
    """A batch's clock that never moves: the batch window never closes a batch, however
    loaded the machine is (the window itself is tested with a clock that ticks)."""
    return 0.0


class Ticking:
    """A batch's clock that moves `step` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.step, self.now = step, 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def _commits(service: Service) -> list[int]:
    """Counts the commits of `service`'s database from now on."""
    counted: list[int] = []

    @event.listens_for(service.engine, "commit")
    def _count(_connection: Any) -> None:
        counted.append(1)

    return counted


def _recorded(service: Service) -> list[str]:
    with session(service.engine) as db:
        return [i.outcome for i in db.exec(select(Inbound).order_by(col(Inbound.id)))]


def _moves(service: Service) -> list[str]:
    with session(service.engine) as db:
        return [m.choice for m in db.exec(select(Move).order_by(col(Move.number)))]


@pytest.mark.parametrize(("batch", "commits"), [(4, 3), (1, 11), (25, 1)])
def test_waiting_mails_are_recorded_a_batch_to_a_transaction(
    tmp_path: Path, batch: int, commits: int
) -> None:
    service = local_service(tmp_path, inbound_batch=batch)
    _, prompt = _game(service)
    strangers = [reply_to(prompt, "place Tonga a", sender=f"x{n}@example.test") for n in range(10)]
    new = _drop(service, [*strangers, reply_to(prompt, "place Tonga a")])
    counted = _commits(service)
    assert read_mail(service, later(1), timer=STOPPED) == 11
    assert len(counted) == commits
    assert _recorded(service) == ["refused"] * 10 + ["applied"]
    assert _moves(service) == ["place Tonga a"]
    assert list(new.iterdir()) == []  # every mail marked handled
    assert read_mail(service, later(2), timer=STOPPED) == 0


def test_a_batch_closes_when_its_time_is_up_and_the_next_takes_the_rest(tmp_path: Path) -> None:
    service = local_service(tmp_path, inbound_batch=25)
    _, prompt = _game(service)
    strangers = [reply_to(prompt, "place Tonga a", sender=f"x{n}@example.test") for n in range(10)]
    _drop(service, [*strangers, reply_to(prompt, "place Tonga a")])
    counted = _commits(service)
    # 0.3 s a mail: the window of BATCH_SECONDS (0.5) closes each batch after two mails
    assert read_mail(service, later(1), timer=Ticking(0.3)) == 11
    assert len(counted) == 6
    assert _recorded(service) == ["refused"] * 10 + ["applied"]
    assert _moves(service) == ["place Tonga a"]


def test_a_poisoned_mail_in_a_batch_rolls_back_its_own_part_only(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    good, prompt = _game(service)
    target = str(prompt["Reply-To"]).split("<")[-1].rstrip(">")
    poison = (
        f"From: {ANN}\nTo: {target}\nSubject: Re: your move\nMIME-Version: 1.0\n".encode()
        + nested(60)  # deeper than the service reads: it fails on this mail
    )
    status = reply_to(prompt, "status")
    _drop(service, [poison, good, poison.replace(b"your move", b"again"), status])
    counted = _commits(service)
    assert read_mail(service, later(1), timer=STOPPED) == 4
    assert len(counted) == 1
    assert _recorded(service) == ["applied", "answered"]  # the poisoned ones are quarantined
    assert _moves(service) == ["place Tonga a"]
    with session(service.engine) as db:
        kept = list(db.exec(select(Quarantined)))
        waiting = [str(parse(m.message)["Subject"]) for m in db.exec(select(Outbox))]
    assert len(kept) == 2
    assert sum("Your answer: status" in subject for subject in waiting) == 1, waiting


def _limit_pages(service: Service, room: int) -> Callable[[Any, Any], None]:
    """From now on the service's connections may grow the file by `room` pages only: SQLite
    then fails a write with 'database or disk is full', as a full disk makes it. Returns the
    listener that sets the limit, for `event.remove`."""
    service.engine.dispose()
    with closing(sqlite3.connect(service.settings.database_path)) as plain:
        pages = plain.execute("PRAGMA page_count").fetchone()[0]

    def limit(connection: Any, _record: Any) -> None:
        connection.execute(f"PRAGMA max_page_count={pages + room}")

    event.listen(service.engine, "connect", limit)
    return limit


def test_a_database_that_fails_mid_batch_keeps_none_of_it_and_the_next_poll_takes_each_once(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    move, prompt = _game(service)
    asks = [reply_to(prompt, "\n".join(["status"] * (n + 1))) for n in range(6)]
    new = _drop(service, [move, *asks])
    # no page more: the move fits in the pages the welcome mails left free, the answers not
    limit = _limit_pages(service, 0)
    with pytest.raises(OperationalError, match="full"):
        read_mail(service, later(1), timer=STOPPED)
    assert len(list(new.iterdir())) == 7  # none marked handled
    assert _recorded(service) == [] and _moves(service) == []  # none recorded
    event.remove(service.engine, "connect", limit)
    service.engine.dispose()  # the disk has room again
    assert read_mail(service, later(2), timer=STOPPED) == 7
    assert _recorded(service) == ["applied"] + ["answered"] * 6
    assert _moves(service) == ["place Tonga a"]
    with session(service.engine) as db:
        answers = [
            m.recipient
            for m in db.exec(select(Outbox))
            if "Your answer: status" in parse(m.message)["Subject"]
        ]
    assert answers == [ANN] * 6
    assert read_mail(service, later(3), timer=STOPPED) == 0


def test_the_same_mail_twice_in_one_batch_acts_once(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    move, _ = _game(service)
    _drop(service, [move, move])  # delivered twice
    assert read_mail(service, later(1), timer=STOPPED) == 2
    assert _recorded(service) == ["applied"]  # the copy is a duplicate, not recorded again
    assert _moves(service) == ["place Tonga a"]


def test_a_stranger_a_replay_and_an_autoresponder_in_one_batch_change_nothing(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    move, prompt = _game(service)
    assert read_mail(service, later(1), timer=STOPPED) == 0
    _drop(service, [move])
    assert read_mail(service, later(2), timer=STOPPED) == 1  # Ann's move, applied
    take_mail(service)
    target = str(prompt["Reply-To"]).split("<")[-1].rstrip(">")
    malformed = (  # a stranger's mail to the game's reply address that no parser reads
        f"From: x@example.test\nTo: {target}\nContent-Type: multipart/mixed; boundary=\n\n".encode()
        + b"\xff\xfe\x00 place Tonga a\n" * 50
    )
    replayed = reply_to(prompt, "place Tonga a")  # the same command again, a new Message-ID
    away = [_out_of_office(prompt, "reply-to", "I am away until Monday.") for _ in range(3)]
    new = _drop(service, [malformed, replayed, *away])
    counted = _commits(service)
    assert read_mail(service, later(3), timer=STOPPED) == 5
    assert len(counted) == 1
    assert list(new.iterdir()) == []  # all marked handled: none stops the mailbox
    # the autoresponder's first mail is refused with an answer, its copies are replays
    assert _recorded(service) == ["applied", "refused", "ignored", "rejected", "ignored", "ignored"]
    assert _moves(service) == ["place Tonga a"]  # nothing acted again
    # the stranger hears nothing; Ann is told once that someone else used her reply address,
    # and her autoresponder gets one answer, which it cannot turn into a loop (its copies
    # are replays)
    answers = [(str(m["To"]), str(m["Subject"])) for m in take_mail(service)]
    assert answers == [
        (ANN, "[Tongiaki g1] Not applied: a reply from another address"),
        (ANN, "[Tongiaki g1] Not applied: see why"),
    ]
