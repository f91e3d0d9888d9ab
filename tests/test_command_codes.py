"""The stable codes of the refusals of players' and observers' commands (as the game master's
have theirs, tests/test_gm_words.py): every refusal in `pbem/commands/` names its code, the
codes are the table below (kebab-case English, the same in every language), and each is
given by some mail through the service's door, in the answer's `X-Tongiaki-Refused` header,
with nothing of the game changed."""

from __future__ import annotations

import ast
import re
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select

from engine import ChoiceError, Message, Setup, State
from pbem.commands.gm import every_observer
from pbem.commands.player import INVITED_COMMANDS, PLAYER_COMMANDS, read_choice
from pbem.commands.rounds import run_round
from pbem.flow.deadlines import send_held, tick
from pbem.flow.gm import GameMaster
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.store.db import session
from pbem.store.models import INVITATION_DAYS, MAX_OBSERVERS, Game, Move, Seat, Talk
from pbem.views.i18n import words
from pbem.views.view import numbered
from tests.support.localmail import START, local_service, reply_to, take_mail, text_of
from tests.test_gm_words import CODES as GM_WORDS_CODES

ANN, BOB, GM, CARL = "ann@example.test", "bob@example.test", "gm@example.test", "carl@example.test"
HOUR = timedelta(hours=1)
COMMANDS = Path(__file__).resolve().parents[1] / "pbem" / "commands"

# Every code of a refusal of a player's or an observer's command, and what it means. A code
# is kept once a host's filter or script may read it: change none, add new ones here.
PLAYER_CODES = {
    "unknown-command": "the line names no command and is no move",
    "empty": "no command in the mail",
    "no-seat": "no seat of that number, colour or player",
    "colour-not-playing": "nobody plays that colour",
    "not-digits": "an option's number not in digits 0-9",
    "no-option": "no option of that number",
    "number-past": "a number for a decision after the one the mail asked",
    "no-pass": "a turn is passed only by the clock",
    "option-differs": "an option's number and a different command on one line",
    "one-option": "an option's number with more than its command",
    "not-your-decision": "the open decision is another seat's",
    "decision-past": "the mail answers a decision that is past",
    "paused": "the game master paused the game",
    "game-over": "the game is over",
    "resign-form": "resign followed by anything but confirm",
    "nothing-to-confirm": "confirm with no resign before it",
    "resigned": "the player left the game",
    "unknown-language": "lang names no language of the game",
    "unknown-zone": "tz names no time zone",
    "not-on-vacation": "vacation off when not away",
    "bad-duration": "a duration the game does not read",
    "vacation-too-short": "a vacation shorter than the shortest",
    "vacation-left": "more vacation than is left",
    "digest-hour": "the digest's hour not 0-23",
    "mail-form": "mail followed by no choice it knows",
    "say-nothing": "say or tell with nothing to say",
    "tell-form": "tell without a seat and a text",
    "own-seat": "tell to the sender's own seat",
    "not-reading": "tell to a seat no player reads",
    "talk-limit": "the table talk of a day said",
    "talk-off": "the host keeps no table talk",
    "observers-watch": "an observer says something in a game whose observers only watch",
    "watch-form": "watch with something after it",
    "watching-already": "watch from someone who watches",
    "reply-too-old": "a reply address that no longer acts (taken back, or closed long ago)",
}
# the game master's own (tests/test_gm_words.py, tests/test_gm.py, tests/test_observer_consent.py
# give them); a code the players share with the game master means the same for both
GM_CODES = {
    "paused-already",
    "not-paused",
    "no-deadline",
    "too-long",
    "too-short",
    "not-their-decision",
    "no-choice",
    "stale-decision",
    "undo-count",
    "ended-by-game-master",
    "undo-too-many",
    "replace-form",
    "bad-address",
    "has-a-seat",
    "unknown-bot",
    "no-player",
    "plays-already",
    "no-argument",
    "no-own-game-master",
    "host-game-master",
    "mail-used",
    "observe-form",
    "in-the-game",
    "declined",
    "observers-full",
    "invited-already",
    "said-stop",
    "invitation-lapsed",
    "invitation-withdrawn",
    "no-observer",
    "game-over",
    "unknown-language",
    "bad-duration",
}
# ... of which tests/test_gm_words.py gives these (CODES, `lang`, the command line's)
_GIVEN_BY_GM_WORDS = {code for _, code in GM_WORDS_CODES} | {
    "host-game-master",
    "unknown-language",
    "paused-already",
}
FAULT = "fault"  # a line that failed by a fault of ours (tests/test_poison.py), no refusal


def _codes_in_source() -> dict[str, set[str]]:
    """Every code a refusal in pbem/commands/ is raised with, by module; fails on a refusal
    raised without a code written out."""
    found: dict[str, set[str]] = {}
    for path in sorted(COMMANDS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            name = node.func.id
            if name == "CommandError":
                (code,) = [k.value for k in node.keywords if k.arg == "code"] or [None]
            elif name in ("GmError", "_refused"):
                code = node.args[0]
            elif name == "ChoiceError" and not isinstance(node.args[0], ast.Name):
                pytest.fail(f"{path.name}:{node.lineno}: a ChoiceError without a code of its own")
            elif name == "LineResult" and _rejected(node):
                (code,) = [k.value for k in node.keywords if k.arg == "code"] or [None]
                if isinstance(code, ast.Attribute):  # a refusal's own: `error.code`
                    continue
            else:
                continue
            assert code is not None, f"{path.name}:{node.lineno}: {name} without a code"
            # "talk-limit" if limit else "talk-off"
            codes = [code.body, code.orelse] if isinstance(code, ast.IfExp) else [code]
            for each in codes:
                assert isinstance(each, ast.Constant), f"{path.name}:{node.lineno}: {name}"
                found.setdefault(str(each.value), set()).add(path.stem)
    return found


def _rejected(node: ast.Call) -> bool:
    """Whether a `LineResult(...)` is a refused line's."""
    outcome = node.args[1] if len(node.args) > 1 else None
    return isinstance(outcome, ast.Attribute) and outcome.attr == "REJECTED"


def test_every_refusal_names_a_code_of_the_table() -> None:
    found = _codes_in_source()
    wrong = [c for c in found if not re.fullmatch(r"[a-z]+(-[a-z]+)*", c)]
    assert wrong == []  # kebab-case English
    assert set(found) - {FAULT, "empty"} <= set(PLAYER_CODES) | GM_CODES
    # every code of the table is raised somewhere ("empty" by run_lines)
    assert set(PLAYER_CODES) | GM_CODES <= set(found) | {"empty"}
    # the players' refusals are those of their commands' modules
    players = {"player", "settings", "talk", "registry"}
    assert {c for c, where in found.items() if where & players} - {FAULT} <= set(PLAYER_CODES)


class Table1:
    """Game 1 (Ann red, Bob blue, a game master) through the door, and the newest mail each
    address got."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.latest: dict[str, EmailMessage] = {}
        self.hours = 0.0
        self.seen: set[str] = set()  # the codes given so far
        seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")]
        service.new_game(seats, seed=4, deadline_seconds=48 * 3600, gm=GM, now=START)
        self.mail()

    def mail(self) -> list[EmailMessage]:
        mails = take_mail(self.service)
        for mail in mails:
            self.latest[str(mail["To"])] = mail
        return mails

    def write(self, sender: str, body: str, *, to: EmailMessage | None = None) -> str:
        """`sender` replies with `body` to `to`, else to the newest mail they got."""
        self.hours += 0.25
        now = START + self.hours * HOUR
        outcome = handle(
            self.service, reply_to(to or self.latest[sender], body, sender=sender), now
        )
        send_held(self.service, now)
        return outcome

    def refused(self, sender: str, body: str, code: str, *, to: EmailMessage | None = None) -> None:
        """`sender`'s `body` (a reply to `to`, else to their newest mail) is refused with
        `code`, in the answer's header, and changes nothing of the game."""
        before = self.state()
        assert self.write(sender, body, to=to) == "rejected", body
        mails = self.mail()
        (answer,) = [m for m in mails if m["To"] == sender]
        assert answer["X-Tongiaki-Refused"] == code, (body, answer["X-Tongiaki-Refused"])
        # the refusal is the writer's own: nobody else's mail names it
        assert [m["To"] for m in mails if m["X-Tongiaki-Refused"] and m is not answer] == []
        assert self.state() == before, body
        self.seen.add(code)

    def unanswered(self, sender: str, body: str, code: str) -> None:
        """`sender`, invited to watch, writes `body`: refused and left unanswered (nobody
        mails someone who has not accepted); the same line run on the game gives `code`."""
        before = self.state()
        assert self.write(sender, body) == "rejected", body
        assert [m for m in self.mail() if m["To"] == sender] == []
        assert self.state() == before, body
        with session(self.service.engine) as db:
            table = self.service.table(db, 1, START + self.hours * HOUR)
            (invited,) = [o for o in every_observer(table) if o.address == sender]
            round = run_round(table, INVITED_COMMANDS, [body], actor=sender, observer=invited)
            assert [r.code for r in round.results] == [code]
            db.rollback()
        self.seen.add(code)

    def done(self, sender: str, body: str, outcome: str = "applied") -> None:
        assert self.write(sender, body) == outcome, body
        answers = [m for m in self.mail() if m["To"] == sender]
        assert all(m["X-Tongiaki-Refused"] is None for m in answers), body

    def state(self) -> dict[str, Any]:
        """The game's rows, as a refused line leaves them."""
        with session(self.service.engine) as db:
            game = db.get(Game, 1)
            assert game is not None
            seats = db.exec(select(Seat).where(Seat.game_id == 1).order_by(col(Seat.seat)))
            return {
                "game": game.model_dump(),
                "seats": [s.model_dump(exclude={"talk_seen"}) for s in seats],
                "moves": len(db.exec(select(Move)).all()),
                "talk": len(db.exec(select(Talk)).all()),
            }


def _option(prompt: EmailMessage, number: int) -> str:
    """The command of option `number` as the prompt lists it."""
    found = re.search(rf"^\s*{number}\) (.+)$", text_of(prompt), re.MULTILINE)
    assert found is not None
    return found.group(1).strip()


@pytest.fixture
def service(tmp_path: Path) -> Service:
    return local_service(tmp_path, answers_per_day=1000, talk_per_day=1)


def test_each_refusal_of_a_player_or_observer_has_its_code(service: Service) -> None:
    table = Table1(service)
    first = table.latest[ANN]  # the prompt of decision 1, Ann's
    for body, code in [
        ("frobnicate", "unknown-command"),
        ("", "empty"),
        ("tell purple hello", "colour-not-playing"),
        ("tell 7 hello", "no-seat"),
        ("\u2460", "not-digits"),
        ("99", "no-option"),
        ("pass", "no-pass"),
        ("1 frobnicate", "one-option"),
        (f"1) {_option(first, 2)}", "option-differs"),
        ("resign now", "resign-form"),
        ("confirm", "nothing-to-confirm"),
        ("lang xx", "unknown-language"),
        ("tz Mars/Base", "unknown-zone"),
        ("vacation off", "not-on-vacation"),
        ("vacation soon", "bad-duration"),
        ("vacation 1h", "vacation-too-short"),
        ("vacation 30d", "vacation-left"),
        ("mail digest 25", "digest-hour"),
        ("mail lots", "mail-form"),
        ("say", "say-nothing"),
        ("tell blue", "tell-form"),
        ("tell red hello", "own-seat"),
    ]:
        table.refused(ANN, body, code)
    table.refused(BOB, _option(first, 1), "not-your-decision")

    table.done(ANN, _option(first, 1))  # decision 1; then an answer to its prompt again
    table.latest[ANN] = first
    bob = table.latest[BOB]  # the prompt of decision 2, Bob's
    table.refused(ANN, _option(first, 2), "decision-past")
    table.mail()
    table.done(ANN, "status", "answered")  # Ann's newest mail again

    table.done(ANN, "say Good luck!")
    table.refused(ANN, "say Once more", "talk-limit")  # talk_per_day is 1

    table.done(GM, f"observe {CARL} Carl")  # an invitation: Carl watches once he accepts
    table.unanswered(CARL, "watch please", "watch-form")
    table.done(CARL, "watch")
    table.refused(CARL, "say Hello all", "observers-watch")  # this game's observers watch
    # "watch" alone again is the replay of the mail that accepted: left unread
    table.refused(CARL, "status\nwatch", "watching-already")

    table.done(GM, "pause")
    table.latest[BOB] = bob
    table.refused(BOB, _option(bob, 1), "paused")
    table.done(GM, "resume")

    table.done(GM, "kick blue")  # a bot plays blue: nobody reads its mail
    table.refused(ANN, "tell blue hello", "not-reading")
    table.done(ANN, "resign confirm")
    table.refused(ANN, "vacation 2d", "resigned")

    assert table.seen == set(PLAYER_CODES) - {
        "number-past",
        "talk-off",
        "game-over",
        "reply-too-old",
    }


def test_a_reply_address_that_no_longer_acts_has_its_code(tmp_path: Path) -> None:
    table = Table1(local_service(tmp_path, answers_per_day=1000, token_lifetime="1h"))
    first = table.latest[ANN]
    table.done(ANN, _option(first, 1))  # decision 1 closes
    table.hours += 2  # more than the reply address's lifetime after it closed
    table.refused(ANN, "status", "reply-too-old", to=first)


def test_the_codes_of_a_game_over_and_of_talk_kept_off(tmp_path: Path) -> None:
    table = Table1(local_service(tmp_path, answers_per_day=1000, talk_per_day=0))
    table.refused(ANN, "say hello", "talk-off")
    table.done(GM, "end")
    table.refused(ANN, "vacation 2d", "game-over")
    assert table.seen == {"talk-off", "game-over"}


def test_a_number_for_a_later_decision_has_its_code() -> None:
    """Within one mail, a decision after the one it answers is made by its command: a
    number there is refused (the number of a decision the mail did not list)."""
    state = State(Setup.from_seed(("red", "blue"), 4))
    with pytest.raises(ChoiceError) as refused:
        read_choice(state, "1", numbers=False)
    assert refused.value.code == "number-past"
    assert read_choice(state, "1", numbers=True) == numbered(state.legal_choices())[0]


def _host(service: Service, game: int, lines: list[str], hours: float) -> list[str]:
    """The codes of the results of `lines` from the host's command line (`pbem gm`)."""
    results, _ = GameMaster(service).run_host(game, lines, START + hours * HOUR)
    return [r.code for r in results]


def test_the_game_masters_codes_no_other_test_gives(tmp_path: Path) -> None:
    """The game master's refusals with a code that tests/test_gm_words.py does not list."""
    service = local_service(tmp_path, answers_per_day=1000)
    table = Table1(service)
    welcome, prompt = table.latest[GM], table.latest[ANN]
    table.done(ANN, _option(prompt, 1))  # decision 2 is open, Bob's
    table.refused(GM, "move blue 1", "stale-decision", to=welcome)
    used = table.latest[GM]
    table.done(GM, "pause")  # a change by that mail: its reply address is used now
    table.refused(GM, "resume", "mail-used", to=used)
    assert _host(service, 1, ["resume"], 1) == [""]
    seen = {"mail-used", "stale-decision"}

    for lines, codes in [
        (["kick blue", "human blue"], ["", "no-player"]),
        ([f"observe {CARL}", f"observe {CARL}"], ["", "invited-already"]),
        ([f"unobserve {CARL}", f"observe {CARL}"], ["", "invitation-withdrawn"]),
        (["end", "undo 1"], ["", "ended-by-game-master"]),
        (["pause"], ["game-over"]),
    ]:
        assert _host(service, 1, lines, 2) == codes, lines
        seen.add(codes[-1])

    # game 2, without a game master of its own; Dan said stop to an invitation there
    dan, eve = "dan@example.test", "eve@example.test"
    service.new_game([SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")], now=START)
    assert _host(service, 2, ["lang it"], 3) == ["no-own-game-master"]
    assert _host(service, 2, [f"observe {dan}", f"observe {eve}"], 3) == ["", ""]
    table.mail()
    table.done(dan, "stop")
    assert _host(service, 2, [f"observe {dan}"], 4) == ["said-stop"]
    seen |= {"no-own-game-master", "said-stop"}
    tick(service, START + timedelta(days=INVITATION_DAYS, hours=4))  # Eve never answered
    assert _host(service, 2, [f"observe {eve}"], 24 * INVITATION_DAYS + 5) == ["invitation-lapsed"]
    # game 3: Dan said stop to game 2's invitation, and no game master asks him again
    service.new_game([SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")], now=START)
    others = [f"observe watcher{n}@example.test" for n in range(MAX_OBSERVERS)]
    assert _host(service, 3, [f"observe {dan}"], 200) == ["declined"]
    assert _host(service, 3, [*others, f"observe {CARL}"], 200)[-1] == "observers-full"
    seen |= {"invitation-lapsed", "declined", "observers-full"}
    # no-deadline: `extend` in a game its last move ended while it was paused, given by no mail
    assert seen == GM_CODES - _GIVEN_BY_GM_WORDS - {"no-deadline"}


@pytest.mark.parametrize("lang", ["it", "he"])
def test_a_players_code_is_the_same_in_any_language(tmp_path: Path, lang: str) -> None:
    """A player who reads another language, writing that language's word for a command,
    gets the refusal in their words and the same code."""
    service = local_service(tmp_path, answers_per_day=1000)
    table = Table1(service)
    table.done(ANN, f"lang {lang}")
    table.mail()
    word = dict(PLAYER_COMMANDS.by_name["vacation"].words)[lang]
    table.refused(ANN, f"{word} off", "not-on-vacation")
    assert table.seen == {"not-on-vacation"}
    text = " ".join(text_of(table.latest[ANN]).split())
    said = words(lang).say(Message("You are not on vacation."))
    assert said != "You are not on vacation." and said in text
