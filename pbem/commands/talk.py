"""Table talk: `say` to the table, `tell` one player; what a line of talk may hold."""

from __future__ import annotations

import unicodedata
from datetime import timedelta

from sqlmodel import col, func, select

from engine import (
    Message,
    counted,
)
from pbem.commands.registry import (
    Command,
    CommandError,
    Round,
    find_seat,
    player_seat,
)
from pbem.commands.usage import said
from pbem.core import GameStatus
from pbem.store import Seat, Talk
from pbem.views import news

TALK_LENGTH = 300  # characters of one thing said to the table


def _talk_text(text: str) -> str:
    """What a player says, as others read it: one line, no control or invisible
    characters (bidi overrides included), at most TALK_LENGTH characters."""
    kept = "".join(
        c for c in text if c == "\u200d" or unicodedata.category(c) not in ("Cc", "Cf", "Cs")
    )
    kept = " ".join(kept.split())
    if not kept:
        raise CommandError(
            # Translators: {form} is "say TEXT" as the help writes it, {example} its example
            Message("Say something: {form}, like {example}", form=SAY.syntax, example=SAY.example),
            code="say-nothing",
        )
    return kept if len(kept) <= TALK_LENGTH else kept[: TALK_LENGTH - 3] + "..."


def _talk(round: Round, text: str, to: Seat | None) -> Talk:
    table, watcher = round.table, round.observer
    if table.game.status == GameStatus.OVER:  # talk ends with the game: nobody reads on
        raise CommandError(Message("The game is over."), code="game-over")
    if watcher is not None:
        if not table.game.observers_talk:
            raise CommandError(
                Message("Observers of this game watch; they do not talk to the table."),
                code="observers-watch",
            )
        mine = col(Talk.observer_id) == watcher.id
        speaker, seat_number = f"{watcher.name} (watching)", None
    else:
        seat = player_seat(round)
        mine = col(Talk.seat) == seat.seat
        speaker, seat_number = f"{seat.name} ({seat.colour})", seat.seat
    limit = table.settings.talk_per_day
    since = table.now - timedelta(days=1)
    said = table.db.exec(
        select(func.count())
        .select_from(Talk)
        .where(Talk.game_id == table.game.id, mine, col(Talk.at) > since)
    ).one()
    if said >= limit:
        raise CommandError(
            (
                counted(
                    "You said {count} thing to the table in the last 24 hours, the most this "
                    "game relays in a day; say it tomorrow.",
                    "You said {count} things to the table in the last 24 hours, the most this "
                    "game relays in a day; say it tomorrow.",
                    limit,
                )
                if limit
                else Message("Table talk is off in this game service.")
            ),
            code="talk-limit" if limit else "talk-off",
        )
    assert table.game.id is not None
    talk = Talk(
        game_id=table.game.id,
        at=table.now,
        seat=seat_number,
        observer_id=None if watcher is None else watcher.id,
        speaker=speaker,
        to_seat=None if to is None else to.seat,
        text=_talk_text(text),
    )
    table.db.add(talk)
    table.db.flush()
    round.talk.append(talk)
    return talk


def _say(round: Round, argument: str) -> str:
    talk = _talk(round, argument, None)
    return Message("said to the table: {text}", text=talk.text)


def _tell(round: Round, argument: str) -> str:
    word, _, text = argument.partition(" ")
    if not word or not text.strip():
        raise CommandError(
            Message("Write it as: {form}, like {example}", form=TELL.syntax, example=TELL.example),
            code="tell-form",
        )
    to = find_seat(round.table.seats, word)
    if to.seat == player_seat(round).seat:
        raise CommandError(Message("That is your own seat: tell another player."), code="own-seat")
    if not to.address or to.resigned:
        raise CommandError(
            Message(
                "{name} ({colour}) is not a player who reads mail.",
                name=to.name,
                colour=news.colour(to.colour),
            ),
            code="not-reading",
        )
    talk = _talk(round, text, to)
    return Message(
        "said to {name} ({colour}) only: {text}",
        name=to.name,
        colour=news.colour(to.colour),
        text=talk.text,
    )


SAY = Command(
    "say",
    # Translators: keep "say", translate the placeholder in capitals
    Message("say TEXT"),
    Message("to everyone at the table"),
    _say,
    # Translators: an example of the command say; keep "say", translate what is said
    example=Message("say Good luck, everyone!"),
    words=said(it="parla", nl="zeg", fi="sano", hu="mondd", he="אמור"),
)


TELL = Command(
    "tell",
    # Translators: keep "tell", translate the placeholders in capitals
    Message("tell SEAT TEXT"),
    Message("to one player, named by seat number, colour or name"),
    _tell,
    # Translators: an example of the command tell; keep "tell red", translate what is said
    example=Message("tell red Shall we share Samoa?"),
    words=said(it="riferisci", nl="vertel", fi="kerro", hu="üzend", he="ספר"),
)
