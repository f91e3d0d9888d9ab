"""The policy inbound mail is parsed with (`pbem.mail_in.inbound.READING`) makes each header
object once and shares it between mails: what every field says, and the defects found in
it, must be what `email`'s default policy gives, for real clients' replies and for a
stranger's malformed fields alike, and the shared objects stay few."""

from __future__ import annotations

import email
from email.message import Message
from email.policy import default
from pathlib import Path

from pbem.mail_in import inbound
from pbem.mail_in.inbound import READING

REPLIES = Path(__file__).resolve().parent / "fixtures" / "replies"

MALFORMED = (
    b"From: =?utf-8?q?broken?= <<a@@example.test>>\n"
    b"To: tongiaki@example.test,,, <\n"
    b'Content-Type: multipart/mixed; boundary="unclosed; charset=\n'
    b"Message-ID: <no-end@example.test\n"
    b"Subject: =?x-unknown?b?////?= =?utf-8?q?=FF=FE?=\n"
    b"Date: the day after tomorrow\n"
    b"\n"
    b"--unclosed\n"
    b"Content-Type: text/plain; charset=no-such-charset\n"
    b"Content-Transfer-Encoding: base64x\n"
    b"\n"
    b"1\n"
)


def _said(message: Message) -> list[tuple[str, str, list[str]]]:
    """Each field of each part: its name, what it says and the kinds of its defects (or
    the error its reading raises: the default policy too raises on some broken fields)."""
    said: list[tuple[str, str, list[str]]] = []
    for part in message.walk():
        for name in part:
            try:
                value = part[name]
            except Exception as error:  # what the default policy raises, as it raises it
                said.append((name, f"raises {type(error).__name__}", []))
                continue
            defects = sorted(type(d).__name__ for d in getattr(value, "defects", ()))
            said.append((name, str(value), defects))
    return said


def _both(raw: bytes) -> tuple[Message, Message]:
    return email.message_from_bytes(raw, policy=READING), email.message_from_bytes(
        raw, policy=default
    )


def test_every_field_of_real_replies_reads_as_with_the_default_policy() -> None:
    mails = sorted(REPLIES.glob("*.eml"))
    assert len(mails) >= 12
    for path in mails:
        ours, theirs = _both(path.read_bytes())
        assert _said(ours) == _said(theirs), path.name
        assert ours.get_content_type() == theirs.get_content_type()
        assert ours.get_params() == theirs.get_params()


def test_a_strangers_malformed_fields_read_as_with_the_default_policy_twice() -> None:
    first, theirs = _both(MALFORMED)
    again, _ = _both(MALFORMED)  # the second mail gets the shared header objects
    assert _said(first) == _said(theirs) == _said(again)
    assert any(defects for _, _, defects in _said(first))  # the defects are still found
    assert first["Content-Type"] is again["Content-Type"]  # shared, not parsed again


def test_the_same_field_name_with_another_value_is_read_anew() -> None:
    one, _ = _both(b"Subject: first\nContent-Type: text/plain\n\n1\n")
    two, _ = _both(b"Subject: second\nContent-Type: text/html\n\n1\n")
    assert (str(one["Subject"]), one.get_content_type()) == ("first", "text/plain")
    assert (str(two["Subject"]), two.get_content_type()) == ("second", "text/html")


def test_the_shared_header_objects_stay_few_whatever_strangers_send() -> None:
    for n in range(500):
        message, _ = _both(f"Subject: spam {n}\nX-Junk: {'x' * n}\n\nbuy\n".encode())
        assert str(message["Subject"]) == f"spam {n}"
    assert inbound._parsed.cache_info().currsize <= 64
