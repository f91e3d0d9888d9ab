"""The board as a PNG picture, shown inline in the HTML part of the mails.

Flat-topped hexes at their axial positions. An island shows its name, its points and its
beaches: a strip of sand per beach with the beach letter and one circle per berth (a boat
is a circle of its colour with the colour letter), and a plank at each jetty. A sea tile
shows its name ('sea K', never a bare letter that reads as a direction) and its three trails
with their danger numbers near both ends. Empty places show the words a player writes in a
`put` command ('Samoa NE', 'sea K SE'). Where each of them lies is `pbem.views.picture_layout`'s;
this module draws them, with the labels of the islands placed by their letters' widths, and
encodes the PNG.
"""

from __future__ import annotations

import math
import struct
import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageChops, ImageColor, ImageDraw, ImageFont
from zlib_ng import zlib_ng as deflater

from engine import BEACH_LETTERS, ISLANDS, LETTERS, SEAS, Position, State, empty_places
from pbem.views.i18n import ENGLISH_NAMES, notation
from pbem.views.picture_layout import (
    APOTHEM,
    SAND_MARGIN,
    BeachPlan,
    Berth,
    Layout,
    Point,
    Royal,
    Seen,
    Shown,
    Tiles,
    corner,
    edge_midpoint,
    fit,
    island_plan,
    labels,
    placed_boats,
    sea_label,
    sea_plan,
    seen,
)

SUPERSAMPLE = 2
COMPRESS_LEVEL = 6
BAND = 20480  # bytes of rows deflated apart (whole rows), so that a move re-encodes only a few
ADLER_BASE = 65521
LAYERS = 32  # tile layers kept, one per game being played (about 1-2 MB each)


BACKGROUND = "#ffffff"
OUTLINE = "#4f5f6b"
LAND = "#d3e6b8"
SAND = "#f2dea2"
INK = "#2e2410"
JETTY = "#8a5a2b"
FREE_BERTH = "#fdf8ea"
BERTH_EDGE = "#a48a5c"
BOAT_EDGE = "#222222"
SEA = "#c3e2f0"
SEA_INK = "#2f6480"
FOAM = "#ffffff"
FOAM_EDGE = "#86b7cc"
DANGER = "#17405e"
EMPTY = "#f1f4f6"
EMPTY_INK = "#6f7f8a"
BOAT_COLOURS = {
    "blue": "#1d5bd8",
    "red": "#d72a22",
    "green": "#1f9a3a",
    "yellow": "#f7d314",
    "orange": "#f7861c",
    "purple": "#9236c6",
}
LETTER_INK = {
    colour: BOAT_EDGE if colour in ("yellow", "orange") else "#ffffff" for colour in BOAT_COLOURS
}
PAINTS = (
    BACKGROUND,
    OUTLINE,
    LAND,
    SAND,
    INK,
    JETTY,
    FREE_BERTH,
    BERTH_EDGE,
    BOAT_EDGE,
    SEA,
    SEA_INK,
    FOAM,
    FOAM_EDGE,
    DANGER,
    EMPTY,
    EMPTY_INK,
    *BOAT_COLOURS.values(),
)
# the blends of those paints that smooth edges and letters, found once by an octree over the
# pictures of many games: one palette for every picture, so that a band of rows that did not
# change is the same bytes in the next picture and a boat is quantized once
BLENDS = (
    "#f4f8f9",
    "#d8dcad",
    "#b5d0dd",
    "#9cada5",
    "#9c946d",
    "#a3b9c5",
    "#cdb98b",
    "#b6c7a7",
    "#6d6e52",
    "#728fa1",
    "#57758b",
)


def board_png(state: State, game: Hashable | None = None, *, english: bool = False) -> bytes:
    """The board as a compact palette PNG; the same state always gives the same bytes.
    `game`: the game it is drawn for, which keeps its tile layer (the next move's picture
    reuses it) in a slot of its own among the `LAYERS` games drawn last: a host with more
    games going than that draws each picture from its tiles again, not once per layout.
    `english`: islands named as English readers name them ('Fiji'), else as printed on the
    tiles ('Fidschi'); a board without such an island is the same picture either way."""
    return drawn(seen(state), game, english=english)


def drawn(board: Seen, game: Hashable | None = None, *, english: bool = False) -> bytes:
    """`board_png` of what a state shows (`seen`)."""
    tiles, royal, boats, over = board
    return _picture(tiles, royal, boats, game, english and english_differs(tiles), over)


def english_differs(tiles: Iterable[tuple[Position, tuple[str, int]]]) -> bool:
    """Whether English readers name an island among `tiles` otherwise than its tile."""
    return any(name in ENGLISH_NAMES for _, (name, _) in tiles)


@lru_cache(maxsize=64)
def _picture(
    tiles: Tiles,
    royal: Royal,
    boats: Shown,
    game: Hashable | None = None,
    english: bool = False,
    over: bool = False,
) -> bytes:
    """The PNG of what the picture shows: tiles in the order placed, royal islands with their
    owners' colours and the boats on each beach; a state whose board looks the same (a
    reminder, a move that changed no boat) reuses it."""
    layer = _layers.get(tiles, royal, game, english, over)
    image = layer.image.copy()
    core = image.im  # pasted on directly: Image.paste's checks cost more than a boat's pixels
    for berth in placed_boats(tiles, layer.layout, dict(boats)):
        assert berth.colour is not None  # a berth with a boat
        radius = round(berth.radius * 4) / 4
        sprite, mask = _boat_sprite(berth.colour, radius, layer.layout.radius)
        x, y = berth.centre
        left, top = round(x) + 1 - sprite.width // 2, round(y) - sprite.height // 2
        core.paste(sprite.im, (left, top, left + sprite.width, top + sprite.height), mask.im)
    return layer.png(image)


class _Layer:
    """Tiles, empty places and free berths as a palette image, and the PNG bands last encoded
    from pictures drawn on it: a move changes the boats on a few bands, the rest is reused.
    The image has a column more on the left, of zeros: each row's PNG filter byte (none), so
    that its bytes are the PNG's rows as they are deflated.

    Each band is deflated alone, with the band above it as its dictionary (PNG's one stream
    goes on from band to band, but refers back no further): a band is encoded again when its
    rows or those of the band above changed."""

    def __init__(self, lay: Layout, image: Image.Image) -> None:
        self.layout = lay
        self.image = image
        self.bands: dict[int, _Band] = {}  # by the band's top row
        self._lock = threading.Lock()  # two threads drawing on one layer take turns

    def png(self, image: Image.Image) -> bytes:
        with self._lock:
            return self._png(image)

    def follow(self, before: _Layer) -> None:
        """Start from the bands of the game's layer `before`: where the new tile leaves the
        picture as wide as it was, the rows above it are the same bytes (one palette)."""
        if before.image.width == self.image.width:
            with before._lock:
                self.bands = dict(before.bands)

    def _png(self, image: Image.Image) -> bytes:
        image.paste(0, (0, 0, 1, image.height))  # the filter bytes, whatever was drawn there
        width, height = image.width - 1, image.height
        pixels = image.tobytes()
        deflated: list[bytes] = []
        adler = 1
        above = b""  # the rows of the band above
        moved = False  # whether the band above changed
        band = _band_rows(width)
        for top in range(0, height, band):
            rows = pixels[top * (width + 1) : min(height, top + band) * (width + 1)]
            known = self.bands.get(top)
            if known is None or moved or known.rows != rows:
                moved = known is None or known.rows != rows
                known = _Band(rows, _deflated(rows, above), deflater.adler32(rows))
                self.bands[top] = known
            deflated.append(known.deflated)
            adler = _adler32_combine(adler, known.adler, len(known.rows))
            above = known.rows
        for top in [top for top in self.bands if top >= height]:  # a taller picture's
            del self.bands[top]
        header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
        stream = b"\x78\x9c" + b"".join(deflated) + b"\x03\x00" + struct.pack(">I", adler)
        return b"".join(
            (
                b"\x89PNG\r\n\x1a\n",
                _chunk(b"IHDR", header),
                _chunk(b"PLTE", _colours()),
                _chunk(b"IDAT", stream),
                _chunk(b"IEND", b""),
            )
        )


def _band_rows(width: int) -> int:
    """The rows of a band in a picture `width` pixels wide: `BAND` bytes or a little more
    (a band refers back into one band, which should hold about as much as a band of a wide
    picture: narrow pictures deflated in bands of as many rows were 5% larger)."""
    return -(-BAND // (width + 1))


def _deflated(rows: bytes, above: bytes) -> bytes:
    """`rows` as raw deflate blocks that end on a byte boundary, referring back into `above`
    (the rows just before them in the stream) and no further."""
    if above:
        packer = deflater.compressobj(COMPRESS_LEVEL, deflater.DEFLATED, -15, zdict=above)
    else:
        packer = deflater.compressobj(COMPRESS_LEVEL, deflater.DEFLATED, -15)
    return packer.compress(rows) + packer.flush(deflater.Z_SYNC_FLUSH)


@dataclass(frozen=True)
class _Band:
    rows: bytes  # each row's filter byte (none) and palette indices (compared: the same?)
    deflated: bytes  # raw deflate blocks that end on a byte boundary
    adler: int  # the Adler-32 of `rows`


def _adler32_combine(first: int, second: int, length: int) -> int:
    """The Adler-32 of two pieces of data from theirs; `length` is that of the second."""
    a = ((first & 0xFFFF) + (second & 0xFFFF) - 1) % ADLER_BASE
    b = ((first >> 16) + (second >> 16) + length * ((first & 0xFFFF) - 1)) % ADLER_BASE
    return (b << 16) | a


def _chunk(kind: bytes, data: bytes) -> bytes:
    check = struct.pack(">I", deflater.crc32(kind + data))
    return struct.pack(">I", len(data)) + kind + data + check


class _Layers:
    """The tile layers drawn last, a slot for each game (or, drawn for no game, for each
    layout): a game's new layout replaces its old one, so `LAYERS` slots serve as many games
    whatever their moves. Threads drawing for different games may share it."""

    def __init__(self) -> None:
        self._slots: OrderedDict[Hashable, tuple[Tiles, Royal, bool, _Layer]]
        self._slots = OrderedDict()
        self._lock = threading.Lock()

    def get(
        self,
        tiles: Tiles,
        royal: Royal,
        game: Hashable | None,
        english: bool = False,
        over: bool = False,
    ) -> _Layer:
        slot: Hashable = (tiles, royal) if game is None else game
        if english:  # a game read in English and in another language keeps both layers
            slot = ("english", slot)
        with self._lock:
            kept = self._slots.get(slot)
            if kept is not None and kept[:3] == (tiles, royal, over):
                self._slots.move_to_end(slot)
                return kept[3]
        layer = _layer(tiles, royal, english, over)  # outside the lock: drawing takes ms
        if kept is not None:
            layer.follow(kept[3])
        with self._lock:
            self._slots[slot] = (tiles, royal, over, layer)
            self._slots.move_to_end(slot)
            while len(self._slots) > LAYERS:
                self._slots.popitem(last=False)
        return layer

    def cache_clear(self) -> None:
        with self._lock:
            self._slots.clear()


_layers = _Layers()


def _layer(tiles: Tiles, royal: Royal, english: bool = False, over: bool = False) -> _Layer:
    """The layer of a tile layout: changes only when a tile is placed or a royal island
    founded, so most moves reuse it (`_layers`); each tile is pasted from its own cached
    picture. `english`: the islands named as English readers name them; `over`: the game is
    over, no empty place is drawn."""
    laid = dict(tiles)
    empty = {} if over else empty_places(laid)
    lay = fit([*laid, *empty])
    image = Image.new("P", (lay.width + 1, lay.height), 0)  # the first paint: BACKGROUND
    said = (lambda text: str(notation(text))) if english else str
    words = {position: said(text) for position, text in labels(laid).items()}
    pieces = [(position, _empty_image(words[position], lay.radius)) for position in empty]
    owners = dict(royal)
    pieces += [
        (position, _tile_image(name, rotation, owners.get(name), lay.radius, said(name)))
        for position, (name, rotation) in tiles
    ]
    for position, (tile, mask) in pieces:
        x, y = lay.centre(position)
        image.paste(tile, (int(x) + 1 - tile.width // 2, int(y) - tile.height // 2), mask)
    return _Layer(lay, image)


def _tile_canvas(radius: float, outside: str | int, mode: str = "RGB") -> tuple[_Canvas, Point]:
    """A canvas for one tile of `radius`, filled with `outside`, and the tile's centre on it;
    the tile's picture is as large as the jetties reach, with the centre on a pixel."""
    half_width = math.ceil(radius) + 2
    half_height = math.ceil(APOTHEM * 1.08 * radius) + 2
    size = (2 * half_width * SUPERSAMPLE, 2 * half_height * SUPERSAMPLE)
    lay = Layout(radius * SUPERSAMPLE, (0.0, 0.0), *size)
    canvas = _Canvas(lay, Image.new(mode, size, outside))
    return canvas, (half_width * SUPERSAMPLE, half_height * SUPERSAMPLE)


def _finished(canvas: _Canvas, mask: Image.Image) -> tuple[Image.Image, Image.Image]:
    """The picture drawn large, scaled down and quantized, and its mask: the pixels at least
    half covered."""
    image = canvas.image.reduce(SUPERSAMPLE)
    indexed = image.quantize(palette=_palette(), dither=Image.Dither.NONE)
    return indexed, mask.reduce(SUPERSAMPLE).point(_HALF, "1")


@lru_cache(maxsize=512)
def _tile_image(
    name: str, rotation: int, owner: str | None, radius: float, shown: str = ""
) -> tuple[Image.Image, Image.Image]:
    """A tile placed with `rotation` (an island with its free berths, ringed if royal, named
    `shown` or else its name) and the mask to paste it by: the hexagon with the outer half of
    its outline, and jetties."""
    canvas, centre = _tile_canvas(radius, OUTLINE)
    mask = Image.new("L", canvas.image.size, 0)
    draw = ImageDraw.Draw(mask)
    grow = 1 + canvas.width(0.02) / 2 / (APOTHEM * canvas.radius)
    draw.polygon(canvas.hexagon(centre, grow), fill=255)
    if name in SEAS:
        _draw_sea(canvas, centre, name, rotation)
        return _finished(canvas, mask)
    for start, end in _draw_island(canvas, centre, name, rotation, owner, shown or name):
        draw.line([start, end], fill=255, width=canvas.width(0.1))
    for plan in island_plan(name, rotation):
        for x, y in plan.berths:
            at = canvas.at(centre, (x, y))
            _draw_berth(canvas, Berth(name, 0, at, plan.berth * canvas.radius, None))
    return _finished(canvas, mask)


@lru_cache(maxsize=256)
def _empty_image(name: str, radius: float) -> tuple[Image.Image, Image.Image]:
    """An empty place called `name` and the mask to paste it by: a faint hexagon with hard
    edges (a smooth edge between two so pale colours shows nothing and costs bytes), and the
    name in two lines: how much of each pixel their letters cover, coloured by
    `_empty_shades`. Each word is drawn large and scaled down once (`_word`), on the grid of
    pixels it has in the place's picture drawn large."""
    mask, centre = _empty_hexagon(radius)
    covered = Image.new("L", mask.size, 0)
    words = name.rsplit(" ", 1)
    for i, word in enumerate(words):
        y = (i - (len(words) - 1) / 2) * 0.24 * radius * SUPERSAMPLE
        x, y = _on_pixel((centre[0], centre[1] + y))
        letters, left, top = _word(word, round(0.2 * radius * SUPERSAMPLE))
        x0, y0 = (round(x) + left) // SUPERSAMPLE, (round(y) + top) // SUPERSAMPLE
        box = (x0, y0, x0 + letters.width, y0 + letters.height)
        covered.paste(ImageChops.add(covered.crop(box), letters), box)
    shaded = covered.point(_empty_shades())
    return Image.frombytes("P", shaded.size, shaded.tobytes()), mask


@lru_cache(maxsize=16)
def _empty_hexagon(radius: float) -> tuple[Image.Image, Point]:
    """The mask of an empty place of `radius`, and its centre in the picture drawn large."""
    canvas, centre = _tile_canvas(radius, 0, "L")
    ImageDraw.Draw(canvas.image).polygon(canvas.hexagon(centre, 0.93), fill=255)
    return canvas.image.reduce(SUPERSAMPLE).point(_HALF, "1"), centre


@lru_cache(maxsize=1024)
def _word(text: str, size: int) -> tuple[Image.Image, int, int]:
    """How much of each pixel the letters of `text` cover once scaled down, and where its top
    left lies from its middle in the picture drawn large (on an even pixel there, so that the
    same pixels are averaged as in a picture drawn large and then scaled down)."""
    mask, left, top = _text_mask(text, size, False)
    dx, dy = left % SUPERSAMPLE, top % SUPERSAMPLE
    width = -(-(mask.width + dx) // SUPERSAMPLE) * SUPERSAMPLE
    height = -(-(mask.height + dy) // SUPERSAMPLE) * SUPERSAMPLE
    large = Image.new("L", (width, height), 0)
    large.paste(255, (dx, dy), mask)
    return large.reduce(SUPERSAMPLE), left - dx, top - dy


@lru_cache(maxsize=1)
def _empty_shades() -> list[int]:
    """The palette's colour of an empty place's pixel by how much of it a letter covers."""
    shades = Image.new("RGB", (256, 1), EMPTY)
    shades.paste(EMPTY_INK, (0, 0, 256, 1), Image.frombytes("L", (256, 1), bytes(range(256))))
    return list(shades.quantize(palette=_palette(), dither=Image.Dither.NONE).tobytes())


@lru_cache(maxsize=256)
def _boat_sprite(colour: str, radius: float, hex_radius: float) -> tuple[Image.Image, Image.Image]:
    """A boat of `radius` pixels on sand drawn large and scaled down (smooth edges), in the
    colours of the palette, with the mask to paste it by; `hex_radius` sets the width of its
    outline as on the tiles."""
    side = 2 * math.ceil(radius + 2)
    lay = Layout(hex_radius * SUPERSAMPLE, (0.0, 0.0), side * SUPERSAMPLE, side * SUPERSAMPLE)
    canvas = _Canvas(lay, Image.new("RGB", (lay.width, lay.height), SAND))
    centre = (lay.width / 2, lay.height / 2)
    _draw_berth(canvas, Berth("", 0, centre, radius * SUPERSAMPLE, colour))
    mask = Image.new("L", (lay.width, lay.height), 0)
    r = radius * SUPERSAMPLE + canvas.width(0.025) / 2
    ImageDraw.Draw(mask).ellipse((centre[0] - r, centre[1] - r, centre[0] + r, centre[1] + r), 255)
    sprite = canvas.image.reduce(SUPERSAMPLE).quantize(palette=_palette(), dither=Image.Dither.NONE)
    return sprite, mask.reduce(SUPERSAMPLE).point(lambda v: 255 if v else 0, "1")


_HALF = [0] * 128 + [255] * 128  # a mask's pixels at least half covered


@lru_cache(maxsize=1)
def _colours() -> bytes:
    """The palette's colours, red, green and blue of each: the paints, then their blends."""
    return bytes(v for c in dict.fromkeys((*PAINTS, *BLENDS)) for v in ImageColor.getrgb(c))


@lru_cache(maxsize=1)
def _palette() -> Image.Image:
    """An image that holds the palette, to quantize a picture by."""
    palette = Image.new("P", (1, 1))
    palette.putpalette(_colours())
    return palette


# -- drawing ------------------------------------------------------------------------------


@lru_cache(maxsize=64)
def _font(size: int) -> ImageFont.FreeTypeFont:
    font = ImageFont.load_default(size=size)
    assert isinstance(font, ImageFont.FreeTypeFont)
    return font


@lru_cache(maxsize=4096)
def _text_mask(text: str, size: int, bold: bool) -> tuple[Image.Image, int, int]:
    """The text as an antialiased mask, and where its top left lies from its middle. Bold
    letters (drawn with a stroke) stand apart by the stroke's width, each at its own advance:
    set as the font sets them, the stroke runs narrow letters together ('Fiji')."""
    font, stroke = _font(size), max(1, round(size / 22)) if bold else 0
    if not bold or len(text) < 2:
        box = font.getbbox(text, anchor="mm", stroke_width=stroke)
        left, top, right, bottom = map(int, box)
        mask = Image.new("L", (right - left, bottom - top))
        ImageDraw.Draw(mask).text(
            (-left, -top),
            text,
            fill=255,
            font=font,
            anchor="mm",
            stroke_width=stroke,
            stroke_fill=255,
        )
        return mask, left, top
    advances = [font.getlength(letter) + stroke for letter in text]
    width = sum(advances) - stroke + 2 * stroke
    _, top, _, bottom = map(int, font.getbbox(text, anchor="lm", stroke_width=stroke))
    mask = Image.new("L", (math.ceil(width), bottom - top))
    draw = ImageDraw.Draw(mask)
    x = float(stroke)
    for letter, advance in zip(text, advances, strict=True):
        draw.text(
            (x, -top),
            letter,
            fill=255,
            font=font,
            anchor="lm",
            stroke_width=stroke,
            stroke_fill=255,
        )
        x += advance
    return mask, -mask.width // 2, top


class _Canvas:
    """The picture being drawn, larger than the final one; sizes are given in hex radii."""

    def __init__(self, lay: Layout, image: Image.Image | None = None) -> None:
        self.layout = lay
        self.radius = lay.radius
        self.image = image or Image.new("RGB", (lay.width, lay.height), BACKGROUND)
        self.draw = ImageDraw.Draw(self.image)

    def at(self, centre: Point, point: Point) -> Point:
        return (centre[0] + point[0] * self.radius, centre[1] + point[1] * self.radius)

    def width(self, share: float) -> int:
        return max(1, round(self.radius * share))

    def hexagon(self, centre: Point, size: float = 1.0) -> list[Point]:
        return [self.at(centre, (x * size, y * size)) for x, y in map(corner, range(6))]

    def tile(self, centre: Point, fill: str) -> None:
        corners = self.hexagon(centre)
        self.draw.polygon(corners, fill=fill)
        self.outline(corners, OUTLINE, 0.02)

    def outline(self, corners: list[Point], colour: str, width: float) -> None:
        """A closed line round `corners` (ImageDraw's wide polygon outlines are slow)."""
        self.draw.line([*corners, corners[0]], fill=colour, width=self.width(width), joint="curve")

    def text(self, at: Point, text: str, size: float, fill: str | int, bold: bool = False) -> None:
        """`text` centred on `at` (on the nearest pixel of the picture), `size` in hex radii."""
        mask, left, top = _text_mask(text, round(size * self.radius), bold)
        x, y = _on_pixel(at)
        self.image.paste(fill, (round(x) + left, round(y) + top), mask)

    def circle(self, at: Point, size: float, fill: str, edge: str) -> None:
        """A circle centred on the nearest pixel of the picture to `at`."""
        at, r = _on_pixel(at), size * self.radius
        box = (at[0] - r, at[1] - r, at[0] + r, at[1] + r)
        self.draw.ellipse(box, fill=fill, outline=edge, width=self.width(0.025))


def _on_pixel(point: Point) -> Point:
    """The corner of a pixel of the picture nearest to `point` on a canvas drawn larger: the
    same letter or circle then gives the same pixels wherever it lies, which deflate finds."""
    return (
        round(point[0] / SUPERSAMPLE) * SUPERSAMPLE,
        round(point[1] / SUPERSAMPLE) * SUPERSAMPLE,
    )


def _draw_sea(canvas: _Canvas, centre: Point, name: str, rotation: int) -> None:
    canvas.tile(centre, SEA)
    plan = sea_plan(name, rotation)
    for shapes, colour in ((plan.edges, FOAM_EDGE), (plan.foam, FOAM)):
        for shape in shapes:
            canvas.draw.polygon([canvas.at(centre, p) for p in shape], fill=colour)
    for point, danger in plan.dangers:
        at = canvas.at(centre, point)
        canvas.circle(at, 0.125, DANGER, FOAM)
        canvas.text(at, str(danger), 0.19, FOAM, bold=True)
    word, letter = sea_label(name).rsplit(" ", 1)
    canvas.text(canvas.at(centre, (-0.72, -0.09)), word, 0.15, SEA_INK)
    canvas.text(canvas.at(centre, (-0.72, 0.08)), letter, 0.2, SEA_INK, bold=True)


def _draw_island(
    canvas: _Canvas, centre: Point, name: str, rotation: int, owner: str | None, shown: str
) -> list[tuple[Point, Point]]:
    """The island with its beaches, label (`shown`: its name as its readers say it) and royal
    ring; returns the jetties' planks."""
    canvas.tile(centre, LAND)
    plans = island_plan(name, rotation)
    planks = [
        _draw_jetty(canvas, centre, (edge + rotation) % 6, plan)
        for beach, plan in zip(ISLANDS[name].beaches, plans, strict=True)
        for edge in beach.jetties
    ]
    for index, plan in enumerate(plans):
        for row in plan.rows:
            _draw_sand(canvas, [canvas.at(centre, p) for p in row], plan.berth + SAND_MARGIN)
        canvas.text(canvas.at(centre, plan.letter), BEACH_LETTERS[index], 0.22, INK, bold=True)
    if owner is not None:
        canvas.outline(canvas.hexagon(centre, 0.94), BOAT_COLOURS[owner], 0.09)
    _draw_label(canvas, centre, name, shown, rotation, owner)
    return planks


def _draw_jetty(
    canvas: _Canvas, centre: Point, direction: int, plan: BeachPlan
) -> tuple[Point, Point]:
    """A plank from just beyond the edge facing `direction` to the nearest point of the
    beach; returns its ends."""
    mid = edge_midpoint(direction)
    shore = min((*plan.berths, plan.letter), key=lambda p: math.dist(p, mid))
    start = canvas.at(centre, (mid[0] * 1.05, mid[1] * 1.05))
    end = canvas.at(centre, shore)
    canvas.draw.line([start, end], fill=JETTY, width=canvas.width(0.1))
    return start, end


def _draw_sand(canvas: _Canvas, points: list[Point], half: float) -> None:
    """A strip of sand with round ends along a row of berths."""
    r = half * canvas.radius
    for x, y in (points[0], points[-1]):
        canvas.draw.ellipse((x - r, y - r, x + r, y + r), fill=SAND)
    if len(points) > 1:
        canvas.draw.line(points, fill=SAND, width=round(2 * r))


@dataclass(frozen=True)
class _Line:
    """A line of the label in the middle of an island: text, size, boldness, height; a
    line of points has a star before its number (a picture needs no words to translate)."""

    text: str
    size: float
    bold: bool
    y: float
    star: bool = False

    @property
    def width(self) -> float:
        """The line's width in hex radii, its star included."""
        width = _font(100).getlength(self.text) / 100 * self.size
        if self.bold:  # the letters stand apart by the stroke (`_text_mask`)
            width += (len(self.text) - 1) * self.size / 22
        return width + (self.size * 1.05 if self.star else 0.0)


CROWN = (
    (-0.16, -0.17),
    (-0.19, -0.4),
    (-0.09, -0.3),
    (0.0, -0.43),
    (0.09, -0.3),
    (0.19, -0.4),
    (0.16, -0.17),
)
LABEL_SCALES = (1.0, 0.85, 0.75)
LABEL_SHIFTS = tuple(
    (dx, dy)
    for dy in (0, -0.06, 0.06, -0.12, 0.12, -0.18, 0.18, -0.24, 0.24)
    for dx in (0, -0.08, 0.08, -0.16, 0.16)
)
Box = tuple[float, float, float, float]  # left, top, right, bottom


def _label(name: str, shown: str, royal: bool, scale: float) -> list[_Line]:
    size = (0.19 if len(shown) > 7 else 0.21) * scale
    points = ISLANDS[name].points
    top = (0.0 if royal else -0.09) * scale
    lines = [_Line(shown, size, True, top if points else top + 0.09 * scale)]
    if not points:
        return lines
    return [*lines, _Line(str(points), 0.17 * scale, False, top + 0.22 * scale, star=True)]


@lru_cache(maxsize=256)
def _label_boxes(name: str, shown: str, royal: bool, scale: float) -> tuple[Box, ...]:
    """Boxes round the label's lines and round the crown of a royal island."""
    boxes = [(-0.19 * scale, -0.43 * scale, 0.19 * scale, -0.17 * scale)] if royal else []
    for line in _label(name, shown, royal, scale):
        half = line.width / 2 + 0.02
        boxes.append((-half, line.y - line.size * 0.45, half, line.y + line.size * 0.45))
    return tuple(boxes)


@lru_cache(maxsize=256)
def _label_place(name: str, shown: str, rotation: int, royal: bool) -> tuple[float, Point]:
    """The scale and shift of an island's label: the largest scale and the shift nearest to
    the centre that hide no berth and no beach letter, else those that hide the fewest."""
    plans = island_plan(name, rotation)
    obstacles = [(p, plan.berth + 0.02) for plan in plans for p in plan.berths]
    obstacles += [(plan.letter, 0.08) for plan in plans]

    def hidden(scale: float, shift: Point) -> int:
        dx, dy = shift
        boxes = _label_boxes(name, shown, royal, scale)
        return sum(
            _touches((a + dx, b + dy, c + dx, d + dy), o) for a, b, c, d in boxes for o in obstacles
        )

    places = [(scale, shift) for scale in LABEL_SCALES for shift in LABEL_SHIFTS]
    clear = next((place for place in places if not hidden(*place)), None)
    return clear or min(places, key=lambda place: hidden(*place))


def _touches(box: Box, circle: tuple[Point, float]) -> bool:
    (x, y), r = circle
    nearest_x, nearest_y = min(max(x, box[0]), box[2]), min(max(y, box[1]), box[3])
    return math.hypot(x - nearest_x, y - nearest_y) < r


def _draw_label(
    canvas: _Canvas, centre: Point, name: str, shown: str, rotation: int, owner: str | None
) -> None:
    """The island's name (`shown`) and points, and the crown of a royal island with its
    royal boat."""
    scale, shift = _label_place(name, shown, rotation, owner is not None)
    origin = canvas.at(centre, shift)
    if owner is not None:
        crown = [canvas.at(origin, (x * scale, y * scale)) for x, y in CROWN]
        canvas.draw.polygon(crown, fill=BOAT_COLOURS[owner])
        canvas.outline(crown, BOAT_EDGE, 0.02)
        letter = canvas.at(origin, (0, -0.26 * scale))
        canvas.text(letter, LETTERS[owner], 0.15 * scale, LETTER_INK[owner], bold=True)
    for line in _label(name, shown, owner is not None, scale):
        if not line.star:
            canvas.text(canvas.at(origin, (0, line.y)), line.text, line.size, INK, line.bold)
            continue
        left, star = -line.width / 2, line.size * 0.45  # the star's outer radius
        _draw_star(canvas, canvas.at(origin, (left + star, line.y)), star)
        number = canvas.at(origin, (line.width / 2 - (line.width - line.size * 1.05) / 2, line.y))
        canvas.text(number, line.text, line.size, INK, line.bold)


def _draw_star(canvas: _Canvas, at: Point, size: float) -> None:
    """A five-pointed star of outer radius `size` (hex radii) centred on `at`: points."""
    corners = [
        canvas.at(at, (r * math.sin(i * math.pi / 5), -r * math.cos(i * math.pi / 5)))
        for i in range(10)
        for r in [size if i % 2 == 0 else size * 0.45]
    ]
    canvas.draw.polygon(corners, fill=INK)


def _draw_berth(canvas: _Canvas, berth: Berth) -> None:
    size = berth.radius / canvas.radius
    if berth.colour is None:
        canvas.circle(berth.centre, size, FREE_BERTH, BERTH_EDGE)
        return
    canvas.circle(berth.centre, size, BOAT_COLOURS[berth.colour], BOAT_EDGE)
    canvas.text(
        berth.centre, LETTERS[berth.colour], size * 1.35, LETTER_INK[berth.colour], bold=True
    )


__all__ = [
    "BOAT_COLOURS",
    "LAYERS",
    "Seen",
    "board_png",
    "drawn",
    "english_differs",
    "seen",
]
