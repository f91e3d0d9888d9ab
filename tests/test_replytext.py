"""Reply text: 40 real replies from real mail clients, and game replies built here."""

from __future__ import annotations

import email
import email.policy
import json
from dataclasses import dataclass
from email.message import EmailMessage, Message
from pathlib import Path
from typing import Any

import pytest

from pbem.replytext import message_text, new_text, reply_text

FIXTURES = Path(__file__).parent / "fixtures" / "replies"
MANIFEST: list[dict[str, Any]] = json.loads((FIXTURES / "MANIFEST.json").read_text("utf-8"))

OWN = ("tongiaki@example.org",)
NAME = ("Tongiaki",)


@dataclass(frozen=True)
class Row:
    """How one fixture is checked: whose quote header it has, what must be gone."""

    own: str = ""
    absent: tuple[str, ...] = ()
    expected: str | None = None
    contains: tuple[str, ...] = ()


# own: the address (or, where the quote header shows none, the display name) of the person
# replied to, standing in for the service's own; absent: text found only in the quote.
ROWS: dict[str, Row] = {
    "01": Row("bob@xxx.mailgun.org", ("написал", "Hi")),
    "02": Row("bob@example.com", ("Original Message", "Subject", "Hi")),
    "03": Row("bob", ("wrote", "Hi")),
    "04": Row("tgwizard@gmail.com", ("wrote", "Hi there")),
    "05": Row("bob@xxx.mailgun.org", ("Original Message", "Subject", "Hi")),
    "06": Row("xxx@gmail.com", ("wrote", "Hi")),
    "07": Row("bob@xxx.mailgun.org", ("Subject", "Hi")),
    "08": Row("xxx@xxx.mailgun.org", ("mailto", "The manager", "Unsubscribe")),
    "09": Row("Megan One", ("wrote", "Hi")),
    "10": Row("bob@xxx.mailgun.org", ("Original Message", "Subject", "Hi")),
    # talon keeps the 'Sent from my iPhone' line in the reply; we drop mobile signatures.
    "11": Row("bob@example.com", ("wrote", "Hi", "iPhone"), expected="Hello"),
    # talon keeps the '-- ' signature block (name, 'Sent with Sparrow'); we drop it.
    "12": Row("xxx", ("wrote", "On Apr 3", "Sparrow"), expected="Hello"),
    "13": Row("abc@example.com", ("How are you", "wrote")),
    "14": Row("abc@example.com", ("How are you", "From:", "Sent:")),
    "15": Row("foo@bar.com", ("How are you", "From:", "Sent:")),
    "16": Row("Alexander L", ("How are you", "wrote")),
    "17": Row("Alexander L", ("How are you", "От:")),
    "18": Row("abc@example.com", ("How are you", "abc@example.com")),
    "19": Row("john@doe.example", ("important", "wrote")),
    "20": Row("foo@bar.example", ("This is the reply", "wrote", "John Doe")),
    "21": Row("Russell Brown", ("Russell Brown", "Hi folks", "riak-users", "-Abhishek")),
    # Bottom-posted: the sender's 'Hi,' above the quote and the paragraphs below it are new;
    # the source test asserts fragments, not one string, so the new text is checked by parts.
    "22": Row(
        "Abhishek Kona",
        ("Hi folks", "Abhishek Kona", "riak-users", "wrote"),
        contains=("You can list the keys for the bucket", "would do it."),
    ),
    # Inline replies between quoted lines: the two unquoted lines, in order, no signature.
    "23": Row(
        "sugar@example.com",
        ("okay", "Tim", "signature", "wrote"),
        expected="I will reply under this one\n\nand under this.",
    ),
    "24": Row("crm-comment@example.com", ("CRM", "I am replying", "____")),
    "25": Row(),
    "26": Row("George Plymale", ("George", "odd issue")),
    "27": Row("max.m@beispiel.de", ("Ursprüngliche", "original message content")),
    "28": Row("doe@example.com", ("John Doe", "привет")),
    "29": Row("s.testtesttest.i@test.com", ("kirjoitti", "John Coe", "Thanks!")),
    "30": Row("test@example.com", ("skrev", "Ok. Thanks", "Jim Beam")),
    "31": Row("job-applicant-incoming-text+65701@hiringenginemail.com", ("Hiring", "Etiam")),
    "32": Row("a-really-long-automated-email+1234556@humanresources.com", ("Hiring", "Respond")),
    "33": Row("john@gmail.com", ("john@gmail.com", "Java sucks")),
    "34": Row("test@gmail.com", ("Valerian", "Oh yes", "TypeApp")),
    "35": Row(absent=("Regards", "John Doe")),
    "36": Row("questions@company.com", ("发件人", "Etiam")),
    "37": Row("Bort", ("From: Bort", "Here is the stuff", "Windows 10")),
    "38": Row("taro.tanaka@example.com", ("かしこまりました", "taro.tanaka")),
    # alfonsrv puts 'Hilsen / Søren' in the signatures, not the body: so do we.
    "39": Row("hanne@example.com", ("Her er filerne", "Hilsen")),
    "40": Row("person.a@email.com", ("Hej Person B", "skrev")),
}


def _norm(text: str) -> str:
    return " ".join(text.split())


def _fixture_message(name: str) -> Message:
    path = FIXTURES / name
    if path.suffix == ".eml":
        return email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    message = EmailMessage()
    message["From"] = "Player <player@example.com>"
    subtype = "html" if path.suffix == ".html" else "plain"
    message.set_content(path.read_text("utf-8"), subtype=subtype)
    return message


def _own(row: Row) -> dict[str, tuple[str, ...]]:
    if not row.own:
        return {}
    if "@" in row.own:
        return {"own_addresses": (row.own,)}
    return {"own_names": (row.own,)}


def _check_fixture(entry: dict[str, Any], result: str) -> None:
    row = ROWS[entry["file"][:2]]
    expected = entry["expected_new_text"]
    if isinstance(expected, list):
        assert all(part in result for part in expected)
    elif row.contains:
        assert result.startswith("Hi,\n") and result.endswith('individually."')
        assert all(part in result for part in row.contains)
    else:
        assert _norm(result) == _norm(row.expected or expected)
    for quoted in row.absent:
        assert quoted not in result


def test_the_manifest_lists_forty_fixtures() -> None:
    assert len(MANIFEST) == 40 and set(ROWS) == {e["file"][:2] for e in MANIFEST}
    assert all((FIXTURES / e["file"]).is_file() for e in MANIFEST)


@pytest.mark.parametrize("entry", MANIFEST, ids=lambda e: e["file"])
def test_fixture_with_own_address(entry: dict[str, Any]) -> None:
    row = ROWS[entry["file"][:2]]
    _check_fixture(entry, reply_text(_fixture_message(entry["file"]), **_own(row)))


@pytest.mark.parametrize("entry", MANIFEST, ids=lambda e: e["file"])
def test_fixture_by_generic_patterns(entry: dict[str, Any]) -> None:
    _check_fixture(entry, reply_text(_fixture_message(entry["file"])))


# --- game replies --------------------------------------------------------------------------

QUOTE = "> [Tongiaki g1] Your move ...\n>   1) expand Samoa a,c\n>   2) pass\n"


def _mail(body: str, *, charset: str = "utf-8", cte: str | None = None) -> EmailMessage:
    message = EmailMessage()
    message["From"] = "Player <player@example.com>"
    message["Subject"] = "Re: [Tongiaki g1] Your move"
    message.set_content(body, charset=charset, cte=cte)
    return message


def _reply(body: str) -> str:
    return reply_text(_mail(body), own_addresses=OWN, own_names=NAME)


@pytest.mark.parametrize(
    "attribution",
    [
        "On Mon, 23 Nov 2026 at 10:00, Tongiaki <tongiaki@example.org> wrote:",
        "On Mon, 23 Nov 2026 at 10:00, Tongiaki <\ntongiaki@example.org> wrote:",
        "On Mon, 23 Nov 2026 at 10:00, Tongiaki <tongiaki@example.org>\nwrote:",
        "On Mon, 23 Nov 2026 at 10:00,\nTongiaki <tongiaki@example.org> wrote:",
        "Am 23.11.2026 um 10:00 schrieb Tongiaki <tongiaki@example.org>:",
        "Le lun. 23 nov. 2026 à 10:00, Tongiaki <tongiaki@example.org> a écrit :",
        "Op ma 23 nov. 2026 om 10:00 schreef Tongiaki <tongiaki@example.org>:",
        "El lun, 23 nov 2026 a las 10:00, Tongiaki (<tongiaki@example.org>) escribió:",
        "Il giorno lun 23 nov 2026 alle ore 10:00 Tongiaki <tongiaki@example.org> ha scritto:",
        "ma 23.11.2026 klo 10.00 Tongiaki (tongiaki@example.org) kirjoitti:",
        "Den 23 nov. 2026 kl. 10:00 skrev Tongiaki <tongiaki@example.org>:",
        "пн, 23 нояб. 2026 г. в 10:00, Tongiaki <tongiaki@example.org>:",
        "2026年11月23日(月) 10:00 Tongiaki <tongiaki@example.org>:",
    ],
)
def test_attributions_in_many_languages(attribution: str) -> None:
    body = f"3\n\n{attribution}\n{QUOTE}"
    assert _reply(body) == "3"
    assert new_text(body) == "3"


@pytest.mark.parametrize(
    "attribution",
    [
        "On Mon, 23 Nov 2026 at 10:00, Tongiaki <\ntongiaki@example.org> wrote:",
        "On Mon, 23 Nov 2026 at 10:00, Tongiaki <tongiaki@example.org>\nwrote:",
    ],
)
def test_attribution_wrapped_right_under_the_command(attribution: str) -> None:
    body = f"expand samoa a,c\n{attribution}\n{QUOTE}"
    assert new_text(body, own_addresses=OWN) == "expand samoa a,c"
    assert new_text(body) == "expand samoa a,c"


def test_own_address_found_before_generic_patterns() -> None:
    body = (
        "As I wrote on 22 Nov:\nexpand samoa a,c\n\n"
        f"Tongiaki <tongiaki+g1.s2.abc@example.org> hat am 23.11.2026 geantwortet:\n{QUOTE}"
    )
    assert new_text(body, own_addresses=OWN) == "As I wrote on 22 Nov:\nexpand samoa a,c"


def test_own_name_alone_is_enough() -> None:
    body = f"pass\n\nTongiaki hat am 23.11.2026 geantwortet:\n{QUOTE}"
    assert new_text(body, own_names=NAME) == "pass"


def test_own_address_may_come_with_a_display_name() -> None:
    body = f"pass\n\nTongiaki <tongiaki@example.org> hat geantwortet:\n{QUOTE}"
    assert new_text(body, own_addresses=["Tongiaki <tongiaki@example.org>"]) == "pass"


def test_own_name_in_the_new_text_is_not_a_header() -> None:
    body = (
        "Hi Tongiaki\nexpand samoa a,c\n"
        f"On Mon, 23 Nov 2026 at 10:00, Tongiaki <tongiaki@example.org> wrote:\n{QUOTE}"
    )
    assert _reply(body) == "Hi Tongiaki\nexpand samoa a,c"


def test_commands_right_above_an_outlook_header() -> None:
    body = "2\nFrom: Tongiaki <tongiaki@example.org>\nSent: Monday\nSubject: x\n\n1) expand\n"
    assert _reply(body) == "2"
    assert new_text(body) == "2"


def test_long_quotes_are_quick() -> None:
    body = "pass\n\nOn Mon, 23 Nov 2026, Tongiaki wrote:\n" + "> line: a -- b\n" * 20000
    assert _reply(body) == "pass"
    assert new_text("line with a colon: yes\n" * 20000).count("\n") == 19999


def test_outlook_header_block() -> None:
    body = (
        "2\n\n-----Original Message-----\nFrom: Tongiaki <tongiaki@example.org>\n"
        "Sent: Monday, November 23, 2026 10:00 AM\nTo: Player <player@example.com>\n"
        "Subject: [Tongiaki g1] Your move\n\n[Tongiaki g1] Your move ...\n  1) expand Samoa a,c\n"
    )
    assert _reply(body) == "2"
    assert new_text(body) == "2"


def test_outlook_block_under_a_line_without_separator() -> None:
    body = (
        "2\n________________________________\nFrom: Tongiaki <tongiaki@example.org>\n"
        "Sent: Monday, November 23, 2026 10:00\nTo: Player\nSubject: Your move\n\n1) expand\n"
    )
    assert _reply(body) == "2"
    assert new_text(body) == "2"


def test_several_commands_kept_in_order() -> None:
    body = (
        "expand samoa a,c\nemigrate samoa b ne\n\n"
        f"On Mon, 23 Nov 2026 at 10:00, Tongiaki <tongiaki@example.org> wrote:\n{QUOTE}"
    )
    assert _reply(body) == "expand samoa a,c\nemigrate samoa b ne"


def test_signature_after_dash_dash() -> None:
    body = f"pass\n\n-- \nAnna Player\nhttps://anna.example\n\n> old text\n{QUOTE}"
    assert _reply(body) == "pass"


@pytest.mark.parametrize(
    "signature",
    [
        "Sent from my iPhone",
        "Von meinem iPhone gesendet",
        "Get Outlook for iOS<https://aka.ms/o0ukef>",
        "Envoyé de mon iPad",
        "Sent from Yahoo Mail on Android",
    ],
)
def test_mobile_signatures(signature: str) -> None:
    body = f"1\n\n{signature}\n\nOn Mon, 23 Nov 2026 at 10:00, Tongiaki wrote:\n{QUOTE}"
    assert _reply(body) == "1"


def test_a_sentence_starting_sent_from_is_kept() -> None:
    assert new_text("pass\nSent from my desk, the phone is dead.") == (
        "pass\nSent from my desk, the phone is dead."
    )


def test_bottom_posted_reply_keeps_text_under_the_quote() -> None:
    body = (
        f"On 23.11.2026 10:00, Tongiaki wrote:\n{QUOTE}\nexpand samoa a,c\n"
        "emigrate samoa b ne\n\n-- \nAnna\n"
    )
    assert _reply(body) == "expand samoa a,c\nemigrate samoa b ne"
    assert new_text(body) == "expand samoa a,c\nemigrate samoa b ne"


def test_no_quote_at_all() -> None:
    assert _reply("help  \n\n  status\n\n\n\nboard\n") == "help\n\n  status\n\nboard"


def test_quoted_printable_latin_1() -> None:
    message = _mail(
        f"emigrate Hawai'i b ne\nGrüße\n\nAm 23.11.2026 schrieb Tongiaki:\n{QUOTE}",
        charset="iso-8859-1",
        cte="quoted-printable",
    )
    assert "=FC" in message.as_string()
    assert "Grüße" in message_text(message)
    assert reply_text(message, own_addresses=OWN, own_names=NAME) == "emigrate Hawai'i b ne"


def test_base64_utf_8() -> None:
    message = _mail(f"place Tonga c — ça va\n\nOn Mon, Tongiaki wrote:\n{QUOTE}", cte="base64")
    assert "place Tonga" not in message.as_string()
    assert message_text(message).startswith("place Tonga c — ça va\n")
    assert reply_text(message, own_names=NAME) == "place Tonga c — ça va"


def test_crlf_line_endings_are_normalised() -> None:
    message = email.message_from_bytes(
        b"From: p@example.com\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
        b"pass\r\n\r\nOn Mon, 23 Nov 2026, Tongiaki <tongiaki@example.org> wrote:\r\n> hi\r\n"
    )
    assert "\r" not in message_text(message)
    assert reply_text(message, own_addresses=OWN) == "pass"


def test_format_flowed_lines_are_joined() -> None:
    message = email.message_from_string(
        "Content-Type: text/plain; charset=utf-8; format=flowed\n\n"
        "land Samoa a:RR \nb:B\n\nOn Mon, 23 Nov 2026 at 10:00, Tongiaki \n"
        "<tongiaki@example.org> wrote:\n> Your move \n> ...\n"
    )
    assert message_text(message).startswith("land Samoa a:RR b:B\n")
    assert reply_text(message, own_addresses=OWN) == "land Samoa a:RR b:B"


def _html_mail(html: str) -> EmailMessage:
    message = EmailMessage()
    message.set_content(html, subtype="html")
    return message


def test_html_only_with_gmail_quote() -> None:
    message = _html_mail(
        '<div dir="ltr">expand samoa a,c<div>emigrate samoa b ne</div></div><br>'
        '<div class="gmail_quote"><div class="gmail_attr">On Mon, 23 Nov 2026 at 10:00, '
        "Tongiaki &lt;tongiaki@example.org&gt; wrote:<br></div>"
        '<blockquote class="gmail_quote">[Tongiaki g1] Your move<br>1) expand</blockquote></div>'
    )
    assert "Your move" in message_text(message)
    assert reply_text(message, own_addresses=OWN) == "expand samoa a,c\nemigrate samoa b ne"


@pytest.mark.parametrize(
    "quote",
    [
        '<div id="appendonsend"></div><div>From: Tongiaki</div><div>1) expand</div>',
        '<div id="divRplyFwdMsg"><b>From:</b> Tongiaki</div><div>1) expand</div>',
        '<div style="border:none;border-top:solid #E1E1E1 1.0pt"><p><b>From:</b> T</p></div>'
        "<p>1) expand</p>",
        '<blockquote type="cite">On 23 Nov 2026, Tongiaki wrote:<br>1) expand</blockquote>',
        '<div class="yahoo_quoted"><div>On Monday, Tongiaki wrote:</div>1) expand</div>',
        "<hr><b>From:</b> Tongiaki<br>1) expand",
    ],
)
def test_html_quote_containers(quote: str) -> None:
    message = _html_mail(f"<html><body><p>royal Samoa</p><p>&nbsp;</p>{quote}</body></html>")
    assert reply_text(message) == "royal Samoa"


def test_html_converted_to_text() -> None:
    html = (
        "<html><head><style>p {margin:0}</style><title>x</title></head><body>"
        "<p>a &amp; b</p><div>c<br>d</div><pre>  e\n  f</pre></body></html>"
    )
    assert message_text(_html_mail(html)) == "a & b\nc\nd\ne\nf"


def test_plain_part_preferred_to_html() -> None:
    message = _mail("pass\n")
    message.add_alternative("<p>not this</p>", subtype="html")
    assert message_text(message) == "pass\n"


def test_attachments_are_not_bodies() -> None:
    message = EmailMessage()
    message.set_content("<p>status</p>", subtype="html")
    message.add_attachment("ignore me", filename="notes.txt")
    assert reply_text(message) == "status"
    assert message_text(EmailMessage()) == ""
