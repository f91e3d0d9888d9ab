"""The game master's mails in the game master's language (issue 29): `--gm ADDRESS[:LANG]`
(the game's language when none is named), `lang` by mail from the game's own game master,
and the stable codes of the game master's refusals, which read the same in every language.
Everything goes by mail through the service's door (`handle`) and the outbox, as in
tests/test_gm.py."""

from __future__ import annotations

from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select
from typer.testing import CliRunner

from engine import Message
from pbem.core.config import settings_toml
from pbem.flow.deadlines import send_held
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.game.table import GameError
from pbem.host.cli import app
from pbem.store.db import session
from pbem.store.models import Game, GmAction, Seat
from pbem.views.i18n import ENGLISH, TRANSLATED, named, words
from tests.support.localmail import START, local_service, reply_to, take_mail, text_of

ANN, BOB, GM = "ann@example.test", "bob@example.test", "gm@example.test"
BOSS = "boss@example.test"  # a game master of every game on this host
EVE = "eve@example.test"
HOUR = timedelta(hours=1)
LANGS = (ENGLISH, *TRANSLATED)


@pytest.fixture
def service(tmp_path: Path) -> Service:
    return local_service(tmp_path, gm_addresses=(BOSS,), answers_per_day=100)


class Game1:
    """Game 1 (Ann red, Bob blue) and the newest mail each address got."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.latest: dict[str, EmailMessage] = {}

    def start(self, gm: str, *, lang: str = ENGLISH, ann: str | None = None) -> list[Any]:
        seats = [SeatSpec("Ann", ANN, "red", lang=ann), SeatSpec("Bob", BOB, "blue")]
        self.service.new_game(
            seats, seed=4, deadline_seconds=48 * 3600, gm=gm, lang=lang, now=START
        )
        return self.mail()

    def mail(self) -> list[EmailMessage]:
        mails = take_mail(self.service)
        for mail in mails:
            self.latest[str(mail["To"])] = mail
        return mails

    def write(self, sender: str, body: str, hours: float, *, to: str | None = None) -> str:
        """`sender` replies with `body` to the newest mail `to` (else `sender`) got."""
        mail = reply_to(self.latest[to or sender], body, sender=sender)
        outcome = handle(self.service, mail, START + hours * HOUR)
        send_held(self.service, START + hours * HOUR)  # as the poll's end sends quiet news
        return outcome

    def row(self) -> Game:
        with session(self.service.engine) as db:
            game = db.get(Game, 1)
            assert game is not None
            return game


def _to(mails: list[EmailMessage], address: str) -> list[EmailMessage]:
    return [m for m in mails if m["To"] == address]


def _said(lang: str, template: str, **params: object) -> str:
    """What `template` reads in `lang`: the catalog's words, never the English for a
    translated language."""
    said = words(lang).say(Message(template, **params))
    if lang != ENGLISH:
        assert said != Message(template, **params), (lang, template)
    return said


def _flat(mail: EmailMessage) -> str:
    return " ".join(text_of(mail).replace("\u200f", "").split())


def _html(mail: EmailMessage) -> str:
    part = mail.get_body(("html",))
    assert part is not None
    return str(part.get_content())


@pytest.mark.parametrize("lang", LANGS)
def test_a_game_master_reads_their_mails_in_their_language(service: Service, lang: str) -> None:
    """The welcome, the results of their commands and the state of the game in the game
    master's language; the players read theirs (English), untouched by it."""
    game = Game1(service)
    mails = game.start(f"{GM}:{lang}")
    assert game.row().gm_lang == lang
    (welcome,) = _to(mails, GM)
    head = _said(lang, "You are the game master of game {game}", game=1)
    assert str(welcome["Subject"]) == f"[Tongiaki g1] {head}"
    text = _flat(welcome)
    heading = words(lang)._("GAME MASTER COMMANDS")
    assert heading in text
    assert words(lang).say(Message("more time for the open decision")) in text
    html = _html(welcome)
    assert f'<html lang="{lang}"' in html
    assert ('dir="rtl"' in html) == (lang == "he")
    if lang != ENGLISH:
        assert "GAME MASTER COMMANDS" not in text and "played by" not in text

    assert game.write(GM, "pause", 1) == "applied"
    mails = game.mail()
    (done,) = _to(mails, GM)
    assert str(done["Subject"]) == "[Tongiaki g1] " + _said(
        lang, "Done: {commands}", commands="pause"
    )
    duration = words(lang).say(Message("1d 23h"))
    paused = _said(lang, "paused with {duration} left for the open decision", duration=duration)
    assert paused in _flat(done)
    assert words(lang).say(Message("applied")) in _flat(done)
    # the players read the news in English, whatever the game master reads
    for address in (ANN, BOB):
        (told,) = _to(mails, address)
        assert "The game master paused the game" in _flat(told)


def test_without_a_language_the_game_master_reads_the_games(service: Service) -> None:
    game = Game1(service)
    (welcome,) = _to(game.start(GM, lang="nl", ann="fi"), GM)
    assert game.row().gm_lang == "nl"
    assert words("nl")._("GAME MASTER COMMANDS") in _flat(welcome)
    assert game.write(GM, "extend 1d", 1) == "applied"
    mails = game.mail()
    (done,) = _to(mails, GM)
    assert _said("nl", "Done: {commands}", commands="extend") in str(done["Subject"])
    # Ann reads Finnish, Bob the game's Dutch: each their own, none the game master's choice
    (ann,) = _to(mails, ANN)
    (bob,) = _to(mails, BOB)
    assert "Pelinjohtaja antoi päätökselle 1" in _flat(ann)
    assert "De spelleider gaf 1 dag extra voor beslissing 1" in _flat(bob)
    assert "game master" not in _flat(ann) + _flat(bob)


def test_a_players_language_does_not_reach_the_game_masters_mails(service: Service) -> None:
    """Ann chooses Hungarian, the game master reads Italian: neither changes the other."""
    game = Game1(service)
    game.start(f"{GM}:it")
    assert game.write(ANN, "lang hu", 1) == "applied"
    game.mail()
    assert game.row().gm_lang == "it"
    assert game.write(GM, "lang fi", 2) == "applied"
    mails = game.mail()
    with session(service.engine) as db:
        assert [s.lang for s in db.exec(select(Seat).order_by(Seat.seat))] == ["hu", "en"]
    assert game.row().gm_lang == "fi"
    (done,) = _to(mails, GM)  # the answer to this very mail is in the new language
    said = _said(
        "fi", "the game master's mails are in {language} from now on", language=named("fi")
    )
    assert said in _flat(done)
    assert not _to(mails, ANN) and not _to(mails, BOB)  # the game master's own business
    assert game.write(GM, "pause", 3, to=GM) == "applied"
    mails = game.mail()
    (ann,) = _to(mails, ANN)
    assert _said(
        "hu",
        "The game master paused the game: no move can be made and no deadline "
        "runs until it resumes.",
    ) in _flat(ann)
    assert _said("fi", "Done: {commands}", commands="pause") in str(_to(mails, GM)[0]["Subject"])


def test_lang_by_mail_refuses_an_unknown_language_and_changes_nothing(service: Service) -> None:
    game = Game1(service)
    game.start(f"{GM}:hu")
    assert game.write(GM, "lang klingon", 1) == "rejected"
    (refused,) = _to(game.mail(), GM)
    assert refused["X-Tongiaki-Refused"] == "unknown-language"
    assert game.row().gm_lang == "hu"
    assert _said("hu", "Not applied: {commands}", commands="lang") in str(refused["Subject"])
    with session(service.engine) as db:
        assert db.exec(select(GmAction)).all() == []
    assert game.write(GM, "lang", 2) == "applied"  # alone: which it is, and the choices
    (told,) = _to(game.mail(), GM)
    assert named("hu") in _flat(told) and "עברית" in _flat(told)
    assert game.row().gm_lang == "hu"


def test_the_hosts_game_master_reads_english_and_cannot_choose_for_the_games(
    service: Service,
) -> None:
    game = Game1(service)
    mails = game.start(f"{GM}:he")
    (boss,) = _to(mails, BOSS)
    assert "GAME MASTER COMMANDS" in _flat(boss)
    assert game.write(BOSS, "lang it", 1) == "rejected"
    (refused,) = _to(game.mail(), BOSS)
    assert refused["X-Tongiaki-Refused"] == "host-game-master"
    assert "You are a game master of every game of this host" in _flat(refused)
    assert game.row().gm_lang == "he"


def test_a_strangers_or_a_forged_lang_to_the_game_masters_address_changes_nothing(
    service: Service,
) -> None:
    game = Game1(service)
    game.start(f"{GM}:it")
    assert game.write(EVE, "lang nl", 1, to=GM) == "refused"  # someone else's address
    assert game.write(ANN, "lang nl", 1, to=GM) == "refused"  # a player, with the GM's mail
    forged = reply_to(game.latest[GM], "lang nl", sender=GM).replace(b"-", b"_", 0)
    target = str(game.latest[GM]["Reply-To"])
    wrong = target.split("@")[0][:-4] + "aaaa@" + target.split("@")[1]
    forged = forged.replace(target.encode(), wrong.encode())
    assert handle(service, forged, START + 2 * HOUR) == "refused"
    auto = reply_to(game.latest[GM], "lang nl", sender=GM, Auto_Submitted="auto-replied")
    assert handle(service, auto, START + 3 * HOUR) != "applied"
    assert game.row().gm_lang == "it"
    assert game.mail() == []  # nobody is answered, nothing loops

    # the game master's own `lang` acts once: the same mail again is a duplicate, the same
    # lines to the same mail again a replay
    prompt = game.latest[GM]
    mail = reply_to(prompt, "lang nl", sender=GM)
    assert handle(service, mail, START + 4 * HOUR) == "applied"
    game.mail()
    assert game.row().gm_lang == "nl"
    with session(service.engine) as db:  # set back by hand: the replay must not redo it
        row = db.get(Game, 1)
        assert row is not None
        row.gm_lang = "it"
        db.commit()
    assert handle(service, mail, START + 5 * HOUR) == "duplicate"
    again = reply_to(prompt, "lang nl", sender=GM)
    assert handle(service, again, START + 5 * HOUR) == "ignored"
    assert game.row().gm_lang == "it"
    assert game.mail() == []


# -- the codes of the game master's refusals -----------------------------------------------

CODES = [
    ("resume", "not-paused"),
    ("frobnicate", "unknown-command"),
    ("kick 7", "no-seat"),
    ("move purple place Tonga b", "colour-not-playing"),
    ("move blue place Tonga b", "not-their-decision"),
    ("move red", "no-choice"),
    ("move red colonise", "illegal"),  # the engine's own code
    ("undo all", "undo-count"),
    ("undo 3", "undo-too-many"),
    ("extend soon", "bad-duration"),
    ("extend 3660d", "too-long"),
    ("deadline 30s", "too-short"),
    ("pause now", "no-argument"),
    ("human 1", "plays-already"),
    ("bot 2 clever", "unknown-bot"),
    ("replace 2 ann@example.test", "has-a-seat"),
    ("replace 2 nobody", "bad-address"),
    ("replace 2", "replace-form"),
    ("observe", "observe-form"),
    ("observe bob@example.test", "in-the-game"),
    ("unobserve nobody", "no-observer"),
]


@pytest.mark.parametrize("lang", ["he", "fi"])
def test_each_refusal_has_its_code_in_any_language(service: Service, lang: str) -> None:
    """The same refusals, read in Hebrew and in Finnish, give the same codes (in the mail's
    X-Tongiaki-Refused) and change nothing; their words are the game master's language."""
    game = Game1(service)
    game.start(f"{GM}:{lang}")
    for minute, (address, line) in enumerate([(ANN, "place Tonga a"), (BOB, "place Tonga a")]):
        assert game.write(address, line, minute / 60) == "applied"
        game.mail()
    assert game.write(GM, "status", 0.5) == "answered"  # a mail about the decision open now
    game.mail()
    before = game.row().model_dump()
    english = words(ENGLISH).say(Message("rejected"))
    for minute, (line, code) in enumerate(CODES):
        assert game.write(GM, line, 1 + minute / 60) == "rejected", line
        (refused,) = _to(game.mail(), GM)
        assert refused["X-Tongiaki-Refused"] == code, (line, refused["X-Tongiaki-Refused"])
        assert words(lang).say(Message("rejected")) in _flat(refused)
        assert f"{english}:" not in _flat(refused)
    assert game.row().model_dump() == before


def test_the_command_line_reads_the_same_codes(service: Service, tmp_path: Path) -> None:
    from pbem.flow.gm import GameMaster

    Game1(service).start(f"{GM}:it")
    results, _ = GameMaster(service).run_host(1, ["pause", "pause", "lang zz"], START + HOUR)
    assert [(r.outcome, r.code) for r in results] == [
        ("applied", ""),
        ("rejected", "paused-already"),
        ("ignored", ""),
    ]
    assert str(results[1].detail) == "The game is paused already."  # the host reads English
    results, _ = GameMaster(service).run_host(1, ["lang hu"], START + 2 * HOUR)
    assert results[0].outcome == "applied"
    assert Game1(service).row().gm_lang == "hu"


# -- a new game's game master --------------------------------------------------------------


@pytest.mark.parametrize(
    ("gm", "said"),
    [
        (f"{GM}:xx", "Unknown language 'xx' for the game master"),
        (f"{GM}:", "names no language after the colon"),
        (f"{GM}:it:nl", "is not a mail address"),
        ("nobody:it", "is not a mail address"),
    ],
)
def test_a_new_game_refuses_a_game_master_in_an_unknown_form(
    service: Service, gm: str, said: str
) -> None:
    with pytest.raises(GameError, match=said):
        Game1(service).start(gm)
    with session(service.engine) as db:
        assert db.exec(select(Game)).all() == []
    assert take_mail(service) == []


def test_new_game_on_the_command_line_takes_the_game_masters_language(
    service: Service, tmp_path: Path
) -> None:
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(service.settings))
    runner = CliRunner()
    args = ["new-game", "--player", f"Ann:{ANN}", "--player", f"Bob:{BOB}", "--config", str(config)]
    refused = runner.invoke(app, [*args, "--gm", f"{GM}:zz"])
    assert refused.exit_code != 0 and "Unknown language 'zz' for the game master" in refused.output
    with session(service.engine) as db:
        assert db.exec(select(Game)).all() == []
    made = runner.invoke(app, [*args, "--gm", f"{GM}:FI", "--lang", "it"])
    assert made.exit_code == 0, made.output
    game = Game1(service).row()
    assert (game.lang, game.gm_address, game.gm_lang) == ("it", GM, "fi")
    (welcome,) = _to(take_mail(service), GM)
    assert words("fi")._("GAME MASTER COMMANDS") in _flat(welcome)


def test_a_poll_killed_amid_game_masters_lang_mails_acts_on_each_once(tmp_path: Path) -> None:
    """Six games' game masters each write `lang fi` (the same mail twice, and a stranger
    with the game master's mail); the poll is killed mid-batch, the next one finishes: each
    game's game master reads Finnish, set once, answered once; the stranger changed nothing."""
    from pbem.host.runner import run_cycle
    from tests.support.localmail import handled, killed_mid_batch, poll_command
    from tests.test_reading_hostile import _drop

    service = local_service(tmp_path, inbound_batch=5)
    batch: dict[str, bytes] = {}
    for game in range(1, 7):
        seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")]
        service.new_game(seats, seed=game, gm=f"{GM}:it", now=START)
        (welcome,) = _to(take_mail(service), GM)
        mail = reply_to(welcome, "lang fi")
        batch[f"{game:02}.0"] = reply_to(welcome, "lang nl", sender=EVE)
        batch[f"{game:02}.1"] = mail
        batch[f"{game:02}.2"] = mail  # the same mail delivered twice
        batch[f"{game:02}.3"] = reply_to(welcome, "lang fi")  # the same lines again: a replay
    _drop(service, batch)
    database = service.settings.database_path
    killed_at = killed_mid_batch(poll_command(service, tmp_path, START + HOUR), database)
    assert 0 < killed_at < len(batch), "the kill did not land in the middle of the poll"
    run_cycle(service, START + 2 * HOUR)
    assert handled(database) == len(batch) - 6  # a mail delivered twice is recorded once
    assert list((service.settings.inbox_dir / "new").iterdir()) == []
    with session(service.engine) as db:
        assert [g.gm_lang for g in db.exec(select(Game).order_by(Game.id))] == ["fi"] * 6
        actions = [(a.game_id, a.actor, a.command) for a in db.exec(select(GmAction))]
    assert sorted(actions) == [(game, GM, "lang fi") for game in range(1, 7)]
