"""Two services on one PostgreSQL database, racing over one inbox: each is handed every reply
(as two hosts reading the same mailbox would find it), at the same moment, and sends what is
due at the same moment. Every move is applied once, every mail sent once."""

from __future__ import annotations

import asyncio
import email
import random
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path

import pytest
from sqlmodel import col, func, select

from pbem.flow.service import SeatSpec, Service
from pbem.host.runner import flush_outbox, take
from pbem.host.transport import MaildirSender
from pbem.store.db import open_database, session
from pbem.store.models import Inbound, Move, Outbox
from tests.support.localmail import START, local_service, reply_to


@dataclass
class Race:
    """Two services on one database, each sending into a Maildir folder of its own."""

    services: tuple[Service, Service]
    folders: tuple[Path, Path]
    outcomes: Counter[str] = field(default_factory=Counter)
    seen: set[str] = field(default_factory=set)  # Message-IDs of mail already looked at

    def both(self, work: Callable[[int, Service], None]) -> None:
        """`work` in two threads, one per service, let go at the same moment."""
        start = threading.Barrier(2)
        failures: list[BaseException] = []

        def run(index: int) -> None:
            start.wait()
            try:
                work(index, self.services[index])
            except BaseException as error:  # reported below
                failures.append(error)

        threads = [threading.Thread(target=run, args=(n,)) for n in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []

    def send(self, at: object) -> None:
        def flush(index: int, service: Service) -> None:
            sender = MaildirSender(self.folders[index])
            asyncio.run(flush_outbox(service.engine, [sender], "t@example.test", at))  # type: ignore[arg-type]

        self.both(flush)

    def sent(self) -> list[EmailMessage]:
        mails = []
        for folder in self.folders:
            new = folder / "new"
            for path in sorted(new.iterdir()) if new.exists() else []:
                message = email.message_from_bytes(path.read_bytes(), policy=default_policy)
                assert isinstance(message, EmailMessage)
                mails.append(message)
        return mails

    def new_prompts(self) -> list[EmailMessage]:
        """The prompts sent since the last look."""
        fresh = [m for m in self.sent() if str(m["Message-ID"]) not in self.seen]
        self.seen |= {str(m["Message-ID"]) for m in fresh}
        return [m for m in fresh if m["X-Tongiaki-Decision"]]

    def read(self, replies: list[bytes], at: object, rng: random.Random) -> None:
        """Both services handle every reply, each in an order of its own."""
        orders = [list(replies), list(replies)]
        rng.shuffle(orders[1])

        def handle_all(index: int, service: Service) -> None:
            for raw in orders[index]:
                outcome = take(service, raw, at)  # type: ignore[arg-type]
                with lock:
                    self.outcomes[outcome] += 1

        lock = threading.Lock()
        self.both(handle_all)


@pytest.fixture
def race(tmp_path: Path, postgres_url: str) -> Iterator[Race]:
    first = local_service(tmp_path, database_url=postgres_url, answers_per_day=1000)
    second = Service(open_database(postgres_url), first.settings)
    yield Race((first, second), (tmp_path / "sent-1", tmp_path / "sent-2"))
    first.engine.dispose()
    second.engine.dispose()


def _race(race: Race, games: int, rounds: int) -> None:
    rng = random.Random(7)
    first = race.services[0]
    for number in range(games):
        seats = [
            SeatSpec("Ann", f"ann{number}@example.test", "red"),
            SeatSpec("Bob", f"bob{number}@example.test", "blue"),
        ]
        first.new_game(seats, seed=number, deadline_seconds=30 * 86400, now=START)
    race.send(START)
    replies = moves = replays = 0
    for turn in range(1, rounds + 1):
        at = START + timedelta(minutes=turn)
        prompts = race.new_prompts()
        assert len(prompts) == games  # one open decision per game: nobody lost or doubled
        mails = [reply_to(prompt, "1") for prompt in prompts]
        moves += len(mails)
        mails += mails[:2]  # delivered twice: the same Message-ID
        again = [reply_to(prompt, "1") for prompt in prompts[:2]]  # the same reply again
        replays += len(again)
        mails += again
        replies += len(mails)
        race.read(mails, at, rng)
        race.send(at)
    # every reply was handled by both services: once for real, once found taken
    distinct = moves + replays
    assert race.outcomes["applied"] == moves
    assert race.outcomes["ignored"] == replays  # a replay: the same address and command
    assert race.outcomes["duplicate"] == 2 * replies - distinct
    assert sum(race.outcomes.values()) == 2 * replies
    with session(first.engine) as db:
        assert db.exec(select(func.count()).select_from(Inbound)).one() == distinct
        by_player = db.exec(select(func.count()).select_from(Move)).one()
        assert by_player == moves
        numbers = db.exec(select(Move.game_id, Move.number).order_by(col(Move.id))).all()
        assert len(set(numbers)) == len(numbers) == moves
        assert db.exec(select(Outbox)).all() == []  # every mail left the outbox
    sent = [str(m["Message-ID"]) for m in race.sent()]
    assert len(sent) == len(set(sent)), "a mail was sent twice"
    # each move told both players (the answer and the news), and asked the next one
    assert len(sent) > 2 * moves


def test_two_services_race_over_sixty_replies(race: Race) -> None:
    _race(race, games=12, rounds=4)


@pytest.mark.slow
def test_two_services_race_over_a_thousand_replies(race: Race) -> None:
    _race(race, games=50, rounds=19)
