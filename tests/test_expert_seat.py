"""The expert bot at a table run by the service: `expert_seconds` is its time per decision."""

from __future__ import annotations

import time
from pathlib import Path

from sqlmodel import col, select

from pbem.core.kinds import MoveSource
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.store.db import session
from pbem.store.models import Move
from tests.support.localmail import START, later, local_service, reply_to, take_mail

ANN = "ann@example.test"


def _bot_moves(service: Service, game_id: int) -> list[str]:
    with session(service.engine) as db:
        query = select(Move).where(Move.game_id == game_id).order_by(col(Move.number))
        return [m.choice for m in db.exec(query) if m.source == MoveSource.BOT]


def _play(tmp_path: Path, seconds: float, replies: int = 3) -> tuple[list[str], float]:
    """Ann against an expert: she answers option 1 `replies` times; returns the bot's moves
    and the longest time a reply took to be handled."""
    service = local_service(tmp_path, expert_seconds=seconds)
    seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Kai", None, None, "expert")]
    game_id = service.new_game(seats, seed=5, now=START)
    longest = 0.0
    for n in range(replies):
        prompts = [m for m in take_mail(service) if "Your move" in str(m["Subject"])]
        assert prompts, f"no prompt for Ann before reply {n + 1}"
        started = time.perf_counter()
        handle(service, reply_to(prompts[-1], "1"), later(n + 1))
        longest = max(longest, time.perf_counter() - started)
    return _bot_moves(service, game_id), longest


def test_an_expert_seat_thinks_for_its_time_and_plays(tmp_path: Path) -> None:
    moves, longest = _play(tmp_path, seconds=0.2)
    assert len(moves) >= 2  # the expert answered Ann's set-up and her turns
    assert longest >= 0.2  # a reply that hands the turn to the expert waits on its search


def test_without_a_time_budget_the_expert_repeats_itself(tmp_path: Path) -> None:
    first, _ = _play(tmp_path / "a", seconds=0, replies=1)
    second, _ = _play(tmp_path / "b", seconds=0, replies=1)
    assert first and first == second
