"""The names in sentences (issue 29): the islands, sea tiles, colours and directions are a
closed set, so each language keeps the forms its sentences need (`pbem/locale/LANG/names.toml`)
and a translation asks for one in its placeholder ("{island:sublative}"). Every message that
puts a name into a sentence is rendered here with every name, in each language."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from engine import (
    ISLANDS,
    SEAS,
    GroupArrived,
    GroupLanded,
    GroupSailed,
    Message,
    Setup,
    State,
    StayedAtSea,
    tile_words,
)
from pbem.commands.player import vacation_summary
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec
from pbem.views.hexmap import hex_map, map_for_readers
from pbem.views.i18n import (
    COLOUR_NAMES,
    TRANSLATED,
    Words,
    _filled,
    duration,
    filled,
    hungarian_article,
    name_forms,
    names_path,
    printed,
    said_as,
    settled,
)
from pbem.views.news import DIRECTION_NAMES, event
from pbem.views.news import landed as landed_news
from tests.support.localmail import START, local_service, reply_to, take_mail, text_of
from tools.i18n import catalog_path, read

ANN, BOB = "ann@example.test", "bob@example.test"
HOUR = timedelta(hours=1)

# the placeholders that carry a name of the closed set, and the names each can take
KINDS = {
    "island": "island",
    "to_island": "island",
    "royal": "island",
    "tile": "tile",
    "place": "place",  # where a jetty leads: a tile, or open sea
    "direction": "direction",
    "colour": "colour",
}
FORMED = re.compile(r"\{(\w+):([A-Za-z]{2,})\}|%\((\w+):([A-Za-z]{2,})\)s")
BRACES = re.compile(r"\{(\w+)(?:![rsa])?\}")
PERCENT = re.compile(r"%\((\w+)\)[-#0 +]*\d*([sd])")
HEBREW = "\u05d0-\u05ea"
# the placeholders that hold text already said in the reader's language (a word there)
SAID = {"then", "sails", "who", "boats", "stayed", "placed", "reason", "asked", "choice"}
TEXT = {"he": "אחר כך", "hu": "aztán", "fi": "sitten"}
MAQAF = "\u05be"


def names(kind: str, lang: str) -> list[str]:
    """Each name of a kind as `lang` says it in the nominative."""
    words = Words(lang)
    if kind == "island":
        return list(ISLANDS)
    if kind == "tile":
        return list(ISLANDS) + [words.say(tile_words(letter)) for letter in SEAS]
    if kind == "place":
        return [*names("tile", lang), words.say(Message("open sea"))]
    if kind == "direction":
        return [words.say(word) for word in DIRECTION_NAMES.values()]
    return [words.say(colour) for colour in COLOUR_NAMES.values()]


def _messages(lang: str) -> Iterator[tuple[str, str, str]]:
    """(English, translation, style) of each catalog message that names one of the set."""
    for message in read(catalog_path(lang), lang):
        if not message.id or not message.string:
            continue
        english = message.id if isinstance(message.id, str) else message.id[1]
        forms = [message.string] if isinstance(message.string, str) else list(message.string)
        for said in forms:
            style = "%" if "python-format" in message.flags else "{"
            keys = {m[0] or m[2] for m in FORMED.findall(said)}
            keys |= set(BRACES.findall(said)) | {m[0] for m in PERCENT.findall(said)}
            if keys & set(KINDS):
                yield english, said, style


def cases_used(lang: str) -> dict[str, set[str]]:
    """The cases each kind of name is asked for in the catalog of `lang`."""
    used: dict[str, set[str]] = {kind: set() for kind in set(KINDS.values())}
    for _, said, _ in _messages(lang):
        for found in FORMED.finditer(said):
            key, case = (found[1], found[2]) if found[1] else (found[3], found[4])
            assert key in KINDS, f"{lang}: a form of {key!r}, which is not a name: {said!r}"
            used[KINDS[key]].add(case)
    return used


@pytest.mark.parametrize("lang", TRANSLATED)
def test_each_form_a_catalog_asks_for_is_in_its_table_for_every_name(lang: str) -> None:
    table = name_forms(lang)
    for kind, cases in cases_used(lang).items():
        for name in names(kind, lang):
            missing = cases - set(table.get(name, {}))
            assert not missing, f"{lang}: {names_path(lang).name} lacks {name!r} {missing}"


def _rendered(lang: str) -> Iterator[tuple[str, str]]:
    """(translation, rendered) for each message that names one of the set, with every name
    of each kind in turn (the other placeholders filled with plain values), filled as
    `Words.say` fills a message and the templates' `gettext` theirs."""
    words = Words(lang)
    for english, said, style in _messages(lang):
        keys = set(BRACES.findall(english)) | {m[0] for m in PERCENT.findall(english)}
        kinds = {key: KINDS[key] for key in keys if key in KINDS}
        longest = max(len(names(kind, lang)) for kind in kinds.values())
        for i in range(longest):
            params: dict[str, Any] = {}
            for key in keys:
                if key in kinds:
                    choices = names(kinds[key], lang)
                    params[key] = choices[i % len(choices)]
                elif re.search(rf"%\({key}\)[-#0 +]*\d*d", english):
                    params[key] = 7
                else:  # text said in the language itself, or a number
                    params[key] = TEXT.get(lang, "7") if key in SAID else "7"
            if style == "%":
                made = _filled(False, said, words._forms_of(said, params))
                yield said, settled(lang, made)
            else:
                yield said, filled(lang, said, params)


def test_the_renderings_fill_every_placeholder() -> None:
    for lang in TRANSLATED:
        count = 0
        for said, out in _rendered(lang):
            count += 1
            assert not re.search(r"\{\w+(:\w+)?\}|%\(\w+", out), (lang, said, out)
        assert count > 40, lang  # every language names the islands in many sentences


def _hu_back(word: str) -> bool:
    """Whether a Hungarian-read word takes the back suffixes (-ra, -ról): a back vowel."""
    return bool(re.search("[aáoóuú]", word.lower()))


# the Hungarian names of the sea tiles' letters, whose sound the suffix follows
HU_LETTERS = {
    "A": "á", "B": "bé", "C": "cé", "D": "dé", "E": "é", "F": "ef", "G": "gé", "H": "há",
    "I": "í", "J": "jé", "K": "ká", "L": "el", "M": "em", "N": "en", "O": "ó", "P": "pé",
}  # fmt: skip


def test_hungarian_forms_follow_each_names_vowel_harmony() -> None:
    table = name_forms("hu")
    back = {"sublative": "ra", "delative": "ról", "allative": "hoz", "ablative": "tól"}
    front = {"sublative": "re", "delative": "ről", "allative": "hez", "ablative": "től"}
    checked = 0
    for name, forms in table.items():
        sound = HU_LETTERS[name[-1]] if name.startswith("óceán ") else name.split()[-1]
        wanted = back if _hu_back(sound) else front
        for case, suffix in wanted.items():
            assert forms[case].endswith(suffix), (name, case, forms[case])
            checked += 1
        stem = name[:-1] + "á" if name.endswith("a") else name
        # an island's forms begin with its stem; a sea tile's with its article (óceán is no name)
        assert forms["superessive"].startswith(stem.split(" ")[0] if name in ISLANDS else "az "), (
            name
        )
    assert checked == 4 * (len(ISLANDS) + len(SEAS))
    assert said_as("hu", "Tonga", "sublative") == "Tongára"
    assert said_as("hu", "Fidschi", "delative") == "Fidschiről"
    assert said_as("hu", "óceán K", "superessive") == "az óceán K-n"
    assert said_as("hu", "óceán F", "superessive") == "az óceán F-en"


@pytest.mark.parametrize(
    ("text", "article"),
    [
        ("Oahu", "az"),
        ("Tonga", "a"),
        ("óceán K", "az"),
        ("1.", "az"),
        ("5.", "az"),
        ("50", "az"),
        ("2.", "a"),
        ("10.", "a"),
        ("17", "a"),
        ("100", "a"),
        ("1000", "az"),
        ("F", "az"),
        ("K", "a"),
        ("<b>Oahu</b>", "a"),  # markup is passed over by `settled`, not here
    ],
)
def test_the_hungarian_article_by_the_first_sound(text: str, article: str) -> None:
    assert hungarian_article(text) == article


def test_settled_says_the_small_words_by_the_word_after_them() -> None:
    assert settled("hu", "A(z) 5. játék, a(z) Tonga, a(z) <b>Oahu</b>") == (
        "Az 5. játék, a Tonga, az <b>Oahu</b>"
    )
    assert settled("it", "a(z) Oahu") == "a(z) Oahu"  # only Hungarian
    # Hebrew: a prefix keeps its maqaf before a Latin name or a digit, and joins a Hebrew word
    text = f"ו{MAQAF}16, ל{MAQAF}Tonga, ו{MAQAF}אריח, ול{MAQAF}Bob, ול{MAQAF}אריח"
    assert settled("he", text) == f"ו{MAQAF}16, ל{MAQAF}Tonga, ואריח, ול{MAQAF}Bob, ולאריח"


def test_hungarian_sentences_have_no_workaround_and_agree_with_each_name() -> None:
    table = name_forms("hu")
    every_form = {form for forms in table.values() for form in forms.values()}
    for said, out in _rendered("hu"):
        assert "a(z)" not in out.lower(), out
        assert not re.search(r"\b(innen|ide|itt): ", out), (said, out)
        # the article agrees with the word after it
        assert not re.search(r"\b[Aa] (Oahu|óceán)", out), out
        assert not re.search(r"\b[Aa]z (?!óceán|Oahu|[0-9])[B-DG-HJ-KP-Zb-dg-hj-kp-z]\w", out), out
        # a name with a suffix is a form of the table (no "Tongaról", "Fidschiról")
        for found in re.finditer(
            r"\b([A-Z][a-z]+(?: [A-Z][a-z]+)?)(n|ra|re|ról|ről|tól|től)\b", out
        ):
            if found[1] in ISLANDS:
                assert found[0] in every_form, (said, out)


FI_CASE_WORDS = {"suuntaan", "värillä", "väriä", "värin", "värille"}


def test_finnish_directions_and_colours_are_in_the_case_the_sentence_wants() -> None:
    directions = names("direction", "fi")
    colours = names("colour", "fi")
    for said, out in _rendered("fi"):
        for word in directions + colours:
            for before in FI_CASE_WORDS:
                assert f"{before} {word}" not in out, (said, out)
            assert not re.search(rf"\b{word} päin", out), (said, out)
    assert said_as("fi", "etelä", "illative") == "etelään"
    assert said_as("fi", "vihreä", "adessive") == "vihreällä"
    assert said_as("fi", "Fidschi", "adessive") == "Fidschillä"  # front vowels: -llä
    assert said_as("fi", "Tonga", "allative") == "Tongalle"


FI_COMPOUNDS = {"avomeri": "meri"}


def test_finnish_forms_follow_each_names_vowel_harmony() -> None:
    for name, forms in name_forms("fi").items():
        last_part = FI_COMPOUNDS.get(name, name.split()[0])  # a compound: its last part's
        front = not re.search("[aou]", last_part.lower())
        for case in ("inessive", "elative", "adessive", "ablative"):
            said = forms[case].split()[0]
            assert said.endswith("ä" if front else "a"), (name, case, said)


def test_hebrew_prefixes_join_a_latin_name_with_a_maqaf() -> None:
    glued = re.compile(rf"(?<![{HEBREW}])[בלמשהו]-?[A-Za-z0-9]")
    hyphen = re.compile(rf"(?<![{HEBREW}])[בלמשהו]-")
    maqaf_to_hebrew = re.compile(rf"(?<![{HEBREW}])[בלמשהו]{MAQAF}[{HEBREW}]")
    renderings = list(_rendered("he"))
    for said, out in renderings:
        assert not glued.search(out), (said, out)
        assert not hyphen.search(out), (said, out)
        assert not maqaf_to_hebrew.search(out), (said, out)
    joined = [out for _, out in renderings if f"ל{MAQAF}Tonga" in out]
    assert joined, "some message says to Tonga"
    assert said_as("he", "Rapa Nui", "mi") == f"מ{MAQAF}Rapa Nui"
    assert said_as("he", "ים K", "be") == "בים K"  # a Hebrew word takes the prefix glued


# -- what the table awaits, for those who wait -------------------------------------------------


def test_the_others_read_what_is_awaited_in_prose_and_the_player_who_decides_the_commands(
    tmp_path: Path,
) -> None:
    """Issue 29: the players who wait read what the table awaits as a sentence about the
    player who decides ("Nyt odotetaan, että Bob ... asettaa ..."), not that player's
    instructions ("sininen: aseta ..."); the player who decides reads them in the prompt."""
    service = local_service(tmp_path)
    seats = [
        SeatSpec("Ann", ANN, "red", lang="fi"),
        SeatSpec("Bob", BOB, "blue", lang="hu"),
    ]
    service.new_game(seats, seed=4, deadline_seconds=48 * 3600, lang="en", now=START)
    prompt = [m for m in take_mail(service) if m["To"] == ANN][-1]
    assert handle(service, reply_to(prompt, "1"), START + HOUR) == "applied"
    mails = take_mail(service)
    ann = " ".join(text_of([m for m in mails if m["To"] == ANN][-1]).split())
    bob = " ".join(text_of([m for m in mails if m["To"] == BOB][-1]).split())
    assert (
        "Nyt odotetaan, että Bob (sininen) asettaa aloituslaivan Tongan rannalle (päätös 2)." in ann
    )
    assert "sininen: aseta" not in ann.lower()
    # Bob decides: his prompt says what he must do, and how
    assert "Kék: tegyél egy kezdő hajót Tonga egyik partszakaszára." in bob
    assert handle(service, reply_to(prompt_of(mails, BOB), "1"), START + 2 * HOUR) == "applied"
    bob = " ".join(text_of([m for m in take_mail(service) if m["To"] == BOB][-1]).split())
    assert (
        "Most arra várunk, hogy Ann (vörös) tegyen egy kezdő hajót Tonga egyik partszakaszára "
        "(3. döntés)." in bob
    )
    assert "vörös: tegyél" not in bob.lower()


def prompt_of(mails: list[Any], address: str) -> Any:
    return [m for m in mails if m["To"] == address][-1]


# -- no English in prose -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "week", "mixed"),
    [
        ("en", "7 days", "1 day and 23 hours"),
        ("it", "7 giorni", "1 giorno e 23 ore"),
        ("nl", "7 dagen", "1 dag en 23 uur"),
        ("fi", "7 päivää", "1 päivä ja 23 tuntia"),
        ("hu", "7 nap", "1 nap és 23 óra"),
        ("he", "7 ימים", "יום אחד ו־23 שעות"),
    ],
)
def test_a_duration_in_a_sentence_is_words_in_each_language(
    lang: str, week: str, mixed: str
) -> None:
    said = Words(lang, "Europe/Rome").say  # a zone: English is said too, not kept as it is
    assert said(duration(7 * 86400)) == week
    assert said(duration(86400 + 23 * 3600 + 20)) == mixed  # rounded as the notation is
    assert said(vacation_summary(duration(3 * 86400))).count("3") == 1
    assert "3d" not in said(vacation_summary(duration(3 * 86400)))


def test_the_text_map_says_the_points_in_each_readers_words() -> None:
    state = State(Setup.from_seed(("blue", "red"), 4))
    board = map_for_readers(state)
    assert "0 pts" in Words("en", "UTC").say(board)
    assert "0 p" in Words("fi").say(board) and "0 pts" not in Words("fi").say(board)
    assert "0 PV" in Words("it").say(board)


def test_the_text_map_is_drawn_with_the_printed_names_when_they_are_read() -> None:
    state = State(Setup.from_seed(("blue", "red"), 4))
    for _ in range(12):
        state.apply(state.legal_choices()[0])
    board = map_for_readers(state)
    assert board == hex_map(state, "en")
    assert printed(board) == hex_map(state)
    assert Words("it").say(board) == hex_map(state, "it")


def test_finnish_verbs_agree_with_the_boats_of_joined_colours() -> None:
    """One boat takes the singular; boats, of one colour or joined colours, are 'laivat (...)'
    with the plural verb ('1 sininen, 1 vihreä purjehti' was wrong: two subjects joined)."""
    say = Words("fi").say
    joined = say(event(GroupSailed("Tonga", 3, 0, ("blue", "green"))))
    assert joined == "Ranta Tonga d oli täynnä: laivat (1 sininen, 1 vihreä) purjehtivat etelään."
    assert say(event(GroupSailed("Tonga", 3, 0, ("red",)))).endswith(
        ": 1 punainen purjehti etelään."
    )
    assert say(event(GroupArrived("Samoa", ("red", "red", "green")))) == (
        "Laivat (2 punaista, 1 vihreä) saapuivat Samoalle."
    )
    assert say(event(StayedAtSea(("blue", "green")))).startswith(
        "Laivat (1 sininen, 1 vihreä) jäivät"
    )


def test_each_language_says_the_sheets_word_in_the_news() -> None:
    """hu: the sheet's red is vörös (never piros); he: landing is עליה ליבשה (never נחיתה)."""
    arrived = GroupArrived("Samoa", ("red", "green"))
    assert Words("hu").say(event(arrived)).startswith("1 vörös, 1 zöld")
    landed = GroupLanded("Samoa", placement=((0, ("red",)), (1, ("green",))), out=())
    said = Words("he").say(landed_news(landed))
    assert "עלו ליבשה ב־Samoa" in said and "נחת" not in said
