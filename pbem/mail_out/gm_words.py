"""What the mails to a game master say apart from the game: the language they are read in
(issue 29) and how each seat is played, as messages said in that language."""

from __future__ import annotations

from engine import Joined, Message, counted
from pbem.core import as_utc
from pbem.store import Game, Seat
from pbem.views import i18n, view
from pbem.views.view import when


def gm_lang(game: Game, address: str) -> str:
    """The language of the mails to a game master of `game`: the game's own game master
    reads theirs (`--gm ADDRESS:LANG`, `lang` by mail); the host's read English, as the
    host's command line does."""
    own = game.gm_address
    if own and address.lower() == own.lower() and i18n.known(game.gm_lang):
        return game.gm_lang
    return i18n.ENGLISH


def gm_seat(seat: Seat, absent_bot: str) -> view.GmSeat:
    """A seat as the game master sees it: its address and who plays it."""
    played_by: list[str] = []
    if seat.bot and seat.address:
        played_by.append(Message("the {bot} bot", bot=seat.bot))
    elif seat.bot:
        played_by.append(Message("the {bot} bot (no player)", bot=seat.bot))
    elif seat.absent:
        played_by.append(Message("the {bot} bot: the player is absent", bot=absent_bot))
    else:
        played_by.append(Message("the player"))
    if seat.away_until is not None:
        back = when(as_utc(seat.away_until))
        played_by.append(Message("on vacation until {back}", back=back))
    if seat.auto_moves and not seat.absent:
        played_by.append(
            counted(
                "{count} automatic move in a row",
                "{count} automatic moves in a row",
                seat.auto_moves,
            )
        )
    return view.GmSeat(seat.seat + 1, seat.name, seat.colour, seat.address, Joined("; ", played_by))


__all__ = ["gm_lang", "gm_seat"]
