"""The service's IMAP side (`pbem.host.transport` on IMAPClient) against the real Dovecot: it reads
what a plain imaplib client reads, byte for byte, whatever a message holds and however large;
marks what it handled Seen in one STORE; and says a refusal in the server's words. IDLE is in
tests/test_idle.py, `pbem check-config` in tests/test_check_config.py."""

from __future__ import annotations

import imaplib
import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest

from pbem.core.config import ImapSettings, Tls
from pbem.flow.service import Service
from pbem.host.runner import run_cycle
from pbem.host.transport import imap_connect, imap_inbox
from pbem.store.db import open_database
from tests.support.localmail import later
from tests.support.mailservers import Mail, _select, mail_settings

ODD = {
    "a NUL byte": b"Subject: NUL\r\n\r\nbefore\x00after\r\n",
    "bare LF line ends": b"Subject: bare LF\n\nline one\nline two\n",
    "IMAP's own words": b"Subject: {12}\r\n\r\n* 1 EXISTS\r\n{5}\r\nA1 OK done\r\n)\r\n",
    "quotes and brackets": b'Subject: "(\\)" [\r\n\r\n((("\r\n',
    "8-bit headers": b"Subject: caf\xe9 \xff\xfe\r\nFrom: \xc3\xa9@x.test\r\n\r\nbody\r\n",
    "a line of 200 KB": b"Subject: long\r\n\r\n" + b"x" * 200_000 + b"\r\n",
    "no header at all": b"just a body\r\n",
}


def _imap(mail: Mail, tmp_path: Path, tls: Tls = "starttls") -> ImapSettings:
    imap = mail_settings(mail, tmp_path).imap
    return replace(imap, tls=tls, port=mail.dovecot.tls_port if tls == "tls" else imap.port)


def _unseen(mail: Mail) -> list[bytes]:
    with mail.dovecot.session("tongiaki") as client:
        _select(client, "INBOX")
        status, data = client.uid("SEARCH", "UNSEEN")
        assert status == "OK"
        return (data[0] or b"").split()


@pytest.mark.parametrize("tls", ["starttls", "tls", "none"])
def test_the_service_reads_what_a_plain_client_reads_and_marks_it_once(
    mail: Mail, tmp_path: Path, tls: Tls
) -> None:
    for raw in ODD.values():
        mail.dovecot.append("tongiaki", raw)
    stored = mail.dovecot.fetch_raw("tongiaki")  # imaplib's reading, nothing marked
    assert len(stored) == len(ODD)
    with imap_inbox(_imap(mail, tmp_path, tls)) as inbox:
        read = list(inbox.new_messages())
        assert [raw for _, raw in read] == stored
        assert len(_unseen(mail)) == len(ODD)  # reading marks nothing
        inbox.mark_handled([key for key, _ in read])
    assert _unseen(mail) == []
    with imap_inbox(_imap(mail, tmp_path, tls)) as inbox:
        assert list(inbox.new_messages()) == []


def test_a_huge_message_is_read_whole_and_held_once_in_memory(mail: Mail, tmp_path: Path) -> None:
    """12 MB of every byte value: what imaplib reads; at its peak the reading holds little more
    than the message (IMAPClient's debug level left at 5 made it 7.4 times)."""
    huge = b"Subject: huge\r\n\r\n" + bytes(range(256)) * 47_000
    mail.dovecot.append("tongiaki", huge)
    [stored] = mail.dovecot.fetch_raw("tongiaki")
    with imap_inbox(_imap(mail, tmp_path)) as inbox:
        tracemalloc.start()
        try:
            [(_, raw)] = list(inbox.new_messages())
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert raw == stored and len(raw) > 12_000_000
    assert peak < 1.5 * len(raw), f"{peak / len(raw):.1f} times the message"


def test_only_the_handled_are_marked_and_a_delivery_meanwhile_waits_for_the_next_poll(
    mail: Mail, tmp_path: Path
) -> None:
    """The key of a message is its UID: what was not marked is read again next time."""
    for n in range(3):
        mail.dovecot.append("tongiaki", f"Subject: {n}\r\n\r\n{n}\r\n".encode())
    with imap_inbox(_imap(mail, tmp_path)) as inbox:
        waiting = inbox.new_messages()
        first_key, first = next(waiting)
        inbox.mark_handled([first_key])  # as a batch that committed, between two reads
        mail.dovecot.append("tongiaki", b"Subject: later\r\n\r\nlater\r\n")
        rest = [raw.split(b"\r\n")[0] for _, raw in waiting]
    assert first.startswith(b"Subject: 0") and rest == [b"Subject: 1", b"Subject: 2"]
    assert len(_unseen(mail)) == 3
    with imap_inbox(_imap(mail, tmp_path)) as inbox:
        again = [raw.split(b"\r\n")[0] for _, raw in inbox.new_messages()]
    assert again == [b"Subject: 1", b"Subject: 2", b"Subject: later"]


def test_a_folder_named_in_any_script_is_opened(mail: Mail, tmp_path: Path) -> None:
    """Named in the settings as the host reads it; said to the server in IMAP's modified
    UTF-7 (imaplib alone could not send it: UnicodeEncodeError at every poll)."""
    with mail.dovecot.session("tongiaki") as client:
        assert client.create('"Tongiaki-Z&APw-ge"')[0] == "OK"
    mail.dovecot.append(
        "tongiaki", b"Subject: in a folder\r\n\r\n1\r\n", mailbox="Tongiaki-Z&APw-ge"
    )
    with imap_inbox(replace(_imap(mail, tmp_path), folder="Tongiaki-Züge")) as inbox:
        [(_, raw)] = list(inbox.new_messages())
    assert raw.startswith(b"Subject: in a folder")


def test_a_refused_login_and_a_missing_folder_say_the_servers_words(
    mail: Mail, tmp_path: Path
) -> None:
    wrong = replace(_imap(mail, tmp_path), password="not-the-password")
    with pytest.raises(imaplib.IMAP4.error) as refused:
        imap_connect(wrong)
    assert str(refused.value) == "[AUTHENTICATIONFAILED] Authentication failed."
    with pytest.raises(imaplib.IMAP4.error) as missing:
        imap_connect(replace(_imap(mail, tmp_path), folder="Tongiaki"))
    assert str(missing.value).startswith("cannot open folder 'Tongiaki': Mailbox doesn't exist")

    settings = mail_settings(mail, tmp_path / "data")
    settings = replace(settings, imap=replace(settings.imap, password="not-the-password"))
    service = Service(open_database(settings.database_path), settings)
    mail.dovecot.append("tongiaki", b"Subject: waiting\r\n\r\n1\r\n")
    report = run_cycle(service, later(0))
    assert report.read_error == "LoginError: [AUTHENTICATIONFAILED] Authentication failed."
    assert report.handled == 0 and len(_unseen(mail)) == 1
