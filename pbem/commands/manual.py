"""The commands as the mails list them, made once from the command registries."""

from __future__ import annotations

from dataclasses import replace

from engine import SYNTAX
from pbem.commands.gm import GM_COMMANDS
from pbem.commands.player import (
    OBSERVER_COMMANDS,
    PLAYER_COMMANDS,
    RESIGNED_COMMANDS,
    SAY,
    STOP,
    vacation_summary,
)
from pbem.commands.settings import VACATION
from pbem.views.view import CommandHelp

# the order in which the help lists a language's own words for the commands ("aiuto = help,
# regole = rules, ..."); a command not named here follows these in the registry's order
WORDS_ORDER = (
    "help",
    "rules",
    "status",
    "log",
    "board",
    "say",
    "tell",
    "resign",
    "confirm",
    "vacation",
    "mail",
    "lang",
    "tz",
)


def _own_words() -> tuple[tuple[str, str, str], ...]:
    """Each language's words for a player's commands, as the commands define them:
    (command, language, word)."""
    commands = sorted(
        PLAYER_COMMANDS,
        key=lambda c: WORDS_ORDER.index(c.name) if c.name in WORDS_ORDER else len(WORDS_ORDER),
    )
    by_language: dict[str, list[tuple[str, str, str]]] = {}
    for command in commands:
        for lang, word in command.words:
            by_language.setdefault(lang, []).append((command.name, lang, word))
    return tuple(entry for entries in by_language.values() for entry in entries)


OWN_WORDS = _own_words()


def _watching(observers_talk: bool | None) -> tuple[str, ...]:
    """What an observer may write: `say` only in a game that lets observers talk, and
    `stop`."""
    return tuple(
        c.name for c in OBSERVER_COMMANDS if c.listed and (observers_talk or c.name != SAY.name)
    )


def command_help(*, observers_talk: bool = True, allowance: str = "7d") -> CommandHelp:
    """What the help of the players' and the game master's mails lists; an observer's lists
    `say` only in a game that lets observers talk; `vacation` says the host's `allowance`."""
    settings = [
        replace(c, summary=vacation_summary(allowance)) if c is VACATION else c
        for c in PLAYER_COMMANDS
        if c.listed and not c.looks
    ]
    return CommandHelp(
        moves=tuple(SYNTAX.values()),
        looks=tuple((c.name, c.summary) for c in PLAYER_COMMANDS.looks()),
        settings=tuple(c.help_line for c in settings),
        gm=GM_COMMANDS.help_lines(),
        watching=_watching(observers_talk),
        gm_looks=tuple((c.name, c.summary) for c in GM_COMMANDS.looks()),
        words=OWN_WORDS,
    )


def looking_help(*, observers_talk: bool | None) -> CommandHelp:
    """What the help lists to someone who may only look at the game: an observer (with
    `say` in a game that lets observers talk) or, with `observers_talk` None, a player who
    resigned. No moves and no settings of a player: the mail says what they may write."""
    if observers_talk is None:
        looks = RESIGNED_COMMANDS.looks()
        talk: tuple[str, ...] = ()
    else:
        looks = OBSERVER_COMMANDS.looks()
        talk = ((SAY.help_line,) if observers_talk else ()) + (STOP.help_line,)
    return CommandHelp(
        moves=(),
        looks=tuple((c.name, c.summary) for c in looks),
        settings=talk,
        gm=(),
        watching=_watching(observers_talk),
    )


COMMAND_HELP = command_help()
WATCH_HELP = looking_help(observers_talk=True)  # for observers of games where they may talk
QUIET_WATCH_HELP = looking_help(observers_talk=False)  # for games whose observers only watch
RESIGNED_HELP = looking_help(observers_talk=None)  # for a player who left the game
NO_COMMANDS = CommandHelp(moves=(), looks=(), settings=(), gm=())  # the last mail of a seat

__all__ = [
    "COMMAND_HELP",
    "NO_COMMANDS",
    "OWN_WORDS",
    "QUIET_WATCH_HELP",
    "RESIGNED_HELP",
    "WATCH_HELP",
    "command_help",
    "looking_help",
]
