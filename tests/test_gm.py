"""The game master's commands, given on the host's command line (`pbem gm GAME ...`) and by
mail (a reply to a game master's mail): what each changes in the database, who is told,
what is refused, and `undo` across a tile draw.

Most tests run twice, through the `table` fixture: once by the command line (typer's
CliRunner, with `--now` for simulated time, on a config file naming the same database) and
once by mail (`Service.handle` of a reply to the newest mail the game master got).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select
from typer.testing import CliRunner

from engine import State, Termination, parse_choice, tile_words
from pbem.core.clock import as_utc
from pbem.core.config import settings_toml
from pbem.flow.deadlines import send_held, tick
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.host.cli import app
from pbem.store.db import open_database, session
from pbem.store.models import Game, GmAction, Inbound, Move, Seat
from pbem.views.export import game_record_html
from tests.support.localmail import START, local_service, parse, reply_to, take_raw, text_of

ANN, BOB, DAN, GM = "ann@example.test", "bob@example.test", "dan@example.test", "gm@example.test"
BOSS = "boss@example.test"  # a game master of every game on this host (`gm_addresses`)
EVE = "eve@example.test"  # nobody in the game
HOUR = timedelta(hours=1)
MINUTE = timedelta(minutes=1)
PLAYERS = (ANN, BOB)
SET_UP = [(ANN, "place Tonga a"), (BOB, "place Tonga a"), (ANN, "place Tonga c"), (BOB, "place c")]

runner = CliRunner()
# the positions `Table.start` and `Table.play` reached in this process: (the position before,
# the step) -> the database file and the newest mail to each address after it
_POSITIONS: dict[tuple[bytes, tuple[object, ...]], tuple[bytes, dict[str, bytes]]] = {}


def flat(text: str) -> str:
    """Text with its line breaks and runs of spaces made single spaces."""
    return " ".join(text.split())


@dataclass
class Done:
    """What one game master command came to."""

    outcome: str  # applied | rejected | answered | refused
    said: str  # what the game master reads back: the command line's output, or their mail
    mails: list[EmailMessage]  # every mail it queued

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.mails if m["To"] == address]


@dataclass
class Table:
    """One game (Ann red, Bob blue, seed 4, 48 h) whose game master acts by `how`."""

    service: Service
    config: Path
    how: str  # cli | mail
    latest: dict[str, EmailMessage] = field(default_factory=dict)  # the newest mail to each
    raw: dict[str, bytes] = field(default_factory=dict)  # the same as sent

    @property
    def actor(self) -> str:
        """Who the game master's actions are logged as."""
        return GM if self.how == "mail" else "host"

    def start(self, *, bot: str | None = None, seed: int | None = 4) -> None:
        seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")]
        if bot:
            seats.append(SeatSpec("Cy", None, "green", bot=bot))

        def deal() -> None:
            self.service.new_game(seats, seed=seed, deadline_seconds=48 * 3600, gm=GM, now=START)
            self.mail()

        if seed is None:  # a new shuffle each time
            deal()
        else:
            self._step(("start", bot, seed), deal)

    def mail(self) -> list[EmailMessage]:
        """The mails queued since the last look, noting the newest one to each address."""
        raws = take_raw(self.service)
        mails = [parse(raw) for raw in raws]
        for raw, mail in zip(raws, mails, strict=True):
            self.latest[str(mail["To"])] = mail
            self.raw[str(mail["To"])] = raw
        return mails

    def _step(self, step: tuple[object, ...], take: Callable[[], None]) -> None:
        """Take `step` (`take` does it), unless a test before this one in this process took
        it from the same position (the database and the newest mails): then this table is put
        where that step led, a copy of its database and newest mails (dealing and playing the
        same opening again cost a fifth of this file's time)."""
        path = self.service.settings.database_path
        if self.service.settings.on_postgres:  # tests/test_postgres.py: no file to copy
            take()
            return
        self.service.engine.dispose()  # its last connection closed: the file holds it all
        if Path(f"{path}-wal").exists():  # another connection is open (none should be)
            take()
            return
        newest = b"".join(to.encode() + raw for to, raw in sorted(self.raw.items()))
        before = (hashlib.sha256(path.read_bytes() + newest).digest(), step)
        if before not in _POSITIONS:
            take()
            self.service.engine.dispose()
            if not Path(f"{path}-wal").exists():
                _POSITIONS[before] = (path.read_bytes(), dict(self.raw))
            return
        database, raw = _POSITIONS[before]
        path.write_bytes(database)
        self.service = Service(open_database(path), self.service.settings)
        self.raw = dict(raw)
        self.latest = {to: parse(mail) for to, mail in raw.items()}

    def gm(self, command: str, at: datetime, *, sender: str = GM) -> Done:
        """The game master gives `command`: on the command line, or in a reply (from
        `sender`) to the newest mail the game master got."""
        if self.how == "cli":
            args = ["gm", "1", *command.split(), "--now", at.isoformat()]
            result = runner.invoke(app, [*args, "--config", str(self.config)])
            assert result.exit_code in (0, 2), result.output
            outcome = (
                "rejected"
                if result.exit_code
                else "applied"
                if result.stdout.startswith("applied:")
                else "answered"
            )
            return Done(outcome, result.stdout, self.mail())
        outcome = handle(self.service, reply_to(self.latest[GM], command, sender=sender), at)
        send_held(self.service, at)  # the poll's quiet changes, as the clock sends them
        mails = self.mail()
        said = [text_of(m) for m in mails if m["To"] == sender]
        return Done(outcome, flat(said[0]) if said else "", mails)

    def reply(self, address: str, line: str, at: datetime) -> str:
        """A player answers the newest mail they got."""
        outcome = handle(self.service, reply_to(self.latest[address], line), at)
        send_held(self.service, at)
        self.mail()
        return outcome

    def play(self, at: datetime, lines: list[tuple[str, str]] = SET_UP) -> None:
        def replies() -> None:
            for minute, (address, line) in enumerate(lines):
                assert self.reply(address, line, at + timedelta(minutes=minute)) == "applied"

        self._step(("play", at, tuple(lines)), replies)


def _table(tmp_path: Path, how: str) -> Table:
    service = local_service(tmp_path, gm_addresses=(BOSS,), answers_per_day=100)
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(service.settings))  # the command line's: the same database
    return Table(service, config, how)


@pytest.fixture(params=["cli", "mail"])
def table(request: pytest.FixtureRequest, tmp_path: Path) -> Table:
    return _table(tmp_path, request.param)


@pytest.fixture
def by_mail(tmp_path: Path) -> Table:
    return _table(tmp_path, "mail")


@pytest.fixture
def by_cli(tmp_path: Path) -> Table:
    return _table(tmp_path, "cli")


def _game(service: Service) -> Game:
    with session(service.engine) as db:
        game = db.get(Game, 1)
        assert game is not None
        return game


def _utc(moment: datetime | None) -> datetime:
    assert moment is not None
    return as_utc(moment)


def _seats(service: Service) -> list[Seat]:
    with session(service.engine) as db:
        return list(db.exec(select(Seat).order_by(col(Seat.seat))))


def _state(service: Service) -> State:
    with session(service.engine) as db:
        return service.table(db, 1, START).state


def _moves(service: Service) -> list[tuple[int, int, str, str]]:
    with session(service.engine) as db:
        rows = db.exec(select(Move).order_by(col(Move.number)))
        return [(m.number, m.seat, m.choice, m.source) for m in rows]


def _actions(service: Service) -> list[tuple[str, str, str]]:
    with session(service.engine) as db:
        rows = db.exec(select(GmAction).order_by(col(GmAction.id)))
        return [(a.actor, a.command, a.detail) for a in rows]


def _rows(service: Service) -> dict[str, list[dict[str, Any]]]:
    """Everything a game master command may change: the game, its seats, moves and actions."""
    with session(service.engine) as db:
        return {
            "game": [g.model_dump() for g in db.exec(select(Game))],
            "seats": [s.model_dump() for s in db.exec(select(Seat).order_by(col(Seat.id)))],
            "moves": [m.model_dump() for m in db.exec(select(Move).order_by(col(Move.id)))],
            "actions": [a.model_dump() for a in db.exec(select(GmAction))],
        }


def _subject(mail: EmailMessage) -> str:
    return str(mail["Subject"]).removeprefix("[Tongiaki g1] ")


def _applied(
    table: Table,
    done: Done,
    command: str,
    detail: str,
    announced: str,
    players: tuple[str, ...] = PLAYERS,
) -> None:
    """`command` was applied with `detail` and logged with its actor; `announced` went in one
    mail to each of `players`; the game master got one mail (by mail: the results of their
    commands; from the host: what the host did)."""
    assert done.outcome == "applied", done.said
    assert f"applied: {detail}" in done.said
    assert _actions(table.service)[-1] == (table.actor, command, detail)
    for address in players:
        told = [flat(text_of(m)) for m in done.to(address)]
        assert len(told) == 1 and announced in told[0], (address, told)
    gm = done.to(GM)
    assert len(gm) == 1
    if table.how == "mail":
        assert _subject(gm[0]) == "Done: " + command.split()[0]
    else:
        assert _subject(gm[0]) == "The host acted as game master"
        assert f"WHAT HAPPENED - {announced}" in flat(text_of(gm[0]))


def _ticks(service: Service, start: datetime, end: datetime) -> int:
    """Tick every 3 hours from `start` to `end` (both included); the automatic moves made."""
    made, at = 0, start
    while at <= end:
        made += tick(service, at).automatic
        at += 3 * HOUR
    return made


# -- every command, by the command line and by mail ---------------------------------------


def test_pause_stops_the_clock_and_resume_gives_the_time_left_back(table: Table) -> None:
    table.start()
    done = table.gm("pause", START + HOUR)
    _applied(
        table,
        done,
        "pause",
        "paused with 1d 23h left for the open decision",
        "The game master paused the game: no move can be made and no deadline runs until it "
        "resumes.",
    )
    game = _game(table.service)
    assert (game.status, game.paused_left, game.wake_at) == ("paused", 47 * 3600, None)
    assert "paused the game at decision 1, Ann's (red)" in flat(text_of(done.to(BOB)[0]))
    paused = done.to(ANN)[0]  # Ann's decision is open, but she cannot move: no prompt
    assert paused["X-Tongiaki-Kind"] == "update" and paused["X-Tongiaki-Decision"] is None
    assert "paused the game at decision 1, Ann's (red)" in flat(text_of(paused))
    assert table.reply(ANN, "status", START + 90 * MINUTE) == "answered"
    assert _subject(table.latest[ANN]) == "Your answer: status"
    assert table.latest[ANN]["X-Tongiaki-Decision"] is None

    assert _ticks(table.service, START + 2 * HOUR, START + 101 * HOUR) == 0  # no deadline runs
    assert table.reply(ANN, "place Tonga a", START + 102 * HOUR) == "rejected"
    assert _moves(table.service) == []

    done = table.gm("resume", START + 103 * HOUR)
    _applied(
        table,
        done,
        "resume",
        "resumed; the deadline is Sun 29 Nov 2026, 15:00 UTC",  # 103 h + the 47 h left
        "The game master resumed the game; the deadline is Sun 29 Nov 2026, 15:00 UTC.",
    )
    game = _game(table.service)
    assert (game.status, game.paused_left) == ("running", None)
    assert _utc(game.deadline_at) == START + 150 * HOUR
    assert [_subject(m) for m in done.to(ANN)] == [
        "Your move: place a set-up boat on Tonga (decision 1)"
    ]
    assert _ticks(table.service, START + 104 * HOUR, START + 149 * HOUR) == 0
    assert tick(table.service, START + 150 * HOUR).automatic == 1
    assert _moves(table.service) == [(1, 0, "place Tonga a", "auto")]
    assert [a[:2] for a in _actions(table.service)] == [
        (table.actor, "pause"),
        (table.actor, "resume"),
    ]


def test_extend_moves_the_open_deadline_later(table: Table) -> None:
    table.start()
    done = table.gm("extend 1d", START + HOUR)
    _applied(
        table,
        done,
        "extend 1d",
        "the deadline of decision 1 is now Thu 26 Nov 2026, 09:00 UTC",
        "The game master gave decision 1 1 day more: its deadline is now Thu 26 Nov 2026, "
        "09:00 UTC.",
    )
    game = _game(table.service)
    assert _utc(game.deadline_at) == START + 72 * HOUR
    assert _utc(game.clock_from) == START + 24 * HOUR  # the reminders move with it
    assert "Deadline: Thu 26 Nov 2026, 09:00 UTC" in text_of(done.to(ANN)[0])
    assert _ticks(table.service, START + 3 * HOUR, START + 69 * HOUR) == 0  # not at 48 h
    assert tick(table.service, START + 72 * HOUR).automatic == 1


def test_undo_gives_the_reopened_decision_its_extended_deadline_back(table: Table) -> None:
    table.start()
    table.gm("extend 1d", START + HOUR)  # decision 1: due at 72 h
    assert table.reply(ANN, "place Tonga a", START + 2 * HOUR) == "applied"
    table.gm("status", START + 3 * HOUR)  # by mail, `undo` answers the decision open now
    table.gm("undo 1", START + 3 * HOUR)
    game = _game(table.service)
    assert game.decision == 1
    assert _utc(game.deadline_at) == START + 72 * HOUR  # not a fresh 48 h from the undo
    assert _utc(game.clock_from) == START + 24 * HOUR  # its reminders as they were
    assert "Deadline: Thu 26 Nov 2026, 09:00 UTC" in text_of(table.latest[ANN])
    assert _ticks(table.service, START + 4 * HOUR, START + 69 * HOUR) == 0
    assert tick(table.service, START + 72 * HOUR).automatic == 1


def test_undo_after_the_old_deadline_gives_the_time_that_was_left(table: Table) -> None:
    table.start()
    table.gm("extend 1d", START + HOUR)  # decision 1: due at 72 h
    assert table.reply(ANN, "place Tonga a", START + 2 * HOUR) == "applied"  # 70 h left
    table.gm("status", START + 80 * HOUR)
    table.gm("undo 1", START + 80 * HOUR)  # the deadline of 72 h has passed
    game = _game(table.service)
    assert game.decision == 1 and _utc(game.deadline_at) == START + 150 * HOUR
    assert tick(table.service, START + 81 * HOUR).automatic == 0


def test_deadline_sets_the_time_of_each_decision_from_the_next_one_on(table: Table) -> None:
    table.start()
    done = table.gm("deadline 24h", START + HOUR)
    _applied(
        table,
        done,
        "deadline 24h",
        "each decision from the next one on has 1d",
        "The game master set the time per decision to 1 day, from the next decision on.",
    )
    game = _game(table.service)
    assert game.deadline_seconds == 24 * 3600
    assert _utc(game.deadline_at) == START + 48 * HOUR  # the open decision keeps its time
    assert table.reply(ANN, "place Tonga a", START + 2 * HOUR) == "applied"
    assert _utc(_game(table.service).deadline_at) == START + 26 * HOUR


@pytest.mark.parametrize(
    ("seat", "choice"),
    [("red", "place Tonga b"), ("1", "2"), ("R", "place tonga B"), ("ann", "place b")],
)
def test_move_decides_for_the_seat_whose_decision_is_open(
    table: Table, seat: str, choice: str
) -> None:
    """A seat by its colour, number, letter or player; a choice by its option number too."""
    table.start()
    command = f"move {seat} {choice}"
    done = table.gm(command, START + HOUR)
    _applied(
        table,
        done,
        command,
        "decision 1: place Tonga b",
        "The game master decided for Ann (red): place Tonga b.",
    )
    assert _moves(table.service) == [(1, 0, "place Tonga b", "gm")]
    game = _game(table.service)
    assert game.decision == 2 and _utc(game.deadline_at) == START + 49 * HOUR
    assert _subject(done.to(BOB)[0]) == "Your move: place a set-up boat on Tonga (decision 2)"
    assert table.reply(BOB, "place Tonga b", START + 2 * HOUR) == "applied"


def test_undo_across_a_tile_draw_gives_back_the_earlier_state_exactly(table: Table) -> None:
    table.start()
    table.play(START)
    before = _state(table.service)
    assert before.decision is not None and before.decision.number == 5
    stack = before.stack_left
    # Ann's turn: a new colonisation draws the top tile of the stack for her to place
    at = START + HOUR
    assert table.reply(ANN, "colonise", at) == "applied"
    drawn = _state(table.service)
    assert drawn.tile == stack[0] and drawn.stack_left == stack[1:]
    while len(_moves(table.service)) < 9:  # on past the draw, through Bob's turn
        decision = _state(table.service).decision
        assert decision is not None
        at += HOUR
        assert table.reply(PLAYERS[decision.seat], "1", at) == "applied"
    later = _state(table.service)
    assert later.stack_left != stack and later.decision is not None
    taken_back = len(later.log) - 4

    at += HOUR
    table.gm("status", at)  # by mail, `undo` answers a mail about the decision open now
    done = table.gm(f"undo {taken_back}", at)
    _applied(
        table,
        done,
        f"undo {taken_back}",
        "back at decision 5",
        f"The game master took back the last {taken_back} decisions: decision 5, Ann's "
        "(red), is open again.",
    )
    state = _state(table.service)
    assert state.to_json() == before.to_json()
    assert state.stack_left == stack and state.tile is None
    game = _game(table.service)
    assert json.loads(game.snapshot or "") == before.to_json()
    assert game.stack == ",".join(before.setup.stack)
    assert [m[2] for m in _moves(table.service)] == [
        "place Tonga a",
        "place Tonga a",
        "place Tonga c",
        "place Tonga c",
    ]
    assert State.replay(before.setup, [parse_choice(m[2]) for m in _moves(table.service)]) == before
    # decision 5 has its deadline as it was (it opened after the set-up's four minutes)
    assert game.decision == 5 and _utc(game.deadline_at) == START + 3 * MINUTE + 48 * HOUR
    prompt = done.to(ANN)[0]
    assert prompt["X-Tongiaki-Decision"] == "5 turn"

    # the game goes on from there: the same tile is drawn again, and Ann places it
    assert table.reply(ANN, "colonise", at + HOUR) == "applied"
    again = _state(table.service)
    assert again.tile == stack[0] and again.stack_left == stack[1:]
    assert table.latest[ANN]["X-Tongiaki-Decision"] == "6 put tile"
    asked = f"Your move: place tile {tile_words(stack[0])} (decision 6)"
    assert _subject(table.latest[ANN]) == asked
    assert _moves(table.service)[-1] == (5, 0, "colonise", "mail")


def test_undo_to_a_bots_decision_has_the_bot_make_it_again_and_says_so(table: Table) -> None:
    table.start(bot="greedy")
    table.play(START, [(ANN, "place Tonga a"), (BOB, "place Tonga b")])
    moves = _moves(table.service)
    assert [m[3] for m in moves] == ["mail", "mail", "bot"]  # Cy (green) is the greedy bot

    table.gm("status", START + HOUR)
    done = table.gm("undo 1", START + HOUR)
    same = (
        "decision 4, Ann's (red), is open: the bots made the decision again the same way, so "
        "nothing changed"
    )
    _applied(
        table,
        done,
        "undo 1",
        f"back at decision 3; {same}",
        f"The game master took back the last decision: {same}.",
    )
    # the bot's move, made again as before, is not told again as news
    assert all("Green put" not in flat(text_of(m)) for m in done.to(ANN) + done.to(BOB))
    assert _moves(table.service) == moves
    assert _game(table.service).decision == 4

    table.gm("status", START + 2 * HOUR)
    done = table.gm("undo 2", START + 2 * HOUR)
    _applied(
        table,
        done,
        "undo 2",
        "back at decision 2",
        "The game master took back the last 2 decisions: decision 2, Bob's (blue), is open again.",
    )
    assert _moves(table.service) == moves[:1]
    assert done.to(BOB)[0]["X-Tongiaki-Decision"] == "2 setup"


def test_undo_in_a_game_without_a_seed_has_its_random_bot_choose_the_same_again(
    table: Table,
) -> None:
    """A game shuffled with the system's randomness has no seed: its bots' seeds come from
    its secret, the same for the same decision, so `undo` replays them as they were."""
    table.start(bot="random", seed=None)
    assert _game(table.service).seed is None
    table.play(START, [(ANN, "place Tonga a"), (BOB, "place Tonga b")])
    moves = _moves(table.service)
    assert [m[3] for m in moves] == ["mail", "mail", "bot"]
    state = _state(table.service)
    table.gm("status", START + HOUR)
    done = table.gm("undo 1", START + HOUR)
    assert done.outcome == "applied"
    assert "the bots made the decision again the same way" in flat(done.said)
    assert _moves(table.service) == moves
    assert _state(table.service).to_json() == state.to_json()


def test_replace_hands_the_seat_to_a_new_player_and_the_old_one_leaves(table: Table) -> None:
    table.start()
    old = _seats(table.service)[0]
    prompt = table.latest[ANN]  # Ann's prompt for decision 1
    command = f"replace red {DAN} Dan"
    done = table.gm(command, START + HOUR)
    _applied(
        table,
        done,
        command,
        "seat 1 (red) is Dan's now",
        "The game master handed seat 1 (red) to Dan.",
        (BOB,),  # Ann gets her farewell, Dan his welcome and prompt: below
    )
    seat = _seats(table.service)[0]
    assert (seat.name, seat.address, seat.colour, seat.bot) == ("Dan", DAN, "red", None)
    assert seat.secret != old.secret
    assert _utc(_game(table.service).deadline_at) == START + 49 * HOUR  # Dan's time starts
    # Ann's last mail says goodbye, and asks her nothing
    farewell = done.to(ANN)[0]
    assert _subject(farewell) == "You left game 1"
    assert farewell["X-Tongiaki-Kind"] == "update" and farewell["X-Tongiaki-Decision"] is None
    assert (
        "The game master handed your seat to another player. This is the last mail you get "
        "from this game."
    ) in flat(text_of(farewell))
    assert "place Tonga" not in text_of(farewell)
    footer = flat(text_of(farewell)).rsplit("--", 1)[1]
    assert footer.strip() == "Tongiaki game 1."  # no commands: her reply address acts no more
    assert [_subject(m) for m in done.to(DAN)] == [
        "Welcome to game 1",
        "Your move: place a set-up boat on Tonga (decision 1)",
    ]
    assert "The game master handed seat 1 (red) to Dan." in flat(text_of(done.to(DAN)[1]))
    assert table.reply(ANN, "place Tonga a", START + 2 * HOUR) == "refused"
    assert handle(table.service, reply_to(prompt, "place Tonga a"), START + 2 * HOUR) == ("refused")
    assert table.mail() == []  # Ann is nobody in this game now
    assert table.reply(DAN, "place Tonga a", START + 3 * HOUR) == "applied"
    assert _moves(table.service) == [(1, 0, "place Tonga a", "mail")]


def test_bot_plays_a_seat_until_human_gives_it_back(table: Table) -> None:
    table.start()
    done = table.gm("bot blue random", START + HOUR)
    _applied(
        table,
        done,
        "bot blue random",
        "the random bot plays blue",
        "The game master has the random bot play Bob (blue) for now.",
    )
    assert _seats(table.service)[1].bot == "random"
    assert table.reply(ANN, "place Tonga a", START + 2 * HOUR) == "applied"
    assert _moves(table.service)[1][1::2] == (1, "bot")  # Bob's decision, at once
    assert _game(table.service).decision == 3
    assert "The game master has the random bot play your seat for now." in flat(
        text_of(table.latest[BOB])
    )

    done = table.gm("human blue", START + 3 * HOUR)
    _applied(table, done, "human blue", "Bob plays blue again", "Bob (blue) plays the seat again.")
    assert _seats(table.service)[1].bot is None
    assert table.reply(ANN, "place Tonga c", START + 4 * HOUR) == "applied"
    assert len(_moves(table.service)) == 3 and _game(table.service).decision == 4  # Bob's turn

    done = table.gm("bot 2", START + 5 * HOUR)  # the greedy bot when none is named
    _applied(
        table,
        done,
        "bot 2",
        "the greedy bot plays blue",
        "The game master has the greedy bot play Bob (blue) for now.",
    )
    assert _moves(table.service)[-1][1::2] == (1, "bot")  # his open decision, at once
    assert _game(table.service).decision == 5


def test_kick_removes_the_player_for_good(table: Table) -> None:
    table.start()
    assert table.reply(ANN, "place Tonga a", START + HOUR) == "applied"
    bob = table.latest[BOB]  # his prompt for decision 2
    done = table.gm("kick bob", START + 2 * HOUR)
    _applied(
        table,
        done,
        "kick bob",
        "Bob is out; the greedy bot plays blue",
        "The game master removed Bob from the game: the greedy bot plays blue from now on.",
        (ANN,),  # Bob gets his farewell: below
    )
    seat = _seats(table.service)[1]
    assert (seat.address, seat.bot, seat.absent) == (None, "greedy", False)
    assert _moves(table.service)[1][1::2] == (1, "bot")  # the bot made Bob's open decision
    farewell = done.to(BOB)[0]
    assert _subject(farewell) == "You left game 1" and farewell["X-Tongiaki-Decision"] is None
    assert "The game master removed you from the game." in flat(text_of(farewell))
    assert _subject(done.to(ANN)[0]) == "Your move: place a set-up boat on Tonga (decision 3)"
    assert handle(table.service, reply_to(bob, "place Tonga b"), START + 3 * HOUR) == "refused"
    assert table.mail() == []
    assert len(_moves(table.service)) == 2


def test_a_removed_player_and_a_bot_are_marked_in_the_list_and_the_final_table(
    by_cli: Table,
) -> None:
    table = by_cli
    table.start(bot="greedy")
    table.gm("kick bob", START + HOUR)
    listed = runner.invoke(app, ["list", "--config", str(table.config)])
    assert listed.exit_code == 0
    assert listed.stdout.rstrip().endswith(
        "Ann (red), Bob (blue, removed: greedy bot), Cy (green, greedy bot)"
    )
    table.gm("end", START + 2 * HOUR)
    final = flat(text_of(table.latest[ANN]))
    assert "; removed by the game master, a bot played on" in final
    assert "; a bot played this seat" in final
    html = table.latest[ANN].get_body(("html",))
    assert html is not None and "removed by the game master, a bot played on" in html.get_content()


def test_end_finishes_the_game_with_the_scores_as_they_stand(table: Table) -> None:
    table.start()
    table.play(START)
    done = table.gm("end", START + HOUR)
    _applied(
        table,
        done,
        "end",
        "the game is over",
        "The game master ended the game: the scores stand as they are.",
    )
    game = _game(table.service)
    assert (game.status, game.ended_by) == ("over", table.actor)
    assert (game.deadline_at, game.clock_from, game.wake_at) == (None, None, None)
    for address in PLAYERS:
        (mail,) = done.to(address)
        assert mail["X-Tongiaki-Kind"] == "game_over"
        assert _subject(mail) == "Game over: Ann and Bob share the win"
    assert _ticks(table.service, START + 2 * HOUR, START + 100 * HOUR) == 0
    assert table.reply(ANN, "expand Tonga b,d", START + 101 * HOUR) == "rejected"
    assert "The game is over." in flat(text_of(table.latest[ANN]))
    assert len(_moves(table.service)) == 4


def test_a_game_the_game_master_ended_ends_so_in_its_outcome_and_its_record(
    by_cli: Table,
) -> None:
    by_cli.start()
    by_cli.play(START)
    with session(by_cli.service.engine) as db:
        running = by_cli.service.table(db, 1, START + HOUR)
        assert running.outcome.termination is None and not running.over
    by_cli.gm("end", START + HOUR)
    with session(by_cli.service.engine) as db:
        ended = by_cli.service.table(db, 1, START + 2 * HOUR)
        assert ended.state.decision is not None  # the rules alone would play on
        assert ended.outcome.termination is Termination.GAME_MASTER and ended.over
        assert ended.outcome.winners == ("red", "blue")
        record = game_record_html(db, 1)
    assert "Final scores" in record and "The game master ended the game." in record


@pytest.mark.parametrize(
    ("command", "answer"),
    [
        (
            "status",
            "Now waiting for Ann (red) to put a set-up boat on a beach of Tonga (decision 3). "
            "The deadline is Wed 25 Nov 2026, 09:01 UTC.",
        ),
        ("log", "1 Ann place Tonga a 2 Bob place Tonga a"),
        ("board", "Tonga (0 points)"),
        ("help", "undo N: take back the last N decisions"),
    ],
)
def test_status_log_board_and_help_answer_the_game_master_alone(
    table: Table, command: str, answer: str
) -> None:
    table.start()
    table.play(START, SET_UP[:2])
    before = _rows(table.service)
    done = table.gm(command, START + HOUR)
    assert done.outcome == "answered"
    assert answer in flat(done.said)
    assert _rows(table.service) == before
    if table.how == "mail":
        assert [(m["To"], _subject(m)) for m in done.mails] == [(GM, f"Done: {command}")]
    else:
        assert done.mails == []


# -- refusals ------------------------------------------------------------------------------

REFUSED = [
    ("frobnicate", "'frobnicate' is not a game master command. The commands: pause, resume"),
    ("move purple place Tonga b", "Nobody plays purple in this game."),
    ("kick 7", "No seat '7': name a seat by its number (1-2), its colour or its player."),
    ("replace zed x@example.test", "No seat 'zed'"),
    ("move blue place Tonga b", "Decision 3 is Ann's (red), not Bob's."),
    ("move red colonise", "'colonise' does not fit now."),
    ("move red place Samoa a", "'place Samoa a' is not allowed: Samoa is not on the board."),
    ("move red 99", "There is no option 99; the options are 1-"),
    ("move red", "Say the choice: move SEAT CHOICE"),
    ("undo 3", "Only 2 decisions were made so far."),
    ("undo all", "Say how many decisions to take back, like undo 2."),
    ("extend soon", "'soon' is not a duration"),
    ("extend 3660d", "The deadline would be more than ten years from now"),
    ("extend 99999999999d", "'99999999999d' is longer than ten years"),
    ("extend 10**30h", "'10**30h' is not a duration"),
    ("undo 999999999", "Say how many decisions to take back, like undo 2."),
    ("deadline 99999999999d", "'99999999999d' is longer than ten years"),
    ("deadline 30s", "The time per decision must be at least a minute."),
    ("resume", "The game is not paused."),
    ("pause now", "pause takes nothing after it."),
    ("human 1", "Ann (red) plays the seat already."),
    ("bot 2 clever", "Unknown bot 'clever'; the bots are random, greedy, expert."),
    ("replace 2 ann@example.test", "ann@example.test has a seat in this game already."),
    ("replace 2 nobody", "'nobody' is not a mail address."),
    ("replace 2", "Write it as: replace SEAT ADDRESS [NAME]."),
]


def _refused(table: Table, command: str, message: str, at: datetime) -> None:
    """`command` changes nothing, and the game master alone is told why."""
    before = _rows(table.service)
    done = table.gm(command, at)
    assert done.outcome == "rejected", (command, done.said)
    assert f"rejected: {message}" in done.said, (command, done.said)
    assert _rows(table.service) == before, command
    if table.how == "mail":
        assert [(m["To"], _subject(m)) for m in done.mails] == [
            (GM, "Not applied: " + command.split()[0])
        ]
    else:
        assert done.mails == []


def test_a_command_that_cannot_be_carried_out_changes_nothing(table: Table) -> None:
    table.start()
    table.play(START, SET_UP[:2])
    table.gm("status", START + HOUR)
    for minute, (command, message) in enumerate(REFUSED):
        _refused(table, command, message, START + HOUR + timedelta(minutes=minute))
    assert _actions(table.service) == []


def test_after_end_only_status_log_and_board_are_answered(table: Table) -> None:
    table.start()
    table.play(START, SET_UP[:2])
    table.gm("status", START + HOUR)
    table.gm("end", START + HOUR)
    for command in ("pause", "resume", "extend 1d", "deadline 24h", "move red place Tonga b"):
        _refused(table, command, "The game is over.", START + 2 * HOUR)
    for command in ("replace 1 dan@example.test", "bot 1 greedy", "human 1", "kick 1", "end"):
        _refused(table, command, "The game is over.", START + 2 * HOUR)
    ended = "The game master ended this game; it cannot be taken back."
    _refused(table, "undo 1", ended, START + 2 * HOUR)
    done = table.gm("status", START + 3 * HOUR)
    assert done.outcome == "answered" and "The game is over." in done.said
    assert [a[1] for a in _actions(table.service)] == ["end"]


def test_the_command_line_refuses_a_game_that_does_not_exist(by_cli: Table) -> None:
    by_cli.start()
    result = runner.invoke(app, ["gm", "7", "pause", "--config", str(by_cli.config)])
    assert result.exit_code == 2 and "There is no game 7." in result.output
    assert _game(by_cli.service).status == "running" and _actions(by_cli.service) == []


def test_a_game_master_mail_with_a_wrong_token_is_refused_and_logged_not_answered(
    by_mail: Table,
) -> None:
    by_mail.start()
    welcome = by_mail.latest[GM]
    target = str(welcome["Reply-To"])
    forged = parse(bytes(welcome))
    del forged["Reply-To"]
    forged["Reply-To"] = re.sub(r"-[a-z2-7]{10}@", "-aaaaaaaaaa@", target)
    before = _rows(by_mail.service)
    assert handle(by_mail.service, reply_to(forged, "end"), START + HOUR) == "refused"
    assert _rows(by_mail.service) == before
    assert by_mail.mail() == []  # a forger learns nothing, and no loop can start
    # a player's token does not open the game master's door either
    ann = parse(bytes(by_mail.latest[ANN]))
    assert handle(by_mail.service, reply_to(ann, "end", sender=GM), START + HOUR) == "refused"
    assert _rows(by_mail.service) == before
    # ... and Ann alone hears that a reply for her seat came from another address
    assert [(m["To"], m["X-Tongiaki-Kind"]) for m in by_mail.mail()] == [(ANN, "notice")]
    with session(by_mail.service.engine) as db:
        details = [i.detail for i in db.exec(select(Inbound).order_by(col(Inbound.id)))]
    assert details[0] == "bad game master token"


@pytest.mark.parametrize("sender", [EVE, ANN])
def test_a_game_master_mail_from_someone_else_is_refused_in_silence(
    by_mail: Table, sender: str
) -> None:
    by_mail.start()
    before = _rows(by_mail.service)
    done = by_mail.gm("end", START + HOUR, sender=sender)
    assert done.outcome == "refused" and done.mails == []
    assert _rows(by_mail.service) == before
    with session(by_mail.service.engine) as db:
        inbound = db.exec(select(Inbound)).one()
    assert (inbound.sender, inbound.detail) == (sender, "not a game master of this game")


def test_a_game_master_of_the_host_may_act_by_mail(by_mail: Table) -> None:
    by_mail.start()
    done = by_mail.gm("pause", START + HOUR, sender=BOSS)
    assert done.outcome == "applied"
    assert [_subject(m) for m in done.to(BOSS)] == ["Done: pause"]
    assert done.to(GM) == []
    assert _actions(by_mail.service)[0][:2] == (BOSS, "pause")
    assert _game(by_mail.service).status == "paused"


def test_an_empty_game_master_mail_is_rejected(by_mail: Table) -> None:
    by_mail.start()
    before = _rows(by_mail.service)
    done = by_mail.gm("", START + HOUR)
    assert done.outcome == "rejected"
    assert "> (nothing) rejected: no command found in your mail" in done.said
    assert _rows(by_mail.service) == before


def test_commands_in_one_mail_apply_in_order_until_one_fails(by_mail: Table) -> None:
    by_mail.start()
    done = by_mail.gm("pause\nfrobnicate\nresume", START + HOUR)
    assert done.outcome == "rejected"
    assert [_subject(m) for m in done.to(GM)] == ["Not applied: pause, frobnicate, resume"]
    assert "> pause applied: paused with 1d 23h left" in done.said
    assert "> frobnicate rejected: 'frobnicate' is not a game master command" in done.said
    assert "> resume ignored: after a rejected line" in done.said
    assert [a[1] for a in _actions(by_mail.service)] == ["pause"]
    assert _game(by_mail.service).status == "paused"
    for address in PLAYERS:
        assert "The game master paused the game" in flat(text_of(done.to(address)[0]))


# -- by mail, `move` and `undo` answer the decision open now ---------------------------------


def test_move_by_mail_must_answer_the_decision_open_now(by_mail: Table) -> None:
    by_mail.start()
    welcome = by_mail.latest[GM]  # about decision 1
    assert by_mail.reply(ANN, "place Tonga a", START + HOUR) == "applied"
    before = _rows(by_mail.service)
    for command in ("move blue place Tonga b", "undo 1"):
        done = by_mail.gm(command, START + 2 * HOUR)
        assert done.outcome == "rejected"
        assert (
            "Your mail answers decision 1, but the game is at decision 2 now. Look at the game "
            "below, then reply to this mail."
        ) in done.said
        assert _rows(by_mail.service) == before
        assert [m["To"] for m in done.mails] == [GM]
        by_mail.latest[GM] = welcome  # the stale mail again
    # a command that decides nothing may answer any mail of the game
    assert by_mail.gm("extend 1h", START + 3 * HOUR).outcome == "applied"
    # the newest mail answers decision 2: a move applies, and the ones after it in the mail
    done = by_mail.gm("move blue place Tonga b\nmove red place Tonga c", START + 4 * HOUR)
    assert done.outcome == "applied", done.said
    assert [m[2:] for m in _moves(by_mail.service)] == [
        ("place Tonga a", "mail"),
        ("place Tonga b", "gm"),
        ("place Tonga c", "gm"),
    ]
    done = by_mail.gm("undo 1\nmove red place Tonga d", START + 5 * HOUR)
    assert done.outcome == "applied", done.said
    assert _moves(by_mail.service)[-1] == (3, 0, "place Tonga d", "gm")
    assert _subject(done.to(BOB)[0]) == "Your move: place a set-up boat on Tonga (decision 4)"


def test_the_hosts_game_masters_are_welcomed_to_every_game_and_may_act(by_mail: Table) -> None:
    by_mail.start()
    welcomed = [
        m["To"] for m in by_mail.latest.values() if "game master of game 1" in str(m["Subject"])
    ]
    assert sorted(welcomed) == sorted([GM, BOSS])
    outcome = handle(by_mail.service, reply_to(by_mail.latest[BOSS], "pause", sender=BOSS), START)
    assert outcome == "applied"
    assert [a[:2] for a in _actions(by_mail.service)] == [(BOSS, "pause")]
