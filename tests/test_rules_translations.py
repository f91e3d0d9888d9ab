"""The rules for players in each language (docs/rules.LANG.md): the same blocks as the English
summary, every command a player types kept as it is, the worked example's numbers unchanged,
and the text really in its language; the `rules` answer comes in the reader's language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec
from pbem.views.i18n import TRANSLATED
from pbem.views.rulestext import BlockKind, blocks, parse, rules_path
from tests.support.localmail import START, local_service, reply_to, take_mail, text_of

DOCS = Path(__file__).resolve().parent.parent / "docs"
CODE = re.compile(r"`([^`]+)`")
# a few words each translation must hold, and a script check for Hebrew
WORDS = {
    "it": ("isola", "spiaggia", "barche"),
    "nl": ("eiland", "strand", "boten"),
    "fi": ("saari", "ranta", "laivat"),
    "hu": ("sziget", "partszakasz", "hajó"),
    "he": ("אי", "חוף", "ספינות"),
}


def _example(lang: str) -> str:
    """The worked example of a danger number: the paragraph holding `Tuvalu b`."""
    return next(b.source for b in blocks(lang) if "Tuvalu b" in b.source)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_each_translation_has_the_english_blocks_commands_and_numbers(lang: str) -> None:
    path = DOCS / f"rules.{lang}.md"
    assert path.is_file() and rules_path(lang) == path
    english, translated = blocks("en"), parse(path.read_text(encoding="utf-8"))
    assert [b.kind for b in translated[: len(english)]] == [b.kind for b in english]
    for mine, theirs in zip(translated, english, strict=False):
        assert CODE.findall(mine.source) == CODE.findall(theirs.source), mine.source
    assert sorted(re.findall(r"\d+", _example(lang))) == sorted(re.findall(r"\d+", _example("en")))
    text = path.read_text(encoding="utf-8")
    assert all(word in text for word in WORDS[lang]), lang
    if lang == "he":
        letters = [c for c in text if c.isalpha()]
        hebrew = sum("\u0590" <= c <= "\u05ff" for c in letters)
        assert hebrew > 0.7 * len(letters)


# where the project follows a ruling of RULES.md that differs from the language's printed
# sheet (../shared/rule-sheets/LANG.md), said in a last section of its own; two words each
# difference must name
SHEET_DIFFERENCES = {
    "it": ("Nuova Colonizzazione", "viaggio fallito"),
    "nl": ("laatste waterkaart", "koningsboot"),
    "fi": ("Viimeinen merilaatta", "kuninkaallinen laiva"),
    "hu": ("utolsó óceán kártya", "királyi hajó"),
    "he": ("אריח הים האחרון", "ספינה מלכותית"),
}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_each_translation_ends_with_where_it_differs_from_its_printed_sheet(lang: str) -> None:
    english = blocks("en")
    extra = parse((DOCS / f"rules.{lang}.md").read_text(encoding="utf-8"))[len(english) :]
    assert extra and extra[0].kind == BlockKind.HEADING
    assert all(b.kind in (BlockKind.PARAGRAPH, BlockKind.ITEM) for b in extra[1:]), lang
    assert sum(b.kind == BlockKind.ITEM for b in extra) >= 2
    said = " ".join(b.text for b in extra)
    assert all(word in said for word in SHEET_DIFFERENCES[lang]), lang
    assert not CODE.findall(said)


def test_the_rules_answer_comes_in_the_readers_language(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    seats = [SeatSpec("Ann", "ann@example.test", lang="nl"), SeatSpec("Bob", "bob@example.test")]
    service.new_game(seats, seed=4, deadline_seconds=48 * 3600, now=START)
    prompt = [m for m in take_mail(service) if m["To"] == "ann@example.test"][-1]
    assert handle(service, reply_to(prompt, "regels"), START) == "answered"
    text = " ".join(text_of(take_mail(service)[-1]).split())
    assert "de regels in het kort" in text.lower() and "Be on the best islands" not in text
