"""The game master's commands, from the host's command line or by mail.

Every command is checked before it changes anything, logged in `GmAction` with who gave it,
and announced to the players. Commands in one mail apply in order until one fails.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session, col, delete

from engine import ChoiceError, Phase, State
from engine.bots import BOT_KINDS
from engine.colours import BY_LETTER, COLOURS
from engine.events import Event
from pbem import decision_clock, letters, view
from pbem.addressing import Tag
from pbem.budget import may_answer
from pbem.clock import DurationError, as_utc, format_duration, parse_duration
from pbem.db import session
from pbem.errors import PbemError
from pbem.identity import IdentityError, check_address, check_name
from pbem.inbound import shown
from pbem.kinds import AnswerKind, GameStatus, LineOutcome, MailKind, MoveSource
from pbem.models import Game, GmAction, Move, Seat
from pbem.render import render_board_text
from pbem.service import GameError, Service, read_choice
from pbem.view import GM_SYNTAX, Answer, LineResult, when

log = logging.getLogger(__name__)

GM_META = ("status", "log", "board", "help")
GM_LOOK = "status, log, board, help: look at the game; change nothing"
HOST = "host"  # the actor of commands given on the host's command line


class GmError(PbemError, ValueError):
    """A game master's command that cannot be carried out; nothing was changed."""


@dataclass
class _Round:
    """One mail's (or one command line's) worth of game master commands on one game."""

    game: Game
    seats: list[Seat]
    state: State
    actor: str
    answering: Tag | None
    now: datetime
    opened: int  # the decision open when the commands came: the one a mail must answer
    announced: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    welcome: list[Seat] = field(default_factory=list)  # seats handed to a new address


class GameMaster:
    """Runs game master commands on a game of `service`."""

    def __init__(self, service: Service) -> None:
        self.service = service

    def run_host(
        self, game_id: int, lines: list[str], now: datetime
    ) -> tuple[list[LineResult], list[Answer]]:
        """Commands from the host's command line: their results, and the answers to status
        and log."""
        now = as_utc(now)
        with session(self.service.engine) as db:
            game = db.get(Game, game_id)
            if game is None:
                raise GameError(f"There is no game {game_id}.")
            done = self.run(db, game, lines, actor=HOST, now=now, answering=None)
            db.commit()
        return done

    def run(
        self,
        db: Session,
        game: Game,
        lines: list[str],
        *,
        actor: str,
        now: datetime,
        answering: Tag | None,
        may_change: bool = True,
    ) -> tuple[list[LineResult], list[Answer]]:
        """Apply `lines` in order until one fails; announce what was done; answer by mail
        when the commands came by mail (`answering` is the tag of the mail answered, with the
        decision open when it was sent). Without `may_change` (a mail whose commands changed
        the game once already) only status, log, board and help are answered."""
        game_id = game.id
        assert game_id is not None
        game, seats, state = self.service.game(db, game_id)
        table = _Round(game, seats, state, actor, answering, now, game.decision)
        results: list[LineResult] = []
        answers: list[Answer] = []
        show_board = False
        failed = False
        if not lines:
            results.append(
                LineResult("(nothing)", LineOutcome.REJECTED, "no command found in your mail")
            )
            failed = True
        for line in lines:
            if failed:
                results.append(LineResult(line, LineOutcome.IGNORED, "after a rejected line"))
                continue
            verb = line.strip().lower().split(" ", 1)[0]
            if verb in GM_META and line.strip().lower() == verb:
                if verb == "board":
                    show_board = True
                    if answering is None:  # the host reads the board on the command line
                        answers.append(Answer("board", self._board(table)))
                elif verb == "log":
                    answers.append(Answer("log", self.service.log_text(db, game, seats)))
                elif verb == "status":
                    answers.append(Answer("status", self._status(table)))
                elif answering is None:  # help: every mail to a game master lists the commands
                    answers.append(Answer("help", "\n".join([*GM_SYNTAX, GM_LOOK])))
                results.append(LineResult(line, LineOutcome.ANSWERED))
                continue
            try:
                if not may_change:
                    raise GmError(
                        "The mail you answer was used for a change already: reply to the "
                        "newest mail the game sent you (each one changes the game once)."
                    )
                detail = self._command(db, table, line)
            except (GmError, ChoiceError) as error:
                results.append(LineResult(line, LineOutcome.REJECTED, str(error)))
                failed = True
                continue
            results.append(LineResult(line, LineOutcome.APPLIED, detail))
            said = shown(line)  # what is stored and logged: one line, no control characters
            db.add(GmAction(game_id=game_id, at=now, actor=actor, command=said, detail=detail))
            log.info("game %s: game master %s: %s -> %s", game.id, actor, said, shown(detail))
        self._tell(db, table, results, answers, show_board)
        return results, answers

    def _board(self, table: _Round) -> str:
        names = [s.name for s in table.seats]
        bots = [bool(s.bot) for s in table.seats]
        return render_board_text(view.board(table.state, names, bots))

    def _status(self, table: _Round) -> str:
        status = self.service.mail.moment(table.game, table.seats, table.state)[0].waiting
        if table.game.deadline_at is not None and table.game.status == GameStatus.RUNNING:
            status += f" The deadline is {when(as_utc(table.game.deadline_at))}."
        return status

    def _tell(
        self,
        db: Session,
        table: _Round,
        results: list[LineResult],
        answers: list[Answer],
        show_board: bool,
    ) -> None:
        """Mail the players what the game master did, the new players their welcome, and
        the game master their results."""
        service, game, seats, state, now = (
            self.service,
            table.game,
            table.seats,
            table.state,
            table.now,
        )
        if table.welcome:
            at, _ = service.mail.moment(game, seats, state)
            for seat in table.welcome:
                service.mail.queue(db, game, seat, letters.welcome(at, seat.seat), None, now)
        if table.announced or table.events:
            service.mail.queue_round(
                db,
                game,
                seats,
                state,
                table.events,
                now,
                announced=[f"{line}" for line in table.announced],
                subject="News from the game master",
            )
        failed = any(r.outcome == LineOutcome.REJECTED for r in results)
        applied = any(r.outcome == LineOutcome.APPLIED for r in results)
        if table.answering is not None and not applied:  # an answer alone: within the budget
            per_day = service.settings.answers_per_day
            if not may_answer(
                db, table.actor, AnswerKind.ERROR if failed else AnswerKind.ANSWER, now, per_day
            ):
                return
        if table.answering is not None:
            verbs = ", ".join(dict.fromkeys(r.line.split()[0].lower()[:20] for r in results))
            verbs = shown(verbs, 60) or "-"
            service.mail.queue_gm(
                db,
                game,
                seats,
                state,
                now,
                subject=("Not applied: " if failed else "Done: ") + verbs,
                results=results,
                answers=answers,
                show_board=show_board,
                to=[table.actor],
            )
        elif table.announced:  # to every game master of the game
            service.mail.queue_gm(
                db,
                game,
                seats,
                state,
                now,
                subject="The host acted as game master",
                notice="The host gave game master commands on the command line.",
                happened=table.announced,
            )

    # -- the commands ----------------------------------------------------------------------

    def _command(self, db: Session, table: _Round, line: str) -> str:
        verb, _, rest = line.strip().partition(" ")
        verb, rest = verb.lower(), rest.strip()
        game = table.game
        if game.status == GameStatus.OVER and verb not in ("undo",):
            raise GmError("The game is over.")
        handler = {
            "pause": self._pause,
            "resume": self._resume,
            "extend": self._extend,
            "deadline": self._deadline,
            "move": self._move,
            "undo": self._undo,
            "replace": self._replace,
            "bot": self._bot,
            "human": self._human,
            "kick": self._kick,
            "end": self._end,
        }.get(verb)
        if handler is None:
            raise GmError(
                f"{verb!r} is not a game master command. The commands: pause, resume, extend, "
                "deadline, move, undo, replace, bot, human, kick, end (and status, log, board, "
                "help)."
            )
        return handler(db, table, rest)

    def _pause(self, db: Session, table: _Round, rest: str) -> str:
        game, now = table.game, table.now
        _no_argument("pause", rest)
        if game.status == GameStatus.PAUSED:
            raise GmError("The game is paused already.")
        game.status = GameStatus.PAUSED
        left = decision_clock.pause(game, now)
        table.announced.append(
            "The game master paused the game: no move can be made and no deadline runs "
            "until it resumes."
        )
        return f"paused with {format_duration(left)} left for the open decision"

    def _resume(self, db: Session, table: _Round, rest: str) -> str:
        game, now = table.game, table.now
        _no_argument("resume", rest)
        if game.status != GameStatus.PAUSED:
            raise GmError("The game is not paused.")
        game.status = GameStatus.RUNNING
        decision_clock.resume(game, self.service.settings.reminders, now)
        table.events += self.service.advance(db, game, table.seats, table.state, now)
        deadline = f"; the deadline is {when(as_utc(game.deadline_at))}" if game.deadline_at else ""
        table.announced.append(f"The game master resumed the game{deadline}.")
        return "resumed" + deadline

    def _extend(self, db: Session, table: _Round, rest: str) -> str:
        game = table.game
        seconds = _duration(rest, "extend 1d")
        if game.deadline_at is None:
            raise GmError("No deadline is running.")
        decision_clock.shift(game, seconds, self.service.settings.reminders, table.now)
        assert game.deadline_at is not None
        deadline = when(as_utc(game.deadline_at))
        table.announced.append(
            f"The game master gave decision {game.decision} {format_duration(seconds)} more: "
            f"its deadline is now {deadline}."
        )
        return f"the deadline of decision {game.decision} is now {deadline}"

    def _deadline(self, db: Session, table: _Round, rest: str) -> str:
        seconds = _duration(rest, "deadline 24h")
        if seconds < 60:
            raise GmError("The time per decision must be at least a minute.")
        table.game.deadline_seconds = seconds
        table.announced.append(
            f"The game master set the time per decision to {format_duration(seconds)}, "
            "from the next decision on."
        )
        return f"each decision from the next one on has {format_duration(seconds)}"

    def _move(self, db: Session, table: _Round, rest: str) -> str:
        game, state = table.game, table.state
        word, _, text = rest.partition(" ")
        seat = _seat(table.seats, word)
        decision = state.decision
        assert decision is not None
        if decision.seat != seat.seat:
            raise GmError(
                f"Decision {decision.number} is {table.seats[decision.seat].name}'s "
                f"({decision.colour}), not {seat.name}'s."
            )
        self._current(table)
        if not text.strip():
            raise GmError("Say the choice: move SEAT CHOICE, like move red expand Samoa a,c.")
        choice = read_choice(state, text, numbers=True, may_pass=decision.kind is Phase.TURN)
        table.events += state.apply(choice)
        self.service.record(db, game, state, seat.seat, MoveSource.GM, None, table.now)
        table.events += self.service.advance(db, game, table.seats, state, table.now)
        made = str(state.log[decision.number - 1])
        table.announced.append(f"The game master decided for {seat.name} ({seat.colour}): {made}.")
        return f"decision {decision.number}: {made}"

    def _current(self, table: _Round) -> None:
        """A command by mail that changes the game must answer the decision open when the
        mail came; the commands before it in the same mail may have moved the game on."""
        tag = table.answering
        if tag is not None and tag.decision != table.opened:
            raise GmError(
                f"Your mail answers decision {tag.decision}, but the game is at decision "
                f"{table.opened} now. Look at the game below, then reply to this mail."
            )

    def _undo(self, db: Session, table: _Round, rest: str) -> str:
        game = table.game
        if not (rest.isascii() and rest.isdigit()) or len(rest) > 6 or int(rest) < 1:
            raise GmError("Say how many decisions to take back, like undo 2.")
        count = int(rest)
        if game.ended_by:
            raise GmError("The game master ended this game; it cannot be taken back.")
        made = len(table.state.log)
        if count > made:
            raise GmError(f"Only {made} decisions were made so far.")
        self._current(table)
        kept = table.state.log[: made - count]
        state = State.replay(table.state.setup, kept)
        db.exec(delete(Move).where(col(Move.game_id) == game.id, col(Move.number) > len(kept)))
        table.state = state
        table.events = []
        game.epoch += 1  # the decisions taken back come again with new reply tokens
        if game.status == GameStatus.OVER:
            game.status = GameStatus.RUNNING
        table.events += self.service.advance(db, game, table.seats, state, table.now)
        again = len(state.log) - len(kept)  # bots make their decisions again at once
        decision = state.decision
        if decision is None:
            now_open = "the bots played on to the end of the game"
        else:
            seat = table.seats[decision.seat]
            now_open = f"decision {decision.number}, {seat.name}'s ({seat.colour}), is open"
            now_open += f" (the bots played {again} decision(s) at once)" if again else " again"
        table.announced.append(
            f"The game master took back the last {count} decision(s): {now_open}."
        )
        return f"back at decision {len(kept) + 1}" + (f"; {now_open}" if again else "")

    def _replace(self, db: Session, table: _Round, rest: str) -> str:
        parts = rest.split()
        if len(parts) < 2:
            raise GmError("Write it as: replace SEAT ADDRESS [NAME].")
        seat = _seat(table.seats, parts[0])
        try:  # a seat's name as it was is left alone; a new one is checked
            address = check_address(parts[1])
            name = check_name(" ".join(parts[2:])) if len(parts) > 2 else seat.name
        except IdentityError as error:
            raise GmError(str(error)) from error
        if any(s.address and s.address.lower() == address.lower() for s in table.seats):
            raise GmError(f"{address} has a seat in this game already.")
        self._farewell(db, table, seat, "The game master handed your seat to another player.")
        seat.address, seat.name = address, name
        seat.secret = secrets.token_hex(16)
        seat.bot, seat.absent, seat.auto_moves = None, False, 0
        seat.away_until, seat.vacation_used = None, 0
        self._restart_if_open(table, seat)
        table.welcome.append(seat)
        table.announced.append(
            f"The game master handed seat {seat.seat + 1} ({seat.colour}) to {seat.name}."
        )
        return f"seat {seat.seat + 1} ({seat.colour}) is {seat.name}'s now"

    def _bot(self, db: Session, table: _Round, rest: str) -> str:
        word, _, kind = rest.partition(" ")
        seat = _seat(table.seats, word)
        kind = kind.strip().lower() or "greedy"
        if kind not in BOT_KINDS:
            raise GmError(f"Unknown bot {kind!r}; the bots are {', '.join(BOT_KINDS)}.")
        seat.bot, seat.absent = kind, False
        table.events += self.service.advance(db, table.game, table.seats, table.state, table.now)
        table.announced.append(
            f"The game master has the {kind} bot play {seat.name} ({seat.colour}) for now."
        )
        return f"the {kind} bot plays {seat.colour}"

    def _human(self, db: Session, table: _Round, rest: str) -> str:
        seat = _seat(table.seats, rest)
        if not seat.address:
            raise GmError(
                f"Seat {seat.seat + 1} ({seat.colour}) has no player: give it one with "
                f"replace {seat.seat + 1} ADDRESS."
            )
        if not seat.bot and not seat.absent:
            raise GmError(f"{seat.name} ({seat.colour}) plays the seat already.")
        seat.bot, seat.absent, seat.auto_moves = None, False, 0
        self._restart_if_open(table, seat)
        table.announced.append(f"{seat.name} ({seat.colour}) plays the seat again.")
        return f"{seat.name} plays {seat.colour} again"

    def _kick(self, db: Session, table: _Round, rest: str) -> str:
        seat = _seat(table.seats, rest)
        if not seat.address:
            raise GmError(f"Seat {seat.seat + 1} ({seat.colour}) has no player.")
        self._farewell(db, table, seat, "The game master removed you from the game.")
        seat.address, seat.bot, seat.absent = None, "greedy", False
        table.events += self.service.advance(db, table.game, table.seats, table.state, table.now)
        table.announced.append(
            f"The game master removed {seat.name} from the game: the greedy bot plays "
            f"{seat.colour} from now on."
        )
        return f"{seat.name} is out; the greedy bot plays {seat.colour}"

    def _end(self, db: Session, table: _Round, rest: str) -> str:
        game = table.game
        _no_argument("end", rest)
        game.status = GameStatus.OVER
        game.ended_by = table.actor
        self.service.start_clock(game, table.seats, table.state, table.now)
        table.announced.append("The game master ended the game: the scores stand as they are.")
        return "the game is over"

    def _restart_if_open(self, table: _Round, seat: Seat) -> None:
        """A seat that gets a (new) player while its decision is open: its time starts anew."""
        decision = table.state.decision
        if decision is not None and decision.seat == seat.seat:
            self.service.start_clock(table.game, table.seats, table.state, table.now)

    def _farewell(self, db: Session, table: _Round, seat: Seat, why: str) -> None:
        """The last mail to a player who loses their seat: news only, never a prompt, even
        when the open decision is theirs (they can no longer make it)."""
        if not seat.address:
            return
        assert table.game.id is not None
        names = [s.name for s in table.seats]
        everyone = view.players(table.state, names, [bool(s.bot) for s in table.seats])
        last = " This is the last mail you get from this game. Thank you for playing!"
        mail = view.Mail(
            kind=MailKind.UPDATE,
            game=table.game.id,
            subject=f"You left game {table.game.id}",
            you=everyone[seat.seat],
            happened=(why + last,),
        )
        self.service.mail.queue(db, table.game, seat, mail, None, table.now)


def _seat(seats: list[Seat], word: str) -> Seat:
    """A seat named by its number (1-based), its colour, its colour's letter or its player."""
    text = word.strip().lower()
    if text.isascii() and text.isdigit() and len(text) < 3 and 1 <= int(text) <= len(seats):
        return seats[int(text) - 1]
    colour = BY_LETTER.get(text.upper()) if len(text) == 1 else text
    for seat in seats:
        if seat.colour == colour or seat.name.lower() == text:
            return seat
    if text in COLOURS:
        raise GmError(f"Nobody plays {text} in this game.")
    raise GmError(
        f"No seat {word!r}: name a seat by its number (1-{len(seats)}), its colour or its player."
    )


def _duration(text: str, example: str) -> int:
    try:
        seconds = parse_duration(text)
    except DurationError as error:
        raise GmError(f"{error} Write it as: {example}.") from error
    if seconds <= 0:
        raise GmError(f"Give a duration, like {example}.")
    return seconds


def _no_argument(verb: str, rest: str) -> None:
    if rest:
        raise GmError(f"{verb} takes nothing after it.")


__all__ = ["GM_SYNTAX", "GameMaster", "GmError"]
