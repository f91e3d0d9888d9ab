"""The service's SMTP sender through the real test server: the bytes the server accepts are
those aiosmtplib's `sendmail` sends, and refusals raise what `sendmail` raises."""

from __future__ import annotations

import asyncio
from contextlib import suppress
from pathlib import Path

import aiosmtplib
import pytest

from pbem.core import SmtpSettings
from pbem.host import transport
from pbem.host.transport import SmtpSender, crlf_lines, dot_stuffed
from tests.support.mailservers import Mail, address, mail_settings

MESSAGES = [
    b"Subject: plain\n\nline one\nline two\n",
    b"Subject: periods\n\n.\n.leading\n..two\nmiddle . period\n.",
    b".starts with a period\nSubject: x\n\nbody",
    b"Subject: mixed\r\n\r\nCRLF\r\nbare LF\nbare CR\rend\r",
    b"Subject: no end\n\nlast line without its end",
]


@pytest.mark.parametrize("raw", MESSAGES)
def test_wire_form_is_aiosmtplibs(raw: bytes) -> None:
    from aiosmtplib.protocol import PERIOD_REGEX, normalize_message_line_endings

    lines = normalize_message_line_endings(raw)
    assert crlf_lines(raw) == lines
    assert dot_stuffed(crlf_lines(raw)) == PERIOD_REGEX.sub(b"..", lines) + b".\r\n"


def _settings(mail: Mail) -> SmtpSettings:
    return mail_settings(mail, Path("unused")).smtp  # the service's SMTP settings


async def _by_sendmail(mail: Mail, raws: list[bytes], sender: str, recipient: str) -> None:
    client = aiosmtplib.SMTP(
        hostname="127.0.0.1",
        port=mail.smtp.port,
        username="tongiaki",
        password=mail.password,
        start_tls=True,
        tls_context=mail.client_context(),
    )
    async with client:
        for raw in raws:
            await client.sendmail(sender, [recipient], raw)


def test_the_server_accepts_the_bytes_sendmail_sends(mail: Mail) -> None:
    sender, recipient = address("tongiaki"), address("p1")

    async def ours() -> None:
        async with SmtpSender(_settings(mail)) as smtp:
            for raw in MESSAGES:
                await smtp.send(raw, sender, recipient)

    asyncio.run(ours())
    by_us = [(a.mail_from, a.rcpt_tos, a.content) for a in mail.smtp.accepted]
    mail.smtp.clear()
    asyncio.run(_by_sendmail(mail, MESSAGES, sender, recipient))
    by_sendmail = [(a.mail_from, a.rcpt_tos, a.content) for a in mail.smtp.accepted]
    assert len(by_us) == len(MESSAGES)
    assert by_us == by_sendmail


def test_a_refusal_raises_as_sendmail_and_the_connection_goes_on(mail: Mail) -> None:
    sender, recipient = address("tongiaki"), address("p1")
    raw = b"Subject: after\n\nbody\n"

    async def refused() -> tuple[type[BaseException], type[BaseException]]:
        errors: list[type[BaseException]] = []
        async with SmtpSender(_settings(mail)) as smtp:
            with pytest.raises(aiosmtplib.SMTPRecipientsRefused) as nobody:
                await smtp.send(raw, sender, address("nobody-here"))
            errors.append(nobody.type)
            mail.smtp.failure = "451 4.3.0 Try again later"
            with pytest.raises(aiosmtplib.SMTPDataError) as later:
                await smtp.send(raw, sender, recipient)
            errors.append(later.type)
            mail.smtp.failure = None
            await smtp.send(raw, sender, recipient)  # RSET after each: the same connection
        return errors[0], errors[1]

    assert asyncio.run(refused()) == (aiosmtplib.SMTPRecipientsRefused, aiosmtplib.SMTPDataError)
    assert [a.content for a in mail.smtp.accepted] == [b"Subject: after\r\n\r\nbody\r\n"]


def test_a_server_that_stops_answering_ends_the_transaction_and_its_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One timer for MAIL, RCPT and DATA (TRANSACTION_SECONDS): a server that greets, then
    never answers MAIL, raises TimeoutError (the sender postpones the mail) and the
    connection is closed, not used again."""
    monkeypatch.setattr(transport, "TRANSACTION_SECONDS", 0.3)
    said: list[bytes] = []

    async def mute(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"220 mute.example.test ESMTP\r\n")
        with suppress(asyncio.CancelledError, ConnectionError):
            while line := await reader.readline():
                said.append(line.split()[0].upper())
                if line.upper().startswith(b"EHLO"):
                    writer.write(b"250 mute.example.test\r\n")

    async def run() -> bool:
        server = await asyncio.start_server(mute, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        sender = SmtpSender(SmtpSettings(host="127.0.0.1", port=port, tls="none"))
        async with server:
            with pytest.raises(TimeoutError):
                async with sender:
                    await sender.send(b"Subject: x\n\nbody\n", address("tongiaki"), address("p1"))
            return sender.client is None

    assert asyncio.run(run())
    assert said == [b"EHLO", b"MAIL"]
