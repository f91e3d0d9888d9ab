"""A database that cannot be used: every command says why in one line `error: ...`, never a
traceback, and leaves with the exit status of README "Logs and troubleshooting": 4 when
restarting cannot help (damaged, read-only, a folder that cannot be made or read), 5 when a
later try may work (a full disk, a long lock). `check-config` shows it as a FAIL line.

Each failure is real, on a copy of a database the service made for a game played a little:
a tmpfs remounted read-only, a tmpfs filled to the last byte (both need root to mount), the
back half of the seat table's root page overwritten, a data directory under a plain file, and
a data directory of mode 000 read by a process without CAP_DAC_OVERRIDE.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

import pbem.store.db
import pbem.views.render
from pbem.core.config import Settings, settings_toml
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec
from pbem.host.cli import app
from pbem.store.db import damage
from tests.support.localmail import START, later, local_service, reply_to, take_mail

runner = CliRunner()
PBEM = str(Path(sys.executable).parent / "pbem")
COMMANDS = {
    "list": ["list"],
    "show": ["show", "1"],
    "new-game": ["new-game", "--player", "Cy:cy@example.test", "--player", "Di:di@example.test"],
    "poll": ["poll"],
    "gm": ["gm", "1", "pause"],
    "backup": ["backup", "COPY"],
    "check-config": ["check-config"],
}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database file made by the service: two players, five decisions in."""
    service = local_service(tmp_path_factory.mktemp("played"))
    seats = [
        SeatSpec("Ann", "ann@example.test", "red"),
        SeatSpec("Bob", "bob@example.test", "blue"),
    ]
    service.new_game(seats, seed=4, now=START)
    for minute in range(1, 6):
        prompt = [m for m in take_mail(service) if m["X-Tongiaki-Decision"]][-1]
        handle(service, reply_to(prompt, "1"), later(minute))
    service.engine.dispose()
    database = service.settings.database_path
    assert not Path(f"{database}-wal").exists()  # every page is in the file itself
    return database


@dataclass
class Broken:
    kind: str
    status: int  # of every command but check-config
    says: str  # in the error line
    config: Path
    database: Path
    copy: Path  # where `pbem backup` is asked to write


def _tmpfs(where: Path, size: str) -> None:
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"mounting a tmpfs needs root: {mounted.stderr.strip()}")


def _fill(disk: Path) -> None:
    """Write until the disk has not one byte left."""
    with (disk / "filler").open("wb", buffering=0) as filler:
        for size in (1 << 16, 1 << 12, 1 << 9, 1):
            try:
                while True:
                    filler.write(b"\0" * size)
            except OSError as error:
                assert error.errno == 28  # ENOSPC
    assert os.statvfs(disk).f_bavail == 0


def _seat_root(database: Path) -> tuple[int, int]:
    with closing(sqlite3.connect(database)) as db:
        (size,) = db.execute("PRAGMA page_size").fetchone()
        (root,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'seat'").fetchone()
    return int(size), int(root)


def _damage(database: Path) -> None:
    """Garbage over the back half of the seat table's root page, where its rows are."""
    size, root = _seat_root(database)
    with database.open("r+b") as file:
        file.seek((root - 1) * size + size // 2)
        file.write(bytes([0xFF]) * (size // 2))
    assert damage(database)


@pytest.fixture(params=["read-only", "full", "damaged", "missing"])
def broken(request: pytest.FixtureRequest, tmp_path: Path, played: Path) -> Iterator[Broken]:
    kind = request.param
    disk = tmp_path / "disk"
    data = disk / "data"
    if kind in ("read-only", "full"):
        _tmpfs(disk, "2m")
    if kind == "missing":
        disk.write_text("a file where the data directory's parent should be\n")
    else:
        data.mkdir(parents=True)
        shutil.copy(played, data / "pbem.sqlite")
    if kind == "read-only":
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
    elif kind == "full":
        _fill(disk)
    elif kind == "damaged":
        _damage(data / "pbem.sqlite")
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(Settings(data_dir=data, from_address="t@example.test")))
    status, says = {
        "read-only": (4, f"the database {data}/pbem.sqlite is read-only: the file system holding"),
        "full": (5, f"the disk holding {data} is full: free some space"),
        "damaged": (4, f"the database {data}/pbem.sqlite is damaged (PRAGMA quick_check: "),
        "missing": (4, f"{data} does not exist and cannot be made ({disk} is not a directory)"),
    }[kind]
    try:
        yield Broken(kind, status, says, config, data / "pbem.sqlite", tmp_path / "copy.sqlite")
    finally:
        if kind in ("read-only", "full"):
            subprocess.run(["umount", "--lazy", str(disk)], check=True)


def _args(command: str, broken: Broken) -> list[str]:
    args = [str(broken.copy) if a == "COPY" else a for a in COMMANDS[command]]
    return [*args, "--config", str(broken.config)]


def _one_error_line(result: Result, status: int, says: str) -> str:
    assert "Traceback" not in result.output, result.output
    assert result.exit_code == status, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), lines[0]
    assert says in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_command_on_a_database_that_cannot_be_used_says_why_in_one_line(
    broken: Broken, command: str
) -> None:
    result = runner.invoke(app, _args(command, broken))
    if command == "check-config":
        assert result.exit_code == 1, result.output
        assert "Traceback" not in result.output and result.stderr == ""
        failed = [line for line in result.stdout.splitlines() if line.startswith("FAIL  database")]
        assert len(failed) == 1 and broken.says in failed[0], result.stdout
    else:
        _one_error_line(result, broken.status, broken.says)
    assert not broken.copy.exists() and not list(broken.copy.parent.glob("copy.sqlite*"))


def test_check_config_names_the_damaged_page(tmp_path: Path, played: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(played, data / "pbem.sqlite")
    _damage(data / "pbem.sqlite")
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(Settings(data_dir=data)))
    result = runner.invoke(app, ["check-config", "--config", str(config)])
    _, root = _seat_root(data / "pbem.sqlite")
    assert result.exit_code == 1
    failed = f"FAIL  database      the database {data}/pbem.sqlite is damaged (PRAGMA quick_check: "
    assert f"{failed}On tree page {root} cell " in result.stdout
    assert "restore a backup, see README 'Backing up'" in result.stdout


def test_a_data_directory_the_user_cannot_read(tmp_path: Path, played: Path) -> None:
    """As root, mode 000 stops nobody: the commands run in a process without
    CAP_DAC_OVERRIDE (one process, through CliRunner: starting pbem seven times is slow)."""
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(played, data / "pbem.sqlite")
    data.chmod(0)
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(Settings(data_dir=data)))
    drop = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
    copy = tmp_path / "copy.sqlite"
    runs = [
        [str(copy) if a == "COPY" else a for a in args] + ["--config", str(config)]
        for args in COMMANDS.values()
    ]
    try:
        ran = subprocess.run(
            [*drop, sys.executable, "-c", RUN_EACH, json.dumps(runs)],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=Path(__file__).parent.parent,
        )
    finally:
        data.chmod(0o700)
    assert ran.returncode == 0, ran.stderr
    says = f"the folder {data} cannot be read by user "
    for command, (status, out, err) in zip(COMMANDS, json.loads(ran.stdout), strict=True):
        assert "Traceback" not in out + err, (command, err)
        if command == "check-config":
            assert status == 1, out
            assert f"FAIL  database      {says}" in out
            continue
        assert status == 4, (command, out, err)
        assert err.startswith(f"error: {says}") and len(err.splitlines()) == 1, (command, err)
    assert not copy.exists()


RUN_EACH = """
import json, sys
from typer.testing import CliRunner
from pbem.host.cli import app
runs = [CliRunner().invoke(app, args) for args in json.loads(sys.argv[1])]
print(json.dumps([[run.exit_code, run.stdout, run.stderr] for run in runs]))
"""


def test_serve_on_a_damaged_database_stops_at_once_with_status_4(
    tmp_path: Path, played: Path
) -> None:
    """Before it takes the service lock or polls: under systemd it is not restarted."""
    data = tmp_path / "data"
    data.mkdir(mode=0o700)  # private: no warning before the error
    shutil.copy(played, data / "pbem.sqlite")
    _damage(data / "pbem.sqlite")
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(Settings(data_dir=data, poll_seconds=0.1)))
    served = subprocess.run(  # polling every 0.1 s, it would never stop by itself
        [PBEM, "serve", "--config", str(config)], capture_output=True, text=True, timeout=120
    )
    assert served.returncode == 4, served.stderr
    assert served.stderr.startswith(f"error: the database {data}/pbem.sqlite is damaged (PRAGMA")
    assert len(served.stderr.splitlines()) == 1 and served.stdout == ""
    assert not (data / "pbem.sqlite.lock").exists()


def test_backup_removes_a_copy_that_fails_the_integrity_check(tmp_path: Path, played: Path) -> None:
    """`quick_check` passes a table whose index disagrees with it; the copy's
    `integrity_check` does not, and no file that looks like a backup is left."""
    data = tmp_path / "data"
    data.mkdir()
    database = data / "pbem.sqlite"
    shutil.copy(played, database)
    with closing(sqlite3.connect(database)) as db:
        db.execute("PRAGMA writable_schema = ON")  # the index now claims another column
        db.execute(
            "UPDATE sqlite_master SET sql = replace(sql, '(game_id)', '(seat)') "
            "WHERE name = 'ix_seat_game_id'"
        )
        db.commit()
    assert damage(database) == [] and damage(database, thorough=True)
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(Settings(data_dir=data)))
    copy = tmp_path / "backups" / "copy.sqlite"
    result = runner.invoke(app, ["backup", str(copy), "--config", str(config)])
    line = _one_error_line(
        result, 4, f"the copy of {database} is damaged (PRAGMA integrity_check: row "
    )
    assert f"so {copy} was removed" in line
    assert list(copy.parent.iterdir()) == []


def test_a_database_locked_too_long_is_tried_again_later(
    tmp_path: Path, played: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pbem.store.db, "BUSY_SECONDS", 1)
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(played, data / "pbem.sqlite")
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(Settings(data_dir=data)))
    with closing(sqlite3.connect(data / "pbem.sqlite", isolation_level=None)) as writer:
        writer.execute("BEGIN IMMEDIATE")
        result = runner.invoke(app, ["gm", "1", "pause", "--config", str(config)])
        writer.execute("ROLLBACK")
    _one_error_line(
        result, 5, f"the database {data}/pbem.sqlite stayed locked by another process for 1 s"
    )


def test_an_unexpected_failure_is_one_line_that_asks_for_a_report(
    tmp_path: Path, played: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_renderer(*_: object) -> str:
        raise ValueError("no board today")

    monkeypatch.setattr(pbem.views.render, "render_board_text", broken_renderer)
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(played, data / "pbem.sqlite")
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(Settings(data_dir=data)))
    result = runner.invoke(app, ["show", "1", "--config", str(config)])
    line = _one_error_line(result, 1, "error: ValueError (at pbem/host/cli.py:")
    assert line.endswith(": no board today: this is a bug: please report it with the log")


def test_bad_input_is_one_line_with_status_2(tmp_path: Path, played: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(played, data / "pbem.sqlite")
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(Settings(data_dir=data)))
    latin = tmp_path / "latin-1.toml"
    latin.write_bytes("from_name = 'Tongiaki à Tonga'\n".encode("latin-1"))
    for args, says in (
        (["show", "99999999999999999999"], "error: a number or time out of range: "),
        (["poll", "--now", "9999-12-31T23:59:59"], "error: a number or time out of range: "),
        (["list", "--config", str(latin)], "latin-1.toml is not UTF-8 text (byte 22)"),
    ):
        args = args if "--config" in args else [*args, "--config", str(config)]
        _one_error_line(runner.invoke(app, args), 2, says)
    kicked = runner.invoke(app, ["gm", "1", "kick", "²", "--config", str(config)])
    assert kicked.exit_code == 2 and "Traceback" not in kicked.output
