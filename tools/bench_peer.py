"""Our engine beside the peer's (lakenen/tongiaki, the only other Tongiaki engine): random
4-player games of each, in alternating rounds of a few seconds in one process, so that the
machine's load falls on both alike. The last lines are `ours 4p games/s: N`,
`peer 4p games/s: N` and `ratio: X`.

The peer has no licence, so none of its code is in this repository: it is cloned at its
pinned commit into a cache folder on first use (`--peer-source` names another URL or a local
git directory to clone from, e.g. a mirror on a machine without access to GitHub)."""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from tools.bench import play

PEER_URL = "https://github.com/lakenen/tongiaki"
PEER_COMMIT = "cd8cd27d9365d20bda2cbe5f9ddc9e86b5ba3e52"
PEER_MODULES = ("board", "game", "player", "tiles")  # its top-level names, all imported here
HUNG_SECONDS = 1.0  # of CPU: a peer game takes some 10 ms


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tongiaki-bench" / f"peer-{PEER_COMMIT[:12]}"


def fetch_peer(source: str, cache: Path, commit: str = PEER_COMMIT) -> Path:
    """The peer's work tree at `commit` in `cache`, cloned from `source` if not there yet."""
    if (cache / "official_tiles.py").exists():
        return cache
    cache.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache.parent) as scratch:
        tree = Path(scratch) / "tree"
        subprocess.run(["git", "clone", "--quiet", source, str(tree)], check=True)
        subprocess.run(["git", "-C", str(tree), "checkout", "--quiet", commit], check=True)
        tree.rename(cache)
    return cache


class _Hung(Exception):
    """A peer's game that ran past HUNG_SECONDS of CPU."""


def _hung(signum: int, frame: object) -> None:
    raise _Hung


def peer_game(tree: Path) -> Callable[[int], bool]:
    """A function that plays one complete 4-player game of the peer's random players (their
    print calls silenced: the engine is timed, not its console output); False for a game
    that did not end: about one in 200 sails round a loop of sea tiles for ever (stopped
    after HUNG_SECONDS of CPU), a few fail one of the peer's own assertions."""
    clash = [name for name in PEER_MODULES if name in sys.modules]
    if clash:
        raise SystemExit(f"cannot load the peer: modules named {clash} are already imported")
    sys.path.insert(0, str(tree))
    source = (tree / "official_tiles.py").read_text()
    tiles: dict[str, Any] = {}
    # official_tiles.py defines the tiles, then plays and prints a game when imported
    exec(compile(source[: source.index("game = Game(")], "official_tiles.py", "exec"), tiles)
    peer: dict[str, ModuleType] = {name: sys.modules[name] for name in ("game", "player", "board")}
    for module in peer.values():
        module.print = lambda *args, **kwargs: None  # type: ignore[attr-defined]
    game_module, player_module = peer["game"], peer["player"]

    def one(seed: int) -> bool:
        random.seed(seed)  # the peer draws from the global generator
        game = game_module.Game(tiles["generate_starting_tile"](), tiles["generate_tile_stack"]())
        players = [player_module.RandomPlayer(name) for name in "ABCD"]
        game.players = players  # what Game.play does, without its final print of the board
        signal.setitimer(signal.ITIMER_PROF, HUNG_SECONDS)
        try:
            game.setup()
            while True:
                for player in players:
                    game.play_turn(player)
        except game_module.GameOver:
            return True
        except Exception:  # _Hung (an endless voyage), or one of its own assertions
            return False
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)

    signal.signal(signal.SIGPROF, _hung)
    return one


def interleaved(
    engines: dict[str, Callable[[int], bool]],
    seconds: float,
    round_seconds: float,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, tuple[int, float, int]]:
    """Games ended, their seconds and games that did not end (their time left out), of each
    engine run in turn for `round_seconds` at a time (a game at least) until `seconds` have
    passed (a round each at least), as `clock` counts them."""
    totals = {name: (0, 0.0, 0) for name in engines}
    seeds = dict.fromkeys(engines, 0)
    start = clock()
    while not sum(totals[next(iter(engines))][::2]) or clock() - start < seconds:
        for name, game in engines.items():
            games, spent, failed = totals[name]
            began = clock()
            while True:
                before = clock()
                ended = game(seeds[name])
                after = clock()
                seeds[name] += 1
                if ended:
                    games, spent = games + 1, spent + after - before
                else:
                    failed += 1
                if after - began >= round_seconds:
                    break
            totals[name] = games, spent, failed
    return totals


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=40.0, help="the whole run")
    parser.add_argument("--round", type=float, default=2.0, help="seconds of one engine's turn")
    parser.add_argument("--peer-source", default=PEER_URL, help="URL or git directory to clone")
    parser.add_argument("--cache", type=Path, default=default_cache(), help="the peer's folder")
    args = parser.parse_args(argv)
    try:
        tree = fetch_peer(args.peer_source, args.cache)
    except (OSError, subprocess.CalledProcessError) as error:
        shutil.rmtree(args.cache, ignore_errors=True)
        raise SystemExit(f"could not fetch the peer from {args.peer_source}: {error}") from error
    engines: dict[str, Callable[[int], bool]] = {
        "ours": lambda seed: play(4, seed).decision is None,
        "peer": peer_game(tree),
    }
    load = os.getloadavg()[0]
    totals = interleaved(engines, args.seconds, args.round)
    print(
        f"load average {load:.1f} before, {os.getloadavg()[0]:.1f} after, "
        f"{os.cpu_count()} cores; peer {PEER_COMMIT[:7]} from {tree}"
    )
    rates = {}
    for name, (games, spent, failed) in totals.items():
        rates[name] = games / spent
        lost = f"; {failed} that did not end left out" if failed else ""
        print(f"{name} 4p games/s: {rates[name]:.0f}  ({games} games in {spent:.1f} s{lost})")
    print(f"ratio: {rates['ours'] / rates['peer']:.2f}")


if __name__ == "__main__":
    main()
