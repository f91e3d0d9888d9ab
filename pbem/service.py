"""Games played by mail: creating a game, handling a reply, playing bot seats; the mails
they cause are made by `pbem.mailing`.

Every change happens in one transaction together with the inbound message that caused it
and the mails it causes, so a crash loses nothing and repeats nothing.
"""

from __future__ import annotations

import email
import hashlib
import json
import logging
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import Message
from email.policy import default as default_policy
from email.utils import parseaddr
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from engine import Choice, ChoiceError, Setup, SetupError, State, parse_choice
from engine.bots import BOT_KINDS, make_bot
from engine.colours import COLOURS
from engine.events import Event
from pbem import letters
from pbem.addressing import GM_SEAT, Tag, find_tag, token_ok
from pbem.automatic import automatic_reason
from pbem.clock import (
    DurationError,
    as_utc,
    format_duration,
    next_wake,
    utc_now,
)
from pbem.clock import parse_duration as _parse_duration
from pbem.config import Settings
from pbem.db import session
from pbem.headers import header_text
from pbem.mailing import Mailer
from pbem.models import Game, Inbound, Move, Seat
from pbem.replytext import reply_text
from pbem.view import Answer, LineResult, when

log = logging.getLogger("pbem")

META_COMMANDS = ("help", "board", "status", "log")
SEAT_COMMANDS = ("vacation", "tz")  # a player's settings, at any time
MAX_LINES = 30
ADDRESS = re.compile(r"^[^@\s:,]+@[^@\s:,]+$")


class GameError(ValueError):
    """A game that cannot be created as asked; nothing was created."""


@dataclass(frozen=True)
class SeatSpec:
    name: str
    address: str | None  # None for a bot
    colour: str | None = None
    bot: str | None = None


def parse_duration(text: str) -> int:
    """Seconds in '48h', '2d', '90m', '1d12h', '3600s'; GameError when it is none."""
    try:
        return _parse_duration(text)
    except DurationError as error:
        raise GameError(str(error)) from error


class Service:
    """The game service over one database."""

    def __init__(self, engine: Engine, settings: Settings) -> None:
        self.engine = engine
        self.settings = settings
        self.mail = Mailer(settings)
        # game id -> (the snapshot text it was saved as, the state): a cache of the database,
        # valid only while the stored snapshot is that same text
        self._states: dict[int, tuple[str, State]] = {}

    # -- creating a game -----------------------------------------------------------------

    def new_game(
        self,
        specs: Sequence[SeatSpec],
        *,
        seed: int | None = None,
        stack: Sequence[str] | None = None,
        deadline: str | None = None,
        gm: str | None = None,
        now: datetime,
    ) -> int:
        """Create a game, play its bot seats up to the first human decision, queue the mails."""
        now = as_utc(now)
        seats = _check_seats(specs)
        colours = [s.colour for s in seats]
        try:
            if stack:
                setup = Setup.from_names(colours, list(stack))  # type: ignore[arg-type]
            else:
                seed = secrets.randbelow(2**31) if seed is None else seed
                setup = Setup.from_seed(colours, seed)  # type: ignore[arg-type]
        except SetupError as error:
            raise GameError(str(error)) from error
        seconds = parse_duration(deadline or self.settings.default_deadline)
        if seconds < 60:
            raise GameError("The time per decision must be at least a minute.")
        if gm is not None and not ADDRESS.match(gm):
            raise GameError(f"{gm!r} is not a mail address.")
        with session(self.engine) as db:
            game = Game(
                created_at=now,
                colours=",".join(setup.colours),
                stack=",".join(setup.stack),
                seed=None if stack else seed,
                deadline_seconds=seconds,
                gm_address=gm,
                gm_secret=secrets.token_hex(16),
            )
            db.add(game)
            db.flush()
            assert game.id is not None
            rows = [
                Seat(
                    game_id=game.id,
                    seat=index,
                    name=spec.name,
                    address=spec.address,
                    colour=spec.colour or "",
                    secret=secrets.token_hex(16),
                    bot=spec.bot,
                )
                for index, spec in enumerate(seats)
            ]
            db.add_all(rows)
            state = State(setup)
            events = self.advance(db, game, rows, state, now)
            at, picture = self.mail.moment(game, rows, state, events)
            for row in rows:
                if row.address:
                    self.mail.queue(db, game, row, letters.welcome(at, row.seat), None, now)
            decision = state.decision
            if decision is not None and rows[decision.seat].address:
                seat = rows[decision.seat]
                prompt = letters.letter(at, seat.seat, deadline=self.mail.deadline_view(game, seat))
                self.mail.queue(db, game, seat, prompt, picture, now)
            self.mail.queue_gm(  # the game's own game master and the host's, if any
                db,
                game,
                rows,
                state,
                now,
                subject=f"You are the game master of game {game.id}",
                notice=f"You are the game master of game {game.id}. Reply to this mail "
                "(or to any later mail of this game to you) with the commands below.",
            )
            db.commit()
            log.info(
                "game %s created: %s", game.id, ", ".join(f"{r.name} ({r.colour})" for r in rows)
            )
            return game.id

    # -- reading ---------------------------------------------------------------------------

    def game(self, db: Session, game_id: int) -> tuple[Game, list[Seat], State]:
        game = db.get(Game, game_id)
        if game is None:
            raise GameError(f"There is no game {game_id}.")
        seats = list(db.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat))))
        return game, seats, self._state(db, game)

    def _state(self, db: Session, game: Game) -> State:
        cached = self._states.get(game.id or 0)
        if cached is not None and game.snapshot is not None and cached[0] == game.snapshot:
            return cached[1].copy()
        if game.snapshot:
            data = json.loads(game.snapshot)
            if len(data["log"]) + 1 == game.decision:
                return State.from_json(data)
        setup = Setup(tuple(game.colours.split(",")), tuple(game.stack.split(",")))
        moves = db.exec(select(Move).where(Move.game_id == game.id).order_by(col(Move.number)))
        return State.replay(setup, [parse_choice(m.choice) for m in moves])

    def log(self, db: Session, game: Game, seats: Sequence[Seat]) -> list[tuple[int, str, str]]:
        moves = db.exec(select(Move).where(Move.game_id == game.id).order_by(col(Move.number)))
        return [(m.number, seats[m.seat].name, m.choice) for m in moves]

    def log_text(self, db: Session, game: Game, seats: Sequence[Seat]) -> str:
        moves = self.log(db, game, seats)
        return "\n".join(f"{number:>4}  {who:<12} {choice}" for number, who, choice in moves)

    # -- handling a reply ------------------------------------------------------------------

    def handle(self, raw: bytes, now: datetime) -> str:
        """Handle one inbound message exactly once; returns its outcome, and logs it."""
        now = as_utc(now)
        message = email.message_from_bytes(raw, policy=default_policy)
        message_id = header_text(message, "Message-ID").strip()[:300]
        if not message_id:
            message_id = f"<sha256-{hashlib.sha256(raw).hexdigest()}@tongiaki>"
        sender = parseaddr(header_text(message, "From"))[1].lower()
        tag = find_tag(message)
        with session(self.engine) as db:
            if db.exec(select(Inbound).where(Inbound.message_id == message_id)).first():
                log.info("message %s: duplicate, handled before", message_id)
                return "duplicate"
            inbound = Inbound(message_id=message_id, sender=sender, received_at=now, outcome="")
            db.add(inbound)
            db.flush()
            try:
                done = self._handle(db, message, sender, tag, inbound, now)
            except (SQLAlchemyError, OSError):
                raise  # the database or the host failed, not the mail: it is tried again
            except Exception as error:  # a mail the service cannot read must not block the rest
                log.exception("message from %s could not be read", sender or "(no sender)")
                db.rollback()
                db.add(inbound)
                done = "ignored", f"could not be read: {type(error).__name__}"
            inbound.outcome, inbound.detail = done
            db.commit()
        where = f"game {tag.game} {tag.seat_label} decision {tag.decision}" if tag else "no tag"
        log.info("message %s (%s): %s: %s", inbound.id, where, inbound.outcome, inbound.detail)
        return inbound.outcome

    def _handle(
        self,
        db: Session,
        message: Message,
        sender: str,
        tag: Tag | None,
        inbound: Inbound,
        now: datetime,
    ) -> tuple[str, str]:
        reason = automatic_reason(message, self.settings.from_address)
        if reason:
            return "ignored", reason
        game = db.get(Game, tag.game) if tag else None
        if tag is None or game is None:
            self._answer_untagged(db, sender, now)
            return "refused", "no game tag" if tag is None else f"no game {tag.game}"
        inbound.game_id = game.id
        game, seats, state = self.game(db, tag.game)
        if tag.seat == GM_SEAT:
            return self._handle_gm(db, message, game, seats, state, sender, tag, now)
        if not 0 <= tag.seat < len(seats) or not token_ok(seats[tag.seat].secret, tag):
            self._answer_stranger(db, game, seats, state, sender, "invalid", now)
            return "refused", "bad token"
        seat = seats[tag.seat]
        if sender != (seat.address or "").lower():
            self._answer_stranger(db, game, seats, state, sender, "not yours", now)
            return "refused", f"sender is not the address of {seat.label}"
        lines = self.command_lines(message)
        return self._apply_lines(db, game, seats, state, seat, tag, lines, inbound, now)

    def command_lines(self, message: Message) -> list[str]:
        """The lines of the new text of a reply, without what the mail client quoted."""
        text = reply_text(
            message,
            own_addresses=[self.settings.from_address],
            own_names=[self.settings.from_name],
        )
        lines = [line.strip() for line in text.replace("\r\n", "\n").split("\n")]
        return [line for line in lines if line][:MAX_LINES]

    def _handle_gm(
        self,
        db: Session,
        message: Message,
        game: Game,
        seats: list[Seat],
        state: State,
        sender: str,
        tag: Tag,
        now: datetime,
    ) -> tuple[str, str]:
        """A reply to a game master's mail: checked like a player's, then run as GM commands."""
        from pbem.gm import GameMaster  # the game master's commands use this service

        allowed = self.mail.gm_addresses(game)
        if sender not in allowed or not token_ok(game.gm_secret, tag):
            if sender in allowed:  # the GM, with a reply address that is not valid
                self.mail.queue_gm(
                    db,
                    game,
                    seats,
                    state,
                    now,
                    subject="Not applied: wrong reply address",
                    notice="Your mail was not applied: its reply address is not valid. "
                    "Reply to the latest mail the game sent you.",
                    to=[sender],
                )
            return "refused", "bad game master token" if sender in allowed else "not a GM"
        lines = self.command_lines(message)
        results, _ = GameMaster(self).run(db, game, lines, actor=sender, now=now, answering=tag)
        outcome = (
            "rejected"
            if any(r.outcome == "rejected" for r in results)
            else "applied"
            if any(r.outcome == "applied" for r in results)
            else "answered"
        )
        return outcome, _told(results)

    def _apply_lines(
        self,
        db: Session,
        game: Game,
        seats: list[Seat],
        state: State,
        seat: Seat,
        tag: Tag,
        lines: list[str],
        inbound: Inbound,
        now: datetime,
    ) -> tuple[str, str]:
        results: list[LineResult] = []
        answers: list[Answer] = []
        announced: list[str] = []
        show_board = False
        events: list[Event] = []
        first = True
        failed = False
        if not lines:
            results.append(LineResult("(nothing)", "rejected", "no command found in your reply"))
            failed = True
        for line in lines:
            if failed:
                results.append(LineResult(line, "ignored", "after a rejected line"))
                continue
            meta = line.lower().strip(" .!")
            verb = meta.split(" ", 1)[0]
            if meta in META_COMMANDS:
                if meta == "board":
                    show_board = True
                else:
                    answers.append(self._meta(db, game, seats, state, meta))
                results.append(LineResult(line, "answered"))
                continue
            try:
                if verb in SEAT_COMMANDS:
                    detail, told = self._seat_command(game, seats, state, seat, line, now)
                    results.append(LineResult(line, "applied", detail))
                    announced += told
                    continue
                choice = self._read_line(game, state, seat, tag, line, first)
                applied = state.apply(choice)
            except ChoiceError as error:
                results.append(LineResult(line, "rejected", str(error)))
                failed = True
                continue
            self.record(db, game, state, seat.seat, "mail", inbound.id, now)
            results.append(LineResult(line, "applied", str(state.log[-1])))
            events += applied
            seat.auto_moves = 0
            events += self._play_bots(db, game, seats, state, now)
            first = False
        moved = not first
        if seat.absent and any(r.outcome in ("applied", "answered") for r in results):
            seat.absent = False
            seat.auto_moves = 0
            announced.insert(0, f"{seat.name} ({seat.colour}) is back and plays again.")
        if moved:
            self.save(game, seats, state, now)
        self.mail.queue_round(
            db,
            game,
            seats,
            state,
            events if moved else [],
            now,
            sender=seat,
            answers=answers,
            results=results,
            show_board=show_board,
            announced=announced,
        )
        outcome = "rejected" if failed else "applied" if moved else "answered"
        return outcome, _told(results)

    def _read_line(
        self, game: Game, state: State, seat: Seat, tag: Tag, line: str, first: bool
    ) -> Choice:
        decision = state.decision
        if decision is None or game.status == "over":
            raise ChoiceError("The game is over.")
        if game.status == "paused":
            raise ChoiceError(
                "The game master has paused the game: no move can be made until it resumes."
            )
        mine = decision.seat == seat.seat
        if first and tag.decision != decision.number:
            now_open = "yours: the options are below" if mine else f"{decision.colour}'s"
            raise ChoiceError(
                f"This answers decision {tag.decision}, which is past; "
                f"decision {decision.number} is {now_open}."
            )
        if not mine:
            raise ChoiceError(
                f"It is not your decision now (decision {decision.number} is {decision.colour}'s)."
            )
        return read_choice(state, line, numbers=first)

    def _seat_command(
        self, game: Game, seats: list[Seat], state: State, seat: Seat, line: str, now: datetime
    ) -> tuple[str, list[str]]:
        """`vacation DURATION` or `tz ZONE`: what was done, and what everyone is told."""
        verb, _, argument = line.strip().partition(" ")
        argument = argument.strip().rstrip(".")
        if verb.lower() == "tz":
            if argument.lower() in ("utc", "off", "none", ""):
                seat.tz = None
                return "your deadlines are shown in UTC only", []
            zone = _time_zone(argument)
            seat.tz = zone
            return f"your deadlines are shown in {zone} (and in UTC)", []
        return self._vacation(game, seats, state, seat, argument, now)

    def _vacation(
        self, game: Game, seats: list[Seat], state: State, seat: Seat, text: str, now: datetime
    ) -> tuple[str, list[str]]:
        try:
            seconds = _parse_duration(text)
        except DurationError as error:
            raise ChoiceError(f"{error} Write it as: vacation 3d.") from error
        allowance = _parse_duration(self.settings.vacation_allowance)
        left = allowance - seat.vacation_used
        if not 0 < seconds <= left:
            raise ChoiceError(
                f"You have {format_duration(max(left, 0))} of vacation left in this game "
                f"(of {format_duration(allowance)}); ask for at most that much."
            )
        if game.status == "over":
            raise ChoiceError("The game is over.")
        start = max(now, as_utc(seat.away_until)) if seat.away_until else now
        seat.away_until = start + timedelta(seconds=seconds)
        seat.vacation_used += seconds
        decision = state.decision
        if decision is not None and decision.seat == seat.seat and game.deadline_at is not None:
            self.shift_clock(game, seconds, now)
        back = when(seat.away_until)
        left_after = format_duration(allowance - seat.vacation_used)
        return (
            f"you are away until {back}; your deadlines wait until then "
            f"({left_after} of vacation left)",
            [f"{seat.name} ({seat.colour}) is on vacation until {back}: their deadlines wait."],
        )

    def _meta(self, db: Session, game: Game, seats: list[Seat], state: State, what: str) -> Answer:
        if what == "help":
            return Answer("help")
        if what == "log":
            return Answer("log", self.log_text(db, game, seats))
        status = self.mail.moment(game, seats, state)[0].waiting
        if game.deadline_at is not None and game.status == "running":
            status += f" The deadline is {when(as_utc(game.deadline_at))}."
        return Answer("status", status)

    def _answer_untagged(self, db: Session, sender: str, now: datetime) -> None:
        """A registered player wrote without a valid game tag: say so in each running game."""
        query = select(Seat).join(Game).where(col(Game.status).in_(("running", "paused")))
        for seat in db.exec(query):
            if seat.address and seat.address.lower() == sender:
                game, seats, state = self.game(db, seat.game_id)
                self._answer_stranger(db, game, seats, state, sender, "invalid", now)

    def _answer_stranger(
        self,
        db: Session,
        game: Game,
        seats: list[Seat],
        state: State,
        sender: str,
        why: str,
        now: datetime,
    ) -> None:
        """Explain a refused reply, but only to an address registered in this game."""
        for seat in seats:
            if seat.address and seat.address.lower() == sender:
                notice = (
                    "Its reply address was made for another player's seat or is not valid."
                    if why == "not yours"
                    else "Its reply address is not valid."
                ) + " Reply to the latest mail the game sent you."
                at, picture = self.mail.moment(game, seats, state)
                mail = letters.letter(
                    at,
                    seat.seat,
                    notice=notice,
                    news=False,
                    show_board=False,
                    deadline=self.mail.deadline_view(game, seat),
                )
                self.mail.queue(db, game, seat, mail, picture, now)
                return

    # -- moves, bots and snapshots ---------------------------------------------------------

    def record(
        self,
        db: Session,
        game: Game,
        state: State,
        seat: int,
        source: str,
        inbound_id: int | None,
        now: datetime,
    ) -> None:
        """Log the choice `seat` just made (the last one in the state's log)."""
        assert game.id is not None
        db.add(
            Move(
                game_id=game.id,
                number=len(state.log),
                seat=seat,
                choice=str(state.log[-1]),
                source=source,
                inbound_id=inbound_id,
                created_at=now,
            )
        )

    def advance(
        self, db: Session, game: Game, seats: list[Seat], state: State, now: datetime
    ) -> list[Event]:
        """After a change: bots and absent seats play up to a person's decision, the game is
        saved, and the clock of a new decision starts."""
        events = self._play_bots(db, game, seats, state, now)
        self.save(game, seats, state, now)
        return events

    def _play_bots(
        self, db: Session, game: Game, seats: list[Seat], state: State, now: datetime
    ) -> list[Event]:
        """Bot seats play without waiting, and so do absent players' seats (by the greedy bot)
        while someone who is not absent still plays: when every player is absent, their
        decisions wait for their deadlines, so the game does not run to its end at once."""
        events: list[Event] = []
        if game.status != "running":
            return events
        present = any(not s.bot and not s.absent for s in seats)
        while (decision := state.decision) is not None:
            seat = seats[decision.seat]
            if not seat.bot and not (seat.absent and present):
                break
            events += state.apply(bot_choice(game, state, seat.bot or "greedy"))
            self.record(db, game, state, decision.seat, "bot" if seat.bot else "absent", None, now)
        return events

    def save(self, game: Game, seats: Sequence[Seat], state: State, now: datetime) -> None:
        """Store the state; a decision that is new (or has no clock) gets its clock started."""
        number = len(state.log) + 1
        fresh = number != game.decision or game.deadline_at is None
        game.decision = number
        game.snapshot = json.dumps(state.to_json())
        if game.status != "paused" and not game.ended_by:
            game.status = "over" if state.decision is None else "running"
        self._states[game.id or 0] = (game.snapshot, state.copy())
        if fresh or game.status == "over":
            self.start_clock(game, seats, state, now)

    # -- the clock of the open decision ------------------------------------------------------

    def start_clock(self, game: Game, seats: Sequence[Seat], state: State, now: datetime) -> None:
        """The open decision's time starts now, or when its player is back from vacation."""
        decision = state.decision
        game.reminded_at = None
        if decision is None or game.status == "over":
            game.clock_from = game.deadline_at = game.wake_at = None
            game.paused_left = None
            return
        seat = seats[decision.seat]
        window = game.deadline_seconds or _parse_duration(self.settings.default_deadline)
        away = as_utc(seat.away_until) if seat.away_until else None
        start = max(now, away) if away else now
        game.clock_from = start
        game.deadline_at = start + timedelta(seconds=window)
        if game.status == "paused":
            game.paused_left = int((game.deadline_at - now).total_seconds())
            game.wake_at = None
        else:
            game.wake_at = self.wake(game, now)

    def wake(self, game: Game, now: datetime) -> datetime | None:
        """When the game next needs the service: a reminder or the deadline."""
        if game.deadline_at is None or game.clock_from is None or game.status != "running":
            return None
        reminded = as_utc(game.reminded_at) if game.reminded_at else None
        return next_wake(
            as_utc(game.clock_from),
            as_utc(game.deadline_at),
            reminded,
            self.settings.reminders,
            now,
        )

    def shift_clock(self, game: Game, seconds: int, now: datetime) -> None:
        """Move the open decision's deadline (and its reminders) `seconds` later."""
        if game.deadline_at is None or game.clock_from is None:
            return
        shift = timedelta(seconds=seconds)
        game.deadline_at = as_utc(game.deadline_at) + shift
        game.clock_from = as_utc(game.clock_from) + shift
        if game.reminded_at is not None:
            game.reminded_at = as_utc(game.reminded_at) + shift
        if game.status == "paused":
            game.paused_left = (game.paused_left or 0) + seconds
        game.wake_at = self.wake(game, now)

def _told(results: Sequence[LineResult]) -> str:
    """What the lines of a mail came to, for the log and the inbound row."""
    said = [
        f"{r.line} -> {r.outcome}" + (f" ({r.detail})" if r.detail and r.detail != r.line else "")
        for r in results
    ]
    return "; ".join(said)[:500]


def read_choice(state: State, line: str, *, numbers: bool, may_pass: bool = False) -> Choice:
    """The choice a line names: the number of a listed option (when `numbers`), or a command;
    `pass` (the house rule of a missed deadline) only when `may_pass`."""
    if line.strip().rstrip(").").isdigit():
        if not numbers:
            raise ChoiceError(
                "A number only picks from the options of the mail you answer; "
                "for the decisions after it, write the command itself."
            )
        number = int(line.strip().rstrip(")."))
        legal = state.legal_choices()
        if not 1 <= number <= len(legal):
            raise ChoiceError(f"There is no option {number}; the options are 1-{len(legal)}.")
        return legal[number - 1]
    choice = parse_choice(line)
    if str(choice) == "pass" and not may_pass:
        raise ChoiceError(
            "A turn is passed only by the game when its deadline passes; choose a move."
        )
    return choice


def bot_choice(game: Game, state: State, kind: str) -> Choice:
    """What a bot of `kind` chooses for the open decision: the same for the same game and
    decision, so that a bot's moves can be told and checked."""
    assert state.decision is not None
    seed = (game.seed or 0) * 1_000_003 + (game.id or 0) * 7919 + state.decision.number
    return make_bot(kind, seed).choose(state)


def _time_zone(text: str) -> str:
    """The canonical name of a time zone ('europe/berlin' -> 'Europe/Berlin')."""
    candidates = [text, "/".join(part[:1].upper() + part[1:] for part in text.split("/"))]
    for name in candidates:
        try:
            ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            continue
        return name
    raise ChoiceError(
        f"{text!r} is not a time zone. Write it as in tz Europe/Berlin or tz America/New_York."
    )


def _check_seats(specs: Sequence[SeatSpec]) -> list[SeatSpec]:
    """Seats with colours filled in; raises GameError for anything that cannot be a game."""
    if not 2 <= len(specs) <= 6:
        raise GameError(f"A game needs 2 to 6 seats, not {len(specs)}.")
    addresses = [s.address.lower() for s in specs if s.address]
    if not addresses:
        raise GameError("A game needs a player: bots alone would play it to the end at once.")
    if len(set(addresses)) != len(addresses):
        raise GameError("Two seats have the same address.")
    for spec in specs:
        if spec.address is not None and not ADDRESS.match(spec.address):
            raise GameError(f"{spec.address!r} is not a mail address.")
        if spec.bot is not None and spec.bot not in BOT_KINDS:
            raise GameError(f"Unknown bot {spec.bot!r}; the bots are {', '.join(BOT_KINDS)}.")
        if spec.colour is not None and spec.colour not in COLOURS:
            raise GameError(
                f"Unknown colour {spec.colour!r}; the colours are {', '.join(COLOURS)}."
            )
        if not spec.name.strip():
            raise GameError("Every seat needs a name.")
    taken = [s.colour for s in specs if s.colour]
    if len(set(taken)) != len(taken):
        raise GameError("Two seats have the same colour.")
    free = iter(c for c in COLOURS if c not in taken)
    return [SeatSpec(s.name, s.address, s.colour or next(free), s.bot) for s in specs]


__all__ = [
    "GameError",
    "SeatSpec",
    "Service",
    "bot_choice",
    "parse_duration",
    "read_choice",
    "utc_now",
    "when",
]
