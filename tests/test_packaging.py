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
    work = tmp_path / "work"
    work.mkdir()
    env = {"PYTHONPATH": str(target)}
    new_game = ("new-game", "--player", "Ann:ann@example.test", "--bot", "Kai:greedy")
    assert _run(work, env, "-m", "pbem.host.cli", *new_game).strip() == "1"
    # a player who reads Italian: the catalog shipped as package data, compiled at first use
    italian = ("new-game", "--player", "Lea:lea@example.test::it", "--bot", "Kai:greedy")
    assert _run(work, env, "-m", "pbem.host.cli", *italian).strip() == "2"
    where = (
        "import pbem.views.render, pbem.views.rulestext, engine.tiles; "
        "print(pbem.views.render.__file__, pbem.views.rulestext.rules_path(), "
        "engine.tiles.__file__)"
    )
    assert all(f.startswith(str(target)) for f in _run(work, env, "-c", where).split())
    # Ann's and Lea's welcome and set-up prompt, rendered from the installed templates
    polled = _poll(work, env)
    assert polled.returncode == 0 and "sent 4 mails, 0 failed" in polled.stdout, polled.stderr
    assert "catalog" not in polled.stderr  # every listed language's catalog compiles
    mails = [
        message_from_bytes(path.read_bytes(), policy=policy.default)
        for path in (work / "pbem-data" / "mail" / "outbox" / "new").iterdir()
    ]
    assert len(mails) == 4
    lea = [m for m in mails if m["To"] == "lea@example.test"]
    subjects = sorted(str(m["Subject"]) for m in lea)
    assert subjects[0] == "[Tongiaki g2] Ti diamo il benvenuto nella partita 2", subjects
    welcome = next(m for m in lea if "benvenuto" in str(m["Subject"]))
    body = welcome.get_body(("plain",))
    assert body is not None and "Ti diamo il benvenuto nella partita 2" in body.get_content()
    # `python -m pbem` of the installed copy: its help and its version
    shown = " ".join(_run(work, env, "-m", "pbem", "--help").split())
    assert "Usage: python -m pbem [OPTIONS] COMMAND" in shown
    assert all(f" {command} " in shown for command in ("new-game", "poll", "gm", "serve", "show"))
    assert _run(work, env, "-m", "pbem", "--version") == f"pbem {__version__}\n"
    # a broken catalog in the installed copy: the service says so once, at its start
    broken = target / "pbem" / "locale" / "it" / "LC_MESSAGES" / "messages.po"
    broken.write_text(broken.read_text() + '\nmsgid "half a message\n', encoding="utf-8")
    polled = _poll(work, env)
    assert polled.returncode == 0, polled.stderr
    said = [line for line in polled.stderr.splitlines() if "catalog" in line]
    assert len(said) == 1 and "ERROR catalogs: it: " in said[0], polled.stderr
    assert "cannot be compiled" in said[0] and said[0].endswith("their players read English")


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
