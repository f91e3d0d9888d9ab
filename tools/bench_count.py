"""Random 4-player games to count under cachegrind: ours (`tools.bench.play`) or the peer's
(`tools.bench_peer.peer_game`), `--warm` games first, then `--games` more, the garbage
collector off unless `--gc`. Instructions per game are the difference between a run with
`--games N` and one with `--games 0`, over N:

    PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no \\
        --cachegrind-out-file=/tmp/ours.cg python3 -m tools.bench_count ours --games 100

Our games are the same in every run. The peer's are not: its random players pick from sets
of objects, which iterate in the order of their addresses, so a seed plays another game in
another process (and under valgrind). Count many of its games; the last line (on stderr)
says how many ended and how many did not (an endless voyage, stopped after `--hung` seconds
of CPU, which valgrind stretches some 15 times), with the CPU seconds of each, so that a
run where some did not end can be left out or corrected by its share of the CPU."""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tools import bench_peer
from tools.bench import play


def ours(seed: int) -> bool:
    return play(4, seed).decision is None


def count(game: Callable[[int], bool], warm: int, games: int) -> tuple[int, float, int, float]:
    """Games ended and their CPU seconds, games that did not end and theirs, of `games`
    games after `warm` others."""
    for seed in range(warm):
        game(seed)
    ended = failed = 0
    ended_cpu = failed_cpu = 0.0
    for seed in range(warm, warm + games):
        start = time.process_time()
        done = game(seed)
        spent = time.process_time() - start
        if done:
            ended, ended_cpu = ended + 1, ended_cpu + spent
        else:
            failed, failed_cpu = failed + 1, failed_cpu + spent
    return ended, ended_cpu, failed, failed_cpu


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("engine", choices=("ours", "peer"))
    parser.add_argument("--warm", type=int, default=60, help="games played before")
    parser.add_argument("--games", type=int, default=100, help="games counted")
    parser.add_argument("--gc", action="store_true", help="leave the garbage collector on")
    parser.add_argument("--hung", type=float, default=0.5, help="CPU seconds of a peer game")
    parser.add_argument("--peer-source", default=bench_peer.PEER_URL, help="as bench_peer's")
    parser.add_argument("--cache", type=Path, default=bench_peer.default_cache())
    args = parser.parse_args(argv)
    game: Callable[[int], bool] = ours
    if args.engine == "peer":
        bench_peer.HUNG_SECONDS = args.hung
        game = bench_peer.peer_game(bench_peer.fetch_peer(args.peer_source, args.cache))
    if not args.gc:
        gc.disable()
    ended, ended_cpu, failed, failed_cpu = count(game, args.warm, args.games)
    print(
        f"{args.engine}: {ended} games ended ({ended_cpu:.2f} s of CPU), "
        f"{failed} did not ({failed_cpu:.2f} s)",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
