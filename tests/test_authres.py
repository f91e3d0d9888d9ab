"""Whose mail is it: `pbem.mail_in.authres.sender_refusal` on mails as they arrive, with the
Authentication-Results headers Gmail, Fastmail and Postfix (OpenDKIM, OpenDMARC) write."""

from __future__ import annotations

import email
import email.policy
import time
from email.message import Message

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail_in.authres import sender_refusal

GMAIL = """\
ARC-Authentication-Results: i=1; mx.google.com;
       dkim=pass header.i=@example.com header.s=20230601 header.b=Kx3vQe9m;
       spf=pass (google.com: domain of ann@example.com designates 209.85.220.41 as permitted sender) smtp.mailfrom=ann@example.com;
       dmarc=pass (p=NONE sp=NONE dis=NONE) header.from=example.com
Authentication-Results: mx.google.com;
       dkim=pass header.i=@example.com header.s=20230601 header.b=Kx3vQe9m;
       spf=pass (google.com: domain of ann@example.com designates 209.85.220.41 as permitted sender) smtp.mailfrom=ann@example.com;
       dmarc=pass (p=NONE sp=NONE dis=NONE) header.from=example.com
"""  # noqa: E501  (as Gmail writes it)

FASTMAIL = """\
Authentication-Results: mx6.messagingengine.com;
    dkim=pass (2048-bit rsa key sha256) header.d=gmail.com header.i=@gmail.com
      header.b=LZ/6bT9e header.a=rsa-sha256 header.s=20230601 x-bits=2048;
    dmarc=pass policy.published-domain-policy=none
      policy.applied-disposition=none policy.evaluated-disposition=none
      (p=none,d=none,d.eval=none) policy.policy-from=p header.from=gmail.com;
    iprev=pass smtp.remote-ip=209.85.128.45 (mail-wm1-f45.google.com);
    spf=pass smtp.mailfrom=ann.example@gmail.com
      smtp.helo=mail-wm1-f45.google.com;
    x-me-sender=none;
    x-return-mx=pass header.domain=gmail.com policy.is_org=yes
      (MX Records found: gmail-smtp-in.l.google.com,alt1.gmail-smtp-in.l.google.com);
    x-tls=pass smtp.version=TLSv1.3 smtp.cipher=TLS_AES_256_GCM_SHA384 smtp.bits=256/256;
    x-vs=clean score=-100 state=0
"""

POSTFIX = """\
Authentication-Results: mail.example.org; dmarc=pass (p=none dis=none) header.from=example.com
Authentication-Results: mail.example.org;
\tdkim=pass (2048-bit key; unprotected) header.d=example.com header.i=@example.com header.a=rsa-sha256 header.s=mail header.b=AbCdEf12;
"""  # noqa: E501  (as OpenDKIM writes it)


def mail(headers: str = "", sender: str = "Ann Example <ann@example.com>") -> Message:
    """A reply as the service reads it: parsed from the bytes the mailbox gave."""
    head = (
        "Return-Path: <ann@example.com>\n"
        + headers
        + "Received: from mail-wm1-f45.google.com (mail-wm1-f45.google.com [209.85.128.45])\n"
        "\tby mail.example.org (Postfix) with ESMTPS id 4Yx2Lq0FxTz9sW\n"
        "\tfor <tongiaki+g1.s2.d7.0a1b2c3d@example.org>; Tue, 12 Mar 2024 09:14:03 +0000\n"
        f"From: {sender}\n"
        "To: Tongiaki <tongiaki+g1.s2.d7.0a1b2c3d@example.org>\n"
        "Subject: Re: Tongiaki g1: your move\n"
        "Date: Tue, 12 Mar 2024 10:13:58 +0100\n"
        "Message-ID: <CAE3x=K9d@mail.gmail.com>\n"
        "MIME-Version: 1.0\n"
        'Content-Type: text/plain; charset="UTF-8"\n'
        "\n"
        "expand Tonga a,b\n"
    )
    return email.message_from_bytes(
        head.replace("\n", "\r\n").encode(), policy=email.policy.default
    )


def dmarc(message: Message, authserv_id: str) -> str | None:
    return sender_refusal(message, authenticated_from="dmarc", authserv_id=authserv_id)


def off(message: Message) -> str | None:
    return sender_refusal(message, authenticated_from="off", authserv_id="")


# -- what the receiving server vouches for ---------------------------------------------------


def test_gmail_dmarc_pass_is_accepted() -> None:
    assert dmarc(mail(GMAIL), "mx.google.com") is None


@pytest.mark.parametrize("host", [f"mx{n}.messagingengine.com" for n in range(1, 7)])
def test_fastmail_dmarc_pass_is_accepted_from_any_of_its_mx_hosts(host: str) -> None:
    """`authserv_id` lists the hosts, each matched exactly (case aside); a name under the
    shared suffix is not believed: anyone may write one, the server removes only its own."""
    headers = FASTMAIL.replace("mx6.messagingengine.com", host)
    sender = "Ann Example <ann.example@gmail.com>"
    hosts = " ".join(f"mx{n}.messagingengine.com" for n in range(1, 7))
    assert dmarc(mail(headers, sender), hosts) is None
    assert dmarc(mail(headers, sender), hosts.upper().replace(" ", ", ")) is None
    assert dmarc(mail(headers, sender), "messagingengine.com") is not None


def test_postfix_with_opendkim_and_opendmarc_is_accepted() -> None:
    assert dmarc(mail(POSTFIX), "mail.example.org") is None


def test_an_aligned_dkim_pass_will_do_without_a_dmarc_pass() -> None:
    opendmarc_none = POSTFIX.replace("dmarc=pass", "dmarc=none")
    assert dmarc(mail(opendmarc_none), "mail.example.org") is None
    only_dkim = POSTFIX.splitlines(keepends=True)[1:]
    assert dmarc(mail("".join(only_dkim)), "mail.example.org") is None


def test_gmail_dmarc_fail_is_refused() -> None:
    headers = (
        "Authentication-Results: mx.google.com;\n"
        "       spf=pass (google.com: domain of ann.example@gmail.com designates 209.85.220.41 "
        "as permitted sender) smtp.mailfrom=ann.example@gmail.com;\n"
        "       dmarc=fail (p=QUARANTINE sp=NONE dis=QUARANTINE) header.from=example.com\n"
    )
    assert dmarc(mail(headers), "mx.google.com") == "dmarc=fail from mx.google.com"


def test_a_dkim_pass_for_another_domain_is_refused() -> None:
    headers = (
        "Authentication-Results: mail.example.org;\n"
        "\tdkim=pass (2048-bit key; unprotected) header.d=mailgun.org header.i=@mailgun.org "
        "header.a=rsa-sha256 header.s=mg header.b=Zx81Lk0q;\n"
    )
    assert dmarc(mail(headers), "mail.example.org") == (
        "no dmarc=pass or aligned dkim=pass from mail.example.org"
    )


@pytest.mark.parametrize(
    ("signer", "sender", "accepted"),
    [
        ("mail.example.com", "ann@example.com", True),
        ("example.com", "ann@lists.example.com", True),
        ("EXAMPLE.com", "ann@Example.COM", True),
        ("com", "ann@example.com", False),  # a bare top-level domain aligns with nothing
        ("ample.com", "ann@example.com", False),  # a subdomain at a dot, not any suffix
        ("example.com.evil.net", "ann@example.com", False),
        ("example.co", "ann@example.com", False),
    ],
)
def test_dkim_alignment_is_relaxed_at_a_dot(signer: str, sender: str, accepted: bool) -> None:
    headers = (
        "Authentication-Results: mail.example.org;\n"
        f"\tdkim=pass (2048-bit key; unprotected) header.d={signer} header.i=@{signer} "
        "header.a=rsa-sha256 header.s=mail header.b=AbCdEf12;\n"
    )
    assert (dmarc(mail(headers, sender), "mail.example.org") is None) == accepted


def test_gmails_header_i_stands_in_for_a_missing_header_d() -> None:
    headers = (
        "Authentication-Results: mx.google.com;\n"
        "       dkim=pass header.i=@mail.example.com header.s=s1 header.b=Kx3vQe9m\n"
    )
    assert dmarc(mail(headers), "mx.google.com") is None
    headers = headers.replace("@mail.example.com", "@example.net")
    assert dmarc(mail(headers), "mx.google.com") is not None


def test_a_pass_from_another_host_counts_for_nothing() -> None:
    assert dmarc(mail(GMAIL), "mail.example.org") == (
        "no dmarc=pass or aligned dkim=pass from mail.example.org"
    )
    for host in ("evilmail.example.org", "mail.example.org.evil.net", "example.org"):
        headers = POSTFIX.replace("mail.example.org", host)
        assert dmarc(mail(headers), "mail.example.org") is not None, host


def test_the_arc_copy_of_a_result_counts_for_nothing() -> None:
    arc_only = "".join(GMAIL.splitlines(keepends=True)[:4])
    assert arc_only.startswith("ARC-Authentication-Results")
    assert dmarc(mail(arc_only), "mx.google.com") is not None


def test_a_forged_pass_below_the_servers_fail_is_refused() -> None:
    server = (
        "Authentication-Results: mx.google.com;\n"
        "       spf=softfail (google.com: domain of transitioning ann@example.com does not "
        "designate 203.0.113.9 as permitted sender) smtp.mailfrom=ann@example.com;\n"
        "       dmarc=fail (p=NONE sp=NONE dis=NONE) header.from=example.com\n"
    )
    forged = "Authentication-Results: mx.google.com; dmarc=pass header.from=example.com\n"
    assert dmarc(mail(server + forged), "mx.google.com") == "dmarc=fail from mx.google.com"
    assert dmarc(mail(forged + server), "mx.google.com") == "dmarc=fail from mx.google.com"


def test_a_forged_pass_beside_the_servers_none_is_refused() -> None:
    server = (
        "Authentication-Results: mail.example.org;"
        " dmarc=none (p=none dis=none) header.from=example.com\n"
    )
    forged = "Authentication-Results: mail.example.org; dmarc=pass header.from=example.com\n"
    assert dmarc(mail(server + forged), "mail.example.org") == (
        "dmarc=none and dmarc=pass from mail.example.org"
    )


def test_a_dmarc_pass_for_another_from_domain_is_refused() -> None:
    headers = (
        "Authentication-Results: mx.google.com;"
        " dmarc=pass (p=NONE sp=NONE dis=NONE) header.from=evil.example\n"
    )
    assert dmarc(mail(headers), "mx.google.com") is not None


def test_without_any_authentication_results_dmarc_refuses_and_off_accepts() -> None:
    assert dmarc(mail(), "mx.google.com") == (
        "no dmarc=pass or aligned dkim=pass from mx.google.com"
    )
    assert off(mail()) is None
    assert off(mail(GMAIL)) is None


@pytest.mark.parametrize(
    "value",
    [
        "",
        ";;;",
        "mx.google.com",
        "mx.google.com; none",
        "mx.google.com; dmarc=",
        "mx.google.com; dmarc",
        "mx.google.com; =pass",
        "mx.google.com; dmarc=pass (unclosed comment",
        "mx.google.com; dmarc=pass header.from=example.com)",
        'mx.google.com; dmarc=pass header.from="example.com',
        "mx.google.com; dmarc=pass header.from=example.com header.from=example.com",
        "mx.google.com; dmarc=pass header.from\\",
        "mx.google.com extra words; dmarc=pass header.from=example.com",
        "mx.google.com; " + "(" * 50_000 + "dmarc=pass",
        "mx.google.com; " + "dmarc=pass " * 20_000,
        "=?utf-8?q?mx.google.com=3B_dmarc=3Dpass?=",
        "mx.google.com; dkim=pass header.d=",
        "(mx.google.com); dmarc=fail",
    ],
)
def test_a_header_that_cannot_be_read_vouches_for_nothing(value: str) -> None:
    headers = f"Authentication-Results: {value}\n"
    assert dmarc(mail(headers), "mx.google.com") is not None


def test_an_unreadable_header_of_the_server_refuses_even_beside_a_pass() -> None:
    headers = GMAIL + "Authentication-Results: mx.google.com; dmarc=fail (p=REJECT\n"
    assert dmarc(mail(headers), "mx.google.com") == (
        "unreadable Authentication-Results from mx.google.com"
    )


def test_quoted_values_and_versions_are_read() -> None:
    headers = (
        'Authentication-Results: "mx.google.com" 1; dkim/1 = pass header.d="example.com" '
        'header.b="a;b(c)"; dmarc=pass reason="aligned; fine" header.from=example.com\n'
    )
    assert dmarc(mail(headers), "mx.google.com") is None


# -- what the From header says, with or without authentication -------------------------------


@pytest.mark.parametrize(
    ("sender", "reason"),
    [
        ("ann@example.com, bob@example.net", "From holds 2 addresses"),
        ("Ann <ann@example.com>, Bob <bob@example.net>", "From holds 2 addresses"),
        ("bob@bank.example <eve@evil.example>", "From holds 2 addresses"),
        ("Friends: ann@example.com, bob@example.net;", "From holds a group"),
        ("Friends: ann@example.com;", "From holds a group"),
        ("undisclosed-recipients:;", "From holds a group"),
        ('"bob@bank.example" <eve@evil.example>', "display name holds another address"),
        ('"bob＠bank.example" <eve@evil.example>', "display name holds another address"),
        ("=?utf-8?q?bob=40bank.example?= <eve@evil.example>", "display name holds another address"),
        (
            "=?UTF-8?B?Ym9iQGJhbmsuZXhhbXBsZSA8Ym9iQGJhbmsuZXhhbXBsZT4=?= <eve@evil.example>",
            "display name holds another address",
        ),
        ('"Bob (bob @ bank.example)" <eve@evil.example>', "display name holds another address"),
        ("", "From holds 0 addresses"),
        ("undisclosed", "From holds no address"),
        ("Ann <>", "From holds no address"),
        ('"unclosed <ann@example.com>', "From has an open quote or comment"),
        ("Ann (unclosed <ann@example.com>", "From has an open quote or comment"),
        ("Ann <ann@example.com> trailing", "From holds 2 addresses"),
    ],
)
def test_a_from_that_names_no_single_plain_sender_is_refused(sender: str, reason: str) -> None:
    assert off(mail(sender=sender)) == reason
    assert dmarc(mail(GMAIL, sender), "mx.google.com") == reason


@pytest.mark.parametrize(
    "sender",
    [
        "ann@example.com",
        "<ann@example.com>",
        "Ann Example <ann@example.com>",
        '"Example, Ann" <ann@example.com>',
        "ann@example.com (Ann Example)",
        "=?UTF-8?Q?J=C3=B6rg_M=C3=BCller?= <ann@example.com>",
        '"ann@example.com" <ann@example.com>',  # many mailers name you by your address
        "Ann (@ann_plays_tongiaki) <ann@example.com>",
        "Ann Example\n <ann@example.com>",  # folded
    ],
)
def test_plain_senders_are_accepted(sender: str) -> None:
    assert off(mail(sender=sender)) is None
    assert dmarc(mail(GMAIL, sender), "mx.google.com") is None


def test_two_from_headers_are_refused() -> None:
    message = mail("From: Eve <eve@evil.example>\n")
    assert off(message) == "mail holds 2 From headers"


def test_a_mail_without_from_is_refused() -> None:
    message = mail()
    del message["From"]
    assert off(message) == "mail holds 0 From headers"


def test_a_100_kb_from_is_refused_at_once() -> None:
    sender = "A" * 100_000 + " <ann@example.com>"
    started = time.perf_counter()
    assert off(mail(sender=sender)) == "From is too long (100018 characters)"
    sender = ", ".join(["a@example.com"] * 10_000)
    assert (off(mail(sender=sender)) or "").startswith("From is too long")
    assert time.perf_counter() - started < 1


@settings(max_examples=300, deadline=None)
@given(
    sender=st.binary(max_size=300),
    results=st.lists(st.binary(max_size=300), max_size=3),
)
def test_no_mail_makes_it_raise(sender: bytes, results: list[bytes]) -> None:
    raw = b"".join(b"Authentication-Results: mx.google.com; " + r + b"\r\n" for r in results)
    raw += b"From: " + sender + b"\r\nSubject: x\r\n\r\nbody\r\n"
    message = email.message_from_bytes(raw, policy=email.policy.default)
    for how in ("off", "dmarc"):
        refusal = sender_refusal(message, authenticated_from=how, authserv_id="mx.google.com")
        assert refusal != "From could not be checked"  # the catch-all was never needed
