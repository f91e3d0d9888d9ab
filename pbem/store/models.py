"""The tables: games, seats, the log of choices, inbound messages, the outbox."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import LargeBinary, UniqueConstraint
from sqlmodel import Column, Field, SQLModel

from engine import BotKind
from pbem.core.kinds import (
    AnswerKind,
    EnumText,
    GameStatus,
    MailMode,
    MailOutcome,
    MoveSource,
    WatchEnd,
)


class Game(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime
    colours: str  # seat order, comma-separated
    stack: str  # the tile stack, top first, comma-separated
    seed: int | None = None
    deadline_seconds: int | None = None  # the time per decision
    gm_address: str | None = None
    gm_secret: str = ""  # signs the reply addresses of the game master's mails
    status: GameStatus = Field(default=GameStatus.RUNNING, sa_type=EnumText(GameStatus))
    ended_by: str | None = None  # who ended the game early (the game master)
    decision: int = 1  # the number of the decision pending now
    snapshot: str | None = None  # engine state JSON at `decision` (a cache of the log)
    # the clock of the open decision: it runs from `clock_from` to `deadline_at`
    clock_from: datetime | None = None
    deadline_at: datetime | None = None
    reminded_at: datetime | None = None  # the last reminder for this decision
    wake_at: datetime | None = Field(default=None, index=True)  # next reminder or deadline
    paused_left: int | None = None  # seconds the open decision had left when paused
    epoch: int = 0  # how often the game master took decisions back: signs the reply tokens
    observers_talk: bool = False  # whether observers may `say` to the table
    lang: str = "en"  # the game's language: its observers' mails, and seats that chose none


class Seat(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("game_id", "seat"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat: int
    name: str
    address: str | None  # None for a bot seat
    colour: str
    secret: str  # signs the reply addresses of this seat
    bot: BotKind | None = Field(default=None, sa_type=EnumText(BotKind))  # None: a person
    tz: str | None = None  # the time zone the player's mails show deadlines in
    auto_moves: int = 0  # automatic moves in a row, since the player last moved
    absent: bool = False  # played by the greedy bot until the player writes again
    away_until: datetime | None = None  # on vacation until then
    away_since: datetime | None = None  # when that vacation began (None: from before v9)
    away_told: bool = False  # whether the others were told of it (after an hour, or never)
    vacation_used: int = 0  # seconds of vacation taken in this game
    resigned: bool = False  # the player left; a bot plays the seat, the points stay theirs
    kicked: bool = False  # the game master removed the player (`kick`); a bot plays on
    resigned_at: int | None = None  # the decision open when the player resigned
    # a command waiting for `confirm` alone in a reply to the mail that asked (resign): the
    # decision that mail's reply address names, and when it was asked (it acts for a day)
    asked: str = ""
    asked_decision: int | None = None
    asked_at: datetime | None = None
    lang: str = "en"  # the language of the player's mails
    mail_mode: MailMode = Field(default=MailMode.ALL, sa_type=EnumText(MailMode))
    digest_hour: int = 8  # the hour of the daily digest, in the player's zone
    digest_at: datetime | None = None  # when the last digest was sent (or the mode chosen)
    talk_now: bool = False  # table talk mailed at once, not with the next mail of the game
    talk_seen: int = 0  # the last table talk delivered to the seat (`Talk.id`)
    calendar_open: bool = False  # the seat's calendar has the event of a decision it was asked

    @property
    def label(self) -> str:
        """The seat as logs and the game master name it: numbered from 1, with its player."""
        return f"seat {self.seat + 1} ({self.name}, {self.colour})"


MAX_OBSERVERS = 20  # a game's observers, invitations nobody accepted included
INVITATION_DAYS = 7  # an invitation to watch not accepted by then lapses


class Observer(SQLModel, table=True):
    """Someone who watches a game: every update and the final board, never a prompt. One
    the game master adds is invited first: they get nothing else until they accept. A row
    that ended (stop, a lapsed invitation, `unobserve`) is kept: it says who is not invited
    again, and what its reply addresses no longer do."""

    __table_args__ = (UniqueConstraint("game_id", "address"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    address: str
    name: str
    secret: str  # signs the reply addresses of the observer's mails
    added_at: datetime  # when they were added, or invited (again)
    talk_seen: int = 0  # the last table talk delivered (`Talk.id`)
    confirmed_at: datetime | None = None  # when they accepted; None: invited, not yet
    ended_at: datetime | None = None  # when they stopped watching; None: not ended
    ended: WatchEnd | None = Field(default=None, sa_type=EnumText(WatchEnd))  # why it ended

    @property
    def watching(self) -> bool:
        """Whether the observer gets the mails of the game now."""
        return self.confirmed_at is not None and self.ended_at is None


class Declined(SQLModel, table=True):
    """An address that said `stop` to an invitation to watch: no game master invites it
    again, to any game (the host's `new-game --observer` may still add it, and its own
    `watch` to another invitation takes it off this list)."""

    address: str = Field(primary_key=True)  # lower case
    at: datetime
    game_id: int  # the game whose invitation it declined


class Talk(SQLModel, table=True):
    """Table talk: what a player (or an observer) said to the table or to one player."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    at: datetime
    seat: int | None  # the speaker's seat; None for an observer
    observer_id: int | None = None
    speaker: str  # the name and colour as shown: "Ann (red)"
    to_seat: int | None = None  # one player, or None for everyone at the table
    text: str


class MailChoice(SQLModel, table=True):
    """A player's mail settings for all their games (`mail ... all-games`), by address."""

    address: str = Field(primary_key=True)  # lower case
    mail_mode: MailMode = Field(default=MailMode.ALL, sa_type=EnumText(MailMode))
    digest_hour: int = 8
    talk_now: bool = False


class Held(SQLModel, table=True):
    """News kept for a player's daily digest instead of being mailed at once."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat: int
    at: datetime
    lines: str  # what happened, one line each, as the update would have said it
    # whose command that moved nothing made this news (their name as the reader reads it),
    # "" for news of the game: a digest tells at most a few lines of each such person
    cause: str = ""


class Caused(SQLModel, table=True):
    """A mail to a reader caused by another person's command that moved nothing (the news
    of a vacation, table talk at once): counted against `caused_per_day` per person and
    reader in a game."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    cause: str  # the address of whoever wrote the command, lower case
    reader: str  # the address mailed, lower case
    at: datetime


class Move(SQLModel, table=True):
    """One decision of the game's log; the engine state is rebuilt from these."""

    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    number: int
    seat: int
    choice: str  # canonical text
    source: MoveSource = Field(sa_type=EnumText(MoveSource))
    inbound_id: int | None = Field(default=None, foreign_key="inbound.id")
    created_at: datetime
    # the clock the decision had when it was made (None for a bot's move at once): `gm undo`
    # gives a decision it takes back its time as it was, extensions and vacations kept
    clock_from: datetime | None = None
    deadline_at: datetime | None = None


class Inbound(SQLModel, table=True):
    """Every message taken from the mailbox, so that each is handled exactly once."""

    id: int | None = Field(default=None, primary_key=True)
    message_hash: str = Field(unique=True)  # SHA-256 of the whole Message-ID, in hex
    message_id: str  # the Message-ID as it reads (at most 300 characters), for people
    sender: str
    received_at: datetime
    game_id: int | None = None
    # "" only inside the transaction that records the mail, until it is handled
    outcome: MailOutcome | Literal[""] = Field(sa_type=EnumText(MailOutcome))
    detail: str = ""


class Quarantined(SQLModel, table=True):
    """An inbound mail the service failed on, kept aside with the error (a shunt queue):
    it never blocks the mailbox, and `pbem quarantine` retries or drops it."""

    id: int | None = Field(default=None, primary_key=True)
    received_at: datetime
    sender: str = ""  # the From, as it reads (at most 300 characters)
    subject: str = ""  # (at most 300 characters)
    size: int  # the size of the mail as it came
    raw: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # cut at the size limit
    error: str  # what went wrong, one line


class ReplyUse(SQLModel, table=True):
    """What a reply address with these commands did once: the same again is a replay."""

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True)  # SHA-256 of the signed tag and the command lines
    inbound_id: int | None = Field(default=None, foreign_key="inbound.id")
    at: datetime


class GmTag(SQLModel, table=True):
    """A mail to the game masters: its reply address names it by `serial`; it acts only
    until `token_lifetime` after it was sent, and changes the game at most once."""

    __table_args__ = (UniqueConstraint("game_id", "serial"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    serial: int
    decision: int  # the decision open when it was sent: `move` and `undo` must answer it
    sent_at: datetime
    used_at: datetime | None = None  # when a command from it changed the game


class Answered(SQLModel, table=True):
    """An answer the service mailed to an address only because of a mail from it (an error
    or a refusal): counted against `answers_per_day`."""

    id: int | None = Field(default=None, primary_key=True)
    address: str = Field(index=True)  # lower case
    at: datetime
    kind: AnswerKind = Field(sa_type=EnumText(AnswerKind))


class Outbox(SQLModel, table=True):
    """A mail waiting to be sent; deleted once the mail server accepted it. Delivery is at
    least once: `message` holds the whole mail, Message-ID included, so a mail sent again
    after a crash is the same mail, which servers and clients recognise as a copy."""

    __table_args__ = {"sqlite_autoincrement": True}  # a number is never given twice

    id: int | None = Field(default=None, primary_key=True)
    game_id: int | None = None
    recipient: str
    message: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at: datetime
    attempts: int = 0
    next_attempt_at: datetime
    last_error: str = ""
    # on PostgreSQL, a service sending this mail now holds it until then (another service
    # sends it after, if the first died before the mail left the outbox)
    claimed_until: datetime | None = None


class GmAction(SQLModel, table=True):
    """What a game master did to a game, by whom: the game's audit log."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    at: datetime
    actor: str  # the game master's address, or "host" for the command line
    command: str
    detail: str = ""


class Setting(SQLModel, table=True):
    """Values the service keeps for itself (schema version, mailbox UIDVALIDITY)."""

    key: str = Field(primary_key=True)
    value: str


class GameRecord(SQLModel, table=True):
    """The record of a game that is over (`export_on_game_over`), made once at the game over
    for its game-over mails and every mail after: the file name it is attached under, or the
    address it was published at, and, attached, the page (zlib-compressed)."""

    game_id: int = Field(foreign_key="game.id", primary_key=True)
    name: str
    link: str = ""
    page: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
