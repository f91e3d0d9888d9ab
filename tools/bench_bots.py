"""How often the expert bot wins 4-player games against three greedy or three random bots,
with the 95% (Wilson) interval. The expert's seat goes round the table from game to game;
a shared first place counts as a win. The budget is simulations per decision."""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from engine import COLOURS, Setup, State, make_bot


@dataclass(frozen=True)
class Game:
    opponents: str
    players: int
    seed: int
    simulations: int
    depth: int = 15
    widening: float | None = None


@dataclass(frozen=True)
class Result:
    won: bool
    shared: bool
    margin: int  # the expert's points minus the best other seat's
    decisions: int  # the expert's own
    seconds: float  # the expert's thinking time


def play(game: Game) -> Result:
    """One game: the expert in seat `seed % players`, the others all of kind `opponents`."""
    expert = game.seed % game.players
    state = State(Setup.from_seed(COLOURS[: game.players], game.seed))
    bots = [
        make_bot(
            "expert",
            game.seed * 10 + seat,
            simulations=game.simulations,
            depth=game.depth,
            widening=game.widening,
        )
        if seat == expert
        else make_bot(game.opponents, game.seed * 10 + seat)
        for seat in range(game.players)
    ]
    thinking = 0.0
    decisions = 0
    while (decision := state.decision) is not None:
        start = time.perf_counter()
        choice = bots[decision.seat].choose(state)
        if decision.seat == expert:
            thinking += time.perf_counter() - start
            decisions += 1
        state.apply(choice)
    outcome = state.standings()
    colour = state.colours[expert]
    mine = next(s for s in outcome.standings if s.colour == colour)
    best_other = max(s.points for s in outcome.standings if s.colour != colour)
    return Result(
        mine.rank == 1, len(outcome.winners) > 1, mine.points - best_other, decisions, thinking
    )


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    rate = wins / games
    centre = rate + z * z / (2 * games)
    spread = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    denominator = 1 + z * z / games
    return (centre - spread) / denominator, (centre + spread) / denominator


def _results(games: list[Game], jobs: int) -> Iterator[Result]:
    if jobs <= 1:
        yield from map(play, games)
        return
    with ProcessPoolExecutor(jobs) as pool:
        yield from pool.map(play, games)


def run(opponents: str, args: argparse.Namespace) -> str:
    games = [
        Game(
            opponents,
            args.players,
            args.seed + n,
            args.simulations,
            args.depth,
            args.widening or None,
        )
        for n in range(args.games)
    ]
    wins = shared = decisions = 0
    thinking = margins = 0.0
    start = time.perf_counter()
    for n, result in enumerate(_results(games, args.jobs), 1):
        wins += result.won
        shared += result.won and result.shared
        margins += result.margin
        decisions += result.decisions
        thinking += result.seconds
        print(
            f"\r  vs {opponents}: {n}/{len(games)} games, {wins} won "
            f"({time.perf_counter() - start:.0f} s)",
            end="",
            file=sys.stderr,
            flush=True,
        )
    print(file=sys.stderr)
    low, high = wilson(wins, len(games))
    return (
        f"expert vs {args.players - 1} {opponents}: {wins}/{len(games)} won "
        f"= {wins / len(games):.0%} (95% {low:.0%}-{high:.0%}; {shared} shared), "
        f"mean margin {margins / len(games):+.1f} points, "
        f"{thinking / max(decisions, 1) * 1000:.0f} ms a decision "
        f"at {args.simulations} simulations (depth {args.depth}, widening {args.widening}), "
        f"{time.perf_counter() - start:.0f} s"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="per kind of opponent")
    parser.add_argument("--simulations", type=int, default=400, help="per decision")
    parser.add_argument("--depth", type=int, default=15, help="rollout decisions")
    parser.add_argument("--widening", type=float, default=0.0, help="0: try every choice")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--against", nargs="+", default=["greedy", "random"])
    parser.add_argument("--jobs", type=int, default=1, help="games played side by side")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for opponents in args.against:
        print(run(opponents, args), flush=True)


if __name__ == "__main__":
    main()
