"""Choice values, each with one canonical text form (see notation.py for reading them)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain
from typing import overload

from engine.colours import LETTERS
from engine.hexgrid import DIRECTIONS
from engine.tiles import BEACH_LETTERS, tile_words
from engine.values import value


def _beaches(indices: tuple[int, ...]) -> str:
    return ",".join(BEACH_LETTERS[i] for i in indices)


def colour_letters(colours: tuple[str, ...]) -> str:
    return "".join(LETTERS[c] for c in colours)


class _Written:
    """A choice whose canonical text is written once (the value never changes) and kept
    beside its fields: outside them, so that equality, hashing and `repr` ignore it."""

    __slots__ = ("_text",)
    _text: str

    def __str__(self) -> str:
        try:
            return self._text
        except AttributeError:  # not written yet
            text = self._write()
            _KEEP_TEXT(self, text)
            return text

    def _write(self) -> str:
        raise NotImplementedError


_KEEP_TEXT = _Written.__dict__["_text"].__set__  # past the frozen dataclass's __setattr__


@value
class Place(_Written):
    """Boats from the reserve onto beaches: set-up, no boats on the board, the new colony."""

    island: str | None
    beaches: tuple[int, ...]

    def _write(self) -> str:
        return f"place {self.island} {_beaches(self.beaches)}"


@value
class Expand(_Written):
    """Expansion on an island; `borrow` is (island, beach) when the reserve is empty."""

    island: str
    beaches: tuple[int, ...]
    borrow: tuple[str, int] | None = None

    def _write(self) -> str:
        text = f"expand {self.island} {_beaches(self.beaches)}"
        if self.borrow is not None:
            text += f" from {self.borrow[0]} {BEACH_LETTERS[self.borrow[1]]}"
        return text


@value
class FoundRoyal(_Written):
    island: str

    def _write(self) -> str:
        return f"royal {self.island}"


@value
class Colonise:
    def __str__(self) -> str:
        return "colonise"


@value
class Pass:
    """The PBEM house rule for a turn whose deadline passed: the player does nothing.

    Never among the legal choices (it is no move of the printed rules); the engine accepts
    it at the start of a turn, so that a game with an automatic pass still replays."""

    def __str__(self) -> str:
        return "pass"


@value
class Emigrate(_Written):
    """The full beach that emigrates next and the board direction of the jetty it uses."""

    island: str
    beach: int
    jetty: int

    def _write(self) -> str:
        return f"emigrate {self.island} {BEACH_LETTERS[self.beach]} {DIRECTIONS[self.jetty]}"


@value
class EmigrateClosed(_Written):
    """Emigrate from an island whose every full beach has only closed routes (RULES §8.1):
    the island is removed. An option while other full beaches wait to emigrate."""

    island: str

    def _write(self) -> str:
        return f"emigrate {self.island}"


@value
class Land(_Written):
    """Where the boats of an arriving group go: colours per beach, and the boats that stay out.

    `placement` pairs a beach index with the colours put there (in colour order), beaches
    in order. Text may leave `island` and `out` unsaid; the state fills them in.
    """

    island: str | None
    placement: tuple[tuple[int, tuple[str, ...]], ...]
    out: tuple[str, ...] = ()

    def _write(self) -> str:
        parts = ["land", str(self.island)]
        parts += [f"{BEACH_LETTERS[b]}:{colour_letters(cs)}" for b, cs in self.placement]
        if self.out:
            parts.append(f"out:{colour_letters(self.out)}")
        return " ".join(parts)


@value
class PutTile(_Written):
    """Where a drawn tile goes: `anchor` and `direction` name the place (anchor None: the
    centre of an empty board); `red` is the direction its red-emblem edge faces."""

    anchor: str | None
    direction: int
    red: int

    @property
    def place(self) -> str:
        """The place as the command names it: 'centre', 'Samoa NE', 'sea N SE' (a sea tile
        is written "sea N", so that it never reads as the direction N)."""
        if self.anchor is None:
            return "centre"
        return f"{tile_words(self.anchor)} {DIRECTIONS[self.direction]}"

    def _write(self) -> str:
        return f"put {self.place} red {DIRECTIONS[self.red]}"


class Puts(Sequence[PutTile]):
    """The puts of a drawn tile, read like a list: the six of each empty place (its red edge
    facing each direction), place after place. Some 150 in a game's middle: they are kept as
    the places' rows of six, each put read from its row when asked for, so that a listing
    read for one put (a player's number, a random pick) copies 25 rows, not 150 puts. Never
    changed: the state lists the puts afresh for each tile drawn."""

    __slots__ = ("_length", "_rows")

    def __init__(self, rows: list[tuple[PutTile, ...]]) -> None:
        self._rows = rows  # the state's own rows of six, each a value
        self._length = 6 * len(rows)

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> PutTile: ...

    @overload
    def __getitem__(self, index: slice) -> list[PutTile]: ...

    def __getitem__(self, index: int | slice) -> PutTile | list[PutTile]:
        try:  # floor division and remainder find a negative index's put too, as a list would
            return self._rows[index // 6][index % 6]  # type: ignore[operator]
        except TypeError:
            if isinstance(index, slice):
                return [*self][index]
            raise

    def __iter__(self) -> Iterator[PutTile]:
        return chain.from_iterable(self._rows)

    def __contains__(self, value: object) -> bool:
        return any(value in row for row in self._rows)

    def __eq__(self, other: object) -> bool:
        """Equal to a list of the same puts, as a list is."""
        if isinstance(other, Puts):
            return self._rows == other._rows
        if isinstance(other, list):
            return [*self] == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # as a list's

    def __repr__(self) -> str:
        return repr([*self])


Choice = Place | Expand | FoundRoyal | Colonise | Pass | Emigrate | EmigrateClosed | Land | PutTile
