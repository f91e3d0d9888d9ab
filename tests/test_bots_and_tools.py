"""The bots, the terminal demo and the benchmark."""

from __future__ import annotations

import random
import re

import pytest

from engine import (
    GreedyBot,
    Land,
    Phase,
    RandomBot,
    State,
    make_bot,
    parse_choice,
)
from tests.support.scenario import arrange
from tools.bench import main as bench_main
from tools.demo import main as demo_main


def _overflow_landing() -> State:
    """Blue's group BBRG arrives at Tubuai, which has room for two of them."""
    state = arrange(
        ["blue", "red", "green"],
        tiles=[("Tuvalu", (0, -1), 0), ("Tubuai", (0, -2), 0)],
        boats={"Tuvalu b": "BRG", "Tubuai a": "RG", "Tubuai b": "GG"},
    )
    state.apply(parse_choice("expand Tuvalu b"))
    return state


def test_greedy_bot_keeps_its_own_boats_when_landing() -> None:
    state = _overflow_landing()
    choice = GreedyBot(random.Random(1), curiosity=0).choose(state)
    assert choice == Land("Tubuai", ((0, ("blue",)), (1, ("blue",))), ("red", "green"))


def test_greedy_bot_avoids_a_voyage_its_group_cannot_pass() -> None:
    # Tonga b (jetty SW) leads onto F, whose trail needs 3 colours; Tonga e (NE) is open sea
    state = arrange(
        ["blue", "red"],
        tiles=[("F", (-1, 1), 0)],
        boats={"Tonga b": "BBB", "Tonga e": "BBB"},
        phase=Phase.EMIGRATE,
    )
    assert {str(c) for c in state.legal_choices()} == {"emigrate Tonga b SW", "emigrate Tonga e NE"}
    choice = GreedyBot(random.Random(1), curiosity=0).choose(state)
    assert str(choice) == "emigrate Tonga e NE"


def test_random_bot_picks_every_option_in_time() -> None:
    state = _overflow_landing()
    bot = RandomBot(random.Random(3))
    picked = {bot.choose(state) for _ in range(300)}
    assert picked == set(state.legal_choices())


def test_make_bot_knows_two_kinds() -> None:
    assert isinstance(make_bot("greedy", 1), GreedyBot)
    assert isinstance(make_bot("random", 1), RandomBot)
    with pytest.raises(ValueError, match="Unknown bot"):
        make_bot("clever", 1)


def test_demo_plays_a_whole_game(capsys: pytest.CaptureFixture[str]) -> None:
    demo_main(["--seed", "5", "--players", "3"])
    out = capsys.readouterr().out
    assert out.startswith("Tongiaki, 3 greedy bots, seed 5.")
    assert "#1 " in out and "Game over" in out
    assert re.search(r"Final scores \(the last (sea tile|island) was drawn", out)
    assert len(re.findall(r"^  \d\. \w+ +\d+ points", out, re.MULTILINE)) == 3


def test_bench_prints_figures_and_ends_with_the_4p_lines(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench_main(["--seconds", "0.01"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split(":")[0] for line in lines[:3]] == ["2 players", "4 players", "6 players"]
    assert re.fullmatch(r"4p games/s: \d+", lines[-2])
    assert re.fullmatch(r"4p decisions/s: \d+", lines[-1])
    games, decisions = (int(line.split(": ")[1]) for line in lines[-2:])
    assert 50 * games < decisions < 500 * games  # a game is about 110 decisions
