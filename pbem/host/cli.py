"""The `pbem` command: create games, run the service, look at games.

The app and what its commands share are in `pbem.host.cli_app`; the commands, by what they
are for, in `cli_games` (create a game, act as its game master), `cli_run` (run the service and
look after it), `cli_quick` (read, reply, list: the ones a newcomer types first) and
`cli_look` (a game's board and record). Each imports what only some commands need inside
them: every command starts at once (README, "Speed and scale")."""

from __future__ import annotations

import inspect

from typer.models import CommandInfo

from pbem.host import cli_games, cli_look, cli_quick, cli_run  # noqa: F401 (their commands join app)
from pbem.host.cli_app import app
from pbem.host.cli_quick import game_lines
from pbem.host.cli_run import demo_seats, printable

# the commands as `pbem --help` lists them: in the order a host meets them
ORDER = (
    "new-game",
    "poll",
    "gm",
    "serve",
    "check-config",
    "list",
    "show",
    "backup",
    "compact",
    "outbox",
    "quarantine",
    "reply",
    "read",
    "demo",
    "export",
)


def _name(command: CommandInfo) -> str:
    """The command's name as typed (Typer's: the function's, with dashes)."""
    assert command.callback is not None
    return command.name or command.callback.__name__.lower().replace("_", "-")


def _unwrapped(text: str) -> str:
    """A docstring's paragraphs each on one line, for the terminal to wrap (typer kept the
    source's line breaks: `pbem --help` broke its lines mid-sentence)."""
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(text).split("\n\n"))


app.registered_commands.sort(key=lambda command: ORDER.index(_name(command)))
for _command in app.registered_commands:
    _doc = _command.help or (_command.callback.__doc__ if _command.callback else None)
    if _doc:
        _command.help = _unwrapped(_doc)


def main() -> None:
    app()


__all__ = ["app", "demo_seats", "game_lines", "main", "printable"]

if __name__ == "__main__":
    main()
