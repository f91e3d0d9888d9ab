"""Replies to the game's mails: each message handled exactly once, its lines applied in
order until one fails, and everyone told, in one transaction with the message itself."""

from __future__ import annotations

import email
import hashlib
import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from email.message import Message
from email.policy import default as default_policy
from email.utils import parseaddr
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from engine import Choice, ChoiceError, State
from engine.events import Event
from pbem import letters
from pbem.addressing import GM_SEAT, Tag, find_tag, token_ok
from pbem.automatic import automatic_reason
from pbem.clock import DurationError, as_utc, format_duration
from pbem.clock import parse_duration as _parse_duration
from pbem.db import session
from pbem.gm import GameMaster
from pbem.headers import header_text
from pbem.models import Game, Inbound, Seat
from pbem.replytext import reply_text
from pbem.service import Service, read_choice
from pbem.view import Answer, LineResult, when

log = logging.getLogger("pbem")

META_COMMANDS = ("help", "board", "status", "log")
SEAT_COMMANDS = ("vacation", "tz")  # a player's settings, at any time
MAX_LINES = 30


class Replies:
    """Handles inbound mail for a `Service`."""

    def __init__(self, service: Service) -> None:
        self.service = service

    def handle(self, raw: bytes, now: datetime) -> str:
        """Handle one inbound message exactly once; returns its outcome, and logs it."""
        now = as_utc(now)
        message = email.message_from_bytes(raw, policy=default_policy)
        message_id = header_text(message, "Message-ID").strip()[:300]
        if not message_id:
            message_id = f"<sha256-{hashlib.sha256(raw).hexdigest()}@tongiaki>"
        sender = parseaddr(header_text(message, "From"))[1].lower()
        tag = find_tag(message)
        with session(self.service.engine) as db:
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
        reason = automatic_reason(message, self.service.settings.from_address)
        if reason:
            return "ignored", reason
        game = db.get(Game, tag.game) if tag else None
        if tag is None or game is None:
            self._answer_untagged(db, sender, now)
            return "refused", "no game tag" if tag is None else f"no game {tag.game}"
        inbound.game_id = game.id
        game, seats, state = self.service.game(db, tag.game)
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
            own_addresses=[self.service.settings.from_address],
            own_names=[self.service.settings.from_name],
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
        allowed = self.service.mail.gm_addresses(game)
        if sender not in allowed or not token_ok(game.gm_secret, tag):
            if sender in allowed:  # the GM, with a reply address that is not valid
                self.service.mail.queue_gm(
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
        master = GameMaster(self.service)
        results, _ = master.run(db, game, lines, actor=sender, now=now, answering=tag)
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
            self.service.record(db, game, state, seat.seat, "mail", inbound.id, now)
            results.append(LineResult(line, "applied", str(state.log[-1])))
            events += applied
            seat.auto_moves = 0
            events += self.service.play_bots(db, game, seats, state, now)
            first = False
        moved = not first
        if seat.absent and any(r.outcome in ("applied", "answered") for r in results):
            seat.absent = False
            seat.auto_moves = 0
            announced.insert(0, f"{seat.name} ({seat.colour}) is back and plays again.")
        if moved:
            self.service.save(game, seats, state, now)
        self.service.mail.queue_round(
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
        allowance = _parse_duration(self.service.settings.vacation_allowance)
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
            self.service.shift_clock(game, seconds, now)
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
            return Answer("log", self.service.log_text(db, game, seats))
        status = self.service.mail.moment(game, seats, state)[0].waiting
        if game.deadline_at is not None and game.status == "running":
            status += f" The deadline is {when(as_utc(game.deadline_at))}."
        return Answer("status", status)

    def _answer_untagged(self, db: Session, sender: str, now: datetime) -> None:
        """A registered player wrote without a valid game tag: say so in each running game."""
        query = select(Seat).join(Game).where(col(Game.status).in_(("running", "paused")))
        for seat in db.exec(query):
            if seat.address and seat.address.lower() == sender:
                game, seats, state = self.service.game(db, seat.game_id)
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
                at, picture = self.service.mail.moment(game, seats, state)
                mail = letters.letter(
                    at,
                    seat.seat,
                    notice=notice,
                    news=False,
                    show_board=False,
                    deadline=self.service.mail.deadline_view(game, seat),
                )
                self.service.mail.queue(db, game, seat, mail, picture, now)
                return


def _told(results: Sequence[LineResult]) -> str:
    """What the lines of a mail came to, for the log and the inbound row."""
    said = [
        f"{r.line} -> {r.outcome}" + (f" ({r.detail})" if r.detail and r.detail != r.line else "")
        for r in results
    ]
    return "; ".join(said)[:500]


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


