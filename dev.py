#!/usr/bin/env python3
"""The two commands of the README: `python3 dev.py run` and `python3 dev.py test`.

Each one first makes the virtual environment `.venv` (again whenever pyproject.toml
changes) with nothing but the Python that runs this script.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / "pyproject.sha256"


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_venv() -> Path:
    """Create or refresh .venv so that it holds the project and its dev dependencies."""
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted and venv_python().exists():
        return venv_python()
    print("Preparing .venv (first run, or pyproject.toml changed) ...", flush=True)
    venv.EnvBuilder(with_pip=True, clear=False).create(VENV)
    python = str(venv_python())
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "-e", f"{ROOT}[dev]"], check=True)
    STAMP.write_text(wanted)
    return venv_python()


def run(python: Path, *args: str) -> int:
    return subprocess.run([str(python), *args], cwd=ROOT).returncode


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"run", "test", "bench"}:
        print("usage: python3 dev.py run|test|bench [args...]", file=sys.stderr)
        return 2
    python = ensure_venv()
    command, rest = argv[0], argv[1:]
    if command == "run":
        return run(python, "-m", "engine.demo", *rest)
    if command == "bench":
        return run(python, "-m", "engine.bench", *rest)
    for step in (
        ["-m", "ruff", "check", "."],
        ["-m", "mypy"],
        ["-m", "pytest", *rest],
    ):
        code = run(python, *step)
        if code != 0:
            return code
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
