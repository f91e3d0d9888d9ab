"""The service's CPU per move in one process, without mail servers: `--games` games of
`--players` players (on the default settings, the local Maildir's service), every prompt
answered with a seeded random option through the door (`pbem.flow.replies.handle`), and
the CPU time (`time.process_time`) of `handle` alone: the reply read, the move made, its
mails rendered, composed and put in the outbox. The last line is `ms per move: N`.

With `--against REV` the service of commit REV (checked out into a temporary worktree, its
folder first on PYTHONPATH in this virtual environment) runs the same games beside this
one's, in turns (`--rounds` of each, alternating which goes first) so that the machine's
load weighs on both alike; the last lines give each side's median.

    python3 dev.py bench-handle [--games 10] [--players 3] [--moves 150]
        [--against REV [--rounds 5]]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the checkout this benchmark is in
NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Flo")


def run(games: int, players: int, moves: int, profile: object = None) -> float:
    """Milliseconds of CPU per move that `handle` took, over `moves` moves after one move
    in each game (the imports, the templates compiled, the first picture's tiles)."""
    from pbem.flow.replies import handle
    from pbem.flow.service import SeatSpec
    from tests.support.localmail import START, option_count, parse, reply_to, take_raw

    chance = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        from tests.support.localmail import local_service

        service = local_service(Path(tmp))
        for g in range(games):
            specs = [
                SeatSpec(NAMES[n], f"{NAMES[n].lower()}{g}@example.test") for n in range(players)
            ]
            service.new_game(specs, seed=g + 1, now=START)
        prompts = {}
        for raw in take_raw(service):
            mail = parse(raw)
            if mail["X-Tongiaki-Kind"] == "prompt":
                prompts[mail["To"]] = mail
        used, made, now = 0.0, -games, START
        while made < moves and prompts:
            to = sorted(prompts)[made % len(prompts)]  # the games in turn
            prompt = prompts.pop(to)
            now += timedelta(minutes=1)
            raw = reply_to(prompt, str(chance.randint(1, max(1, option_count(prompt)))))
            if made == 0 and profile is not None:
                profile.enable()  # type: ignore[attr-defined]
            start = time.process_time()
            handle(service, raw, now)
            if made >= 0:
                used += time.process_time() - start
            made += 1
            for raw in take_raw(service):
                mail = parse(raw)
                if mail["X-Tongiaki-Kind"] == "prompt":
                    prompts[mail["To"]] = mail
        return used / max(made, 1) * 1000


def _side(folder: Path, arguments: argparse.Namespace) -> float:
    """One run in a process of its own with `folder`'s code first on the path."""
    env = dict(os.environ, PYTHONPATH=str(folder))
    command = [sys.executable, str(ROOT / "tests" / "bench_handle.py"), "--child"]
    command += ["--games", str(arguments.games), "--players", str(arguments.players)]
    command += ["--moves", str(arguments.moves)]
    done = subprocess.run(command, env=env, cwd=folder, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"bench-handle: a run failed:\n{done.stderr}")
    return float(done.stdout.strip().splitlines()[-1].split()[-1])


def against(revision: str, arguments: argparse.Namespace) -> None:
    """This checkout's service beside commit `revision`'s, in turns."""
    folder = Path(tempfile.mkdtemp(prefix="bench-handle-against-")) / "tree"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(folder), revision],
        check=True,
        capture_output=True,
    )
    try:
        figures: dict[str, list[float]] = {"this": [], revision: []}
        for n in range(arguments.rounds):
            order = [("this", ROOT), (revision, folder)]
            for name, tree in order if n % 2 == 0 else order[::-1]:
                figures[name].append(_side(tree, arguments))
                print(f"round {n + 1}: {name} {figures[name][-1]:.1f} ms", flush=True)
        for name, values in figures.items():
            shown = ", ".join(f"{v:.1f}" for v in values)
            print(f"{name}: median {statistics.median(values):.1f} ms per move ({shown})")
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(folder)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--moves", type=int, default=150)
    parser.add_argument("--against", metavar="REV")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.against:
        against(arguments.against, arguments)
        return
    ms = run(arguments.games, arguments.players, arguments.moves)
    print(f"ms per move: {ms:.1f}")


if __name__ == "__main__":
    if __package__ in (None, ""):  # run as a file (--against): the tree on PYTHONPATH first
        sys.path[0] = os.environ.get("PYTHONPATH", str(ROOT)).split(os.pathsep)[0]
    main()
