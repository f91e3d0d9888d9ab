"""How each game master's command is written and what its help says, apart from what it does:
the command line's help (`pbem gm --help`) reads the game master's commands here without
importing them. `pbem.commands.registry` and `pbem.commands.gm` make their `Command`s of these.

Light on purpose: this module imports nothing of the service but the engine's names
(`tests/test_quick_start.py` checks what `import pbem.host.cli` loads).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import BOT_KINDS, Message


@dataclass(frozen=True)
class Usage:
    """A command's name, its syntax, its help line's summary and example; `looks`: it
    answers and changes nothing; `listed=False`: its help line is another's ("pause, resume")."""

    name: str
    syntax: str  # "extend DURATION"
    summary: str  # "more time for the open decision"
    example: str = ""  # "extend 1d"
    looks: bool = False
    listed: bool = True


# the commands that only look, for players, observers and game masters alike
BOARD = Usage("board", "board", Message("the current board"), looks=True)
STATUS = Usage("status", "status", Message("whose decision it is"), looks=True)
LOG = Usage("log", "log", Message("all moves so far"), looks=True)
LOG_TALK = Usage(
    "log talk", "log talk", Message("all moves so far with the table talk"), looks=True
)

# the game master's commands, in the order their help lists them (not translated: the game
# master is the host's person)
GM_USAGES = (
    Usage("pause", "pause, resume", ""),
    Usage("resume", "resume", "", listed=False),
    Usage("extend", "extend DURATION", "more time for the open decision", "extend 1d"),
    Usage(
        "deadline",
        "deadline DURATION",
        "the time per decision from the next one on",
        "deadline 24h",
    ),
    Usage("move", "move SEAT CHOICE", "decide for a seat", "move red expand Samoa a,c"),
    Usage("undo", "undo N", "take back the last N decisions", "undo 2"),
    Usage(
        "replace",
        "replace SEAT ADDRESS [NAME]",
        "hand a seat to someone else",
        "replace 2 nina@example.org Nina",
    ),
    Usage(
        "bot", "bot SEAT " + "|".join(BOT_KINDS), "a bot plays the seat for now", "bot blue greedy"
    ),
    Usage("human", "human SEAT", "the player plays the seat again"),
    Usage("kick", "kick SEAT", "remove the player; a bot plays the seat from now on"),
    Usage("end", "end", "finish the game now, scores as they stand"),
    Usage(
        "observe",
        "observe ADDRESS [NAME]",
        "invite someone to watch the game (every update once they accept, never a prompt)",
        "observe olga@example.org Olga",
    ),
    Usage("unobserve", "unobserve ADDRESS|NAME", "they no longer watch"),
    STATUS,
    LOG,
    LOG_TALK,
    BOARD,
    Usage("help", "help", "this text", looks=True),
)


def gm_examples() -> str:
    """The game master's commands in a few words, for the command line's help."""
    changes = ", ".join(u.syntax for u in GM_USAGES if u.listed and not u.looks)
    looks = ", ".join(u.name for u in GM_USAGES if u.looks)
    return f"{changes}; or {looks}"


__all__ = ["BOARD", "GM_USAGES", "LOG", "LOG_TALK", "STATUS", "Usage", "gm_examples"]
