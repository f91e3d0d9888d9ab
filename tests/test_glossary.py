"""Each language speaks the words of its printed rule sheet (issue 29): its glossary
(`pbem/locale/LANG/glossary.toml`, taken from `../shared/rule-sheets/LANG.md`) names, for each
of the game's things, the sheet's word and the words rejected; every catalog translation and
every `docs/rules.LANG.md` block that says the thing in English says it with the sheet's word,
and none says a rejected one.

A stem matches at the start of a word (so inflected forms count: `laiva` finds `laivoja`
only through the stem `laiv`); a stem written `~stem` matches anywhere in a word (Hebrew's
glued prefixes, Hungarian compounds), a stem written `stem$` only as a whole word's end."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pbem.views.i18n import TRANSLATED
from pbem.views.rulestext import blocks, parse
from tools.i18n import catalog_path, read

ROOT = Path(__file__).resolve().parent.parent
SHEETS = ROOT.parent / "shared" / "rule-sheets"
CONCEPTS = (
    "island",
    "beach",
    "berth",
    "jetty",
    "boat",
    "reserve",
    "royal island",
    "expand",
    "new colonisation",
    "emigrate",
    "landing",
    "sea tile",
    "trail",
    "danger",
    "red mark",
)


@dataclass(frozen=True)
class Term:
    """One of the game's things as a language's sheet says it."""

    concept: str
    en: tuple[str, ...]
    sheet: tuple[str, ...]
    use: tuple[str, ...]
    rejected: tuple[str, ...]
    why: str
    exempt: tuple[str, ...]


def glossary_path(lang: str) -> Path:
    return ROOT / "pbem" / "locale" / lang / "glossary.toml"


def glossary(lang: str) -> tuple[Term, ...]:
    data = tomllib.loads(glossary_path(lang).read_text(encoding="utf-8"))
    return tuple(
        Term(
            concept=t["concept"],
            en=tuple(t["en"]),
            sheet=tuple(t["sheet"]),
            use=tuple(t["use"]),
            rejected=tuple(t.get("rejected", ())),
            why=t["why"],
            exempt=tuple(t.get("exempt", ())),
        )
        for t in data["term"]
    )


def _pattern(stems: tuple[str, ...]) -> re.Pattern[str] | None:
    if not stems:
        return None
    parts = []
    for stem in stems:
        core = re.escape(stem.removeprefix("~").removesuffix("$"))
        start = "" if stem.startswith("~") else r"(?<!\w)"
        end = r"(?!\w)" if stem.endswith("$") else ""
        parts.append(start + core + end)
    return re.compile("|".join(parts), re.IGNORECASE)


def _plain(text: str) -> str:
    """The prose of a message: the placeholders, `code`, 'quoted commands' and the form of a
    move ('expand ISLAND BEACHES': its placeholders said in the language's words) left out."""
    if re.match(r"(?:place|expand|royal|emigrate|land|put) [A-Z]{2,}\b", text):
        return ""
    text = re.sub(r"\{[^}]*\}|%\([^)]*\)\w|`[^`]*`|\b[A-Z]{2,}\b", " ", text)
    return re.sub(r"['(](?:expand|emigrate|land|royal|colonise|place|put)\b[^')]*[')]", " ", text)


def translations(lang: str) -> Iterator[tuple[str, str]]:
    """(English, translation) of each catalog message and each rules block, plural forms
    paired with the English plural."""
    for message in read(catalog_path(lang), lang):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for i, string in enumerate(strings):
            yield ids[min(i, len(ids) - 1)], string
    english = blocks("en")
    doc = parse((ROOT / "docs" / f"rules.{lang}.md").read_text(encoding="utf-8"))
    for theirs, mine in zip(english, doc, strict=False):
        yield theirs.source, mine.source
    for extra in doc[len(english) :]:
        yield "", extra.source


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_glossary_is_the_sheets(lang: str) -> None:
    terms = glossary(lang)
    concepts = [t.concept for t in terms]
    # every language names the game's things; a sheet may name more (its colour words...)
    assert set(CONCEPTS) <= set(concepts) and len(set(concepts)) == len(concepts), lang
    sheet = (SHEETS / f"{lang}.md").read_text(encoding="utf-8")
    for term in terms:
        assert term.why.strip(), term.concept
        for word in term.sheet:
            assert word.lower() in sheet.lower(), f"{lang} {term.concept}: {word!r}"
        assert _pattern(term.use) is not None, term.concept


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_rejected_word(lang: str) -> None:
    found = []
    for term in glossary(lang):
        pattern = _pattern(term.rejected)
        if pattern is None:
            continue
        for english, text in translations(lang):
            hit = None if english in term.exempt else pattern.search(_plain(text))
            if hit:
                found.append(f"{term.concept}: {hit[0]!r} in {text!r}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_sheets_word_where_the_english_says_the_thing(lang: str) -> None:
    lacking = []
    for term in glossary(lang):
        english, use = _pattern(term.en), _pattern(term.use)
        assert english is not None and use is not None
        for source, text in translations(lang):
            if source in term.exempt or not english.search(_plain(source)):
                continue
            if not use.search(text):
                lacking.append(f"{term.concept}: {source!r} -> {text!r}")
    assert not lacking, "\n".join(lacking)


def test_a_rejected_word_is_found_in_an_inflected_form() -> None:
    pattern = _pattern(("vene",))
    assert pattern is not None and pattern.search("kaksi venettä") and not pattern.search("ovenet")
    whole = _pattern(("tegel$", "tegels$"))
    assert whole is not None and whole.search("de tegels") and not whole.search("tegelijk")
    glued = _pattern(("~סירה", "~סירות"))
    assert glued is not None and glued.search("הסירות שלך") and not glued.search("סירוב")
