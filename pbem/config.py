"""The service's settings: embedded defaults, optionally overridden by a TOML file."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from pbem.clock import DurationError, check_reminders, parse_duration


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names the key."""


@dataclass(frozen=True)
class ImapSettings:
    host: str = "localhost"
    port: int = 993
    tls: str = "tls"  # tls | starttls | none
    user: str = ""
    password: str = ""
    folder: str = "INBOX"
    ca_file: str = ""  # extra CA to trust (a private mail server, tests)


@dataclass(frozen=True)
class SmtpSettings:
    host: str = "localhost"
    port: int = 587
    tls: str = "starttls"  # tls | starttls | none
    user: str = ""
    password: str = ""
    ca_file: str = ""


@dataclass(frozen=True)
class Settings:
    data_dir: Path = Path("pbem-data")
    database: Path | None = None  # default: DATA_DIR/pbem.sqlite
    mail: str = "maildir"  # maildir (local folders) | imap (IMAP in, SMTP out)
    from_address: str = "tongiaki@localhost"
    from_name: str = "Tongiaki"
    plus_addressing: bool = True
    poll_seconds: float = 60.0
    outbox_seconds: float = 30.0
    default_deadline: str = "48h"  # time per decision, when a game does not set its own
    reminders: tuple[str, ...] = ("50%", "6h")  # when N% of the time is left; or before
    absence_after: int = 3  # automatic moves in a row that mark a seat absent
    vacation_allowance: str = "7d"  # vacation per player and game, in total
    downtime_grace: str = "6h"  # down longer: passed deadlines get this much time again
    gm_addresses: tuple[str, ...] = ()  # may act as game master in every game
    imap: ImapSettings = field(default_factory=ImapSettings)
    smtp: SmtpSettings = field(default_factory=SmtpSettings)

    @property
    def database_path(self) -> Path:
        return self.database or self.data_dir / "pbem.sqlite"

    @property
    def inbox_dir(self) -> Path:
        return self.data_dir / "mail" / "inbox"

    @property
    def outbox_dir(self) -> Path:
        return self.data_dir / "mail" / "outbox"


_SECTIONS = {"imap": ImapSettings, "smtp": SmtpSettings}
_TLS_MODES = ("tls", "starttls", "none")


def load_settings(path: Path | None) -> Settings:
    """Settings from `path`, else from $PBEM_CONFIG, else the embedded defaults.

    Passwords come from $PBEM_IMAP_PASSWORD and $PBEM_SMTP_PASSWORD when set.
    """
    chosen = path or (Path(os.environ["PBEM_CONFIG"]) if os.environ.get("PBEM_CONFIG") else None)
    settings = Settings()
    if chosen is not None:
        try:
            data = tomllib.loads(chosen.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise ConfigError(f"{chosen}: {error}") from error
        settings = _apply(settings, data, "")
        _check(settings)
    imap_pw = os.environ.get("PBEM_IMAP_PASSWORD")
    smtp_pw = os.environ.get("PBEM_SMTP_PASSWORD")
    if imap_pw:
        settings = replace(settings, imap=replace(settings.imap, password=imap_pw))
    if smtp_pw:
        settings = replace(settings, smtp=replace(settings.smtp, password=smtp_pw))
    return settings


def _check(settings: Settings) -> None:
    """Values that have the right type but cannot be used."""
    for name in ("default_deadline", "vacation_allowance", "downtime_grace"):
        try:
            parse_duration(getattr(settings, name))
        except DurationError as error:
            raise ConfigError(f"{name!r}: {error}") from error
    try:
        check_reminders(settings.reminders)
    except DurationError as error:
        raise ConfigError(f"'reminders': {error}") from error
    if settings.absence_after < 1:
        raise ConfigError("'absence_after' must be 1 or more")
    if settings.mail not in ("maildir", "imap"):
        raise ConfigError("'mail' must be maildir or imap")


def _apply(target: Any, data: dict[str, Any], prefix: str) -> Any:
    known = {f.name: f for f in fields(target)}
    changes: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if key not in known:
            raise ConfigError(f"unknown setting {name!r}")
        current = getattr(target, key)
        if key in _SECTIONS:
            if not isinstance(value, dict):
                raise ConfigError(f"{name!r} must be a table ([{name}])")
            changes[key] = _apply(current, value, f"{name}.")
            continue
        changes[key] = _convert(name, current, value)
        if key == "tls" and value not in _TLS_MODES:
            raise ConfigError(f"{name!r} must be one of {', '.join(_TLS_MODES)}")
    return replace(target, **changes)


def _convert(name: str, current: Any, value: Any) -> Any:
    if isinstance(current, Path) or name in ("database", "data_dir"):
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
