"""Private files: the database holds every seat's reply-token secret, so outside systemd (a
umask of 022) the service still keeps it, its -wal and -shm, its backups and the data folder
from the other users of the host; `check-config` warns of files left open to them."""

from __future__ import annotations

import os
import sqlite3
import stat
from contextlib import closing
from pathlib import Path

from typer.testing import CliRunner

from pbem.core.config import Settings, settings_toml
from pbem.host.cli import app

runner = CliRunner()


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _pbem(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _config(tmp_path: Path) -> tuple[str, Path]:
    config = tmp_path / "pbem.toml"
    data = tmp_path / "data"
    config.write_text(settings_toml(Settings(data_dir=data)))
    return str(config), data


def test_a_service_under_umask_022_keeps_the_database_its_journal_and_backups_private(
    tmp_path: Path,
) -> None:
    os.umask(0o022)  # a shell's usual umask: files 0644, folders 0755
    config, data = _config(tmp_path)
    _pbem("new-game", "--player", "Ann:ann@example.org", "--bot", "Kai:greedy", "--config", config)
    database = data / "pbem.sqlite"
    with closing(sqlite3.connect(database)) as db:  # opened while the WAL is in use
        db.execute("SELECT count(*) FROM seat").fetchone()
        assert Path(f"{database}-wal").exists() and Path(f"{database}-shm").exists()
        copy = tmp_path / "backups" / "pbem-1.sqlite"
        _pbem("backup", str(copy), "--config", config)
        for path in (database, Path(f"{database}-wal"), Path(f"{database}-shm"), copy):
            assert _mode(path) == 0o600, path
    assert _mode(data) == 0o700
    with closing(sqlite3.connect(copy)) as db:  # the copy is whole, not an empty private file
        assert db.execute("SELECT count(*) FROM seat").fetchone()[0] == 2


def test_files_left_open_by_an_older_version_are_named_and_then_made_private(
    tmp_path: Path,
) -> None:
    os.umask(0o022)
    config, data = _config(tmp_path)
    _pbem("new-game", "--player", "Ann:ann@example.org", "--bot", "Kai:greedy", "--config", config)
    database = data / "pbem.sqlite"
    data.chmod(0o755)  # as a version before 0.9 left them outside systemd
    database.chmod(0o644)
    checked = runner.invoke(app, ["check-config", "--config", config])
    privacy = [line for line in checked.output.splitlines() if "privacy" in line]
    assert privacy and privacy[0].startswith("WARN")
    assert f"{data} (755)" in privacy[0] and f"{database} (644)" in privacy[0]
    assert _mode(database) == 0o644  # check-config only looks
    _pbem("list", "--config", config)  # any command that opens the database
    assert (_mode(data), _mode(database)) == (0o700, 0o600)
    again = runner.invoke(app, ["check-config", "--config", config])
    assert any(line.startswith("OK    privacy") for line in again.output.splitlines())
