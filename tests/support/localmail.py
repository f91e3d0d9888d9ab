"""Playing through the service without mail servers: replies go straight to `handle`,
and mails are read from the outbox table."""

from __future__ import annotations

import atexit
import email
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from sqlalchemy import Engine, delete
from sqlmodel import col, select

from pbem.core.config import Settings, settings_toml
from pbem.flow.service import Service
from pbem.store.db import open_database, session
from pbem.store.models import Outbox
from tests.support.reading import READING

START = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


def local_service(tmp_path: Path, **changes: object) -> Service:
    settings = replace(
        Settings(data_dir=tmp_path / "data", from_address="tongiaki@example.test"), **changes
    )  # type: ignore[arg-type]
    return Service(new_database(settings.database), settings)


def new_database(where: Path | str) -> Engine:
    """`open_database(where)` of a new SQLite file, copied from one made and migrated once per
    process (migrating a new file costs some 30 ms of CPU, a copy 4 ms; the upgrades are
    tested from empty and old files in tests/test_migrate.py); a file already there or a
    PostgreSQL URL is opened as it is."""
    if isinstance(where, Path) and not where.exists():
        where.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # as open_database makes it
        with (
            open(os.open(where, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600), "wb") as copy,
            _template().open("rb") as template,
        ):
            shutil.copyfileobj(template, copy)  # made private, as open_database makes a file
    return open_database(where)


_TEMPLATES: list[Path] = []


def _template() -> Path:
    """The migrated, empty database this process copies (made at its first use)."""
    if not _TEMPLATES:
        folder = Path(tempfile.mkdtemp(prefix="pbem-template-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        made = folder / "pbem.sqlite"
        open_database(made).dispose()  # its last connection closed: no -wal left beside it
        assert not Path(f"{made}-wal").exists()
        _TEMPLATES.append(made)
    return _TEMPLATES[0]


def poll_command(service: Service, folder: Path, now: datetime) -> list[str]:
    """`pbem poll` on `service`'s settings (written into `folder`), at `now`."""
    config = folder / "pbem.toml"
    config.write_text(settings_toml(service.settings))
    pbem = str(Path(sys.executable).parent / "pbem")
    return [pbem, "poll", "--config", str(config), "--now", now.isoformat()]


def handled(database: Path) -> int:
    """The inbound messages a service recorded, counted by a plain reader: in WAL mode it
    never waits for the writer, where the service's sessions (BEGIN IMMEDIATE) would queue
    behind a running service's transactions."""
    with closing(sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True)) as reader:
        return int(reader.execute("SELECT count(*) FROM inbound").fetchone()[0])


def killed_mid_batch(
    command: list[str], database: Path, env: dict[str, str] | None = None, counting: str = ""
) -> int:
    """Run `command` (a poll or a service) and SIGKILL it right after it committed its first
    transaction that recorded a message (it stops itself there: tests/support/stopper, so
    the kill lands between two batches however loaded the machine is); how many it had
    recorded by then. `counting` ("outbox"): stop after the first transaction that added a
    row to that table instead."""
    before = handled(database)
    env = {
        **(os.environ if env is None else env),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(STOPPER), os.environ.get("PYTHONPATH")])),
        "PBEM_TEST_STOP_AFTER_RECORD": str(database.resolve()),
        "PBEM_TEST_STOP_COUNTING": counting or "inbound",
    }
    started = subprocess.Popen(
        command, env=env, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 600  # a bound for a loaded machine, not a figure
        while not _stopped(started.pid):
            assert started.poll() is None, f"{command[1]} ended before it recorded a message"
            assert time.monotonic() < deadline, f"{command[1]} recorded no message in 600 s"
            time.sleep(0.01)
    finally:
        started.send_signal(signal.SIGKILL)
        started.wait(60)
    return handled(database) - before


STOPPER = Path(__file__).parent / "stopper"


def _stopped(pid: int) -> bool:
    """Whether the process stopped itself (SIGSTOP): its state in /proc is T."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] == "T"


def take_mail(service: Service) -> list[EmailMessage]:
    """Every queued mail, oldest first, removed from the outbox."""
    return [parse(raw) for raw in take_raw(service)]


def take_raw(service: Service) -> list[bytes]:
    """Every queued mail as it would be sent, oldest first, removed from the outbox."""
    with session(service.engine) as db:
        rows = list(db.exec(select(Outbox.id, Outbox.message).order_by(col(Outbox.id))))
        if rows:
            db.exec(delete(Outbox).where(col(Outbox.id).in_([id_ for id_, _ in rows])))
            db.commit()
    return [message for _, message in rows]


def parse(raw: bytes) -> EmailMessage:
    """A mail as `email.policy.default` parses it (with `READING`, which is the same policy
    with its header fields kept)."""
    message = email.message_from_bytes(raw, policy=READING)
    assert isinstance(message, EmailMessage)
    return message


def text_of(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return str(part.get_content())


def option_count(prompt: EmailMessage) -> int:
    """How many numbered options a prompt lists."""
    return len(re.findall(r"^ *\d+\) ", text_of(prompt), re.MULTILINE))


def reply_to(
    prompt: EmailMessage,
    body: str,
    *,
    sender: str | None = None,
    quote: bool = True,
    **headers: str,
) -> bytes:
    """A reply as a mail client makes it: quoting the prompt below the new text (`quote`;
    without it only the prompt's header fields are read)."""
    message = EmailMessage()
    message["From"] = sender or str(prompt["To"])
    message["To"] = str(prompt["Reply-To"] or prompt["From"])
    message["Subject"] = "Re: " + "".join(str(prompt["Subject"]).splitlines())  # unfolded
    message["In-Reply-To"] = str(prompt["Message-ID"])
    message["Message-ID"] = make_msgid("player", domain="example.test")
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    if not quote:
        message.set_content(f"{body}\n")
        return bytes(message)
    quoted = "\n".join("> " + line for line in text_of(prompt).splitlines())
    attribution = "On Mon, 23 Nov 2026 at 09:00, Tongiaki <tongiaki@example.test> wrote:"
    message.set_content(f"{body}\n\n{attribution}\n{quoted}\n")
    return bytes(message)


def later(minutes: int) -> datetime:
    return START + timedelta(minutes=minutes)
