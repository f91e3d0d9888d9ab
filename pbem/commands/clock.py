"""The clock's one command: the automatic move of a decision whose deadline passed, run as a
line of the clock's own registry, so that it goes the way every writer's lines go (a `Round`,
the game's save, `pbem.mail_out.tell`)."""

from __future__ import annotations

from datetime import datetime

from engine import BotKind, Choice, Message, Pass, Phase, State, counted
from pbem.commands.registry import Command, Commands, Round
from pbem.commands.writer import Role, Writer
from pbem.core import MoveSource
from pbem.game import decision_clock
from pbem.game.table import Table, bot_choice
from pbem.store import Game
from pbem.views import news
from pbem.views.i18n import duration
from pbem.views.view import when

CLOCK = "clock"  # the actor of the automatic moves
AUTOMATIC = "automatic"  # the clock's line


def automatic_choice(game: Game, state: State) -> tuple[Choice, str]:
    """The move made for a player whose deadline passed, and how to tell it.

    The start of a turn is passed (the house rule of play by mail); a set-up boat goes on
    the first free beach of Tonga; any other decision takes the greedy bot's choice."""
    decision = state.decision
    assert decision is not None
    if decision.kind is Phase.TURN:
        return Pass(), Message("the turn was passed (the house rule for a missed turn)")
    if decision.kind is Phase.SETUP:
        choice = state.legal_choices()[0]
        return choice, Message("the boat went on the first free beach ({choice})", choice=choice)
    choice = bot_choice(game, state, BotKind.GREEDY)
    return choice, Message("the game chose what the greedy bot would ({choice})", choice=choice)


def _automatic(round: Round, argument: str) -> str:
    """The open decision made for its seat, told to everyone; after `absence_after` of them
    in a row the seat is marked absent (`round.absent`) and its bot plays on."""
    del argument
    table = round.table
    game, state, settings = table.game, table.state, table.settings
    decision = state.decision
    assert decision is not None
    seat = table.seats[decision.seat]
    choice, told = automatic_choice(game, state)
    round.events += state.apply(choice)
    table.record(seat.seat, MoveSource.AUTO)
    seat.auto_moves += 1
    round.moves += 1
    who = Message("{name} ({colour})", name=seat.name, colour=news.colour(seat.colour))
    round.announced.append(
        Message(
            "No answer from {who} to decision {number} by its deadline: {told}.",
            who=who,
            number=decision.number,
            told=told,
        )
    )
    limit = settings.absence_after
    if seat.auto_moves >= limit and not seat.absent:
        seat.absent = True
        round.absent.append(seat)
        round.announced.append(
            counted(
                "After {count} automatic move in a row, {who} is marked absent: the {bot} bot "
                "plays {colour} without waiting until {name} writes again.",
                "After {count} automatic moves in a row, {who} is marked absent: the {bot} bot "
                "plays {colour} without waiting until {name} writes again.",
                limit,
                who=who,
                bot=settings.absent_bot,
                colour=news.colour(seat.colour),
                name=seat.name,
            )
        )
    round.events += table.advance()
    return f"{seat.label}: {choice}" + (" (now absent)" if round.absent else "")


def give_grace(table: Table, grace: int, last: datetime) -> str:
    """The service did not run from `last` to now, and the open decision's deadline passed
    meanwhile: it gets `grace` seconds from now instead of an automatic move. The news."""
    game, now = table.game, table.now
    decision_clock.grace(game, grace, table.settings.parsed_reminders, now)
    assert game.deadline_at is not None
    return Message(
        "The game service was not running from {down} to {up}, and the deadline "
        "of decision {number} passed meanwhile. It is now {deadline} ({grace} "
        "from now).",
        down=when(last),
        up=when(now),
        number=game.decision,
        deadline=when(game.deadline_at),
        grace=duration(grace),
    )


CLOCK_COMMANDS = Commands(
    (Command(AUTOMATIC, AUTOMATIC, "", _automatic, listed=False),),
    noun=Message("a command"),
    raises=True,
)


def clock() -> Writer:
    """The service's clock, making the automatic move of a decision whose deadline passed."""
    return Writer(Role.CLOCK, CLOCK, CLOCK_COMMANDS)


__all__ = ["AUTOMATIC", "CLOCK", "CLOCK_COMMANDS", "automatic_choice", "clock", "give_grace"]
