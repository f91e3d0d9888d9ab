"""Notices to a seat's own address about a mail that was not read: a reply with no game
tag (the player's games listed), a reply from another address, a mail too large. At most
one of each kind a day; a stranger never gets one."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, func, select

import engine
from pbem.core import AnswerKind, GameStatus, MailKind, Settings
from pbem.mail_out.budget import may_answer
from pbem.mail_out.mailing import Mailer
from pbem.store import Game, Seat
from pbem.views import news, view


def answer_lost(mail: Mailer, settings: Settings, db: Session, sender: str, now: datetime) -> None:
    """A player wrote without a usable game tag: one notice (at most once a day) that
    lists their games. A stranger gets nothing."""
    query = (
        select(Seat, Game)
        .join(Game)
        .where(
            col(Game.status).in_((GameStatus.RUNNING, GameStatus.PAUSED)),
            func.lower(Seat.address) == sender,
        )
    )
    found = list(db.exec(query))
    if not found or not may_answer(db, sender, AnswerKind.UNTAGGED, now, settings.answers_per_day):
        return
    games = []
    for seat, game in found:
        if game.status == GameStatus.PAUSED:
            line = engine.Message(
                "Game {game}: you are {name} ({colour}); it is at decision {number} and paused.",
                game=game.id,
                name=seat.name,
                colour=news.colour(seat.colour),
                number=game.decision,
            )
        else:
            line = engine.Message(
                "Game {game}: you are {name} ({colour}); it is at decision {number}.",
                game=game.id,
                name=seat.name,
                colour=news.colour(seat.colour),
                number=game.decision,
            )
        games.append(line)
    notice = view.Notice(
        kind=MailKind.NOTICE,
        subject=engine.Message("Not applied: which game?"),
        paragraphs=(
            engine.Message(
                "Your mail reached the Tongiaki service, but it does not answer a mail of a "
                "game (its reply address or subject has no game tag), so nothing in it was "
                "read or applied."
            ),
            engine.Message(
                "To play, reply to the newest mail of your game: its reply address says "
                "which game, seat and decision your reply answers. This notice is sent at "
                "most once a day."
            ),
        ),
        games=tuple(games),
    )
    address = found[0][0].address or sender  # as the seat has it, capitals and all
    mail.queue_notice(db, address, notice, now=now, game_id=None, lang=found[0][0].lang)


def other_sender(
    mail: Mailer, settings: Settings, db: Session, game: Game, seat: Seat, now: datetime
) -> None:
    """A valid reply address of a seat used from another address: the seat's own address
    hears of it (at most once a day); the other address never gets an answer."""
    address = seat.address
    if not address:
        return
    if not may_answer(db, address, AnswerKind.OTHER_SENDER, now, settings.answers_per_day):
        return
    notice = view.Notice(
        kind=MailKind.NOTICE,
        subject=engine.Message("Not applied: a reply from another address"),
        paragraphs=(
            engine.Message(
                "A reply to a mail of game {game} for your seat ({name}, "
                "{colour}) came from another address than this one, so nothing in it "
                "was applied. Only mail from this address acts for your seat.",
                game=game.id,
                name=seat.name,
                colour=news.colour(seat.colour),
            ),
            engine.Message(
                "If you wrote it from another address, write from this one. If you did "
                "not, someone has a copy of a mail of your game. This notice is sent at "
                "most once a day."
            ),
        ),
    )
    mail.queue_notice(db, address, notice, now=now, game_id=game.id, lang=seat.lang)


def too_large(
    mail: Mailer,
    per_day: int,
    db: Session,
    game: Game,
    seat: Seat,
    sender: str,
    size: int,
    limit: int,
    now: datetime,
) -> None:
    """A mail over the size limit from a seat's own address: answered briefly, at most once
    a day."""
    if not may_answer(db, sender, AnswerKind.TOO_LARGE, now, per_day):
        return
    notice = view.Notice(
        kind=MailKind.NOTICE,
        subject=engine.Message("Not applied: your mail was too large"),
        paragraphs=(
            engine.Message(
                "Your mail to game {game} was {size} KB; the game "
                "reads mail of at most {limit} KB, so nothing in it was "
                "read or applied.",
                game=game.id,
                size=size // 1000,
                limit=limit // 1000,
            ),
            engine.Message(
                "Reply to the newest mail of the game again, without attachments "
                "and with only your command at the top."
            ),
        ),
    )
    mail.queue_notice(
        db,
        seat.address or sender,
        notice,
        now=now,
        game_id=game.id,
        lang=seat.lang,
    )
