"""Mail that must never be answered, and mail that must."""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from pbem.mail_in.automatic import automatic_reason
from pbem.mail_in.inbound import sender_of

SERVICE = "tongiaki@example.test"


def _mail(sender: str = "ann@example.test", **headers: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = SERVICE
    message["Subject"] = "Re: your move"
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    message.set_content("3\n")
    return message


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (_mail(Auto_Submitted="auto-replied"), "Auto-Submitted: auto-replied"),
        (_mail(Auto_Submitted="auto-generated"), "Auto-Submitted: auto-generated"),
        (_mail(Precedence="bulk"), "Precedence: bulk"),
        (_mail(Precedence="junk"), "Precedence: junk"),
        (_mail(Precedence="list"), "Precedence: list"),
        (_mail(X_Autoreply="yes"), "X-Autoreply header"),
        (_mail(List_Id="<games.example.test>"), "List-Id header"),
        (_mail(X_Auto_Response_Suppress="All"), "X-Auto-Response-Suppress"),
        (_mail(Return_Path="<>"), "empty Return-Path (a bounce)"),
        (_mail("MAILER-DAEMON@example.test"), "sent by mailer-daemon@example.test"),
        (_mail("postmaster@example.test"), "sent by postmaster@example.test"),
        (_mail("no-reply@example.test"), "sent by no-reply@example.test"),
        (_mail(SERVICE), "sent by this service"),
        (_mail("tongiaki+g1-0-1-abcdefghij@example.test"), "sent by this service"),
        (_mail(""), "no sender"),
    ],
)
def test_automatic_mail_is_recognised(message: EmailMessage, reason: str) -> None:
    assert automatic_reason(message, SERVICE, sender_of(message)) == reason


def test_a_delivery_report_is_automatic() -> None:
    report = EmailMessage()
    report["From"] = "ann@example.test"
    report.set_content("delivered")
    report.make_mixed()
    report.replace_header("Content-Type", 'multipart/report; report-type="delivery-status"')
    assert automatic_reason(report, SERVICE, sender_of(report)) == "a delivery or read report"


@pytest.mark.parametrize(
    "message",
    [
        _mail(),
        _mail(Auto_Submitted="no"),
        _mail("tongiaki@other.test"),
        _mail(X_Auto_Response_Suppress="DR"),
    ],
)
def test_a_person_writing_is_not_automatic(message: EmailMessage) -> None:
    assert automatic_reason(message, SERVICE, sender_of(message)) is None
