"""How quickly each `pbem` command a host or a newcomer types starts: the CPU time (user and
system) of the command beyond that of a bare `python -c pass`, the median of several runs,
against the target of 0.3 s (README, "Speed and scale"). Run with
`python3 dev.py bench-start [--runs N]`; prints figures, asserts nothing.

The commands run in a temporary folder on the embedded defaults: a demo game (you against two
bots, its first mails in the local outbox) for `read`, `reply` and `list`, and a folder whose
database holds no game for `list` on an empty database. For reference it also prints what
Typer costs alone (its import, and a command of one option: Typer 0.29 checked an option's
value with Pydantic, 0.3 s of CPU, which is why Typer is pinned at 0.28), the engine's package
and the whole engine (`engine.face`).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TARGET = 0.3  # seconds of CPU beyond Python's own start
PBEM = str(Path(sys.executable).parent / "pbem")


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _run(command: list[str], folder: Path) -> float:
    """The CPU seconds `command` took in `folder` (it must succeed)."""
    env = {k: v for k, v in os.environ.items() if k != "PBEM_CONFIG"}  # the embedded defaults
    before = _cpu()
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    spent = _cpu() - before
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    return spent


def _times(command: list[str], folder: Path, runs: int) -> tuple[float, float]:
    """The median and the least CPU seconds of `runs` runs (the least: a loaded machine's
    neighbours add to each run, never take away)."""
    spent = [_run(command, folder) for _ in range(runs)]
    return statistics.median(spent), min(spent)


# Typer's own start, for reference: one command with one option, as `pbem list` has
TYPER_ALONE = """
from pathlib import Path
import typer
app = typer.Typer()
@app.command()
def one(config: Path | None = typer.Option(None)) -> None: pass
@app.command()
def two() -> None: pass
app(["one"])
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dev.py bench-start", description=__doc__)
    parser.add_argument("--runs", type=int, default=7, help="runs of each command (median)")
    runs = parser.parse_args(argv).runs
    with tempfile.TemporaryDirectory() as temporary:
        demo, empty = Path(temporary) / "demo", Path(temporary) / "empty"
        demo.mkdir()
        empty.mkdir()
        players = ["--player", "Sina:you@localhost", "--bot", "Kai:greedy", "--bot", "Mele:greedy"]
        _run([PBEM, "new-game", *players], demo)
        _run([PBEM, "poll"], demo)  # the first mails into the local outbox
        _run([PBEM, "list"], empty)  # makes the database, with no game
        bare, least = _times([sys.executable, "-c", "pass"], demo, runs)
        print(
            f"CPU time beyond a bare `python -c pass` ({bare:.3f} s, least {least:.3f} s): "
            f"the median of {runs} runs (the least); target {TARGET} s"
        )
        commands = [
            ("pbem --version", [PBEM, "--version"], demo),
            ("pbem --help", [PBEM, "--help"], demo),
            ("pbem gm --help", [PBEM, "gm", "--help"], demo),
            ("pbem read", [PBEM, "read"], demo),
            ("pbem reply 1", [PBEM, "reply", "1"], demo),
            ("pbem list (one game)", [PBEM, "list"], demo),
            ("pbem list (empty database)", [PBEM, "list"], empty),
        ]
        width = max(len(name) for name, _, _ in commands)
        references = [
            ("import typer", [sys.executable, "-c", "import typer"], demo),
            ("a bare Typer command", [sys.executable, "-c", TYPER_ALONE], demo),
            ("import engine", [sys.executable, "-c", "import engine"], demo),
            ("import engine.face", [sys.executable, "-c", "import engine.face"], demo),
        ]
        width = max(len(name) for name, _, _ in commands + references)
        for name, command, folder in commands:
            median, fewest = _times(command, folder, runs)
            verdict = "met" if median - bare <= TARGET else "NOT met"
            print(f"  {name:<{width}}  {median - bare:6.3f} s ({fewest - least:.3f} s)  {verdict}")
        print("for reference (Typer alone: its import, and one command with one option):")
        for name, command, folder in references:
            median, fewest = _times(command, folder, runs)
            print(f"  {name:<{width}}  {median - bare:6.3f} s ({fewest - least:.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
