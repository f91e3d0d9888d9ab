"""A bad line never loses a good one: every argument of every command is checked and refused
with an answer (generated arguments, every registry), and a line that still raises (a fault
of ours) is undone alone: the lines before it stay applied, its sender is told which line
failed, and a copy of the mail goes to the quarantine for the host, by a player's mail, a
game master's (mail and command line), in an inbound batch, replayed or retried."""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from email.message import EmailMessage
from email.utils import make_msgid
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import Session, col, select
from typer.testing import CliRunner

from pbem.commands.gm import GM_COMMANDS
from pbem.commands.player import (
    OBSERVER_COMMANDS,
    PLAYER_COMMANDS,
    QUIET_OBSERVER_COMMANDS,
    RESIGNED_COMMANDS,
)
from pbem.commands.registry import FAILED, Command, Commands, Round, run_lines
from pbem.core.addressing import Tag
from pbem.core.config import settings_toml
from pbem.core.kinds import MoveSource
from pbem.flow.deadlines import send_held
from pbem.flow.gm import GameMaster
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.host.cli import app
from pbem.host.runner import read_mail
from pbem.host.transport import MaildirInbox
from pbem.mail_out.envelope import envelope
from pbem.store.db import session
from pbem.store.models import Game, GmAction, Inbound, Move, Observer, Quarantined, Seat, Talk
from tests.support.localmail import (
    START,
    handled,
    killed_mid_batch,
    later,
    local_service,
    parse,
    poll_command,
    reply_to,
    take_mail,
    text_of,
)

ANN, BOB, CY, GM = "ann@example.test", "bob@example.test", "cy@example.test", "gm@example.test"
OLGA = "olga@example.test"


def flat(text: str) -> str:
    return " ".join(text.split())


def _new_game(service: Service, first: str = ANN, second: str = BOB) -> int:
    seats = [SeatSpec("Ann", first, "red"), SeatSpec("Bob", second, "blue")]
    return service.new_game(
        seats,
        seed=4,
        deadline_seconds=48 * 3600,
        gm=GM,
        observers=[(OLGA, "Olga")],
        observers_talk=True,
        now=START,
    )


def _latest(mails: list[EmailMessage], address: str) -> EmailMessage:
    return [m for m in mails if m["To"] == address][-1]


def _rows(service: Service) -> dict[str, list[dict[str, Any]]]:
    with session(service.engine) as db:
        return _rows_in(db)


def _rows_in(db: Session) -> dict[str, list[dict[str, Any]]]:
    """What a line may change: the games, seats, moves, talk, observers, game master's log."""
    return {
        table.__name__: [row.model_dump() for row in db.exec(select(table))]
        for table in (Game, Seat, Move, Talk, Observer, GmAction)
    }


def _moves(service: Service) -> list[str]:
    with session(service.engine) as db:
        return [m.choice for m in db.exec(select(Move).order_by(col(Move.number)))]


def _quarantined(service: Service) -> list[Quarantined]:
    with session(service.engine) as db:
        return list(db.exec(select(Quarantined).order_by(col(Quarantined.id))))


def _stored_state_is_the_moves(service: Service, game_id: int = 1) -> None:
    """The game's saved state is the state its stored moves make (nothing of a line that
    was undone is left in the snapshot)."""
    with session(service.engine) as db:
        game = db.get(Game, game_id)
        assert game is not None and game.snapshot is not None
        moves = list(db.exec(select(Move).where(Move.game_id == game_id)))
        assert len(json.loads(game.snapshot)["log"]) == len(moves)
        assert game.decision == len(moves) + 1


# -- a command that raises: registered for a test only -----------------------------------


def _crash(round: Round, argument: str) -> str:
    """Changes everything a line can change, then fails as `tz Europe` did."""
    table = round.table
    if round.seat is not None:
        round.seat.tz = "Asia/Tokyo"
        round.seat.vacation_used += 3600
    table.game.deadline_seconds = 60
    decision = table.state.decision
    if decision is not None:  # a move in memory, and stored
        table.state.apply(table.state.legal_choices()[0])
        table.record(decision.seat, MoveSource.MAIL)
    assert table.game.id is not None
    table.db.add(Talk(game_id=table.game.id, at=table.now, speaker="x", text="left behind"))
    table.db.flush()
    table.observers.append(
        Observer(game_id=table.game.id, address="z@example.test", name="Z", secret="0")
    )
    round.announced.append("a line that failed said this")
    round.moves += 5
    round.show_board = True
    raise IsADirectoryError(21, "Is a directory", "/usr/share/zoneinfo/Europe")


CRASH = Command("crash", "crash", "fails, for the tests", _crash)


@pytest.fixture
def crash(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`crash` is a command of every registry while the test runs."""
    for registry in (PLAYER_COMMANDS, OBSERVER_COMMANDS, GM_COMMANDS):
        monkeypatch.setattr(registry, "commands", (*registry.commands, CRASH))
        monkeypatch.setitem(registry.by_name, "crash", CRASH)
    yield


# -- the lines, by mail ------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "answer"),
    [
        ("tz Europe", "'Europe' is not a time zone. Write it as in tz Europe/Berlin"),
        ("tz Etc", "'Etc' is not a time zone."),
        ("tz " + "x" * 290, "is not a time zone."),
        ("tz ../../etc/passwd", "'../../etc/passwd' is not a time zone."),
        ("tz /usr/share/zoneinfo/Europe/Berlin", "is not a time zone."),
        ("tz Europe/Berln", "'Europe/Berln' is not a time zone. Did you mean Europe/Berlin?"),
        ("tz Europe/Berlin\x00", "is not a time zone."),
        ("vacation 99999999999d", "is longer than ten years"),
        ("vacation 1" + "0" * 30 + "h", "is longer than ten years"),
        ("vacation 1" + "0" * 50 + "h", "is not a duration"),
        ("mail digest ²", "Write the digest's hour as 0-23"),
        ("mail digest 99999999999999999999", "Write the digest's hour as 0-23"),
        ("lang " + "x" * 290, "is not a language of the game"),
        ("tell 99999999999999999999 hi", "No seat"),
    ],
)
def test_a_bad_argument_after_a_move_is_refused_and_the_move_stays(
    tmp_path: Path, line: str, answer: str
) -> None:
    service = local_service(tmp_path)
    _new_game(service)
    prompt = _latest(take_mail(service), ANN)
    outcome = handle(service, reply_to(prompt, f"1\n{line}"), later(1))
    assert outcome == "rejected"
    assert _moves(service) == ["place Tonga a"]
    mails = take_mail(service)
    (ann,) = [m for m in mails if m["To"] == ANN]
    said = flat(text_of(ann))
    assert answer in said and "line 1 was applied, line 2 was not" in said
    assert [m for m in mails if m["To"] == BOB], "Bob hears of the move"
    assert _quarantined(service) == []
    with session(service.engine) as db:
        assert [s.tz for s in db.exec(select(Seat))] == [None, None]


def test_a_time_zone_is_read_in_any_case_and_kept_as_the_tz_database_names_it(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _new_game(service)
    prompt = _latest(take_mail(service), ANN)
    assert handle(service, reply_to(prompt, "tz america/argentina/buenos_aires"), later(1)) == (
        "applied"
    )
    with session(service.engine) as db:
        assert db.exec(select(Seat.tz).where(Seat.address == ANN)).one() == (
            "America/Argentina/Buenos_Aires"
        )


# -- a line that raises -----------------------------------------------------------------


def test_a_line_that_raises_is_undone_alone_the_move_before_stays_and_the_host_gets_a_copy(
    tmp_path: Path, crash: None, caplog: pytest.LogCaptureFixture
) -> None:
    service = local_service(tmp_path)
    _new_game(service)
    prompt = _latest(take_mail(service), ANN)
    before = _rows(service)
    raw = reply_to(prompt, "1\ncrash\nstatus")
    caplog.set_level(logging.INFO)
    assert handle(service, raw, later(1)) == "rejected"
    # the move of line 1 is stored once; nothing of line 2 is left, in the rows or the state
    assert _moves(service) == ["place Tonga a"]
    _stored_state_is_the_moves(service)
    after = _rows(service)
    assert after["Talk"] == [] and after["Observer"] == before["Observer"]
    assert [s["tz"] for s in after["Seat"]] == [None, None]
    assert [s["vacation_used"] for s in after["Seat"]] == [0, 0]
    assert after["Game"][0]["deadline_seconds"] == 48 * 3600
    # Ann is told which line failed; Bob hears of the move, and of nothing the line did
    mails = take_mail(service)
    (ann,) = [m for m in mails if m["To"] == ANN]
    said = flat(text_of(ann))
    assert "line 1 was applied, line 2 was not" in said
    assert f"> crash rejected: {FAILED}" in said or f"crash rejected: {FAILED}" in said, said
    assert "status ignored" in said
    (bob,) = [m for m in mails if m["To"] == BOB]
    assert "Your move" in str(bob["Subject"])
    assert "a line that failed said this" not in flat(text_of(bob))
    assert "Z" not in [str(m["To"]) for m in mails]
    # the host: a copy of the mail in the quarantine, with the line and where it failed
    (copy,) = _quarantined(service)
    assert copy.raw == raw
    assert copy.error.startswith("a copy: line 2 'crash' failed and was undone alone")
    assert "IsADirectoryError" in copy.error and "test_line_safety.py" in copy.error
    assert any(r.exc_info and "line 2 'crash' failed" in r.getMessage() for r in caplog.records)
    with session(service.engine) as db:
        (inbound,) = db.exec(select(Inbound))
        assert (
            inbound.outcome == "rejected"
            and "1 -> applied (place Tonga a); crash -> rejected" in inbound.detail
        )
    # the same mail again, by Message-ID, by content, or retried from the quarantine: once
    assert handle(service, raw, later(2)) == "duplicate"
    again = parse(raw)
    again.replace_header("Message-ID", make_msgid("again", domain="example.test"))
    assert handle(service, bytes(again), later(3)) == "ignored"
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(service.settings))
    retried = CliRunner().invoke(
        app, ["quarantine", "retry", str(copy.id), "--config", str(config), "--now", "2026-11-24"]
    )
    assert retried.exit_code == 0 and "duplicate" in retried.output, retried.output
    assert _moves(service) == ["place Tonga a"] and _quarantined(service) == []
    assert take_mail(service) == []


def test_a_line_that_raises_first_changes_nothing_and_is_answered(
    tmp_path: Path, crash: None
) -> None:
    service = local_service(tmp_path)
    _new_game(service)
    prompt = _latest(take_mail(service), ANN)
    before = _rows(service)
    assert handle(service, reply_to(prompt, "crash\n1"), later(1)) == "rejected"
    assert _rows(service) == before
    (ann,) = take_mail(service)
    assert ann["To"] == ANN and FAILED in flat(text_of(ann))
    assert len(_quarantined(service)) == 1
    # Ann's move after it is read anew: the line that failed acted on nothing
    assert handle(service, reply_to(prompt, "1"), later(2)) == "applied"
    assert _moves(service) == ["place Tonga a"]


def test_an_observer_line_that_raises_keeps_what_they_said_before(
    tmp_path: Path, crash: None
) -> None:
    service = local_service(tmp_path)
    _new_game(service)
    welcome = _latest(take_mail(service), OLGA)
    assert handle(service, reply_to(welcome, "say Hello\ncrash"), later(1)) == "rejected"
    with session(service.engine) as db:
        assert [t.text for t in db.exec(select(Talk))] == ["Hello"]
    mails = take_mail(service)
    assert FAILED in flat(text_of(_latest(mails, OLGA)))
    assert len(_quarantined(service)) == 1


def test_a_game_masters_line_that_raises_keeps_the_commands_before_by_mail_and_command_line(
    tmp_path: Path, crash: None
) -> None:
    service = local_service(tmp_path, answers_per_day=100)
    _new_game(service)
    gm = _latest(take_mail(service), GM)
    assert handle(service, reply_to(gm, "pause\ncrash\nresume"), later(1)) == "rejected"
    with session(service.engine) as db:
        game = db.get(Game, 1)
        assert game is not None and game.status == "paused" and game.deadline_seconds == 48 * 3600
        assert [a.command for a in db.exec(select(GmAction))] == ["pause"]
    send_held(service, later(1))  # the players hear of the pause at the poll's end
    mails = take_mail(service)
    said = flat(text_of(_latest(mails, GM)))
    assert f"crash rejected: {FAILED}" in said and "resume ignored" in said
    assert [m["To"] for m in mails if "paused" in flat(text_of(m))].count(ANN) == 1
    assert len(_quarantined(service)) == 1
    # the host's command line: the same guarantees, the traceback in the log
    results, _ = GameMaster(service).run_host(1, ["resume", "crash"], later(2))
    assert [r.outcome for r in results] == ["applied", "rejected"]
    with session(service.engine) as db:
        game = db.get(Game, 1)
        assert game is not None and game.status == "running"
        assert [a.command for a in db.exec(select(GmAction))] == ["pause", "resume"]
    _stored_state_is_the_moves(service)


def test_a_mail_with_a_line_that_raises_in_a_batch_beside_other_mails(
    tmp_path: Path, crash: None
) -> None:
    """Each mail of an inbound batch is a savepoint of the batch's transaction, and each of
    its lines a savepoint inside it: the line alone is undone, the batch goes on."""
    service = local_service(tmp_path, inbound_batch=10)
    _new_game(service)
    _new_game(service, first=CY, second="dee@example.test")
    mails = take_mail(service)
    ann = [m for m in mails if m["To"] == ANN][-1]
    cy = [m for m in mails if m["To"] == CY][-1]
    bob_first = reply_to(ann, "1\ncrash")
    new = service.settings.inbox_dir / "new"
    MaildirInbox(service.settings.inbox_dir)
    for n, raw in enumerate([reply_to(cy, "status"), bob_first, reply_to(cy, "1")]):
        (new / f"{time.time_ns()}.{n:03}").write_bytes(raw)
    assert read_mail(service, later(1)) == 3
    assert list(new.iterdir()) == []
    with session(service.engine) as db:
        rows = db.exec(select(Move.game_id, Move.choice).order_by(col(Move.id)))
        assert list(rows) == [(1, "place Tonga a"), (2, "place Tonga a")]
        outcomes = [i.outcome for i in db.exec(select(Inbound).order_by(col(Inbound.id)))]
        assert outcomes == ["answered", "rejected", "applied"]
    _stored_state_is_the_moves(service, 1)
    _stored_state_is_the_moves(service, 2)
    (copy,) = _quarantined(service)
    assert copy.raw == bob_first
    # the next poll reads nothing again
    assert read_mail(service, later(2)) == 0


def test_a_stranger_or_an_autoresponder_with_a_failing_line_reaches_no_line(
    tmp_path: Path, crash: None
) -> None:
    """The lines run only for the seat's own address, and never for automatic mail: neither
    a stranger nor an autoresponder can fill the host's quarantine with copies."""
    service = local_service(tmp_path)
    _new_game(service)
    prompt = _latest(take_mail(service), ANN)
    before = _rows(service)
    stranger = reply_to(prompt, "1\ncrash", sender="eve@example.test")
    assert handle(service, stranger, later(1)) == "refused"
    automatic = reply_to(prompt, "1\ncrash", Auto_Submitted="auto-replied")
    assert handle(service, automatic, later(2)) == "ignored"
    assert _rows(service) == before and _quarantined(service) == []
    assert [m["To"] for m in take_mail(service)] == [ANN]  # told of the other sender, once


CRASHING_POLL = """
import sys
from pbem.commands.registry import Command
from pbem.commands.player import PLAYER_COMMANDS

def crash(round, argument):
    round.table.game.deadline_seconds = 60
    raise IsADirectoryError(21, "Is a directory")

CRASH = Command("crash", "crash", "", crash)
PLAYER_COMMANDS.commands += (CRASH,)
PLAYER_COMMANDS.by_name["crash"] = CRASH
from pbem.host.cli import app
app()
"""


@pytest.mark.slow  # one kill mid-poll per path by default: test_reading_hostile, test_mail_loop
def test_a_poll_killed_mid_batch_of_mails_with_failing_lines_acts_on_each_once(
    tmp_path: Path, crash: None
) -> None:
    """kill -9 in the middle: a mail's kept lines, its copy in the quarantine and its record
    are committed together or not at all; the next poll takes each mail once."""
    service = local_service(tmp_path, inbound_batch=2)
    games = 6
    new = service.settings.inbox_dir / "new"
    MaildirInbox(service.settings.inbox_dir)
    for game in range(1, games + 1):
        _new_game(service)
        prompt = _latest(take_mail(service), ANN)
        for n in range(2):  # the mail and its replay (a new Message-ID, the same lines)
            (new / f"{time.time_ns()}.{game:02}{n}").write_bytes(reply_to(prompt, "1\ncrash"))
    command = poll_command(service, tmp_path, later(5))
    command = [sys.executable, "-c", CRASHING_POLL, *command[1:]]
    database = service.settings.database_path
    killed_at = killed_mid_batch(command, database)
    assert 0 < killed_at < 2 * games, "the kill did not land in the middle of the poll"
    read_mail(service, later(6))  # the next poll, as the service restarted would make it
    assert handled(database) == 2 * games
    with session(service.engine) as db:
        for game in range(1, games + 1):
            moves = db.exec(select(Move.choice).where(Move.game_id == game))
            assert list(moves) == ["place Tonga a"], game
            found = db.get(Game, game)
            assert found is not None and found.deadline_seconds == 48 * 3600
        outcomes = [i.outcome for i in db.exec(select(Inbound))]
    assert sorted(outcomes) == ["ignored"] * games + ["rejected"] * games
    assert len(_quarantined(service)) == games  # one copy a mail; the replays made none
    for game in range(1, games + 1):
        _stored_state_is_the_moves(service, game)


# -- every command of every registry, with generated arguments ---------------------------

REGISTRIES: dict[str, Commands] = {
    "player": PLAYER_COMMANDS,
    "resigned": RESIGNED_COMMANDS,
    "observer": OBSERVER_COMMANDS,
    "quiet observer": QUIET_OBSERVER_COMMANDS,
    "game master": GM_COMMANDS,
}
EVERY_COMMAND = [
    pytest.param(kind, command.name, id=f"{kind}: {command.name}")
    for kind, registry in REGISTRIES.items()
    for command in (*registry, *([registry.other] if registry.other else []))
]
TRICKY = [
    "",
    "0",
    "1",
    "-1",
    "2",
    "99",
    "999999999",
    "99999999999d",
    "10**30h",
    "1" + "0" * 30 + "h",
    "3650d",
    "3651d",
    "6h",
    "1d12h",
    "off",
    "back",
    "confirm",
    "²",
    "٣",
    "Ⅻ",
    "1.5",
    "nan",
    "inf",
    "Europe",
    "Etc",
    "Etc/GMT+5",
    "Europe/Berlin",
    "../x",
    "/etc/passwd",
    "C:\\x",
    "x" * 290,
    "x\x00y",
    "\u202e",
    "utc",
    "it",
    "he",
    "italiano",
    "xx",
    "all",
    "turns",
    "digest",
    "talk",
    "now",
    "later",
    "all-games",
    "red",
    "blue",
    "green",
    "r",
    "Ann",
    "Olga",
    "greedy",
    "expert",
    "random",
    "eve@example.test",
    "ann@example.test",
    "olga@example.test",
    "a@b",
    "@",
    "<x@y>",
    "place",
    "Tonga",
    "a",
    "b",
    "expand",
    "sail",
    "pass",
    "Fiji",
    "a,c",
    "1)",
    "2) place Tonga b",
    "place Tonga b",
    "place Tonga c",
    "expand Samoa a,c",
    "land Fiji a:B",
    "9" * 40,
]
ARGUMENTS = st.one_of(
    st.sampled_from(TRICKY),
    st.lists(st.sampled_from(TRICKY), min_size=2, max_size=4).map(" ".join),
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.tuples(st.integers(min_value=0, max_value=10**35), st.sampled_from("dhms")).map(
        lambda pair: f"{pair[0]}{pair[1]}"
    ),
    st.text(max_size=30),
    st.text(alphabet=st.characters(codec="ascii"), max_size=30),
)


VALUES = st.one_of(
    st.sampled_from(TRICKY),
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.tuples(st.integers(min_value=0, max_value=10**35), st.sampled_from("dhms")).map(
        lambda pair: f"{pair[0]}{pair[1]}"
    ),
    st.text(alphabet=st.characters(categories=("Nd", "No", "Nl")), min_size=1, max_size=3),
    st.text(max_size=12),
)


def _arguments(command: Command) -> st.SearchStrategy[str]:
    """Arguments laid out as the command's syntax says ('mail all|turns|digest [HOUR]'):
    in each place one of its words or any value, an optional place left out or not; or
    anything at all."""
    places = []
    for word in str(command.syntax).split()[len(command.name.split()) :]:
        words = [w for w in word.strip("[]").split("|") if w and not w.isupper()]
        place = st.one_of(st.sampled_from(words), VALUES) if words else VALUES
        places.append(st.one_of(place, st.just("")) if word.startswith("[") else place)
    laid_out = st.tuples(*places).map(" ".join) if places else VALUES
    return st.one_of(laid_out, ARGUMENTS)


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> tuple[Service, dict[str, Any]]:
    """A game under way (Ann's decision), with an observer who may talk and a game master,
    and Ann's second game: in a real SQLite file, which the examples never change (each runs
    in a transaction rolled back); and its rows."""
    service = local_service(tmp_path_factory.mktemp("lines"), answers_per_day=1000)
    _new_game(service)
    prompt = _latest(take_mail(service), ANN)
    assert handle(service, reply_to(prompt, "1"), later(1)) == "applied"
    bob = _latest(take_mail(service), BOB)
    assert handle(service, reply_to(bob, "1"), later(2)) == "applied"
    _new_game(service, second=CY)
    take_mail(service)
    return service, _rows(service)


def _round(db: Session, service: Service, kind: str, now: datetime) -> Round:
    table = service.table(db, 1, now)
    seat = table.seats[0] if kind == "player" else table.seats[1]
    if kind == "game master":
        leaving = partial(envelope, table, leaving=True)
        return Round(table, GM, None, None, opened=table.game.decision, address_leaving=leaving)
    if kind.endswith("observer"):
        watcher = table.observers[0]
        tag = Tag(1, -1, table.game.decision, "x")
        return Round(table, OLGA, None, tag, opened=table.game.decision, observer=watcher)
    tag = Tag(1, seat.seat, table.game.decision, "x")
    return Round(table, seat.address or "", seat, tag, opened=table.game.decision)


def _in_memory(round: Round) -> tuple[object, ...]:
    table = round.table
    return (
        list(table.state.log),
        [o.name for o in table.observers],
        round.announced,
        round.events,
        round.talk,
        round.welcome,
        round.watchers,
        round.farewells,
        round.moves,
    )


@pytest.mark.parametrize(("kind", "name"), EVERY_COMMAND)
def test_every_command_with_any_argument_is_done_or_refused_never_fails(
    game: tuple[Service, dict[str, Any]], kind: str, name: str
) -> None:
    """A line made of the command and generated words, run on the game by the registry of
    the sender (as a mail's lines are): done or refused, never a fault; refused, it changed
    nothing. A command that only looks reads no argument (a line with more after its name
    is read as another command or a move): a few examples do for it."""
    _any_argument(game, kind, name, examples=8)


@pytest.mark.slow  # the same with six times the examples
@pytest.mark.parametrize(("kind", "name"), EVERY_COMMAND)
def test_every_command_with_many_arguments_is_done_or_refused_never_fails(
    game: tuple[Service, dict[str, Any]], kind: str, name: str
) -> None:
    _any_argument(game, kind, name, examples=48)


def _any_argument(
    game: tuple[Service, dict[str, Any]], kind: str, name: str, examples: int
) -> None:
    """`examples` lines of the command `name` of `kind`'s registry (a command that only
    looks: 3) with generated arguments, each run and rolled back."""
    service, before = game
    registry = REGISTRIES[kind]
    other = registry.other
    command = other if other is not None and name == other.name else registry.by_name[name]
    now = later(10)

    @settings(
        max_examples=3 if command.looks else examples,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(argument=_arguments(command))
    def run(argument: str) -> None:
        line = argument if command is registry.other else f"{name} {argument}"
        line = " ".join(line.split())[:300] or "(nothing)"  # as `command_lines` reads lines
        with session(service.engine) as db:
            round = _round(db, service, kind, now)
            unchanged = _in_memory(round)
            run_lines(round, [line], registry)
            assert round.table.faults == [], (line, round.table.faults)
            (result,) = round.results
            if result.outcome == "rejected":  # a refused line changed nothing
                assert _in_memory(round) == unchanged, line
                db.flush()
                assert _rows_in(db) == before, line
            db.rollback()

    run()


def test_the_line_that_failed_is_told_in_the_senders_language(tmp_path: Path, crash: None) -> None:
    service = local_service(tmp_path)
    seats = [SeatSpec("Ann", ANN, "red", lang="it"), SeatSpec("Bob", BOB, "blue")]
    service.new_game(seats, seed=4, now=START)
    prompt = _latest(take_mail(service), ANN)
    assert handle(service, reply_to(prompt, "1\ncrash"), later(1)) == "rejected"
    said = flat(text_of(_latest(take_mail(service), ANN)))
    assert "crash" in said and "il servizio ha avuto un guasto su questa riga" in said, said
    assert _moves(service) == ["place Tonga a"]
