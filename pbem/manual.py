"""The commands as the mails list them, made once from the command registries."""

from __future__ import annotations

from engine import SYNTAX
from pbem.gm_commands import GM_COMMANDS
from pbem.play import OBSERVER_COMMANDS, PLAYER_COMMANDS
from pbem.view import CommandHelp


def command_help() -> CommandHelp:
    """What the help of the players' and the game master's mails lists."""
    return CommandHelp(
        moves=tuple(SYNTAX.values()),
        looks=tuple((c.name, c.summary) for c in PLAYER_COMMANDS.looks()),
        settings=tuple(c.help_line for c in PLAYER_COMMANDS if c.listed and not c.looks),
        gm=GM_COMMANDS.help_lines(),
        watching=tuple(c.name for c in OBSERVER_COMMANDS),
    )


COMMAND_HELP = command_help()

__all__ = ["COMMAND_HELP", "command_help"]
