"""The 32 tiles, read from the package's own copy of tiles.json."""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files

from engine.message import Message


@dataclass(frozen=True)
class Beach:
    berths: int
    jetties: tuple[int, ...]  # tile edges


@dataclass(frozen=True)
class IslandTile:
    name: str
    points: int
    start: bool
    beaches: tuple[Beach, ...]

    is_island = True


@dataclass(frozen=True)
class Trail:
    edges: tuple[int, int]
    danger: int


@dataclass(frozen=True)
class SeaTile:
    name: str
    trails: tuple[Trail, ...]

    is_island = False

    def trail_from(self, edge: int) -> tuple[int, int]:
        """The other end and the danger number of the trail that starts at tile edge `edge`."""
        return TRAIL_ENDS[self.name][edge]


Tile = IslandTile | SeaTile

_DATA = json.loads(files("engine").joinpath("tiles.json").read_text(encoding="utf-8"))

ISLANDS: dict[str, IslandTile] = {
    raw["name"]: IslandTile(
        name=raw["name"],
        points=raw["points"],
        start=raw["start"],
        beaches=tuple(Beach(b["berths"], tuple(b["jetties"])) for b in raw["beaches"]),
    )
    for raw in _DATA["islands"]
}
SEAS: dict[str, SeaTile] = {
    raw["id"]: SeaTile(
        name=raw["id"],
        trails=tuple(Trail((t["edges"][0], t["edges"][1]), t["danger"]) for t in raw["trails"]),
    )
    for raw in _DATA["seas"]
}
TILES: dict[str, Tile] = {**ISLANDS, **SEAS}

# sea tile -> tile edge -> the other end of the trail from that edge, and its danger
TRAIL_ENDS: dict[str, dict[int, tuple[int, int]]] = {}
for _sea in SEAS.values():
    _ends: dict[int, tuple[int, int]] = {}
    for _trail in _sea.trails:
        _a, _b = _trail.edges
        _ends[_a] = (_b, _trail.danger)
        _ends[_b] = (_a, _trail.danger)
    TRAIL_ENDS[_sea.name] = _ends

START_ISLAND = next(tile.name for tile in ISLANDS.values() if tile.start)
STACK_TILES: tuple[str, ...] = tuple(
    [name for name in ISLANDS if name != START_ISLAND] + list(SEAS)
)
BEACH_LETTERS = "abcdef"


def tile_words(tile: str) -> str:
    """'sea K' for a sea tile, so that its letter never reads as a direction; 'Samoa'."""
    # Translators: a sea tile by its letter, "sea K" (the word of the put command)
    return Message("sea {tile}", tile=tile) if tile in SEAS else tile


def without_accents(text: str) -> str:
    """`text` with the accents taken off its letters ('plâce' -> 'place'), and letters of
    another width or a ligature as their plain ones."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def normalise_name(text: str) -> str:
    """Lower case, accents and everything but letters and digits removed."""
    return re.sub(r"[^a-z0-9]", "", without_accents(text).lower())


_ISLAND_KEYS = {normalise_name(name): name for name in ISLANDS}
# other names players know an island by: the tiles print the German "Fidschi"
ISLAND_ALIASES = {"Fiji": "Fidschi"}
_ALIAS_KEYS = {normalise_name(alias): name for alias, name in ISLAND_ALIASES.items()}


def match_island(text: str) -> list[str]:
    """Islands whose name is `text` (exactly, else by prefix), ignoring case, spaces and accents."""
    key = normalise_name(text)
    if not key:
        return []
    if key in _ISLAND_KEYS:
        return [_ISLAND_KEYS[key]]
    if key in _ALIAS_KEYS:
        return [_ALIAS_KEYS[key]]
    return [name for k, name in _ISLAND_KEYS.items() if k.startswith(key)]


def suggest_island(text: str, *among: Sequence[str]) -> list[str]:
    """The islands whose names are close to a misspelt `text` ('tunga' -> Tonga), best first
    (at most 3). Given `among`, lists of names from the most to the least fitting (those the
    decision allows, those on the board), only names in them, a list's names before the next's."""
    key = normalise_name(text)
    keys = {**_ISLAND_KEYS, **_ALIAS_KEYS}
    close = difflib.get_close_matches(key, list(keys), n=len(keys), cutoff=0.6) if key else []
    names = list(dict.fromkeys(keys[k] for k in close))
    if among:
        names = list(dict.fromkeys(n for group in among for n in names if n in group))
    return names[:3]
