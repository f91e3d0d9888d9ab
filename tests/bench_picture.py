"""Benchmark of the board picture: milliseconds per `board_png` (median and 95th percentile)
and bytes of the PNG, for games of 2, 4 and 6 greedy bots early and late.

Each state is drawn `--repeat` times as it is in the mail loop (the picture of the state
after each of the last moves), first with cold caches ("cold": the first picture of a
fresh process), then as the loop runs ("warm"). Then many 4-player games moving in a random
order, as on a host with that many games going: each keeps its tile layer while there are
no more than `picture.LAYERS` of them.

    python -m tests.bench_picture [--repeat 30] [--write DIR]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from engine import COLOURS, Setup, State, make_bot
from pbem.views import picture
from pbem.views.picture import board_png

MOMENTS = {"early": 12, "late": 10**6}


def played(players: int, moves: int, seed: int = 3) -> list[State]:
    """The states of a game of `players` greedy bots up to `moves` choices (or its end)."""
    state = State(Setup.from_seed(COLOURS[:players], seed))
    bot = make_bot("greedy", seed)
    states = [state.copy()]
    while state.decision is not None and len(state.log) < moves:
        state.apply(bot.choose(state))
        states.append(state.copy())
    return states


def clear_caches() -> None:
    for value in vars(picture).values():
        clear = None if isinstance(value, type) else getattr(value, "cache_clear", None)
        if callable(clear):
            clear()


def timings(states: list[State]) -> tuple[float, list[float], int]:
    """Milliseconds of the first picture on cold caches, of each of `states` after it, and
    the bytes of the picture of the last one."""
    clear_caches()
    start = time.perf_counter()
    board_png(states[0])
    cold = (time.perf_counter() - start) * 1000
    warm = []
    data = b""
    for state in states:
        start = time.perf_counter()
        data = board_png(state)
        warm.append((time.perf_counter() - start) * 1000)
    return cold, warm, len(data)


def interleaved(games: int, moves: int = 30) -> list[float]:
    """Milliseconds of each picture while `games` 4-player games each make `moves` moves
    (from their 30th), one game at a time in a random order, each drawn for its game."""
    states = [played(4, 30 + moves, seed)[30:] for seed in range(1, games + 1)]
    turns = [game for game in range(games) for _ in range(moves)]
    random.Random(games).shuffle(turns)
    made = [0] * games
    clear_caches()
    timed = []
    for game in turns:
        state = states[game][min(made[game], len(states[game]) - 1)]
        made[game] += 1
        start = time.perf_counter()
        board_png(state, game)
        timed.append((time.perf_counter() - start) * 1000)
    return timed


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30, help="pictures per game and moment")
    parser.add_argument("--write", type=Path, help="write the last picture of each to DIR")
    args = parser.parse_args(argv)
    print(f"{'game':12} {'cold ms':>8} {'median ms':>10} {'p95 ms':>8} {'bytes':>8}")
    for players in (2, 4, 6):
        for moment, moves in MOMENTS.items():
            states = played(players, moves)[-args.repeat :]
            cold, warm, size = timings(states)
            p95 = statistics.quantiles(warm, n=20)[-1] if len(warm) > 1 else warm[0]
            name = f"{players}p {moment}"
            median = statistics.median(warm)
            print(f"{name:12} {cold:8.1f} {median:10.2f} {p95:8.2f} {size:8d}", flush=True)
            if args.write:
                args.write.mkdir(parents=True, exist_ok=True)
                (args.write / f"{players}p-{moment}.png").write_bytes(board_png(states[-1]))
    heading = f"{'games going':12} {'mean ms':>8} {'median ms':>10} {'p95 ms':>8}"
    print(f"\n{heading}  ({picture.LAYERS} tile layers kept)")
    for games in (8, picture.LAYERS, 2 * picture.LAYERS):
        timed = interleaved(games)
        p95 = statistics.quantiles(timed, n=20)[-1]
        mean, median = statistics.mean(timed), statistics.median(timed)
        print(f"{games:<12} {mean:8.1f} {median:10.2f} {p95:8.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
