r"""The board as an ASCII map of flat-topped hexes, and the trails of its sea tiles.

Each hex is 9 characters wide and 5 rows tall, sharing its edges with its neighbours:
hex columns are 7 characters apart and every other column sits half a hex lower.

      _____
     /     \      row 1: 5 characters of text
    /       \     row 2: 7 characters
    \       /     row 3: 7 characters
     \_____/

Placed tiles have solid edges; the empty places a tile may be put on have dotted edges
and are labelled with their name in a `put` command (anchor tile, then direction). A sea
tile is named in the reader's words ('mare K', 'water K'): a `put` command reads them too
(`pbem.views.i18n.sea_notation`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache, partial

from engine import (
    BEACH_LETTERS,
    DIRECTIONS,
    ISLANDS,
    LETTERS,
    SEAS,
    Joined,
    Message,
    Position,
    State,
    empty_places,
    tile_words,
)
from pbem.views.i18n import ENGLISH, LRM, TRANSLATED, Named, island_name, words

Cell = tuple[int, int]  # (column, row) of one character

_RTL = re.compile("[\u0590-\u05ff]")  # a letter written right to left (Hebrew)
COLUMN_STEP = 7
NAME_WIDTH = 7
WIDTH = 78  # the columns of a mail's text

_EDGE_CELLS: tuple[tuple[tuple[int, int, str], ...], ...] = (
    tuple((x, 4, "_") for x in range(2, 7)),  # S
    ((0, 3, "\\"), (1, 4, "\\")),  # SW
    ((1, 1, "/"), (0, 2, "/")),  # NW
    tuple((x, 0, "_") for x in range(2, 7)),  # N
    ((7, 1, "\\"), (8, 2, "\\")),  # NE
    ((8, 3, "/"), (7, 4, "/")),  # SE
)
_DOTTED = {"_": ".", "/": ":", "\\": ":"}
_TEXT_ROWS = ((2, 1, 5), (1, 2, 7), (1, 3, 7))  # first column, row, width


def short_name(island: str) -> str:
    """An island's name in at most 7 characters that the command parser still reads as it."""
    if len(island) <= NAME_WIDTH:
        return island
    joined = island.replace(" ", "")
    if len(joined) <= NAME_WIDTH:
        return joined
    return joined[: NAME_WIDTH - 1] + "."


def tile_label(name: str, lang: str | None = None) -> str:
    """How a put command names a tile as anchor, as a reader of `lang` reads it: a sea
    tile's name ('sea K', 'mare K'; as printed, 'sea K'), or an island's short name."""
    if name in SEAS:
        return f"sea {name}" if lang is None else words(lang).say(tile_words(name))
    return short_name(island_name(name, lang))


def place_label(anchor: str | None, direction: int, lang: str | None = None) -> tuple[str, str]:
    """The two lines naming an empty place as a put command writes it."""
    if anchor is None:
        return ("centre", "")
    return (tile_label(anchor, lang), DIRECTIONS[direction])


def _corner(position: Position) -> Cell:
    q, r = position
    return (COLUMN_STEP * q, 4 * r + 2 * q)


def _draw_edges(canvas: dict[Cell, str], position: Position, dotted: bool) -> None:
    x, y = _corner(position)
    for cells in _EDGE_CELLS:
        for dx, dy, char in cells:
            canvas[(x + dx, y + dy)] = _DOTTED[char] if dotted else char


def _draw_text(canvas: dict[Cell, str], position: Position, lines: tuple[str, ...]) -> None:
    x, y = _corner(position)
    for (dx, dy, width), line in zip(_TEXT_ROWS, lines, strict=False):
        cells = list(line.center(width)[:width])
        if _RTL.search(line):  # Hebrew words: the drawing after them stays left to right
            last = max(i for i, char in enumerate(cells) if not char.isspace())
            cells[last] += LRM
        for offset, char in enumerate(cells):
            canvas[(x + dx + offset, y + dy)] = char


def _tile_lines(name: str, king: str | None, lang: str | None) -> tuple[str, ...]:
    """A tile's text: a sea tile's name, or an island's points, name and royal owner's
    letter (`king`)."""
    if name in SEAS:
        return (" ~ ~ ", tile_label(name, lang), " ~ ~ ~ ")  # a put command's anchor
    said = words(lang).say
    # Translators: an island's points on the map, at most 5 characters ("5 pts")
    points = said(Message("{points} pts", points=ISLANDS[name].points))
    # Translators: the owner's colour letter of a royal island on the map, at most 7 characters
    royal = "" if king is None else said(Message("royal {king}", king=king))
    return (points, tile_label(name, lang), royal)


def _narrowed(canvas: dict[Cell, str]) -> dict[Cell, str]:
    """The canvas in at most `WIDTH` columns where only the dotted outer edges of the empty
    places at its far left and right overflow (a board 11 hexes wide is 79 characters): those
    characters are left out."""
    for side in (min, max):
        xs = [x for x, _ in canvas]
        if max(xs) - min(xs) + 1 <= WIDTH:
            break
        edge = side(xs)
        if all(char in _DOTTED.values() for (x, _), char in canvas.items() if x == edge):
            canvas = {cell: char for cell, char in canvas.items() if cell[0] != edge}
    return canvas


def _render(canvas: dict[Cell, str]) -> str:
    canvas = _narrowed(canvas)
    xs, ys = zip(*canvas, strict=True)
    left, top = min(xs), min(ys)
    width = max(xs) - left + 1
    rows = [[" "] * width for _ in range(max(ys) - top + 1)]
    for (x, y), char in canvas.items():
        rows[y - top][x - left] = char
    return "\n".join("".join(row).rstrip() for row in rows).strip("\n")


def hex_map(state: State, lang: str | None = None) -> str:
    """The board in ASCII, every placed tile and every empty place next to one, for mails,
    with the islands' names as a reader of `lang` reads them (None: as printed)."""
    return _drawn(*_layout(state), lang)


Layout = tuple[tuple[tuple[Position, tuple[str, int]], ...], tuple[tuple[str, str], ...], bool]


def _layout(state: State) -> Layout:
    """What the map shows of a state: its tiles, its royal islands' owners, whether it is over."""
    kings = tuple(
        (island, LETTERS[state.colours[owner]])
        for island in state.islands()
        if (owner := state.royal_owner(island)) is not None
    )
    return tuple(state.tiles.items()), kings, state.decision is None


@lru_cache(maxsize=256)
def _drawn(
    tiles: tuple[tuple[Position, tuple[str, int]], ...],
    kings: tuple[tuple[str, str], ...],
    over: bool,
    lang: str | None,
) -> str:
    """The map of a tile layout (it shows no boat: most moves leave it as it was); a game
    `over` shows no empty place to put a tile on."""
    laid, royal = dict(tiles), dict(kings)
    canvas: dict[Cell, str] = {}
    for position, (anchor, direction) in ({} if over else empty_places(laid)).items():
        _draw_edges(canvas, position, dotted=True)
        _draw_text(canvas, position, ("put", *place_label(anchor, direction, lang)))
    for position, (name, _) in tiles:
        _draw_edges(canvas, position, dotted=False)
        _draw_text(canvas, position, _tile_lines(name, royal.get(name), lang))
    return _render(canvas)


def map_for_readers(state: State) -> str:
    """The map as each reader reads it (`Named`): the islands' names in their language, and
    the points and royal owners in its words ("4 p", "4 PV"); drawn in English, and in
    another language or with the printed names when a reader first reads it so."""
    layout = _layout(state)
    return Named(_drawn(*layout, ENGLISH), partial(_drawn, *layout, None), _Maps(layout))


class _Maps(Mapping[str, str]):
    """The map in each translated language's words, each drawn when a reader of that
    language first reads it (a round's readers read in one or two languages, not all)."""

    def __init__(self, layout: Layout) -> None:
        self._layout = layout

    def __getitem__(self, lang: str) -> str:
        if lang not in TRANSLATED:
            raise KeyError(lang)
        return _drawn(*self._layout, lang)

    def __iter__(self) -> Iterator[str]:
        return iter(TRANSLATED)

    def __len__(self) -> int:
        return len(TRANSLATED)


def _trail_text(ends: tuple[str, str], danger: int) -> str:
    if danger:
        return f"{ends[0]}-{ends[1]} {danger}"
    # Translators: a trail of a sea tile between two directions, without danger
    return Message("{a}-{b} no danger", a=ends[0], b=ends[1])


def sea_trails(name: str, rotation: int) -> list[str]:
    """A sea tile's trails between board directions with their dangers, sorted by their ends."""
    trails = []
    for trail in SEAS[name].trails:
        ends = sorted(DIRECTIONS[(edge + rotation) % 6] for edge in trail.edges)
        trails.append(((ends[0], ends[1]), trail.danger))
    return [_trail_text(ends, danger) for ends, danger in sorted(trails)]


def tile_turns(name: str, reds: Iterable[int]) -> list[str]:
    """How a drawn tile would lie with its red edge facing each direction of `reds`: an
    island's beaches with the directions of their jetties, or a sea tile's trails."""
    rows: list[list[str]] = []
    for red in sorted(set(reds)):  # the red edge is edge 0, so `red` is the rotation
        if name in SEAS:
            parts: list[str] = [Joined(", ", sea_trails(name, red))]
        else:
            parts = [
                f"{letter}: {' '.join(DIRECTIONS[(edge + red) % 6] for edge in beach.jetties)}"
                for letter, beach in zip(BEACH_LETTERS, ISLANDS[name].beaches, strict=False)
            ]
        rows.append([f"red {DIRECTIONS[red]}", *parts])
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    lines: list[str] = []
    for row in rows:  # the last column is the only one with words to translate
        cells = zip(row[:-1], widths[:-1], strict=True)
        first = "".join(cell.ljust(width) + "  " for cell, width in cells)
        lines.append(Joined("", [first, row[-1]]) if row[-1] else first.rstrip())
    return lines


def sea_legend(state: State) -> list[str]:
    """One line per sea tile on the board, in placement order: its trails and their dangers."""
    return [
        Message("sea {tile}: {trails}", tile=name, trails=Joined(", ", sea_trails(name, rotation)))
        for name, rotation in state.tiles.values()
        if name in SEAS
    ]
