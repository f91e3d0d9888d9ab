"""What happened: the events a choice sets off, each with a short English sentence."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, overload

from engine.board import Board
from engine.hexgrid import DIRECTION_WORDS, Hex, Position, position_at
from engine.outcome import Termination, score
from engine.tiles import BEACH_LETTERS, tile_words
from engine.values import value


def boats_text(colours: tuple[str, ...]) -> str:
    """'2 yellow, 1 orange' for a group of boats, '' for none."""
    return ", ".join(f"{n} {colour}" for colour, n in Counter(colours).items())


@value
class ChoiceMade:
    colour: str
    choice: str
    forced: bool

    def __str__(self) -> str:
        how = " (the only option)" if self.forced else ""
        return f"{self.colour.capitalize()}: {self.choice}{how}."


@value
class BoatsPlaced:
    colour: str
    island: str
    beaches: tuple[int, ...]

    def __str__(self) -> str:
        where = ", ".join(BEACH_LETTERS[b] for b in self.beaches)
        n = len(self.beaches)
        return (
            f"{self.colour.capitalize()} put {n} boat{'s' * (n != 1)} on {self.island} ({where})."
        )


@value
class BoatMoved:
    colour: str
    from_island: str
    from_beach: int
    to_island: str
    to_beach: int

    def __str__(self) -> str:
        return (
            f"{self.colour.capitalize()} moved a boat from {self.from_island} "
            f"{BEACH_LETTERS[self.from_beach]} to {self.to_island} {BEACH_LETTERS[self.to_beach]}."
        )


@value
class RoyalIslandFounded:
    colour: str
    island: str
    returned: int

    def __str__(self) -> str:
        return (
            f"{self.colour.capitalize()} founded a royal island on {self.island}; "
            f"{self.returned} boat{'s' * (self.returned != 1)} went back to the reserve."
        )


@value
class BoatsRecalled:
    colour: str
    count: int

    def __str__(self) -> str:
        return f"{self.colour.capitalize()} took {self.count} boats off the board to colonise anew."


@value
class GroupSailed:
    island: str
    beach: int
    jetty: int
    boats: tuple[str, ...]

    def __str__(self) -> str:
        return (
            f"Beach {self.island} {BEACH_LETTERS[self.beach]} was full: {boats_text(self.boats)} "
            f"sailed {DIRECTION_WORDS[self.jetty]}."
        )


@value
class TileDrawn:
    tile: str
    islands_left: int
    seas_left: int

    def __str__(self) -> str:
        left = f"{self.islands_left} islands, {self.seas_left} seas left"
        return f"Tile {tile_words(self.tile)} was drawn ({left})."


@value
class TilePlaced:
    tile: str
    position: Position
    rotation: int

    def __str__(self) -> str:
        where = DIRECTION_WORDS[self.rotation]
        return f"Tile {tile_words(self.tile)} was placed with its red emblem facing {where}."


@value
class VoyagePassed:
    tile: str
    danger: int
    colours: int

    def __str__(self) -> str:
        return (
            f"They crossed {tile_words(self.tile)} (danger {self.danger}, {self.colours} colours)."
        )


@value
class VoyageFailed:
    tile: str
    danger: int
    boats: tuple[str, ...]

    def __str__(self) -> str:
        n = len(set(self.boats))
        return (
            f"On {tile_words(self.tile)} the trail needs {self.danger} colours; they had {n}: "
            f"lost at sea, {boats_text(self.boats)} back to the reserves."
        )


@value
class TurnedBack:
    royal_island: str
    home: str

    def __str__(self) -> str:
        return f"The royal island {self.royal_island} turned them back to {self.home}."


@value
class GroupArrived:
    island: str
    boats: tuple[str, ...]

    def __str__(self) -> str:
        return f"{boats_text(self.boats).capitalize()} arrived at {self.island}."


@value
class GroupLanded:
    island: str
    placement: tuple[tuple[int, tuple[str, ...]], ...]
    out: tuple[str, ...]

    def __str__(self) -> str:
        parts = [f"{BEACH_LETTERS[b]}: {boats_text(cs)}" for b, cs in self.placement]
        text = f"They landed on {self.island} ({'; '.join(parts) or 'no room'})"
        if self.out:
            text += f"; {boats_text(self.out)} stayed out, back to the reserves"
        return text + "."


@value
class StayedAtSea:
    """A group left at sea at the end of the game (last sea tile, or no tile left): out of play."""

    boats: tuple[str, ...]

    def __str__(self) -> str:
        return f"{boats_text(self.boats).capitalize()} stayed at sea: out of play."


@value
class IslandRemoved:
    island: str
    boats: tuple[str, ...]

    def __str__(self) -> str:
        text = f"Every route from {self.island} only led back: the island left the game"
        if self.boats:
            text += f" and {boats_text(self.boats)} went back to the reserves"
        return text + "."


@value
class TurnStarted:
    colour: str
    turn: int

    def __str__(self) -> str:
        return f"Turn {self.turn}: {self.colour}."


@value
class TurnPassed:
    """The house rule of play by mail: a turn whose deadline passed is passed."""

    colour: str

    def __str__(self) -> str:
        return f"{self.colour.capitalize()} passed the turn."


@value
class GameEnded:
    winners: tuple[str, ...]
    termination: Termination

    def __str__(self) -> str:
        who = " and ".join(w.capitalize() for w in self.winners)
        verb = "wins" if len(self.winners) == 1 else "share the win"
        return f"Game over ({self.termination}): {who} {verb}."


Event = (
    ChoiceMade
    | BoatsPlaced
    | BoatMoved
    | RoyalIslandFounded
    | BoatsRecalled
    | GroupSailed
    | TileDrawn
    | TilePlaced
    | VoyagePassed
    | VoyageFailed
    | TurnedBack
    | GroupArrived
    | GroupLanded
    | StayedAtSea
    | IslandRemoved
    | TurnStarted
    | TurnPassed
    | GameEnded
)


Noted = tuple[Any, ...]
"""An event as the engine notes it while a choice plays out: the function that makes it (its
class, mostly) and then its fields. It is made into the event only when read (`Events`)."""


def choice_made(colour: str, choice: object, forced: bool) -> ChoiceMade:
    """ChoiceMade from the choice itself (its text is written when the event is read)."""
    return ChoiceMade(colour, str(choice), forced)


def tile_placed(tile: str, place: Hex, rotation: int) -> TilePlaced:
    """TilePlaced from the place as the engine keeps it (hexgrid.Hex)."""
    return TilePlaced(tile, position_at(place), rotation)


def game_ended(board: Board, colours: tuple[str, ...], termination: Termination) -> GameEnded:
    """GameEnded with the winners scored on the final `board` (which changes no more)."""
    return GameEnded(score(board, colours, termination).winners, termination)


def _made(noted: Noted) -> Event:
    event: Event = noted[0](*noted[1:])
    return event


class Events(Sequence[Event]):
    """The events a choice set off, in order (what `State.apply` returns). The engine notes
    them as plain tuples (`Noted`); each is made the first time the events are read, so that
    a playout that never reads them makes none. Read like a list: it equals a list of the same
    events."""

    # `State.apply` fills these two itself in an `Applied`, as __init__ does, without calling it
    __slots__ = ("_made", "_noted")

    def __init__(self, noted: list[Noted]) -> None:
        self._noted = noted
        self._made: list[Event] | None = None

    def _events(self) -> list[Event]:
        made = self._made
        if made is None:
            made = self._made = list(map(_made, self._noted))
        return made

    def __len__(self) -> int:
        return len(self._noted)

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> list[Event]: ...

    def __getitem__(self, index: int | slice) -> Event | list[Event]:
        return self._events()[index]

    def __iter__(self) -> Iterator[Event]:
        return iter(self._events())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Events):
            return self._events() == other._events()
        return isinstance(other, list) and self._events() == other

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: Sequence[Event]) -> list[Event]:
        return [*self._events(), *other]

    def __radd__(self, other: Sequence[Event]) -> list[Event]:
        return [*other, *self._events()]

    def __repr__(self) -> str:
        return repr(self._events())


class Applied(Events):
    """The events as `State.apply` makes them: made by calling the class without arguments
    (no __init__ of Python run, no object.__new__ called with its class: the cheapest way to
    make an object in Python 3.11), its two slots then filled."""

    __slots__ = ()
    __init__ = object.__init__
