"""Every `pbem` command a host or a newcomer types first starts at once: what it loads, checked
by the modules a real run has imported (never by its time: `python3 dev.py bench-start`
prints that). `pbem list` on SQLite reads the file with sqlite3 alone and says the same as
the service's way of reading it."""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
from contextlib import closing
from importlib import import_module
from pathlib import Path

import pytest
from typer.testing import CliRunner

import engine
from pbem.core.config import Settings
from pbem.core.files import maildir
from pbem.flow.service import SeatSpec, Service
from pbem.host.cli import app, game_lines
from pbem.host.listing import quick_game_lines
from pbem.store.db import open_database, reading
from pbem.store.migrate import SCHEMA_VERSION
from tests.support.localmail import START, take_raw

ROOT = Path(__file__).resolve().parent.parent
# what no quick command may load: the ORM, the pictures, the export, the templates, the mail
# servers' clients, Rich's boxes, the rules (the engine's face loads every module of it),
# Pydantic (Typer 0.29 checked every option's value with it: 0.3 s of CPU; 0.28 does not),
# email_validator on the embedded defaults (0.1 s: the settings check addresses from a file)
HEAVY = (
    "sqlalchemy",
    "sqlmodel",
    "pbem.store.db",
    "pbem.store.models",
    "pbem.views.picture",
    "pbem.views.export",
    "pbem.views.render",
    "pbem.flow.service",
    "pbem.host.runner",
    "pbem.host.sending",
    "pbem.commands.gm",
    "jinja2",
    "babel",
    "aiosmtplib",
    "imapclient",
    "rich",
    "engine.face",
    "engine.state",
    "pydantic",
    "pydantic_core",
    "email_validator",
)
RUN = """
import json, sys
from pbem.host.cli import app
try:
    app(sys.argv[2:], prog_name="pbem")
except SystemExit as stop:
    code = stop.code
json.dump({"code": code, "modules": sorted(sys.modules)}, open(sys.argv[1], "w"))
"""


def _loaded(folder: Path, *arguments: str, failing: bool = False) -> set[str]:
    """The modules a real `pbem ARGUMENTS` run in `folder` imported (it must succeed, or
    with `failing` exit with 1)."""
    out = folder / "loaded.json"
    subprocess.run(
        [sys.executable, "-c", RUN, str(out), *arguments],
        cwd=folder,
        check=True,
        capture_output=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )
    said = json.loads(out.read_text())
    assert said["code"] in ((1,) if failing else (0, None)), said["code"]
    return set(said["modules"])


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY or m in HEAVY)


def test_importing_the_command_line_loads_no_implementation(tmp_path: Path) -> None:
    modules = _loaded(tmp_path, "--version")
    assert "pbem.host.cli" in modules
    assert _heavy(modules) == []
    assert _heavy(_loaded(tmp_path, "--help")) == []
    assert _heavy(_loaded(tmp_path, "gm", "--help")) == []


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """A folder on the embedded defaults with a demo game, its first mails in the outbox."""
    service = Service(
        open_database(tmp_path / "pbem-data" / "pbem.sqlite"),
        Settings(data_dir=tmp_path / "pbem-data"),
    )
    seats = [SeatSpec("Sina", "you@localhost", "blue"), SeatSpec("Kai", None, "red", "greedy")]
    service.new_game(seats, seed=1, now=START)
    outbox = maildir(service.settings.outbox_dir)
    for raw in take_raw(service):  # as `pbem poll` sends them on the embedded defaults
        outbox.add(raw)
    service.engine.dispose()
    return tmp_path


def test_read_reply_and_list_load_neither_the_database_nor_the_rules(demo: Path) -> None:
    for arguments in (["read"], ["read", "--list"], ["reply", "1"], ["list"]):
        assert _heavy(_loaded(demo, *arguments)) == [], arguments
    assert len(list((demo / "pbem-data" / "mail" / "inbox" / "new").iterdir())) == 1


@pytest.mark.slow  # two `pbem poll` processes; read, reply and list are checked above by default
def test_imapclient_is_loaded_only_to_read_imap(demo: Path) -> None:
    """`pbem poll` on the local Maildir never loads IMAPClient; on IMAP it does (here to be
    refused: nothing listens on the port)."""
    assert "imapclient" not in _loaded(demo, "poll")
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        imap = (
            'mail = "imap"\nfrom_address = "tongiaki@example.test"\n'
            f'[imap]\nhost = "127.0.0.1"\nport = {held.getsockname()[1]}\ntls = "none"\n'
            'user = "tongiaki"\n[smtp]\nhost = "127.0.0.1"\nport = 1\ntls = "none"\n'
        )
        (demo / "imap.toml").write_text(imap)
        assert "imapclient" in _loaded(demo, "poll", "--config", "imap.toml", failing=True)


def test_the_game_masters_help_is_the_registrys() -> None:
    from pbem.commands.gm import GM_COMMANDS

    result = CliRunner().invoke(app, ["gm", "--help"], env={"COLUMNS": "300"})
    changes = ", ".join(c.syntax for c in GM_COMMANDS if c.listed and not c.looks)
    looks = ", ".join(c.name for c in GM_COMMANDS.looks())
    assert f"{changes}; or {looks}" in " ".join(result.output.split())


def test_quick_list_says_what_the_services_way_says(demo: Path) -> None:
    path = demo / "pbem-data" / "pbem.sqlite"
    with closing(sqlite3.connect(path)) as db:
        db.execute("UPDATE seat SET resigned = 1, bot = 'greedy' WHERE name = 'Sina'")
        db.commit()
    quick = quick_game_lines(path)
    engine_ = open_database(path)
    with reading(engine_) as db:
        assert (
            quick
            == game_lines(db)
            == [
                "g1  running  decision 1    "
                "Sina (blue, resigned: greedy bot), Kai (red, greedy bot)"
            ]
        )
    engine_.dispose()


def test_quick_list_leaves_a_database_to_make_or_upgrade_to_the_service(tmp_path: Path) -> None:
    path = tmp_path / "pbem.sqlite"
    assert quick_game_lines(path) is None  # no file: the service makes it
    path.write_bytes(b"")
    assert quick_game_lines(path) is None  # no tables yet
    open_database(path).dispose()
    assert quick_game_lines(path) == []
    with closing(sqlite3.connect(path)) as db:
        db.execute(
            "UPDATE setting SET value = ? WHERE key = 'schema_version'", (SCHEMA_VERSION - 1,)
        )
        db.commit()
    assert quick_game_lines(path) is None  # older: `pbem list` upgrades it first


def test_pbem_list_upgrades_an_older_database_as_before(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with closing(sqlite3.connect(data / "pbem.sqlite")) as db:
        db.executescript((ROOT / "tests" / "fixtures" / "schema-v8-observers.sql").read_text())
    config = tmp_path / "pbem.toml"
    config.write_text(f'data_dir = "{data}"\n')
    result = CliRunner().invoke(app, ["list", "--config", str(config)])
    assert result.exit_code == 0, result.output
    with closing(sqlite3.connect(data / "pbem.sqlite")) as db:
        version = db.execute("SELECT value FROM setting WHERE key = 'schema_version'").fetchone()
    assert version == (str(SCHEMA_VERSION),)
    assert result.output == "\n".join(quick_game_lines(data / "pbem.sqlite") or []) + "\n"


def test_the_engines_light_names_are_its_faces() -> None:
    # the module behind the package's names, looked at as the package loads it (everything
    # else imports the names from `engine`: tests/test_engine_face.py)
    face = import_module("engine.face")
    for name in ("BOT_KINDS", "BotKind", "Joined", "Message", "N_", "counted"):
        assert getattr(engine, name) is getattr(face, name)
    assert sorted(engine.__all__) == sorted(["__version__", *face.__all__])
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, engine; engine.Message; print(sorted(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    assert "'engine.message'" in loaded and "'engine.state'" not in loaded
