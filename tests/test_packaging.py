"""The project installed as a host installs it (`pip install`, not editable) works on its own:
its templates, tile data and language catalogs come with it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from email import message_from_bytes, policy
from pathlib import Path

from engine import __version__

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("pyproject.toml", "engine", "pbem", "templates", "docs", "README.md")


def test_an_installed_copy_creates_a_game_and_mails_it(tmp_path: Path) -> None:
    source = tmp_path / "source"  # a clean copy: no build/ folder of the checkout can help
    source.mkdir()
    for name in SOURCES:
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy
        copy(ROOT / name, source / name)
    target = tmp_path / "site"
    pip = ("-m", "pip", "install", "--quiet", "--no-deps", "--disable-pip-version-check")
    pip += ("--no-build-isolation",)  # the pinned build backend is in the dev extras
    _run(tmp_path, {}, *pip, "--target", str(target), str(source))
    assert sorted(p.name for p in (target / "pbem" / "templates").glob("*.j2")) == sorted(
        p.name for p in (ROOT / "templates").glob("*.j2")
    )
    assert (target / "pbem" / "docs" / "rules.md").read_text() == (
        ROOT / "docs" / "rules.md"
    ).read_text()
    # a catalog broken in the installed copy: said once, at the start; the others still serve
    broken = target / "pbem" / "locale" / "fi" / "LC_MESSAGES" / "messages.po"
    broken.write_text(broken.read_text() + '\nmsgid "half a message\n', encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    env = {"PYTHONPATH": str(target)}
    # Ann reads English, Lea Italian: the catalog shipped as package data, compiled at first use
    players = ("--player", "Ann:ann@example.test", "--player", "Lea:lea@example.test::it")
    assert _run(work, env, "-m", "pbem.host.cli", "new-game", *players).strip() == "1"
    where = "from importlib.util import find_spec as f; print(f('pbem').origin, f('engine').origin)"
    assert all(f.startswith(str(target)) for f in _run(work, env, "-c", where).split())
    # Ann's and Lea's welcome and Ann's set-up prompt, rendered from the installed templates
    polled = _poll(work, env)
    assert polled.returncode == 0 and "sent 3 mails, 0 failed" in polled.stdout, polled.stderr
    said = [line for line in polled.stderr.splitlines() if "catalog" in line]
    assert len(said) == 1 and "ERROR catalogs: fi: " in said[0], polled.stderr
    assert "cannot be compiled" in said[0] and said[0].endswith("their players read English")
    mails = [
        message_from_bytes(path.read_bytes(), policy=policy.default)
        for path in (work / "pbem-data" / "mail" / "outbox" / "new").iterdir()
    ]
    assert len(mails) == 3
    lea = [m for m in mails if m["To"] == "lea@example.test"]
    assert [str(m["Subject"]) for m in lea] == [
        "[Tongiaki g1] Ti diamo il benvenuto nella partita 1"
    ]
    body = lea[0].get_body(("plain",))
    assert body is not None and "Ti diamo il benvenuto nella partita 1" in body.get_content()
    # `python -m pbem` of the installed copy: its help and its version
    shown = " ".join(_run(work, env, "-m", "pbem", "--help").split())
    assert "Usage: python -m pbem [OPTIONS] COMMAND" in shown
    assert all(f" {command} " in shown for command in ("new-game", "poll", "gm", "serve", "show"))
    assert _run(work, env, "-m", "pbem", "--version") == f"pbem {__version__}\n"


def _run(cwd: Path, env: dict[str, str], *args: str) -> str:
    """This Python with `args`, in `cwd`, on the embedded defaults; its output."""
    done = subprocess.run(
        [sys.executable, *args], cwd=cwd, env=_environment(env), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _poll(cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`pbem poll` in `cwd`, its exit status and both outputs."""
    return subprocess.run(
        [sys.executable, "-m", "pbem.host.cli", "poll"],
        cwd=cwd,
        env=_environment(env),
        capture_output=True,
        text=True,
    )


def _environment(env: dict[str, str]) -> dict[str, str]:
    """This process's environment, `env` added, without a configuration file."""
    return {**{k: v for k, v in os.environ.items() if k != "PBEM_CONFIG"}, **env}
