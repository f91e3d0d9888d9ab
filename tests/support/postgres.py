"""A real PostgreSQL server for the tests: Debian's binaries (`python3 dev.py test` installs
the package `postgresql`), a cluster made with `initdb` in a temporary folder, listening on
a Unix socket in that folder only (no TCP port), started once per test session and given a
fresh database per test.

The server refuses to run as root: when the tests run as root it runs as the user `postgres`
that Debian's package creates, and owns its folder.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import psycopg
from sqlalchemy.engine import make_url

USER = "pbem"  # the cluster's superuser, trusted on the socket
PORT = 5432  # names the socket file only: the folder is this server's own
FAST = {  # a throw-away cluster: no crash safety, and quick to start and stop
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "listen_addresses": "",
    "max_connections": "60",
    "shared_buffers": "16MB",
}


class PostgresMissing(RuntimeError):
    """Debian's PostgreSQL binaries are not installed."""


def binaries() -> Path:
    """The folder of `initdb` and `pg_ctl`; raises PostgresMissing."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if found:
        return found[-1].parent
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).parent
    raise PostgresMissing(
        "PostgreSQL's initdb is not installed: `python3 dev.py test` installs Debian's "
        "package postgresql (or: apt-get install postgresql)"
    )


class Postgres:
    """One PostgreSQL server in a temporary folder; `new_database()` makes an empty one."""

    def __init__(self) -> None:
        self.bin = binaries()
        self.root = Path(tempfile.mkdtemp(prefix="pbem-pg-"))
        self.data = self.root / "data"
        self.socket = self.root  # short: a socket's path has at most 107 bytes
        self._numbers = itertools.count(1)
        self._run_as: pwd.struct_passwd | None = None
        if os.geteuid() == 0:
            try:
                self._run_as = pwd.getpwnam("postgres")
            except KeyError as error:
                raise PostgresMissing(
                    "the tests run as root, and PostgreSQL does not: the user postgres (made "
                    "by Debian's package postgresql) is missing"
                ) from error

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if self._run_as is not None else []
        result = subprocess.run(
            [*prefix, *command], capture_output=True, text=True, cwd=self.root, check=False
        )
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{result.stdout}{result.stderr}")

    def start(self) -> None:
        if self._run_as is not None:
            os.chown(self.root, self._run_as.pw_uid, self._run_as.pw_gid)
        self.root.chmod(0o755)
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            USER,
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        options = " ".join(f"-c {k}={v!r}" if v == "" else f"-c {k}={v}" for k, v in FAST.items())
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.root / "server.log"),
            "-o",
            f"{options} -k {self.socket} -p {PORT}",
            "-w",
            "start",
        )

    def stop(self) -> None:
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str) -> str:
        """The `database_url` of `database` on this server."""
        return f"postgresql+psycopg://{USER}@/{database}?host={self.socket}&port={PORT}"

    def new_database(self, template: str | None = None) -> str:
        """A new, empty database, or a copy of the database `template` (which nobody may be
        connected to); returns its `database_url`."""
        name = f"pbem_{os.getpid()}_{next(self._numbers)}"
        copied = f' TEMPLATE "{template}"' if template else ""
        with psycopg.connect(
            host=str(self.socket), port=PORT, user=USER, dbname="postgres", autocommit=True
        ) as connection:
            connection.execute(f'CREATE DATABASE "{name}"{copied}')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop the database of `url`, closing what still uses it."""
        name = make_url(url).database
        with psycopg.connect(
            host=str(self.socket), port=PORT, user=USER, dbname="postgres", autocommit=True
        ) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
