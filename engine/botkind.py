"""The kinds of bot a seat may be played by, apart from the bots (`engine.bots`): naming
them loads no search."""

from __future__ import annotations

from enum import StrEnum


class BotKind(StrEnum):
    """The bots a seat may be played by; the text is how settings, commands and the
    database name them."""

    RANDOM = "random"
    GREEDY = "greedy"
    EXPERT = "expert"


BOT_KINDS = tuple(BotKind)
