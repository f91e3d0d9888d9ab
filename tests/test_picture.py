"""The board picture: a PNG for the mails, deterministic, with boats where the berths are."""

from __future__ import annotations

import colorsys
import io
import itertools
import math
import struct
import zlib
from collections import Counter

import pytest
from PIL import Image
from zlib_ng import zlib_ng as deflater

from engine import (
    COLOURS,
    ISLANDS,
    SEAS,
    START_ISLAND,
    PutTile,
    Setup,
    State,
    make_bot,
    neighbour,
    parse_choice,
)
from pbem.views import picture as picture_module
from pbem.views.picture import BOAT_COLOURS, EMPTY, LAYERS, LETTER_INK, _adler32_combine, board_png
from pbem.views.picture_layout import (
    APOTHEM,
    MAX_HEIGHT,
    MAX_WIDTH,
    MIN_RADIUS,
    Berth,
    berths,
    fit,
    island_plan,
    labels,
    layout,
    placed_berths,
    placed_boats,
    seen,
)
from tests.support.scenario import arrange

RGB = tuple[int, int, int]


def played(players: int, moves: int, seed: int = 3) -> State:
    """A game of `players` greedy bots after `moves` choices (or at its end)."""
    state = State(Setup.from_seed(COLOURS[:players], seed))
    bot = make_bot("greedy", seed)
    while state.decision is not None and len(state.log) < moves:
        state.apply(bot.choose(state))
    return state


def picture(state: State) -> Image.Image:
    image = Image.open(io.BytesIO(board_png(state)))
    assert image.format == "PNG"
    return image.convert("RGB")


def rgb(hex_colour: str) -> RGB:
    return (int(hex_colour[1:3], 16), int(hex_colour[3:5], 16), int(hex_colour[5:7], 16))


def near(a: RGB, b: RGB, tolerance: float = 50) -> bool:
    return math.dist(a, b) < tolerance


def berth_colour(image: Image.Image, berth: Berth) -> RGB:
    """The colour most of the berth's disc is painted in (its boat letter aside)."""
    x, y = berth.centre
    r = berth.radius * 0.8
    pixels = Counter(
        image.getpixel((round(x + dx), round(y + dy)))
        for dx in range(-math.ceil(r), math.ceil(r) + 1)
        for dy in range(-math.ceil(r), math.ceil(r) + 1)
        if dx * dx + dy * dy <= r * r
    )
    colour = pixels.most_common(1)[0][0]
    assert isinstance(colour, tuple)
    return (colour[0], colour[1], colour[2])


@pytest.mark.parametrize("players", [2, 6])
@pytest.mark.parametrize("moves", [0, 60, 10**6], ids=["start", "mid", "end"])
def test_the_picture_is_a_png_of_sensible_size(players: int, moves: int) -> None:
    state = played(players, moves)
    data = board_png(state)
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    assert image.mode == "P"
    assert 200 <= image.width <= MAX_WIDTH
    assert 200 <= image.height <= MAX_HEIGHT
    assert len(data) < 70_000
    assert image.size == (layout(state).width, layout(state).height)


def test_the_same_state_gives_the_same_bytes() -> None:
    state = played(4, 10**6)
    assert board_png(state) == board_png(state)
    assert board_png(state) == board_png(state.copy())


def test_boats_are_drawn_in_their_colour_on_their_beach() -> None:
    state = arrange(
        ("blue", "red", "yellow"),
        tiles=[("Hawaii", (0, 1), 2), ("A", (1, 0), 0)],
        boats={"Tonga a": "BR", "Tonga d": "Y", "Hawaii b": "RRB"},
    )
    image = picture(state)
    drawn = berths(state)
    assert Counter(b.colour for b in drawn if b.colour) == {"blue": 2, "red": 3, "yellow": 1}
    assert [b.colour for b in drawn if b.island == "Hawaii" and b.beach == 1][:3] == [
        "blue",
        "red",
        "red",
    ]
    for berth in drawn:
        found = berth_colour(image, berth)
        if berth.colour is None:
            assert not any(near(found, rgb(c), 80) for c in BOAT_COLOURS.values()), berth
        else:
            assert near(found, rgb(BOAT_COLOURS[berth.colour])), berth


def hue(colour: RGB) -> float:
    return colorsys.rgb_to_hsv(*(c / 255 for c in colour))[0] * 360


def luminance(colour: RGB) -> float:
    """Relative luminance as WCAG defines it."""
    linear = [
        c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
        for c in (v / 255 for v in colour)
    ]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


@pytest.mark.parametrize("moves", [20, 10**6])
def test_the_boats_drawn_are_the_berths_that_hold_one(moves: int) -> None:
    """The picture pastes the boats at the berths that hold one, found without walking the
    free berths: the same berths in the same order as among all of them."""
    state = played(6, moves)
    tiles, _, boats, _ = seen(state)
    lay = layout(state)
    every = placed_berths(tiles, lay, lambda island, beach: dict(boats).get((island, beach), ()))
    held = [berth for berth in every if berth.colour is not None]
    assert held and list(placed_boats(tiles, lay, dict(boats))) == held


def test_the_boat_colours_differ_in_hue_and_their_letters_are_legible() -> None:
    for a, b in itertools.combinations(BOAT_COLOURS.values(), 2):
        apart = abs(hue(rgb(a)) - hue(rgb(b)))
        assert min(apart, 360 - apart) > 20, (a, b)
    for colour, fill in BOAT_COLOURS.items():
        dark, light = sorted((luminance(rgb(fill)), luminance(rgb(LETTER_INK[colour]))))
        assert (light + 0.05) / (dark + 0.05) > 3.4, colour


def test_berths_lie_near_the_beach_jetties() -> None:
    state = arrange(("blue", "red"), tiles=[("Fidschi", (0, -1), 4)])
    position = state.position_of("Fidschi")
    assert position is not None
    centre = layout(state).centre(position)
    radius = layout(state).radius
    for beach in range(3):
        drawn = [b for b in berths(state) if b.island == "Fidschi" and b.beach == beach]
        assert len(drawn) == ISLANDS["Fidschi"].beaches[beach].berths
        for direction in state.jetties("Fidschi", beach):
            angle = math.radians(90 + 60 * direction)
            jetty = (
                centre[0] + APOTHEM * radius * math.cos(angle),
                centre[1] + APOTHEM * radius * math.sin(angle),
            )
            assert min(math.dist(b.centre, jetty) for b in drawn) < 0.45 * radius


@pytest.mark.parametrize("name", sorted(ISLANDS))
def test_berths_and_beach_letters_do_not_overlap_and_stay_on_the_tile(name: str) -> None:
    for rotation in range(6):
        plans = island_plan(name, rotation)
        assert [len(p.berths) for p in plans] == [b.berths for b in ISLANDS[name].beaches]
        marks = [(i, p, plan.berth) for i, plan in enumerate(plans) for p in plan.berths]
        marks += [(i, plan.letter, 0.07) for i, plan in enumerate(plans)]
        for (beach_a, a, ra), (beach_b, b, rb) in itertools.combinations(marks, 2):
            allowed = 0.0 if beach_a != beach_b else -0.01  # a row may bend round a corner
            assert math.dist(a, b) - ra - rb > allowed, (name, rotation, a, b)
        for _, (x, y), r in marks:
            for direction in range(6):
                angle = math.radians(90 + 60 * direction)
                assert x * math.cos(angle) + y * math.sin(angle) + r < APOTHEM, (name, x, y)


def test_a_royal_island_is_ringed_in_its_owners_colour() -> None:
    state = arrange(
        ("blue", "green"),
        tiles=[("Samoa", (0, 1), 0)],
        boats={"Samoa a": "G"},
        royal={"Samoa": "green"},
    )
    image = picture(state)
    lay = layout(state)
    x, y = lay.centre((0, 1))
    ring = 0.94 * APOTHEM * lay.radius
    for direction in range(6):
        angle = math.radians(90 + 60 * direction)
        found = image.getpixel(
            (round(x + ring * math.cos(angle)), round(y + ring * math.sin(angle)))
        )
        assert isinstance(found, tuple)
        assert near((found[0], found[1], found[2]), rgb(BOAT_COLOURS["green"])), direction


def test_empty_places_are_drawn_faintly_next_to_the_tiles() -> None:
    state = arrange(("blue", "red"), tiles=[("B", (0, 1), 0)])
    image = picture(state)
    lay = layout(state)
    for position in state.empty_places():
        x, y = lay.centre(position)
        found = image.getpixel((round(x), round(y + 0.6 * lay.radius)))
        assert isinstance(found, tuple)
        assert near((found[0], found[1], found[2]), rgb(EMPTY), 8), position


def test_sea_tiles_and_empty_places_are_labelled_as_a_put_command_names_them() -> None:
    seas = sorted(SEAS)[:6]
    state = arrange(
        ("blue", "red"),
        tiles=[
            *((name, neighbour((0, 0), d), d) for d, name in enumerate(seas)),
            ("Samoa", (2, -1), 0),
        ],
    )
    words = labels(state.tiles)
    assert {words[state.position_of(name)] for name in seas} == {f"sea {name}" for name in seas}
    assert set(words) == {*(state.position_of(name) for name in seas), *state.empty_places()}
    for position in state.empty_places():
        put = parse_choice(f"put {words[position]} red N")
        assert isinstance(put, PutTile) and put.anchor is not None
        assert neighbour(state.position_of(put.anchor), put.direction) == position
    assert "sea A S" in words.values()  # not "A S", which reads as two directions
    assert "Samoa NE" in words.values()
    assert labels({}) == {(0, 0): "centre"}


def row_of_seas(length: int) -> State:
    """Tonga with `length` sea tiles in a row to its south-east."""
    seas = sorted(SEAS)[:length]
    position = (0, 0)
    tiles = []
    for name in seas:
        position = neighbour(position, 5)
        tiles.append((name, position, 0))
    return arrange(("blue", "red"), tiles=tiles)


def test_the_picture_grows_with_the_board_up_to_the_width_cap() -> None:
    boards = [row_of_seas(n) for n in (0, 2, 4, 6, 8)]
    widths = [picture(board).width for board in boards]
    radii = [layout(board).radius for board in boards]
    assert widths[0] < widths[1] < widths[2]
    assert all(w <= MAX_WIDTH for w in widths)
    assert all(w > MAX_WIDTH * 0.95 for w in widths[2:])
    assert radii == sorted(radii, reverse=True)
    assert radii[-1] < radii[2]


def test_a_very_long_board_keeps_the_smallest_radius_and_grows_past_the_cap() -> None:
    state = row_of_seas(14)
    assert layout(state).radius == MIN_RADIUS
    assert picture(state).width > MAX_WIDTH
    assert START_ISLAND in [b.island for b in berths(state)]


def test_a_picture_drawn_after_others_is_the_one_drawn_afresh() -> None:
    """Parts reused from earlier pictures (tile pictures, encoded bands) change no byte."""
    states = [played(4, moves) for moves in (20, 21, 22, 40, 41)]
    warm = [board_png(state) for state in states]
    for state, data in zip(states, warm, strict=True):
        for name in ("_picture", "_layers", "_tile_image", "_empty_image", "_boat_sprite"):
            getattr(picture_module, name).cache_clear()
        assert board_png(state) == data
        image = Image.open(io.BytesIO(data))
        image.verify()  # chunk checksums


def test_a_games_pictures_drawn_one_after_the_other_are_those_drawn_afresh() -> None:
    """A game's new tile layer starts from the bands of its last picture where the picture
    keeps its width (the rows above the new tile are the same): its pictures, also one
    taller, one shorter and the taller again, are the bytes of each drawn on cold caches."""
    bot = make_bot("greedy", 3)
    state = State(Setup.from_seed(COLOURS[:4], 3))
    states = []
    while len(states) < 30:
        state.apply(bot.choose(state))
        states.append(state.copy())
    sizes = [(layout(s).width, layout(s).height) for s in states]
    taller = next(
        i for i, (w, h) in enumerate(sizes) if (w, h) != sizes[i - 1] and w == sizes[i - 1][0]
    )
    order = [*states, states[taller], states[taller - 1], states[taller]]
    picture_module._layers.cache_clear()
    picture_module._picture.cache_clear()
    drawn = [board_png(s, 0) for s in order]
    for s, data in zip(order, drawn, strict=True):
        for name in ("_picture", "_layers"):
            getattr(picture_module, name).cache_clear()
        assert board_png(s) == data


def test_a_new_tile_below_leaves_the_bands_above_it_encoded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One palette for every picture: a tile placed at the bottom of a board that keeps its
    width changes no row above it: the game's next picture deflates again only the bands from
    the new tile down (and the same bytes as drawn afresh)."""
    bot = make_bot("greedy", 3)
    state = State(Setup.from_seed(COLOURS[:4], 3))
    before = state.copy()
    while True:
        state.apply(bot.choose(state))
        if layout(state).width == layout(before).width and (
            layout(state).height > layout(before).height
            and layout(state).origin == layout(before).origin
        ):
            break
        before = state.copy()
    encoded: list[bytes] = []
    deflate = picture_module._deflated
    monkeypatch.setattr(
        picture_module,
        "_deflated",
        lambda rows, above: encoded.append(rows) or deflate(rows, above),
    )
    picture_module._layers.cache_clear()
    picture_module._picture.cache_clear()
    board_png(before, 0)
    encoded.clear()
    after = board_png(state, 0)
    width, height = layout(state).width, layout(state).height
    band = picture_module._band_rows(width)
    bands = -(-height // band)
    assert 0 < len(encoded) < bands
    picture_module._layers.cache_clear()
    picture_module._picture.cache_clear()
    assert board_png(state) == after


def test_each_game_keeps_its_tile_layer_while_others_are_drawn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A host with many games going: a game's next picture reuses its tiles, however many
    layouts the other games drew meanwhile (up to LAYERS games); its new layout replaces its
    old one rather than taking another game's place."""
    drawn: list[tuple[object, ...]] = []
    compose = picture_module._layer

    def counted(*args: object) -> object:
        drawn.append(args)
        return compose(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(picture_module, "_layer", counted)
    picture_module._layers.cache_clear()
    bot = make_bot("greedy", 3)
    first = played(4, 20)
    later = first.copy()
    while later.tiles == first.tiles:
        later.apply(bot.choose(later))
    moved = later.copy()  # boats moved, no tile placed
    moved.apply(bot.choose(moved))
    assert moved.tiles == later.tiles and board_png(moved) != board_png(later)
    picture_module._layers.cache_clear()
    picture_module._picture.cache_clear()
    drawn.clear()
    board_png(first, 0)
    board_png(later, 0)  # game 0's new layout, in its own slot
    others = {game: played(4, 12 + game, seed=game) for game in range(1, LAYERS)}
    for game, state in others.items():
        board_png(state, game)
    assert len(drawn) == 2 + len(others)
    assert board_png(moved, 0) == board_png(moved)  # the same bytes as drawn for no game
    assert len(drawn) == 2 + len(others) + 1  # game 0 drew no layer: only the second call
    picture_module._picture.cache_clear()  # (the finished pictures, by what they show)
    board_png(others[1], 1)  # the 33rd slot (for no game) gave game 1's place away
    assert len(drawn) == 2 + len(others) + 2
    picture_module._picture.cache_clear()
    board_png(others[LAYERS - 1], LAYERS - 1)  # drawn recently: kept
    assert len(drawn) == 2 + len(others) + 2


def test_pictures_drawn_under_one_key_take_one_slot(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game's record draws a board per turn under one key (`export`): its layouts take
    one slot, not the places of the games going on."""
    drawn: list[object] = []
    compose = picture_module._layer
    monkeypatch.setattr(picture_module, "_layer", lambda *a: drawn.append(a) or compose(*a))
    picture_module._layers.cache_clear()
    picture_module._picture.cache_clear()
    going = [played(4, 30, seed=seed) for seed in range(1, LAYERS)]
    for game, state in enumerate(going):
        board_png(state, game)
    record = [played(2, moves, seed=99) for moves in range(0, 200, 5)]
    layouts = {tuple(state.tiles.items()) for state in record}
    for state in record:
        board_png(state, ("record", 99))
    assert len(drawn) == len(going) + len(layouts) and len(layouts) > 8
    picture_module._picture.cache_clear()
    for game, state in enumerate(going):
        board_png(state, game)
    assert len(drawn) == len(going) + len(layouts)  # every game kept its layer


def test_the_adler32_of_two_pieces_is_that_of_the_whole() -> None:
    first, second = bytes(range(256)) * 300, b"\x07\x00" * 5000
    combined = _adler32_combine(zlib.adler32(first), zlib.adler32(second), len(second))
    assert combined == zlib.adler32(first + second)


def test_each_band_is_deflated_with_the_band_above_as_its_dictionary() -> None:
    """Each band of rows is deflated alone, referring back into the band above it and no
    further: a band encoded again after a move (its rows or those above changed) gives the
    bytes it would in a picture drawn afresh, and the picture is one valid zlib stream."""
    for state in (played(4, 20), played(3, 60, seed=5), played(6, 10**6)):
        for name in ("_picture", "_layers"):
            getattr(picture_module, name).cache_clear()
        data = board_png(state)
        chunks, at = {}, 8
        while at < len(data):
            (length,) = struct.unpack(">I", data[at : at + 4])
            chunks[data[at + 4 : at + 8]] = data[at + 8 : at + 8 + length]
            at += 12 + length
        image = Image.open(io.BytesIO(data))
        width, height = image.size
        pixels = image.tobytes()
        deflated, above, everything = [], b"", b""
        band = picture_module._band_rows(width)
        for top in range(0, height, band):
            raw = pixels[top * width : min(height, top + band) * width]
            rows = b"".join(b"\0" + raw[i : i + width] for i in range(0, len(raw), width))
            dictionary = {"zdict": above} if above else {}
            packer = deflater.compressobj(
                picture_module.COMPRESS_LEVEL, deflater.DEFLATED, -15, **dictionary
            )
            deflated.append(packer.compress(rows) + packer.flush(deflater.Z_SYNC_FLUSH))
            above, everything = rows, everything + rows
        adler = struct.pack(">I", zlib.adler32(everything))
        assert chunks[b"IDAT"] == b"\x78\x9c" + b"".join(deflated) + b"\x03\x00" + adler
        assert zlib.decompress(chunks[b"IDAT"]) == everything


def test_the_bands_compress_about_as_well_as_one_stream() -> None:
    """Each band refers back to the band above it: the picture is not much larger than one
    stream of zlib's own at the same level (it was 1-2% smaller when measured)."""
    data = board_png(played(6, 10**6))
    image = Image.open(io.BytesIO(data))
    width, height = image.size
    pixels = image.tobytes()
    rows = b"".join(b"\0" + pixels[y * width : (y + 1) * width] for y in range(height))
    one_stream = len(zlib.compress(rows, picture_module.COMPRESS_LEVEL))
    assert len(data) < 1.03 * one_stream, (len(data), one_stream)


def test_a_finished_games_picture_shows_no_place_to_put_a_tile() -> None:
    """Issue 30: the game-over picture still showed the "put ..." places: it is drawn for the
    tiles alone, so it is smaller than the same board with the places around it."""
    state = State(Setup.from_seed(("blue", "red"), 5))
    bot = make_bot("greedy", 5)
    while state.decision is not None:
        state.apply(bot.choose(state))
    image = Image.open(io.BytesIO(board_png(state)))
    tiles_only = fit(list(state.tiles))
    with_places = fit([*state.tiles, *state.empty_places()])
    assert image.size == (tiles_only.width, tiles_only.height)
    assert image.size == (layout(state).width, layout(state).height)
    assert (tiles_only.width, tiles_only.height) != (with_places.width, with_places.height)
