"""The players' commands: a move (a listed option's number, or the move in the game's
notation), the commands that look at the game, and a seat's settings (vacation, tz).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from engine import (
    SYNTAX,
    Choice,
    ChoiceError,
    ChoiceMade,
    DirectionError,
    IslandNameError,
    Message,
    State,
    explain_direction,
    explain_island,
    is_move_word,
    parse_choice,
)
from pbem.commands.registry import (
    BOARD,
    LOG,
    LOG_TALK,
    STATUS,
    Command,
    CommandError,
    Commands,
    Round,
    player_seat,
)
from pbem.commands.settings import (
    LANG,
    MAIL,
    SHORTEST_VACATION,
    TELL_AFTER,
    TZ,
    VACATION,
    back_from_vacation,
    on_vacation,
    vacation_summary,
)
from pbem.commands.talk import SAY, TELL
from pbem.commands.usage import HELP_WORDS, said
from pbem.core import AnswerTopic, GameStatus, LineOutcome, MoveSource, WatchEnd, as_utc, shown
from pbem.store import Declined, Observer, Seat
from pbem.views import news
from pbem.views.i18n import sea_notation
from pbem.views.view import Answer, numbered


def read_choice(state: State, line: str, *, numbers: bool, may_pass: bool = False) -> Choice:
    """The choice a line names: the number of a listed option (when `numbers`), or a command;
    `pass` (the house rule of a missed deadline) only when `may_pass`."""
    text = line.strip().rstrip(").")
    if text.isdigit() or text.isdecimal() or text.isnumeric():  # '3', and '³', '٣', '②' too
        if not numbers:
            raise _refused(
                "number-past",
                Message(
                    "A number only picks from the options of the mail you answer; "
                    "for the decisions after it, write the command itself."
                ),
            )
        legal = numbered(state.legal_choices())
        number = int(text) if text.isascii() and len(text) <= 6 else 0
        if not text.isascii():
            raise _refused(
                "not-digits",
                Message(
                    "{word!r} is not a number the game reads: write the option's "
                    "number in digits 0-9 (1-{last}).",
                    word=shown(text, 20),
                    last=len(legal),
                ),
            )
        if not 1 <= number <= len(legal):
            raise _refused(
                "no-option",
                Message(
                    "There is no option {word}; the options are 1-{last}.",
                    word=shown(text, 20),
                    last=len(legal),
                ),
            )
        return legal[number - 1]
    first, _, rest = text.partition(" ")
    if first.rstrip(").:").isdigit() and rest.strip():  # '2) place Tonga b', '1 2'
        return _numbered_line(state, first.rstrip(").:"), rest, numbers=numbers)
    try:
        choice = parse_choice(sea_notation(line))  # 'put mare K NW red S' too
    except DirectionError as error:  # a jetty's direction: said with the beach's jetties
        raise DirectionError(
            explain_direction(state, error), word=error.word, island=error.island
        ) from None
    except IslandNameError as error:  # a misspelt island: the decision's and the board's
        raise IslandNameError(explain_island(state, error), word=error.word) from None
    if str(choice) == "pass" and not may_pass:
        raise _refused(
            "no-pass",
            Message("A turn is passed only by the game when its deadline passes; choose a move."),
        )
    return choice


def _refused(code: str, message: str) -> ChoiceError:
    """A choice refused before the engine sees it, with the code of its refusal."""
    error = ChoiceError(message)
    error.code = code
    return error


def _numbered_line(state: State, number: str, rest: str, *, numbers: bool) -> Choice:
    """A line with an option's number and more: an option's line copied from the mail
    ('2) place Tonga b') is that option when both name it; anything else is refused. For a
    decision after the one the mail asked (no numbers), the command alone is read."""
    if not numbers:
        return read_choice(state, rest, numbers=False)
    picked = read_choice(state, number, numbers=numbers)
    try:
        written = parse_choice(sea_notation(rest))
    except ChoiceError:  # not notation
        written = None
    # the engine says whether the command is allowed; only one that is names an option
    named = state.resolve(written) if written is not None and state.is_legal(written) else None
    if named == picked:
        return picked
    if named is not None:
        raise _refused(
            "option-differs",
            Message(
                "Option {number} is {option}, not {named}: write its number alone or the "
                "command alone.",
                number=number,
                option=str(picked),
                named=str(named),
            ),
        )
    raise _refused(
        "one-option",
        Message(
            "Write one option on a line: its number alone ({number}) or its command alone.",
            number=number,
        ),
    )


def _move(round: Round, line: str) -> str:
    """Make the sender's open decision: the first may be a listed option's number. A line
    that names what the game already did by itself (the only option) counts as done."""
    try:
        return _make(round, line)
    except ChoiceError:
        if _forced_already(round, line):
            return Message("already done: the only option")
        raise


def _forced_already(round: Round, line: str) -> bool:
    """Whether `line` names a choice the game made for the sender by itself in this round."""
    try:
        said = str(parse_choice(line))
    except ChoiceError:
        return False
    colour = player_seat(round).colour
    return any(
        isinstance(e, ChoiceMade) and e.forced and e.colour == colour and e.choice == said
        for e in round.events
    )


def _unknown(word: str) -> str:
    """The answer to a line that names no command: the command it may mean, and what the
    commands are."""
    others = ", ".join(c.name for c in PLAYER_COMMANDS if c.listed and not c.looks)
    looks = ", ".join(c.name for c in PLAYER_COMMANDS if c.looks)
    close = PLAYER_COMMANDS.closest(word)
    if close is not None:
        return Message(
            "{word!r} is not a command. Did you mean {command}? A move is a listed option's "
            "number or one of {moves}; also {others}; and {looks}.",
            word=shown(word, 30),
            command=close,
            moves=", ".join(SYNTAX),
            others=others,
            looks=looks,
        )
    return Message(
        "{word!r} is not a command. A move is a listed option's number or one of "
        "{moves}; also {others}; and {looks}.",
        word=shown(word, 30),
        moves=", ".join(SYNTAX),
        others=others,
        looks=looks,
    )


def _make(round: Round, line: str) -> str:
    word = line.strip().split(" ", 1)[0].lower()
    if not (is_move_word(word) or word.rstrip(").").isnumeric()):
        raise CommandError(_unknown(word), code="unknown-command")
    table, seat = round.table, player_seat(round)
    state, game = table.state, table.game
    decision = state.decision
    if decision is None or game.status == GameStatus.OVER:
        raise CommandError(Message("The game is over."), code="game-over")
    if game.status == GameStatus.PAUSED:
        raise CommandError(
            Message("The game master has paused the game: no move can be made until it resumes."),
            code="paused",
        )
    mine = decision.seat == seat.seat
    first = round.moves == 0
    answered = round.answering.decision if round.answering is not None else decision.number
    if first and answered != decision.number:
        if mine:
            raise CommandError(
                Message(
                    "This answers decision {answered}, which is past; "
                    "decision {number} is yours: the options are below.",
                    answered=answered,
                    number=decision.number,
                ),
                code="decision-past",
            )
        raise CommandError(
            Message(
                "This answers decision {answered}, which is past; decision {number} is {colour}'s.",
                answered=answered,
                number=decision.number,
                colour=news.colour(decision.colour),
            ),
            code="decision-past",
        )
    if not mine:
        raise CommandError(
            Message(
                "It is not your decision now (decision {number} is {colour}'s).",
                number=decision.number,
                colour=news.colour(decision.colour),
            ),
            code="not-your-decision",
        )
    choice = read_choice(state, line, numbers=first)
    events = state.apply(choice)  # raises ChoiceError, changing nothing, if it is not legal
    back_from_vacation(round)  # whoever plays is not away: the days left are kept
    table.record(seat.seat, MoveSource.MAIL, round.inbound_id)
    made = str(state.log[-1])
    round.events += events
    round.moves += 1
    if seat.auto_moves:  # set only when it changes: a row set alike still costs a flush
        seat.auto_moves = 0
    round.events += table.play_bots()
    return made


def _help(round: Round, argument: str) -> str:
    round.answers.append(Answer(AnswerTopic.HELP))  # the players' help: the mail's template has it
    return ""


def _rules(round: Round, argument: str) -> str:
    round.answers.append(Answer(AnswerTopic.RULES))  # as docs/rules.md has them
    return ""


CONFIRM_WITHIN = timedelta(days=1)  # `confirm` alone acts in a reply to the mail that asked


def _resign(round: Round, argument: str) -> str:
    word = argument.rstrip(".!").lower()
    if word == "confirm":
        return _leave(round)
    if word:
        raise CommandError(
            Message("Write resign, then confirm on the next line (or resign confirm)."),
            code="resign-form",
        )
    if player_seat(round).resigned:
        raise CommandError(left_game(player_seat(round)), code="resigned")
    round.asked = "resign"
    bot = round.table.settings.absent_bot
    return Message(
        "you have not left yet: to leave the game, reply to this mail with confirm within 24 "
        "hours, or write confirm on the next line or resign confirm: the {bot} bot then plays "
        "your seat to the end, and your points stay yours",
        bot=bot,
    )


def _confirm(round: Round, argument: str) -> str:
    if argument or "resign" not in (round.asked, round.asked_before):
        raise CommandError(
            Message(
                "There is nothing to confirm: confirm follows a line resign, or answers "
                "the mail that asked within 24 hours."
            ),
            code="nothing-to-confirm",
        )
    return _leave(round)


def asked_before(seat: Seat, answering: int, now: datetime) -> str:
    """The command a mail answering decision `answering` may confirm with `confirm` alone:
    the one the seat was asked about in the mail it answers, within a day ("" if none)."""
    if not seat.asked or seat.asked_at is None or seat.asked_decision != answering:
        return ""
    return seat.asked if now < as_utc(seat.asked_at) + CONFIRM_WITHIN else ""


GREETING_LINES = 3  # leading lines of a reply that may be skipped as a greeting, at most


def greeting(round: Round, lines: Sequence[str], commands: Commands) -> int:
    """How many leading lines of a player's reply to skip as a greeting ("Hi everyone!",
    "Sorry I was away."): at most GREETING_LINES lines that are no command, followed by a
    line that is a move the sender's open decision allows (its notation, or an option's
    number). An autoresponder's prose, with no such move in it, is never skipped: it is
    refused as before, and moves nothing."""
    state, seat = round.table.state, round.seat
    decision = state.decision
    if decision is None or seat is None or decision.seat != seat.seat:
        return 0
    numbers = round.answering is not None and round.answering.decision == round.opened
    for index, line in enumerate(lines[: GREETING_LINES + 1]):
        if commands.knows(line):
            return index if index and _allowed_move(state, line, numbers) else 0
    return 0


def _allowed_move(state: State, line: str, numbers: bool) -> bool:
    try:
        return state.is_legal(read_choice(state, line, numbers=numbers))
    except ChoiceError:  # not notation, or not allowed now
        return False


def remember_asked(round: Round) -> None:
    """After a player's mail: a command it asked to confirm waits for a reply to the answer
    (whose reply address names the decision open now)."""
    seat = player_seat(round)
    if round.asked and not seat.resigned:
        seat.asked, seat.asked_at = round.asked, round.table.now
        seat.asked_decision = round.table.game.decision


def back_if_absent(round: Round, seat: Seat) -> None:
    """A player marked absent who wrote a line that was read plays again."""
    done = (LineOutcome.APPLIED, LineOutcome.ANSWERED)
    if not seat.absent or not any(r.outcome in done for r in round.results):
        return
    seat.absent = False
    seat.auto_moves = 0
    round.announced.insert(
        0,
        Message(
            "{name} ({colour}) is back and plays again.",
            name=seat.name,
            colour=news.colour(seat.colour),
        ),
    )


def left_game(seat: Seat) -> str:
    """The answer to a player who resigned and writes anything but a look at the game."""
    if seat.resigned_at is None:
        return Message("You left this game; you can still read it with status, log, board.")
    return Message(
        "You left this game (resigned at decision {number}); you can still read it with "
        "status, log, board.",
        number=seat.resigned_at,
    )


def _leave(round: Round) -> str:
    """The sender resigns: a bot plays the seat to the end; the points stay the player's."""
    table, seat = round.table, player_seat(round)
    if seat.resigned:
        raise CommandError(left_game(seat), code="resigned")
    if table.game.status == GameStatus.OVER:
        raise CommandError(Message("The game is over."), code="game-over")
    bot = table.settings.absent_bot
    seat.resigned, seat.bot, seat.absent, seat.away_until = True, bot, False, None
    seat.resigned_at = table.game.decision
    seat.asked, seat.asked_at, seat.asked_decision = "", None, None
    round.asked = ""
    round.farewell = True
    round.announced.append(
        Message(
            "{name} ({colour}) resigned: the {bot} bot plays {colour} to the end "
            "of the game, and its points stay {name}'s.",
            name=seat.name,
            colour=news.colour(seat.colour),
            bot=bot,
        )
    )
    round.events += table.advance()
    return Message("you left the game; the {bot} bot plays your seat to the end", bot=bot)


MOVE = Command(
    "move",
    "NUMBER or MOVE",
    Message("a listed option's number, or the move in the game's notation"),
    _move,
)
HELP = Command("help", "help", Message("this text"), _help, looks=True, words=HELP_WORDS)
RULES = Command(
    "rules",
    "rules",
    Message("the rules of the game"),
    _rules,
    looks=True,
    words=said(it="regole", nl="regels", fi="säännöt", hu="szabályok", he="חוקים"),
)


RESIGN = Command(
    "resign",
    "resign",
    Message("leave the game: a bot plays your seat to the end; asks you to confirm"),
    _resign,
    example="resign",
    words=said(it="ritirati", nl="opgeven", fi="luovuta", hu="feladom", he="פרישה"),
)
CONFIRM = Command(
    "confirm",
    "confirm",
    "",
    _confirm,
    listed=False,
    words=said(it="conferma", nl="bevestig", fi="vahvista", hu="megerősítem", he="אישור"),
)


def _watcher(round: Round) -> Observer:
    """The observer whose command runs (the registries of players never hold theirs)."""
    assert round.observer is not None, "an observer's command needs the observer"
    return round.observer


def _watch(round: Round, argument: str) -> str:
    """An invitation to watch accepted: the game's mails from now on, and the players
    learn who watches."""
    table, watcher = round.table, _watcher(round)
    if watcher.confirmed_at is not None:
        raise CommandError(Message("You watch this game already."), code="watching-already")
    if argument:  # no autoresponder's "Watch this space ..." accepts for anyone
        raise CommandError(Message("Write watch alone on its line to accept."), code="watch-form")
    watcher.confirmed_at = table.now
    declined = table.db.get(Declined, watcher.address.lower())
    if declined is not None:  # their own yes: game masters may invite them again
        table.db.delete(declined)
    table.observers.append(watcher)
    round.watchers.append(watcher)
    round.announced.append(Message("{name} watches the game now.", name=watcher.name))
    return "accepted the invitation to watch"


def _stop(round: Round, argument: str) -> str:
    """No more mail of this game, whatever it was (an invitation, or watching); an address
    that declines an invitation is invited by no game master again."""
    table, watcher = round.table, _watcher(round)
    watching = watcher.confirmed_at is not None
    watcher.ended, watcher.ended_at = WatchEnd.STOP, table.now
    round.farewell = True
    if watching:
        table.observers[:] = [o for o in table.observers if o is not watcher]
        if not table.over:  # after the game over, the players hear nothing more of it
            round.announced.append(Message("{name} no longer watches the game.", name=watcher.name))
        return "stopped watching: no more mail of this game"
    address = watcher.address.lower()
    if table.db.get(Declined, address) is None:
        assert table.game.id is not None
        table.db.add(Declined(address=address, at=table.now, game_id=table.game.id))
    return "declined the invitation: no game master invites this address again"


WATCH = Command(
    "watch",
    "watch",
    Message("accept the invitation to watch this game"),
    _watch,
    listed=False,
    words=said(it="guarda", nl="meekijken", fi="seuraa", hu="figyelem", he="צפייה"),
)
STOP = Command(
    "stop",
    "stop",
    Message("no more mail of this game (unsubscribe)"),
    _stop,
    words=said(it="basta", nl="afmelden", fi="lopeta", hu="leiratkozom", he="הסרה"),
)
# the other words people write to stop a mail: the same command, never offered
STOP_WORDS = (
    STOP,
    Command("unsubscribe", "unsubscribe", "", _stop, listed=False),
    Command("unobserve", "unobserve", "", _stop, listed=False),
)

# what someone invited to watch may write, before they accept: anything else goes unanswered
INVITED_COMMANDS = Commands(
    (WATCH, *STOP_WORDS), noun=Message("a command for observers"), sign_off=True
)

# what an observer may write
OBSERVING = (HELP, RULES, BOARD, STATUS, LOG, LOG_TALK, SAY, *STOP_WORDS, WATCH)
_UNOFFERED = tuple(c.name for c in (*STOP_WORDS, WATCH) if not c.listed)
OBSERVER_COMMANDS = Commands(
    OBSERVING, noun=Message("a command for observers"), sign_off=True, hidden=_UNOFFERED
)
# ... in a game whose observers only watch: `say` is answered (refused), but never offered
QUIET_OBSERVER_COMMANDS = Commands(
    OBSERVING,
    noun=Message("a command for observers"),
    sign_off=True,
    hidden=(SAY.name, *_UNOFFERED),
)


def wants_stop(lines: list[str]) -> bool:
    """Whether the first line of a mail says `stop` (or `unsubscribe`, in any language)."""
    if not lines:
        return False
    try:
        command, _ = INVITED_COMMANDS.find(lines[0])
    except CommandError:
        return False
    return command.run is _stop


# what a player may write; any other line is read as a move
PLAYER_COMMANDS = Commands(
    (
        HELP,
        RULES,
        BOARD,
        STATUS,
        LOG,
        LOG_TALK,
        VACATION,
        TZ,
        LANG,
        SAY,
        TELL,
        MAIL,
        RESIGN,
        CONFIRM,
    ),
    other=MOVE,
    other_words=lambda word: is_move_word(word) or word.rstrip(").").isnumeric(),
    other_names=tuple(SYNTAX),
    sign_off=True,
)


def _left(round: Round, line: str) -> str:
    raise CommandError(left_game(player_seat(round)), code="resigned")


# what a player who resigned may write: the commands that look; anything else is refused
RESIGNED_COMMANDS = Commands(
    (HELP, RULES, BOARD, STATUS, LOG, LOG_TALK),
    other=Command("left", "", "", _left, listed=False),
    other_words=lambda word: PLAYER_COMMANDS.knows(word),
    sign_off=True,
)


__all__ = [
    "INVITED_COMMANDS",
    "MOVE",
    "OBSERVER_COMMANDS",
    "PLAYER_COMMANDS",
    "QUIET_OBSERVER_COMMANDS",
    "RESIGNED_COMMANDS",
    "SAY",
    "SHORTEST_VACATION",
    "STOP",
    "TELL_AFTER",
    "WATCH",
    "asked_before",
    "greeting",
    "left_game",
    "on_vacation",
    "read_choice",
    "remember_asked",
    "vacation_summary",
    "wants_stop",
]
