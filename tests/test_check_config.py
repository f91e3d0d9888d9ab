"""`pbem check-config` against the real test servers: what works, and exactly what does not."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.core.config import Settings, settings_toml
from pbem.host.cli import app
from pbem.host.diagnose import Check, check_settings
from pbem.store.db import open_database, session
from pbem.store.migrate import SCHEMA_VERSION
from pbem.store.models import Outbox
from pbem.views.i18n import LOCALE_DIR, catalog_problems
from tests.support.localmail import START
from tests.support.mailservers import Mail, mail_settings

runner = CliRunner()
STEPS = [
    "database",
    "outbox",
    "privacy",
    "catalogs",
    "IMAP connect",
    "IMAP TLS",
    "IMAP login",
    "IMAP folder",
    "SMTP connect",
    "SMTP TLS",
    "SMTP login",
]


def _outcomes(checks: list[Check]) -> dict[str, str]:
    return {c.step: c.outcome for c in checks}


def _settings(mail: Mail, tmp_path: Path) -> Settings:
    settings = mail_settings(mail, tmp_path / "data")
    open_database(settings.database_path).dispose()
    return settings


def test_every_step_works_and_nothing_is_sent(mail: Mail, tmp_path: Path) -> None:
    checks = check_settings(_settings(mail, tmp_path))
    assert [c.step for c in checks] == STEPS
    assert all(c.outcome == "ok" for c in checks), [c.line() for c in checks]
    details = {c.step: c.detail for c in checks}
    assert f"schema version {SCHEMA_VERSION};" in details["database"]
    assert details["IMAP TLS"].startswith("starttls: TLSv1.")
    assert details["SMTP TLS"].startswith("starttls: TLSv1.")
    assert "verified against the CA in" in details["SMTP TLS"]
    assert details["IMAP folder"] == "INBOX: 0 messages, 0 not yet read by the service"
    assert mail.smtp.accepted == []


def test_the_command_sends_a_test_mail_and_checks_the_round_trip(
    mail: Mail, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = _settings(mail, tmp_path)
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(replace(settings, imap=replace(settings.imap, password=""))))
    assert mail.password not in config.read_text()
    monkeypatch.setenv("PBEM_IMAP_PASSWORD", mail.password)
    monkeypatch.setenv("PBEM_SMTP_PASSWORD", mail.password)
    to = mail.address("p1")
    result = runner.invoke(
        app, ["check-config", "--config", str(config), "--send-to", to, "--round-trip"]
    )
    assert result.exit_code == 0, result.output
    assert f"OK    test mail     sent {to}" in result.output
    assert "OK    round trip    plus addressing works: a mail to tongiaki+check-" in result.output
    assert result.output.rstrip().endswith("everything works")
    assert mail.password not in result.output
    test_mail = mail.wait_for("p1")
    assert str(test_mail["Auto-Submitted"]) == "auto-generated"
    assert "pbem check-config" in str(test_mail["Subject"])
    assert mail.dovecot.count("tongiaki") == 0  # the round-trip mail was deleted


def test_a_wrong_password_fails_both_logins_and_is_never_printed(
    mail: Mail, tmp_path: Path
) -> None:
    settings = _settings(mail, tmp_path)
    wrong = "not-the-password"
    settings = replace(
        settings,
        imap=replace(settings.imap, password=wrong),
        smtp=replace(settings.smtp, password=wrong),
    )
    checks = check_settings(settings)
    assert _outcomes(checks) == {
        **dict.fromkeys(STEPS, "ok"),
        "IMAP login": "fail",
        "IMAP folder": "skip",
        "SMTP login": "fail",
    }
    assert all(wrong not in c.line() for c in checks)
    refused = next(c.detail for c in checks if c.step == "IMAP login")
    assert "tongiaki refused: [AUTHENTICATIONFAILED]" in refused  # the server's words, not b'...'
    assert "b'" not in refused


def test_a_missing_folder_and_a_missing_password_are_named(mail: Mail, tmp_path: Path) -> None:
    settings = _settings(mail, tmp_path)
    settings = replace(
        settings,
        imap=replace(settings.imap, folder="Tongiaki"),
        smtp=replace(settings.smtp, password=""),
    )
    checks = {c.step: c for c in check_settings(settings)}
    assert checks["IMAP folder"].outcome == "fail"
    assert "'Tongiaki' cannot be opened" in checks["IMAP folder"].detail
    assert checks["SMTP login"].outcome == "fail"
    assert "$PBEM_SMTP_PASSWORD" in checks["SMTP login"].detail


@pytest.mark.parametrize("tls", ["starttls", "tls"])
def test_a_certificate_that_is_not_trusted_fails_tls(mail: Mail, tmp_path: Path, tls: str) -> None:
    settings = _settings(mail, tmp_path)
    imap_port = mail.dovecot.port if tls == "starttls" else mail.dovecot.tls_port
    smtp_port = mail.smtp.port if tls == "starttls" else mail.smtp.tls_port
    settings = replace(
        settings,
        imap=replace(settings.imap, tls=tls, port=imap_port, ca_file=""),
        smtp=replace(settings.smtp, tls=tls, port=smtp_port, ca_file=""),
    )
    checks = {c.step: c for c in check_settings(settings)}
    for server in ("IMAP", "SMTP"):
        assert checks[f"{server} connect"].outcome == "ok"
        assert checks[f"{server} TLS"].outcome == "fail"
        assert "certificate not trusted" in checks[f"{server} TLS"].detail
        assert "needs ca_file" in checks[f"{server} TLS"].detail
        assert checks[f"{server} login"].outcome == "skip"


def test_a_server_that_is_down_is_reported_and_the_rest_still_checked(
    mail: Mail, tmp_path: Path
) -> None:
    settings = _settings(mail, tmp_path)
    mail.smtp.stop()
    try:
        result = runner.invoke(
            app,
            ["check-config", "--send-to", mail.address("p1")],
            env={
                "PBEM_CONFIG": str(_write(tmp_path, settings)),
                "PBEM_IMAP_PASSWORD": mail.password,
                "PBEM_SMTP_PASSWORD": mail.password,
            },
        )
    finally:
        mail.smtp.start()
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert any(line.startswith("FAIL  SMTP connect  127.0.0.1:") for line in lines), lines
    assert "SKIP  test mail     no connection" in lines
    assert "OK    IMAP folder   INBOX: 0 messages, 0 not yet read by the service" in lines
    assert lines[-1] == "1 checks failed"


def test_mail_that_keeps_failing_is_shown(mail: Mail, tmp_path: Path) -> None:
    settings = _settings(mail, tmp_path)
    engine = open_database(settings.database_path)
    with session(engine) as db:
        db.add(
            Outbox(
                recipient="gone@example.test",
                message=b"x",
                created_at=START,
                attempts=7,
                next_attempt_at=START + timedelta(hours=1),
                last_error="SMTPRecipientsRefused: 550 no such user",
            )
        )
        db.commit()
    engine.dispose()
    outbox = next(c for c in check_settings(settings) if c.step == "outbox")
    assert outbox.outcome == "warn"
    assert outbox.detail == (
        "1 mails waiting; one was tried 7 times, last error: "
        "SMTPRecipientsRefused: 550 no such user"
    )


def test_the_embedded_defaults_check_the_local_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    result = runner.invoke(app, ["check-config"])
    assert result.exit_code == 0, result.output
    assert "configuration: the embedded defaults (mail = maildir)" in result.output
    assert "OK    maildir inbox pbem-data/mail/inbox" in result.output
    assert not (tmp_path / "pbem-data" / "pbem.sqlite").exists()  # checking creates nothing


def _write(tmp_path: Path, settings: Settings) -> Path:
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(settings))
    return config


def test_the_round_trip_without_plus_addressing_leaves_players_mail_alone(
    mail: Mail, tmp_path: Path
) -> None:
    settings = replace(_settings(mail, tmp_path), plus_addressing=False)
    reply = (
        f"From: p1@example.test\r\nTo: {settings.from_address}\r\n"
        "Subject: Re: [Tongiaki g1 #3 s0-abcdefghij] Your move\r\n\r\n2\r\n"
    )
    mail.dovecot.append("tongiaki", reply.encode())
    checks = {c.step: c for c in check_settings(settings, round_trip=True, wait=600)}
    assert checks["round trip"].outcome == "ok", checks["round trip"].detail
    assert checks["round trip"].detail.startswith(
        f"replies arrive: a mail to {settings.from_address} arrived in INBOX after "
    )
    left = mail.fetch_all("tongiaki")
    assert [str(m["From"]) for m in left] == ["p1@example.test"]
    unread = next(c for c in check_settings(settings) if c.step == "IMAP folder")
    assert unread.detail == "INBOX: 1 messages, 1 not yet read by the service"


@pytest.mark.parametrize(
    ("version", "outcome", "says"),
    [
        (
            "1",
            "ok",
            f"schema version 1 (upgraded to {SCHEMA_VERSION} when the service starts); games: none",
        ),
        (
            str(SCHEMA_VERSION + 1),
            "fail",
            f"schema version {SCHEMA_VERSION + 1} is newer than this service's {SCHEMA_VERSION}: "
            "run a newer version",
        ),
    ],
)
def test_a_database_schema_the_service_cannot_use_fails(
    tmp_path: Path, version: str, outcome: str, says: str
) -> None:
    settings = Settings(data_dir=tmp_path)
    open_database(settings.database_path).dispose()
    with closing(sqlite3.connect(settings.database_path)) as db, db:
        db.execute("UPDATE setting SET value = ? WHERE key = 'schema_version'", (version,))
    database = check_settings(settings)[0]
    assert (database.step, database.outcome) == ("database", outcome)
    assert says in database.detail


def test_passwords_as_systemd_credentials_log_in(
    mail: Mail, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As under systemd/pbem.service: the passwords in $CREDENTIALS_DIRECTORY, none in the
    environment or the TOML file."""
    credentials = tmp_path / "credentials"
    credentials.mkdir()
    for server in ("imap", "smtp"):
        (credentials / f"{server}_password").write_text(mail.password + "\n")
    for name in ("PBEM_IMAP_PASSWORD", "PBEM_SMTP_PASSWORD", "PBEM_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(credentials))
    config = _write(tmp_path, _settings(mail, tmp_path))
    result = runner.invoke(app, ["check-config", "--config", str(config)])
    assert result.exit_code == 0, result.output
    assert "OK    IMAP login    tongiaki" in result.output
    assert "OK    SMTP login    tongiaki" in result.output


def test_the_round_trip_removes_its_own_mail_only(mail: Mail, tmp_path: Path) -> None:
    """A reply a mail client flagged deleted (not yet expunged) stays where it is."""
    settings = _settings(mail, tmp_path)
    mail.dovecot.append("tongiaki", b"From: p1@example.test\r\nSubject: Re: move\r\n\r\n2\r\n")
    with mail.dovecot.session("tongiaki") as client:
        client.select("INBOX")
        client.store("1", "+FLAGS", "(\\Deleted)")
    checks = {c.step: c for c in check_settings(settings, round_trip=True, wait=600)}
    assert checks["round trip"].outcome == "ok", checks["round trip"].detail
    assert checks["round trip"].detail.endswith("(and was deleted)")
    assert [str(m["From"]) for m in mail.fetch_all("tongiaki")] == ["p1@example.test"]


def test_a_server_that_does_not_speak_smtp_fails_its_greeting(mail: Mail, tmp_path: Path) -> None:
    """SMTP pointed at the IMAP port by mistake, without TLS: not a TLS failure."""
    settings = _settings(mail, tmp_path)
    settings = replace(settings, smtp=replace(settings.smtp, port=mail.dovecot.port, tls="none"))
    checks = {c.step: c for c in check_settings(settings)}
    assert checks["SMTP connect"].outcome == "ok"
    assert checks["SMTP greeting"].outcome == "fail"
    assert "SMTP TLS" not in checks
    assert (checks["SMTP login"].outcome, checks["SMTP login"].detail) == (
        "skip",
        "no SMTP session",
    )


def test_a_missing_or_broken_catalog_is_said_by_name(tmp_path: Path) -> None:
    """The installed catalogs compile; in a copy with one gone and one broken, both are
    named (a player of either would read English)."""
    assert catalog_problems() == []
    copy = tmp_path / "locale"
    shutil.copytree(LOCALE_DIR, copy)
    assert catalog_problems(copy) == []  # checked once whole: a file changed after is read again
    (copy / "nl" / "LC_MESSAGES" / "messages.po").unlink()
    broken = copy / "fi" / "LC_MESSAGES" / "messages.po"
    whole = broken.read_text()
    broken.write_text(whole + '\nmsgid "half a message\n', encoding="utf-8")
    problems = catalog_problems(copy)
    assert len(problems) == 2, problems
    assert problems[0].startswith("nl: no catalog at ")
    assert problems[1].startswith("fi: ") and "cannot be compiled" in problems[1]
    broken.write_text(whole, encoding="utf-8")  # mended: said no more
    assert [p.split(":")[0] for p in catalog_problems(copy)] == ["nl"]
