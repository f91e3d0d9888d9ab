"""Hostile inbound mail, deterministic for a seed.

`hostile_mails` makes whole mails (raw RFC 5322 bytes) of many odd or hostile shapes for the
fuzz test and the benchmark of the mail loop. None is a valid move: a mail from a seat's own
address with its valid reply address never holds a legal command (its text is junk, a quote
only, or a command the service must refuse), so no game may change.

`REPLY_BODIES` makes replies of a given size whose new text is `REPLY_COMMAND` above a mass
of quotes, quote headers or markup that once made reply parsing quadratic; they drive
tests/test_replytext.py and tests/bench_replytext.py.
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from email import message_from_bytes
from email.message import EmailMessage, Message
from email.policy import default

MAX_BYTES = 1_200_000  # no generated mail is larger
UNDER_CAP = 990_000  # the size of the large mails the service must still read (cap: 1,000,000)


@dataclass(frozen=True)
class Target:
    """A real game's reply address the generator may use."""

    reply_address: str  # e.g. "tongiaki+g1-0-3-abcdefghij@example.test" (valid token)
    player: str  # the seat's real address, e.g. "ann@example.test"
    service: str  # the service's address, e.g. "tongiaki@example.test"


FALLBACK = Target(
    "tongiaki+g1-0-1-abcdefghij@example.test", "ann@example.test", "tongiaki@example.test"
)


# --- reply bodies --------------------------------------------------------------------------

REPLY_COMMAND = "expand samoa a,c"
OWN_ADDRESS = "tongiaki@example.org"  # the service's address in the quote headers below
ATTRIBUTION = "On Mon, 1 Jan 2024 at 10:00, Ann <ann@example.org> wrote:\n"
OWN_ATTRIBUTION = f"On Mon, 1 Jan 2024 at 10:00, Tongiaki <{OWN_ADDRESS}> wrote:\n"


def _times(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit))


def _plain(
    body: str, *, content_type: str = "text/plain; charset=utf-8", cte: str = "8bit"
) -> Message:
    head = (
        f"From: Ann <ann@example.org>\r\nTo: {OWN_ADDRESS}\r\nSubject: Re: your move\r\n"
        f"MIME-Version: 1.0\r\nContent-Type: {content_type}\r\n"
        f"Content-Transfer-Encoding: {cte}\r\n\r\n"
    )
    return message_from_bytes(head.encode() + body.encode(), policy=default)


def _html(body: str) -> Message:
    return _plain(body, content_type="text/html; charset=utf-8")


def _long_lines(size: int) -> Message:
    width = min(100_000, max(1000, size // 2))
    kinds = [
        ("On " + "1 Jan 2024 wrote " * width)[: width - 1] + ":",
        ("/tongiaki+" * width)[:width],
        "-- x" + " " * (width - 7) + " --",
        (("wrote" + " " * 300 + "y" * 300) * (width // 600 + 1))[: width - 1] + ":",
    ]
    lines = [kinds[n % len(kinds)] for n in range(max(1, size // width))]
    return _plain(f"{REPLY_COMMAND}\n\n-- \nAnn\n" + "\n".join(lines) + "\n")


def _header_blocks(size: int) -> Message:
    block = (
        f"Sent: Monday, 1 January 2024 10:00\nTo: Ann\nFrom: Tongiaki <{OWN_ADDRESS}>\n"
        "> quoted\n> From: Ann <ann@example.org>\n> Sent: Monday\n\n"
    )
    return _plain(f"{REPLY_COMMAND}\n\n" + _times(block, size))


def _base64_part(size: int) -> Message:
    text = f"{REPLY_COMMAND}\n\n{OWN_ATTRIBUTION}" + _times("> quoted line\n", size * 3 // 4)
    return _plain(base64.encodebytes(text.encode()).decode(), cte="base64")


def _content_type_params(size: int) -> Message:
    """A Content-Type of `size` characters, stored as it came (the parser would take minutes
    over it: see the report of the hostile-mail work)."""
    message = EmailMessage()
    params = _times("; p=v", size // 2) + ";" * (size // 2)
    message.set_raw("Content-Type", f"text/plain; charset=utf-8{params}")
    message.set_payload(f"{REPLY_COMMAND}\n\n{OWN_ATTRIBUTION}> quoted\n")
    return message


def _nested_multipart(size: int) -> Message:
    """Multipart parts nested `size // 1024` deep (built, not parsed: the parser recurses)."""
    inner = EmailMessage()
    inner.set_content(REPLY_COMMAND)
    for depth in range(max(10, size // 1024)):
        outer = EmailMessage()
        outer.set_raw("Content-Type", f'multipart/mixed; boundary="b{depth}"')
        outer.set_payload([inner])
        inner = outer
    return inner


REPLY_BODIES: dict[str, Callable[[int], Message]] = {
    "attribution_lines": lambda n: _plain(f"{REPLY_COMMAND}\n\n" + _times(ATTRIBUTION, n)),
    "attributions_and_quotes": lambda n: _plain(
        f"{REPLY_COMMAND}\n\n" + _times(ATTRIBUTION + "> quoted line\n", n)
    ),
    "quote_lines": lambda n: _plain(
        f"{REPLY_COMMAND}\n\n{OWN_ATTRIBUTION}" + _times("> quoted: a -- b\n", n)
    ),
    "header_blocks": _header_blocks,
    "long_lines": _long_lines,
    "dash_lines": lambda n: _plain(
        f"{REPLY_COMMAND}\n\n____\n"
        + _times("-- a --\n-----Original Message-----\n--\n-- Ann --\n\n", n)
    ),
    "html_nested_divs": lambda n: _html(
        f"<div>{REPLY_COMMAND}</div>"
        + "<div>" * (n // 11)
        + "<blockquote>old</blockquote>"
        + "</div>" * (n // 11)
    ),
    "html_blockquotes": lambda n: _html(
        f"<div>{REPLY_COMMAND}</div>" + _times("<blockquote>", n) + "old"
    ),
    "html_line_breaks": lambda n: _html(f"<div>{REPLY_COMMAND}</div>" + _times("<br>", n)),
    "html_unclosed_tags": lambda n: _html(f"<div>{REPLY_COMMAND}</div>" + _times("<a ", n)),
    "html_unclosed_comments": lambda n: _html(f"<div>{REPLY_COMMAND}</div>" + _times("<!--x>", n)),
    "base64_part": _base64_part,
    "quoted_printable_soft_breaks": lambda n: _plain(
        f"{REPLY_COMMAND}\n\n-- \n" + _times("a wrote: b -- c =\n", n // 2) + "\n"
        f"{OWN_ATTRIBUTION}> " + _times("quoted text =\n", n // 2) + "\n",
        cte="quoted-printable",
    ),
    "flowed_soft_breaks": lambda n: _plain(
        f"{REPLY_COMMAND}\n\n{OWN_ATTRIBUTION}" + _times("> quoted \n", n),
        content_type="text/plain; charset=utf-8; format=flowed",
    ),
    "content_type_params": _content_type_params,
    "nested_multipart": _nested_multipart,
}


# --- whole mails ---------------------------------------------------------------------------


@dataclass
class _Mail:
    """What one mail is made from: its random source, target and serial number."""

    rng: random.Random
    target: Target
    serial: str

    @property
    def service_local(self) -> str:
        return self.target.service.partition("@")[0]

    @property
    def domain(self) -> str:
        return self.target.service.partition("@")[2]

    def message_id(self) -> str:
        return f"<hostile-{self.serial}@fuzz.example>"

    def stranger(self) -> str:
        return f"{self._word(4, 9)}@{self.rng.choice(['evil.test', 'example.net', 'fuzz.test'])}"

    def sender(self) -> str:
        """The player's address or a stranger's."""
        return self.target.player if self.rng.random() < 0.6 else self.stranger()

    def recipient(self) -> str:
        """The valid reply address, the service's bare address or a wrong token."""
        roll = self.rng.random()
        if roll < 0.6:
            return self.target.reply_address
        return self.target.service if roll < 0.8 else self.wrong_token()

    def wrong_token(self) -> str:
        address = self.target.reply_address
        local, _, domain = address.rpartition("@")
        head, _, token = local.rpartition("-")
        forged = token
        while forged == token:
            forged = "".join(self.rng.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in token)
        return f"{head}-{forged}@{domain}" if head else f"{local}+g1-0-1-{forged}@{domain}"

    def junk(self) -> str:
        """A short text that is no command of the game."""
        return self.rng.choice(
            [
                "what is this?",
                "¿qué?",
                "\u202egnissim evom",
                "thanks!!",
                "I do not understand",
                "—",
                "☃ ☃ ☃",
                "> only a quote",
                "",
            ]
        )

    def _word(self, low: int, high: int) -> str:
        return "".join(
            self.rng.choice(string.ascii_lowercase) for _ in range(self.rng.randint(low, high))
        )

    def mail(
        self,
        body: bytes | str = b"",
        *,
        sender: bytes | str | None = None,
        to: bytes | str | None = None,
        subject: bytes | str = "Re: [Tongiaki] your move",
        content_type: str = "text/plain; charset=utf-8",
        headers: Sequence[tuple[str, bytes | str]] = (),
        message_id: bytes | str | None = "",
    ) -> bytes:
        """A mail from the given parts; message_id None leaves the header out."""
        head: list[tuple[str, bytes | str]] = [
            ("From", sender if sender is not None else self.sender()),
            ("To", to if to is not None else self.recipient()),
            ("Subject", subject),
            ("Date", "Mon, 23 Nov 2026 10:00:00 +0000"),
        ]
        if message_id is not None:
            head.append(("Message-ID", message_id or self.message_id()))
        head += [("MIME-Version", "1.0"), ("Content-Type", content_type), *headers]
        lines = [name.encode() + b": " + _bytes(value) + b"\r\n" for name, value in head]
        return b"".join(lines) + b"\r\n" + _bytes(body)


def _bytes(value: bytes | str) -> bytes:
    return value if isinstance(value, bytes) else value.encode()


def _player_reply(
    m: _Mail,
    body: bytes | str,
    *,
    content_type: str = "text/plain; charset=utf-8",
    headers: Sequence[tuple[str, bytes | str]] = (),
) -> bytes:
    """From the seat's own address to its valid reply address: the body reaches the game."""
    to = m.target.reply_address
    return m.mail(body, sender=m.target.player, to=to, content_type=content_type, headers=headers)


def _digits(m: _Mail, count: int) -> str:
    """`count` digits, the first not 0: never a small number, whatever reads it."""
    return m.rng.choice("123456789") + "".join(m.rng.choices(string.digits, k=count - 1))


def _nested(m: _Mail, depth: int) -> bytes:
    parts = [
        b'--b%d\r\nContent-Type: multipart/mixed; boundary="b%d"\r\n\r\n' % (d, d + 1)
        for d in range(depth)
    ]
    leaf = b"--b%d\r\nContent-Type: text/plain\r\n\r\n%s\r\n" % (depth, _bytes(m.junk()))
    closes = [b"--b%d--\r\n" % d for d in range(depth, -1, -1)]
    body = b"".join(parts) + leaf + b"".join(closes)
    return m.mail(body, content_type='multipart/mixed; boundary="b0"')


def _multipart_1000_deep(m: _Mail) -> bytes:
    return _nested(m, m.rng.randint(1000, 1100))


def _multipart_300_deep(m: _Mail) -> bytes:
    return _nested(m, m.rng.randint(250, 350))


def _multipart_no_boundary(m: _Mail) -> bytes:
    byte = bytes([m.rng.randint(0x80, 0xFF)])
    kind = m.rng.choice(["multipart/mixed", "multipart/alternative", "multipart/related"])
    return m.mail(byte + m.rng.choice([b"", b"\r\n"]), content_type=kind)


def _message_id_8bit(m: _Mail) -> bytes:
    raw = bytes(m.rng.randint(0x80, 0xFF) for _ in range(m.rng.randint(1, 12)))
    return m.mail(m.junk(), message_id=b"<" + raw + b"@x>")


def _message_id_long(m: _Mail) -> bytes:
    local = m.rng.choice(string.ascii_letters) * m.rng.randint(5000, 6000)
    return m.mail(m.junk(), message_id=f"<{local}@x>")


def _no_message_id(m: _Mail) -> bytes:
    return m.mail(m.junk(), message_id=None)


def _message_id_duplicated(m: _Mail) -> bytes:
    same = f"<duplicate-{m.rng.randint(0, 2)}@fuzz.example>"
    twice = [("Message-ID", m.message_id())] if m.rng.random() < 0.5 else []
    return m.mail(m.junk(), message_id=same, headers=twice)


def _tag_5000_digits(m: _Mail) -> bytes:
    digits = "".join(m.rng.choices(string.digits, k=5000))
    rest = m.rng.choice(["", "-0-1-abcdefghij", "-gm-1-abcdefghij"])
    return m.mail(m.junk(), to=f"{m.service_local}+g{digits}{rest}@{m.domain}")


def _tag_huge_numbers(m: _Mail) -> bytes:
    huge = ["9999999999", str(2**63), str(10**30), "0", "-1", "999999999", "1e9", "0x10"]
    game, seat, decision = (m.rng.choice(huge) for _ in range(3))
    token = m.target.reply_address.rpartition("@")[0].rpartition("-")[2] or "abcdefghij"
    to = f"{m.service_local}+g{game}-{seat}-{decision}-{token}@{m.domain}"
    return m.mail(m.junk(), sender=m.target.player, to=to)


def _addresses(m: _Mail, size: int) -> str:
    """Many addresses, folded or not, the reply address among them, about `size` long."""
    chunk = ", ".join(m.stranger() for _ in range(50))
    fold = m.rng.choice([", ", ",\r\n "])
    chunk = chunk.replace(", ", fold)
    many = fold.join([chunk] * max(1, size // (len(chunk) + len(fold))))
    where = m.rng.choice(["first", "last", "middle"])
    if where == "first":
        return f"{m.target.reply_address}{fold}{many}"
    if where == "last":
        return f"{many}{fold}{m.target.reply_address}"
    half = len(many) // 2
    return f"{many[:half]}{fold}{m.target.reply_address}{fold}{many[half:]}"


def _to_header_1mb(m: _Mail) -> bytes:
    return m.mail(m.junk(), to=_addresses(m, m.rng.randint(UNDER_CAP - 60_000, UNDER_CAP - 2_000)))


def _to_header_over_cap(m: _Mail) -> bytes:
    return m.mail(m.junk(), to=_addresses(m, m.rng.randint(1_100_000, MAX_BYTES - 2_000)))


def _headers_10000(m: _Mail) -> bytes:
    name = m.rng.choice(["X-Junk", "Received", "Comments", "X-Spam"])
    headers = [(name, f"{hop} hop") for hop in m.rng.choices(range(10**6), k=10_000)]
    return m.mail(m.junk(), headers=headers)


def _header_line_500k(m: _Mail) -> bytes:
    size = m.rng.randint(500_000, 520_000)
    which = m.rng.choice(["Subject", "X-Filler", "References", "To", "From", "Content-Type"])
    if which == "Content-Type":
        params = "; p=v" * (size // 5)
        return m.mail(m.junk(), content_type=f"text/plain; charset=utf-8{params}")
    if which == "References":
        return m.mail(m.junk(), headers=[("References", "<a@b> " * (size // 6))])
    if which in ("To", "From"):
        value = m.target.player + " " + "x" * size
        if which == "To":
            return m.mail(m.junk(), to=m.target.reply_address + " " + "x" * size)
        return m.mail(m.junk(), sender=value)
    text = "".join(m.rng.choices("ab ", k=100)) * (size // 100)
    if which == "Subject":
        return m.mail(m.junk(), subject=text)
    return m.mail(m.junk(), headers=[("X-Filler", text)])


def _unclosed_quotes_brackets(m: _Mail) -> bytes:
    player, reply = m.target.player, m.target.reply_address
    sender = m.rng.choice([f'"Ann <{player}>', f"Ann <{player}", f'"Ann" <{player}', f"<<{player}"])
    to = m.rng.choice([f"<{reply}", f'"Tongiaki <{reply}>', f"Tongiaki <{reply}>>", f'"{reply}'])
    return m.mail(m.junk(), sender=sender, to=to)


def _from_two_addresses(m: _Mail) -> bytes:
    pair = [m.target.player, m.stranger()]
    m.rng.shuffle(pair)
    return m.mail(m.junk(), sender=", ".join(pair), to=m.target.reply_address)


def _from_long(m: _Mail) -> bytes:
    """A From of 4,000 bytes of commas or comments: Python's address parser is quadratic."""
    unit = m.rng.choice(["a,", "(a)", '"a" '])
    return m.mail(m.junk(), sender=unit * (4000 // len(unit)), to=m.target.reply_address)


def _from_many_copies(m: _Mail) -> bytes:
    """Many From fields (and of a header the service reads), each long."""
    name = m.rng.choice(["From", "Precedence", "Auto-Submitted", "Return-Path", "Subject"])
    headers = [(name, "a, " * 1300) for _ in range(m.rng.randint(20, 150))]
    return m.mail(m.junk(), headers=headers, to=m.target.reply_address)


def _from_display_name_address(m: _Mail) -> bytes:
    player, other = m.target.player, m.stranger()
    sender = m.rng.choice([f'"{player}" <{other}>', f"{player} <{other}>", f'"{other}" <{player}>'])
    return m.mail(m.junk(), sender=sender, to=m.target.reply_address)


def _forged_wrong_token(m: _Mail) -> bytes:
    return m.mail(m.junk(), sender=m.target.player, to=m.wrong_token())


def _forged_replay(m: _Mail) -> bytes:
    quote = f"On Mon, 23 Nov 2026 at 10:00, Tongiaki <{m.target.service}> wrote:\r\n> 1) pass\r\n"
    body = m.rng.choice([quote, f"{m.junk()}\r\n\r\n{quote}", "\r\n\r\n", f"{m.junk()}\r\n"])
    replayed = [("In-Reply-To", f"<prompt-{m.rng.randint(1, 9)}@{m.domain}>")]
    return _player_reply(m, body, headers=replayed)


def _forged_no_tag(m: _Mail) -> bytes:
    return m.mail(m.junk(), sender=m.target.player, to=m.target.service)


def _command_unicode_digits(m: _Mail) -> bytes:
    digit = m.rng.choice(["¹", "²", "③", "②", "٣", "١", "３", "𝟙", "۲", "৩", "Ⅲ", "½"])
    return _player_reply(m, digit + m.rng.choice(["", ")", ".", "\r\n"]))


def _command_5000_digits(m: _Mail) -> bytes:
    return _player_reply(m, _digits(m, 5000) + m.rng.choice(["", ")", "\r\n"]))


def _command_vacation_huge(m: _Mail) -> bytes:
    unit = m.rng.choice(["d", "h", "w", ""])
    return _player_reply(m, f"vacation {_digits(m, 5000)}{unit}")


def _command_tz_junk(m: _Mail) -> bytes:
    alphabet = string.ascii_letters + string.punctuation + "/_ ☃é\u202e"
    junk = "".join(m.rng.choices(alphabet, k=10_240))
    return _player_reply(m, f"tz {junk}")


def _command_extend_huge(m: _Mail) -> bytes:
    return _player_reply(m, "extend " + "9" * m.rng.randint(11, 30) + m.rng.choice(["d", "h", ""]))


def _body_nul_bytes(m: _Mail) -> bytes:
    words = [m.rng.choice(["what", "is", "this", "\x00", "\x00\x00", "?"]) for _ in range(20)]
    return _player_reply(m, " ".join(words))


def _body_invalid_utf8(m: _Mail) -> bytes:
    bad = m.rng.choice(
        [b"\xff\xfe", b"\xc3(", b"\xe2\x82", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"]
    )
    return _player_reply(
        m, b"caf" + bad + b" ?\r\n", headers=[("Content-Transfer-Encoding", "8bit")]
    )


def _body_unknown_charset(m: _Mail) -> bytes:
    charset = m.rng.choice(["x-foo", "utf-9", "punycode", "idna", "base64", "\u00e9", "x" * 300])
    body = bytes(m.rng.randint(0x80, 0xFF) for _ in range(40))
    return _player_reply(m, body, content_type=f"text/plain; charset={charset}")


def _body_bad_base64(m: _Mail) -> bytes:
    body = m.rng.choice(
        ["!!!not base64***", "QUJD=RE==", "A", "====", "\u00e9\u00e9", "Zm9v" * 3 + "!"]
    )
    return _player_reply(m, body, headers=[("Content-Transfer-Encoding", "base64")])


def _body_bad_quoted_printable(m: _Mail) -> bytes:
    body = m.rng.choice(["=ZZ=\r\n=4", "=", "==3D=\r", "what=\r\n=\r\n=0", "=C3=28=FF="])
    return _player_reply(m, body, headers=[("Content-Transfer-Encoding", "quoted-printable")])


def _html_10000_divs(m: _Mail) -> bytes:
    depth = m.rng.randint(10_000, 11_000)
    html = "<div>" * depth + m.junk() + "</div>" * m.rng.choice([0, depth])
    return _player_reply(m, html, content_type="text/html; charset=utf-8")


def _attribution_765k(m: _Mail) -> bytes:
    name = m.rng.choice(["Ann", "Bob Builder", "Tongiaki", "Ödön"])
    line = f"On Mon, {m.rng.randint(1, 28)} Jan 2024 at 10:00, {name} <ann@example.org> wrote:\r\n"
    return _player_reply(m, line * (765 * 1024 // len(line)))


def _content_type_1000_params(m: _Mail) -> bytes:
    params = "".join(f"; p{n}={m.rng.randint(0, 999)}" for n in range(m.rng.randint(1000, 1100)))
    return _player_reply(m, m.junk(), content_type=f"text/plain; charset=utf-8{params}")


def _rfc2231_broken(m: _Mail) -> bytes:
    params = m.rng.choice(
        [
            "; charset*0*=utf-8''%FF; charset*2=x; charset*=bad''",
            "; charset*=''; name*1*=%zz; name*0=\"a",
            "; charset*0=utf; charset*0=8; charset*99999999999=x",
            "; charset*=utf-8'en'%E2%82",
            "; charset=utf-8; name*",  # the default policy's parser raises IndexError
        ]
    )
    return _player_reply(m, m.junk(), content_type=f"text/plain{params}")


def _subject_encoded_controls(m: _Mail) -> bytes:
    evil = "a\r\nBcc: mallory@evil.test\r\n\x00\x1b[31m\x07"
    words = [
        "=?utf-8?q?a=0D=0ABcc=3A_mallory=40evil.test=00=1B?=",
        "=?utf-8?b?" + base64.b64encode(evil.encode()).decode() + "?=",
        "=?iso-8859-1?q?=0A=0D=0A?= =?x-unknown?q?=FF?=",
    ]
    return m.mail(m.junk(), subject=m.rng.choice(words))


def _headers_8bit(m: _Mail) -> bytes:
    raw = bytes(m.rng.randint(0x80, 0xFF) for _ in range(30))
    sender = raw + b" <" + m.sender().encode() + b">"
    return m.mail(m.junk(), sender=sender, subject=raw, headers=[("X-Raw", raw)])


def _headers_only(m: _Mail) -> bytes:
    return m.mail(b"").removesuffix(b"\r\n")


def _empty(m: _Mail) -> bytes:
    return b""


def _random_bytes(m: _Mail) -> bytes:
    return m.rng.randbytes(m.rng.choice([1, 10, 1000, 100_000]))


def _auto_submitted(m: _Mail) -> bytes:
    kind = m.rng.choice(["auto-replied", "auto-generated", "AUTO-REPLIED"])
    return _player_reply(m, m.junk(), headers=[("Auto-Submitted", kind)])


def _bounce_report(m: _Mail) -> bytes:
    original = m.mail(m.junk(), sender=m.target.service, to=m.target.player)
    body = (
        b"--r\r\nContent-Type: text/plain\r\n\r\nDelivery failed.\r\n"
        b"--r\r\nContent-Type: message/delivery-status\r\n\r\n"
        b"Reporting-MTA: dns; mx.example.test\r\n\r\nFinal-Recipient: rfc822; "
        + m.target.player.encode()
        + b"\r\nAction: failed\r\nStatus: 5.1.1\r\n"
        b"--r\r\nContent-Type: message/rfc822\r\n\r\n" + original + b"\r\n--r--\r\n"
    )
    sender = m.rng.choice([f"MAILER-DAEMON@{m.domain}", "postmaster@example.test", m.target.player])
    return m.mail(
        body,
        sender=sender,
        to=m.target.reply_address,
        content_type='multipart/report; report-type=delivery-status; boundary="r"',
        headers=[("Return-Path", "<>")] if m.rng.random() < 0.5 else [],
    )


def _precedence_bulk(m: _Mail) -> bytes:
    kind = m.rng.choice(["bulk", "junk", "list", "Bulk"])
    return _player_reply(m, m.junk(), headers=[("Precedence", kind)])


SHAPES: dict[str, Callable[[_Mail], bytes]] = {
    "multipart_1000_deep": _multipart_1000_deep,
    "multipart_no_boundary": _multipart_no_boundary,
    "multipart_300_deep": _multipart_300_deep,
    "message_id_8bit": _message_id_8bit,
    "message_id_long": _message_id_long,
    "no_message_id": _no_message_id,
    "message_id_duplicated": _message_id_duplicated,
    "tag_5000_digits": _tag_5000_digits,
    "tag_huge_numbers": _tag_huge_numbers,
    "to_header_1mb": _to_header_1mb,
    "to_header_over_cap": _to_header_over_cap,
    "headers_10000": _headers_10000,
    "header_line_500k": _header_line_500k,
    "unclosed_quotes_brackets": _unclosed_quotes_brackets,
    "from_two_addresses": _from_two_addresses,
    "from_long": _from_long,
    "from_many_copies": _from_many_copies,
    "from_display_name_address": _from_display_name_address,
    "forged_wrong_token": _forged_wrong_token,
    "forged_replay": _forged_replay,
    "forged_no_tag": _forged_no_tag,
    "command_unicode_digits": _command_unicode_digits,
    "command_5000_digits": _command_5000_digits,
    "command_vacation_huge": _command_vacation_huge,
    "command_tz_junk": _command_tz_junk,
    "command_extend_huge": _command_extend_huge,
    "body_nul_bytes": _body_nul_bytes,
    "body_invalid_utf8": _body_invalid_utf8,
    "body_unknown_charset": _body_unknown_charset,
    "body_bad_base64": _body_bad_base64,
    "body_bad_quoted_printable": _body_bad_quoted_printable,
    "html_10000_divs": _html_10000_divs,
    "attribution_765k": _attribution_765k,
    "content_type_1000_params": _content_type_1000_params,
    "rfc2231_broken": _rfc2231_broken,
    "subject_encoded_controls": _subject_encoded_controls,
    "headers_8bit": _headers_8bit,
    "headers_only": _headers_only,
    "empty": _empty,
    "random_bytes": _random_bytes,
    "auto_submitted": _auto_submitted,
    "bounce_report": _bounce_report,
    "precedence_bulk": _precedence_bulk,
}


def _part_header_huge(m: _Mail) -> bytes:
    """A multipart whose text part has a Content-Type of 200,000 to 900,000 characters: the
    door of the service bounds the mail's own header fields, not those of its parts."""
    params = m.rng.choice([";", "; p=v", '; a="'])
    value = "text/plain; charset=utf-8" + params * (m.rng.randint(200_000, 900_000) // len(params))
    body = f"--p\r\nContent-Type: {value}\r\n\r\n{m.junk()}\r\n--p--\r\n"
    return _player_reply(m, body, content_type='multipart/mixed; boundary="p"')


SHAPES["part_header_huge"] = _part_header_huge


def hostile_mails(
    count: int, seed: int, targets: Sequence[Target], *, shapes: Sequence[str] = ()
) -> Iterator[tuple[str, bytes]]:
    """(shape name, raw RFC 5322 bytes) for `count` mails, deterministic for a seed.

    The shapes (all of SHAPES unless named) come in one seeded order, repeated: every run of
    that many mails holds each shape once. Each mail is at most MAX_BYTES long."""
    makers = SHAPES
    rng = random.Random(seed)
    order = list(shapes or SHAPES)
    rng.shuffle(order)
    chosen = list(targets) or [FALLBACK]
    for n in range(count):
        name = order[n % len(order)]
        mail = _Mail(random.Random(rng.getrandbits(64)), rng.choice(chosen), f"{seed}-{n}")
        yield name, makers[name](mail)[:MAX_BYTES]
