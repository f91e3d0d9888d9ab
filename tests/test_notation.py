"""The choice notation: canonical printing, forgiving reading, and the two kinds of error."""

from __future__ import annotations

import random

import pytest

from engine import (
    ISLANDS,
    AmbiguousChoiceError,
    Colonise,
    Emigrate,
    EmigrateClosed,
    Expand,
    FoundRoyal,
    IllegalChoiceError,
    Land,
    NotationError,
    Phase,
    Place,
    PutTile,
    Setup,
    State,
    parse_choice,
    what_is_asked,
)

CANONICAL = [
    ("place Tonga c", Place("Tonga", (2,))),
    ("place Tonga a,a", Place("Tonga", (0, 0))),
    ("expand Samoa a,c", Expand("Samoa", (0, 2))),
    ("expand Rapa Nui b from Tonga f", Expand("Rapa Nui", (1,), ("Tonga", 5))),
    ("royal Hiva Oa", FoundRoyal("Hiva Oa")),
    ("colonise", Colonise()),
    ("emigrate Samoa b NE", Emigrate("Samoa", 1, 4)),
    ("emigrate Hiva Oa", EmigrateClosed("Hiva Oa")),
    (
        "land Samoa a:RR b:B out:Y",
        Land("Samoa", ((0, ("red", "red")), (1, ("blue",))), ("yellow",)),
    ),
    ("land Nauru c:BRG", Land("Nauru", ((2, ("blue", "red", "green")),), ())),
    ("put Samoa NE red S", PutTile("Samoa", 4, 0)),
    ("put sea C SW red NW", PutTile("C", 1, 2)),
    ("put centre red SE", PutTile(None, 0, 5)),
]


@pytest.mark.parametrize(("text", "choice"), CANONICAL)
def test_canonical_text_round_trips(text: str, choice: object) -> None:
    assert parse_choice(text) == choice
    assert str(choice) == text


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("  PLACE   tonga   C ", "place Tonga c"),
        ("place c", "place None c"),
        ("Expand samoa A, C", "expand Samoa a,c"),
        ("expand samoa ac", "expand Samoa a,c"),
        ("expand rapanui b from TONGA f", "expand Rapa Nui b from Tonga f"),
        ("expand Rápa Nuí b", "expand Rapa Nui b"),
        ("expand hiva a", "expand Hiva Oa a"),
        ("found royal island on samoa", "royal Samoa"),
        ("Colonize", "colonise"),
        ("new colonisation", "colonise"),
        ("emigrate samoa b north-east", "emigrate Samoa b NE"),
        ("emigrate hiva oa c  south east", "emigrate Hiva Oa c SE"),
        ("sail samoa b ne", "emigrate Samoa b NE"),
        ("land samoa a : rr ,  b=b  out: y", "land Samoa a:RR b:B out:Y"),
        ("land b:b a:rr", "land None a:RR b:B"),
        ("land samoa a:BRB", "land Samoa a:BBR"),
        ("put ne of samoa, red s", "put Samoa NE red S"),
        ("put rapa nui north east red south", "put Rapa Nui NE red S"),
        ("put c sw red nw", "put sea C SW red NW"),
        ("put sea c sw red nw", "put sea C SW red NW"),
        ("put center red se", "put centre red SE"),
        # accents do not matter on any word (README "Commands for players")
        ("plâce Tönga B", "place Tonga b"),
        ("ÉXPAND sámoa á,ç", "expand Samoa a,c"),
        ("émigrate samoa b nörth-éast", "emigrate Samoa b NE"),
        ("lànd samoa à:RR", "land Samoa a:RR"),
    ],
)
def test_reading_is_forgiving(text: str, canonical: str) -> None:
    assert str(parse_choice(text)) == canonical


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("fly to samoa", "'fly' is not a command"),
        ("expand samoa", "beaches are missing"),
        ("expand samoa g", "'g' is not a beach"),
        ("expand atlantis a", "No island is called 'atlantis'"),
        ("emigrate samoa b up", "'up' is not a direction"),
        ("emigrate samoa bb ne", "beach letter is missing"),
        ("land samoa a:XX", "'X' is not a colour letter"),
        ("land samoa a:red b:B", "Write colours as letters: R for red, as in a:RR b:B."),
        ("place tonga a please", "'please' is not a beach"),  # the word as written
        ("land samoa a:R a:B", "named twice"),
        ("land samoa rr", "should be BEACH:COLOURS"),
        ("put samoa ne", "red emblem"),
        ("put nowhere red s", "where the tile goes"),
        ("royal samoa now", "Unexpected 'now'"),
        ("expand samoa a from tonga a,b", "one beach"),
    ],
)
def test_bad_syntax_is_a_notation_error_with_a_hint(text: str, says: str) -> None:
    with pytest.raises(NotationError) as caught:
        parse_choice(text)
    assert says in str(caught.value)
    assert caught.value.code == "syntax"
    if text:
        assert "Write it as:" in str(caught.value) or "Commands:" in str(caught.value)


@pytest.mark.parametrize("text", ["expand ra a", "royal t", "emigrate m a n"])
def test_an_ambiguous_island_prefix_is_its_own_error(text: str) -> None:
    with pytest.raises(AmbiguousChoiceError) as caught:
        parse_choice(text)
    assert caught.value.code == "ambiguous"
    assert " or " in str(caught.value)


@pytest.mark.parametrize("text", ["place tonga b.", "expand samoa a,c!", "colonise."])
def test_a_full_stop_after_a_choice_is_no_part_of_it(text: str) -> None:
    assert str(parse_choice(text)) == str(parse_choice(text.rstrip(".!")))


def _three_player_game() -> State:
    return State(Setup.from_seed(["blue", "red", "green"], seed=1))


def test_a_legal_looking_choice_that_is_not_allowed_is_an_illegal_choice_error() -> None:
    state = _three_player_game()
    before = state.to_json()
    with pytest.raises(IllegalChoiceError) as caught:
        state.apply(parse_choice("expand Samoa a"))
    assert caught.value.code == "illegal"
    assert "does not fit now" in str(caught.value)
    assert "Blue must put a set-up boat on a beach of Tonga" in str(caught.value)
    assert state.to_json() == before


def test_illegal_messages_name_the_reason() -> None:
    state = _three_player_game()
    for beach in "abcabc":
        state.apply(parse_choice(f"place {beach}"))
    assert state.decision is not None and state.decision.kind.value == "turn"
    cases = {
        "expand Samoa a": "Samoa is not on the board",
        "expand Tonga a,b,c": "adds 2 boats: name 2 different beaches",
        "expand Tonga h": "'h' is not a beach",
        "royal Tonga": "Tonga can never become a royal island",
        "place Tonga d": "you still have boats on the board",
    }
    for text, reason in cases.items():
        try:
            state.apply(parse_choice(text))
        except (IllegalChoiceError, NotationError) as error:
            assert reason in str(error), (text, str(error))
        else:
            raise AssertionError(f"{text} was accepted")
    assert len(state.log) == 6


def test_forgiving_choices_resolve_to_the_listed_one() -> None:
    state = _three_player_game()
    state.apply(parse_choice("place c"))
    assert state.log[-1] == Place("Tonga", (2,))
    assert state.boats_on("Tonga", 2) == (1, 0, 0)


def _landing_of_two_colours() -> State:
    """A random game's first landing of a group of two colours or more with berths to spare."""
    for seed in range(200):
        rng = random.Random(seed)
        state = State(Setup.from_seed(["blue", "red", "green"], seed))
        while state.decision is not None:
            decision = state.decision
            if decision.kind is Phase.LAND and len(set(decision.boats)) >= 2:
                island = decision.island
                assert island is not None
                free = sum(
                    state.free_berths(island, b) for b in range(len(ISLANDS[island].beaches))
                )
                if free >= len(decision.boats):
                    return state
            state.apply(rng.choice(state.legal_choices()))
    raise AssertionError("no such landing in 200 games")


def test_a_landing_that_leaves_a_boat_out_says_which_and_why() -> None:
    state = _landing_of_two_colours()
    decision = state.decision
    assert decision is not None and decision.island is not None
    letters = "".join(c[0].upper() for c in decision.boats)
    kept = letters[:-1]  # every boat but the last, all on the first beach with room
    beach = next(
        b
        for b in range(len(ISLANDS[decision.island].beaches))
        if state.free_berths(decision.island, b)
    )
    line = f"land {decision.island} {'abcdef'[beach]}:{kept}"
    before = state.to_json()
    with pytest.raises(IllegalChoiceError) as caught:
        state.apply(parse_choice(line))
    said = str(caught.value)
    assert f"{letters[-1]} not placed: every boat of the group ({letters}) lands" in said, said
    assert state.to_json() == before


def test_a_put_that_names_the_drawn_tile_is_told_to_name_a_tile_on_the_board() -> None:
    for seed in range(100):
        rng = random.Random(seed)
        state = State(Setup.from_seed(["blue", "red"], seed))
        while state.decision is not None and state.decision.kind is not Phase.PUT_TILE:
            state.apply(rng.choice(state.legal_choices()))
        if state.decision is not None and state.position_of(state.decision.tile or "") is None:
            break
    decision = state.decision
    assert decision is not None and decision.tile is not None
    name = decision.tile if len(decision.tile) > 1 else f"sea {decision.tile}"
    with pytest.raises(IllegalChoiceError) as caught:
        state.apply(parse_choice(f"put {name} N red S"))
    assert f"{name} is the tile being placed: name a tile on the board next to" in str(caught.value)


def test_an_island_whose_other_full_beaches_sail_is_told_to_leave_once_they_have() -> None:
    """RULES §8.1: the emigration prompt names each full beach whose routes all lead back on
    an island that still has a beach that sails; that island is removed once they have."""
    seen = 0
    for seed in range(25):
        rng = random.Random(seed)
        state = State(Setup.from_seed(["blue", "red", "green"], seed))
        while state.decision is not None:
            if state.decision.kind is Phase.EMIGRATE:
                legal = state.legal_choices()
                sailing = {(c.island, c.beach) for c in legal if isinstance(c, Emigrate)}
                asked = str(what_is_asked(state))
                for island, beach in state.full_beaches():
                    if (island, beach) in sailing or EmigrateClosed(island) in legal:
                        continue
                    letter = "abcdef"[beach]
                    assert f"Every route from {island} " in asked and letter in asked, asked
                    assert f"once its other full beaches have emigrated, {island} leaves" in asked
                    assert any(i == island for i, _ in sailing)
                    seen += 1
            state.apply(rng.choice(state.legal_choices()))
    assert seen > 0
