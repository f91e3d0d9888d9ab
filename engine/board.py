"""The tiles on the table, the boats on their beaches, and the routes between them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from engine.hexgrid import CENTRE, CENTRE_HEX, HEX_STEPS, Hex, Position, around, position_at
from engine.tiles import ISLANDS, TRAIL_ENDS, IslandTile

BERTHS = {name: tuple(b.berths for b in tile.beaches) for name, tile in ISLANDS.items()}

Pass = tuple[int, int, int, str]  # the direction out, the step there, the danger, the tile
# the trails of a sea tile laid with a rotation: by the direction a group moves in when it
# comes onto the tile, the direction it leaves in, the step to the next place, the danger
PASSES: dict[tuple[str, int], tuple[Pass, ...]] = {
    (name, rotation): tuple(
        (
            (ends[(direction + 3 - rotation) % 6][0] + rotation) % 6,
            HEX_STEPS[(ends[(direction + 3 - rotation) % 6][0] + rotation) % 6],
            ends[(direction + 3 - rotation) % 6][1],
            name,
        )
        for direction in range(6)
    )
    for name, ends in TRAIL_ENDS.items()
    for rotation in range(6)
}


class RouteEnd(StrEnum):
    """Where a group moving across the tiles on the board comes to a stop."""

    EMPTY = "empty"  # a place with no tile yet
    ISLAND = "island"
    ROYAL = "royal"  # a royal island: the group turns back
    FAIL = "fail"  # a trail it cannot pass: the group is lost


# by plain names: reading a member off its enum class costs a __getattr__ hook (Python 3.11)
EMPTY, ISLAND, ROYAL, FAIL = RouteEnd.EMPTY, RouteEnd.ISLAND, RouteEnd.ROYAL, RouteEnd.FAIL


def empty_places(
    tiles: Mapping[Position, tuple[str, int]],
) -> dict[Position, tuple[str | None, int]]:
    """The empty places next to `tiles` (position -> name and rotation, in the order they
    were placed), each with its canonical name: the first-placed tile next to it and the
    direction from that tile; the centre, named (None, 0), when there is no tile."""
    if not tiles:
        return {CENTRE: (None, 0)}
    places: dict[Position, tuple[str | None, int]] = {}
    for position, (name, _) in tiles.items():
        for direction, place in enumerate(around(position)):
            if place not in tiles and place not in places:
                places[place] = (name, direction)
    return places


def _empty_hexes(tiles: Mapping[Hex, tuple[str, int]]) -> dict[Hex, tuple[str | None, int]]:
    """`empty_places` over the board's own integers (hexgrid.Hex)."""
    if not tiles:
        return {CENTRE_HEX: (None, 0)}
    places: dict[Hex, tuple[str | None, int]] = {}
    for position, (name, _) in tiles.items():
        for direction, step in enumerate(HEX_STEPS):
            place = position + step
            if place not in tiles and place not in places:
                places[place] = (name, direction)
    return places


@dataclass
class Route:
    """Where a group moving across tiles already on the board comes to a stop: `end` says
    how, `position` is that place (as the board keeps it, hexgrid.Hex) and `direction` the
    direction the group was moving in when it got there.
    """

    end: RouteEnd
    position: Hex
    direction: int
    crossed: list[tuple[str, int]] = field(default_factory=list)  # (sea tile, danger) passed

    def frozen(self) -> Voyage:
        position = position_at(self.position)
        return Voyage(self.end, position, self.direction, tuple(self.crossed))


@dataclass(frozen=True)
class Voyage:
    """Where a group would come to a stop (`State.voyage`): how (`end`), at which place,
    moving in which direction, and the sea tiles it passed with their dangers."""

    end: RouteEnd
    position: Position
    direction: int
    crossed: tuple[tuple[str, int], ...]  # (sea tile, danger), in the order passed


class Board:
    """Placed tiles (in the order they were placed), boats per beach per seat, royal islands;
    positions as the engine keeps them (hexgrid.Hex); `seas` keeps each sea tile's trails as
    laid (`PASSES`), by its position."""

    __slots__ = ("boats", "royal", "seas", "tiles", "where")

    def __init__(self) -> None:
        self.tiles: dict[Hex, tuple[str, int]] = {}
        self.seas: dict[Hex, tuple[Pass, ...]] = {}
        self.where: dict[str, Hex] = {}
        self.boats: dict[Hex, list[list[int]]] = {}
        self.royal: dict[Hex, int] = {}

    def copy(self) -> Board:
        other = Board.__new__(Board)
        other.tiles = dict(self.tiles)
        other.seas = self.seas.copy()
        other.where = dict(self.where)
        other.boats = {
            pos: [list(beach) for beach in beaches] for pos, beaches in self.boats.items()
        }
        other.royal = dict(self.royal)
        return other

    def place(self, name: str, position: Hex, rotation: int, seats: int) -> None:
        self.tiles[position] = (name, rotation)
        self.where[name] = position
        if name in ISLANDS:
            self.boats[position] = [[0] * seats for _ in ISLANDS[name].beaches]
        else:
            self.seas[position] = PASSES[name, rotation]

    def remove(self, position: Hex) -> list[list[int]]:
        """Take an island off the board for good; returns its boats per beach per seat."""
        name, _ = self.tiles.pop(position)
        del self.where[name]
        self.seas.pop(position, None)
        return self.boats.pop(position)

    def island(self, position: Hex) -> IslandTile:
        return ISLANDS[self.tiles[position][0]]

    def name(self, position: Hex) -> str:
        return self.tiles[position][0]

    def jetties(self, position: Hex, beach: int) -> list[int]:
        """Board directions of a beach's jetties, in the tile's edge order."""
        name, rotation = self.tiles[position]
        return [(edge + rotation) % 6 for edge in ISLANDS[name].beaches[beach].jetties]

    def free(self, position: Hex, beach: int) -> int:
        return ISLANDS[self.tiles[position][0]].beaches[beach].berths - sum(
            self.boats[position][beach]
        )

    def free_berths(self, position: Hex) -> list[int]:
        island = ISLANDS[self.tiles[position][0]]
        return [
            b.berths - sum(boats)
            for b, boats in zip(island.beaches, self.boats[position], strict=True)
        ]

    def full_beaches(self) -> list[tuple[Hex, int]]:
        full = []
        tiles = self.tiles
        for position, beaches in self.boats.items():
            berths = BERTHS[tiles[position][0]]
            for index, boats in enumerate(beaches):
                if sum(boats) >= berths[index]:
                    full.append((position, index))
        return full

    def seat_boats(self, position: Hex, seat: int) -> int:
        return sum(beach[seat] for beach in self.boats[position])

    def empty_places(self) -> dict[Hex, tuple[str | None, int]]:
        return _empty_hexes(self.tiles)

    def trace(self, target: Hex, direction: int, colours: int) -> Route:
        """Follow a group of `colours` colours moving in `direction` into `target` across the
        tiles already on the board, until it reaches an island or an empty place, or fails."""
        crossed: list[tuple[str, int]] = []
        end, position, direction = self.follow(target, direction, colours, crossed)
        return Route(end, position, direction, crossed)

    def follow(
        self, target: Hex, direction: int, colours: int, crossed: list[tuple[str, int]]
    ) -> tuple[RouteEnd, Hex, int]:
        """`trace` without the Route: where the group stops and how, the direction it was
        moving in; the sea tiles passed (with their dangers) are added to `crossed`."""
        seas = self.seas
        while True:
            passes = seas.get(target)
            if passes is None:
                if target not in self.tiles:
                    return EMPTY, target, direction
                return (ROYAL if target in self.royal else ISLAND), target, direction
            out, step, danger, name = passes[direction]
            crossed.append((name, danger))
            if colours < danger:
                return FAIL, target, direction
            direction = out
            target += step

    def is_closed(self, position: Hex, direction: int, colours: int) -> bool:
        """RULES.md §8.1: the route from this jetty passes every trail and comes back home."""
        end, stop, _ = self.follow(position + HEX_STEPS[direction], direction, colours, [])
        return end is ROYAL or (end is ISLAND and stop == position)
