"""The tables: games, seats, the log of choices, inbound messages, the outbox."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import LargeBinary, UniqueConstraint
from sqlmodel import Column, Field, SQLModel


class Game(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime
    colours: str  # seat order, comma-separated
    stack: str  # the tile stack, top first, comma-separated
    seed: int | None = None
    deadline_seconds: int | None = None
    gm_address: str | None = None
    status: str = "running"  # running | over
    decision: int = 1  # the number of the decision pending now
    snapshot: str | None = None  # engine state JSON at `decision` (a cache of the log)


class Seat(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("game_id", "seat"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat: int
    name: str
    address: str | None  # None for a bot seat
    colour: str
    secret: str  # signs the reply addresses of this seat
    bot: str | None = None  # random | greedy, or None for a person


class Move(SQLModel, table=True):
    """One decision of the game's log; the engine state is rebuilt from these."""

    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    number: int
    seat: int
    choice: str  # canonical text
    source: str  # mail | bot | cli
    inbound_id: int | None = Field(default=None, foreign_key="inbound.id")
    created_at: datetime


class Inbound(SQLModel, table=True):
    """Every message taken from the mailbox, so that each is handled exactly once."""

    id: int | None = Field(default=None, primary_key=True)
    message_id: str = Field(unique=True)
    sender: str
    received_at: datetime
    game_id: int | None = None
    outcome: str  # applied | rejected | meta | ignored | refused
    detail: str = ""


class Outbox(SQLModel, table=True):
    """A mail waiting to be sent; deleted once the mail server accepted it."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int | None = None
    recipient: str
    message: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at: datetime
    attempts: int = 0
    next_attempt_at: datetime
    last_error: str = ""


class Setting(SQLModel, table=True):
    """Values the service keeps for itself (schema version, mailbox UIDVALIDITY)."""

    key: str = Field(primary_key=True)
    value: str
