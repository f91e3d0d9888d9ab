"""The project installed as a host installs it (`pip install`, not editable) works on its own:
its templates and tile data come with it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

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
    assert _run(work, env, "-m", "pbem.cli", *new_game).strip() == "1"
    where = (
        "import pbem.render, pbem.rulestext, engine.tiles; "
        "print(pbem.render.__file__, pbem.rulestext.rules_path(), engine.tiles.__file__)"
    )
    assert all(f.startswith(str(target)) for f in _run(work, env, "-c", where).split())
    # Ann's welcome and her set-up prompt, rendered from the installed templates
    assert "sent 2 mails, 0 failed" in _run(work, env, "-m", "pbem.cli", "poll")
    assert len(list((work / "pbem-data" / "mail" / "outbox" / "new").iterdir())) == 2


def _run(cwd: Path, env: dict[str, str], *args: str) -> str:
    """This Python with `args`, in `cwd`, on the embedded defaults; its output."""
    environment = {k: v for k, v in os.environ.items() if k != "PBEM_CONFIG"}
    done = subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env={**environment, **env},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
