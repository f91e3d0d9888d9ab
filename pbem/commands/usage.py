"""How each game master's command is written and what its help says, apart from what it does:
the command line's help (`pbem gm --help`) reads the game master's commands here without
importing them. `pbem.commands.registry` and `pbem.commands.gm` make their `Command`s of these.

Light on purpose: this module imports nothing of the service but the engine's names
(`tests/test_quick_start.py` checks what `import pbem.host.cli` loads).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import BOT_KINDS, Message
from pbem.core import LANGUAGES

# a command's own word in other languages: (language, word) pairs; each word works for
# everyone, whatever their language, and is read as the English command
Said = tuple[tuple[str, str], ...]


def said(**words: str) -> Said:
    """The words other languages have for a command: `said(it="aiuto", nl="hulp")`."""
    return tuple(words.items())


@dataclass(frozen=True)
class Usage:
    """A command's name, its syntax, its help line's summary and example; `looks`: it
    answers and changes nothing; `listed=False`: its help line is another's ("pause, resume");
    `words`: what other languages call it."""

    name: str
    syntax: str  # "extend DURATION"
    summary: str  # "more time for the open decision"
    example: str = ""  # "extend 1d"
    looks: bool = False
    listed: bool = True
    words: Said = ()


# the commands that only look, for players, observers and game masters alike
BOARD = Usage(
    "board",
    "board",
    Message("the current board"),
    looks=True,
    words=said(it="tabellone", nl="bord", fi="lauta", hu="tábla", he="לוח"),
)
STATUS = Usage(
    "status",
    "status",
    Message("whose decision it is"),
    looks=True,
    words=said(it="stato", nl="stand", fi="tila", hu="állapot", he="מצב"),
)
LOG = Usage(
    "log",
    "log",
    Message("all moves so far"),
    looks=True,
    words=said(it="registro", nl="logboek", fi="loki", hu="napló", he="יומן"),
)
LOG_TALK = Usage(
    "log talk", "log talk", Message("all moves so far with the table talk"), looks=True
)

HELP_WORDS = said(it="aiuto", nl="hulp", fi="apua", hu="segítség", he="עזרה")
LANG_WORDS = said(it="lingua", nl="taal", fi="kieli", hu="nyelv", he="שפה")

# the game master's commands, in the order their help lists them; said in the game master's
# language in their mails, in English on the host's command line
GM_USAGES = (
    Usage("pause", "pause, resume", ""),
    Usage("resume", "resume", "", listed=False),
    Usage(
        "extend",
        # Translators: the form of a game master's command: keep "extend", translate the
        # placeholder in capitals
        Message("extend DURATION"),
        Message("more time for the open decision"),
        "extend 1d",
    ),
    Usage(
        "deadline",
        # Translators: keep "deadline", translate the placeholder in capitals
        Message("deadline DURATION"),
        Message("the time per decision from the next one on"),
        "deadline 24h",
    ),
    Usage(
        "move",
        # Translators: keep "move", translate the placeholders in capitals
        Message("move SEAT CHOICE"),
        Message("decide for a seat"),
        "move red expand Samoa a,c",
    ),
    Usage(
        "undo",
        # Translators: keep "undo"; N is a number
        Message("undo N"),
        Message("take back the last N decisions"),
        "undo 2",
    ),
    Usage(
        "replace",
        # Translators: keep "replace", translate the placeholders in capitals
        Message("replace SEAT ADDRESS [NAME]"),
        Message("hand a seat to someone else"),
        "replace 2 nina@example.org Nina",
    ),
    Usage(
        "bot",
        # Translators: keep "bot", translate SEAT; {bots} are the bots' names
        Message("bot SEAT {bots}", bots="|".join(BOT_KINDS)),
        Message("a bot plays the seat for now"),
        "bot blue greedy",
    ),
    # Translators: keep "human", translate the placeholder in capitals
    Usage("human", Message("human SEAT"), Message("the player plays the seat again")),
    Usage(
        "kick",
        # Translators: keep "kick", translate the placeholder in capitals
        Message("kick SEAT"),
        Message("remove the player; a bot plays the seat from now on"),
    ),
    Usage("end", "end", Message("finish the game now, scores as they stand")),
    Usage(
        "observe",
        # Translators: keep "observe", translate the placeholders in capitals
        Message("observe ADDRESS [NAME]"),
        Message("invite someone to watch the game (every update once they accept, never a prompt)"),
        "observe olga@example.org Olga",
    ),
    Usage(
        "unobserve",
        # Translators: keep "unobserve", translate the placeholders in capitals
        Message("unobserve ADDRESS|NAME"),
        Message("they no longer watch"),
    ),
    Usage(
        "lang",
        # Translators: keep "lang", translate the placeholder in capitals
        Message("lang CODE"),
        Message(
            "the language of your mails as the game's game master: {codes}; lang alone says "
            "which it is",
            codes=", ".join(LANGUAGES),
        ),
        "lang it",
        words=LANG_WORDS,
    ),
    STATUS,
    LOG,
    LOG_TALK,
    BOARD,
    Usage("help", "help", Message("this text"), looks=True, words=HELP_WORDS),
)


def gm_examples() -> str:
    """The game master's commands in a few words, for the command line's help."""
    changes = ", ".join(u.syntax for u in GM_USAGES if u.listed and not u.looks)
    looks = ", ".join(u.name for u in GM_USAGES if u.looks)
    return f"{changes}; or {looks}"


__all__ = [
    "BOARD",
    "GM_USAGES",
    "HELP_WORDS",
    "LANG_WORDS",
    "LOG",
    "LOG_TALK",
    "STATUS",
    "Said",
    "Usage",
    "gm_examples",
    "said",
]
