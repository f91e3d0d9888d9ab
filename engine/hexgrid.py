"""The hex grid: flat-topped tiles in axial coordinates, six compass directions.

Directions are numbered clockwise like tile edges: 0 = S, 1 = SW, 2 = NW, 3 = N,
4 = NE, 5 = SE. A tile with rotation r has its edge i facing direction (i + r) % 6.
"""

from __future__ import annotations

import re

Position = tuple[int, int]

CENTRE: Position = (0, 0)
DIRECTIONS = ("S", "SW", "NW", "N", "NE", "SE")
DIRECTION_WORDS = ("south", "south-west", "north-west", "north", "north-east", "south-east")
STEPS: tuple[Position, ...] = ((0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0))

_DIRECTION_BY_TEXT: dict[str, int] = {}
for _index, (_short, _word) in enumerate(zip(DIRECTIONS, DIRECTION_WORDS, strict=True)):
    _DIRECTION_BY_TEXT[_short.lower()] = _index
    _DIRECTION_BY_TEXT[_word.replace("-", "")] = _index


def neighbour(position: Position, direction: int) -> Position:
    """The position next to `position` in board direction `direction`."""
    step = STEPS[direction]
    return (position[0] + step[0], position[1] + step[1])


def opposite(direction: int) -> int:
    return (direction + 3) % 6


def parse_direction(text: str) -> int | None:
    """Read a compass direction: `ne`, `NE`, `north-east`, `north east`, `northeast`."""
    return _DIRECTION_BY_TEXT.get(re.sub(r"[\s\-_]", "", text.lower()))
