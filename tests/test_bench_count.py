"""The games tools/bench_count.py plays for cachegrind to count: which are counted, and how
the ones that did not end are told apart. The instruction counts themselves are never
asserted."""

from __future__ import annotations

import pytest

from tools.bench_count import count, main


def test_the_counted_games_come_after_the_warm_up_and_failures_are_told_apart() -> None:
    played: list[int] = []

    def game(seed: int) -> bool:
        played.append(seed)
        return seed % 2 == 0

    ended, _, failed, _ = count(game, warm=2, games=5)
    assert played == [0, 1, 2, 3, 4, 5, 6]
    assert (ended, failed) == (3, 2)  # seeds 2, 4, 6 ended; 3 and 5 did not


def test_our_games_are_counted_as_ended(capsys: pytest.CaptureFixture[str]) -> None:
    main(["ours", "--warm", "0", "--games", "2", "--gc"])
    assert capsys.readouterr().err.startswith("ours: 2 games ended (")
