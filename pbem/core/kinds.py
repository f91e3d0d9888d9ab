"""The closed sets of values the service stores and compares. Each is a `StrEnum`: a member
equals its text, so the columns, the headers and the templates read as they did."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Generic, TypeVar

from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator
from sqlmodel import AutoString


class GameStatus(StrEnum):
    RUNNING = "running"
    PAUSED = "paused"
    OVER = "over"


class LineOutcome(StrEnum):
    """What became of one line of a reply."""

    APPLIED = "applied"
    REJECTED = "rejected"
    IGNORED = "ignored"
    ANSWERED = "answered"


class MailOutcome(StrEnum):
    """What became of one inbound mail."""

    APPLIED = "applied"
    REJECTED = "rejected"
    ANSWERED = "answered"
    REFUSED = "refused"
    IGNORED = "ignored"
    DUPLICATE = "duplicate"  # returned, never stored: the first copy's row stays
    QUARANTINED = "quarantined"


class MoveSource(StrEnum):
    """Who made a move of the log."""

    MAIL = "mail"
    BOT = "bot"
    ABSENT = "absent"  # the greedy bot, for a player marked absent
    AUTO = "auto"  # the automatic move at the deadline
    GM = "gm"


class MailMode(StrEnum):
    """How much mail a player wants (`mail all|turns|digest`)."""

    ALL = "all"  # every update
    TURNS = "turns"  # only mails that need an answer, reminders, and the final result
    DIGEST = "digest"  # prompts as they come, everything else once a day


class MailKind(StrEnum):
    """What a mail is: picks its templates and is its X-Tongiaki-Kind header."""

    WELCOME = "welcome"
    PROMPT = "prompt"
    UPDATE = "update"
    REMINDER = "reminder"
    ERROR = "error"
    NOTICE = "notice"
    ANSWER = "answer"
    GAME_OVER = "game_over"
    GM = "gm"
    WATCH = "watch"  # news for someone who watches the game
    INVITATION = "invitation"  # asks someone the game master named whether they will watch


class WatchEnd(StrEnum):
    """Why an observer no longer watches (nor is invited)."""

    STOP = "stop"  # they wrote `stop` (or unsubscribed)
    LAPSED = "lapsed"  # they did not accept the invitation in time
    GM = "gm"  # the game master's `unobserve`


class AnswerTopic(StrEnum):
    """What a command that looks answers (`view.Answer`): picks its part of the mail."""

    HELP = "help"  # the players' help, or the game master's commands
    RULES = "rules"  # the rules for players
    STATUS = "status"
    LOG = "log"
    BOARD = "board"


class AnswerKind(StrEnum):
    """An answer counted against the answer budget (`pbem.mail_out.budget`)."""

    ERROR = "error"
    ANSWER = "answer"
    UNTAGGED = "untagged"
    OTHER_SENDER = "other-sender"
    TOO_LARGE = "too-large"
    COMMAND = "command"  # to a seat's own address, for real commands: a budget of its own


E = TypeVar("E", bound=StrEnum)


class EnumText(TypeDecorator[E], Generic[E]):
    """A column of a StrEnum stored as its text, as a `str` column is (no migration); read
    back as the member, or as the plain text if an older version wrote a value no member has."""

    impl = AutoString
    cache_ok = True

    def __init__(self, enum: type[E]) -> None:
        super().__init__()
        self.enum = enum

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        return None if value is None else str(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        try:
            return self.enum(value)
        except ValueError:
            return value
