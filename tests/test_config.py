"""The settings: config.example.toml documents every one truly, bad files name the key,
and passwords come from the environment, a file or a systemd credential, never the TOML."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from engine import BotKind
from pbem.core.config import (
    AuthenticatedFrom,
    ConfigError,
    ExportOnGameOver,
    ImapSettings,
    MailTransport,
    Settings,
    SmtpSettings,
    Tls,
    load_settings,
    settings_toml,
)
from pbem.core.config import _toml_value as toml_value

EXAMPLE = Path(__file__).resolve().parent.parent / "config.example.toml"
SECRET = "s3cret-Pass"


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PBEM_CONFIG", "PBEM_IMAP_PASSWORD", "PBEM_SMTP_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("CREDENTIALS_DIRECTORY", raising=False)


def _documented() -> dict[str, str]:
    """'section.key' -> the default stated in the comment above the key."""
    found: dict[str, str] = {}
    section = ""
    default: str | None = None
    for line in EXAMPLE.read_text().splitlines():
        if line.startswith("["):
            section = line.strip("[]") + "."
        elif line.startswith("# Default: "):
            default = line.removeprefix("# Default: ")
        elif (key := re.match(r"(?:# )?(\w+) = ", line)) is not None:  # set, or commented
            assert default is not None, f"{section}{key.group(1)} has no 'Default:' line"
            found[section + key.group(1)] = default
            default = None
    return found


def _defaults() -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for section, instance in (
        ("", Settings()),
        ("imap.", ImapSettings()),
        ("smtp.", SmtpSettings()),
    ):
        for item in fields(instance):
            if item.name in ("imap", "smtp", "password"):
                continue
            value = getattr(instance, item.name)
            settings[section + item.name] = str(value) if isinstance(value, Path) else value
    return settings


def test_the_example_documents_every_setting_with_its_true_default() -> None:
    documented = _documented()
    defaults = _defaults()
    assert sorted(documented) == sorted(defaults)
    for key, value in defaults.items():
        assert documented[key] == toml_value(value), key


def test_the_example_is_a_valid_configuration(tmp_path: Path) -> None:
    settings = load_settings(EXAMPLE)
    assert settings.mail == "imap"
    assert settings.database_path == Path("/var/lib/pbem/pbem.sqlite")  # from data_dir
    every = tmp_path / "every.toml"  # with the settings commented out in it written out too
    every.write_text(re.sub(r"(?m)^# (\w+ = )", r"\1", EXAMPLE.read_text()))
    settings = load_settings(every)
    assert settings.gm_addresses == ("host@example.org",)
    assert settings.database_path == Path("/srv/games/pbem.sqlite")
    assert settings.imap.host == "imap.example.org" and settings.smtp.port == 587
    assert "password =" not in EXAMPLE.read_text()


def test_config_comes_from_the_option_then_the_environment_then_the_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = tmp_path / "one.toml", tmp_path / "two.toml"
    one.write_text('from_name = "One"\n')
    two.write_text('from_name = "Two"\n')
    assert load_settings(None) == Settings()
    monkeypatch.setenv("PBEM_CONFIG", str(two))
    assert load_settings(None).from_name == "Two"
    assert load_settings(one).from_name == "One"


@pytest.mark.parametrize(
    ("toml", "says"),
    [
        (
            "[imap]\npassword = 'x'\n",
            "'imap.password' does not belong in the configuration file: "
            "set $PBEM_IMAP_PASSWORD or imap.password_file",
        ),
        ("pol_seconds = 5\n", "unknown setting 'pol_seconds'"),
        ("[smtp]\nport = 'x'\n", "'smtp.port' must be a number"),
        ("[smtp]\ntls = 'ssl'\n", "'smtp.tls' must be one of tls, starttls, none"),
        ("imap = 3\n", "'imap' must be a table ([imap])"),
        ("database_url = 'postgresql://db/pbem'\n", "'database_url' must be an SQLite URL"),
        ("log_level = 'loud'\n", "'log_level' must be one of DEBUG, INFO, WARNING, ERROR"),
        ("poll_seconds = 0\n", "'poll_seconds' must be more than 0"),
        ("expert_seconds = -1\n", "'expert_seconds' must be 0 (a fixed search) or more"),
        ("inbound_batch = 0\n", "'inbound_batch' must be 1 or more"),
        ("inbound_batch = 'many'\n", "'inbound_batch' must be a number"),
        ("outbox_claim_seconds = 0.5\n", "'outbox_claim_seconds' must be 1 or more"),
        ("reminders = ['150%']\n", "'reminders': '150%' is not a share of the time"),
        ("gm_addresses = ['bob']\n", "'gm_addresses': 'bob' is not a mail address"),
        ("from_address = 'tongiaki'\n", "'from_address': 'tongiaki' is not a mail address"),
        ("mail = 'pop3'\n", "'mail' must be one of maildir, imap"),
        ("mail = 3\n", "'mail' must be one of maildir, imap"),
        ("[imap]\ntls = 'TLS1.3'\n", "'imap.tls' must be one of tls, starttls, none"),
        ("authenticated_from = 'spf'\n", "'authenticated_from' must be one of off, dmarc"),
        ("export_on_game_over = 'pdf'\n", "'export_on_game_over' must be one of none, attach, li"),
        ("absent_bot = 'clever'\n", "'absent_bot' must be one of random, greedy, expert"),
        ("data_dir = 3\n", "'data_dir' must be a path string"),
        ("mail = \n", "Invalid value"),
    ],
)
def test_a_bad_file_is_refused_with_the_key_and_the_problem(
    tmp_path: Path, toml: str, says: str
) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(toml)
    with pytest.raises(ConfigError) as error:
        load_settings(config)
    assert says in str(error.value)


def test_closed_settings_read_back_as_their_members(tmp_path: Path) -> None:
    config = tmp_path / "closed.toml"
    config.write_text(
        "mail = 'imap'\nauthenticated_from = 'dmarc'\nauthserv_id = 'mx.example.org'\n"
        "export_on_game_over = 'attach'\nabsent_bot = 'expert'\n[smtp]\ntls = 'none'\n"
    )
    settings = load_settings(config)
    assert settings.mail is MailTransport.IMAP and settings.smtp.tls is Tls.NONE
    assert settings.imap.tls is Tls.TLS  # the default, a member too
    assert settings.authenticated_from is AuthenticatedFrom.DMARC
    assert settings.export_on_game_over is ExportOnGameOver.ATTACH
    assert settings.absent_bot is BotKind.EXPERT
    config.write_text(settings_toml(settings))  # written as the words they were read from
    assert load_settings(config) == settings
    assert 'mail = "imap"' in settings_toml(settings)


def test_database_urls_relative_and_absolute(tmp_path: Path) -> None:
    config = tmp_path / "db.toml"
    config.write_text("database_url = 'sqlite:///games/pbem.sqlite'\n")
    assert load_settings(config).database_path == Path("games/pbem.sqlite")
    config.write_text(f"database_url = 'sqlite:///{tmp_path}/x.sqlite'\n")
    assert load_settings(config).database_path == tmp_path / "x.sqlite"
    config.write_text("data_dir = 'elsewhere'\n")
    assert load_settings(config).database_path == Path("elsewhere/pbem.sqlite")


def test_passwords_from_the_environment_then_a_file_then_a_systemd_credential(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    credentials = tmp_path / "credentials"
    credentials.mkdir()
    (credentials / "imap_password").write_text("from-systemd\n")
    (credentials / "smtp_password").write_text("smtp-from-systemd")
    (tmp_path / "imap.pw").write_text(SECRET + "\n")
    config = tmp_path / "pbem.toml"
    config.write_text(f"[imap]\npassword_file = '{tmp_path / 'imap.pw'}'\n")
    settings = load_settings(config)
    assert (settings.imap.password, settings.smtp.password) == (SECRET, "")
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(credentials))
    settings = load_settings(config)  # the file before the credential
    assert (settings.imap.password, settings.smtp.password) == (SECRET, "smtp-from-systemd")
    assert load_settings(None).imap.password == "from-systemd"
    monkeypatch.setenv("PBEM_IMAP_PASSWORD", "from-env")
    assert load_settings(config).imap.password == "from-env"
    config.write_text("[smtp]\npassword_file = '/nonexistent/smtp.pw'\n")
    with pytest.raises(ConfigError, match=r"'smtp.password_file': cannot read /nonexistent"):
        load_settings(config)
