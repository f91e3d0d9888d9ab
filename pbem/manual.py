"""The commands as the mails list them, made once from the command registries."""

from __future__ import annotations

from engine import SYNTAX
from pbem.gm_commands import GM_COMMANDS
from pbem.play import OBSERVER_COMMANDS, PLAYER_COMMANDS, SAY
from pbem.view import CommandHelp


def command_help(*, observers_talk: bool = True) -> CommandHelp:
    """What the help of the players' and the game master's mails lists; an observer's lists
    `say` only in a game that lets observers talk."""
    return CommandHelp(
        moves=tuple(SYNTAX.values()),
        looks=tuple((c.name, c.summary) for c in PLAYER_COMMANDS.looks()),
        settings=tuple(c.help_line for c in PLAYER_COMMANDS if c.listed and not c.looks),
        gm=GM_COMMANDS.help_lines(),
        watching=tuple(c.name for c in OBSERVER_COMMANDS if observers_talk or c.name != SAY.name),
        gm_looks=tuple((c.name, c.summary) for c in GM_COMMANDS.looks()),
    )


COMMAND_HELP = command_help()
QUIET_WATCH_HELP = command_help(observers_talk=False)  # for games whose observers only watch

__all__ = ["COMMAND_HELP", "QUIET_WATCH_HELP", "command_help"]
