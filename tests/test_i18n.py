"""Mails in the player's language (issue 17): choosing it, by mail and at `new-game`; the
meta commands' own words; dates in the reader's locale; the catalogs complete and in step
with the code."""

from __future__ import annotations

import gettext
import re
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from sqlmodel import select
from typer.testing import CliRunner

from engine import ISLANDS, STACK_TILES, Setup, State, TileDrawn, is_move_word
from pbem.commands.gm import GM_COMMANDS
from pbem.commands.player import (
    INVITED_COMMANDS,
    OBSERVER_COMMANDS,
    PLAYER_COMMANDS,
    RESIGNED_COMMANDS,
)
from pbem.core.config import Settings, settings_toml
from pbem.core.kinds import PictureChoice
from pbem.flow.deadlines import send_held, tick
from pbem.flow.replies import handle
from pbem.flow.service import GameError, SeatSpec, Service
from pbem.host.cli import app
from pbem.store.db import open_database, session
from pbem.store.models import Game, Held, Seat
from pbem.views import news, view
from pbem.views.i18n import LANGUAGES, TRANSLATED, Words, stamp, words
from pbem.views.picture import board_png
from pbem.views.render import environment, render_board_text, said_in
from tests.support.localmail import START, later, local_service, reply_to, take_mail, text_of
from tools import i18n as catalogs

ANN, BOB = "ann@example.test", "bob@example.test"
HOUR = timedelta(hours=1)
# the catalogs still being translated: their tests are expected to fail until they are done
# (strict: a catalog that becomes complete must leave this set)
INCOMPLETE: set[str] = set()


def _until_translated(lang: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(lang in INCOMPLETE, reason=f"{lang} is being translated", strict=True)


@pytest.fixture
def service(tmp_path: Path) -> Service:
    return local_service(tmp_path)


def _game(service: Service, **languages: str) -> None:
    seats = [
        SeatSpec("Ann", ANN, "red", lang=languages.get("ann")),
        SeatSpec("Bob", BOB, "blue", lang=languages.get("bob")),
    ]
    lang = languages.get("game", "en")
    service.new_game(seats, seed=4, deadline_seconds=48 * 3600, lang=lang, now=START)


def _langs(service: Service) -> list[str]:
    with session(service.engine) as db:
        return [s.lang for s in db.exec(select(Seat).order_by(Seat.seat))]


def _to(mails: list, address: str) -> list:
    return [m for m in mails if m["To"] == address]


def _html(mail) -> str:  # type: ignore[no-untyped-def]
    part = mail.get_body(("html",))
    assert part is not None
    return str(part.get_content())


@_until_translated("it")
def test_lang_by_mail_changes_the_players_mails_from_its_own_answer(service: Service) -> None:
    _game(service)
    prompt = _to(take_mail(service), ANN)[-1]
    assert handle(service, reply_to(prompt, "lang it"), START + HOUR) == "applied"
    assert _langs(service) == ["it", "en"]
    answer = _to(take_mail(service), ANN)[-1]
    # in the language's own words, its name in lower case as Italian writes it in a sentence
    assert "da ora le tue mail sono in italiano" in " ".join(text_of(answer).split())
    assert '<html lang="it"' in _html(answer)
    # Bob's mails stay English, and Ann's next prompt is Italian too
    assert handle(service, reply_to(prompt, "1"), START + 2 * HOUR) == "applied"
    mails = take_mail(service)
    assert all('<html lang="en"' in _html(m) for m in _to(mails, BOB))
    assert all('<html lang="it"' in _html(m) for m in _to(mails, ANN))


def test_an_unknown_language_is_refused_and_changes_nothing(service: Service) -> None:
    _game(service)
    prompt = _to(take_mail(service), ANN)[-1]
    assert handle(service, reply_to(prompt, "lang klingon"), START + HOUR) == "rejected"
    assert _langs(service) == ["en", "en"]
    text = " ".join(text_of(_to(take_mail(service), ANN)[-1]).split())
    assert "'klingon' is not a language of the game" in text
    assert "it (Italiano)" in text and "he (עברית)" in text
    assert handle(service, reply_to(prompt, "lang"), START + 2 * HOUR) == "applied"
    text = " ".join(text_of(_to(take_mail(service), ANN)[-1]).split())
    assert "your mails are in English; the languages: en (English), it (Italiano)" in text
    assert handle(service, reply_to(prompt, "lang Magyar"), START + 3 * HOUR) == "applied"
    assert _langs(service) == ["hu", "en"]


def test_status_names_the_language(service: Service) -> None:
    _game(service, ann="nl")
    prompt = _to(take_mail(service), ANN)[-1]
    assert handle(service, reply_to(prompt, "status"), START + HOUR) == "answered"
    html = _html(_to(take_mail(service), ANN)[-1])
    assert "Nederlands (lang nl)" in html


def test_new_game_takes_each_players_language_and_a_game_default(service: Service) -> None:
    _game(service, ann="fi", game="he")
    assert _langs(service) == ["fi", "he"]
    with session(service.engine) as db:
        assert [g.lang for g in db.exec(select(Game))] == ["he"]
    mails = take_mail(service)
    assert all('<html lang="fi"' in _html(m) for m in _to(mails, ANN))
    assert all('<html lang="he" dir="rtl"' in _html(m) for m in _to(mails, BOB))
    with pytest.raises(GameError, match="Unknown language 'xx'"):
        _game(service, bob="xx")


def test_the_command_line_takes_lang_after_the_colour_and_a_game_language(
    tmp_path: Path,
) -> None:
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(Settings(data_dir=tmp_path / "data")))
    result = CliRunner().invoke(
        app,
        [
            "new-game",
            "--player",
            f"Ann:{ANN}::it",
            "--player",
            f"Bob:{BOB}:green",
            "--lang",
            "nl",
            "--config",
            str(config),
        ],
    )
    assert result.exit_code == 0, result.output
    engine = open_database(tmp_path / "data" / "pbem.sqlite")
    with session(engine) as db:
        seats = list(db.exec(select(Seat).order_by(Seat.seat)))
    assert [(s.colour, s.lang) for s in seats] == [("blue", "it"), ("green", "nl")]
    refused = CliRunner().invoke(
        app, ["new-game", "--player", f"Ann:{ANN}:red:xx", "--config", str(config)]
    )
    assert refused.exit_code != 0 and "Unknown language 'xx'" in refused.output


def test_a_languages_own_word_for_a_command_works_for_everyone(service: Service) -> None:
    _game(service)  # Ann reads English, and writes the Italian word for help
    prompt = _to(take_mail(service), ANN)[-1]
    assert handle(service, reply_to(prompt, "aiuto"), START + HOUR) == "answered"
    assert handle(service, reply_to(prompt, "vakantie 2d"), START + 2 * HOUR) == "applied"
    texts = [" ".join(text_of(m).split()) for m in _to(take_mail(service), ANN)]
    assert "vacation DURATION" in texts[0]  # the help
    assert "your deadlines wait" in texts[1] or "vacation" in texts[1]


def test_no_command_word_hides_a_command_an_island_or_a_move() -> None:
    """Each command's own words (in its definition) are read as that command by every
    registry that holds it, and hide no other command, island or move."""
    registries = (
        PLAYER_COMMANDS,
        OBSERVER_COMMANDS,
        INVITED_COMMANDS,
        RESIGNED_COMMANDS,
        GM_COMMANDS,
    )
    names = {c.name for registry in registries for c in registry}
    islands = {name.lower() for name in ISLANDS}
    meant: dict[str, set[str]] = {}
    for registry in registries:
        for command in registry:
            for lang, word in command.words:
                assert lang in TRANSLATED, (command.name, lang)
                assert word == word.lower() and " " not in word, word
                assert word not in names and word not in islands, word
                assert not is_move_word(word), word
                assert registry.named(word) is command, word
                meant.setdefault(word, set()).add(command.name)
    assert len(meant) > 60  # the words were found
    # two languages may share a word only for the same command
    assert {word: found for word, found in meant.items() if len(found) > 1} == {}
    # a command with words of its own has one in every language; a player's have them all
    # but `log talk` (two words: written in English)
    for registry in registries:
        for command in registry:
            langs = [lang for lang, _ in command.words]
            assert sorted(langs) == sorted(TRANSLATED if langs else []), command.name
    bare = [c.name for c in PLAYER_COMMANDS if not c.words]
    assert bare == ["log talk"]


def test_dates_are_written_in_the_readers_locale() -> None:
    moment = START + timedelta(days=2)  # Wed 25 Nov 2026, 09:00 UTC
    shown = stamp(moment, "Europe/Rome")
    assert shown is not None and str(shown) == "Wed 25 Nov 2026, 10:00 Europe/Rome"
    italian = words("it").say(shown)
    assert "nov" in italian and "2026" in italian and "10:00" in italian
    assert italian.endswith("Europe/Rome") and italian != str(shown)
    assert words("xx") == words("en") == Words("en")  # an unknown language reads English


# -- the catalogs -----------------------------------------------------------------------------

PLACEHOLDER = re.compile(r"%\(\w+\)[-#0 +]*\d*[sd]|\{\w+(?:![rsa])?(?::[^}]*)?\}")
# a name in the form a sentence wants ("{island:sublative}", "%(colour:adessive)s"): the same
# placeholder as the English's (tests/test_names.py checks the forms)
FORM = re.compile(r"\{(\w+):[A-Za-z]{2,}\}|%\((\w+):[A-Za-z]{2,}\)s")
# the count itself, which the form for one may leave out ("one boat" for "{count} boats")
COUNTS = re.compile(r"\{count\}|%\((?:count|num)\)[-#0 +]*\d*d")


def _placeholders(text: str) -> set[str]:
    plain = FORM.sub(lambda f: f"{{{f[1]}}}" if f[1] else f"%({f[2]})s", text)
    return set(PLACEHOLDER.findall(plain))


def placeholder_faults(catalog: Catalog) -> list[str]:
    """Each message whose translation has other placeholders than its English: exactly the
    same set for an ordinary message; for a plural, each form the same as the plural's,
    except that the form for one may leave out the count."""
    faults = []
    form_for_one = gettext.c2py(catalog.plural_expr)(1)
    for message in catalog:
        if not message.id or not message.string:
            continue
        if isinstance(message.id, str):
            if _placeholders(message.string) != _placeholders(message.id):
                faults.append(f"{message.id!r}: {message.string!r}")
            continue
        wanted = _placeholders(message.id[1])
        counts = {p for p in wanted if COUNTS.fullmatch(p)}
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if len(strings) != catalog.num_plurals:
            faults.append(f"{message.id[0]!r}: {len(strings)} forms")
        for form, said in enumerate(strings):
            have = _placeholders(said)
            if have != wanted and not (form == form_for_one and have == wanted - counts):
                faults.append(f"{message.id[0]!r} form {form}: {said!r}")
    return faults


def test_the_template_catalog_holds_every_message_of_the_code() -> None:
    fresh = catalogs.extracted()
    kept = catalogs.read(catalogs.POT)
    assert {m.id if isinstance(m.id, str) else m.id[0] for m in fresh if m.id} == {
        m.id if isinstance(m.id, str) else m.id[0] for m in kept if m.id
    }, "run: python3 dev.py i18n"


def _catalog(lang: str) -> Catalog:
    return catalogs.read(catalogs.catalog_path(lang), lang)


@pytest.mark.parametrize("lang", [pytest.param(x, marks=_until_translated(x)) for x in TRANSLATED])
def test_every_catalog_is_complete_with_the_same_placeholders(lang: str) -> None:
    catalog = _catalog(lang)
    template = catalogs.read(catalogs.POT)
    wanted = {m.id if isinstance(m.id, str) else m.id[0] for m in template if m.id}
    have = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}
    assert wanted <= have, f"run: python3 dev.py i18n --update {lang}"
    gaps = list(catalogs.missing(catalog))
    assert gaps == [], f"{lang}: {len(gaps)} missing, first: {gaps[:3]}"
    assert placeholder_faults(catalog) == []


def test_the_placeholder_check_finds_each_kind_of_fault() -> None:
    """On a copy of the Italian catalog, broken on purpose in each way it can be."""
    catalog = _catalog("it")
    assert placeholder_faults(catalog) == []
    broken = {
        # a placeholder dropped from an ordinary message
        "The game master resumed the game; the deadline is {deadline}.": "Ripresa.",
        # a width lost: %(num)2d is not %(num)d
        "%(num)2d point": ("%(num)2d punto", "%(num)d punti"),
        # a placeholder added that the English does not have
        "{name} watches the game now.": "Ora {name} osserva la partita {game}.",
        # a plural form for many that leaves out the count
        "%(num)d island": ("%(num)d isola", "isole"),
        # a format spec changed
        "Tile {tile} was drawn ({islands}, {seas} left).": "Tessera {tile!r} ({islands}, {seas}).",
    }
    for message in catalog:
        key = message.id if isinstance(message.id, str) else message.id[0]
        if key in broken:
            message.string = broken[key]
    faults = placeholder_faults(catalog)
    assert len(faults) == len(broken), faults
    for key in broken:
        assert any(fault.startswith(repr(key)) for fault in faults), key
    # the form for one may leave out the count, and only the count
    for message in catalog:
        if message.id == ("%(num)d island", "%(num)d islands"):
            message.string = ("un'isola", "%(num)d isole")
    assert len(placeholder_faults(catalog)) == len(broken) - 1


# the game's terms in English, and each language's word for them as docs/rules.LANG.md
# writes it (a stem: the word as it begins in each of its forms); the words are the printed
# rule sheet's (pbem/locale/LANG/glossary.toml, tests/test_glossary.py)
TERMS = {
    "beach": r"\bbeach(es)?\b",
    "berth": r"\bberths?\b",
    "jetty": r"\bjett(y|ies)\b",
    "trail": r"\btrails?\b",
    "group": r"\bgroups?\b",
    "reserve": r"\breserves?\b",
}
TERM_WORDS = {
    lang: dict(zip(TERMS, stems.split(), strict=True))
    for lang, stems in {
        # beach, berth, jetty, trail, group, reserve
        "it": "spiagg approd pontil itinerari grupp riserv",
        "nl": "strand ligplaats steiger route groep voorra",
        "fi": "ran laituripaik laitur reit ryhm varasto",
        "hu": "partszakas kikötőhely stég útvonal csoport készlet",
        "he": "חו מזח גשר נתיב קבוצ מלאי",
    }.items()
}
# what a message names but does not say: its placeholders and the commands' forms (BEACH)
UNSAID = re.compile(r"\{[^}]*\}|%\([^)]*\)\d*[sd]|\b[A-Z]{3,}\b")


def term_faults(catalog: Catalog, lang: str) -> list[str]:
    """The messages whose English names one of the game's terms and whose translation does
    not use the language's one word for it."""
    faults = []
    for message in catalog:
        if not message.id:
            continue
        english = UNSAID.sub("", message.id if isinstance(message.id, str) else message.id[-1])
        said = [message.string] if isinstance(message.string, str) else list(message.string)
        for term, pattern in TERMS.items():
            word = TERM_WORDS[lang][term]
            if re.search(pattern, english, re.I) and any(word not in s.lower() for s in said):
                faults.append(f"{term}: {english!r} -> {said!r}")
    return faults


@pytest.mark.parametrize("lang", TRANSLATED)
def test_each_catalog_says_each_term_of_the_game_with_its_rules_word(lang: str) -> None:
    """Beach, berth, jetty, trail, group and reserve are one word each throughout a
    language, the word of its printed rules; proved on a copy with a synonym put in."""
    rules = (Path(catalogs.ROOT) / "docs" / f"rules.{lang}.md").read_text().lower()
    assert all(word in rules for word in TERM_WORDS[lang].values())
    catalog = _catalog(lang)
    assert term_faults(catalog, lang) == []
    for message in catalog:
        if message.id == "free berths":
            message.string = "?"
    assert len(term_faults(catalog, lang)) == 1


def test_each_language_is_named_in_its_own_words() -> None:
    assert set(LANGUAGES) == {"en", "it", "nl", "fi", "hu", "he"}
    assert set(TRANSLATED) == set(catalogs.LANGUAGES)
    for lang in TRANSLATED:
        assert catalogs.catalog_path(lang).is_file(), lang


def test_each_languages_help_lists_its_own_command_words(service: Service) -> None:
    _game(service, ann="it")
    mails = take_mail(service)
    italian = " ".join(text_of(_to(mails, ANN)[0]).split())  # the welcome, with the help
    english = " ".join(text_of(_to(mails, BOB)[0]).split())
    assert "aiuto = help" in italian and "regole = rules" in italian
    assert "aiuto" not in english
    assert "rispondi regole" in italian  # the welcome names `rules` in the reader's word


def test_the_calendar_event_of_a_prompt_speaks_the_readers_language(service: Service) -> None:
    _game(service, ann="it")
    prompt = next(m for m in take_mail(service) if m["To"] == ANN and m["X-Tongiaki-Decision"])
    event = next(p for p in prompt.walk() if p.get_content_type() == "text/calendar")
    text = event.get_content()
    text = text.decode() if isinstance(text, bytes) else text
    unfolded = text.replace("\r\n ", "")
    assert "SUMMARY:Partita 1 di Tongiaki: la tua decisione 1" in unfolded
    assert "Tongiaki game 1" not in unfolded
    deadline = words("it").say(stamp(START + 48 * HOUR))  # the deadline in the reader's locale
    assert deadline.startswith("mer 25 nov 2026") and deadline.endswith(" UTC")
    said = f"La scadenza della tua decisione 1 nella partita 1 di Tongiaki è {deadline}."
    assert said in unfolded.replace("\\,", ",").replace("\\;", ";")
    assert "2026-11-25" not in unfolded.partition("DESCRIPTION")[2].partition("\n")[0]


def test_a_digest_holds_the_news_in_the_readers_language(service: Service) -> None:
    cy = "cy@example.test"
    seats = [
        SeatSpec("Ann", ANN, "red"),
        SeatSpec("Bob", BOB, "blue"),
        SeatSpec("Cy", cy, lang="it"),
    ]
    service.new_game(seats, seed=11, now=START)
    mails = take_mail(service)
    assert (
        handle(service, reply_to(_to(mails, cy)[-1], "mail digest 18"), START + HOUR) == "applied"
    )
    take_mail(service)
    assert handle(service, reply_to(_to(mails, ANN)[-1], "1"), START + 2 * HOUR) == "applied"
    assert cy not in [m["To"] for m in take_mail(service)]
    with session(service.engine) as db:
        held = db.exec(select(Held)).all()
    assert len(held) == 1 and "Rosso ha messo 1 barca su Tonga" in held[0].lines
    assert tick(service, START + 9 * HOUR + timedelta(minutes=1)).digests == 1  # 18:01 UTC
    (digest,) = _to(take_mail(service), cy)
    assert "Il tuo riepilogo giornaliero della partita 1" in str(digest["Subject"])
    assert "Rosso ha messo 1 barca su Tonga" in text_of(digest)


# -- what the game master does, refusals, shared wins and counts in the reader's language ------

GM = "gm@example.test"


def _flat(mail) -> str:  # type: ignore[no-untyped-def]
    return " ".join(text_of(mail).split())


def _gm_game(service: Service, ann: str = "it", bob: str = "en") -> None:
    seats = [SeatSpec("Ann", ANN, "red", lang=ann), SeatSpec("Bob", BOB, "blue", lang=bob)]
    service.new_game(seats, seed=4, deadline_seconds=48 * 3600, gm=GM, now=START)


def _gm(service: Service, to_gm: list, command: str, at_hours: int) -> list:
    """The game master gives `command` in a reply to their newest mail (the last of
    `to_gm`, which gets the new ones); the mails it made."""
    assert handle(service, reply_to(to_gm[-1], command), START + at_hours * HOUR) == "applied"
    send_held(service, START + at_hours * HOUR)  # a quiet change: with the clock's next round
    mails = take_mail(service)
    to_gm += _to(mails, GM)
    return mails


def test_the_game_masters_news_reach_each_player_in_their_language(service: Service) -> None:
    _gm_game(service, ann="en", bob="it")  # Ann's decision is open: she gets a prompt
    to_gm = _to(take_mail(service), GM)
    mails = _gm(service, to_gm, "extend 1d", 1)
    (ann,) = _to(mails, ANN)
    (bob,) = _to(mails, BOB)
    assert str(bob["Subject"]).endswith("Novità della partita 1")
    deadline = words("it").say(stamp(START + 72 * HOUR))  # Thu 26 Nov 2026, 09:00 UTC
    assert "26 nov 2026" in deadline and deadline.startswith("gio")
    said = "Il game master ha dato 1 giorno in più alla decisione 1: ora la sua scadenza è "
    said += f"{deadline}."
    assert said in _flat(bob)
    assert "The game master gave decision 1 1 day more" not in _flat(bob)
    assert "its deadline is now Thu 26 Nov 2026, 09:00 UTC." in _flat(ann)

    (bob,) = _to(_gm(service, to_gm, "pause", 2), BOB)
    assert (
        "Il game master ha messo in pausa la partita: nessuna mossa è possibile e nessuna "
        "scadenza corre finché non riprende." in _flat(bob)
    )
    (bob,) = _to(_gm(service, to_gm, "bot blue greedy", 3), BOB)
    assert "Per ora il game master fa giocare il bot greedy al posto di Bob (blu)." in _flat(bob)
    (bob,) = _to(_gm(service, to_gm, "kick blue", 4), BOB)  # the farewell, in Bob's language
    assert str(bob["Subject"]).endswith("Hai lasciato la partita 1")
    assert (
        "Il game master ti ha tolto dalla partita. Questa è l'ultima mail che ricevi da "
        "questa partita. Grazie di aver giocato!" in _flat(bob)
    )


def test_a_duration_that_is_none_is_refused_in_the_players_language(service: Service) -> None:
    _game(service, ann="it", bob="fi")
    mails = take_mail(service)
    assert handle(service, reply_to(_to(mails, ANN)[-1], "vacanza xyz"), START + HOUR) == (
        "rejected"
    )
    assert handle(service, reply_to(_to(mails, BOB)[-1], "loma 20000d"), START + HOUR) == (
        "rejected"
    )
    answers = take_mail(service)
    assert (
        "'xyz' non è una durata (per esempio 48h, 2d, 1d12h, 90m). Scrivilo così: vacation 3d."
        in _flat(_to(answers, ANN)[-1])
    )
    assert "'20000d' on yli kymmenen vuotta; anna enintään 3650d." in _flat(_to(answers, BOB)[-1])
    assert _langs(service) == ["it", "fi"]


def test_a_shared_win_is_said_with_the_languages_own_and(service: Service) -> None:
    _gm_game(service, ann="it", bob="fi")
    to_gm = _to(take_mail(service), GM)
    mails = _gm(service, to_gm, "end", 1)  # nobody has a point yet: Ann and Bob share the win
    (ann,) = _to(mails, ANN)
    (bob,) = _to(mails, BOB)
    assert "Ann e Bob" in str(ann["Subject"]) and " and " not in str(ann["Subject"])
    assert "Ann ja Bob" in str(bob["Subject"])
    assert (
        "Ann e Bob hanno entrambi 0 punti, 0 isole e 0 barche sul tabellone ciascuno: "
        "la vittoria è condivisa." in _flat(ann)
    )
    assert "Pelaajilla Ann ja Bob on kummallakin 0 pistettä, 0 saarta ja 0 laivaa" in _flat(bob)


@pytest.mark.parametrize(
    ("lang", "one", "two"),
    [
        (
            "it",
            [
                "(restano 1 isola e 1 mare)",
                " 1 punto, 1 isola, 1 barca sul tabellone",
                "Pila: restano 1 isola e 1 tessera mare.",
            ],
            [
                "(restano 2 isole e 2 mari)",
                " 2 punti, 2 isole, 2 barche sul tabellone",
                "Pila: restano 2 isole e 2 tessere mare.",
            ],
        ),
        (
            "fi",
            [
                "(jäljellä 1 saari, 1 meri)",
                " 1 piste, 1 saari, 1 laiva laudalla",
                "Pino: jäljellä 1 saari ja 1 merilaatta.",
            ],
            [
                "(jäljellä 2 saarta, 2 merta)",
                " 2 pistettä, 2 saarta, 2 laivaa laudalla",
                "Pino: jäljellä 2 saarta ja 2 merilaattaa.",
            ],
        ),
    ],
)
def test_counts_of_one_and_two_take_the_languages_plural_forms(
    lang: str, one: list[str], two: list[str]
) -> None:
    reader = words(lang)
    state = State(Setup.from_seed(("red", "blue"), 4))
    for count, wanted in ((1, one), (2, two)):
        drawn = news.event(TileDrawn("Samoa", islands_left=count, seas_left=count))
        assert wanted[0] in reader.say(drawn), reader.say(drawn)
        ann, bob = view.players(state, ["Ann", "Bob"])
        ann = replace(ann, points=count, islands=("Samoa", "Tonga")[:count])
        final = view.Final(
            reason="",
            standings=((1, ann, count), (2, bob, 0)),
            tie_break="",
            points_from=("Samoa 5", "-"),
        )
        table = environment().get_template("_final.txt.j2").render(final=final, **said_in(reader))
        assert wanted[1] in table, table
        board = replace(view.board(state, ["Ann", "Bob"]), islands_left=count, seas_left=count)
        assert wanted[2] in render_board_text(board, reader)


def test_a_commands_form_reads_the_same_in_the_help_and_in_its_refusal(service: Service) -> None:
    """The placeholders of `say` and `tell` are the reader's words in the help and in the
    refusal of a line that leaves them out (one message each)."""
    _game(service, ann="it")
    mails = take_mail(service)
    welcome = _flat(_to(mails, ANN)[0])
    assert "say TESTO: a tutti al tavolo" in welcome
    assert "tell POSTO TESTO: a un solo giocatore" in welcome
    assert "mail all|turns|digest [ORA] [all-games]" in welcome and "TEXT" not in welcome
    assert handle(service, reply_to(_to(mails, ANN)[-1], "parla"), START + HOUR) == "rejected"
    (answer,) = _to(take_mail(service), ANN)
    assert "Di' qualcosa: say TESTO, come say Buona fortuna a tutti!" in _flat(answer)
    assert handle(service, reply_to(answer, "riferisci blu"), START + 2 * HOUR) == "rejected"
    (answer,) = _to(take_mail(service), ANN)
    assert "Scrivilo così: tell POSTO TESTO, come tell red Dividiamo Samoa?" in _flat(answer)


@pytest.mark.parametrize(
    ("lang", "told"),
    [
        ("en", "2 red, 1 green, 3 purple"),
        ("it", "2 rosse, 1 verde, 3 viola"),  # le barche: feminine, plural after 2
        ("nl", "2 rode, 1 groene, 3 paarse"),
        ("fi", "2 punaista, 1 vihreä, 3 violettia"),  # partitive after a number over one
        ("hu", "2 vörös, 1 zöld, 3 lila"),  # singular after a number
        ("he", "2 אדומות, 1 ירוקה, 3 סגולות"),  # ספינות: feminine
    ],
)
def test_a_group_of_boats_agrees_with_its_number_in_each_language(lang: str, told: str) -> None:
    group = ("red", "red", "green", "purple", "purple", "purple")
    assert words(lang).say(news.group(group)) == told


def _picture_of(mail) -> tuple[str, bytes]:  # type: ignore[no-untyped-def]
    """The Content-ID the HTML part shows, and the bytes of the part by that Content-ID."""
    shown = re.search(r'src="cid:([^"]+)"', _html(mail))
    assert shown is not None
    (part,) = [p for p in mail.walk() if p["Content-ID"] == f"<{shown.group(1)}>"]
    return shown.group(1), part.get_content()


def test_the_picture_names_fiji_for_english_readers_and_fidschi_for_the_others(
    service: Service,
) -> None:
    stack = ["Fidschi", *(tile for tile in STACK_TILES if tile != "Fidschi")]
    seats = [SeatSpec("Ann", ANN, "red", lang="it"), SeatSpec("Bob", BOB, "blue")]
    service.new_game(seats, stack=stack, now=START)
    with session(service.engine) as db:  # `mail picture always`: the updates carry it too
        for seat in db.exec(select(Seat)):
            seat.picture = PictureChoice.ALWAYS
            db.add(seat)
        db.commit()
    mails = take_mail(service)
    for minute, lines in enumerate(["place Tonga a", "place Tonga b"] * 2 + ["colonise"], 1):
        prompt = next(m for m in mails if m["X-Tongiaki-Decision"])  # to whoever decides
        assert handle(service, reply_to(prompt, lines), later(minute)) == "applied"
        mails = take_mail(service)
    # Fidschi drawn, not yet placed: one picture for both readers
    (before_ann,), (before_bob,) = _to(mails, ANN), _to(mails, BOB)
    assert _picture_of(before_ann) == _picture_of(before_bob)
    prompt = next(m for m in mails if m["X-Tongiaki-Decision"])
    assert handle(service, reply_to(prompt, "1"), later(10)) == "applied"  # Fidschi is put
    mails = take_mail(service)
    with session(service.engine) as db:
        state = service.table(db, 1, later(10)).state
    assert "Fidschi" in {name for name, _ in state.tiles.values()}
    printed, english = board_png(state), board_png(state, english=True)
    assert printed != english
    for mail in _to(mails, ANN):  # Italian
        cid, png = _picture_of(mail)
        assert png == printed and not cid.split("@")[0].endswith("-en")
    for mail in _to(mails, BOB):  # English
        cid, png = _picture_of(mail)
        assert png == english and cid.split("@")[0].endswith("-en")


def test_who_said_a_line_of_talk_is_named_with_the_colour_in_the_readers_words() -> None:
    """The speaker is stored as said ("Ben (red)"); each reader reads the colour in their
    language, and a speaker without a boat colour as stored."""
    said = envelope_said("Ben (red)")
    assert words("it").say(said) == "Ben (rosso) al tavolo: Good luck"
    assert words("nl").say(said) == "Ben (rood) aan tafel: Good luck"
    assert words("en").say(said) == "Ben (red) to the table: Good luck"
    assert words("it").say(news.speaker("Olga (watching)")) == "Olga (watching)"
    assert news.speaker("Red (team) (blue)") == "Red (team) (blue)"  # the last part is the colour


def envelope_said(speaker: str) -> str:
    from pbem.mail_out.envelope import said
    from pbem.store import Talk

    return said(Talk(game_id=1, seat=1, speaker=speaker, text="Good luck", at=START), None)
