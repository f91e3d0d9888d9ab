"""Every kind of mail of the sample game, text and HTML, against its golden file.

After a deliberate change to what players see, run `python3 dev.py golden` and review the diff.
"""

from __future__ import annotations

import email
import email.policy
import re

import pytest

from pbem.views.i18n import LRM, RLM, TRANSLATED, display_width
from tests.samples import GOLDEN, KINDS, _shared, golden_folder, parts, sample_mails
from tests.support.localmail import parse


def test_the_sample_game_has_every_kind_of_mail() -> None:
    assert set(sample_mails()) == set(KINDS)


def test_the_tests_read_a_mail_as_the_default_policy_does() -> None:
    """`parse` (tests.support) keeps the parsed header fields; each part reads the same."""
    for raw in _shared("en").values():
        kept, plain = parse(raw), email.message_from_bytes(raw, policy=email.policy.default)
        assert kept.as_bytes() == plain.as_bytes()
        for ours, theirs in zip(kept.walk(), plain.walk(), strict=True):
            assert [(n, str(v)) for n, v in ours.items()] == [
                (n, str(v)) for n, v in theirs.items()
            ]
            assert ours.get_content_type() == theirs.get_content_type()
            assert ours.get_payload(decode=True) == theirs.get_payload(decode=True)
        assert kept["To"].addresses == plain["To"].addresses


def test_every_golden_file_belongs_to_a_mail() -> None:
    names = {path.stem for path in GOLDEN.iterdir() if path.is_file()}
    assert names == set(KINDS)
    assert {path.name for path in GOLDEN.iterdir() if path.is_dir()} == set(TRANSLATED)


# each language plays the sample game anew (6 s): all five with `python3 dev.py test -m slow`
# (the default run stays near 150 s); by default every catalog's messages are checked in
# tests/test_i18n.py, the Hebrew golden files' directions below and their layout in
# tests/test_browser.py
BY_DEFAULT: tuple[str, ...] = ()


@pytest.mark.parametrize(
    "lang",
    [
        lang if lang in BY_DEFAULT else pytest.param(lang, marks=pytest.mark.slow)
        for lang in TRANSLATED
    ],
)
def test_each_language_has_its_golden_mails(lang: str) -> None:
    """The sample game with its players reading `lang`: every mail as its golden file (its
    game master reads the game's language too); one game per language, all kinds checked
    at once."""
    mails = sample_mails(lang)
    folder = golden_folder(lang)
    assert {p.stem for p in folder.iterdir()} == set(KINDS)
    differ = []
    for name, mail in mails.items():
        text, html = parts(mail)
        if f"Subject: {mail['Subject']}\n\n{text}" != (folder / f"{name}.txt").read_text():
            differ.append(f"{name}.txt")
        if html != (folder / f"{name}.html").read_text():
            differ.append(f"{name}.html")
    assert differ == [], "after a deliberate change: python3 dev.py golden"
    for name, mail in mails.items():  # translations fit the 78 columns of the text part
        text, _ = parts(mail)
        assert max(map(display_width, text.splitlines())) <= 78, (lang, name)


@pytest.mark.parametrize("name", KINDS)
def test_text_matches_golden(name: str) -> None:
    mail = sample_mails()[name]
    text, _ = parts(mail)
    assert f"Subject: {mail['Subject']}\n\n{text}" == (GOLDEN / f"{name}.txt").read_text()


@pytest.mark.parametrize("name", KINDS)
def test_html_matches_golden(name: str) -> None:
    _, html = parts(sample_mails()[name])
    assert html == (GOLDEN / f"{name}.html").read_text()


HEBREW_LETTER = re.compile("[\u05d0-\u05ea]")


def test_every_hebrew_text_line_says_its_direction() -> None:
    """A mail client that applies the Unicode bidirectional algorithm (each line a paragraph
    of its own) reads every line of the Hebrew text part in the intended direction: prose
    begins with a RIGHT-TO-LEFT MARK or a Hebrew letter (never with an island's name or a
    command, which would turn the line left to right), notation, the map and the tables with
    a LEFT-TO-RIGHT MARK."""
    folder = golden_folder("he")
    for path in sorted(folder.glob("*.txt")):
        _, _, text = path.read_text().partition("\n\n")  # after the Subject
        for line in text.splitlines():
            if line.strip():
                assert line[0] in (LRM, RLM) or HEBREW_LETTER.match(line), (path.name, line)
        # Hebrew prose is never forced left to right: an option's preview, "for example:"
        for line in text.splitlines():
            said = line.lstrip(LRM + " ")
            if said.startswith(("-> ", "לדוגמה:")) and HEBREW_LETTER.search(said):
                assert not line.startswith(LRM), (
                    f"{path.name}: prose forced left to right: {line!r}"
                )
    lines = (folder / "game-over.txt").read_text().splitlines()
    assert f"{RLM}Tonga (0 נקודות)" in lines  # prose that begins with an island's name
    assert all(line.startswith(LRM) for line in lines if line.endswith(":.....:"))  # the map
    players = next(line for line in lines if "Cy (בוט)" in line)  # a table row, its columns
    assert players == f"{LRM}G Cy (בוט){LRM}         16{LRM}       5{LRM}       5"
    answer = (folder / "answer.txt").read_text().splitlines()
    assert f"{LRM}> status" in answer  # the reader's own line
    assert f"{LRM}   1{LRM}  Ana{LRM}          place Tonga e" in answer  # the log
