"""Where the board picture puts things (`pbem.views.picture` draws them): the hex radius and the
picture's size for a board, the centres of the tiles, the berths of each island's beaches,
the trails of each sea tile and the words written on the sea tiles and the empty places.
Pure geometry on plain data, in hex radii on a tile of radius 1 at (0, 0) or in pixels of
the picture; no drawing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine import ISLANDS, SEAS, Position, PutTile, State, empty_places, tile_words

Point = tuple[float, float]

MAX_WIDTH = 800
MAX_HEIGHT = 900
MIN_RADIUS = 36
MAX_RADIUS = 72
MARGIN = 4

SQRT3 = math.sqrt(3.0)
APOTHEM = SQRT3 / 2


@dataclass(frozen=True)
class Layout:
    """Where the board lands in the picture: hex radius, pixel origin and picture size."""

    radius: float
    origin: Point
    width: int
    height: int

    def centre(self, position: Position) -> Point:
        """The centre of the hex at `position`, on a whole pixel (tiles are pasted whole)."""
        q, r = position
        return (
            round(self.origin[0] + 1.5 * q * self.radius),
            round(self.origin[1] + SQRT3 * self.radius * (r + q / 2)),
        )


@dataclass(frozen=True)
class Berth:
    """One berth as drawn: island, beach index, centre and radius in pixels, boat colour."""

    island: str
    beach: int
    centre: Point
    radius: float
    colour: str | None


def layout(state: State) -> Layout:
    """The largest hex radius (within limits) that fits tiles and empty places in the picture."""
    return fit([*state.tiles, *({} if state.decision is None else state.empty_places())])


def fit(places: Sequence[Position]) -> Layout:
    """The layout for tiles and empty places at `places`."""
    xs = [1.5 * q for q, _ in places]
    ys = [SQRT3 * (r + q / 2) for q, r in places]
    span_x = max(xs) - min(xs) + 2
    span_y = max(ys) - min(ys) + SQRT3
    fit = min((MAX_WIDTH - 2 * MARGIN) / span_x, (MAX_HEIGHT - 2 * MARGIN) / span_y)
    radius = max(MIN_RADIUS, min(MAX_RADIUS, math.floor(fit)))
    origin = (MARGIN + (1 - min(xs)) * radius, MARGIN + (APOTHEM - min(ys)) * radius)
    return Layout(
        radius,
        origin,
        math.ceil(span_x * radius + 2 * MARGIN),
        math.ceil(span_y * radius + 2 * MARGIN),
    )


def labels(tiles: Mapping[Position, tuple[str, int]]) -> dict[Position, str]:
    """The words the picture writes on the sea tiles among `tiles` ('sea K') and on the empty
    places next to them (the place as a `put` command names it: 'centre', 'sea K SE')."""
    words = {p: sea_label(name) for p, (name, _) in tiles.items() if name in SEAS}
    for position, (anchor, direction) in empty_places(tiles).items():
        words[position] = PutTile(anchor, direction, 0).place
    return words


def sea_label(name: str) -> str:
    return str(tile_words(name))


def berths(state: State) -> list[Berth]:
    """Every berth of every island as `board_png` draws it, in picture coordinates."""
    return list(_berths(state, layout(state)))


Tiles = tuple[tuple[Position, tuple[str, int]], ...]  # (place, (tile, rotation)) as placed
Royal = tuple[tuple[str, str], ...]  # the royal islands and their owners' colours
Shown = tuple[tuple[tuple[str, int], tuple[str, ...]], ...]  # boat colours per island beach
Seen = tuple[Tiles, Royal, Shown, bool]  # what a picture shows; the bool: the game is over
# (a finished game's picture shows no empty place to put a tile on)


def seen(state: State) -> Seen:
    """What the picture of `state` shows: two states with the same are the same picture."""
    tiles = tuple(state.tiles.items())
    royal = tuple(
        (island, state.colours[seat])
        for island in state.islands()
        if (seat := state.royal_owner(island)) is not None
    )
    boats = tuple(
        ((name, index), tuple(state.colours_of(state.boats_on(name, index))))
        for _, (name, _) in tiles
        if name in ISLANDS
        for index in range(len(ISLANDS[name].beaches))
        if state.boats_on(name, index)
    )
    return tiles, royal, boats, state.decision is None


# -- the beaches of an island on a tile of radius 1 at (0, 0) -----------------------------


@dataclass(frozen=True)
class _Style:
    """How the beaches of an island lie along a hexagonal path inside the coast (the shore)."""

    shore: float  # apothem of the path
    berth: float  # berth radius
    spacing: float  # between neighbouring berths of a beach
    gap: float  # along the path, between the last berth of a beach and the first of the next
    letter_inside: bool  # the beach letter lies inside its row, not at the start of it

    @property
    def side(self) -> float:
        return self.shore / APOTHEM


ROOMY = _Style(0.63, 0.135, 0.31, 0.42, letter_inside=False)
COMPACT = _Style(0.68, 0.105, 0.235, 0.27, letter_inside=True)  # Tonga: 6 beaches of 3
LETTER_STEP = 0.25  # ROOMY: between a beach letter and the first berth of its row
LETTER_INSET = 0.25  # COMPACT: between the middle of a row and the beach letter
INNER_ROW = 0.29  # ROOMY: how far a second row of a beach lies inside the first
SAND_MARGIN = 0.035


@dataclass(frozen=True)
class BeachPlan:
    """Where a beach lies on a tile of radius 1 at (0, 0): berths in the order they fill,
    the beach letter, the rows of its sand strip and the berth radius."""

    berths: tuple[Point, ...]
    letter: Point
    rows: tuple[tuple[Point, ...], ...]
    berth: float


@dataclass(frozen=True)
class _Rows:
    """Offsets along the shore of a beach's outer row and inner row (letter first)."""

    outer: tuple[float, ...]
    inner: tuple[float, ...] = ()

    @property
    def span(self) -> float:
        return self.outer[-1] - self.outer[0]


def _centred(style: _Style, count: int) -> tuple[float, ...]:
    return tuple((i - (count - 1) / 2) * style.spacing for i in range(count))


def _rows(style: _Style, berths: int, two: bool) -> _Rows:
    """COMPACT: a row of berths; ROOMY: the letter and the berths in one row, or in two."""
    spaced = _centred(style, berths)
    if style.letter_inside:
        return _Rows(spaced)
    if not two:
        return _Rows((spaced[0] - LETTER_STEP, *spaced))
    outer = (berths + 2) // 2
    return _Rows(_centred(style, outer), _centred(style, berths - outer + 1))


def _roomy_rows(berths: list[int]) -> list[_Rows] | None:
    """ROOMY rows, with as few of the largest beaches in two rows as make them fit; None if
    every beach but one would need two rows (Tonga)."""
    room = 6 * ROOMY.side
    two = [False] * len(berths)
    for index in sorted(range(len(berths)), key=lambda i: -berths[i]):
        rows = [_rows(ROOMY, n, t) for n, t in zip(berths, two, strict=True)]
        if sum(r.span + ROOMY.gap for r in rows) <= room:
            return rows
        two[index] = True
    return None


def _shore(style: _Style, t: float) -> Point:
    """The point at `t` on the shore path; t = d + 0.5 is the middle of the side facing d."""
    k = math.floor(t % 6)
    a, b, f = corner(k), corner(k + 1), t % 6 - k
    return ((a[0] + (b[0] - a[0]) * f) * style.side, (a[1] + (b[1] - a[1]) * f) * style.side)


def _row(style: _Style, t: float, offsets: Sequence[float], inset: float) -> tuple[Point, ...]:
    """Points at `offsets` along the shore from `t`, moved `inset` towards the centre."""
    middle = _shore(style, t)
    norm = math.hypot(*middle)
    dx, dy = -middle[0] / norm * inset, -middle[1] / norm * inset
    points = (_shore(style, t + offset / style.side) for offset in offsets)
    return tuple((x + dx, y + dy) for x, y in points)


def _spread(style: _Style, centres: list[float], rows: list[_Rows]) -> list[float]:
    """Push beaches apart along the shore until neighbours keep the gap between them."""
    moved = list(centres)
    order = sorted(range(len(moved)), key=lambda i: moved[i] % 6)
    for _ in range(40):
        for a, b in zip(order, order[1:] + order[:1], strict=True):
            ahead = (moved[b] - moved[a]) % 6 or 6.0
            need = (rows[a].outer[-1] - rows[b].outer[0] + style.gap) / style.side
            if ahead < need - 1e-9:
                moved[a] -= (need - ahead) / 2
                moved[b] += (need - ahead) / 2
    return moved


@lru_cache(maxsize=128)
def island_plan(name: str, rotation: int) -> tuple[BeachPlan, ...]:
    """Where the beaches of island `name` lie when it is placed with `rotation`."""
    beaches = ISLANDS[name].beaches
    berths = [b.berths for b in beaches]
    roomy = _roomy_rows(berths)
    style = COMPACT if roomy is None else ROOMY
    rows = roomy or [_rows(COMPACT, n, False) for n in berths]
    centres = [sum(j + 0.5 for j in b.jetties) / len(b.jetties) + rotation for b in beaches]
    moved = _spread(style, centres, rows)
    return tuple(_beach_plan(style, t, r) for t, r in zip(moved, rows, strict=True))


def _beach_plan(style: _Style, t: float, rows: _Rows) -> BeachPlan:
    outer = _row(style, t, rows.outer, 0.0)
    if style.letter_inside:
        letter = _row(style, t, (0.0,), LETTER_INSET)[0]
        return BeachPlan(outer, letter, (outer,), style.berth)
    if not rows.inner:
        return BeachPlan(outer[1:], outer[0], (outer,), style.berth)
    inner = _row(style, t, rows.inner, INNER_ROW)
    return BeachPlan(outer + inner[1:], inner[0], (outer, inner), style.berth)


def corner(k: int) -> Point:
    """Corner k of the hex; the side facing direction d lies between corners d and d + 1."""
    angle = math.radians(60 + 60 * k)
    return (math.cos(angle), math.sin(angle))


def edge_midpoint(direction: int) -> Point:
    angle = math.radians(90 + 60 * direction)
    return (APOTHEM * math.cos(angle), APOTHEM * math.sin(angle))


def _bezier(a: Point, control: Point, b: Point, t: float) -> tuple[Point, Point]:
    """The point at `t` of a quadratic Bézier curve and the unit normal there."""
    u = 1 - t
    x = u * u * a[0] + 2 * u * t * control[0] + t * t * b[0]
    y = u * u * a[1] + 2 * u * t * control[1] + t * t * b[1]
    dx = u * (control[0] - a[0]) + t * (b[0] - control[0])
    dy = u * (control[1] - a[1]) + t * (b[1] - control[1])
    norm = math.hypot(dx, dy)
    return (x, y), (-dy / norm, dx / norm)


@dataclass(frozen=True)
class SeaPlan:
    """The trails of a sea tile of radius 1 at (0, 0): foam outlines, foam, danger numbers."""

    edges: tuple[tuple[Point, ...], ...]
    foam: tuple[tuple[Point, ...], ...]
    dangers: tuple[tuple[Point, int], ...]


@lru_cache(maxsize=128)
def sea_plan(name: str, rotation: int) -> SeaPlan:
    """Where the trails of sea tile `name` lie when it is placed with `rotation`."""
    trails = SEAS[name].trails
    ends = [
        (edge_midpoint((t.edges[0] + rotation) % 6), edge_midpoint((t.edges[1] + rotation) % 6))
        for t in trails
    ]
    dangers = tuple(
        (_bezier(a, (0.0, 0.0), b, at)[0], trail.danger)
        for trail, (a, b) in zip(trails, ends, strict=True)
        if trail.danger
        for at in (0.2, 0.8)
    )
    return SeaPlan(
        tuple(_ribbon(a, b, 0.12) for a, b in ends),
        tuple(_ribbon(a, b, 0.07) for a, b in ends),
        dangers,
    )


def _ribbon(a: Point, b: Point, width: float) -> tuple[Point, ...]:
    """The outline of a trail `width` wide along a quadratic Bézier curve bent by the centre."""
    left: list[Point] = []
    right: list[Point] = []
    for i in range(17):
        (x, y), (nx, ny) = _bezier(a, (0.0, 0.0), b, i / 16)
        left.append((x + nx * width / 2, y + ny * width / 2))
        right.append((x - nx * width / 2, y - ny * width / 2))
    return (*left, *right[::-1])


def _berths(state: State, lay: Layout) -> Iterator[Berth]:
    return placed_berths(
        tuple(state.tiles.items()),
        lay,
        lambda island, beach: state.colours_of(state.boats_on(island, beach)),
    )


def placed_berths(
    tiles: Iterable[tuple[Position, tuple[str, int]]],
    lay: Layout,
    boats: Callable[[str, int], Sequence[str]],
) -> Iterator[Berth]:
    """Every berth of every island among `tiles` (position, then name and rotation) in
    picture coordinates; `boats` gives the colours of the boats on a beach of an island,
    which fill its berths in order."""
    for name, index, plan, (left, top) in _beaches(tiles, lay):
        colours = boats(name, index)
        for slot, (x, y) in enumerate(plan.berths):
            colour = colours[slot] if slot < len(colours) else None
            at = (left + x * lay.radius, top + y * lay.radius)
            yield Berth(name, index, at, plan.berth * lay.radius, colour)


def placed_boats(
    tiles: Iterable[tuple[Position, tuple[str, int]]],
    lay: Layout,
    boats: Mapping[tuple[str, int], Sequence[str]],
) -> Iterator[Berth]:
    """The berths of `placed_berths` that hold a boat, in the same order; `boats`: the
    colours on each beach that holds any (by island and beach index)."""
    for name, index, plan, (left, top) in _beaches(tiles, lay):
        colours = boats.get((name, index), ())  # the first berths' boats: fewer or as many
        for (x, y), colour in zip(plan.berths, colours, strict=False):
            at = (left + x * lay.radius, top + y * lay.radius)
            yield Berth(name, index, at, plan.berth * lay.radius, colour)


def _beaches(
    tiles: Iterable[tuple[Position, tuple[str, int]]], lay: Layout
) -> Iterator[tuple[str, int, BeachPlan, Point]]:
    """Each beach of each island among `tiles`: its island, its index, its plan and the
    island's centre in picture coordinates."""
    for position, (name, rotation) in tiles:
        if name in ISLANDS:
            centre = lay.centre(position)
            for index, plan in enumerate(island_plan(name, rotation)):
                yield name, index, plan, centre


__all__ = [
    "APOTHEM",
    "MAX_HEIGHT",
    "MAX_WIDTH",
    "MIN_RADIUS",
    "SAND_MARGIN",
    "BeachPlan",
    "Berth",
    "Layout",
    "Point",
    "Royal",
    "SeaPlan",
    "Seen",
    "Shown",
    "Tiles",
    "berths",
    "corner",
    "edge_midpoint",
    "fit",
    "island_plan",
    "labels",
    "layout",
    "placed_berths",
    "placed_boats",
    "sea_label",
    "sea_plan",
    "seen",
]
