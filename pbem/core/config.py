"""The service's settings: embedded defaults, optionally overridden by a TOML file.

Every setting is documented, with its default, in `config.example.toml`; passwords never
come from that file but from the environment, a file of their own, or a systemd credential.
"""

from __future__ import annotations

import importlib.util
import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any

from engine import BotKind
from pbem.core.clock import DurationError, Reminder, parse_duration, parse_reminders
from pbem.core.errors import PbemError
from pbem.core.identity import IdentityError, check_address


class ConfigError(PbemError, ValueError):
    """A configuration file that cannot be used; the message names the key."""


class MailTransport(StrEnum):
    """How the service gets replies and sends mail (`mail`)."""

    MAILDIR = "maildir"  # local folders
    IMAP = "imap"  # IMAP in, SMTP out


class Tls(StrEnum):
    """How a connection to a mail server is protected (`imap.tls`, `smtp.tls`)."""

    TLS = "tls"  # from the first byte (993, 465)
    STARTTLS = "starttls"  # upgraded after the greeting (143, 587)
    NONE = "none"  # none at all: loopback only


class AuthenticatedFrom(StrEnum):
    """Whether the receiving server must vouch for a reply's From (`authenticated_from`)."""

    OFF = "off"
    DMARC = "dmarc"


class ExportOnGameOver(StrEnum):
    """What the game-over mail carries besides the final board (`export_on_game_over`)."""

    NONE = "none"
    ATTACH = "attach"  # the record of the game as an HTML file
    LINK = "link"  # a link to the record, written to `export_dir` and served at `export_url`


@dataclass(frozen=True)
class ImapSettings:
    host: str = "localhost"
    port: int = 993
    tls: Tls = Tls.TLS
    user: str = ""
    password: str = ""  # never from the TOML file: see `load_settings`
    password_file: str = ""  # a file holding the password
    folder: str = "INBOX"
    ca_file: str = ""  # extra CA to trust (a private mail server, tests)


@dataclass(frozen=True)
class SmtpSettings:
    host: str = "localhost"
    port: int = 587
    tls: Tls = Tls.STARTTLS
    user: str = ""
    password: str = ""  # never from the TOML file: see `load_settings`
    password_file: str = ""
    ca_file: str = ""


@dataclass(frozen=True)
class Settings:
    data_dir: Path = Path("pbem-data")
    database_url: str = ""  # sqlite:///PATH or postgresql+psycopg://...; default: SQLite
    mail: MailTransport = MailTransport.MAILDIR
    from_address: str = "tongiaki@localhost"
    from_name: str = "Tongiaki"
    plus_addressing: bool = True
    poll_seconds: float = 60.0
    outbox_seconds: float = 30.0
    # PostgreSQL: how long a service's claim on the mails it sends lasts unless renewed (it
    # renews it every third of this while it sends): a dead service's mails go to the others
    outbox_claim_seconds: float = 25.0
    default_deadline: str = "48h"  # time per decision, when a game does not set its own
    reminders: tuple[str, ...] = ("50%", "6h")  # when N% of the time is left; or before
    absence_after: int = 3  # automatic moves in a row that mark a seat absent
    vacation_allowance: str = "7d"  # vacation per player and game, in total
    downtime_grace: str = "6h"  # down longer: passed deadlines get this much time again
    gm_addresses: tuple[str, ...] = ()  # may act as game master in every game
    max_message_bytes: int = 1_000_000  # larger inbound mail is quarantined unread
    answers_per_day: int = 10  # error and refusal answers to one address in 24 hours
    command_answers_per_day: int = 40  # answers to a seat's own commands in 24 hours
    token_lifetime: str = "14d"  # a reply address acts this long after its decision closed
    authenticated_from: AuthenticatedFrom = AuthenticatedFrom.OFF
    authserv_id: str = ""  # the receiving servers' names in Authentication-Results, spaced
    state_cache_games: int = 1000  # games whose state `serve` keeps in memory
    inbound_batch: int = 25  # inbound mails recorded in one transaction at most (SQLite)
    absent_bot: BotKind = BotKind.GREEDY  # plays absent, resigned and kicked seats
    expert_seconds: float = 1.0  # the expert bot's time per decision; 0: a fixed search
    talk_per_day: int = 20  # table talk (say, tell) per player and game in 24 hours
    # mails to each other reader caused by one person's commands that move nothing (the
    # news of a vacation, table talk at once) per game in 24 hours; the rest waits
    caused_per_day: int = 3
    gm_reads_talk: bool = False  # the game masters get all table talk, private talk too
    export_on_game_over: ExportOnGameOver = ExportOnGameOver.NONE
    export_dir: str = ""  # link: the folder the records are written to (the host serves it)
    export_url: str = ""  # link: the address that folder is served at
    log_level: str = "INFO"
    imap: ImapSettings = field(default_factory=ImapSettings)
    smtp: SmtpSettings = field(default_factory=SmtpSettings)

    # the durations in seconds: parsed once (`load_settings` has checked them)
    @cached_property
    def default_deadline_seconds(self) -> int:
        return parse_duration(self.default_deadline)

    @cached_property
    def vacation_allowance_seconds(self) -> int:
        return parse_duration(self.vacation_allowance)

    @cached_property
    def downtime_grace_seconds(self) -> int:
        return parse_duration(self.downtime_grace)

    @cached_property
    def token_lifetime_seconds(self) -> int:
        return parse_duration(self.token_lifetime)

    @cached_property
    def parsed_reminders(self) -> tuple[Reminder, ...]:
        return parse_reminders(self.reminders)

    @property
    def on_postgres(self) -> bool:
        """Whether the games are kept in PostgreSQL rather than in an SQLite file."""
        return self.database_url.startswith(POSTGRES_URL)

    @property
    def database(self) -> Path | str:
        """What `pbem.store.db.open_database` opens: the SQLite file, or the PostgreSQL URL."""
        return self.database_url if self.on_postgres else self.database_path

    @property
    def database_shown(self) -> str:
        """The database for logs and messages: the file, or the URL without its password."""
        return shown_url(self.database_url) if self.on_postgres else str(self.database_path)

    @property
    def database_path(self) -> Path:
        """The SQLite file (on PostgreSQL, where it would be: no file is used)."""
        if not self.database_url or self.on_postgres:
            return self.data_dir / "pbem.sqlite"
        return Path(self.database_url.removeprefix(SQLITE_URL))

    @property
    def inbox_dir(self) -> Path:
        return self.data_dir / "mail" / "inbox"

    @property
    def outbox_dir(self) -> Path:
        return self.data_dir / "mail" / "outbox"


SQLITE_URL = "sqlite:///"  # then a relative path; an absolute one starts with a fourth /
POSTGRES_URL = "postgresql+psycopg://"  # user:password@host:port/database, or @/db (socket)
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
_SECTIONS = {"imap": ImapSettings, "smtp": SmtpSettings}


def load_settings(path: Path | None) -> Settings:
    """Settings from `path`, else from $PBEM_CONFIG, else the embedded defaults.

    Each server's password comes from $PBEM_IMAP_PASSWORD (or $PBEM_SMTP_PASSWORD), else from
    the file named by `password_file`, else from the systemd credential `imap_password` (or
    `smtp_password`) in $CREDENTIALS_DIRECTORY.
    """
    chosen = path or (Path(os.environ["PBEM_CONFIG"]) if os.environ.get("PBEM_CONFIG") else None)
    settings = Settings()
    if chosen is not None:
        try:
            data = tomllib.loads(chosen.read_text(encoding="utf-8"))
        except UnicodeDecodeError as error:
            raise ConfigError(f"{chosen} is not UTF-8 text (byte {error.start})") from error
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise ConfigError(f"{chosen}: {error}") from error
        settings = _apply(settings, data, "")
        _check(settings)
    return replace(
        settings,
        imap=replace(settings.imap, password=_password("imap", settings.imap.password_file)),
        smtp=replace(settings.smtp, password=_password("smtp", settings.smtp.password_file)),
    )


def _password(server: str, password_file: str) -> str:
    from_env = os.environ.get(f"PBEM_{server.upper()}_PASSWORD")
    if from_env:
        return from_env
    credentials = os.environ.get("CREDENTIALS_DIRECTORY")
    credential = Path(credentials) / f"{server}_password" if credentials else None
    if password_file:
        source = Path(password_file)
    elif credential is not None and credential.is_file():
        source = credential
    else:
        return ""
    try:
        return source.read_text(encoding="utf-8").rstrip("\r\n")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"'{server}.password_file': cannot read {source}: {error}") from error


def _check(settings: Settings) -> None:
    """Values that have the right type but cannot be used."""
    for name in ("default_deadline", "vacation_allowance", "downtime_grace", "token_lifetime"):
        try:
            parse_duration(getattr(settings, name))
        except DurationError as error:
            raise ConfigError(f"{name!r}: {error}") from error
    try:
        parse_reminders(settings.reminders)
    except DurationError as error:
        raise ConfigError(f"'reminders': {error}") from error
    if settings.absence_after < 1:
        raise ConfigError("'absence_after' must be 1 or more")
    if settings.max_message_bytes < 10_000:
        raise ConfigError("'max_message_bytes' must be at least 10000")
    if settings.answers_per_day < 1:
        raise ConfigError("'answers_per_day' must be 1 or more")
    if settings.command_answers_per_day < 1:
        raise ConfigError("'command_answers_per_day' must be 1 or more")
    if settings.caused_per_day < 0:
        raise ConfigError("'caused_per_day' must be 0 (such news waits for the next mail) or more")
    if settings.authenticated_from is AuthenticatedFrom.DMARC and not settings.authserv_id.strip():
        raise ConfigError(
            "'authserv_id' must name the receiving server (as in its Authentication-Results "
            "headers) when 'authenticated_from' is dmarc"
        )
    if settings.export_on_game_over == ExportOnGameOver.LINK:
        if not settings.export_dir.strip():
            raise ConfigError(
                "'export_dir' must name the folder the records of games are written to (one "
                "your web server serves) when 'export_on_game_over' is link"
            )
        if not settings.export_url.startswith(("https://", "http://")):
            raise ConfigError(
                "'export_url' must be the address your web server serves 'export_dir' at "
                "(https://...) when 'export_on_game_over' is link"
            )
    _check_database_url(settings.database_url)
    if settings.log_level.upper() not in LOG_LEVELS:
        raise ConfigError(f"'log_level' must be one of {', '.join(LOG_LEVELS)}")
    for name in ("poll_seconds", "outbox_seconds"):
        if getattr(settings, name) <= 0:
            raise ConfigError(f"{name!r} must be more than 0")
    if settings.outbox_claim_seconds < 1:
        raise ConfigError("'outbox_claim_seconds' must be 1 or more")
    if settings.expert_seconds < 0:
        raise ConfigError("'expert_seconds' must be 0 (a fixed search) or more")
    if settings.state_cache_games < 1:
        raise ConfigError("'state_cache_games' must be 1 or more")
    if settings.inbound_batch < 1:
        raise ConfigError("'inbound_batch' must be 1 or more")
    if settings.talk_per_day < 0:
        raise ConfigError("'talk_per_day' must be 0 (no table talk) or more")
    for name, addresses in (
        ("from_address", (settings.from_address,)),
        ("gm_addresses", settings.gm_addresses),
    ):
        for address in addresses:
            try:
                check_address(address)
            except IdentityError as error:
                raise ConfigError(f"{name!r}: {error}") from error


def _check_database_url(url: str) -> None:
    if not url or url.startswith(SQLITE_URL):
        return
    if not url.startswith(POSTGRES_URL):
        raise ConfigError(
            "'database_url' must be an SQLite URL: sqlite:///relative/path.sqlite or "
            "sqlite:////absolute/path.sqlite; or a PostgreSQL URL with the driver psycopg: "
            "postgresql+psycopg://user@host/database"
        )
    from sqlalchemy.engine import make_url  # here: a command on SQLite starts without it
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError as error:
        raise ConfigError(f"'database_url': {error}") from error
    if parsed.password is not None:
        raise ConfigError(
            "'database_url' holds a password: passwords never live in the settings file. "
            "Leave it out of the URL and give it to PostgreSQL's client library instead: a "
            "password file named by $PGPASSFILE (under systemd, a credential: see "
            "systemd/README.md), or $PGPASSWORD"
        )
    database = parsed.database
    if not database:
        raise ConfigError(
            "'database_url' must name the database: postgresql+psycopg://user@host/database"
        )
    if importlib.util.find_spec("psycopg") is None:
        raise ConfigError(
            "'database_url' names PostgreSQL, but psycopg is not installed: install the "
            "service with its postgres extra (pip install 'tongiaki-pbem[postgres]')"
        )


def shown_url(url: str) -> str:
    """A database URL as logs may show it: the password hidden."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(a database URL that cannot be read)"


def _apply(target: Any, data: dict[str, Any], prefix: str) -> Any:
    known = {f.name: f for f in fields(target)}
    changes: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if key == "password" and prefix:
            raise ConfigError(
                f"{name!r} does not belong in the configuration file: set "
                f"$PBEM_{prefix.strip('.').upper()}_PASSWORD or {prefix}password_file"
            )
        if key not in known:
            raise ConfigError(f"unknown setting {name!r}")
        current = getattr(target, key)
        if key in _SECTIONS:
            if not isinstance(value, dict):
                raise ConfigError(f"{name!r} must be a table ([{name}])")
            changes[key] = _apply(current, value, f"{name}.")
            continue
        changes[key] = _convert(name, current, value)
    return replace(target, **changes)


def _convert(name: str, current: Any, value: Any) -> Any:
    if isinstance(current, StrEnum):  # a closed set: one of its words, read as its member
        words = type(current)
        if not isinstance(value, str) or value not in [str(word) for word in words]:
            raise ConfigError(f"{name!r} must be one of {', '.join(words)}")
        return words(value)
    if isinstance(current, Path):
        if not isinstance(value, str):
            raise ConfigError(f"{name!r} must be a path string")
        return Path(value)
    if isinstance(current, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{name!r} must be true or false")
        return value
    if isinstance(current, int | float) and not isinstance(current, bool):
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise ConfigError(f"{name!r} must be a number")
        return type(current)(value)
    if isinstance(current, tuple):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{name!r} must be a list of strings")
        return tuple(value)
    if not isinstance(value, str):
        raise ConfigError(f"{name!r} must be a string")
    return value


def settings_toml(settings: Settings) -> str:
    """The settings as a TOML file that `load_settings` reads back (passwords left out)."""
    lines: list[str] = []
    tables: list[str] = []
    for item in fields(settings):
        value = getattr(settings, item.name)
        if item.name in _SECTIONS:
            tables.append(f"[{item.name}]")
            tables += [
                f"{f.name} = {_toml_value(getattr(value, f.name))}"
                for f in fields(value)
                if f.name != "password"
            ]
        elif value is not None:
            lines.append(f"{item.name} = {_toml_value(value)}")
    return "\n".join([*lines, *tables]) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
