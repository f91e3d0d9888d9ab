"""The players' commands: a move (a listed option's number, or the move in the game's
notation), the commands that look at the game, and a seat's settings (vacation, tz).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlmodel import col, func, select

from engine import (
    SYNTAX,
    Choice,
    ChoiceError,
    ChoiceMade,
    DirectionError,
    IslandNameError,
    Message,
    State,
    counted,
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
    find_seat,
    said_by,
)
from pbem.core.clock import (
    DurationError,
    as_utc,
    parse_duration,
    zone_meant,
    zone_named,
)
from pbem.core.kinds import (
    AnswerTopic,
    GameStatus,
    LineOutcome,
    MailMode,
    MoveSource,
    PictureChoice,
    WatchEnd,
)
from pbem.core.text import shown
from pbem.game import decision_clock
from pbem.store.models import Declined, Game, MailChoice, Observer, Seat, Talk
from pbem.views import news
from pbem.views.i18n import LANGUAGES, choices, duration, known, named
from pbem.views.view import Answer, numbered, when

SHORTEST_VACATION = 6 * 3600  # seconds
HOUR = 3600  # seconds: a vacation counts by the hour it was on
TELL_AFTER = timedelta(hours=1)  # a vacation is news to the others once on this long
TALK_LENGTH = 300  # characters of one thing said to the table
ENDS = ("off", "back", "0", "end", "over", "none", "stop")  # vacation off: back now


def read_choice(state: State, line: str, *, numbers: bool, may_pass: bool = False) -> Choice:
    """The choice a line names: the number of a listed option (when `numbers`), or a command;
    `pass` (the house rule of a missed deadline) only when `may_pass`."""
    text = line.strip().rstrip(").")
    if text.isdigit() or text.isdecimal() or text.isnumeric():  # '3', and '³', '٣', '②' too
        if not numbers:
            raise ChoiceError(
                Message(
                    "A number only picks from the options of the mail you answer; "
                    "for the decisions after it, write the command itself."
                )
            )
        legal = numbered(state.legal_choices())
        number = int(text) if text.isascii() and len(text) <= 6 else 0
        if not text.isascii():
            raise ChoiceError(
                Message(
                    "{word!r} is not a number the game reads: write the option's "
                    "number in digits 0-9 (1-{last}).",
                    word=shown(text, 20),
                    last=len(legal),
                )
            )
        if not 1 <= number <= len(legal):
            raise ChoiceError(
                Message(
                    "There is no option {word}; the options are 1-{last}.",
                    word=shown(text, 20),
                    last=len(legal),
                )
            )
        return legal[number - 1]
    first, _, rest = text.partition(" ")
    if first.rstrip(").:").isdigit() and rest.strip():  # '2) place Tonga b', '1 2'
        return _numbered_line(state, first.rstrip(").:"), rest, numbers=numbers)
    try:
        choice = parse_choice(line)
    except DirectionError as error:  # a jetty's direction: said with the beach's jetties
        raise DirectionError(
            explain_direction(state, error), word=error.word, island=error.island
        ) from None
    except IslandNameError as error:  # a misspelt island: the decision's and the board's
        raise IslandNameError(explain_island(state, error), word=error.word) from None
    if str(choice) == "pass" and not may_pass:
        raise ChoiceError(
            Message("A turn is passed only by the game when its deadline passes; choose a move.")
        )
    return choice


def _numbered_line(state: State, number: str, rest: str, *, numbers: bool) -> Choice:
    """A line with an option's number and more: an option's line copied from the mail
    ('2) place Tonga b') is that option when both name it; anything else is refused. For a
    decision after the one the mail asked (no numbers), the command alone is read."""
    if not numbers:
        return read_choice(state, rest, numbers=False)
    picked = read_choice(state, number, numbers=numbers)
    try:
        written = parse_choice(rest)
    except ChoiceError:  # not notation
        written = None
    # the engine says whether the command is allowed; only one that is names an option
    named = state.resolve(written) if written is not None and state.is_legal(written) else None
    if named == picked:
        return picked
    if named is not None:
        raise ChoiceError(
            Message(
                "Option {number} is {option}, not {named}: write its number alone or the "
                "command alone.",
                number=number,
                option=str(picked),
                named=str(named),
            )
        )
    raise ChoiceError(
        Message(
            "Write one option on a line: its number alone ({number}) or its command alone.",
            number=number,
        )
    )


def _seat(round: Round) -> Seat:
    assert round.seat is not None, "a player's command needs the player's seat"
    return round.seat


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
    colour = _seat(round).colour
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
        raise CommandError(_unknown(word))
    table, seat = round.table, _seat(round)
    state, game = table.state, table.game
    decision = state.decision
    if decision is None or game.status == GameStatus.OVER:
        raise CommandError(Message("The game is over."))
    if game.status == GameStatus.PAUSED:
        raise CommandError(
            Message("The game master has paused the game: no move can be made until it resumes.")
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
                )
            )
        raise CommandError(
            Message(
                "This answers decision {answered}, which is past; decision {number} is {colour}'s.",
                answered=answered,
                number=decision.number,
                colour=news.colour(decision.colour),
            )
        )
    if not mine:
        raise CommandError(
            Message(
                "It is not your decision now (decision {number} is {colour}'s).",
                number=decision.number,
                colour=news.colour(decision.colour),
            )
        )
    choice = read_choice(state, line, numbers=first)
    events = state.apply(choice)  # raises ChoiceError, changing nothing, if it is not legal
    _back_from_vacation(round)  # whoever plays is not away: the days left are kept
    table.record(seat.seat, MoveSource.MAIL, round.inbound_id)
    made = str(state.log[-1])
    round.events += events
    round.moves += 1
    seat.auto_moves = 0
    round.events += table.play_bots()
    return made


def _help(round: Round, argument: str) -> str:
    round.answers.append(Answer(AnswerTopic.HELP))  # the players' help: the mail's template has it
    return ""


def _rules(round: Round, argument: str) -> str:
    round.answers.append(Answer(AnswerTopic.RULES))  # as docs/rules.md has them
    return ""


def _tz(round: Round, argument: str) -> str:
    seat, argument = _seat(round), argument.rstrip(".")
    if argument.lower() in ("utc", "off", "none", ""):
        seat.tz = None
        return Message("your deadlines are shown in UTC only")
    zone = _time_zone(argument)
    seat.tz = zone
    return Message("your deadlines are shown in {zone} (and in UTC)", zone=zone)


def _lang(round: Round, argument: str) -> str:
    """The language of the sender's mails: `lang it`; `lang` alone says which it is and the
    choices. The answer to this very mail comes in the new language."""
    seat, code = _seat(round), argument.strip(" .").lower()
    if not code:
        return Message(
            "your mails are in {language}; the languages: {choices}",
            language=named(seat.lang),
            choices=choices(),
        )
    by_name = {name.lower(): lang for lang, name in LANGUAGES.items()}
    code = by_name.get(code, code)  # `lang italiano` too
    if not known(code):
        raise CommandError(
            Message(
                "{word!r} is not a language of the game. The languages: {choices}.",
                word=shown(argument.strip(), 40),
                choices=choices(),
            )
        )
    seat.lang = code
    return Message("your mails are in {language} from now on", language=named(code))


def _time_zone(text: str) -> str:
    """The canonical name of a time zone ('europe/berlin' -> 'Europe/Berlin'): only a name
    of the host's tz database, never a region alone ('Europe'), a path or a long text."""
    zone = zone_named(text)
    if zone is not None:
        return zone
    meant = zone_meant(text)
    if meant is not None:
        raise CommandError(
            Message(
                "{word!r} is not a time zone. Did you mean {zone}? Write it as in "
                "tz Europe/Berlin or tz America/New_York.",
                word=shown(text, 40),
                zone=meant,
            )
        )
    raise CommandError(
        Message(
            "{word!r} is not a time zone. Write it as in tz Europe/Berlin or tz America/New_York.",
            word=shown(text, 40),
        )
    )


def on_vacation(seat: Seat) -> str:
    """The news of a vacation, as everyone reads it."""
    assert seat.away_until is not None
    return Message(
        "{name} ({colour}) is on vacation until {back}: their deadlines wait.",
        name=seat.name,
        colour=news.colour(seat.colour),
        back=when(as_utc(seat.away_until)),
    )


def vacation_used(seat: Seat, now: datetime) -> int:
    """The seconds the vacation running now (since `away_since`) takes from the allowance
    if it ends at `now`: the time it was on, rounded up to the hour, at least an hour
    (switching it on and off is not free), at most what was asked for."""
    assert seat.away_until is not None and seat.away_since is not None
    on = (now - as_utc(seat.away_since)).total_seconds()
    hours = max(1, -int(-on // HOUR))
    planned = int((as_utc(seat.away_until) - as_utc(seat.away_since)).total_seconds())
    return min(hours * HOUR, planned)


def _back_from_vacation(round: Round) -> int | None:
    """End the sender's vacation now, if they are away (None if not): the time not used,
    rounded down to the hour it was on, is theirs again, and the open decision's deadline
    comes back by the time not used. The others hear of it if they heard of the vacation.
    Returns the seconds given back."""
    table, seat = round.table, _seat(round)
    now = table.now
    if seat.away_until is None or as_utc(seat.away_until) <= now:
        return None
    unused = int((as_utc(seat.away_until) - now).total_seconds())
    given_back = unused
    if seat.away_since is not None:
        planned = int((as_utc(seat.away_until) - as_utc(seat.away_since)).total_seconds())
        given_back = planned - vacation_used(seat, now)
    told = seat.away_told
    seat.away_until, seat.away_since, seat.away_told = None, None, False
    seat.vacation_used = max(seat.vacation_used - given_back, 0)
    decision = table.state.decision
    if decision is not None and decision.seat == seat.seat and table.game.deadline_at is not None:
        decision_clock.shift(table.game, -unused, table.settings.parsed_reminders, now)
    if told:  # a vacation switched off within the hour told nobody, nor does its end
        round.announced.append(
            Message(
                "{name} ({colour}) is back from vacation.",
                name=seat.name,
                colour=news.colour(seat.colour),
            )
        )
    return given_back


def _vacation(round: Round, argument: str) -> str:
    """Time away: the seat's deadlines wait until the player is back; `vacation off` ends
    it early. The others are told once it has been on for an hour (`TELL_AFTER`, by the
    clock: `pbem.flow.deadlines`), at once of a longer one they know of already."""
    table, seat = round.table, _seat(round)
    game, now, settings = table.game, table.now, table.settings
    if argument.rstrip(".").lower() in ENDS:
        if _back_from_vacation(round) is None:
            raise CommandError(Message("You are not on vacation."))
        remaining = duration(settings.vacation_allowance_seconds - seat.vacation_used)
        return Message(
            "your vacation is over; {left} of vacation left in this game", left=remaining
        )
    try:
        seconds = parse_duration(argument.rstrip("."))
    except DurationError as error:
        raise CommandError(
            Message("{error} Write it as: vacation 3d.", error=said_by(error))
        ) from error
    allowance = settings.vacation_allowance_seconds
    left = allowance - seat.vacation_used
    if seconds < SHORTEST_VACATION:  # each vacation may be news to everyone: not too many
        raise CommandError(
            Message(
                "A vacation lasts at least {shortest}; write it as: vacation 3d.",
                shortest=duration(SHORTEST_VACATION),
            )
        )
    if not 0 < seconds <= left:
        raise CommandError(
            Message(
                "You have {left} of vacation left in this game "
                "(of {allowance}); ask for at most that much.",
                left=duration(max(left, 0)),
                allowance=duration(allowance),
            )
        )
    if game.status == GameStatus.OVER:
        raise CommandError(Message("The game is over."))
    away = seat.away_until is not None and as_utc(seat.away_until) > now
    if not away:  # a new vacation: the others hear of it once it has been on for an hour
        seat.away_until, seat.away_since, seat.away_told = now, now, False
    assert seat.away_until is not None
    seat.away_until = as_utc(seat.away_until) + timedelta(seconds=seconds)
    seat.vacation_used += seconds
    decision = table.state.decision
    if decision is not None and decision.seat == seat.seat and game.deadline_at is not None:
        decision_clock.shift(game, seconds, settings.parsed_reminders, now)
    if away and seat.away_told:  # longer: the others knew of the vacation
        round.announced.append(on_vacation(seat))
    left_after = duration(allowance - seat.vacation_used)
    return Message(
        "you are away until {back}; your deadlines wait until then ({left} of vacation left)",
        back=when(seat.away_until),
        left=left_after,
    )


def _talk_text(text: str) -> str:
    """What a player says, as others read it: one line, no control or invisible
    characters (bidi overrides included), at most TALK_LENGTH characters."""
    kept = "".join(
        c for c in text if c == "\u200d" or unicodedata.category(c) not in ("Cc", "Cf", "Cs")
    )
    kept = " ".join(kept.split())
    if not kept:
        raise CommandError(
            # Translators: {form} is "say TEXT" as the help writes it, {example} its example
            Message("Say something: {form}, like {example}", form=SAY.syntax, example=SAY.example)
        )
    return kept if len(kept) <= TALK_LENGTH else kept[: TALK_LENGTH - 3] + "..."


def _talk(round: Round, text: str, to: Seat | None) -> Talk:
    table, watcher = round.table, round.observer
    if table.game.status == GameStatus.OVER:  # talk ends with the game: nobody reads on
        raise CommandError(Message("The game is over."))
    if watcher is not None:
        if not table.game.observers_talk:
            raise CommandError(
                Message("Observers of this game watch; they do not talk to the table.")
            )
        mine = col(Talk.observer_id) == watcher.id
        speaker, seat_number = f"{watcher.name} (watching)", None
    else:
        seat = _seat(round)
        mine = col(Talk.seat) == seat.seat
        speaker, seat_number = f"{seat.name} ({seat.colour})", seat.seat
    limit = table.settings.talk_per_day
    since = table.now - timedelta(days=1)
    said = table.db.exec(
        select(func.count())
        .select_from(Talk)
        .where(Talk.game_id == table.game.id, mine, col(Talk.at) > since)
    ).one()
    if said >= limit:
        raise CommandError(
            counted(
                "You said {count} thing to the table in the last 24 hours, the most this "
                "game relays in a day; say it tomorrow.",
                "You said {count} things to the table in the last 24 hours, the most this "
                "game relays in a day; say it tomorrow.",
                limit,
            )
            if limit
            else Message("Table talk is off in this game service.")
        )
    assert table.game.id is not None
    talk = Talk(
        game_id=table.game.id,
        at=table.now,
        seat=seat_number,
        observer_id=None if watcher is None else watcher.id,
        speaker=speaker,
        to_seat=None if to is None else to.seat,
        text=_talk_text(text),
    )
    table.db.add(talk)
    table.db.flush()
    round.talk.append(talk)
    return talk


def _say(round: Round, argument: str) -> str:
    talk = _talk(round, argument, None)
    return Message("said to the table: {text}", text=talk.text)


def _tell(round: Round, argument: str) -> str:
    word, _, text = argument.partition(" ")
    if not word or not text.strip():
        raise CommandError(
            Message("Write it as: {form}, like {example}", form=TELL.syntax, example=TELL.example)
        )
    to = find_seat(round.table.seats, word)
    if to.seat == _seat(round).seat:
        raise CommandError(Message("That is your own seat: tell another player."))
    if not to.address or to.resigned:
        raise CommandError(
            Message(
                "{name} ({colour}) is not a player who reads mail.",
                name=to.name,
                colour=news.colour(to.colour),
            )
        )
    talk = _talk(round, text, to)
    return Message(
        "said to {name} ({colour}) only: {text}",
        name=to.name,
        colour=news.colour(to.colour),
        text=talk.text,
    )


CONFIRM_WITHIN = timedelta(days=1)  # `confirm` alone acts in a reply to the mail that asked


def _resign(round: Round, argument: str) -> str:
    word = argument.rstrip(".!").lower()
    if word == "confirm":
        return _leave(round)
    if word:
        raise CommandError(
            Message("Write resign, then confirm on the next line (or resign confirm).")
        )
    if _seat(round).resigned:
        raise CommandError(left_game(_seat(round)))
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
            )
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
    seat = _seat(round)
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
    table, seat = round.table, _seat(round)
    if seat.resigned:
        raise CommandError(left_game(seat))
    if table.game.status == GameStatus.OVER:
        raise CommandError(Message("The game is over."))
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


def _mail(round: Round, argument: str) -> str:
    """How much mail the sender gets: `mail all|turns|digest [HOUR]`, `mail talk now|later`,
    `mail picture always|prompts|never`, for this game, or for all their games with
    `all-games`."""
    table, seat = round.table, _seat(round)
    words = argument.rstrip(".").lower().split()
    everywhere = "all-games" in words
    words = [w for w in words if w != "all-games"]
    changes: dict[str, object] = {}
    if words[:1] == ["talk"] and words[1:] in (["now"], ["later"]):
        changes["talk_now"] = words[1] == "now"
        said = (
            Message("table talk comes to you at once")
            if words[1] == "now"
            else Message("table talk comes with the next mail of the game")
        )
    elif words[:1] == ["picture"] and len(words) == 2 and words[1] in tuple(PictureChoice):
        said = _picture(PictureChoice(words[1]), changes)
    elif words[:1] and words[0] in tuple(MailMode) and len(words) <= 2:
        mode = MailMode(words[0])
        changes["mail_mode"] = mode
        if len(words) == 2:
            hour = words[1]
            if mode != MailMode.DIGEST or not (
                hour.isascii() and hour.isdigit() and len(hour) <= 2 and int(hour) < 24
            ):
                raise CommandError(Message("Write the digest's hour as 0-23: mail digest 18."))
            changes["digest_hour"] = int(words[1])
        if mode == MailMode.DIGEST:
            changes["digest_at"] = table.now
        said = {
            MailMode.ALL: Message("you get every mail of the game"),
            MailMode.TURNS: Message(
                "you get only mails that ask for your decision, reminders and the final result"
            ),
            MailMode.DIGEST: Message(
                "you get mails that ask for your decision as they come, and "
                "everything else once a day at {hour}:00 {zone}",
                hour=changes.get("digest_hour", seat.digest_hour),
                zone=seat.tz or "UTC",
            ),
        }[mode]
    else:
        raise CommandError(
            Message(
                "Write it as: mail all, mail turns, mail digest [HOUR], mail talk now|later, or "
                "mail picture always|prompts|never; add all-games for all your games."
            )
        )
    seats = [seat]
    if everywhere:
        seats += _seats_elsewhere(round, seat)
        _remember(round, seat, changes)
    for each in seats:
        for name, value in changes.items():
            setattr(each, name, value)
    if everywhere:
        return Message("{done} (in all your games)", done=said)
    return Message("{done} (in this game)", done=said)


def _picture(choice: PictureChoice, changes: dict[str, object]) -> Message:
    """`mail picture always|prompts|never`: which mails carry the picture of the board."""
    changes["picture"] = choice
    return {
        PictureChoice.ALWAYS: Message("every mail that shows the board carries its picture"),
        PictureChoice.PROMPTS: Message(
            "the picture of the board comes with your prompts, the digest and the game over"
        ),
        PictureChoice.NEVER: Message("your mails show the board as text, without a picture"),
    }[choice]


def _seats_elsewhere(round: Round, seat: Seat) -> list[Seat]:
    """The sender's seats in their other games that are not over."""
    assert seat.address is not None
    query = (
        select(Seat)
        .join(Game)
        .where(
            func.lower(Seat.address) == seat.address.lower(),
            Seat.id != seat.id,
            col(Game.status).in_((GameStatus.RUNNING, GameStatus.PAUSED)),
        )
    )
    return list(round.table.db.exec(query))


def _remember(round: Round, seat: Seat, changes: dict[str, object]) -> None:
    """Mail settings for all games: kept by address, for the games still to come."""
    assert seat.address is not None
    address = seat.address.lower()
    choice = round.table.db.get(MailChoice, address) or MailChoice(address=address)
    for name, value in changes.items():
        if name != "digest_at":
            setattr(choice, name, value)
    round.table.db.add(choice)


MOVE = Command(
    "move",
    "NUMBER or MOVE",
    Message("a listed option's number, or the move in the game's notation"),
    _move,
)
HELP = Command("help", "help", Message("this text"), _help, looks=True)
RULES = Command("rules", "rules", Message("the rules of the game"), _rules, looks=True)


def vacation_summary(allowance: str) -> str:
    """What `vacation` does, with the host's allowance ('7d')."""
    return Message(
        "your deadlines wait while you are away, up to {allowance} per game in all; vacation "
        "off ends it",
        allowance=allowance,
    )


VACATION = Command(
    "vacation",
    # Translators: the form of a command in the help and its refusals: keep "vacation",
    # translate the placeholder in capitals (what the player writes there)
    Message("vacation DURATION"),
    vacation_summary(
        duration(7 * 86400)
    ),  # the default allowance; the mails say the host's (`manual`)
    _vacation,
    example="vacation 3d",
)
TZ = Command(
    "tz",
    # Translators: keep "tz", translate the placeholder in capitals
    Message("tz ZONE"),
    Message("deadlines in your own time zone as well as in UTC"),
    _tz,
    example="tz Europe/Berlin",
)

LANG = Command(
    "lang",
    # Translators: keep "lang", translate the placeholder in capitals
    Message("lang CODE"),
    Message("the language of your mails: {choices}", choices=", ".join(LANGUAGES)),
    _lang,
    example="lang it",
)
SAY = Command(
    "say",
    # Translators: keep "say", translate the placeholder in capitals
    Message("say TEXT"),
    Message("to everyone at the table"),
    _say,
    # Translators: an example of the command say; keep "say", translate what is said
    example=Message("say Good luck, everyone!"),
)
TELL = Command(
    "tell",
    # Translators: keep "tell", translate the placeholders in capitals
    Message("tell SEAT TEXT"),
    Message("to one player, named by seat number, colour or name"),
    _tell,
    # Translators: an example of the command tell; keep "tell red", translate what is said
    example=Message("tell red Shall we share Samoa?"),
)
MAIL = Command(
    "mail",
    # Translators: keep the command's words, translate HOUR as in "a daily digest at HOUR"
    Message("mail all|turns|digest [HOUR] [all-games]"),
    Message(
        "how much mail you get (every mail, only your turns, or a daily digest at HOUR); "
        "mail talk now|later: table talk at once or with your next mail; "
        "mail picture always|prompts|never: which mails carry the picture of the board"
    ),
    _mail,
    example="mail digest 18",
)
RESIGN = Command(
    "resign",
    "resign",
    Message("leave the game: a bot plays your seat to the end; asks you to confirm"),
    _resign,
    example="resign",
)
CONFIRM = Command("confirm", "confirm", "", _confirm, listed=False)


def _watcher(round: Round) -> Observer:
    if round.observer is None:  # the registries of players never hold these commands
        raise CommandError(Message("Only someone invited to watch a game may write this."))
    return round.observer


def _watch(round: Round, argument: str) -> str:
    """An invitation to watch accepted: the game's mails from now on, and the players
    learn who watches."""
    table, watcher = round.table, _watcher(round)
    if watcher.confirmed_at is not None:
        raise CommandError(Message("You watch this game already."))
    if argument:  # no autoresponder's "Watch this space ..." accepts for anyone
        raise CommandError(Message("Write watch alone on its line to accept."))
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
)
STOP = Command(
    "stop",
    "stop",
    Message("no more mail of this game (unsubscribe)"),
    _stop,
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
    raise CommandError(left_game(_seat(round)))


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
