"""Games played by mail: creating a game, handling a reply, playing bot seats, queueing mail.

Every change happens in one transaction together with the inbound message that caused it
and the mails it causes, so a crash loses nothing and repeats nothing.
"""

from __future__ import annotations

import email
import hashlib
import json
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import Message
from email.policy import default as default_policy
from email.utils import parseaddr

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from engine import Choice, ChoiceError, Setup, SetupError, State, parse_choice
from engine.bots import BOT_KINDS, make_bot
from engine.colours import COLOURS
from engine.events import Event
from pbem import letters, view
from pbem.addressing import Tag, find_tag, token, token_ok
from pbem.automatic import automatic_reason
from pbem.compose import Picture, compose
from pbem.config import Settings
from pbem.db import session
from pbem.models import Game, Inbound, Move, Outbox, Seat
from pbem.picture import board_png
from pbem.render import render
from pbem.replytext import reply_text
from pbem.view import Answer, LineResult

META_COMMANDS = ("help", "board", "status", "log")
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


def utc_now() -> datetime:
    return datetime.now(UTC)


def parse_duration(text: str) -> int:
    """Seconds in '48h', '2d', '90m', '1d12h', '3600s'."""
    parts = re.findall(r"(\d+)\s*([dhms])", text.strip().lower())
    if not parts or re.sub(r"\d+\s*[dhms]\s*", "", text.strip().lower()):
        raise GameError(f"{text!r} is not a duration (for example 48h, 2d, 1d12h, 90m).")
    unit = {"d": 86400, "h": 3600, "m": 60, "s": 1}
    return sum(int(n) * unit[u] for n, u in parts)


class Service:
    """The game service over one database."""

    def __init__(self, engine: Engine, settings: Settings) -> None:
        self.engine = engine
        self.settings = settings
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
            events = self._play_bots(db, game, rows, state, now)
            self._save(game, state)
            at, picture = self.moment(game, rows, state, events)
            for row in rows:
                if row.address:
                    self._queue(db, game, row, letters.welcome(at, row.seat), None, now)
            decision = state.decision
            if decision is not None and rows[decision.seat].address:
                prompt = letters.letter(at, decision.seat, deadline=self._deadline(game, now))
                self._queue(db, game, rows[decision.seat], prompt, picture, now)
            db.commit()
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

    # -- handling a reply ------------------------------------------------------------------

    def handle(self, raw: bytes, now: datetime) -> str:
        """Handle one inbound message exactly once; returns its outcome."""
        message = email.message_from_bytes(raw, policy=default_policy)
        message_id = str(message.get("Message-ID", "")).strip()
        if not message_id:
            message_id = f"<sha256-{hashlib.sha256(raw).hexdigest()}@tongiaki>"
        sender = parseaddr(str(message.get("From", "")))[1].lower()
        with session(self.engine) as db:
            if db.exec(select(Inbound).where(Inbound.message_id == message_id)).first():
                return "duplicate"
            inbound = Inbound(message_id=message_id, sender=sender, received_at=now, outcome="")
            db.add(inbound)
            db.flush()
            inbound.outcome, inbound.detail = self._handle(db, message, sender, inbound, now)
            db.commit()
            return inbound.outcome

    def _handle(
        self, db: Session, message: Message, sender: str, inbound: Inbound, now: datetime
    ) -> tuple[str, str]:
        reason = automatic_reason(message, self.settings.from_address)
        if reason:
            return "ignored", reason
        tag = find_tag(message)
        game = db.get(Game, tag.game) if tag else None
        if tag is None or game is None:
            self._answer_untagged(db, sender, now)
            return "refused", "no game tag" if tag is None else f"no game {tag.game}"
        inbound.game_id = game.id
        game, seats, state = self.game(db, tag.game)
        if tag.seat >= len(seats) or not token_ok(seats[tag.seat].secret, tag):
            self._answer_stranger(db, game, seats, state, sender, "invalid", now)
            return "refused", "bad token"
        seat = seats[tag.seat]
        if sender != (seat.address or "").lower():
            self._answer_stranger(db, game, seats, state, sender, "not yours", now)
            return "refused", f"sender is not the address of seat {seat.seat}"
        lines = _command_lines(
            reply_text(
                message,
                own_addresses=[self.settings.from_address],
                own_names=[self.settings.from_name],
            )
        )
        return self._apply_lines(db, game, seats, state, seat, tag, lines, inbound, now)

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
            if meta in META_COMMANDS:
                if meta == "board":
                    show_board = True
                else:
                    answers.append(self._meta(db, game, seats, state, meta))
                results.append(LineResult(line, "answered"))
                continue
            try:
                choice = self._read_line(state, seat, tag, line, first)
                applied = state.apply(choice)
            except ChoiceError as error:
                results.append(LineResult(line, "rejected", str(error)))
                failed = True
                continue
            self._record(db, game, state, seat.seat, "mail", inbound.id, now)
            results.append(LineResult(line, "applied", str(state.log[-1])))
            events += applied
            events += self._play_bots(db, game, seats, state, now)
            first = False
        moved = not first
        if moved:
            self._save(game, state)
        self._queue_round(
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
        )
        outcome = "rejected" if failed else "applied" if moved else "answered"
        return outcome, "; ".join(f"{r.line} -> {r.outcome}" for r in results)[:500]

    def _read_line(self, state: State, seat: Seat, tag: Tag, line: str, first: bool) -> Choice:
        decision = state.decision
        if decision is None:
            raise ChoiceError("The game is over.")
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
        if line.strip().rstrip(").").isdigit():
            if not first:
                raise ChoiceError(
                    "A number only picks from the options of the mail you answer; "
                    "for the decisions after it, write the command itself."
                )
            number = int(line.strip().rstrip(")."))
            legal = state.legal_choices()
            if not 1 <= number <= len(legal):
                raise ChoiceError(f"There is no option {number}; the options are 1-{len(legal)}.")
            return legal[number - 1]
        return parse_choice(line)

    def _meta(self, db: Session, game: Game, seats: list[Seat], state: State, what: str) -> Answer:
        if what == "help":
            return Answer("help")
        if what == "log":
            moves = self.log(db, game, seats)
            lines = [f"{number:>4}  {who:<12} {choice}" for number, who, choice in moves]
            return Answer("log", "\n".join(lines))
        return Answer("status", letters.waiting(state, [s.name for s in seats]))

    def _answer_untagged(self, db: Session, sender: str, now: datetime) -> None:
        """A registered player wrote without a valid game tag: say so in each running game."""
        query = select(Seat).join(Game).where(Game.status == "running")
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
                at, picture = self.moment(game, seats, state)
                mail = letters.letter(
                    at,
                    seat.seat,
                    notice=notice,
                    news=False,
                    show_board=False,
                    deadline=self._deadline(game, now),
                )
                self._queue(db, game, seat, mail, picture, now)
                return

    # -- moves, bots and snapshots ---------------------------------------------------------

    def _record(
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

    def _play_bots(
        self, db: Session, game: Game, seats: list[Seat], state: State, now: datetime
    ) -> list[Event]:
        events: list[Event] = []
        while (decision := state.decision) is not None and seats[decision.seat].bot:
            kind = seats[decision.seat].bot or "greedy"
            bot = make_bot(
                kind, (game.seed or 0) * 1_000_003 + (game.id or 0) * 7919 + decision.number
            )
            events += state.apply(bot.choose(state))
            self._record(db, game, state, decision.seat, "bot", None, now)
        return events

    def _save(self, game: Game, state: State) -> None:
        game.decision = len(state.log) + 1
        game.snapshot = json.dumps(state.to_json())
        game.status = "over" if state.decision is None else "running"
        self._states[game.id or 0] = (game.snapshot, state.copy())

    # -- the mails of a round --------------------------------------------------------------

    def moment(
        self, game: Game, seats: Sequence[Seat], state: State, events: Sequence[Event] = ()
    ) -> tuple[letters.Moment, Picture]:
        """What the mails of this round share, with the board picture: made once per round."""
        assert game.id is not None
        domain = self.settings.from_address.partition("@")[2] or "localhost"
        picture = Picture.of(board_png(state), domain)
        names = [s.name for s in seats]
        bots = [bool(s.bot) for s in seats]
        return letters.moment(game.id, state, names, bots, events, picture.cid), picture

    def _queue_round(
        self,
        db: Session,
        game: Game,
        seats: list[Seat],
        state: State,
        events: list[Event],
        now: datetime,
        *,
        sender: Seat,
        answers: Sequence[Answer],
        results: Sequence[LineResult] = (),
        show_board: bool = False,
    ) -> None:
        """After a reply: the sender hears how it went; if anything moved, everyone hears what
        happened, and whoever decides next gets their options."""
        at, picture = self.moment(game, seats, state, events)
        deadline = self._deadline(game, now)
        for seat in seats:
            if not seat.address or (not events and seat is not sender):
                continue
            mine = seat is sender
            mail = letters.letter(
                at,
                seat.seat,
                results=results if mine else (),
                answers=answers if mine else (),
                show_board=bool(events) or (mine and show_board),
                deadline=deadline,
            )
            self._queue(db, game, seat, mail, picture, now)

    def _deadline(self, game: Game, now: datetime) -> view.Deadline:
        seconds = game.deadline_seconds or parse_duration(self.settings.default_deadline)
        return view.deadline(now + timedelta(seconds=seconds))

    def _queue(
        self,
        db: Session,
        game: Game,
        seat: Seat,
        mail: view.Mail,
        picture: Picture | None,
        now: datetime,
    ) -> None:
        """Render a mail and put it in the outbox; a mail with a decision answers to its tag."""
        assert seat.address is not None and game.id is not None
        tag = None
        if mail.decision is not None:
            number = mail.decision.number
            tag = Tag(game.id, seat.seat, number, token(seat.secret, game.id, seat.seat, number))
        text, html = render(mail)
        message = compose(
            self.settings,
            recipient=seat.address,
            subject=f"[Tongiaki g{game.id}] {mail.subject}",
            text=text,
            html=html,
            picture=picture if mail.picture else None,
            game_id=game.id,
            tag=tag,
            now=now,
            headers=_headers(mail),
        )
        db.add(
            Outbox(
                game_id=game.id,
                recipient=seat.address,
                message=bytes(message),
                created_at=now,
                next_attempt_at=now,
            )
        )


def _headers(mail: view.Mail) -> dict[str, str]:
    """What kind of mail this is, for the players' mail filters and for tests."""
    headers = {"X-Tongiaki-Kind": mail.kind}
    if mail.decision is not None:
        headers["X-Tongiaki-Decision"] = f"{mail.decision.number} {mail.decision.kind}"
    return headers


def _check_seats(specs: Sequence[SeatSpec]) -> list[SeatSpec]:
    """Seats with colours filled in; raises GameError for anything that cannot be a game."""
    if not 2 <= len(specs) <= 6:
        raise GameError(f"A game needs 2 to 6 seats, not {len(specs)}.")
    addresses = [s.address.lower() for s in specs if s.address]
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


def _command_lines(text: str) -> list[str]:
    lines = [line.strip() for line in text.replace("\r\n", "\n").split("\n")]
    return [line for line in lines if line][:MAX_LINES]


__all__ = ["GameError", "SeatSpec", "Service", "parse_duration", "utc_now"]
