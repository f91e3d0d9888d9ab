"""Tongiaki, the rules: a pure engine (no I/O, no clock, no global randomness).

A game is a `Setup` plus the list of choices made; `State` holds the game in progress,
says who must decide what (`state.decision`), lists the legal choices and applies one.
Views read a game through the queries of `State` (`boats_on`, `free_berths`, `tile_at`,
`position_of`, `reserve_of`, `full_beaches`, `is_legal` ...). Everything outside the
engine imports from this package, never from its modules.

The names load when first used (PEP 562): a program that needs only the version, a bot's
kind or a message (the `pbem` command's help, `pbem read`) starts without the rules.
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec
from typing import TYPE_CHECKING

__version__ = "0.2.0"  # of the whole project (pyproject.toml reads it from here)

if TYPE_CHECKING:  # the type checker reads the face whole
    from engine.face import *  # noqa: F403

# the names a program may want without the rules, and the light modules that make them
_LIGHT = {
    "BOT_KINDS": "engine.botkind",
    "BotKind": "engine.botkind",
    "Joined": "engine.message",
    "Message": "engine.message",
    "N_": "engine.message",
    "counted": "engine.message",
}

if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        """A name of the face (`engine.face`), loaded when first asked for."""
        if name == "__all__":
            names = ["__version__", *import_module("engine.face").__all__]
            globals()[name] = names
            return names
        if name.startswith("__") or find_spec(f"engine.{name}") is not None:
            # a module of the engine (`from engine import events`) is imported, not looked up
            raise AttributeError(f"module 'engine' has no attribute {name!r}")
        module = import_module(_LIGHT.get(name, "engine.face"))
        try:
            value = getattr(module, name)
        except AttributeError:
            raise AttributeError(f"module 'engine' has no attribute {name!r}") from None
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *import_module("engine.face").__all__})
