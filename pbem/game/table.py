"""One game as a mail or a tick of the clock finds it: the database session, the game's row,
its seats, the state of play and the time, loaded once and handed to everything that reads
or changes the game (`Table`); and the cache of states that makes loading cheap.

What changes a game goes through a table: a move is recorded, bots and absent players play
up to a person's decision, the state is saved and the clock of a new decision started.
Nothing here queues mail; the caller tells the players (`pbem.mail_out.mailing`).
"""

from __future__ import annotations

import hmac
import json
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from datetime import datetime
from hashlib import sha256
from time import monotonic

from sqlalchemy import bindparam, exists, insert
from sqlmodel import Session, col, select

from engine import (
    BotKind,
    Choice,
    Event,
    Outcome,
    Setup,
    State,
    Termination,
    make_bot,
    parse_choice,
)
from pbem.core import GameStatus, MoveSource, PbemError, Settings
from pbem.game import decision_clock
from pbem.store import Game, Move, Observer, Seat

# the statements every mail's table is loaded with, built once: building a statement and its
# cache key costs more than SQLite takes to run it (the game's too: `Session.get` builds its
# query for each call)
_GAME = select(Game).where(col(Game.id) == bindparam("game"))
_WATCHER = (
    col(Observer.game_id) == bindparam("game"),
    col(Observer.confirmed_at).is_not(None),
    col(Observer.ended_at).is_(None),
)
_WATCHING = select(Observer).where(*_WATCHER).order_by(col(Observer.id))
# the seats, each row with whether anyone watches (mostly no one: the observers are read only
# if so), in one statement
_SEATS = (
    select(Seat, exists().where(*_WATCHER).label("watched"))
    .where(Seat.game_id == bindparam("game"))
    .order_by(col(Seat.seat))
)

# a move is written by one INSERT (nothing reads it back as an object: the ORM's unit of work
# would flush it at the end of the line's savepoint, which costs more than the statement)
_MOVE = insert(Move.__table__)  # type: ignore[attr-defined]


class GameError(PbemError, ValueError):
    """A game that cannot be created or found as asked; nothing was changed."""


class StateCache:
    """The states of the games this process saved last: a cache of the database, valid only
    while the stored snapshot is that same text; the least recently used game is dropped
    once `size` games are kept."""

    def __init__(self, size: int = 1000) -> None:
        self.size = size
        self._states: OrderedDict[int, tuple[str, State]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._states)

    def get(self, game: Game) -> State | None:
        key = game.id or 0
        cached = self._states.get(key)
        if cached is not None and game.snapshot is not None and cached[0] == game.snapshot:
            self._states.move_to_end(key)
            return cached[1].copy()
        return None

    def put(self, game: Game, state: State) -> None:
        assert game.snapshot is not None
        key = game.id or 0
        self._states[key] = (game.snapshot, state.copy())
        self._states.move_to_end(key)
        while len(self._states) > self.size:
            self._states.popitem(last=False)


@dataclass(frozen=True)
class LineFault:
    """A line of a mail the service failed on (a fault of ours): undone alone, its sender
    told; the host gets a copy of the mail in the quarantine."""

    number: int  # the line's number in the mail, from 1
    line: str
    error: str  # the error in one line, with where it was raised
    trace: str  # the whole traceback, for the log


@dataclass
class Table:
    """One game, loaded once for one mail or one tick, in the caller's transaction."""

    db: Session
    game: Game
    seats: list[Seat]
    state: State
    now: datetime
    settings: Settings
    cache: StateCache
    observers: list[Observer] = field(default_factory=list)  # those who watch (accepted)
    faults: list[LineFault] = field(default_factory=list)  # lines that raised, undone
    opened: int = field(init=False)  # the decision open when the table was loaded

    def __post_init__(self) -> None:
        self.opened = len(self.state.log) + 1

    @classmethod
    def load(
        cls, db: Session, game_id: int, now: datetime, settings: Settings, cache: StateCache
    ) -> Table:
        """The game `game_id` as stored; raises GameError if there is none."""
        game = db.exec(_GAME, params={"game": game_id}).first()
        if game is None:
            raise GameError(f"There is no game {game_id}.")
        rows = db.exec(_SEATS, params={"game": game_id}).all()
        seats = [seat for seat, _ in rows]
        watched = bool(rows) and rows[0][1]
        observers = list(db.exec(_WATCHING, params={"game": game_id})) if watched else []
        state = _stored_state(db, game, cache)
        return cls(db, game, seats, state, now, settings, cache, observers)

    def gm_addresses(self) -> list[str]:
        """Who may act as game master of the game: its own, and the host's game masters."""
        own = [self.game.gm_address] if self.game.gm_address else []
        return [a.lower() for a in [*own, *self.settings.gm_addresses]]

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    @property
    def bots(self) -> list[bool]:
        return [bool(s.bot) for s in self.seats]

    @property
    def outcome(self) -> Outcome:
        """The score as it stands; final when the rules or the game master ended the game."""
        return outcome(self.state, self.game.ended_by)

    @property
    def over(self) -> bool:
        """Whether the game has ended, by the rules or by the game master (the rules may
        know why it ends a few decisions before it does: the last voyages still land)."""
        return self.state.decision is None or bool(self.game.ended_by)

    # -- reading ---------------------------------------------------------------------------

    def log(self) -> list[tuple[int, str, str]]:
        """The moves so far: number, who made it, the choice in notation."""
        moves = self.db.exec(
            select(Move).where(Move.game_id == self.game.id).order_by(col(Move.number))
        )
        return [(m.number, self.seats[m.seat].name, m.choice) for m in moves]

    def moves(self) -> list[Move]:
        """The log as stored, oldest first."""
        return list(
            self.db.exec(
                select(Move).where(Move.game_id == self.game.id).order_by(col(Move.number))
            )
        )

    def events_between(self, after: int, before: int) -> list[Event]:
        """What the moves after move `after` and before move `before` made happen, replayed
        from the log (the events are not stored)."""
        setup = Setup(tuple(self.game.colours.split(",")), tuple(self.game.stack.split(",")))
        state, events = State(setup), list[Event]()
        for move in self.moves():
            if move.number >= before:
                break
            told = state.apply(parse_choice(move.choice))
            if move.number > after:
                events += told
        return events

    def log_text(self) -> str:
        return "\n".join(f"{number:>4}  {who:<12} {choice}" for number, who, choice in self.log())

    # -- changing --------------------------------------------------------------------------

    def reload_state(self) -> None:
        """The state of play as the stored moves make it (after a line was undone: the
        moves of the lines before it are stored, the game's snapshot may not be yet)."""
        setup = Setup(tuple(self.game.colours.split(",")), tuple(self.game.stack.split(",")))
        self.state = State.replay(setup, [parse_choice(m.choice) for m in self.moves()])

    def record(self, seat: int, source: MoveSource, inbound_id: int | None = None) -> None:
        """Log the choice `seat` just made (the last one in the state's log)."""
        game = self.game
        assert game.id is not None
        number = len(self.state.log)
        timed = number == game.decision  # the decision whose clock ran (not a bot's after it)
        row = {
            "game_id": game.id,
            "number": number,
            "seat": seat,
            "choice": str(self.state.log[-1]),
            "source": source,
            "inbound_id": inbound_id,
            "created_at": self.now,
            "clock_from": game.clock_from if timed else None,
            "deadline_at": game.deadline_at if timed else None,
        }
        self.db.connection().execute(_MOVE, row)

    def advance(self) -> list[Event]:
        """After a change: bots and absent seats play up to a person's decision, the game is
        saved, and the clock of a new decision starts."""
        events = self.play_bots()
        self.save()
        return events

    def play_bots(self) -> list[Event]:
        """Bot seats play without waiting, and so do absent players' seats (by `absent_bot`)
        while someone who is not absent still plays: when every player is absent, their
        decisions wait for their deadlines, so the game does not run to its end at once."""
        events: list[Event] = []
        if self.game.status != GameStatus.RUNNING:
            return events
        present = any(not s.bot and not s.absent for s in self.seats)
        while (decision := self.state.decision) is not None:
            seat = self.seats[decision.seat]
            if not seat.bot and not (seat.absent and present):
                break
            kind = seat.bot or self.settings.absent_bot
            seconds = self.settings.expert_seconds
            events += self.state.apply(bot_choice(self.game, self.state, kind, seconds))
            self.record(decision.seat, MoveSource.BOT if seat.bot else MoveSource.ABSENT)
        return events

    def save(self) -> None:
        """Store the state; a decision that is new (or has no clock) gets its clock started."""
        game, state = self.game, self.state
        number = len(state.log) + 1
        fresh = number != game.decision or game.deadline_at is None
        game.decision = number
        game.snapshot = json.dumps(state.to_json())
        if game.status != GameStatus.PAUSED and not game.ended_by:
            game.status = GameStatus.OVER if state.decision is None else GameStatus.RUNNING
        self.cache.put(game, state)
        if fresh or game.status == GameStatus.OVER:
            self.start_clock()

    def start_clock(self) -> None:
        """The open decision's time starts now, or when its player is back from vacation."""
        game, decision = self.game, self.state.decision
        if decision is None or game.status == GameStatus.OVER:
            decision_clock.stop(game)
            return
        decision_clock.start(
            game,
            seconds=game.deadline_seconds or self.settings.default_deadline_seconds,
            away_until=self.seats[decision.seat].away_until,
            reminders=self.settings.parsed_reminders,
            now=self.now,
        )


def outcome(state: State, ended_by: str | None) -> Outcome:
    """The score of `state`; a game the game master ended (`ended_by`) ends there, with
    Termination.GAME_MASTER, whatever the rules would say."""
    standings = state.standings()
    if ended_by:
        return replace(standings, termination=Termination.GAME_MASTER)
    return standings


EXPERT_MOST = 1_000_000  # simulations: with a time budget, the time ends the search


def bot_choice(game: Game, state: State, kind: BotKind, seconds: float = 0) -> Choice:
    """What a bot of `kind` chooses for the open decision: the same for the same game and
    decision, so that a bot's moves can be told and checked; except the expert's when it
    is given `seconds` to think (then it searches as far as the time allows)."""
    assert state.decision is not None
    seed = bot_seed(game, state.decision.number)
    if kind is BotKind.EXPERT and seconds > 0:
        bot = make_bot(kind, seed, simulations=EXPERT_MOST, seconds=seconds, clock=monotonic)
        return bot.choose(state)
    return make_bot(kind, seed).choose(state)


def bot_seed(game: Game, decision: int) -> int:
    """The seed of the bot that makes decision `decision` of `game`: the same each time it
    is asked. A game shuffled from a seed (`--seed`, and every game made before issue 27)
    is reproducible, its bots too: their seeds follow from the seed, the game's id and the
    decision. Any other game's follow from a secret of its own (an HMAC keyed with the
    game master's secret, 128 bits): no player can work them out and play the random or
    greedy bot's next moves in advance."""
    if game.seed is not None:
        return game.seed * 1_000_003 + (game.id or 0) * 7919 + decision
    digest = hmac.new(game.gm_secret.encode(), f"bot g{game.id} d{decision}".encode(), sha256)
    return int.from_bytes(digest.digest(), "big")


def _stored_state(db: Session, game: Game, cache: StateCache) -> State:
    cached = cache.get(game)
    if cached is not None:
        return cached
    if game.snapshot:
        data = json.loads(game.snapshot)
        if len(data["log"]) + 1 == game.decision:
            return State.from_json(data)
    setup = Setup(tuple(game.colours.split(",")), tuple(game.stack.split(",")))
    moves = db.exec(select(Move).where(Move.game_id == game.id).order_by(col(Move.number)))
    return State.replay(setup, [parse_choice(m.choice) for m in moves])


__all__ = ["GameError", "LineFault", "StateCache", "Table", "bot_choice", "bot_seed", "outcome"]
