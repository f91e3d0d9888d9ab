"""The game master's commands, by mail and on the host's command line: one `Command` each
in `GM_COMMANDS`. Each is checked before it changes anything; the flow around them (who may
give them, the log of actions, the mails that tell everyone) is `pbem.flow.gm`.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from sqlmodel import col, delete, select

from engine import BOT_KINDS, BotKind, Joined, Message, Phase, State, counted
from pbem.commands.gm_watch import GmError, _observe, _unobserve, every_observer
from pbem.commands.player import read_choice
from pbem.commands.registry import (
    BOARD,
    LOG,
    LOG_TALK,
    STATUS,
    Command,
    Commands,
    Round,
    find_seat,
    said_by,
)
from pbem.commands.usage import GM_USAGES
from pbem.core import (
    LANGUAGES,
    LONGEST,
    AnswerTopic,
    DurationError,
    GameStatus,
    IdentityError,
    MailKind,
    MoveSource,
    as_utc,
    check_address,
    check_name,
    format_duration,
    parse_duration,
    shown,
)
from pbem.game import decision_clock
from pbem.store import (
    Held,
    MailChoice,
    Move,
    Seat,
)
from pbem.views import news, view
from pbem.views.i18n import choices, duration, known, named
from pbem.views.view import Answer, when

HOST = "host"  # the actor of commands given on the host's command line


def _pause(round: Round, rest: str) -> str:
    game, now = round.table.game, round.table.now
    _no_argument("pause", rest)
    if game.status == GameStatus.PAUSED:
        raise GmError("paused-already", Message("The game is paused already."))
    left = decision_clock.pause(game, now)
    round.announced.append(
        Message(
            "The game master paused the game: no move can be made and no deadline runs "
            "until it resumes."
        )
    )
    return Message(
        "paused with {duration} left for the open decision", duration=format_duration(left)
    )


def _resume(round: Round, rest: str) -> str:
    game, now = round.table.game, round.table.now
    _no_argument("resume", rest)
    if game.status != GameStatus.PAUSED:
        raise GmError("not-paused", Message("The game is not paused."))
    decision_clock.resume(game, round.table.settings.parsed_reminders, now)
    round.asked_again = True  # the one who decides may move again: their prompt again
    round.events += round.table.advance()
    if game.deadline_at is None:
        round.announced.append(Message("The game master resumed the game."))
        return Message("resumed")
    deadline = when(as_utc(game.deadline_at))
    round.announced.append(
        Message("The game master resumed the game; the deadline is {deadline}.", deadline=deadline)
    )
    return Message("resumed; the deadline is {deadline}", deadline=deadline)


def _extend(round: Round, rest: str) -> str:
    game = round.table.game
    seconds = _duration(rest, "extend 1d")
    if game.deadline_at is None:
        raise GmError("no-deadline", Message("No deadline is running."))
    now = round.table.now
    if as_utc(game.deadline_at) + timedelta(seconds=seconds) > now + timedelta(seconds=LONGEST):
        raise GmError(
            "too-long",
            Message("The deadline would be more than ten years from now; give a shorter time."),
        )
    decision_clock.shift(game, seconds, round.table.settings.parsed_reminders, round.table.now)
    assert game.deadline_at is not None
    deadline = when(as_utc(game.deadline_at))
    round.announced.append(
        Message(
            "The game master gave decision {decision} {duration} more: "
            "its deadline is now {deadline}.",
            decision=game.decision,
            duration=duration(seconds),
            deadline=deadline,
        )
    )
    return Message(
        "the deadline of decision {decision} is now {deadline}",
        decision=game.decision,
        deadline=deadline,
    )


def _deadline(round: Round, rest: str) -> str:
    seconds = _duration(rest, "deadline 24h")
    if seconds < 60:
        raise GmError("too-short", Message("The time per decision must be at least a minute."))
    round.table.game.deadline_seconds = seconds
    round.announced.append(
        Message(
            "The game master set the time per decision to {duration}, from the next decision on.",
            duration=duration(seconds),
        )
    )
    return Message(
        "each decision from the next one on has {duration}", duration=format_duration(seconds)
    )


def _move(round: Round, rest: str) -> str:
    state = round.table.state
    word, _, text = rest.partition(" ")
    seat = find_seat(round.table.seats, word)
    decision = state.decision
    if decision is None:  # a game the last move ended while it was paused
        raise GmError("game-over", Message("The game is over."))
    if decision.seat != seat.seat:
        raise GmError(
            "not-their-decision",
            Message(
                "Decision {decision} is {whose}'s ({colour}), not {name}'s.",
                decision=decision.number,
                whose=round.table.seats[decision.seat].name,
                colour=news.colour(decision.colour),
                name=seat.name,
            ),
        )
    _current(round)
    if not text.strip():
        raise GmError(
            "no-choice",
            # Translators: keep "move", "red", "place Tonga b"; translate SEAT and CHOICE
            Message(
                "Say the choice: move SEAT CHOICE, like move red 2 (an option's number) or "
                "move red place Tonga b."
            ),
        )
    choice = read_choice(state, text, numbers=True, may_pass=decision.kind is Phase.TURN)
    round.events += state.apply(choice)
    round.table.record(seat.seat, MoveSource.GM)
    round.events += round.table.advance()
    made = str(state.log[decision.number - 1])
    round.announced.append(
        Message(
            "The game master decided for {name} ({colour}): {choice}.",
            name=seat.name,
            colour=news.colour(seat.colour),
            choice=made,
        )
    )
    return Message("decision {decision}: {choice}", decision=decision.number, choice=made)


def _current(round: Round) -> None:
    """A command by mail that changes the game must answer the decision open when the
    mail came; the commands before it in the same mail may have moved the game on."""
    tag = round.answering
    if tag is not None and tag.decision != round.opened:
        raise GmError(
            "stale-decision",
            Message(
                "Your mail answers decision {answered}, but the game is at decision {open} "
                "now. Look at the game below, then reply to this mail.",
                answered=tag.decision,
                open=round.opened,
            ),
        )


def _undo(round: Round, rest: str) -> str:
    game = round.table.game
    if not (rest.isascii() and rest.isdigit()) or len(rest) > 6 or int(rest) < 1:
        raise GmError(
            "undo-count",
            # Translators: keep "undo 2"
            Message("Say how many decisions to take back, like undo 2."),
        )
    count = int(rest)
    if game.ended_by:
        raise GmError(
            "ended-by-game-master",
            Message("The game master ended this game; it cannot be taken back."),
        )
    made = len(round.table.state.log)
    if count > made:
        raise GmError(
            "undo-too-many",
            counted(
                "Only {count} decision was made so far.",
                "Only {count} decisions were made so far.",
                made,
            ),
        )
    _current(round)
    before = round.table.state.log
    kept = before[: made - count]
    state = State.replay(round.table.state.setup, kept)
    taken = select(Move).where(col(Move.game_id) == game.id, col(Move.number) > len(kept))
    clocks = {
        m.number: (m.seat, m.clock_from, m.deadline_at, m.created_at)
        for m in round.table.db.exec(taken)
    }
    gone = delete(Move).where(col(Move.game_id) == game.id, col(Move.number) > len(kept))
    round.table.db.exec(gone)
    round.table.state = state
    round.events = []
    game.epoch += 1  # the decisions taken back come again with new reply tokens
    round.asked_again = True
    if game.status == GameStatus.OVER:
        game.status = GameStatus.RUNNING
    replayed = round.table.advance()
    _clock_as_it_was(round, clocks)
    again = len(state.log) - len(kept)  # bots make their decisions again at once
    same = state.log == before  # ... as they made them before
    if not same:  # what the bots did the same way again is no news to anyone
        round.events += replayed
    now_open = _open_after_undo(round, same, again)
    round.announced.append(
        counted(
            "The game master took back the last decision: {now_open}.",
            "The game master took back the last {count} decisions: {now_open}.",
            count,
            now_open=now_open,
        )
    )
    back = Message("back at decision {decision}", decision=len(kept) + 1)
    return Joined("; ", [back, now_open]) if again else back


def _open_after_undo(round: Round, same: bool, again: int) -> str:
    """What `undo` left open: whose decision, and what the bots made again (`again`
    decisions, `same`: as they made them before)."""
    state = round.table.state
    decision = state.decision
    now_open: str
    if decision is None:
        now_open = Message("the bots played on to the end of the game")
    else:
        seat = round.table.seats[decision.seat]
        whose = {"decision": decision.number, "name": seat.name}
        if same:
            now_open = counted(
                "decision {decision}, {name}'s ({colour}), is open: the bots made the "
                "decision again the same way, so nothing changed",
                "decision {decision}, {name}'s ({colour}), is open: the bots made the "
                "{count} decisions again the same way, so nothing changed",
                again,
                colour=news.colour(seat.colour),
                **whose,
            )
        elif again:
            now_open = counted(
                "decision {decision}, {name}'s ({colour}), is open "
                "(the bots played {count} decision at once)",
                "decision {decision}, {name}'s ({colour}), is open "
                "(the bots played {count} decisions at once)",
                again,
                colour=news.colour(seat.colour),
                **whose,
            )
        else:
            now_open = Message(
                "decision {decision}, {name}'s ({colour}), is open again",
                colour=news.colour(seat.colour),
                **whose,
            )
    return now_open


def _clock_as_it_was(
    round: Round, clocks: dict[int, tuple[int, datetime | None, datetime | None, datetime]]
) -> None:
    """The decision `undo` opened again gets the clock it had when its seat made it (an
    extension, a vacation kept), not a fresh one: `clocks` are the taken-back moves'."""
    table = round.table
    decision = table.state.decision
    if decision is None or decision.number not in clocks:
        return
    seat, clock_from, deadline_at, decided_at = clocks[decision.number]
    if seat != decision.seat or clock_from is None or deadline_at is None:
        return  # the bots played another way, or it was decided at once: a fresh clock
    decision_clock.restore(
        table.game,
        clock_from=clock_from,
        deadline_at=deadline_at,
        decided_at=decided_at,
        reminders=table.settings.parsed_reminders,
        now=table.now,
    )


def _replace(round: Round, rest: str) -> str:
    parts = rest.split()
    if len(parts) < 2:
        raise GmError(
            "replace-form",
            # Translators: keep "replace", translate SEAT, ADDRESS and NAME as in its help
            Message("Write it as: replace SEAT ADDRESS [NAME]."),
        )
    seat = find_seat(round.table.seats, parts[0])
    try:  # a seat's name as it was is left alone; a new one is checked
        address = check_address(parts[1])
        name = check_name(" ".join(parts[2:])) if len(parts) > 2 else seat.name
    except IdentityError as error:
        raise GmError("bad-address", said_by(error)) from error
    if any(s.address and s.address.lower() == address.lower() for s in round.table.seats):
        raise GmError(
            "has-a-seat", Message("{address} has a seat in this game already.", address=address)
        )
    _farewell(round, seat, Message("The game master handed your seat to another player."))
    seat.address, seat.name = address, name
    seat.secret = secrets.token_hex(16)
    seat.bot, seat.absent, seat.auto_moves = None, False, 0
    seat.away_until, seat.vacation_used, seat.resigned = None, 0, False
    seat.resigned_at, seat.asked, seat.kicked = None, "", False
    seat.tz, seat.lang = None, round.table.game.lang  # the new player's own: UTC, the game's
    _mail_settings_of(round, seat)
    _restart_if_open(round, seat)
    round.welcome.append(seat)
    round.asked_again = True  # the new player of a seat that decides gets their prompt
    round.announced.append(
        Message(
            "The game master handed seat {seat} ({colour}) to {name}.",
            seat=seat.seat + 1,
            colour=news.colour(seat.colour),
            name=seat.name,
        )
    )
    return Message(
        "seat {seat} ({colour}) is {name}'s now",
        seat=seat.seat + 1,
        colour=news.colour(seat.colour),
        name=seat.name,
    )


def _bot(round: Round, rest: str) -> str:
    word, _, kind = rest.partition(" ")
    seat = find_seat(round.table.seats, word)
    kind = kind.strip().lower() or BotKind.GREEDY
    if kind not in BOT_KINDS:
        raise GmError(
            "unknown-bot",
            Message(
                "Unknown bot {word!r}; the bots are {bots}.",
                word=shown(kind, 20),
                bots=", ".join(BOT_KINDS),
            ),
        )
    seat.bot, seat.absent = BotKind(kind), False
    round.events += round.table.advance()
    round.announced.append(
        Message(
            "The game master has the {bot} bot play {name} ({colour}) for now.",
            bot=kind,
            name=seat.name,
            colour=news.colour(seat.colour),
        )
    )
    return Message("the {bot} bot plays {colour}", bot=kind, colour=news.colour(seat.colour))


def _human(round: Round, rest: str) -> str:
    seat = find_seat(round.table.seats, rest)
    if not seat.address:
        raise GmError(
            "no-player",
            # Translators: keep "replace", translate ADDRESS as in its help
            Message(
                "Seat {seat} ({colour}) has no player: give it one with replace {seat} ADDRESS.",
                seat=seat.seat + 1,
                colour=news.colour(seat.colour),
            ),
        )
    if not seat.bot and not seat.absent:
        raise GmError(
            "plays-already",
            Message(
                "{name} ({colour}) plays the seat already.",
                name=seat.name,
                colour=news.colour(seat.colour),
            ),
        )
    seat.bot, seat.absent, seat.auto_moves, seat.resigned = None, False, 0, False
    seat.resigned_at = None
    _restart_if_open(round, seat)
    round.announced.append(
        Message(
            "{name} ({colour}) plays the seat again.",
            name=seat.name,
            colour=news.colour(seat.colour),
        )
    )
    return Message("{name} plays {colour} again", name=seat.name, colour=news.colour(seat.colour))


def _kick(round: Round, rest: str) -> str:
    seat = find_seat(round.table.seats, rest)
    if not seat.address:
        raise GmError(
            "no-player",
            Message(
                "Seat {seat} ({colour}) has no player.",
                seat=seat.seat + 1,
                colour=news.colour(seat.colour),
            ),
        )
    _farewell(round, seat, Message("The game master removed you from the game."))
    bot = round.table.settings.absent_bot
    seat.address, seat.bot, seat.absent, seat.kicked = None, bot, False, True
    round.events += round.table.advance()
    round.announced.append(
        Message(
            "The game master removed {name} from the game: the {bot} bot plays "
            "{colour} from now on.",
            name=seat.name,
            bot=bot,
            colour=news.colour(seat.colour),
        )
    )
    return Message(
        "{name} is out; the {bot} bot plays {colour}",
        name=seat.name,
        bot=bot,
        colour=news.colour(seat.colour),
    )


def _end(round: Round, rest: str) -> str:
    game = round.table.game
    _no_argument("end", rest)
    game.status = GameStatus.OVER
    game.ended_by = round.actor
    round.table.start_clock()
    round.announced.append(Message("The game master ended the game: the scores stand as they are."))
    return Message("the game is over")


def _mail_settings_of(round: Round, seat: Seat) -> None:
    """A seat handed to a new address: how much mail it gets is the new player's (their
    choice for all games, if they made one), not the one who left; the news held for the
    old player's digest and the old player's calendar event are not theirs."""
    assert seat.address is not None and round.table.game.id is not None
    choice = round.table.db.get(MailChoice, seat.address.lower()) or MailChoice(address="")
    seat.mail_mode, seat.digest_hour = choice.mail_mode, choice.digest_hour
    seat.talk_now, seat.digest_at = choice.talk_now, round.table.now
    seat.picture = choice.picture
    seat.calendar_open, seat.calendar_at = False, None
    round.table.db.exec(
        delete(Held).where(col(Held.game_id) == round.table.game.id, col(Held.seat) == seat.seat)
    )


def _restart_if_open(round: Round, seat: Seat) -> None:
    """A seat that gets a (new) player while its decision is open: its time starts anew."""
    decision = round.table.state.decision
    if decision is not None and decision.seat == seat.seat:
        round.table.start_clock()


def _farewell(round: Round, seat: Seat, why: Message) -> None:
    """The last mail to a player who loses their seat: news only, never a prompt, even
    when the open decision is theirs (they can no longer make it)."""
    if not seat.address:
        return
    assert round.table.game.id is not None
    names = [s.name for s in round.table.seats]
    everyone = view.players(round.table.state, names, [bool(s.bot) for s in round.table.seats])
    last = Message("This is the last mail you get from this game. Thank you for playing!")
    mail = view.Mail(
        kind=MailKind.UPDATE,
        game=round.table.game.id,
        subject=Message("You left game {game}", game=round.table.game.id),
        you=everyone[seat.seat],
        happened=(Joined(" ", [why, last]),),
    )
    assert round.address_leaving is not None, "the game master's flow addresses last mails"
    round.farewells.append(round.address_leaving(seat, mail))


def _duration(text: str, example: str) -> int:
    try:
        seconds = parse_duration(text)
    except DurationError as error:
        written = Message("Write it as: {example}.", example=example)
        raise GmError("bad-duration", Joined(" ", [said_by(error), written])) from error
    if seconds <= 0:
        raise GmError("bad-duration", Message("Give a duration, like {example}.", example=example))
    return seconds


def _no_argument(verb: str, rest: str) -> None:
    if rest:
        raise GmError("no-argument", Message("{verb} takes nothing after it.", verb=verb))


def _lang(round: Round, rest: str) -> str:
    """The language of the mails to the game's own game master: `lang it` from them by mail,
    or from the host on the command line; `lang` alone says which it is. The host's game
    masters (`gm_addresses`) read English, as the host's command line does. The answer to
    this very mail comes in the new language."""
    game = round.table.game
    own = game.gm_address
    if not own:
        raise GmError(
            "no-own-game-master",
            Message(
                "This game has no game master of its own; the host's game masters read English."
            ),
        )
    if round.actor != HOST and round.actor.lower() != own.lower():
        raise GmError(
            "host-game-master",
            Message(
                "You are a game master of every game of this host: your mails are in "
                "English. The language of the game's own game master is theirs to choose."
            ),
        )
    code = rest.strip(" .").lower()
    if not code:
        return Message(
            "the game master's mails are in {language}; the languages: {choices}",
            language=named(game.gm_lang),
            choices=choices(),
        )
    by_name = {name.lower(): lang for lang, name in LANGUAGES.items()}
    code = by_name.get(code, code)  # `lang italiano` too
    if not known(code):
        raise GmError(
            "unknown-language",
            Message(
                "{word!r} is not a language of the game. The languages: {choices}.",
                word=shown(rest.strip(), 40),
                choices=choices(),
            ),
        )
    game.gm_lang = code
    return Message("the game master's mails are in {language} from now on", language=named(code))


def _help(round: Round, argument: str) -> str:
    if round.answering is None:  # by mail, every mail to a game master lists the commands
        round.answers.append(Answer(AnswerTopic.HELP, Joined("\n", list(gm_help()))))
    return ""


def _guard(round: Round, command: Command) -> None:
    """What every command that changes the game needs."""
    if command.name == "lang":  # the game master's own mails: on any mail, at any time
        return
    if not round.may_change:
        raise GmError(
            "mail-used",
            Message(
                "The mail you answer was used for a change already: reply to the newest mail "
                "the game sent you (each one changes the game once)."
            ),
        )
    if round.table.game.status == GameStatus.OVER and command.name != "undo":
        raise GmError("game-over", Message("The game is over."))


_RUNS = {
    "pause": _pause,
    "resume": _resume,
    "extend": _extend,
    "deadline": _deadline,
    "move": _move,
    "undo": _undo,
    "replace": _replace,
    "bot": _bot,
    "human": _human,
    "kick": _kick,
    "end": _end,
    "observe": _observe,
    "unobserve": _unobserve,
    "lang": _lang,
    "help": _help,
}
_SHARED = {c.name: c for c in (STATUS, LOG, LOG_TALK, BOARD)}  # as players have them
# what each command is written like and what its help says: pbem.commands.usage, which the command
# line's help reads without importing this module
GM_COMMANDS = Commands(
    tuple(_SHARED.get(u.name) or Command.of(u, _RUNS[u.name]) for u in GM_USAGES),
    guard=_guard,
    noun=Message("a game master command"),
)


def gm_help() -> tuple[str, ...]:
    """The game master's commands, one line each, as the host's `help` lists them."""
    looks = ", ".join(c.name for c in GM_COMMANDS.looks())
    said = Message("{commands}: look at the game; change nothing", commands=looks)
    return (*GM_COMMANDS.help_lines(), said)


__all__ = ["GM_COMMANDS", "HOST", "GmError", "every_observer", "gm_help"]
