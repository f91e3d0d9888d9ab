"""Random games for 2 to 6 players, checking the invariants after every choice."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine import (
    COLOURS,
    Setup,
    State,
    make_bot,
)
from tests.support.invariants import (
    check_every_listed_choice_applies,
    check_invariants,
    check_nothing_unlisted_applies,
    check_round_trips,
)

# a guard against a game that never ends, not a bound of the rules: two greedy bots that
# wander between two islands for a thousand turns still end (the example of test_bot_games_end)
MAX_DECISIONS = 20_000

games = st.tuples(
    st.integers(min_value=2, max_value=6),
    st.integers(min_value=0, max_value=2**32 - 1),
    st.integers(min_value=0, max_value=2**32 - 1).map(random.Random),
)


def _colours(players: int, rng: random.Random) -> list[str]:
    return rng.sample(COLOURS, players)


def _play(players: int, seed: int, rng: random.Random, check: object) -> State:
    state = State(Setup.from_seed(_colours(players, rng), seed))
    check_invariants(state)
    while state.decision is not None:
        assert len(state.log) < MAX_DECISIONS, "the game did not end"
        check(state)  # type: ignore[operator]
        state.apply(rng.choice(state.legal_choices()))
        check_invariants(state)
    assert state.outcome is not None
    assert state.legal_choices() == []
    return state


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)  # thirty games by default; 120 with -m slow (below)
def test_random_games_keep_the_invariants_and_replay(game: tuple[int, int, random.Random]) -> None:
    _keep_the_invariants_and_replay(game)


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_random_games_keep_the_invariants_and_replay_in_many_games(
    game: tuple[int, int, random.Random],
) -> None:
    _keep_the_invariants_and_replay(game)


def _keep_the_invariants_and_replay(game: tuple[int, int, random.Random]) -> None:
    players, seed, rng = game
    midway: list[State] = []

    def remember(state: State) -> None:
        if not midway and rng.random() < 0.02:
            midway.append(state.copy())

    final = _play(players, seed, rng, remember)
    assert State.replay(final.setup, final.log) == final
    for state in midway:
        assert State.replay(state.setup, state.log) == state
    check_round_trips(final)


def _listed_choices_apply_and_nothing_else_does(game: tuple[int, int, random.Random]) -> None:
    players, seed, rng = game

    def check(state: State) -> None:
        check_round_trips(state)
        check_every_listed_choice_applies(state)
        check_nothing_unlisted_applies(state)

    _play(players, seed, rng, check)


@settings(max_examples=1, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)  # one game by default; forty with -m slow (below)
def test_listed_choices_apply_and_nothing_else_does(game: tuple[int, int, random.Random]) -> None:
    _listed_choices_apply_and_nothing_else_does(game)


@pytest.mark.slow  # about a minute: `python3 dev.py test -m slow`
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_listed_choices_apply_and_nothing_else_does_in_many_games(
    game: tuple[int, int, random.Random],
) -> None:
    _listed_choices_apply_and_nothing_else_does(game)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games, st.sampled_from(["random", "greedy"]))
@example((2, 424249, random.Random(0)), "greedy")  # 4,449 decisions, found by Hypothesis
def test_bot_games_end(game: tuple[int, int, random.Random], kind: str) -> None:
    _bot_game_ends(game, kind)  # ten games by default; thirty with -m slow (below)


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games, st.sampled_from(["random", "greedy"]))
def test_bot_games_end_in_many_games(game: tuple[int, int, random.Random], kind: str) -> None:
    _bot_game_ends(game, kind)


def _bot_game_ends(game: tuple[int, int, random.Random], kind: str) -> None:
    players, seed, rng = game
    state = State(Setup.from_seed(_colours(players, rng), seed))
    bots = [make_bot(kind, seed + seat) for seat in range(players)]
    while (decision := state.decision) is not None:
        assert len(state.log) < MAX_DECISIONS
        choice = bots[decision.seat].choose(state)
        assert choice in state.legal_choices()
        state.apply(choice)
        check_invariants(state)
    assert state.outcome is not None
