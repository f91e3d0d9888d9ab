"""Rule scenarios, one or more per section of RULES.md (§2-§12, and §13's forced choices).

Every expectation is worked out by hand from RULES.md and tiles.json. Geometry reminder:
directions 0=S (0,1), 1=SW (-1,1), 2=NW (-1,0), 3=N (0,-1), 4=NE (1,-1), 5=SE (1,0); a
tile with rotation r has edge i facing direction (i+r)%6; a group moving in direction d
enters a tile through its side facing (d+3)%6, i.e. through edge (d+3-r)%6, and a newly
drawn tile gets rotation (d+3)%6 so that the group enters through its edge 0.

Two sea tiles used for routes that only lead back to Tonga ("the loop"): P at (0,1) with
rotation 0 joins its N side (edge 3) to its NE side (edge 4); O at (1,0) with rotation 1
joins its SW side (edge 0) to its NW side (edge 1), both trails with no danger number. A
group leaving Tonga south goes (0,1) -> NE -> (1,0) -> NW -> Tonga again.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import pytest

from engine import (
    ISLANDS,
    SEAS,
    START_ISLAND,
    BoatMoved,
    BoatsPlaced,
    BoatsRecalled,
    GameEnded,
    GameOverError,
    GroupArrived,
    GroupLanded,
    GroupSailed,
    IllegalChoiceError,
    IslandRemoved,
    Land,
    Phase,
    RoyalIslandFounded,
    Setup,
    State,
    StayedAtSea,
    TileDrawn,
    TilePlaced,
    TurnedBack,
    TurnPassed,
    TurnStarted,
    VoyageFailed,
    VoyagePassed,
    parse_choice,
)
from tests.support.scenario import (
    arrange,
    chose,
    group,
    layout,
    legal,
    new_game,
    placed_tiles,
    put_places,
    royal,
)

BR = ("blue", "red")
BRG = ("blue", "red", "green")
EMPTY_TONGA = ("", "", "", "", "", "")
LOOP = [("P", (0, 1), 0), ("O", (1, 0), 1)]
ALL_SEAS = list(SEAS)
ALL_ISLANDS = [name for name in ISLANDS if name != START_ISLAND]


def play(state: State, text: str) -> list[object]:
    return list(state.apply(parse_choice(text)))


def illegal(state: State, text: str) -> None:
    before = state.to_json()
    with pytest.raises(IllegalChoiceError):
        state.apply(parse_choice(text))
    assert state.to_json() == before


def tonga(*beaches: str) -> tuple[str, ...]:
    return (*beaches, *[""] * (6 - len(beaches)))


def three_player_setup() -> State:
    """Blue on Tonga a and c, red on a and b, green on b and c; blue to start."""
    state = new_game(BRG)
    for text in ["a", "a", "b", "c", "b", "c"]:
        play(state, f"place Tonga {text}")
    return state


# -- §2 Set-up -------------------------------------------------------------------------


def test_s2_setup_round_twice_keeps_a_free_berth() -> None:
    state = new_game(BRG)
    assert state.decision is not None and state.decision.kind is Phase.SETUP
    assert legal(state) == {f"place Tonga {b}" for b in "abcdef"}
    seats = []

    def place(text: str) -> list[object]:
        assert state.decision is not None
        seats.append(state.decision.seat)
        return play(state, text)

    assert place("place Tonga a") == [
        chose("blue", "place Tonga a"),
        BoatsPlaced("blue", "Tonga", (0,)),
    ]
    place("place Tonga a")
    # beach a holds 2 boats: it must keep its last berth free
    assert legal(state) == {f"place Tonga {b}" for b in "bcdef"}
    illegal(state, "place Tonga a")
    place("place Tonga b")
    place("place Tonga c")
    illegal(state, "place Tonga a")
    place("place Tonga b")
    assert legal(state) == {f"place Tonga {b}" for b in "cdef"}
    events = place("place Tonga c")
    assert seats == [0, 1, 2, 0, 1, 2]
    assert events == [
        chose("green", "place Tonga c"),
        BoatsPlaced("green", "Tonga", (2,)),
        TurnStarted("blue", 1),
    ]
    assert layout(state) == {"Tonga": tonga("BR", "RG", "BG")}
    assert state.reserve == (13, 13, 13)
    assert state.phase is Phase.TURN and state.active == 0


def test_s2_six_players_last_setup_choices_are_forced() -> None:
    colours = ["blue", "red", "green", "yellow", "orange", "purple"]
    state = new_game(colours)
    for beach in "aabbccdde":
        play(state, f"place Tonga {beach}")
    assert state.decision is not None and state.decision.colour == "yellow"
    assert legal(state) == {"place Tonga e", "place Tonga f"}
    events = play(state, "place Tonga e")
    assert events == [
        chose("yellow", "place Tonga e"),
        BoatsPlaced("yellow", "Tonga", (4,)),
        chose("orange", "place Tonga f", forced=True),
        BoatsPlaced("orange", "Tonga", (5,)),
        chose("purple", "place Tonga f", forced=True),
        BoatsPlaced("purple", "Tonga", (5,)),
        TurnStarted("blue", 1),
    ]
    assert layout(state) == {"Tonga": ("BR", "GY", "OP", "BR", "GY", "OP")}
    assert state.reserve == (13,) * 6
    assert state.phase is Phase.TURN and state.active == 0


# -- §3 A turn -------------------------------------------------------------------------


def test_s3_turn_offers_expansion_royal_island_or_new_colonisation() -> None:
    state = three_player_setup()
    # Tonga can never be royal; blue has 2 boats there, so every expansion adds 2
    pairs = {f"expand Tonga {a},{b}" for a, b in combinations("abcdef", 2)}
    assert legal(state) == pairs | {"colonise"}
    events = play(state, "expand Tonga d,e")
    assert events == [
        chose("blue", "expand Tonga d,e"),
        BoatsPlaced("blue", "Tonga", (3, 4)),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {"Tonga": tonga("BR", "RG", "BG", "B", "B")}
    assert state.reserve == (11, 13, 13)
    assert state.decision is not None and state.decision.colour == "red"
    assert legal(state) == pairs | {"colonise"}

    royal = arrange(
        BR,
        tiles=[("Samoa", (0, -1), 0)],
        boats={"Samoa a": "B", "Samoa c": "B", "Tonga a": "BR"},
    )
    assert legal(royal) == (
        {f"expand Tonga {b}" for b in "abcdef"}
        | {"expand Samoa a,b", "expand Samoa a,c", "expand Samoa b,c"}
        | {"royal Samoa", "colonise"}
    )


# -- §4 Expansion ----------------------------------------------------------------------


def test_s4_expansion_adds_min_of_boats_beaches_reserve() -> None:
    # k = 3 boats on Tonga, 6 beaches, 12 in reserve: 3 boats, one per beach
    state = arrange(BR, boats={"Tonga a": "B", "Tonga b": "BR", "Tonga c": "B"})
    assert legal(state) == {"expand Tonga " + ",".join(c) for c in combinations("abcdef", 3)} | {
        "colonise"
    }

    # k = 3 boats on Rapa Nui, which has 2 beaches: 2 boats
    state = arrange(
        BR,
        tiles=[("Rapa Nui", (0, -1), 0)],
        boats={"Rapa Nui a": "BB", "Rapa Nui b": "B", "Tonga a": "R"},
    )
    assert legal(state) == {"expand Rapa Nui a,b", "royal Rapa Nui", "colonise"}
    illegal(state, "expand Rapa Nui a,a")
    events = play(state, "expand Rapa Nui a,b")
    assert events == [
        chose("blue", "expand Rapa Nui a,b"),
        BoatsPlaced("blue", "Rapa Nui", (0, 1)),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {"Tonga": tonga("R"), "Rapa Nui": ("BBB", "BB")}
    assert state.reserve == (10, 14)


def test_s4_full_number_must_be_added_one_per_beach() -> None:
    state = three_player_setup()
    illegal(state, "expand Tonga d")
    illegal(state, "expand Tonga d,e,f")
    illegal(state, "expand Tonga d,d")
    assert state.phase is Phase.TURN and state.active == 0
    assert layout(state) == {"Tonga": tonga("BR", "RG", "BG")}


# -- §5 Emigration ---------------------------------------------------------------------


def test_s5_all_full_beaches_emigrate_in_the_order_chosen() -> None:
    state = arrange(BR, boats={"Tonga a": "BR", "Tonga b": "BR"}, top=["Nauru", "Samoa"])
    assert play(state, "expand Tonga a,b") == [
        chose("blue", "expand Tonga a,b"),
        BoatsPlaced("blue", "Tonga", (0, 1)),
    ]
    assert state.phase is Phase.EMIGRATE
    assert legal(state) == {"emigrate Tonga a S", "emigrate Tonga b SW"}
    assert state.drawn == 0

    assert play(state, "emigrate Tonga b SW") == [
        chose("blue", "emigrate Tonga b SW"),
        GroupSailed("Tonga", 1, 1, group("BBR")),
        TileDrawn("Nauru", 14, 16),
        TilePlaced("Nauru", (-1, 1), 4),
        GroupArrived("Nauru", group("BBR")),
    ]
    assert state.decision is not None
    assert (state.decision.kind, state.decision.island) == (Phase.LAND, "Nauru")
    assert state.decision.boats == group("BBR")
    assert legal(state) == {
        "land Nauru a:B b:B c:R",
        "land Nauru a:B b:R c:B",
        "land Nauru a:R b:B c:B",
    }
    # beach a is still full and goes next, by its only jetty
    assert play(state, "land Nauru a:R b:B c:B") == [
        chose("blue", "land Nauru a:R b:B c:B"),
        GroupLanded("Nauru", ((0, ("red",)), (1, ("blue",)), (2, ("blue",))), ()),
        chose("blue", "emigrate Tonga a S", forced=True),
        GroupSailed("Tonga", 0, 0, group("BBR")),
        TileDrawn("Samoa", 13, 16),
        TilePlaced("Samoa", (0, 1), 3),
        GroupArrived("Samoa", group("BBR")),
    ]
    assert play(state, "land Samoa a:B b:B c:R") == [
        chose("blue", "land Samoa a:B b:B c:R"),
        GroupLanded("Samoa", ((0, ("blue",)), (1, ("blue",)), (2, ("red",))), ()),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {
        "Tonga": EMPTY_TONGA,
        "Nauru": ("R", "B", "B"),
        "Samoa": ("B", "B", "R"),
    }
    assert placed_tiles(state) == {
        "Tonga": ((0, 0), 0),
        "Nauru": ((-1, 1), 4),
        "Samoa": ((0, 1), 3),
    }
    assert state.reserve == (11, 13)


def test_s5_jetty_chosen_before_the_draw_new_tile_faces_the_group() -> None:
    state = arrange(
        BR,
        tiles=[("Tubuai", (0, -1), 0)],
        boats={"Tubuai a": "R", "Tubuai b": "BR"},
        top=["Nauru"],
    )
    assert legal(state) == {"expand Tubuai a", "expand Tubuai b", "colonise"}
    assert play(state, "expand Tubuai b") == [
        chose("blue", "expand Tubuai b"),
        BoatsPlaced("blue", "Tubuai", (1,)),
    ]
    # Tubuai b has jetties on edges 4 and 5: NE and SE; nothing drawn yet
    assert state.phase is Phase.EMIGRATE
    assert legal(state) == {"emigrate Tubuai b NE", "emigrate Tubuai b SE"}
    assert state.drawn == 1 and state.stack_left[0] == "Nauru"

    north_east = state.copy()
    assert play(state, "emigrate Tubuai b SE") == [
        chose("blue", "emigrate Tubuai b SE"),
        GroupSailed("Tubuai", 1, 5, group("BBR")),
        TileDrawn("Nauru", 13, 16),
        TilePlaced("Nauru", (1, -1), 2),
        GroupArrived("Nauru", group("BBR")),
    ]
    assert play(north_east, "emigrate Tubuai b NE") == [
        chose("blue", "emigrate Tubuai b NE"),
        GroupSailed("Tubuai", 1, 4, group("BBR")),
        TileDrawn("Nauru", 13, 16),
        TilePlaced("Nauru", (1, -2), 1),
        GroupArrived("Nauru", group("BBR")),
    ]
    assert play(state, "land Nauru a:B b:R c:B") == [
        chose("blue", "land Nauru a:B b:R c:B"),
        GroupLanded("Nauru", ((0, ("blue",)), (1, ("red",)), (2, ("blue",))), ()),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {
        "Tonga": EMPTY_TONGA,
        "Tubuai": ("R", ""),
        "Nauru": ("B", "R", "B"),
    }
    assert placed_tiles(state)["Nauru"] == ((1, -1), 2)
    assert state.reserve == (13, 13)


# -- §6 Voyage -------------------------------------------------------------------------


def test_s6_seed_example_three_colours_fail_on_4_purple_passes() -> None:
    colours = ["yellow", "orange", "green", "purple"]
    # Tuvalu b: 4 berths, one jetty on edge 3 (north); sea tile A: edge 0 to 3, danger 4
    fails = arrange(
        colours,
        tiles=[("Tuvalu", (0, -1), 0)],
        boats={"Tuvalu b": "YOG"},
        top=["A", "Samoa"],
    )
    assert legal(fails) == {"expand Tuvalu a", "expand Tuvalu b", "expand Tuvalu c", "colonise"}
    assert play(fails, "expand Tuvalu b") == [
        chose("yellow", "expand Tuvalu b"),
        BoatsPlaced("yellow", "Tuvalu", (1,)),
        chose("yellow", "emigrate Tuvalu b N", forced=True),
        GroupSailed("Tuvalu", 1, 3, group("YYOG")),
        TileDrawn("A", 14, 15),
        TilePlaced("A", (0, -2), 0),
        VoyageFailed("A", 4, group("YYOG")),
        TurnStarted("orange", 2),
    ]
    assert layout(fails) == {"Tonga": EMPTY_TONGA, "Tuvalu": ("", "", "")}
    assert fails.reserve == (15, 15, 15, 15)
    assert placed_tiles(fails)["A"] == ((0, -2), 0)

    passes = arrange(
        colours,
        tiles=[("Tuvalu", (0, -1), 0)],
        boats={"Tuvalu a": "Y", "Tuvalu b": "POG"},
        top=["A", "Samoa"],
    )
    assert play(passes, "expand Tuvalu b") == [
        chose("yellow", "expand Tuvalu b"),
        BoatsPlaced("yellow", "Tuvalu", (1,)),
        chose("yellow", "emigrate Tuvalu b N", forced=True),
        GroupSailed("Tuvalu", 1, 3, group("YOGP")),
        TileDrawn("A", 14, 15),
        TilePlaced("A", (0, -2), 0),
        VoyagePassed("A", 4, 4),
        TileDrawn("Samoa", 13, 15),
        TilePlaced("Samoa", (0, -3), 0),
        GroupArrived("Samoa", group("YOGP")),
    ]
    assert passes.decision is not None and passes.decision.kind is Phase.LAND
    # 4 different boats on 3 beaches, none left empty: 3! * S(4, 3) = 36 ways
    assert len(legal(passes)) == 36
    illegal(passes, "land Samoa a:GY b:OP")
    assert play(passes, "land Samoa a:G b:Y c:OP") == [
        chose("yellow", "land Samoa a:G b:Y c:OP"),
        GroupLanded("Samoa", ((0, ("green",)), (1, ("yellow",)), (2, ("orange", "purple"))), ()),
        TurnStarted("orange", 2),
    ]
    assert layout(passes) == {
        "Tonga": EMPTY_TONGA,
        "Tuvalu": ("Y", "", ""),
        "Samoa": ("G", "Y", "OP"),
    }
    assert passes.reserve == (13, 14, 14, 14)


def test_s6_danger_numbers_count_on_existing_and_new_sea_tiles() -> None:
    # F already at (0,1): the group enters by edge 3, trail 0-3 has danger 3; 2 colours fail
    state = arrange(BR, tiles=[("F", (0, 1), 0)], boats={"Tonga a": "BR"}, top=["Samoa"])
    assert play(state, "expand Tonga a") == [
        chose("blue", "expand Tonga a"),
        BoatsPlaced("blue", "Tonga", (0,)),
        chose("blue", "emigrate Tonga a S", forced=True),
        GroupSailed("Tonga", 0, 0, group("BBR")),
        VoyageFailed("F", 3, group("BBR")),
        TurnStarted("red", 2),
    ]
    assert state.drawn == 1
    assert layout(state) == {"Tonga": EMPTY_TONGA}
    assert state.reserve == (15, 15)

    # K at (0,1): edge 3 to 2 (no danger) leads NW to (-1,1); J is drawn there with
    # rotation 5, the group enters by edge 0 and trail 0-5 has danger 2: one colour fails
    state = arrange(BR, tiles=[("K", (0, 1), 0)], boats={"Tonga a": "BB"}, top=["J"])
    assert play(state, "expand Tonga a,b") == [
        chose("blue", "expand Tonga a,b"),
        BoatsPlaced("blue", "Tonga", (0, 1)),
        chose("blue", "emigrate Tonga a S", forced=True),
        GroupSailed("Tonga", 0, 0, group("BBB")),
        VoyagePassed("K", 0, 1),
        TileDrawn("J", 15, 14),
        TilePlaced("J", (-1, 1), 5),
        VoyageFailed("J", 2, group("BBB")),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {"Tonga": tonga("", "B")}
    assert state.reserve == (14, 15)
    assert placed_tiles(state)["J"] == ((-1, 1), 5)


# -- §7 Landing ------------------------------------------------------------------------


def test_s7_one_boat_per_beach_before_any_beach_gets_two() -> None:
    state = arrange(BR, boats={"Tonga a": "BR"}, top=["Rapa Nui"])
    assert play(state, "expand Tonga a") == [
        chose("blue", "expand Tonga a"),
        BoatsPlaced("blue", "Tonga", (0,)),
        chose("blue", "emigrate Tonga a S", forced=True),
        GroupSailed("Tonga", 0, 0, group("BBR")),
        TileDrawn("Rapa Nui", 14, 16),
        TilePlaced("Rapa Nui", (0, 1), 3),
        GroupArrived("Rapa Nui", group("BBR")),
    ]
    assert legal(state) == {
        "land Rapa Nui a:B b:BR",
        "land Rapa Nui a:R b:BB",
        "land Rapa Nui a:BB b:R",
        "land Rapa Nui a:BR b:B",
    }
    illegal(state, "land Rapa Nui a:BBR")
    illegal(state, "land Rapa Nui b:BBR")
    assert play(state, "land Rapa Nui a:R b:BB") == [
        chose("blue", "land Rapa Nui a:R b:BB"),
        GroupLanded("Rapa Nui", ((0, ("red",)), (1, ("blue", "blue"))), ()),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {"Tonga": EMPTY_TONGA, "Rapa Nui": ("R", "BB")}
    assert state.reserve == (13, 14)


def test_s7_landing_back_on_the_island_left_player_picks_beaches() -> None:
    # K at (0,1) sends the group NW to (-1,1); J drawn there (rotation 5) takes it from
    # edge 0 to edge 5, which faces NE: back to Tonga
    state = arrange(
        BR, tiles=[("K", (0, 1), 0)], boats={"Tonga a": "BR", "Tonga d": "R"}, top=["J"]
    )
    assert play(state, "expand Tonga a") == [
        chose("blue", "expand Tonga a"),
        BoatsPlaced("blue", "Tonga", (0,)),
        chose("blue", "emigrate Tonga a S", forced=True),
        GroupSailed("Tonga", 0, 0, group("BBR")),
        VoyagePassed("K", 0, 2),
        TileDrawn("J", 15, 14),
        TilePlaced("J", (-1, 1), 5),
        VoyagePassed("J", 2, 2),
        GroupArrived("Tonga", group("BBR")),
    ]
    assert state.decision is not None
    assert (state.decision.kind, state.decision.island) == (Phase.LAND, "Tonga")
    # 3 boats, 6 beaches with room: any 3 beaches (20 ways) times who goes where (3 ways)
    choices = state.legal_choices()
    assert len(choices) == 60
    for choice in choices:
        assert isinstance(choice, Land)
        assert [len(boats) for _, boats in choice.placement] == [1, 1, 1]
        assert choice.out == ()
    illegal(state, "land Tonga a:BB b:R")
    illegal(state, "land Tonga d:BBR")
    assert play(state, "land Tonga b:B c:R d:B") == [
        chose("blue", "land Tonga b:B c:R d:B"),
        GroupLanded("Tonga", ((1, ("blue",)), (2, ("red",)), (3, ("blue",))), ()),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {"Tonga": tonga("", "B", "R", "BR")}
    assert state.reserve == (13, 13)


def test_s7_full_beach_waiting_to_emigrate_gets_no_boat() -> None:
    # the group from Tonga a loops back (K, then J) while Tonga d is full and waiting
    state = arrange(
        BR, tiles=[("K", (0, 1), 0)], boats={"Tonga a": "BR", "Tonga d": "BR"}, top=["J", "Samoa"]
    )
    play(state, "expand Tonga a,d")
    assert legal(state) == {"emigrate Tonga a S", "emigrate Tonga d N"}
    play(state, "emigrate Tonga a S")
    assert state.decision is not None
    assert (state.decision.kind, state.decision.island) == (Phase.LAND, "Tonga")
    # 5 beaches with a free berth (not d): any 3 of them (10 ways) times 3 colour orders
    choices = state.legal_choices()
    assert len(choices) == 30
    for choice in choices:
        assert isinstance(choice, Land)
        assert 3 not in [beach for beach, _ in choice.placement]
    illegal(state, "land Tonga b:B c:B d:R")
    assert play(state, "land Tonga a:R b:B c:B") == [
        chose("blue", "land Tonga a:R b:B c:B"),
        GroupLanded("Tonga", ((0, ("red",)), (1, ("blue",)), (2, ("blue",))), ()),
        chose("blue", "emigrate Tonga d N", forced=True),
        GroupSailed("Tonga", 3, 3, group("BBR")),
        TileDrawn("Samoa", 14, 14),
        TilePlaced("Samoa", (0, -1), 0),
        GroupArrived("Samoa", group("BBR")),
    ]
    assert layout(state) == {"Tonga": tonga("R", "B", "B"), "Samoa": ("", "", "")}
    assert state.reserve == (11, 13)


def test_s7_overflow_player_chooses_boats_left_out() -> None:
    # Tuvalu b (north jetty) leads straight to Tubuai, which has one free berth per beach
    state = arrange(
        BRG,
        tiles=[("Tuvalu", (0, -1), 0), ("Tubuai", (0, -2), 0)],
        boats={"Tuvalu b": "BRG", "Tubuai a": "RG", "Tubuai b": "GG"},
    )
    assert play(state, "expand Tuvalu b") == [
        chose("blue", "expand Tuvalu b"),
        BoatsPlaced("blue", "Tuvalu", (1,)),
        chose("blue", "emigrate Tuvalu b N", forced=True),
        GroupSailed("Tuvalu", 1, 3, group("BBRG")),
        GroupArrived("Tubuai", group("BBRG")),
    ]
    assert legal(state) == {
        "land Tubuai a:B b:B out:RG",
        "land Tubuai a:B b:R out:BG",
        "land Tubuai a:B b:G out:BR",
        "land Tubuai a:R b:B out:BG",
        "land Tubuai a:R b:G out:BB",
        "land Tubuai a:G b:B out:BR",
        "land Tubuai a:G b:R out:BB",
    }
    illegal(state, "land Tubuai a:G out:BBR")
    assert play(state, "land Tubuai a:G b:R out:BB") == [
        chose("blue", "land Tubuai a:G b:R out:BB"),
        GroupLanded("Tubuai", ((0, ("green",)), (1, ("red",))), ("blue", "blue")),
    ]
    # both Tubuai beaches are full now: jetties SW, NW (beach a) and NE, SE (beach b)
    assert state.phase is Phase.EMIGRATE
    assert legal(state) == {
        "emigrate Tubuai a SW",
        "emigrate Tubuai a NW",
        "emigrate Tubuai b NE",
        "emigrate Tubuai b SE",
    }
    assert layout(state) == {
        "Tonga": EMPTY_TONGA,
        "Tuvalu": ("", "", ""),
        "Tubuai": ("RGG", "RGG"),
    }
    assert state.reserve == (15, 13, 11)


# -- §8 Chain reaction -----------------------------------------------------------------


def test_s8_chain_reaction_across_islands() -> None:
    state = arrange(
        BRG,
        tiles=[("Tubuai", (0, 1), 0)],
        boats={"Tonga a": "BR", "Tonga b": "BR", "Tubuai a": "GG"},
        top=["Hawaii", "J", "Samoa"],
    )
    assert play(state, "expand Tonga a,b") == [
        chose("blue", "expand Tonga a,b"),
        BoatsPlaced("blue", "Tonga", (0, 1)),
    ]
    assert legal(state) == {"emigrate Tonga a S", "emigrate Tonga b SW"}
    assert play(state, "emigrate Tonga a S") == [
        chose("blue", "emigrate Tonga a S"),
        GroupSailed("Tonga", 0, 0, group("BBR")),
        GroupArrived("Tubuai", group("BBR")),
    ]
    assert legal(state) == {"land Tubuai a:B b:BR", "land Tubuai a:R b:BB"}
    assert play(state, "land Tubuai a:R b:BB") == [
        chose("blue", "land Tubuai a:R b:BB"),
        GroupLanded("Tubuai", ((0, ("red",)), (1, ("blue", "blue"))), ()),
    ]
    # Tonga b still full, Tubuai a full now: the player picks the order across islands
    assert legal(state) == {
        "emigrate Tonga b SW",
        "emigrate Tubuai a SW",
        "emigrate Tubuai a NW",
    }
    assert play(state, "emigrate Tubuai a SW") == [
        chose("blue", "emigrate Tubuai a SW"),
        GroupSailed("Tubuai", 0, 1, group("RGG")),
        TileDrawn("Hawaii", 13, 16),
        TilePlaced("Hawaii", (-1, 2), 4),
        GroupArrived("Hawaii", group("RGG")),
    ]
    assert legal(state) == {
        "land Hawaii a:R b:G c:G",
        "land Hawaii a:G b:R c:G",
        "land Hawaii a:G b:G c:R",
    }
    # then Tonga b, forced: J drawn at (-1,1) with rotation 4, edge 0 to 5 (danger 2, two
    # colours pass) faces N; Samoa drawn at (-1,0) with rotation 0
    assert play(state, "land Hawaii a:G b:G c:R") == [
        chose("blue", "land Hawaii a:G b:G c:R"),
        GroupLanded("Hawaii", ((0, ("green",)), (1, ("green",)), (2, ("red",))), ()),
        chose("blue", "emigrate Tonga b SW", forced=True),
        GroupSailed("Tonga", 1, 1, group("BBR")),
        TileDrawn("J", 13, 15),
        TilePlaced("J", (-1, 1), 4),
        VoyagePassed("J", 2, 2),
        TileDrawn("Samoa", 12, 15),
        TilePlaced("Samoa", (-1, 0), 0),
        GroupArrived("Samoa", group("BBR")),
    ]
    assert play(state, "land Samoa a:R b:B c:B") == [
        chose("blue", "land Samoa a:R b:B c:B"),
        GroupLanded("Samoa", ((0, ("red",)), (1, ("blue",)), (2, ("blue",))), ()),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {
        "Tonga": EMPTY_TONGA,
        "Tubuai": ("", "BB"),
        "Hawaii": ("G", "G", "R"),
        "Samoa": ("R", "B", "B"),
    }
    assert placed_tiles(state) == {
        "Tonga": ((0, 0), 0),
        "Tubuai": ((0, 1), 0),
        "Hawaii": ((-1, 2), 4),
        "J": ((-1, 1), 4),
        "Samoa": ((-1, 0), 0),
    }
    assert state.reserve == (11, 13, 13)


# -- §8.1 Routes that only lead back -----------------------------------------------------


def test_s8_1_closed_route_illegal_while_alternative() -> None:
    state = arrange(
        BR,
        tiles=LOOP,
        boats={"Tonga a": "BR", "Tonga b": "BR", "Tonga c": "BR"},
        top=["Nauru", "Samoa"],
    )
    assert play(state, "expand Tonga a,b,c") == [
        chose("blue", "expand Tonga a,b,c"),
        BoatsPlaced("blue", "Tonga", (0, 1, 2)),
    ]
    assert legal(state) == {"emigrate Tonga b SW", "emigrate Tonga c NW"}
    illegal(state, "emigrate Tonga a S")
    assert play(state, "emigrate Tonga b SW") == [
        chose("blue", "emigrate Tonga b SW"),
        GroupSailed("Tonga", 1, 1, group("BBR")),
        TileDrawn("Nauru", 14, 14),
        TilePlaced("Nauru", (-1, 1), 4),
        GroupArrived("Nauru", group("BBR")),
    ]
    # beach c is the only alternative left, so it goes without asking
    assert play(state, "land Nauru a:B b:B c:R") == [
        chose("blue", "land Nauru a:B b:B c:R"),
        GroupLanded("Nauru", ((0, ("blue",)), (1, ("blue",)), (2, ("red",))), ()),
        chose("blue", "emigrate Tonga c NW", forced=True),
        GroupSailed("Tonga", 2, 2, group("BBR")),
        TileDrawn("Samoa", 13, 14),
        TilePlaced("Samoa", (-1, 0), 5),
        GroupArrived("Samoa", group("BBR")),
    ]
    # now Tonga's only full beach has only a closed route: Tonga leaves the game
    assert play(state, "land Samoa a:B b:B c:R") == [
        chose("blue", "land Samoa a:B b:B c:R"),
        GroupLanded("Samoa", ((0, ("blue",)), (1, ("blue",)), (2, ("red",))), ()),
        IslandRemoved("Tonga", group("BBR")),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {"Nauru": ("B", "B", "R"), "Samoa": ("B", "B", "R")}
    assert state.set_aside == ("Tonga",)
    assert "Tonga" not in placed_tiles(state)
    assert state.reserve == (11, 13)


def test_s8_1_island_removed_when_all_routes_closed() -> None:
    state = arrange(
        BR,
        tiles=[*LOOP, ("Samoa", (0, -1), 0)],
        boats={"Tonga a": "BR", "Tonga d": "R", "Samoa a": "B"},
    )
    stack_before = state.stack_left
    assert play(state, "expand Tonga a") == [
        chose("blue", "expand Tonga a"),
        BoatsPlaced("blue", "Tonga", (0,)),
        IslandRemoved("Tonga", group("BBRR")),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {"Samoa": ("B", "", "")}
    assert placed_tiles(state) == {
        "P": ((0, 1), 0),
        "O": ((1, 0), 1),
        "Samoa": ((0, -1), 0),
    }
    assert state.set_aside == ("Tonga",)
    assert state.stack_left == stack_before
    assert state.reserve == (14, 15)
    # red has no boats on the board and Tonga is gone: one boat on Samoa, or colonise
    assert legal(state) == {"place Samoa a", "place Samoa b", "place Samoa c", "colonise"}


# Ruling (when): a closed island is removed when its emigration comes, in the order the
# player chooses. The positions come from random games: their set-up and the log so far.


@dataclass(frozen=True)
class _Game:
    colours: tuple[str, ...]
    stack: str  # top first, comma-separated
    log: tuple[str, ...]

    def state(self) -> State:
        setup = Setup(self.colours, tuple(self.stack.split(",")))
        return State.replay(setup, [parse_choice(text) for text in self.log])


TONGA_CLOSED_HAWAII_WAITING = _Game(
    ("red", "blue", "yellow"),
    (
        "P,L,Hawaii,K,B,I,Tuvalu,N,Tahiti,Tuamotu,E,G,Rarotonga,Hiva Oa,Oahu,Nauru,M,D,"
        "Rapa Nui,Muroroa,Tokelau,H,Tubuai,A,Samoa,J,O,F,Mangareva,Fidschi,C"
    ),
    (
        "place Tonga e",
        "place Tonga d",
        "place Tonga c",
        "place Tonga f",
        "place Tonga d",
        "place Tonga e",
        "colonise",
        "put Tonga S red SE",
        "put Tonga SW red SE",
        "put Tonga N red SE",
        "place Hawaii a",
        "expand Tonga a,e",
        "expand Tonga a,e",
        "land Hawaii a:B b:Y c:Y",
        "expand Hawaii a",
        "emigrate Hawaii a SW",
        "expand Tonga a,d,f",
    ),
)

TUVALU_CLOSED_TONGA_WAITING = _Game(
    ("blue", "purple"),
    (
        "N,Nauru,A,P,Hawaii,Rarotonga,L,Hiva Oa,Tuamotu,G,I,H,O,C,K,J,Samoa,Tuvalu,"
        "Mangareva,Rapa Nui,E,F,Muroroa,D,M,Tubuai,Oahu,Fidschi,Tokelau,Tahiti,B"
    ),
    (
        "place Tonga e",
        "place Tonga c",
        "place Tonga b",
        "place Tonga d",
        "expand Tonga c,d",
        "expand Tonga a,d",
        "land Nauru a:P b:B c:P",
        "expand Tonga c,e,f",
        "expand Tonga a",
        "expand Tonga a,b,d,e",
        "emigrate Tonga e NE",
        "emigrate Nauru a NE",
        "land Hawaii a:B c:P",
        "emigrate Nauru c S",
        "land Rarotonga a:B b:P",
        "land Hiva Oa a:P b:P c:B",
        "expand Hawaii a",
        "expand Nauru a,c",
        "expand Rarotonga a",
        "expand Tonga b,d,e,f",
        "emigrate Hiva Oa b NW",
        "land Tuamotu a:P b:B",
        "emigrate Hiva Oa a SW",
        "expand Tuamotu a",
        "expand Tonga c",
        "expand Hawaii b,c",
        "emigrate Hawaii c NW",
        "land Nauru a:P c:P",
        "emigrate Nauru a NE",
        "land Hawaii b:B c:P",
        "emigrate Nauru c SW",
        "land Tonga b:P c:B",
        "expand Tonga e from Tuamotu b",
        "expand Tonga c",
        "expand Tonga b,f",
        "emigrate Rarotonga a SE",
        "royal Tuamotu",
        "expand Hawaii a,b",
        "emigrate Hawaii a SE",
        "expand Tonga c",
        "expand Tonga d,e",
        "emigrate Tonga e NE",
        "emigrate Tonga d N",
        "emigrate Nauru a N",
        "emigrate Nauru c SW",
        "land Tonga d:B f:B",
        "emigrate Hawaii c SW",
        "land Rarotonga a:P b:B",
        "emigrate Rarotonga b NW",
        "land Tonga a:B b:B d:B e:P",
        "land Hiva Oa a:P b:B c:B",
        "expand Tonga a,f",
        "expand Tonga a,c,e",
        "land Hiva Oa a:B b:B c:P",
        "emigrate Hiva Oa a S",
        "land Hiva Oa a:B c:P",
        "emigrate Hiva Oa c N",
        "colonise",
        "put G S red N",
        "place Samoa c",
        "expand Tonga a,b,c,d,e",
        "royal Samoa",
        "expand Tonga a",
        "place Tonga a,b",
        "land Tuvalu a:B b:B c:P",
        "expand Hawaii b from Nauru a",
        "expand Tonga c",
        "colonise",
        "put Rarotonga S red SE",
        "place Mangareva a",
        "expand Tuvalu c",
        "colonise",
        "put O NE red NE",
        "place Rapa Nui b",
        "expand Tuvalu b,c",
        "emigrate Tuvalu c N",
        "expand Rapa Nui a",
        "expand Tuvalu a",
        "royal Rapa Nui",
        "expand Tuvalu a,b",
        "emigrate Tuvalu a S",
        "place Hawaii b",
        "expand Tonga d",
        "expand Hawaii b",
        "expand Tonga a,f",
        "royal Hawaii",
        "expand Tonga a,c,d,e",
        "place Rarotonga a",
        "expand Tuvalu a,c",
        "expand Rarotonga b",
        "expand Tonga d",
        "expand Rarotonga a,b",
        "expand Tuvalu b from Tonga c",
        "expand Rarotonga a,b",
        "expand Tonga d from Tuvalu a",
        "colonise",
        "put N NW red N",
        "put G SW red S",
        "put P N red N",
        "place Muroroa a",
        "expand Tonga d from Nauru a",
        "expand Muroroa a",
        "expand Tuvalu a from Nauru c",
        "place Tonga b,c",
        "expand Tonga e from Tuvalu a",
        "expand Tonga a,b",
        "emigrate Tonga a S",
        "land Tuvalu a:B b:P c:P",
    ),
)


def test_s8_1_when_a_closed_island_is_an_option_while_other_full_beaches_wait() -> None:
    state = TONGA_CLOSED_HAWAII_WAITING.state()
    assert legal(state) == {"emigrate Hawaii c N", "emigrate Hawaii c NE", "emigrate Tonga"}
    assert play(state, "emigrate Tonga") == [
        chose("blue", "emigrate Tonga"),
        IslandRemoved("Tonga", group("BBBYY")),
    ]
    assert state.set_aside == ("Tonga",) and "Tonga" not in placed_tiles(state)
    assert legal(state) == {"emigrate Hawaii c N", "emigrate Hawaii c NE"}
    illegal(state, "emigrate Tonga")


def test_s8_1_when_a_closed_island_left_alone_is_removed_by_itself() -> None:
    state = TONGA_CLOSED_HAWAII_WAITING.state()
    play(state, "emigrate Hawaii c N")  # Hawaii first: its group reaches Tuvalu
    assert play(state, "land Tuvalu a:B b:Y") == [
        chose("blue", "land Tuvalu a:B b:Y"),
        GroupLanded("Tuvalu", ((0, ("blue",)), (1, ("yellow",))), ()),
        IslandRemoved("Tonga", group("BBBYY")),  # judged again, still closed, and alone
        TurnStarted("yellow", 6),
    ]


def test_s8_1_when_an_earlier_emigration_that_changes_the_island_makes_it_judged_again() -> None:
    state = TUVALU_CLOSED_TONGA_WAITING.state()
    assert legal(state) == {"emigrate Tonga b SW", "emigrate Tuvalu"}
    play(state, "emigrate Tonga b SW")  # the group from Tonga arrives at Tuvalu
    play(state, "land Tuvalu a:B c:B out:P")
    assert state.position_of("Tuvalu") is not None and "Tuvalu" not in state.set_aside
    assert legal(state) == {
        "emigrate Tuvalu a S",
        "emigrate Tuvalu a SW",
        "emigrate Tuvalu c N",
        "emigrate Tuvalu c NE",
    }


def test_s8_1_when_a_closed_island_with_open_routes_is_not_an_option() -> None:
    state = TUVALU_CLOSED_TONGA_WAITING.state()
    illegal(state, "emigrate Tonga")
    with pytest.raises(IllegalChoiceError, match="has a route that does not lead back"):
        state.apply(parse_choice("emigrate Tonga"))


def test_s8_1_route_to_a_royal_island_is_closed() -> None:
    # Tonga d (north) faces red's royal island Samoa: turned back home, so closed
    state = arrange(
        BR,
        tiles=[("Samoa", (0, -1), 0)],
        royal={"Samoa": "red"},
        boats={"Tonga c": "BR", "Tonga d": "BR"},
        top=["Nauru"],
    )
    assert play(state, "expand Tonga c,d") == [
        chose("blue", "expand Tonga c,d"),
        BoatsPlaced("blue", "Tonga", (2, 3)),
        chose("blue", "emigrate Tonga c NW", forced=True),
        GroupSailed("Tonga", 2, 2, group("BBR")),
        TileDrawn("Nauru", 13, 16),
        TilePlaced("Nauru", (-1, 0), 5),
        GroupArrived("Nauru", group("BBR")),
    ]
    assert play(state, "land Nauru a:B b:B c:R") == [
        chose("blue", "land Nauru a:B b:B c:R"),
        GroupLanded("Nauru", ((0, ("blue",)), (1, ("blue",)), (2, ("red",))), ()),
        IslandRemoved("Tonga", group("BBR")),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {"Samoa": ("", "", ""), "Nauru": ("B", "B", "R")}
    assert royal(state) == {"Samoa": "red"}
    assert state.set_aside == ("Tonga",)
    assert state.reserve == (13, 13)


def test_s8_1_route_that_would_fail_is_not_closed() -> None:
    # J at (0,1): edge 3 to 4 has danger 2, then O leads back to Tonga
    loop_with_danger = [("J", (0, 1), 0), ("O", (1, 0), 1)]
    state = arrange(BR, tiles=loop_with_danger, boats={"Tonga a": "BB", "Tonga d": "R"})
    assert play(state, "expand Tonga a,b") == [
        chose("blue", "expand Tonga a,b"),
        BoatsPlaced("blue", "Tonga", (0, 1)),
        chose("blue", "emigrate Tonga a S", forced=True),
        GroupSailed("Tonga", 0, 0, group("BBB")),
        VoyageFailed("J", 2, group("BBB")),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {"Tonga": tonga("", "B", "", "R")}
    assert state.set_aside == ()
    assert state.reserve == (14, 14)

    # the same route with two colours would pass and come back: closed, Tonga removed
    state = arrange(
        BR,
        tiles=[*loop_with_danger, ("Samoa", (0, -1), 0)],
        boats={"Tonga a": "BR", "Samoa a": "B"},
    )
    assert play(state, "expand Tonga a") == [
        chose("blue", "expand Tonga a"),
        BoatsPlaced("blue", "Tonga", (0,)),
        IslandRemoved("Tonga", group("BBR")),
        TurnStarted("red", 2),
    ]
    assert state.set_aside == ("Tonga",)
    assert layout(state) == {"Samoa": ("B", "", "")}


def test_s8_1_redraw_when_no_island_left() -> None:
    state = arrange(BR, tiles=LOOP, boats={"Tonga a": "BR", "Tonga d": "R"}, top=["A", "Samoa"])
    assert play(state, "expand Tonga a") == [
        chose("blue", "expand Tonga a"),
        BoatsPlaced("blue", "Tonga", (0,)),
        IslandRemoved("Tonga", group("BBRR")),
        TileDrawn("A", 15, 13),
    ]
    assert state.decision is not None
    assert (state.decision.kind, state.decision.tile, state.decision.colour) == (
        Phase.PUT_TILE,
        "A",
        "blue",
    )
    around_loop = {(0, 2), (-1, 2), (-1, 1), (0, 0), (1, 1), (1, -1), (2, -1), (2, 0)}
    assert put_places(state) == around_loop
    assert play(state, "put P S red N") == [
        chose("blue", "put sea P S red N"),
        TilePlaced("A", (0, 2), 3),
        TileDrawn("Samoa", 14, 13),
    ]
    assert put_places(state) == around_loop - {(0, 2)} | {(0, 3), (-1, 3), (1, 2)}
    assert play(state, "put O N red S") == [
        chose("blue", "put sea O N red S"),
        TilePlaced("Samoa", (1, -1), 0),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {"Samoa": ("", "", "")}
    assert placed_tiles(state) == {
        "P": ((0, 1), 0),
        "O": ((1, 0), 1),
        "A": ((0, 2), 3),
        "Samoa": ((1, -1), 0),
    }
    assert state.reserve == (15, 15)
    assert state.set_aside == ("Tonga",)


def test_s8_1_redraw_when_active_player_has_no_boats() -> None:
    state = arrange(
        BR,
        tiles=[*LOOP, ("Samoa", (0, -1), 0)],
        boats={"Tonga a": "BR", "Samoa a": "R"},
        top=["Nauru"],
    )
    assert play(state, "expand Tonga a") == [
        chose("blue", "expand Tonga a"),
        BoatsPlaced("blue", "Tonga", (0,)),
        IslandRemoved("Tonga", group("BBR")),
        TileDrawn("Nauru", 13, 14),
    ]
    assert state.decision is not None and state.decision.kind is Phase.PUT_TILE
    assert put_places(state) == {
        (0, 2),
        (-1, 2),
        (-1, 1),
        (0, 0),
        (1, 1),
        (1, -1),
        (2, -1),
        (2, 0),
        (-1, 0),
        (-1, -1),
        (0, -2),
        (1, -2),
    }
    assert play(state, "put Samoa N red S") == [
        chose("blue", "put Samoa N red S"),
        TilePlaced("Nauru", (0, -2), 0),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {"Samoa": ("R", "", ""), "Nauru": ("", "", "")}
    assert state.reserve == (15, 14)


def test_s8_1_several_closed_islands_are_each_removed() -> None:
    # Hiva Oa at (-1,0), rotation 0: beach b's only jetty faces N, blue's royal Samoa (closed);
    # beach c's jetties face NE (empty) and SE (Tonga). Tonga a and f lead round the loop.
    state = arrange(
        BR,
        tiles=[*LOOP, ("Hiva Oa", (-1, 0), 0), ("Samoa", (-1, -1), 0), ("Nauru", (1, -1), 0)],
        royal={"Samoa": "blue"},
        boats={
            "Hiva Oa a": "B",
            "Hiva Oa b": "R",
            "Hiva Oa c": "BRRR",
            "Tonga a": "RR",
            "Tonga b": "R",
            "Tonga f": "RR",
            "Nauru a": "R",
        },
    )
    assert play(state, "expand Hiva Oa b,c") == [
        chose("blue", "expand Hiva Oa b,c"),
        BoatsPlaced("blue", "Hiva Oa", (1, 2)),
    ]
    # Hiva Oa c has open routes, so b's closed one may not be chosen
    assert legal(state) == {"emigrate Hiva Oa c NE", "emigrate Hiva Oa c SE"}
    assert play(state, "emigrate Hiva Oa c SE") == [
        chose("blue", "emigrate Hiva Oa c SE"),
        GroupSailed("Hiva Oa", 2, 5, group("BBRRR")),
        GroupArrived("Tonga", group("BBRRR")),
    ]
    # Tonga a and f fill (closed), Hiva Oa b waits (closed): both islands go, by themselves
    assert play(state, "land Tonga a:R b:B c:B d:R f:R") == [
        chose("blue", "land Tonga a:R b:B c:B d:R f:R"),
        GroupLanded(
            "Tonga",
            ((0, ("red",)), (1, ("blue",)), (2, ("blue",)), (3, ("red",)), (5, ("red",))),
            (),
        ),
        IslandRemoved("Tonga", group("BBRRRRRRRR")),
        IslandRemoved("Hiva Oa", group("BBR")),
        TurnStarted("red", 2),
    ]
    assert state.set_aside == ("Tonga", "Hiva Oa")
    assert layout(state) == {"Samoa": ("", "", ""), "Nauru": ("R", "", "")}
    assert state.reserve == (14, 14)


def test_s8_1_whose_boats_a_royal_boat_left_on_the_board_means_no_draw() -> None:
    # Ruling (whose boats), §9: blue's last boats go with Tonga, but blue's royal boat on
    # Samoa is still on the board: no tile is drawn (unlike
    # test_s8_1_redraw_when_active_player_has_no_boats)
    state = arrange(
        BR,
        tiles=[*LOOP, ("Samoa", (0, -1), 0), ("Nauru", (-1, 0), 0)],
        royal={"Samoa": "blue"},
        boats={"Tonga a": "BR", "Nauru a": "R"},
        top=["Hawaii"],
    )
    stack_before = state.stack_left
    assert play(state, "expand Tonga a") == [
        chose("blue", "expand Tonga a"),
        BoatsPlaced("blue", "Tonga", (0,)),
        IslandRemoved("Tonga", group("BBR")),
        TurnStarted("red", 2),
    ]
    assert state.stack_left == stack_before
    assert state.boats_on_board(0) == 1
    assert royal(state) == {"Samoa": "blue"}
    assert layout(state) == {"Samoa": ("", "", ""), "Nauru": ("R", "", "")}
    assert state.reserve == (14, 14)


def _tonga_closed_after_landing_on_tubuai() -> State:
    """Blue expands Tonga a (closed: the loop) and c, whose group lands on Tubuai at (-1,0)
    (rotation 0), where 2 berths are free: one boat of blue's group must stay out."""
    state = arrange(
        BR,
        tiles=[*LOOP, ("Tubuai", (-1, 0), 0)],
        boats={
            "Tonga a": "BR",
            "Tonga c": "RR",
            "Tonga e": "B",
            "Tubuai a": "RR",
            "Tubuai b": "RR",
        },
        top=["A", "B", "Nauru"],
    )
    assert play(state, "expand Tonga a,c") == [
        chose("blue", "expand Tonga a,c"),
        BoatsPlaced("blue", "Tonga", (0, 2)),
        chose("blue", "emigrate Tonga c NW", forced=True),
        GroupSailed("Tonga", 2, 2, group("BRR")),
        GroupArrived("Tubuai", group("BRR")),
    ]
    assert legal(state) == {
        "land Tubuai a:R b:R out:B",
        "land Tubuai a:B b:R out:R",
        "land Tubuai a:R b:B out:R",
    }
    return state


# The group that waits on Tubuai a fails on A drawn at (-2,0) (rotation 5, edge 0 to 3,
# danger 4); the one on Tubuai b fails on B drawn at (0,-1) (rotation 1, edge 0 to 4, danger 4).
TUBUAI_A_DRAWS_A = [
    TileDrawn("A", 14, 13),
    TilePlaced("A", (-2, 0), 5),
]
TUBUAI_B_FAILS = [
    chose("blue", "emigrate Tubuai b NE"),
    GroupSailed("Tubuai", 1, 4, group("RRR")),
    TileDrawn("B", 14, 12),
    TilePlaced("B", (0, -1), 1),
    VoyageFailed("B", 4, group("RRR")),
]


def test_s8_1_whose_boats_draw_comes_after_the_emigrations_still_waiting() -> None:
    state = _tonga_closed_after_landing_on_tubuai()
    play(state, "land Tubuai a:R b:R out:B")
    assert legal(state) == {
        "emigrate Tubuai a NW",
        "emigrate Tubuai a SW",
        "emigrate Tubuai b NE",
        "emigrate Tubuai b SE",
        "emigrate Tonga",
    }
    # by this removal blue has no boats left: the draw is due, but Tubuai's beaches go first
    assert play(state, "emigrate Tonga") == [
        chose("blue", "emigrate Tonga"),
        IslandRemoved("Tonga", group("BBBR")),
    ]
    assert state.boats_on_board(0) == 0
    assert legal(state) == {
        "emigrate Tubuai a NW",
        "emigrate Tubuai a SW",
        "emigrate Tubuai b NE",
        "emigrate Tubuai b SE",
    }
    assert play(state, "emigrate Tubuai a NW") == [
        chose("blue", "emigrate Tubuai a NW"),
        GroupSailed("Tubuai", 0, 2, group("RRR")),
        *TUBUAI_A_DRAWS_A,
        VoyageFailed("A", 4, group("RRR")),
    ]
    assert play(state, "emigrate Tubuai b NE") == [
        *TUBUAI_B_FAILS,
        TileDrawn("Nauru", 13, 12),
    ]
    assert state.decision is not None
    assert (state.decision.kind, state.decision.tile, state.decision.colour) == (
        Phase.PUT_TILE,
        "Nauru",
        "blue",
    )
    assert state.full_beaches() == ()
    assert play(state, "put Tubuai N red S") == [
        chose("blue", "put Tubuai N red S"),
        TilePlaced("Nauru", (-1, -1), 0),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {"Tubuai": ("", ""), "Nauru": ("", "", "")}
    assert state.reserve == (15, 15)


def test_s8_1_whose_boats_judged_right_after_the_removal() -> None:
    # blue's boat landed on Tubuai a: after the removal blue still has a boat, so no draw is
    # due, even though that boat is lost on the way later in the turn
    state = _tonga_closed_after_landing_on_tubuai()
    play(state, "land Tubuai a:B b:R out:R")
    assert play(state, "emigrate Tonga") == [
        chose("blue", "emigrate Tonga"),
        IslandRemoved("Tonga", group("BBBR")),
    ]
    assert state.boats_on_board(0) == 1
    assert play(state, "emigrate Tubuai a NW") == [
        chose("blue", "emigrate Tubuai a NW"),
        GroupSailed("Tubuai", 0, 2, group("BRR")),
        *TUBUAI_A_DRAWS_A,
        VoyageFailed("A", 4, group("BRR")),
    ]
    assert play(state, "emigrate Tubuai b NE") == [*TUBUAI_B_FAILS, TurnStarted("red", 2)]
    assert state.boats_on_board(0) == 0
    assert state.stack_left[0] == "Nauru"
    assert layout(state) == {"Tubuai": ("", "")}
    assert state.reserve == (15, 15)


# -- §9 Royal islands ------------------------------------------------------------------


def test_s9_found_royal_island_only_own_boats_not_tonga_at_most_two() -> None:
    state = arrange(
        BRG,
        tiles=[("Samoa", (0, -1), 0), ("Hawaii", (0, 1), 0)],
        boats={
            "Samoa a": "B",
            "Samoa b": "B",
            "Samoa c": "B",
            "Hawaii a": "B",
            "Hawaii b": "R",
            "Tonga a": "B",
        },
    )
    assert {c for c in legal(state) if c.startswith("royal")} == {"royal Samoa"}
    assert play(state, "royal Samoa") == [
        chose("blue", "royal Samoa"),
        RoyalIslandFounded("blue", "Samoa", 2),
        TurnStarted("red", 2),
    ]
    assert royal(state) == {"Samoa": "blue"}
    assert layout(state) == {
        "Tonga": tonga("B"),
        "Samoa": ("", "", ""),
        "Hawaii": ("B", "R", ""),
    }
    assert state.reserve == (12, 14, 15)
    assert state.boats_on_board(0) == 3

    two_already = arrange(
        BR,
        tiles=[("Samoa", (0, -1), 0), ("Hawaii", (0, 1), 0), ("Nauru", (1, 0), 0)],
        royal={"Samoa": "blue", "Hawaii": "blue"},
        boats={"Nauru a": "B"},
    )
    assert legal(two_already) == {
        "expand Nauru a",
        "expand Nauru b",
        "expand Nauru c",
        "colonise",
    }


def test_s9_royal_bounce_back() -> None:
    # O drawn at (0,1) with rotation 3: edge 0 to 1 (no danger), edge 1 faces NE, where
    # red's royal island Samoa lies; the group turns back and lands on Tonga
    state = arrange(
        BR,
        tiles=[("Samoa", (1, 0), 0)],
        royal={"Samoa": "red"},
        boats={"Tonga a": "BB"},
        top=["O"],
    )
    assert play(state, "expand Tonga a,b") == [
        chose("blue", "expand Tonga a,b"),
        BoatsPlaced("blue", "Tonga", (0, 1)),
        chose("blue", "emigrate Tonga a S", forced=True),
        GroupSailed("Tonga", 0, 0, group("BBB")),
        TileDrawn("O", 14, 15),
        TilePlaced("O", (0, 1), 3),
        VoyagePassed("O", 0, 1),
        TurnedBack("Samoa", "Tonga"),
        GroupArrived("Tonga", group("BBB")),
    ]
    assert state.decision is not None
    assert (state.decision.kind, state.decision.island) == (Phase.LAND, "Tonga")
    assert legal(state) == {
        "land Tonga " + " ".join(f"{b}:B" for b in beaches) for beaches in combinations("abcdef", 3)
    }
    assert play(state, "land Tonga a:B c:B e:B") == [
        chose("blue", "land Tonga a:B c:B e:B"),
        GroupLanded("Tonga", ((0, ("blue",)), (2, ("blue",)), (4, ("blue",))), ()),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {"Tonga": tonga("B", "B", "B", "", "B"), "Samoa": ("", "", "")}
    assert royal(state) == {"Samoa": "red"}
    assert state.reserve == (11, 14)


def test_s9_royal_boat_scores_and_stays_through_new_colonisation() -> None:
    state = arrange(
        BR,
        tiles=[("Hawaii", (0, 1), 0)],
        royal={"Hawaii": "red"},
        boats={"Tonga a": "R", "Tonga b": "R", "Tonga c": "B"},
        top=["Samoa"],
        active=1,
    )
    assert play(state, "colonise") == [
        chose("red", "colonise"),
        BoatsRecalled("red", 2),
        TileDrawn("Samoa", 13, 16),
    ]
    assert royal(state) == {"Hawaii": "red"}
    assert play(state, "put Tonga N red S") == [
        chose("red", "put Tonga N red S"),
        TilePlaced("Samoa", (0, -1), 0),
    ]
    assert legal(state) == {"place Samoa a", "place Samoa b", "place Samoa c"}
    assert play(state, "place Samoa c") == [
        chose("red", "place Samoa c"),
        BoatsPlaced("red", "Samoa", (2,)),
        TurnStarted("blue", 2),
    ]
    assert royal(state) == {"Hawaii": "red"}
    assert layout(state) == {
        "Tonga": tonga("", "", "B"),
        "Hawaii": ("", "", ""),
        "Samoa": ("", "", "R"),
    }
    assert state.reserve == (14, 13)
    assert state.boats_on_board(1) == 2
    red, blue = state.standings().standings
    assert (red.colour, red.points, set(red.islands), red.boats, red.rank) == (
        "red",
        10,
        {"Hawaii", "Samoa"},
        2,
        1,
    )
    assert (blue.colour, blue.points, set(blue.islands), blue.boats, blue.rank) == (
        "blue",
        0,
        {"Tonga"},
        1,
        2,
    )


# -- §10 New colonisation --------------------------------------------------------------


def test_s10_new_colonisation() -> None:
    state = arrange(BR, boats={"Tonga a": "BR", "Tonga b": "B"}, top=["A", "Samoa"])
    assert play(state, "colonise") == [
        chose("blue", "colonise"),
        BoatsRecalled("blue", 2),
        TileDrawn("A", 15, 15),
    ]
    assert state.decision is not None
    assert (state.decision.kind, state.decision.tile) == (Phase.PUT_TILE, "A")
    assert put_places(state) == {(0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0)}
    assert play(state, "put Tonga N red S") == [
        chose("blue", "put Tonga N red S"),
        TilePlaced("A", (0, -1), 0),
        TileDrawn("Samoa", 14, 15),
    ]
    assert put_places(state) == {
        (0, 1),
        (-1, 1),
        (-1, 0),
        (1, -1),
        (1, 0),
        (-1, -1),
        (0, -2),
        (1, -2),
    }
    assert play(state, "put A N red NE") == [
        chose("blue", "put sea A N red NE"),
        TilePlaced("Samoa", (0, -2), 4),
    ]
    assert state.decision is not None
    assert (state.decision.kind, state.decision.island) == (Phase.COLONY_BOAT, "Samoa")
    assert legal(state) == {"place Samoa a", "place Samoa b", "place Samoa c"}
    assert play(state, "place Samoa b") == [
        chose("blue", "place Samoa b"),
        BoatsPlaced("blue", "Samoa", (1,)),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {"Tonga": tonga("R"), "Samoa": ("", "B", "")}
    assert placed_tiles(state) == {
        "Tonga": ((0, 0), 0),
        "A": ((0, -1), 0),
        "Samoa": ((0, -2), 4),
    }
    assert state.reserve == (14, 14)


# -- §11 Special situations ------------------------------------------------------------


def test_s11_no_boats_two_on_tonga() -> None:
    # blue's only boat on the board is royal: that counts as no boats for §11
    state = arrange(
        BRG,
        tiles=[("Samoa", (0, -1), 0), ("Hawaii", (0, 1), 0)],
        royal={"Hawaii": "blue"},
        boats={"Tonga a": "RR", "Tonga b": "G", "Samoa a": "R"},
        top=["Nauru"],
    )
    assert legal(state) == (
        {f"place Tonga {a},{b}" for a, b in combinations("abcdef", 2)}
        | {f"place Tonga {b},{b}" for b in "bcdef"}
        | {"place Samoa a", "place Samoa b", "place Samoa c", "colonise"}
    )
    one_elsewhere = state.copy()

    assert play(state, "place Tonga b,b") == [
        chose("blue", "place Tonga b,b"),
        BoatsPlaced("blue", "Tonga", (1, 1)),
        chose("blue", "emigrate Tonga b SW", forced=True),
        GroupSailed("Tonga", 1, 1, group("BBG")),
        TileDrawn("Nauru", 12, 16),
        TilePlaced("Nauru", (-1, 1), 4),
        GroupArrived("Nauru", group("BBG")),
    ]
    assert legal(state) == {
        "land Nauru a:B b:B c:G",
        "land Nauru a:B b:G c:B",
        "land Nauru a:G b:B c:B",
    }
    assert play(state, "land Nauru a:G b:B c:B") == [
        chose("blue", "land Nauru a:G b:B c:B"),
        GroupLanded("Nauru", ((0, ("green",)), (1, ("blue",)), (2, ("blue",))), ()),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {
        "Tonga": tonga("RR"),
        "Samoa": ("R", "", ""),
        "Hawaii": ("", "", ""),
        "Nauru": ("G", "B", "B"),
    }
    assert state.reserve == (12, 12, 14)

    assert play(one_elsewhere, "place Samoa a") == [
        chose("blue", "place Samoa a"),
        BoatsPlaced("blue", "Samoa", (0,)),
        TurnStarted("red", 2),
    ]
    assert layout(one_elsewhere)["Samoa"] == ("BR", "", "")
    assert one_elsewhere.reserve == (13, 12, 14)


def test_s11_no_boats_one_free_berth_on_tonga_places_one() -> None:
    # Arranged positions that cannot arise in play (full beaches at the start of a turn),
    # to check the ruling as written: one free berth -> one boat; Tonga full -> no option.
    state = arrange(
        BRG,
        boats={
            "Tonga a": "RRG",
            "Tonga b": "RRG",
            "Tonga c": "RRG",
            "Tonga d": "RRG",
            "Tonga e": "RRG",
            "Tonga f": "GG",
        },
    )
    assert legal(state) == {"place Tonga f", "colonise"}
    illegal(state, "place Tonga f,f")
    assert play(state, "place Tonga f") == [
        chose("blue", "place Tonga f"),
        BoatsPlaced("blue", "Tonga", (5,)),
    ]
    assert state.phase is Phase.EMIGRATE
    assert legal(state) == {
        "emigrate Tonga a S",
        "emigrate Tonga b SW",
        "emigrate Tonga c NW",
        "emigrate Tonga d N",
        "emigrate Tonga e NE",
        "emigrate Tonga f SE",
    }
    assert state.reserve == (14, 5, 8)

    full = arrange(
        BRG,
        tiles=[("Samoa", (0, -1), 0)],
        boats={f"Tonga {b}": "RRG" for b in "abcdef"},
    )
    assert legal(full) == {"place Samoa a", "place Samoa b", "place Samoa c", "colonise"}


def test_s11_no_boats_reserve_of_one_two_on_tonga_places_one() -> None:
    # An arranged position that cannot arise in play: with no boat on the board, a reserve
    # of one needs 14 boats out of play (§12). The ruling as written: one boat, not two.
    arranged = arrange(BR, tiles=[("Samoa", (0, -1), 0)], boats={"Tonga a": "RR", "Samoa a": "R"})
    data = arranged.to_json()
    data["reserve"], data["out_of_play"] = [1, 12], [14, 0]
    state = State.from_json(data)
    assert legal(state) == (
        {f"place Tonga {b}" for b in "abcdef"}
        | {"place Samoa a", "place Samoa b", "place Samoa c", "colonise"}
    )
    illegal(state, "place Tonga b,c")
    illegal(state, "place Tonga b,b")
    assert play(state, "place Tonga b") == [
        chose("blue", "place Tonga b"),
        BoatsPlaced("blue", "Tonga", (1,)),
        TurnStarted("red", 2),
    ]
    assert layout(state)["Tonga"] == tonga("RR", "B")
    assert state.reserve == (0, 12)


def test_s11_no_boats_tonga_gone_no_tonga_option() -> None:
    # Tonga leaves the game in blue's turn (§8.1). Red's only boat is royal, so red has no
    # boats on the board (§11 counts non-royal islands only): one boat on Samoa, or colonise.
    state = arrange(
        BR,
        tiles=[*LOOP, ("Samoa", (0, -1), 0), ("Hawaii", (-1, 0), 0)],
        royal={"Hawaii": "red"},
        boats={"Tonga a": "BR", "Samoa a": "B"},
    )
    assert play(state, "expand Tonga a") == [
        chose("blue", "expand Tonga a"),
        BoatsPlaced("blue", "Tonga", (0,)),
        IslandRemoved("Tonga", group("BBR")),
        TurnStarted("red", 2),
    ]
    assert state.position_of("Tonga") is None
    assert state.boats_on_board(1) == 1
    assert legal(state) == {"place Samoa a", "place Samoa b", "place Samoa c", "colonise"}
    assert play(state, "place Samoa a") == [
        chose("red", "place Samoa a"),
        BoatsPlaced("red", "Samoa", (0,)),
        TurnStarted("blue", 3),
    ]
    assert layout(state) == {"Samoa": ("BR", "", ""), "Hawaii": ("", "", "")}


def test_s11_empty_reserve_borrow() -> None:
    state = arrange(
        BR,
        tiles=[("Samoa", (0, -1), 0), ("Hawaii", (0, 1), 0)],
        boats={
            "Tonga a": "B",
            "Tonga b": "BR",
            "Samoa a": "BB",
            "Samoa b": "BBB",
            "Samoa c": "BBBB",
            "Hawaii a": "BB",
            "Hawaii b": "BB",
            "Hawaii c": "R",
        },
        top=["A"],
    )
    assert state.reserve == (0, 13)
    tonga_sources = ["Samoa a", "Samoa b", "Samoa c", "Hawaii a", "Hawaii b"]
    samoa_sources = ["Tonga a", "Tonga b", "Hawaii a", "Hawaii b"]
    hawaii_sources = ["Tonga a", "Tonga b", "Samoa a", "Samoa b", "Samoa c"]
    assert legal(state) == (
        {f"expand Tonga {b} from {s}" for b in "abcdef" for s in tonga_sources}
        | {f"expand Samoa {b} from {s}" for b in "abc" for s in samoa_sources}
        | {f"expand Hawaii {b} from {s}" for b in "abc" for s in hawaii_sources}
        | {"royal Samoa", "colonise"}
    )
    illegal(state, "expand Tonga b from Tonga a")
    illegal(state, "expand Tonga b,c from Samoa a")
    # sea tile A drawn at (-1,1) with rotation 4: edge 0 to 3 has danger 4
    assert play(state, "expand Tonga b from Samoa c") == [
        chose("blue", "expand Tonga b from Samoa c"),
        BoatMoved("blue", "Samoa", 2, "Tonga", 1),
        chose("blue", "emigrate Tonga b SW", forced=True),
        GroupSailed("Tonga", 1, 1, group("BBR")),
        TileDrawn("A", 13, 15),
        TilePlaced("A", (-1, 1), 4),
        VoyageFailed("A", 4, group("BBR")),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {
        "Tonga": tonga("B"),
        "Samoa": ("BB", "BBB", "BBB"),
        "Hawaii": ("BB", "BB", "R"),
    }
    assert state.reserve == (2, 14)


def test_s11_too_few_boats_expansion_adds_the_reserve() -> None:
    state = arrange(
        BR,
        tiles=[("Samoa", (0, -1), 0), ("Hawaii", (0, 1), 0)],
        boats={
            "Tonga a": "B",
            "Tonga b": "B",
            "Samoa a": "BB",
            "Samoa b": "BBB",
            "Samoa c": "BBBB",
            "Hawaii a": "BB",
            "Hawaii b": "B",
            "Hawaii c": "R",
        },
    )
    assert state.reserve == (1, 14)
    assert legal(state) == (
        {f"expand Tonga {b}" for b in "abcdef"}
        | {f"expand Samoa {b}" for b in "abc"}
        | {f"expand Hawaii {b}" for b in "abc"}
        | {"royal Samoa", "colonise"}
    )
    illegal(state, "expand Tonga c,d")
    assert play(state, "expand Tonga c") == [
        chose("blue", "expand Tonga c"),
        BoatsPlaced("blue", "Tonga", (2,)),
        TurnStarted("red", 2),
    ]
    assert layout(state)["Tonga"] == tonga("B", "B", "B")
    assert state.reserve == (0, 14)


# -- §12 End of the game and scoring ---------------------------------------------------


def test_s12_last_sea_tile_stays_at_sea() -> None:
    state = arrange(
        BR,
        boats={"Tonga a": "BR", "Tonga b": "BR"},
        gone=[s for s in ALL_SEAS if s != "P"],
        top=["P", "Samoa"],
    )
    assert (state.islands_left, state.seas_left) == (15, 1)
    play(state, "expand Tonga a,b")
    assert play(state, "emigrate Tonga a S") == [
        chose("blue", "emigrate Tonga a S"),
        GroupSailed("Tonga", 0, 0, group("BBR")),
        TileDrawn("P", 15, 0),
        TilePlaced("P", (0, 1), 3),
        StayedAtSea(group("BBR")),
        chose("blue", "emigrate Tonga b SW", forced=True),
        GroupSailed("Tonga", 1, 1, group("BBR")),
        TileDrawn("Samoa", 14, 0),
        TilePlaced("Samoa", (-1, 1), 4),
        GroupArrived("Samoa", group("BBR")),
    ]
    assert state.out_of_play == (2, 1)
    assert play(state, "land Samoa a:B b:B c:R") == [
        chose("blue", "land Samoa a:B b:B c:R"),
        GroupLanded("Samoa", ((0, ("blue",)), (1, ("blue",)), (2, ("red",))), ()),
        GameEnded(("red",), "the last sea tile was drawn"),
    ]
    assert state.phase is Phase.OVER and state.decision is None
    assert layout(state) == {"Tonga": EMPTY_TONGA, "Samoa": ("B", "B", "R")}
    assert state.reserve == (11, 13)
    assert state.out_of_play == (2, 1)
    outcome = state.outcome
    assert outcome is not None
    assert [(s.colour, s.points, s.islands, s.boats, s.rank) for s in outcome.standings] == [
        ("red", 5, ("Samoa",), 1, 1),
        ("blue", 5, ("Samoa",), 2, 2),
    ]
    with pytest.raises(GameOverError):
        state.apply(parse_choice("colonise"))


def test_s12_last_island_group_lands() -> None:
    state = arrange(
        BR,
        boats={"Tonga a": "BR", "Tonga c": "R"},
        gone=[i for i in ALL_ISLANDS if i != "Samoa"],
        top=["Samoa"],
    )
    assert (state.islands_left, state.seas_left) == (1, 16)
    assert play(state, "expand Tonga a") == [
        chose("blue", "expand Tonga a"),
        BoatsPlaced("blue", "Tonga", (0,)),
        chose("blue", "emigrate Tonga a S", forced=True),
        GroupSailed("Tonga", 0, 0, group("BBR")),
        TileDrawn("Samoa", 0, 16),
        TilePlaced("Samoa", (0, 1), 3),
        GroupArrived("Samoa", group("BBR")),
    ]
    assert play(state, "land Samoa a:R b:B c:B") == [
        chose("blue", "land Samoa a:R b:B c:B"),
        GroupLanded("Samoa", ((0, ("red",)), (1, ("blue",)), (2, ("blue",))), ()),
        GameEnded(("red",), "the last island was drawn"),
    ]
    assert layout(state) == {"Tonga": tonga("", "", "R"), "Samoa": ("R", "B", "B")}
    assert state.reserve == (13, 13)
    outcome = state.outcome
    assert outcome is not None
    assert outcome.decided_by == "islands"
    assert [(s.colour, s.points, set(s.islands), s.boats) for s in outcome.standings] == [
        ("red", 5, {"Tonga", "Samoa"}, 2),
        ("blue", 5, {"Samoa"}, 2),
    ]


def test_s12_group_needing_a_tile_from_an_empty_stack_goes_out_of_play() -> None:
    state = arrange(
        BR,
        boats={"Tonga a": "BR", "Tonga b": "BR", "Tonga c": "BR"},
        gone=[t for t in [*ALL_ISLANDS, *ALL_SEAS] if t not in ("P", "Samoa")],
        top=["P", "Samoa"],
    )
    assert state.stack_left == ("P", "Samoa")
    play(state, "expand Tonga a,b,c")
    assert play(state, "emigrate Tonga a S") == [
        chose("blue", "emigrate Tonga a S"),
        GroupSailed("Tonga", 0, 0, group("BBR")),
        TileDrawn("P", 1, 0),
        TilePlaced("P", (0, 1), 3),
        StayedAtSea(group("BBR")),
    ]
    assert legal(state) == {"emigrate Tonga b SW", "emigrate Tonga c NW"}
    assert play(state, "emigrate Tonga b SW") == [
        chose("blue", "emigrate Tonga b SW"),
        GroupSailed("Tonga", 1, 1, group("BBR")),
        TileDrawn("Samoa", 0, 0),
        TilePlaced("Samoa", (-1, 1), 4),
        GroupArrived("Samoa", group("BBR")),
    ]
    assert play(state, "land Samoa a:B b:B c:R") == [
        chose("blue", "land Samoa a:B b:B c:R"),
        GroupLanded("Samoa", ((0, ("blue",)), (1, ("blue",)), (2, ("red",))), ()),
        chose("blue", "emigrate Tonga c NW", forced=True),
        GroupSailed("Tonga", 2, 2, group("BBR")),
        StayedAtSea(group("BBR")),
        GameEnded(("red",), "the last sea tile was drawn"),
    ]
    assert layout(state) == {"Tonga": EMPTY_TONGA, "Samoa": ("B", "B", "R")}
    assert state.out_of_play == (4, 2)
    assert state.reserve == (9, 12)


def _end_by_colonising(state: State) -> list[object]:
    """Green (seat 2, no boats) colonises, draws the last island Nauru, puts it at (0,1)."""
    assert play(state, "colonise") == [
        chose("green", "colonise"),
        BoatsRecalled("green", 0),
        TileDrawn("Nauru", 0, 16),
    ]
    assert play(state, "put Tonga S red S") == [
        chose("green", "put Tonga S red S"),
        TilePlaced("Nauru", (0, 1), 0),
    ]
    return play(state, "place Nauru a")


def _tie_break_position(boats: dict[str, str], royal: dict[str, str] | None = None) -> State:
    return arrange(
        BRG,
        tiles=[("Samoa", (0, -1), 0), ("Hawaii", (1, 0), 0)],
        boats=boats,
        royal=royal,
        gone=[i for i in ALL_ISLANDS if i not in ("Samoa", "Hawaii", "Nauru")],
        top=["Nauru"],
        active=2,
    )


def _table(state: State) -> list[tuple[str, int, set[str], int, int]]:
    outcome = state.outcome
    assert outcome is not None
    return [(s.colour, s.points, set(s.islands), s.boats, s.rank) for s in outcome.standings]


def test_s12_tie_break_islands_including_tonga() -> None:
    state = _tie_break_position({"Samoa a": "B", "Tonga a": "B", "Samoa b": "R"})
    assert _end_by_colonising(state) == [
        chose("green", "place Nauru a"),
        BoatsPlaced("green", "Nauru", (0,)),
        GameEnded(("blue",), "the last island was drawn"),
    ]
    assert _table(state) == [
        ("blue", 5, {"Samoa", "Tonga"}, 2, 1),
        ("red", 5, {"Samoa"}, 1, 2),
        ("green", 2, {"Nauru"}, 1, 3),
    ]
    assert state.outcome is not None and state.outcome.decided_by == "islands"


def test_s12_tie_break_fewest_boats_including_royal_boats() -> None:
    state = _tie_break_position(
        {"Tonga a": "BB", "Samoa a": "R", "Tonga b": "R"}, royal={"Hawaii": "blue"}
    )
    assert _end_by_colonising(state) == [
        chose("green", "place Nauru a"),
        BoatsPlaced("green", "Nauru", (0,)),
        GameEnded(("red",), "the last island was drawn"),
    ]
    assert _table(state) == [
        ("red", 5, {"Samoa", "Tonga"}, 2, 1),
        ("blue", 5, {"Hawaii", "Tonga"}, 3, 2),
        ("green", 2, {"Nauru"}, 1, 3),
    ]
    assert state.outcome is not None and state.outcome.decided_by == "boats"


def test_s12_tie_breaks_shared_tie() -> None:
    state = _tie_break_position({"Samoa a": "B", "Tonga a": "B", "Samoa b": "R", "Tonga b": "R"})
    assert _end_by_colonising(state) == [
        chose("green", "place Nauru a"),
        BoatsPlaced("green", "Nauru", (0,)),
        GameEnded(("blue", "red"), "the last island was drawn"),
    ]
    assert _table(state) == [
        ("blue", 5, {"Samoa", "Tonga"}, 2, 1),
        ("red", 5, {"Samoa", "Tonga"}, 2, 1),
        ("green", 2, {"Nauru"}, 1, 3),
    ]
    assert state.outcome is not None and state.outcome.decided_by == "shared"


# -- §13 Decision points ---------------------------------------------------------------


def test_s13_single_legal_choice_is_made_without_asking() -> None:
    # one full beach with one jetty, then 3 blue boats on 3 empty beaches: both forced
    state = arrange(BR, boats={"Tonga a": "BB"}, top=["Nauru"])
    assert play(state, "expand Tonga a,b") == [
        chose("blue", "expand Tonga a,b"),
        BoatsPlaced("blue", "Tonga", (0, 1)),
        chose("blue", "emigrate Tonga a S", forced=True),
        GroupSailed("Tonga", 0, 0, group("BBB")),
        TileDrawn("Nauru", 14, 16),
        TilePlaced("Nauru", (0, 1), 3),
        GroupArrived("Nauru", group("BBB")),
        chose("blue", "land Nauru a:B b:B c:B", forced=True),
        GroupLanded("Nauru", ((0, ("blue",)), (1, ("blue",)), (2, ("blue",))), ()),
        TurnStarted("red", 2),
    ]
    assert layout(state) == {"Tonga": tonga("", "B"), "Nauru": ("B", "B", "B")}
    assert state.reserve == (11, 15)
    assert state.decision is not None
    assert (state.decision.kind, state.decision.colour) == (Phase.TURN, "red")


def test_house_rule_a_passed_turn_changes_nothing_but_whose_turn_it_is() -> None:
    """The PBEM house rule for a missed deadline at the start of a turn (not in §3's list)."""
    state = three_player_setup()
    assert state.phase is Phase.TURN and state.active == 0
    assert all(str(c) != "pass" for c in state.legal_choices())
    board, reserve = state.to_json()["boats"], state.reserve
    assert play(state, "pass") == [chose("blue", "pass"), TurnPassed("blue"), TurnStarted("red", 2)]
    assert state.active == 1 and state.phase is Phase.TURN
    assert state.to_json()["boats"] == board and state.reserve == reserve and state.drawn == 0
    assert State.replay(state.setup, state.log) == state
    assert str(parse_choice(" PASS ")) == "pass"


def test_house_rule_no_pass_inside_a_turn_or_during_set_up() -> None:
    state = new_game(BR)
    illegal(state, "pass")
    state = three_player_setup()
    play(state, "expand Tonga a,c")
    assert state.phase is Phase.EMIGRATE
    illegal(state, "pass")
