"""Mails in the player's language (issue 17): choosing it, by mail and at `new-game`; the
meta commands' own words; dates in the reader's locale; the catalogs complete and in step
with the code."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from sqlmodel import select
from typer.testing import CliRunner

from engine import ISLANDS, is_move_word
from pbem.cli import app
from pbem.config import Settings, settings_toml
from pbem.db import open_database, session
from pbem.deadlines import tick
from pbem.i18n import ALIASES, COMMAND_WORDS, LANGUAGES, TRANSLATED, Words, stamp, words
from pbem.models import Game, Held, Seat
from pbem.play import PLAYER_COMMANDS
from pbem.replies import handle
from pbem.service import GameError, SeatSpec, Service
from tests.support.localmail import START, local_service, reply_to, take_mail, text_of
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
    service.new_game(seats, seed=4, deadline="48h", lang=languages.get("game", "en"), now=START)


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
    italian = Words("it")
    said = italian._("your mails are in {language} from now on", language="Italiano")
    assert said != "your mails are in Italiano from now on"  # the catalog translates it
    assert said in " ".join(text_of(answer).split())
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
    names = {c.name for c in PLAYER_COMMANDS}
    islands = {name.lower() for name in ISLANDS}
    for lang, table in COMMAND_WORDS.items():
        assert set(table) <= names | {"confirm"}, lang
        for word in table.values():
            assert word == word.lower() and " " not in word, word
            assert word not in names and word not in islands, word
            assert not is_move_word(word), word
            assert ALIASES[word] in names, word
    # two languages may share a word only for the same command
    assert len(ALIASES) == len({w for t in COMMAND_WORDS.values() for w in t.values()})


def test_dates_are_written_in_the_readers_locale() -> None:
    moment = START + timedelta(days=2)  # Wed 25 Nov 2026, 09:00 UTC
    shown = stamp(moment, "Europe/Rome")
    assert shown is not None and str(shown) == "Wed 25 Nov 2026, 10:00 Europe/Rome"
    italian = words("it").say(shown)
    assert "nov" in italian and "2026" in italian and "10:00" in italian
    assert italian.endswith("Europe/Rome") and italian != str(shown)
    assert words("xx") == words("en") == Words("en")  # an unknown language reads English


# -- the catalogs -----------------------------------------------------------------------------

PLACEHOLDER = re.compile(r"\{[a-z_]+(?:![rsa])?\}|%\([a-z_]+\)[sd]")


def _placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


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
    forms = catalog.num_plurals
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if isinstance(message.id, tuple):
            assert len(strings) == forms, (lang, ids[0])
        for said in strings:
            assert _placeholders(said) <= _placeholders(" ".join(ids)), (lang, ids[0], said)
        if forms == len(strings) and len(ids) == 1:
            assert _placeholders(strings[0]) == _placeholders(ids[0]), (lang, ids[0])


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
    assert "SUMMARY:Partita di Tongiaki 1: la tua decisione 1" in unfolded
    assert "Tongiaki game 1" not in unfolded


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
