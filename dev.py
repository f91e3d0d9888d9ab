#!/usr/bin/env python3
"""The two commands of the README: `python3 dev.py run` and `python3 dev.py test`.

Each one first makes the virtual environment `.venv` (again whenever pyproject.toml
changes) with nothing but the Python that runs this script.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / "pyproject.sha256"


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_venv(extras: str = "dev") -> Path:
    """Create or refresh .venv so that it holds the project (with `extras`: "dev" for the
    tests and tools, "" for running the service alone, as `python3 dev.py run` does)."""
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    have = STAMP.read_text().split() if STAMP.exists() and venv_python().exists() else []
    if have[:1] == [wanted] and (not extras or extras in have[1:]):
        return venv_python()
    what = "the service and the tools of the tests" if extras else "what the service needs"
    print(f"Preparing .venv with {what} (first run, or pyproject.toml changed):", flush=True)
    if not venv_python().exists():
        print("  making the virtual environment ...", flush=True)
    venv.EnvBuilder(with_pip=True, clear=False).create(VENV)
    target = f"{ROOT}[{extras}]" if extras else str(ROOT)
    _pip(str(venv_python()), "-e", target)
    STAMP.write_text(" ".join([wanted, *([extras] if extras else [])]))
    print("  .venv is ready", flush=True)
    return venv_python()


def _pip(python: str, *args: str) -> None:
    """pip install, showing one line per package as it goes (a first install takes a
    minute or more on a busy machine); pip's whole output only if it fails."""
    command = [python, "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar"]
    child = subprocess.Popen(
        [*command, "off", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    said: list[str] = []
    assert child.stdout is not None
    for line in child.stdout:
        said.append(line)
        if line.startswith(("Collecting ", "Installing collected", "Successfully installed")):
            shown = line.strip()
            print(f"  {shown[:100]}{'...' if len(shown) > 100 else ''}", flush=True)
    if child.wait() != 0:
        print("".join(said), end="", file=sys.stderr)
        raise SystemExit(f"pip failed (exit status {child.returncode}); see above")


# what the tests run for real, by the program's name: the Debian package that has it
DEBIAN = {
    "dovecot": "dovecot-imapd",
    "chromium": "chromium",
    "systemd-analyze": "systemd",
    "initdb": "postgresql",  # Debian keeps it in /usr/lib/postgresql/VERSION/bin
}


def _installed(program: str) -> bool:
    return (
        bool(shutil.which(program))
        or Path(f"/usr/sbin/{program}").exists()
        or any(Path("/usr/lib/postgresql").glob(f"*/bin/{program}"))
    )


def ensure_debian(programs: tuple[str, ...] = tuple(DEBIAN)) -> int:
    """Install from Debian what the tests need and is missing: Dovecot's IMAP server for the
    mail tests, Chromium for the HTML mails, systemd-analyze to check the systemd unit,
    PostgreSQL's server for the tests of the PostgreSQL backend.

    As root: `apt-get install` (after `apt-get update` only if the install fails without it).
    Otherwise print what to install and return non-zero.
    """
    missing = [DEBIAN[p] for p in programs if not _installed(p)]
    if not missing:
        return 0
    install = ["apt-get", "install", "-y", "--no-install-recommends", *missing]
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    if not root or not shutil.which("apt-get"):
        print(
            f"The tests need {', '.join(missing)}, which is not installed. Install it as root "
            f"with:\n    {' '.join(install)}\nthen run `python3 dev.py test` again.",
            file=sys.stderr,
        )
        return 1
    print(f"Installing {', '.join(missing)} from Debian for the tests ...", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}

    def quietly(command: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, env=env, capture_output=True, text=True)

    result = quietly(install)
    if result.returncode != 0:
        updated = quietly(["apt-get", "update"])
        result = quietly(install) if updated.returncode == 0 else updated
    if result.returncode != 0:
        print(result.stdout + result.stderr, file=sys.stderr)
        print(f"Could not install {', '.join(missing)} (see above).", file=sys.stderr)
        return result.returncode
    return 0


def run(python: Path, *args: str, env: dict[str, str] | None = None) -> int:
    """Run the venv's Python; Ctrl-C stops the child cleanly instead of killing this script."""
    child = subprocess.Popen([str(python), *args], cwd=ROOT, env=env)
    while True:
        try:
            return child.wait()
        except KeyboardInterrupt:
            if child.poll() is None:  # a terminal sends it to both; a lone kill to us only
                child.send_signal(signal.SIGINT)


COMMANDS = {
    "run": ["-m", "pbem", "demo"],  # the service on its embedded defaults, with a demo game
    "watch": ["-m", "tools.demo"],  # a whole bot game in the terminal
    "bench": ["-m", "tools.bench"],  # the engine's speed
    "bench-peer": ["-m", "tools.bench_peer"],  # ours beside lakenen/tongiaki's, interleaved
    "bench-mail": ["-m", "tests.bench_mail"],  # the mail loop's speed through real servers
    "bench-handle": ["-m", "tests.bench_handle"],  # a move's CPU in one process, no servers
    "bench-idle": ["-m", "tests.bench_idle"],  # from a delivery to IMAP IDLE's report of it
    "bench-size": ["-m", "tests.bench_mail_size"],  # KB of mail per reply and per kind
    "bench-hostile": ["-m", "tests.bench_hostile"],  # the slowest of 5,000 hostile mails
    "bench-scale": ["-m", "tests.bench_scale"],  # pbem list of 10,000 games, cache, compact
    "bench-picture": ["-m", "tests.bench_picture"],  # ms and bytes of the board picture
    "bench-bots": ["-m", "tools.bench_bots"],  # the expert bot's wins against greedy and random
    "bench-start": ["-m", "tests.bench_start"],  # CPU each pbem command takes to start
    "golden": ["-m", "tests.samples"],  # rewrite the golden files of the mails
    "screenshots": ["-m", "tests.screenshots"],  # docs/screenshots of every kind of mail
    "i18n": ["-m", "tools.i18n"],  # the catalogs of the players' languages (see its --help)
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {*COMMANDS, "test"}:
        print(f"usage: python3 dev.py {'|'.join([*COMMANDS, 'test'])} [args...]", file=sys.stderr)
        return 2
    command, rest = argv[0], argv[1:]
    python = ensure_venv("" if command == "run" else "dev")  # running needs no test tools
    if command in ("bench-mail", "bench-idle") and ensure_debian(("dovecot",)) != 0:
        return 1
    if command == "screenshots" and ensure_debian(("chromium",)) != 0:
        return 1
    if command in COMMANDS:
        return run(python, *COMMANDS[command], *rest)
    code = ensure_debian()
    if code != 0:
        return code
    for step in (["-m", "ruff", "check", "."], ["-m", "ruff", "format", "--check", "."]):
        code = run(python, *step)
        if code != 0:
            return code
    # The tests keep compiled files (in __pycache__, ignored by git) even where the shell says
    # PYTHONDONTWRITEBYTECODE: else each worker rewrites the asserts of every test module
    # again (some 10 s of CPU) and each `pbem` process a test starts compiles the project.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    # mypy's incremental cache outside the clone, shared by every clone of the user (as
    # .ci/run's): a cold check costs some 25 s of CPU beside pytest, a warm one under a second
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    env.setdefault("MYPY_CACHE_DIR", str(cache / "tongiaki-pbem" / "mypy"))
    # the project's modules compiled once, before the tests start: else, in a fresh clone,
    # the workers and the `pbem` processes the tests start compile them again and again
    # (some 40 s of CPU; a second run took 21 s less); quick when they are compiled already
    code = run(python, "-m", "compileall", "-q", "pbem", "engine", "tools", "tests", env=env)
    if code != 0:
        return code
    # mypy runs beside pytest (two workers): it fills the time pytest's workers wait on
    # servers and subprocesses. What it says is shown only when it finds a fault, so that
    # pytest's summary stays the last line of a green run.
    typing = subprocess.Popen(
        [str(python), "-m", "mypy"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    # two workers that take each other's tests when one runs out (a long test last on one
    # worker would leave the other idle)
    workers = [] if "-n" in rest else ["-n", "2", "--dist", "worksteal"]
    code = run(python, "-m", "pytest", *workers, *rest, env=env)
    said, _ = typing.communicate()
    if typing.returncode != 0:
        print(f"mypy found faults:\n{said.decode(errors='replace')}", end="", flush=True)
    return code or typing.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
