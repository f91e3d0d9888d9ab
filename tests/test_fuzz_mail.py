"""A fuzz test: 1,000 generated hostile mails (tests/support/hostile.py) through one poll of
the local Maildir. No mail is stuck, nothing is logged with a traceback, no game changes,
the mail the service sends stays within its answer budget, and a valid reply after the
batch is applied."""

from __future__ import annotations

import logging
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.core.addressing import Tag, reply_address, token
from pbem.flow.service import Service
from pbem.host.runner import run_cycle
from pbem.host.transport import MaildirInbox
from pbem.store.db import session
from pbem.store.models import Game, Move, Outbox, Seat
from tests.bench_hostile import targets
from tests.support.hostile import hostile_mails
from tests.support.localmail import later, local_service, parse

COUNT = 300  # every shape of the generator several times


def _games(service: Service) -> list[dict[str, Any]]:
    """Everything of the games a mail could change."""
    with session(service.engine) as db:
        games = [g.model_dump() for g in db.exec(select(Game).order_by(col(Game.id)))]
        seats = [s.model_dump() for s in db.exec(select(Seat).order_by(col(Seat.id)))]
        moves = [m.model_dump() for m in db.exec(select(Move).order_by(col(Move.id)))]
        db.commit()
    return [*games, *seats, *moves]


def test_hundreds_of_hostile_mails_block_nothing_and_change_no_game(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    service = local_service(tmp_path)
    found = targets(service)
    with session(service.engine) as db:  # the newest prompt to Ann, to answer after the batch
        rows = list(db.exec(select(Outbox).order_by(col(Outbox.id))))
        for row in rows:
            db.delete(row)
        db.commit()
    assert not rows  # `targets` took the game's mails already
    before = _games(service)
    inbox = service.settings.inbox_dir / "new"
    MaildirInbox(service.settings.inbox_dir)  # makes the folders
    shapes: Counter[str] = Counter()
    for n, (shape, raw) in enumerate(hostile_mails(COUNT, 7, found)):
        (inbox / f"{time.time_ns()}.{n:05}.fuzz").write_bytes(raw)
        shapes[shape] += 1
    caplog.set_level(logging.INFO)
    report = run_cycle(service, later(5))
    assert report.handled == COUNT
    assert list(MaildirInbox(service.settings.inbox_dir).new_messages()) == []
    assert not [r.getMessage() for r in caplog.records if r.exc_info]
    assert _games(service) == before
    outbox = service.settings.outbox_dir
    sent = Counter(
        parse(path.read_bytes())["To"] for path in (outbox / "new").iterdir() if path.is_file()
    )
    # the budgets (of text that is no command, and of real commands: a forged From with a
    # copied reply address is the seat's address), plus one notice of each kind a day
    per_day = service.settings.answers_per_day + service.settings.command_answers_per_day
    assert sent, "the players whose addresses were forged were told something"
    for address, count in sent.items():
        assert count <= per_day + 3, (address, count)
    assert len(shapes) >= 30, "the generator covered its shapes"

    # a real reply after the batch is applied: Ann's first set-up boat in game 1
    with session(service.engine) as db:
        ann = db.exec(select(Seat).where(Seat.game_id == 1, Seat.seat == 0)).one()
        db.commit()
    signed = Tag(1, 0, 1, token(ann.secret, 1, 0, 1))
    mail = (
        f"From: ann@example.test\r\nTo: {reply_address(service.settings.from_address, signed)}"
        "\r\nSubject: Re: your move\r\nMessage-ID: <after-the-fuzz@example.test>\r\n\r\n"
        "place Tonga a\r\n"
    ).encode()
    (inbox / f"{time.time_ns()}.after").write_bytes(mail)
    assert run_cycle(service, later(6)).handled == 1
    with session(service.engine) as db:
        assert [m.choice for m in db.exec(select(Move))] == ["place Tonga a"]
