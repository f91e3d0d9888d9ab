"""Shared fixtures: real mail servers (see tests/support/mailservers.py), started once per session.

- `dovecot`: a Dovecot IMAP server with the users of `mailservers.DEFAULT_USERS`.
- `smtp_server`: an SMTP server that delivers into that Dovecot.
- `mail`: both, with every mailbox emptied (and SMTP up again) before the test.

Without Dovecot installed these fixtures fail (they do not skip): `python3 dev.py test`
installs it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.mailservers import Dovecot, DovecotMissing, Mail, SmtpServer


@pytest.fixture(scope="session")
def dovecot() -> Iterator[Dovecot]:
    """A running Dovecot (IMAP + STARTTLS on `port`, implicit TLS on `tls_port`)."""
    server = Dovecot()
    missing = None
    try:
        server.start()
    except DovecotMissing as error:
        missing = str(error)
    if missing:
        pytest.fail(missing, pytrace=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def smtp_server(dovecot: Dovecot) -> Iterator[SmtpServer]:
    """A running SMTP server (STARTTLS on `port`, implicit TLS on `tls_port`) into `dovecot`."""
    server = SmtpServer(dovecot)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def mail(dovecot: Dovecot, smtp_server: SmtpServer) -> Mail:
    """Both servers, with empty mailboxes, no accepted messages, no failure, SMTP running."""
    kit = Mail(dovecot, smtp_server)
    kit.reset()
    return kit
