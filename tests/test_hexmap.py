"""The ASCII map of the board: exact drawings, labels that parse back, widths, sea legends."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    CENTRE,
    COLOURS,
    DIRECTIONS,
    ISLANDS,
    SEAS,
    ChoiceError,
    Position,
    PutTile,
    Setup,
    State,
    make_bot,
    match_island,
    neighbour,
    parse_choice,
)
from pbem.commands.player import read_choice
from pbem.views.hexmap import _TEXT_ROWS, _tile_lines, hex_map, sea_legend, short_name
from pbem.views.i18n import sea_notation
from tests.support.scenario import arrange

START_MAP = r"""
         .....
        : put :
  .....: Tonga :.....
 : put :   N   : put :
: Tonga :_____: Tonga :
:   NW  /0 pts\   NE  :
 :...../ Tonga \.....:
 : put \       / put :
: Tonga \_____/ Tonga :
:   SW  : put :   SE  :
 :.....: Tonga :.....:
       :   S   :
        :.....:
"""

ARRANGED_MAP = r"""
         .....
        : put :
  .....:Raroto.:.....
 : put :   N   : put :
:Raroto.:_____:Raroto.:
:   NW  /3 pts\   NE  :
 :...../Raroto.\.....:
 : put \royal R/ put :
: Tonga \_____/ Tonga :.....
:   NW  /0 pts\   NE  : put :
 :...../ Tonga \_____: sea C :
 : put \       / ~ ~ \   NE  :
: Tonga \_____/ sea C \.....:
:   SW  : put \ ~ ~ ~ / put :
 :.....: Tonga \_____/ sea C :
       :   S   : put :   SE  :
        :.....: sea C :.....:
              :   S   :
               :.....:
"""

GAMES = [(players, seed) for players in range(2, 7) for seed in (0, 1, 2)]


def arranged() -> State:
    """Tonga, Rarotonga north of it (royal island of red), sea C south-east turned once."""
    return arrange(
        ("blue", "red"),
        tiles=[("Rarotonga", (0, -1), 0), ("C", (1, 0), 1)],
        royal={"Rarotonga": "red"},
    )


@cache
def boards(players: int, seed: int) -> tuple[State, ...]:
    """A greedy bots' game at its start, after 40 choices and at its end."""
    state = State(Setup.from_seed(COLOURS[:players], seed))
    bot = make_bot("greedy", seed)
    snapshots = [state.copy()]
    while state.decision is not None and len(state.log) < 3000:
        state.apply(bot.choose(state))
        if len(state.log) == 40:
            snapshots.append(state.copy())
    snapshots.append(state)
    return tuple(snapshots)


def labels(text: str) -> list[tuple[str, str]]:
    """The anchor and direction written under each 'put' in a map."""
    lines = [*text.splitlines(), "", ""]
    found = []
    for row, line in enumerate(lines):
        start = line.find(" put ")
        while start >= 0:
            anchor = lines[row + 1][start - 1 : start + 6].strip()
            direction = lines[row + 2][start - 1 : start + 6].strip()
            found.append((anchor, direction))
            start = line.find(" put ", start + 1)
    return found


def named_place(state: State, anchor: str, direction: str) -> Position:
    """The position that `put ANCHOR DIRECTION red S` puts a tile on."""
    choice = parse_choice(f"put {anchor} {direction} red S".replace("  ", " "))
    assert isinstance(choice, PutTile)
    if choice.anchor is None:
        return CENTRE
    position = state.position_of(choice.anchor)
    assert position is not None
    return neighbour(position, choice.direction)


def hex_columns(state: State) -> int:
    columns = {q for q, _ in [*state.tiles, *state.empty_places()]}
    return max(columns) - min(columns) + 1


def test_start_board_map() -> None:
    state = State(Setup.from_seed(("blue", "red", "green", "yellow"), 7))
    assert hex_map(state) == START_MAP.strip("\n")


def test_arranged_board_map() -> None:
    assert hex_map(arranged()) == ARRANGED_MAP.strip("\n")


def test_empty_board_shows_the_centre() -> None:
    table = {**arranged().to_json(), "tiles": [], "boats": [], "royal": []}
    state = State.from_json(table)
    text = hex_map(state)
    assert labels(text) == [("centre", "")]
    assert named_place(state, "centre", "") == CENTRE


@pytest.mark.parametrize("island", ISLANDS)
def test_short_names_name_their_island(island: str) -> None:
    name = short_name(island)
    assert len(name) <= 7
    assert match_island(name) == [island]
    assert parse_choice(f"put {name} NE red S") == PutTile(island, 4, 0)


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_maps_of_bot_games(players: int, seed: int) -> None:
    for state in boards(players, seed):
        text = hex_map(state)
        lines = text.splitlines()
        places = [named_place(state, a, d) for a, d in labels(text)]
        shown = state.empty_places() if state.decision is not None else {}  # none at the end
        assert sorted(places) == sorted(shown)
        for name, _ in state.tiles.values():
            assert (f"sea {name}" if name in SEAS else short_name(name)) in text
        assert text.count(" pts") == sum(name in ISLANDS for name, _ in state.tiles.values())
        royal = [i for i in state.islands() if state.royal_owner(i) is not None]
        assert text.count("royal ") == len(royal)  # a map drawn before (kept) only if the same
        assert all(line == line.rstrip() for line in lines)
        assert lines[0].strip() and lines[-1].strip()
        assert min(len(line) - len(line.lstrip()) for line in lines) == 0
        if hex_columns(state) <= 11:
            assert max(len(line) for line in lines) <= 78


def test_royal_islands_show_their_owner() -> None:
    state = arrange(
        ("blue", "red", "green"),
        tiles=[("Samoa", (0, 1), 0), ("Hiva Oa", (1, -1), 3)],
        royal={"Samoa": "green", "Hiva Oa": "blue"},
    )
    text = hex_map(state)
    assert text.count("royal G") == 1
    assert text.count("royal B") == 1
    assert "royal R" not in text


def test_sea_legend_of_a_rotated_sea_tile() -> None:
    assert sea_legend(arranged()) == ["sea C: N-SE no danger, NE-SW 4, NW-S 3"]


def test_sea_legend_follows_the_tile_data() -> None:
    state = arrange(("blue", "red"), tiles=[("E", (0, 1), 2), ("P", (-1, 0), 0)])
    legend = sea_legend(state)
    assert legend == [
        "sea E: N-NW 3, NE-SE 2, S-SW 4",
        "sea P: N-NE no danger, NW-SW no danger, S-SE no danger",
    ]
    for line, name, rotation in zip(legend, "EP", (2, 0), strict=True):
        for trail in SEAS[name].trails:
            ends = sorted(DIRECTIONS[(edge + rotation) % 6] for edge in trail.edges)
            danger = trail.danger or "no danger"
            assert f"{ends[0]}-{ends[1]} {danger}" in line


def test_sea_legend_is_in_placement_order() -> None:
    state = arrange(
        ("blue", "red"), tiles=[("K", (0, 1), 0), ("Samoa", (1, 0), 0), ("A", (-1, 0), 5)]
    )
    assert [line.split(":")[0] for line in sea_legend(state)] == ["sea K", "sea A"]


def test_a_board_eleven_hexes_wide_keeps_to_78_columns() -> None:
    # four sea tiles east of Tonga and four west: with the empty places at both ends the
    # map spans 11 hex columns, 79 characters, whose outermost are dotted edges
    east, west, tiles = CENTRE, CENTRE, []
    for n, (out_east, out_west) in enumerate([(4, 1), (5, 2), (4, 1), (5, 2)]):
        east, west = neighbour(east, out_east), neighbour(west, out_west)
        tiles += [("ABCD"[n], east, 0), ("EFGH"[n], west, 0)]
    state = arrange(("blue", "red"), tiles=tiles)
    assert hex_columns(state) == 11
    lines = hex_map(state).splitlines()
    assert max(len(line) for line in lines) == 78
    places = [named_place(state, a, d) for a, d in labels("\n".join(lines))]
    assert sorted(places) == sorted(state.empty_places())  # every place still labelled
    assert all(line == line.rstrip() for line in lines)
    assert min(len(line) - len(line.lstrip()) for line in lines) == 0


def _finished(seed: int) -> State:
    state = State(Setup.from_seed(("blue", "red"), seed))
    bot = make_bot("greedy", seed)
    while state.decision is not None:
        state.apply(bot.choose(state))
    return state


def test_a_finished_games_map_shows_no_place_to_put_a_tile() -> None:
    """Issue 30: the game-over map still showed the "put ..." places."""
    final = _finished(5)
    assert final.empty_places()  # the engine still knows them; the map leaves them out
    drawn = hex_map(final)
    assert "put" not in drawn
    for name, _ in final.tiles.values():
        if name in ISLANDS:
            assert short_name(name) in drawn
    playing = State(Setup.from_seed(("blue", "red"), 5))
    assert "put" in hex_map(playing)


@pytest.mark.parametrize("lang", [None, "it", "nl", "fi", "hu", "he"])
def test_an_islands_points_and_royal_owner_are_said_in_the_readers_words_and_fit(
    lang: str | None,
) -> None:
    points, name, royal = _tile_lines("Samoa", "R", lang)
    assert name == "Samoa" and points.startswith("5") and royal.endswith(" R")
    assert len(points) <= _TEXT_ROWS[0][2] and len(royal) <= _TEXT_ROWS[2][2]
    english = lang is None
    assert ("pts" in points) == english and ("royal" in royal) == english
    if lang == "he":  # Hebrew words in the drawing: what follows them stays left to right
        assert points.endswith("'") and "\u200e" in hex_map(
            State(Setup.from_seed(("blue", "red"), 5)), "he"
        )


@pytest.mark.parametrize(
    ("lang", "word"), [(None, "sea"), ("it", "mare"), ("nl", "water"), ("fi", "meri"), ("he", "ים")]
)
def test_a_sea_tile_is_named_on_the_map_in_the_readers_words(lang: str | None, word: str) -> None:
    """Issue 29: the map said 'sea K' where the text beside it says 'mare K'; the empty places
    beside a sea tile name it the same way, as a put command may write it."""
    state = arrange(("blue", "red"), tiles=[("K", neighbour(CENTRE, 3), 0)])
    drawn = hex_map(state, lang)
    assert f"{word} K" in drawn
    assert ("sea K" in drawn) == (lang is None)
    assert drawn.count(f"{word} K") == 4  # the tile, and the three empty places named by it


@pytest.mark.parametrize("word", ["sea", "mare", "Water", "meri", "óceán", "oceán", "ים"])
def test_a_put_command_reads_a_sea_tile_as_any_languages_map_names_it(word: str) -> None:
    """The map names a sea tile in the reader's words ('put / mare K / NW'): a put command
    written as the map shows it is the notation's ('put sea K NW red S')."""
    written = parse_choice(sea_notation(f"put {word} k NW red S"))
    assert written == parse_choice("put sea K NW red S")
    for other in ("put Samoa NE red S", "say mare K", "put mare Z NE red S", "put maremma K"):
        assert sea_notation(other) == other  # no sea tile named: the line as written


def test_a_players_put_line_names_the_sea_tile_as_the_map_of_their_language() -> None:
    """A player's line is read as the map shows the place ('put / mare N / N'): the move is
    the notation's; a sea tile not on the board is still refused, and nothing changes."""
    state = arrange(("blue", "red"), boats={"Tonga a": "BR", "Tonga b": "B"}, top=["N", "Samoa"])
    state.apply(parse_choice("colonise"))
    state.apply(parse_choice("put Tonga NE red S"))
    before = str(state.decision)
    for line in ("put mare N N red S", "put water n N red S", "put ים N N red S"):
        assert read_choice(state, line, numbers=False) == parse_choice("put sea N N red S")
    with pytest.raises(ChoiceError):
        state.apply(read_choice(state, "put meri K N red S", numbers=False))  # no sea K
    assert str(state.decision) == before


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_any_line_a_stranger_writes_is_read_once_and_changed_only_as_a_put(text: str) -> None:
    """The sea words are read before the notation, whatever a line holds: nothing raises, a
    line that is no `put` is left as written, and reading twice changes nothing more."""
    said = sea_notation(text)
    assert said == text or said.lower().startswith("put ")
    assert sea_notation(said) == said
