"""The expert bot: a Monte Carlo tree search that never sees the order of the stack."""

from __future__ import annotations

import random

from engine import BOT_KINDS, COLOURS, Choice, GreedyBot, Phase, Setup, State, make_bot
from tests.support.scenario import arrange
from tools.bench_bots import Game, play, wilson


def _midgame(seed: int, decisions: int) -> State:
    state = State(Setup.from_seed(COLOURS[:4], seed))
    bots = [make_bot("greedy", seed * 10 + seat) for seat in range(4)]
    while len(state.log) < decisions and (decision := state.decision) is not None:
        state.apply(bots[decision.seat].choose(state))
    return state


def test_the_expert_only_picks_legal_choices() -> None:
    state = _midgame(3, 10)
    bot = make_bot("expert", 1, simulations=8)
    for _ in range(12):
        if state.decision is None:
            break
        choice = bot.choose(state)
        assert choice in state.legal_choices()
        state.apply(choice)


def test_the_expert_is_the_same_for_the_same_seed() -> None:
    state = _midgame(5, 30)
    first = make_bot("expert", 7, simulations=30).choose(state)
    again = make_bot("expert", 7, simulations=30).choose(state.copy())
    assert first == again


def _reordered(state: State) -> State:
    """The same game with the tiles still in the stack in another order: every tile one
    place up, the top one to the bottom (another tile is drawn next)."""
    stack, drawn = state.setup.stack, state.drawn
    hidden = stack[drawn + 1 :] + stack[drawn : drawn + 1]
    return State.replay(Setup(state.colours, stack[:drawn] + hidden), state.log)


def _peeking(state: State, seed: int, rollouts: int = 12, depth: int = 15) -> Choice:
    """A cheat, to show that the orders the test compares matter: each choice is played on
    from the true state (so through the true stack) by greedy bots, as the expert's
    rollouts are, and the choice whose games leave its seat furthest ahead is taken."""
    policy = GreedyBot(random.Random(seed), curiosity=0.1)
    colour = state.colours[state.active]

    def margin(played: State) -> int:
        points = {s.colour: s.points for s in played.standings().standings}
        return points[colour] - max(p for c, p in points.items() if c != colour)

    def value(choice: Choice) -> int:
        total = 0
        for _ in range(rollouts):
            played = state.copy()
            played.apply(choice)
            for _ in range(depth):
                if played.decision is None:
                    break
                played.apply(policy.choose(played))
            total += margin(played)
        return total

    return max(state.legal_choices(), key=value)


def test_the_expert_does_not_read_the_order_of_the_stack() -> None:
    positions = [_midgame(seed, 30) for seed in (2, 3, 4, 5)]
    cheat_told = 0
    for played in positions:
        other = _reordered(played)
        assert other.stack_left[0] != played.stack_left[0]  # another tile comes next
        assert sorted(other.stack_left) == sorted(played.stack_left)
        seen, seen_other = played.to_json(), other.to_json()
        del seen["setup"], seen_other["setup"]
        assert seen == seen_other  # all that a player can see is the same
        assert len(played.legal_choices()) > 1
        for seed in range(2):
            choice = make_bot("expert", seed, simulations=25).choose(played)
            assert make_bot("expert", seed, simulations=25).choose(other) == choice
        cheat_told += _peeking(played, 1) != _peeking(other, 1)
    # a bot that read the stack would choose otherwise in these positions: the test would
    # catch an expert that did
    assert cheat_told >= len(positions) // 2


def test_the_expert_sails_to_an_island_rather_than_to_its_loss() -> None:
    # Tubuai a is full of blue boats: by SW they meet F, whose trail needs 3 colours, and go
    # back to the reserve; by NW they land on Samoa, worth 5 points
    state = arrange(
        ["blue", "red"],
        tiles=[("Tubuai", (0, -1), 0), ("F", (-1, 0), 0), ("Samoa", (-1, -1), 0)],
        boats={"Tubuai a": "BBB", "Tonga a": "RR", "Tonga b": "B"},
        phase=Phase.EMIGRATE,
    )
    assert {str(c) for c in state.legal_choices()} == {
        "emigrate Tubuai a SW",
        "emigrate Tubuai a NW",
    }
    for seed in range(3):
        choice = make_bot("expert", seed, simulations=60).choose(state)
        assert str(choice) == "emigrate Tubuai a NW"


def test_the_expert_takes_a_wall_clock_budget() -> None:
    ticks = iter(range(1000))
    bot = make_bot("expert", 1, simulations=10_000, seconds=5, clock=lambda: next(ticks))
    state = _midgame(6, 30)
    assert bot.choose(state) in state.legal_choices()
    assert next(ticks) < 10  # the clock, not the simulations, stopped it


def test_the_expert_plays_a_whole_game_against_greedy_bots() -> None:
    result = play(Game("greedy", 4, seed=11, simulations=3))
    assert result.decisions > 10


def test_wilson_interval() -> None:
    low, high = wilson(50, 100)
    assert round(low, 3) == 0.404 and round(high, 3) == 0.596
    assert wilson(0, 0) == (0.0, 1.0)


def test_the_expert_is_a_bot_kind() -> None:
    assert "expert" in BOT_KINDS
    assert type(make_bot("expert", 1)).__name__ == "ExpertBot"
