"""Games played by mail: creating a game, reading it, playing bot seats, the clock of the
open decision; replies are handled by `pbem.replies`, the mails made by `pbem.mailing`.

Every change happens in one transaction together with the inbound message that caused it
and the mails it causes, so a crash loses nothing and applies nothing twice. Mail goes out
at least once: a crash after the mail server accepted a mail and before it left the outbox
sends it again, with the same Message-ID, so that mail servers and clients drop the copy.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from engine import Choice, ChoiceError, Setup, SetupError, State, parse_choice
from engine.bots import BOT_KINDS, make_bot
from engine.colours import COLOURS
from engine.events import Event
from pbem import decision_clock, letters
from pbem.clock import DurationError, as_utc, parse_duration, utc_now
from pbem.config import Settings
from pbem.db import session
from pbem.errors import PbemError
from pbem.identity import IdentityError, check_address, check_name
from pbem.inbound import shown
from pbem.kinds import GameStatus, MailOutcome, MoveSource
from pbem.mailing import Mailer
from pbem.models import Game, Move, Seat
from pbem.view import when

log = logging.getLogger(__name__)


class GameError(PbemError, ValueError):
    """A game that cannot be created as asked; nothing was created."""


@dataclass(frozen=True)
class SeatSpec:
    name: str
    address: str | None  # None for a bot
    colour: str | None = None
    bot: str | None = None


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
        try:
            seconds = (
                parse_duration(deadline) if deadline else self.settings.default_deadline_seconds
            )
        except DurationError as error:
            raise GameError(str(error)) from error
        if seconds < 60:
            raise GameError("The time per decision must be at least a minute.")
        if gm is not None:
            try:
                gm = check_address(gm)
            except IdentityError as error:
                raise GameError(str(error)) from error
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

    def handle(self, raw: bytes, now: datetime) -> MailOutcome:
        """Handle one inbound message exactly once; returns its outcome, and logs it."""
        from pbem.replies import Replies  # replies build on this module and the GM's

        return Replies(self).handle(raw, now)

    # -- moves, bots and snapshots ---------------------------------------------------------

    def record(
        self,
        db: Session,
        game: Game,
        state: State,
        seat: int,
        source: MoveSource,
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
        events = self.play_bots(db, game, seats, state, now)
        self.save(game, seats, state, now)
        return events

    def play_bots(
        self, db: Session, game: Game, seats: list[Seat], state: State, now: datetime
    ) -> list[Event]:
        """Bot seats play without waiting, and so do absent players' seats (by the greedy bot)
        while someone who is not absent still plays: when every player is absent, their
        decisions wait for their deadlines, so the game does not run to its end at once."""
        events: list[Event] = []
        if game.status != GameStatus.RUNNING:
            return events
        present = any(not s.bot and not s.absent for s in seats)
        while (decision := state.decision) is not None:
            seat = seats[decision.seat]
            if not seat.bot and not (seat.absent and present):
                break
            events += state.apply(bot_choice(game, state, seat.bot or "greedy"))
            self.record(
                db,
                game,
                state,
                decision.seat,
                MoveSource.BOT if seat.bot else MoveSource.ABSENT,
                None,
                now,
            )
        return events

    def save(self, game: Game, seats: Sequence[Seat], state: State, now: datetime) -> None:
        """Store the state; a decision that is new (or has no clock) gets its clock started."""
        number = len(state.log) + 1
        fresh = number != game.decision or game.deadline_at is None
        game.decision = number
        game.snapshot = json.dumps(state.to_json())
        if game.status != GameStatus.PAUSED and not game.ended_by:
            game.status = GameStatus.OVER if state.decision is None else GameStatus.RUNNING
        self._states[game.id or 0] = (game.snapshot, state.copy())
        if fresh or game.status == GameStatus.OVER:
            self.start_clock(game, seats, state, now)

    # -- the clock of the open decision (written by `pbem.decision_clock` only) -------------

    def start_clock(self, game: Game, seats: Sequence[Seat], state: State, now: datetime) -> None:
        """The open decision's time starts now, or when its player is back from vacation."""
        decision = state.decision
        if decision is None or game.status == GameStatus.OVER:
            decision_clock.stop(game)
            return
        decision_clock.start(
            game,
            seconds=game.deadline_seconds or self.settings.default_deadline_seconds,
            away_until=seats[decision.seat].away_until,
            reminders=self.settings.reminders,
            now=now,
        )


def read_choice(state: State, line: str, *, numbers: bool, may_pass: bool = False) -> Choice:
    """The choice a line names: the number of a listed option (when `numbers`), or a command;
    `pass` (the house rule of a missed deadline) only when `may_pass`."""
    text = line.strip().rstrip(").")
    if text.isdigit() or text.isdecimal() or text.isnumeric():  # '3', and '³', '٣', '②' too
        if not numbers:
            raise ChoiceError(
                "A number only picks from the options of the mail you answer; "
                "for the decisions after it, write the command itself."
            )
        legal = state.legal_choices()
        number = int(text) if text.isascii() and len(text) <= 6 else 0
        if not text.isascii():
            raise ChoiceError(
                f"{shown(text, 20)!r} is not a number the game reads: write the option's "
                f"number in digits 0-9 (1-{len(legal)})."
            )
        if not 1 <= number <= len(legal):
            raise ChoiceError(
                f"There is no option {shown(text, 20)}; the options are 1-{len(legal)}."
            )
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


def _check_seats(specs: Sequence[SeatSpec]) -> list[SeatSpec]:
    """Seats with colours filled in; raises GameError for anything that cannot be a game."""
    if not 2 <= len(specs) <= 6:
        raise GameError(f"A game needs 2 to 6 seats, not {len(specs)}.")
    try:  # names and addresses are checked here, once: what is stored is what was checked
        specs = [
            SeatSpec(
                check_name(s.name),
                None if s.address is None else check_address(s.address),
                s.colour,
                s.bot,
            )
            for s in specs
        ]
    except IdentityError as error:
        raise GameError(str(error)) from error
    addresses = [s.address.lower() for s in specs if s.address]
    if not addresses:
        raise GameError("A game needs a player: bots alone would play it to the end at once.")
    if len(set(addresses)) != len(addresses):
        raise GameError("Two seats have the same address.")
    for spec in specs:
        if spec.bot is not None and spec.bot not in BOT_KINDS:
            raise GameError(f"Unknown bot {spec.bot!r}; the bots are {', '.join(BOT_KINDS)}.")
        if spec.colour is not None and spec.colour not in COLOURS:
            raise GameError(
                f"Unknown colour {spec.colour!r}; the colours are {', '.join(COLOURS)}."
            )
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
    "read_choice",
    "utc_now",
    "when",
]
