"""The test mail servers themselves: SMTP in, IMAP out, TLS, AUTH, refusals, restarts."""

from __future__ import annotations

import asyncio
import imaplib
import smtplib
import ssl
from email.message import EmailMessage

import aiosmtplib
import pytest

from tests.support.mailservers import TIMEOUT, Mail


def message(sender: str, to: str, subject: str, body: str = "Hello.\n") -> EmailMessage:
    mail = EmailMessage()
    mail["From"] = sender
    mail["To"] = to
    mail["Subject"] = subject
    mail.set_content(body)
    return mail


def test_plus_address_arrives_over_starttls_and_implicit_tls(mail: Mail) -> None:
    to = mail.address("tongiaki", "g1-2-7-abc")
    assert to == "tongiaki+g1-2-7-abc@example.test"
    refused = mail.send("p1@example.test", [to], message("p1@example.test", to, "Move 1"))
    assert refused == {}

    [accepted] = mail.smtp.accepted
    assert (accepted.login, accepted.tls, accepted.rcpt_tos) == ("p1", True, (to,))
    for tls in ("starttls", "tls"):
        [received] = mail.fetch_all("tongiaki", tls=tls)
        assert received["Subject"] == "Move 1"
        assert received["Delivered-To"] == to
        assert received["Return-Path"] == "<p1@example.test>"
    with mail.dovecot.session("tongiaki", tls="starttls") as client:
        assert isinstance(client.sock, ssl.SSLSocket)
    assert mail.wait_for("tongiaki", lambda m: m["Subject"] == "Move 1")["To"] == to


def test_servers_present_the_test_ca_only(mail: Mail) -> None:
    system_cas_only = ssl.create_default_context()
    with pytest.raises(ssl.SSLCertVerificationError):
        smtplib.SMTP_SSL(
            mail.smtp.host, mail.smtp.tls_port, context=system_cas_only, timeout=TIMEOUT
        )
    with pytest.raises(ssl.SSLCertVerificationError):
        imaplib.IMAP4_SSL(
            mail.dovecot.host, mail.dovecot.tls_port, ssl_context=system_cas_only, timeout=TIMEOUT
        )
    context = ssl.create_default_context(cafile=str(mail.ca_file))
    with smtplib.SMTP_SSL(
        mail.smtp.host, mail.smtp.tls_port, context=context, timeout=TIMEOUT
    ) as smtp:
        assert smtp.noop()[0] == 250


def test_every_envelope_recipient_gets_a_copy(mail: Mail) -> None:
    rcpts = [mail.address("p1"), mail.address("p2", "x"), mail.address("gm")]
    mail.send("tongiaki@example.test", rcpts, message("tongiaki@example.test", rcpts[0], "All"))
    for user in ("p1", "p2", "gm"):
        assert [m["Subject"] for m in mail.fetch_all(user)] == ["All"]
    assert mail.fetch_all("tongiaki") == []


def test_unknown_recipient_is_refused_and_nothing_delivered(mail: Mail) -> None:
    for stranger in ("nosuchuser@example.test", "p1@elsewhere.test"):
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            mail.send("p1@example.test", [stranger], message("p1@example.test", stranger, "?"))
        assert refused.value.recipients[stranger][0] == 550
    refused_one = mail.send(
        "p1@example.test",
        ["nosuchuser@example.test", "gm@example.test"],
        message("p1@example.test", "gm@example.test", "Mixed"),
    )
    assert list(refused_one) == ["nosuchuser@example.test"]
    assert [a.rcpt_tos for a in mail.smtp.accepted] == [("gm@example.test",)]
    assert [m["Subject"] for m in mail.fetch_all("gm")] == ["Mixed"]


def test_auth_is_required_and_checked(mail: Mail) -> None:
    mail_1 = message("p1@example.test", "gm@example.test", "No auth")
    with pytest.raises(smtplib.SMTPSenderRefused) as refused:
        mail.send("p1@example.test", ["gm@example.test"], mail_1, login="")
    assert refused.value.smtp_code == 530
    with pytest.raises(smtplib.SMTPAuthenticationError):
        mail.send("p1@example.test", ["gm@example.test"], mail_1, login="nosuchuser")
    assert mail.smtp.accepted == []
    # The full address works as a login too, and so does plain SMTP on loopback.
    mail.send("p1@example.test", ["gm@example.test"], mail_1, login="p1@example.test", tls="none")
    assert [(a.login, a.tls) for a in mail.smtp.accepted] == [("p1@example.test", False)]


def test_smtp_down_then_up_on_the_same_port(mail: Mail) -> None:
    port, tls_port = mail.smtp.port, mail.smtp.tls_port
    mail.smtp.stop()
    assert not mail.smtp.running
    with pytest.raises(ConnectionRefusedError):
        mail.send("p1@example.test", ["gm@example.test"], message("p1@x", "gm@x", "Lost"))
    mail.smtp.start()
    assert (mail.smtp.port, mail.smtp.tls_port) == (port, tls_port)
    mail.send("p1@example.test", ["gm@example.test"], message("p1@x", "gm@x", "Back"))
    assert [m["Subject"] for m in mail.fetch_all("gm")] == ["Back"]


def test_temporary_failure_refuses_data(mail: Mail) -> None:
    mail.smtp.failure = "451 4.3.0 Try again later"
    with pytest.raises(smtplib.SMTPDataError) as refused:
        mail.send("p1@example.test", ["gm@example.test"], message("p1@x", "gm@x", "Later"))
    assert refused.value.smtp_code == 451
    assert mail.fetch_all("gm") == [] and mail.smtp.accepted == []


def test_8bit_utf8_body_survives(mail: Mail) -> None:
    body = "Grüße aus Tonga! Na'e 'alu 'a e vaka ⛵ — «ok» ½\n"
    original = message("p3@example.test", "p4@example.test", "Ümlaut ⛵", body)
    assert original["Content-Transfer-Encoding"] == "8bit"
    mail.send("p3@example.test", ["p4@example.test"], original)
    [raw] = mail.dovecot.fetch_raw("p4")
    assert body.replace("\n", "\r\n").encode("utf-8") in raw
    [received] = mail.fetch_all("p4")
    assert received["Subject"] == "Ümlaut ⛵"
    assert received.get_content() == body


def test_aiosmtplib_client_like_the_service(mail: Mail) -> None:
    async def submit(port: int, *, use_tls: bool, start_tls: bool, subject: str) -> None:
        await aiosmtplib.send(
            message("gm@example.test", "p5@example.test", subject, "Zug: ä\n"),
            hostname=mail.smtp.host,
            port=port,
            username="gm",
            password=mail.password,
            use_tls=use_tls,
            start_tls=start_tls,
            tls_context=mail.client_context(),
            timeout=TIMEOUT,
        )

    asyncio.run(submit(mail.smtp.port, use_tls=False, start_tls=True, subject="STARTTLS"))
    asyncio.run(submit(mail.smtp.tls_port, use_tls=True, start_tls=False, subject="TLS"))
    assert [m["Subject"] for m in mail.fetch_all("p5")] == ["STARTTLS", "TLS"]
    assert all(a.tls and a.login == "gm" for a in mail.smtp.accepted)


def test_wait_for_sees_mail_arriving_later_and_times_out(mail: Mail) -> None:
    user = mail.new_user()
    with pytest.raises(TimeoutError, match="no matching message"):
        mail.wait_for(user, timeout=0.2)
    mail.send("p6@example.test", [mail.address(user)], message("p6@x", "u@x", "First"))
    mail.send("p6@example.test", [mail.address(user)], message("p6@x", "u@x", "Second"))
    assert mail.wait_for(user, lambda m: m["Subject"] == "Second")["Subject"] == "Second"


def test_reset_empties_mailboxes_and_folders(mail: Mail) -> None:
    mail.send("p1@example.test", ["p2@example.test"], message("p1@x", "p2@x", "Old"))
    with mail.dovecot.session("p2") as client:
        assert client.create("Archive")[0] == "OK"
        assert client.append("Archive", "", None, b"Subject: kept\r\n\r\nx\r\n")[0] == "OK"
    mail.reset()
    assert mail.dovecot.count("p2") == 0 and mail.smtp.accepted == []
    with mail.dovecot.session("p2") as client:
        assert [line for line in client.list()[1] if b"Archive" in (line or b"")] == []
