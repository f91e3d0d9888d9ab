"""Commands, one object each: the players' (`pbem.commands.player`) and the game master's
(`pbem.commands.gm`), by mail and on the host's command line.

A `Command` has its name, its syntax, its help line, whether it only looks at the game, its
own word in each language, and `run(round, argument)`, which refuses a line by raising a
`CommandError` with a stable code. A `Commands` registry finds the command of a line; `run_lines`
applies a mail's lines in order until one fails, each in a savepoint of its own: a line that
raises (a fault of ours) is undone alone, the lines before it stay. The help texts, the
command lists of the mails and the error for an unknown command are made from the
registries, never typed again.
"""

from __future__ import annotations

import difflib
import logging
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy.exc import DBAPIError
from sqlmodel import col, select

from engine import (
    BY_LETTER,
    COLOURS,
    ChoiceError,
    Event,
    Joined,
    Message,
    counted,
    without_accents,
)
from pbem.commands import usage
from pbem.commands.usage import Said, Usage
from pbem.core import (
    AnswerTopic,
    GameStatus,
    LineOutcome,
    MailOutcome,
    PbemError,
    Tag,
    as_utc,
    shown,
)
from pbem.game.table import LineFault, Table
from pbem.store import Move, Observer, Seat, Talk
from pbem.views import letters, news, view
from pbem.views.i18n import ENGLISH, known, named
from pbem.views.render import render_board_text
from pbem.views.view import Answer, LineResult

log = logging.getLogger(__name__)

# how close a misspelt first word must be to a command's for the line to be read as that
# command (refused with "did you mean"), not as a sign-off left unread ('staus', not 'Regards')
SURELY_MEANT = 0.8


class CommandError(PbemError, ValueError):
    """A command that cannot be carried out as written; nothing of its line was changed.
    (The engine refuses a move with its own `ChoiceError`, which refuses the line too.)
    `code` names the refusal in every language ("no-seat"), as `ChoiceError.code` does: the
    answer's `LineResult.code` and its `X-Tongiaki-Refused` header carry it."""

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Round:
    """One mail's (or one command line's) worth of commands on one game, and what they did."""

    table: Table
    actor: str  # the sender's address, or "host"
    seat: Seat | None  # the player's seat; None for a game master or an observer
    answering: Tag | None  # the tag of the mail answered; None on the command line
    opened: int  # the decision open when the commands came
    may_change: bool = True  # False: the mail answered was used for a change already
    inbound_id: int | None = None  # the mail the commands came in
    observer: Observer | None = None  # the observer who wrote
    results: list[LineResult] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)
    announced: list[str] = field(default_factory=list)  # news for everyone
    events: list[Event] = field(default_factory=list)
    welcome: list[Seat] = field(default_factory=list)  # seats handed to a new address
    watchers: list[Observer] = field(default_factory=list)  # observers who watch from now on
    invited: list[Observer] = field(default_factory=list)  # asked by the game master to watch
    show_board: bool = False
    asked_again: bool = False  # the open decision reopened, resumed or handed over: ask again
    moves: int = 0  # decisions the sender made in this round
    asked: str = ""  # a command that waits for `confirm` on the next line (`resign`)
    asked_before: str = ""  # one the mail answered asked about: `confirm` alone acts
    talk: list[Talk] = field(default_factory=list)  # table talk said in this round
    farewell: bool = False  # the sender left the game (or an observer stopped) in this round
    # last mails to players who lost their seat in this round (`replace`, `kick`), addressed
    # as the seat was by `address_leaving` (the flow's: mail is addressed in mail_out, above
    # the commands); the game master's flow queues them
    farewells: list[Any] = field(default_factory=list)
    address_leaving: Callable[[Seat, view.Mail], Any] | None = None
    # answers that tell the game as it stands once every line was run (a `status` before a
    # move in the same mail tells the state after the move): made by `run_lines` at its end
    later: dict[int, Callable[[], Answer]] = field(default_factory=dict)
    absent: list[Seat] = field(default_factory=list)  # seats the clock marked absent
    # what the round came to, once `pbem.commands.rounds.act` kept it: the mail's outcome
    # and its lines' results in one line, for the log and the inbound row
    outcome: MailOutcome = MailOutcome.ANSWERED
    summary: str = ""

    def answer_when_done(self, kind: AnswerTopic, make: Callable[[], str]) -> None:
        """An answer of `kind` whose text `make` gives once all the lines of the mail ran."""
        self.later[len(self.answers)] = lambda: Answer(kind, make())
        self.answers.append(Answer(kind))

    @property
    def failed(self) -> bool:
        return any(r.outcome == LineOutcome.REJECTED for r in self.results)

    @property
    def applied(self) -> bool:
        return any(r.outcome == LineOutcome.APPLIED for r in self.results)

    @property
    def mail_outcome(self) -> MailOutcome:
        """What the mail came to: rejected if a line was, applied if a line changed the
        game, else answered (it only looked)."""
        if self.failed:
            return MailOutcome.REJECTED
        return MailOutcome.APPLIED if self.applied else MailOutcome.ANSWERED


@dataclass(frozen=True)
class Command:
    """One command: `run` returns what was done (shown to the sender), or raises
    `CommandError` and changes nothing; a command that only looks returns ""."""

    name: str
    syntax: str  # "extend DURATION"
    summary: str  # "more time for the open decision"
    run: Callable[[Round, str], str]
    example: str = ""  # "extend 1d"
    looks: bool = False  # answers and changes nothing: the whole line is its name
    listed: bool = True  # False: its help line is another command's ("pause, resume")
    words: Said = ()  # its own word in other languages: (("it", "aiuto"), ...)

    @classmethod
    def of(cls, said: Usage, run: Callable[[Round, str], str]) -> Command:
        """The command `said` describes (`pbem.commands.usage`: what its help says), doing `run`."""
        return cls(
            said.name,
            said.syntax,
            said.summary,
            run,
            example=said.example,
            looks=said.looks,
            listed=said.listed,
            words=said.words,
        )

    @property
    def help_line(self) -> str:
        """'extend DURATION: more time for the open decision, for example: extend 1d'"""
        line = Joined(": ", [self.syntax, self.summary]) if self.summary else self.syntax
        # the separator stays as it is in every language: the mails split the line there
        return Joined(", for example: ", [line, self.example]) if self.example else line


class Commands:
    """The commands of one kind of sender, in the order their help lists them."""

    def __init__(
        self,
        commands: Sequence[Command],
        *,
        other: Command | None = None,
        guard: Callable[[Round, Command], None] | None = None,
        noun: str = Message("a command"),
        other_words: Callable[[str], bool] = lambda word: False,
        other_names: Sequence[str] = (),
        sign_off: bool = False,
        hidden: Sequence[str] = (),
        raises: bool = False,
    ) -> None:
        # a line that raises (a fault of ours) raises on, undoing the caller's whole
        # transaction, instead of being undone alone and answered: no one wrote it (the clock)
        self.raises = raises
        # whether a line that is no command, after commands that were done, ends the
        # commands quietly (a sign-off) instead of being refused
        self.sign_off = sign_off
        self.other_words = other_words  # the first words of the lines `other` reads
        self.other_names = tuple(other_names)  # ... those a misspelt word may mean
        self.noun = noun  # what an unknown verb is not: "a game master command"
        self.hidden = tuple(hidden)  # answered, but not offered to a line that is no command
        self.commands = tuple(commands)
        self.by_name = {c.name: c for c in self.commands}
        # every language's word for a command, and the same without accents ('szabalyok')
        self.aliases = {word: c.name for c in self.commands for _, word in c.words}
        self.plain = {without_accents(word): name for word, name in self.aliases.items()}
        self.other = other  # runs a line that names no command (a player's move)
        self.guard = guard  # checked before any command that changes the game

    def __iter__(self) -> Iterator[Command]:
        return iter(self.commands)

    def named(self, word: str) -> Command | None:
        """The command `word` names: its English name, or a language's own word for it
        (`aiuto` is `help`, whatever the writer's language)."""
        found = self.by_name.get(self.aliases.get(word, word))
        if found is None:  # accents do not matter: 'stâtus', 'szabalyok'
            plain = without_accents(word)
            found = self.by_name.get(self.plain.get(plain, plain))
        return found

    def find(self, line: str) -> tuple[Command, str]:
        """The command a line names, and the rest of the line."""
        whole = line.lower().strip(" .!")
        found = self.named(whole)
        if found is not None and found.looks:
            return found, ""
        verb = whole.partition(" ")[0]
        rest = line.strip().partition(" ")[2].strip()
        found = self.named(verb)
        if found is not None and not found.looks:
            return found, rest.strip()
        if self.other is not None:
            return self.other, line
        raise CommandError(
            self.unknown(line.strip().partition(" ")[0].lower()), code="unknown-command"
        )

    def knows(self, line: str) -> bool:
        """Whether a line begins like a command (its words may still be wrong, or its first
        word misspelt: 'staus' is no sign-off)."""
        verb = line.lower().strip(" .!").partition(" ")[0]
        named = self.named(verb) is not None or self.other_words(verb)
        return named or self.closest(verb, cutoff=SURELY_MEANT) is not None

    def closest(self, word: str, cutoff: float = 0.6) -> str | None:
        """The command word a misspelt `word` may mean ('staus' -> 'status'): a command of
        this registry, any language's word for one, or a word `other` reads."""
        names = {c.name.partition(" ")[0] for c in self}
        words = [*names, *self.aliases, *self.other_names]
        close = difflib.get_close_matches(word.lower(), words, n=1, cutoff=cutoff)
        return close[0] if close and word else None

    def unknown(self, verb: str) -> str:
        changes = ", ".join(c.name for c in self if not c.looks and c.name not in self.hidden)
        looks = ", ".join(c.name for c in self if c.looks and c.name not in self.hidden)
        close = self.closest(verb)
        if not changes:  # an observer of a game whose observers only watch
            if close is not None:
                return Message(
                    "{word!r} is not {noun}. Did you mean {command}? The commands: {looks}.",
                    word=verb,
                    noun=self.noun,
                    command=close,
                    looks=looks,
                )
            return Message(
                "{word!r} is not {noun}. The commands: {looks}.",
                word=verb,
                noun=self.noun,
                looks=looks,
            )
        if close is not None:
            return Message(
                "{word!r} is not {noun}. Did you mean {command}? The commands: {changes} "
                "(and {looks}).",
                word=verb,
                noun=self.noun,
                command=close,
                changes=changes,
                looks=looks,
            )
        return Message(
            "{word!r} is not {noun}. The commands: {changes} (and {looks}).",
            word=verb,
            noun=self.noun,
            changes=changes,
            looks=looks,
        )

    def looks(self) -> tuple[Command, ...]:
        return tuple(c for c in self if c.looks)

    def help_lines(self) -> tuple[str, ...]:
        """The listed commands that change the game, one help line each."""
        return tuple(c.help_line for c in self if c.listed and not c.looks)


def run_lines(round: Round, lines: Sequence[str], commands: Commands) -> None:
    """Apply `lines` in order until one fails; the lines after it are ignored. With
    `commands.sign_off`, once a line was done, a line that is no command (a greeting, a
    name, "Thanks!") ends the commands: it and the lines after it are left unread, in one
    quiet result, never an error."""
    if not lines:
        said = (
            Message("no command found in your reply")
            if round.seat is not None
            else Message("no command found in your mail")
        )
        round.results.append(LineResult("(nothing)", LineOutcome.REJECTED, said, code="empty"))
    for index, line in enumerate(lines):
        if round.failed:
            round.results.append(after_rejected(line))
            continue
        if commands.sign_off and index > 0 and not commands.knows(line):
            after = len(lines) - index - 1
            said = (
                counted(
                    "not a command, so not read, nor the line after it",
                    "not a command, so not read, nor the {count} lines after it",
                    after,
                )
                if after
                else Message("not a command, so not read")
            )
            round.results.append(LineResult(line, LineOutcome.IGNORED, said))
            break
        result = _run_line(round, index + 1, line, commands)
        round.results.append(result)
    for place, make in round.later.items():  # the game after every line, not halfway
        round.answers[place] = make()
    round.later.clear()


# what a line that raised says to its sender (a fault of ours, not of their line)
FAILED = Message(
    "the service failed on this line: nothing of it was applied, and the host was told"
)


def _run_line(round: Round, number: int, line: str, commands: Commands) -> LineResult:
    """One line, in a savepoint of the mail's transaction: refused, it changes nothing;
    should it raise (a fault of ours), it alone is undone, in the database and in memory,
    and the fault is kept in `round.table.faults` for the host. A database error is raised:
    the mail is tried again (or quarantined whole) by the caller."""
    db, kept = round.table.db, _kept(round)
    try:
        with db.begin_nested():
            command, argument = commands.find(line)
            if not command.looks and commands.guard is not None:
                commands.guard(round, command)
            detail = command.run(round, argument)
    except (CommandError, ChoiceError) as error:
        return LineResult(line, LineOutcome.REJECTED, said_by(error), code=error.code)
    except DBAPIError:
        raise
    except Exception as error:  # a fault of ours: this line alone is undone
        if commands.raises:
            raise
        _undo(round, kept)
        fault = LineFault(number, line, _fault_text(error), traceback.format_exc())
        round.table.faults.append(fault)
        log.error(
            "game %s: line %d %r failed and was undone: %s",
            round.table.game.id,
            number,
            shown(line, 80),
            fault.error,
            exc_info=error,
        )
        return LineResult(line, LineOutcome.REJECTED, FAILED, code="fault")
    outcome = LineOutcome.ANSWERED if command.looks else LineOutcome.APPLIED
    return LineResult(line, outcome, detail)


def _kept(round: Round) -> dict[str, Any]:
    """What a line may change in memory, as it is before the line: the round's lists
    (copied) and values, the table's seats and observers."""
    kept: dict[str, Any] = {
        f.name: _copied(getattr(round, f.name)) for f in fields(round) if f.name != "table"
    }
    kept["table.seats"] = list(round.table.seats)
    kept["table.observers"] = list(round.table.observers)
    return kept


def _copied(value: Any) -> Any:
    """A list or dict of the round as it is now, apart from the one the line may change."""
    if isinstance(value, list):
        return list(value)
    return dict(value) if isinstance(value, dict) else value


def _undo(round: Round, kept: dict[str, Any]) -> None:
    """After a line's savepoint was rolled back: the round and the table in memory as they
    were before it (the rows are reloaded from the database as they are read again, the
    state of play replayed from the moves the lines before it stored)."""
    table = round.table
    table.seats = kept.pop("table.seats")
    table.observers = kept.pop("table.observers")
    for name, value in kept.items():
        setattr(round, name, value)
    table.reload_state()


def _fault_text(error: BaseException) -> str:
    """A fault in one line: its type, its text and where it was raised (file:line in
    function), for the host's quarantine and log."""
    frames = traceback.extract_tb(error.__traceback__)
    where = " < ".join(
        f"{Path(frame.filename).name}:{frame.lineno} {frame.name}" for frame in reversed(frames)
    )
    return shown(f"{type(error).__name__}: {error} at {where}", 400)


def after_rejected(line: str) -> LineResult:
    """A line left unread because a line before it was refused."""
    return LineResult(line, LineOutcome.IGNORED, Message("after a rejected line"))


def player_seat(round: Round) -> Seat:
    """The seat of the player whose command runs."""
    assert round.seat is not None, "a player's command needs the player's seat"
    return round.seat


def find_seat(seats: Sequence[Seat], word: str) -> Seat:
    """A seat named by its number (1-based), its colour, its colour's letter or its player."""
    text = word.strip().lower()
    if text.isascii() and text.isdigit() and len(text) < 3 and 1 <= int(text) <= len(seats):
        return seats[int(text) - 1]
    colour = BY_LETTER.get(text.upper()) if len(text) == 1 else text
    for seat in seats:
        if seat.colour == colour or seat.name.lower() == text:
            return seat
    if text in COLOURS:
        raise CommandError(
            Message("Nobody plays {colour} in this game.", colour=news.colour(text)),
            code="colour-not-playing",
        )
    raise CommandError(
        Message(
            "No seat {word!r}: name a seat by its number (1-{last}), its colour or its player.",
            word=shown(word, 40),
            last=len(seats),
        ),
        code="no-seat",
    )


def said_by(error: Exception) -> str:
    """What an error says, kept translatable when it was made of a message."""
    first = error.args[0] if len(error.args) == 1 else None
    return first if isinstance(first, (Message, Joined)) else str(error)


# -- the commands that look: the same for players and game masters ------------------------


def status_text(table: Table, tz: str | None = None) -> str:
    """Whose decision it is, and its deadline (in UTC, and in the zone `tz` if given)."""
    game = table.game
    status = letters.waiting(
        table.state,
        table.names,
        over=table.over,
        paused=game.status == GameStatus.PAUSED,
    )
    if game.deadline_at is not None and game.status == GameStatus.RUNNING:
        shown = view.deadline(as_utc(game.deadline_at), tz)
        if shown.local:
            said = Message("The deadline is {utc} ({local}).", utc=shown.utc, local=shown.local)
        else:
            said = Message("The deadline is {utc}.", utc=shown.utc)
        decision = table.state.decision
        seat = table.seats[decision.seat] if decision is not None else None
        if seat is not None and seat.away_until and as_utc(seat.away_until) > table.now:
            away = Message(  # why the deadline is so far off
                "{name} ({colour}) is on vacation until {back}: their deadlines wait.",
                name=seat.name,
                colour=news.colour(seat.colour),
                back=view.when(as_utc(seat.away_until)),
            )
            return Joined(" ", [status, said, away])
        return Joined(" ", [status, said])
    return status


def _status(round: Round, argument: str) -> str:
    round.answer_when_done(AnswerTopic.STATUS, partial(_status_text, round))
    return ""


def _status_text(round: Round) -> str:
    tz = round.seat.tz if round.seat is not None else None
    status = status_text(round.table, tz)
    if round.seat is not None:
        lang = round.seat.lang if known(round.seat.lang) else ENGLISH
        said = Message(
            "Your mails are in {language} (lang {code}); lang alone lists the languages.",
            language=named(lang),
            code=lang,
        )
        status = Joined(" ", [status, said])
    return status


def _log(round: Round, argument: str) -> str:
    round.answer_when_done(AnswerTopic.LOG, lambda: round.table.log_text())
    return ""


def _log_talk(round: Round, argument: str) -> str:
    """The moves so far with the table talk its reader may see, in the order of time."""
    table = round.table
    names = {s.seat: f"{s.name} ({s.colour})" for s in table.seats}
    moves = table.db.exec(
        select(Move).where(Move.game_id == table.game.id).order_by(col(Move.number))
    )
    talk = list(
        table.db.exec(select(Talk).where(Talk.game_id == table.game.id).order_by(col(Talk.id)))
    )
    everything = round.seat is None and round.observer is None  # a game master
    if everything and not table.settings.gm_reads_talk:
        talk, note = (
            [],
            [Message("(The table talk is the players' own: the host keeps it from you.)")],
        )
    else:
        note = []
    if round.seat is not None:
        mine = round.seat.seat
        talk = [t for t in talk if t.to_seat is None or mine in (t.to_seat, t.seat)]
    elif round.observer is not None:
        talk = [t for t in talk if t.to_seat is None]
    lines: list[tuple[datetime, int, str]] = [
        (as_utc(m.created_at), 0, f"{m.number:>4}  {table.seats[m.seat].name:<12} {m.choice}")
        for m in moves
    ]
    for t in talk:
        if t.to_seat is None:
            said = Message(
                "{speaker} to the table: {text}", speaker=news.speaker(t.speaker), text=t.text
            )
        else:
            to = names.get(t.to_seat, "?")
            said = Message(
                "{speaker} to {to}: {text}", speaker=news.speaker(t.speaker), to=to, text=t.text
            )
        lines.append((as_utc(t.at), 1, Joined("", ["      ", said])))
    lines.sort(key=lambda item: (item[0], item[1]))
    round.answers.append(
        Answer(AnswerTopic.LOG, Joined("\n", [*(line for *_, line in lines), *note]))
    )
    return ""


def board_text(table: Table) -> str:
    """The board as text, for the host's command line."""
    return render_board_text(view.board(table.state, table.names, table.bots))


def _board(round: Round, argument: str) -> str:
    round.show_board = True
    if round.answering is None:  # the host reads the board on the command line
        round.answer_when_done(AnswerTopic.BOARD, lambda: board_text(round.table))
    return ""


BOARD = Command.of(usage.BOARD, _board)
STATUS = Command.of(usage.STATUS, _status)
LOG = Command.of(usage.LOG, _log)
LOG_TALK = Command.of(usage.LOG_TALK, _log_talk)


__all__ = [
    "BOARD",
    "FAILED",
    "LOG",
    "LOG_TALK",
    "STATUS",
    "Command",
    "CommandError",
    "Commands",
    "Round",
    "after_rejected",
    "board_text",
    "find_seat",
    "run_lines",
    "said_by",
    "status_text",
]
