"""The hex grid: flat-topped tiles in axial coordinates, six compass directions.

A `Position` is a pair `(q, r)` of axial coordinates: `q` counts columns to the east
(every column is a half hex lower than the one west of it), `r` counts hexes down a
column, to the south. `CENTRE` is `(0, 0)`, where Tonga starts (or the first tile put on
an empty table). North is up, as in the mails' map and picture.

Directions are numbered clockwise like tile edges, starting from the south:

    number  0    1    2    3    4    5
    name    S    SW   NW   N    NE   SE
    step    0,1  -1,1 -1,0 0,-1 1,-1 1,0    (added to q, r by `neighbour`)

Opposite directions differ by 3. A tile with rotation r (the direction its red edge faces)
has its edge i facing direction (i + r) % 6.
"""

from __future__ import annotations

import difflib
import re
from functools import lru_cache

Position = tuple[int, int]

CENTRE: Position = (0, 0)
DIRECTIONS = ("S", "SW", "NW", "N", "NE", "SE")
DIRECTION_WORDS = ("south", "south-west", "north-west", "north", "north-east", "south-east")
STEPS: tuple[Position, ...] = ((0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0))

# The engine keeps positions as single integers (`Hex`): a place on a flat board whose steps
# in the six directions are additions, and which hashes and compares as cheaply as a number.
# Positions within 2047 hexes of the centre have one (a stack has far fewer tiles).
Hex = int
_SIDE = 1 << 12
_MIDDLE = 1 << 11
HEX_STEPS: tuple[int, ...] = tuple(dq * _SIDE + dr for dq, dr in STEPS)


def hex_of(position: Position) -> Hex:
    """The integer the engine keeps for `position`."""
    return (position[0] + _MIDDLE) * _SIDE + position[1] + _MIDDLE


def has_hex(position: Position) -> bool:
    """Whether `position` is near enough to the centre to have a `hex_of`."""
    return -_MIDDLE <= position[0] < _MIDDLE and -_MIDDLE <= position[1] < _MIDDLE


def position_at(place: Hex) -> Position:
    """The position of one of the engine's integers (`hex_of` the other way)."""
    q, r = divmod(place, _SIDE)
    return (q - _MIDDLE, r - _MIDDLE)


CENTRE_HEX = hex_of(CENTRE)

_DIRECTION_BY_TEXT: dict[str, int] = {}
for _index, (_short, _word) in enumerate(zip(DIRECTIONS, DIRECTION_WORDS, strict=True)):
    _DIRECTION_BY_TEXT[_short.lower()] = _index
    _DIRECTION_BY_TEXT[_word.replace("-", "")] = _index


def neighbour(position: Position, direction: int) -> Position:
    """The position next to `position` in board direction `direction`."""
    step = STEPS[direction]
    return (position[0] + step[0], position[1] + step[1])


@lru_cache(maxsize=4096)
def around(position: Position) -> tuple[Position, ...]:
    """The six positions next to `position`, by direction."""
    q, r = position
    return tuple((q + dq, r + dr) for dq, dr in STEPS)


def opposite(direction: int) -> int:
    return (direction + 3) % 6


def parse_direction(text: str) -> int | None:
    """Read a compass direction: `ne`, `NE`, `north-east`, `north east`, `northeast`."""
    return _DIRECTION_BY_TEXT.get(_direction_key(text))


def closest_directions(text: str, among: tuple[int, ...] = tuple(range(6))) -> list[int]:
    """The directions of `among` a misspelt `text` may mean ('nww' -> NW, 'nrth' -> N), best
    first."""
    keys = {word: d for word, d in _DIRECTION_BY_TEXT.items() if d in among}
    close = difflib.get_close_matches(_direction_key(text), list(keys), n=3, cutoff=0.6)
    return list(dict.fromkeys(keys[word] for word in close))


def _direction_key(text: str) -> str:
    return re.sub(r"[\s\-_]", "", text.lower())
