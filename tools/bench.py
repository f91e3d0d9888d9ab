"""Speed of the engine: complete random games per second on one core (best of three rounds),
and how long listing the legal choices takes. The last two lines are `4p games/s: N` and
`4p decisions/s: N`."""

from __future__ import annotations

import argparse
import random
import statistics
import time

from engine import COLOURS, Setup, State
from engine.hooks import clear_listing_caches, relist


def play(players: int, seed: int) -> State:
    """One complete game with uniformly random choices."""
    rng = random.Random(seed)
    state = State(Setup.from_seed(COLOURS[:players], seed))
    while state.decision is not None:
        state.apply(rng.choice(state.legal_choices()))
    return state


def games_per_second(players: int, seconds: float, rounds: int = 3) -> tuple[float, float]:
    """Complete random games per second (the best of `rounds` rounds, as timeit takes the
    best: on a shared machine the rest is noise), and decisions per game."""
    best = 0.0
    games = decisions = 0
    for _ in range(rounds):
        played = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds / rounds or played < 3:
            decisions += len(play(players, games).log)
            games += 1
            played += 1
        best = max(best, played / (time.perf_counter() - start))
    return best, decisions / games


def listing_times(players: int, games: int) -> list[float]:
    """Seconds taken to list the legal choices at every decision of a few replayed games."""
    timings = []
    clear_listing_caches()  # time the work, not the cache of the games just played
    for seed in range(games):
        final = play(players, seed)
        state = State(final.setup)
        for choice in final.log:
            relist(state)
            start = time.perf_counter()
            state.legal_choices()
            timings.append(time.perf_counter() - start)
            state.apply(choice)
    return timings


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=6.0, help="per player count")
    args = parser.parse_args(argv)
    results = {}
    for players in (2, 4, 6):
        rate, per_game = games_per_second(players, args.seconds)
        timings = listing_times(players, 20)
        median, worst = statistics.median(timings), max(timings)
        results[players] = rate, per_game
        print(
            f"{players} players: {rate:7.1f} games/s, {per_game:5.0f} decisions/game, "
            f"legal choices median {median * 1e6:6.1f} us, worst {worst * 1e3:6.2f} ms"
        )
    rate, per_game = results[4]
    print(f"4p games/s: {rate:.0f}")
    print(f"4p decisions/s: {rate * per_game:.0f}")


if __name__ == "__main__":
    main()
