"""What players see: options that parse back, tie-breaks explained, deadlines, widths, the
picture inline."""

from __future__ import annotations

import html
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine import (
    BEACH_LETTERS,
    COLOURS,
    DIRECTIONS,
    SEAS,
    ChoiceError,
    ChoiceMade,
    Colonise,
    Event,
    Expand,
    GroupArrived,
    GroupLanded,
    IslandRemoved,
    Outcome,
    Phase,
    RoyalIslandFounded,
    Setup,
    Standing,
    State,
    TileDrawn,
    TilePlaced,
    VoyageFailed,
    VoyagePassed,
    empty_places,
    make_bot,
    parse_choice,
    what_is_asked,
)
from pbem.commands.manual import COMMAND_HELP
from pbem.commands.player import read_choice
from pbem.core.config import Settings
from pbem.mail_out.compose import Picture, compose
from pbem.views import final as final_module
from pbem.views import happened, letters, news, view
from pbem.views.i18n import Words
from pbem.views.render import render, render_html, render_text
from tests.samples import KINDS, parts, sample_mails
from tests.support.localmail import parse
from tests.support.scenario import arrange

FIXTURES = Path(__file__).parent / "fixtures"
NAMES = ("Ana", "Ben", "Cy", "Dai", "Eve", "Flo")
TEXT_OPTION = re.compile(r"^\s*(\d+)\) (.+)$")
HTML_OPTION = re.compile(r">(\d+)\)</td><td[^>]*><div[^>]*>([^<]+)</div>")


def _states(players: int, seed: int) -> list[State]:
    """Every state in which a decision is open, through one greedy bot game."""
    colours = ("blue", "red", "green", "yellow", "orange", "purple")[:players]
    state = State(Setup.from_seed(colours, seed))
    seen = []
    bot = make_bot("greedy", seed)
    while state.decision is not None:
        seen.append(state.copy())
        state.apply(bot.choose(state))
    return seen


def _prompt(state: State) -> view.Mail:
    names, bots = NAMES[: len(state.colours)], [False] * len(state.colours)
    at = letters.moment(7, state, names, bots)
    assert state.decision is not None
    return letters.letter(at, state.decision.seat)


@pytest.mark.parametrize(
    ("players", "seed"),
    [
        (2, 1),
        pytest.param(3, 2, marks=pytest.mark.slow),
        pytest.param(4, 3, marks=pytest.mark.slow),
        (6, 4),
    ],
)
def test_every_printed_option_parses_back_to_that_option(players: int, seed: int) -> None:
    for state in _states(players, seed)[::3]:
        legal = view.numbered(state.legal_choices())
        mail = _prompt(state)
        text, page = render_text(mail, COMMAND_HELP), render_html(mail, COMMAND_HELP)
        printed = [m.groups() for line in text.splitlines() if (m := TEXT_OPTION.match(line))]
        in_html = HTML_OPTION.findall(page)
        assert len(printed) == len(in_html) == len(legal)
        for number, command in printed:
            assert parse_choice(command) == legal[int(number) - 1]
        for number, command in in_html:
            assert parse_choice(html.unescape(command)) == legal[int(number) - 1]
        assert mail.decision is not None
        if mail.decision.unlisted:
            assert f"and {mail.decision.unlisted} more" in text


def test_a_long_list_of_landings_is_cut_and_says_how_many_more() -> None:
    big = next(
        s
        for players in (5, 6)
        for seed in range(6)
        for s in _states(players, seed)
        if len(s.legal_choices()) > view.MAX_LISTED
    )
    text = render_text(_prompt(big), COMMAND_HELP)
    unlisted = len(big.legal_choices()) - view.MAX_LISTED
    assert f"... and {unlisted} more: write the command itself." in text


def test_391_options_fit_in_a_few_lines_every_number_picks_what_it_shows() -> None:
    """A turn with 386 expansions (an empty reserve: boats borrowed from other beaches), four
    royal islands and colonise: the others numbered, the expansions one line per island."""
    state = State.from_json(json.loads((FIXTURES / "state-391-options.json").read_text()))
    legal = state.legal_choices()
    assert len(legal) == 391
    mail = _prompt(state)
    text, page = render_text(mail, COMMAND_HELP), render_html(mail, COMMAND_HELP)
    part = text.split("YOUR DECISION", 1)[1].split("\nTHE BOARD\n", 1)[0]
    listing = part.split("\n   1) ", 1)[1].split("\nReply with", 1)[0]
    assert len(listing.splitlines()) <= 32, listing
    assert max(len(line) for line in text.splitlines()) <= 78
    printed = [m.groups() for line in part.splitlines() if (m := TEXT_OPTION.match(line))]
    numbered = [c for c in legal if not isinstance(c, Expand)]
    assert [str(c) for c in numbered] == [
        "royal Rapa Nui",
        "royal Tahiti",
        "royal Muroroa",
        "royal Tubuai",
        "colonise",
    ]
    assert [(int(n), parse_choice(c)) for n, c in printed] == list(enumerate(numbered, 1))
    assert [parse_choice(html.unescape(c)) for _, c in HTML_OPTION.findall(page)] == numbered
    assert "Reply with a number (1-5) or a command." in part
    assert "Reply with a number (1&ndash;5) or a command." in page
    assert "more: write the command itself" not in part
    # every expansion is in its island's line, each beach it names there
    lines = {line.split(":")[0].strip(): line for line in part.splitlines() if ": " in line}
    for choice in legal:
        if isinstance(choice, Expand):
            shown = lines[choice.island].split(": ", 1)[1]
            assert all(BEACH_LETTERS[b] in shown for b in choice.beaches)
    assert "expand ISLAND BEACHES [from ISLAND BEACH]" in part
    assert "for example: expand Tonga a from Rapa Nui a" in part
    assert state.is_legal(parse_choice("expand Tonga a from Rapa Nui a"))
    # a reply's number picks what the mail numbered, and no more
    assert read_choice(state, "5", numbers=True) == Colonise()
    with pytest.raises(ChoiceError, match="the options are 1-5"):
        read_choice(state, "6", numbers=True)


def test_a_copied_option_line_is_that_option_when_the_engine_allows_its_command() -> None:
    """'5) colonise', as the mail prints it, is option 5; a command after the number that
    names another option is refused with both; one the rules do not allow now (the engine's
    `is_legal`), or no command at all, is refused as a line to write again."""
    state = State.from_json(json.loads((FIXTURES / "state-391-options.json").read_text()))
    before = state.to_json()
    assert read_choice(state, "5) colonise", numbers=True) == Colonise()
    assert read_choice(state, "2 royal Tahiti", numbers=True) == parse_choice("royal Tahiti")
    with pytest.raises(ChoiceError, match="Option 5 is colonise, not royal Tahiti"):
        read_choice(state, "5) royal Tahiti", numbers=True)
    for line in ("5) royal Tonga", "5) expand Tonga z", "5) hello there"):
        assert not state.is_legal(parse_choice("royal Tonga"))
        with pytest.raises(ChoiceError, match="Write one option on a line"):
            read_choice(state, line, numbers=True)
    assert state.to_json() == before


def _player(seat: int, name: str, colour: str) -> view.Player:
    return view.Player(seat, name, colour, 0, (), 0)


@pytest.mark.parametrize(
    ("second", "decided_by", "expected"),
    [
        (
            Standing("red", 14, ("Tonga", "Samoa", "Oahu"), 9, 2),
            "islands",
            "Ana and Ben both have 14 points; the tie is broken by islands: Ana is on 4, Ben on 3.",
        ),
        (
            Standing("red", 14, ("Tonga", "Samoa", "Oahu", "Fidschi"), 11, 2),
            "boats",
            "Ana and Ben both have 14 points and 4 islands each; the tie is broken by the "
            "fewest boats on the board: Ana has 9, Ben 11.",
        ),
        (
            Standing("red", 14, ("Tonga", "Samoa", "Oahu", "Fidschi"), 9, 1),
            "shared",
            "Ana and Ben both have 14 points, 4 islands and 9 boats on the board each: "
            "the win is shared.",
        ),
    ],
)
def test_tie_breaks_are_explained(second: Standing, decided_by: str, expected: str) -> None:
    first = Standing("blue", 14, ("Tonga", "Samoa", "Oahu", "Hawaii"), 9, 1)
    outcome = Outcome("the last sea tile was drawn", (first, second))
    assert outcome.decided_by == decided_by
    by_colour = {"blue": _player(0, "Ana", "blue"), "red": _player(1, "Ben", "red")}
    assert final_module.tie_break(outcome, by_colour) == expected


def test_no_tie_break_sentence_when_points_decide() -> None:
    first = Standing("blue", 15, ("Tonga",), 9, 1)
    second = Standing("red", 14, ("Tonga",), 9, 2)
    by_colour = {"blue": _player(0, "Ana", "blue"), "red": _player(1, "Ben", "red")}
    assert final_module.tie_break(Outcome("x", (first, second)), by_colour) == ""


def test_deadlines_in_utc_and_in_the_players_own_zone() -> None:
    moment = datetime(2026, 11, 24, 23, 30, tzinfo=UTC)
    berlin = view.deadline(moment, "Europe/Berlin")
    assert berlin.utc == "Tue 24 Nov 2026, 23:30 UTC"
    assert berlin.local == "Wed 25 Nov, 00:30 Europe/Berlin"
    assert view.deadline(moment).local is None
    assert view.deadline(moment, "Mars/Olympus").local is None


def test_a_prompt_shows_the_deadline_in_both_zones() -> None:
    state = _states(3, 2)[10]
    assert state.decision is not None
    at = letters.moment(7, state, NAMES[:3], [False] * 3)
    due = view.deadline(datetime(2026, 11, 24, 23, 30, tzinfo=UTC), "Asia/Tokyo")
    text, page = render(letters.letter(at, state.decision.seat, deadline=due), COMMAND_HELP)
    assert "Deadline: Tue 24 Nov 2026, 23:30 UTC (Wed 25 Nov, 08:30 Asia/Tokyo)" in text
    assert "Wed 25 Nov, 08:30 Asia/Tokyo" in page


def _outside_the_map(text: str) -> list[str]:
    lines, in_map = [], False
    for line in text.splitlines():
        if line == "THE BOARD":
            in_map = True
        elif in_map and not line:
            in_map = False
        elif not in_map:
            lines.append(line)
    return lines


@pytest.mark.parametrize("name", sorted(KINDS))
def test_text_lines_fit_78_columns_outside_the_map(name: str) -> None:
    text, _ = parts(sample_mails()[name])
    too_wide = [line for line in _outside_the_map(text) if len(line) > 78]
    assert too_wide == []


@pytest.mark.parametrize("name", sorted(KINDS))
def test_the_board_picture_is_inline_in_the_html(name: str) -> None:
    mail = sample_mails()[name]
    _, page = parts(mail)
    images = [p for p in mail.walk() if p.get_content_type() == "image/png"]
    cids = re.findall(r'src="cid:([^"]+)"', page)
    if name in ("welcome", "not-applied", "answer", "gm", "update-news", "update-talk"):
        assert images == [] and cids == [] and "THE BOARD" not in parts(mail)[0]  # no board
    elif name.startswith("update"):  # the board as text; the picture where the reader plans
        assert images == [] and cids == [] and "THE BOARD" in parts(mail)[0]
    else:
        assert len(images) == 1 and len(cids) == 1
        assert str(images[0]["Content-ID"]) == f"<{cids[0]}>"
        assert images[0].get_content().startswith(b"\x89PNG")


def test_what_happened_reads_as_sentences() -> None:
    events = [
        ChoiceMade("blue", "expand Tonga a", forced=False),
        ChoiceMade("blue", "emigrate Tonga a S", forced=True),
        TileDrawn("C", 14, 1),
        TilePlaced("C", (0, 1), 3),
        VoyagePassed("C", 0, 1),
        TileDrawn("D", 14, 0),
        TilePlaced("D", (0, 2), 3),
        VoyagePassed("D", 3, 3),
    ]
    assert view.happened(events) == (
        "Blue: emigrate Tonga a S (the only option).",
        "New tile: sea C, laid with its red emblem facing north (14 islands and 1 sea tile left).",
        "They crossed sea C (no danger).",
        "New tile: sea D, laid with its red emblem facing north (14 islands and 0 sea tiles left).",
        "They crossed sea D: the trail needs 3 colours, they had 3.",
    )


def test_a_sea_tile_is_called_sea_and_its_letter_never_stands_alone() -> None:
    state = arrange(("blue", "red"), boats={"Tonga a": "BR", "Tonga b": "B"}, top=["N", "Samoa"])
    state.apply(parse_choice("colonise"))
    assert what_is_asked(state) == "Blue must place the drawn tile sea N."
    assert letters.summary(state) == "place tile sea N"
    lost = news.event(VoyageFailed("N", 4, ("blue", "red", "blue")))
    assert lost == (
        "On sea N the trail needs 4 colours; they had 2: lost at sea, 2 blue, 1 red back to "
        "the reserves."
    )
    placed = view.happened([TilePlaced("E", (0, 1), 2)])
    assert placed == ("Tile sea E was placed with its red emblem facing north-west.",)
    assert view.happened([TilePlaced("Samoa", (0, 1), 2)]) == (
        "Tile Samoa was placed with its red emblem facing north-west.",
    )
    # in another language's prose the sea tile is that language's word with its letter (the
    # commands keep reading the notation, 'put sea N ...')
    italian = Words("it")
    assert "mare N" in italian.say(what_is_asked(state))
    assert "mare N" in italian.say(letters.summary(state))
    assert "mare N" in italian.say(lost) and "mare E" in italian.say(placed[0])
    assert "sea N" not in italian.say(lost) and "water N" in Words("nl").say(lost)


def test_a_landing_names_its_group_unless_its_arrival_is_the_line_before() -> None:
    arrived = GroupArrived("Rarotonga", ("blue", "green", "green"))
    chose = ChoiceMade("green", "land Rarotonga a:B b:GG", forced=False)
    landed = GroupLanded("Rarotonga", ((0, ("blue",)), (1, ("green", "green"))), ())
    assert view.happened([arrived, chose, landed]) == (
        "1 blue, 2 green arrived at Rarotonga.",
        "They landed on Rarotonga (a: 1 blue; b: 2 green).",
    )
    alone = view.happened([chose, landed])
    assert alone == ("1 blue, 2 green landed on Rarotonga (a: 1 blue; b: 2 green).",)
    # the arrival of another group is no subject for this one
    other = view.happened([GroupArrived("Rarotonga", ("red",)), landed])
    assert other[-1] == alone[0]
    out = GroupLanded("Rarotonga", ((0, ("blue",)), (1, ("green", "green"))), ("green",))
    assert view.happened([out]) == (
        "1 blue, 3 green landed on Rarotonga (a: 1 blue; b: 2 green); 1 green stayed out, "
        "back to the reserves.",
    )
    assert Words("it").say(alone[0]) == (
        "1 blu, 2 verdi sono sbarcate su Rarotonga (a: 1 blu; b: 2 verdi)."
    )
    assert Words("nl").say(view.happened([out])[0]) == (
        "1 blauwe, 3 groene meerden aan op Rarotonga (a: 1 blauwe; b: 2 groene); 1 groene bleef "
        "buiten, terug naar de voorraad."
    )


def _landing(seed: int) -> tuple[list[Event], State, list[Event]]:
    """Through a greedy bot game: the events of the move that made a group arrive, then the
    state after its landing and the landing's events."""
    state = State(Setup.from_seed(("blue", "red"), seed))
    bot = make_bot("greedy", seed)
    arrival: list[Event] = []
    while state.decision is not None:
        landing = state.decision.kind is Phase.LAND
        events = list(state.apply(bot.choose(state)))
        if landing:
            return arrival, state, events
        arrival = events
    raise AssertionError("no landing in this game")


def test_a_mail_that_opens_with_a_landing_names_the_group() -> None:
    arrival, state, landing = _landing(1)
    arrived = next(e for e in arrival if isinstance(e, GroupArrived))
    names, bots = NAMES[:2], [False, False]
    at = letters.moment(7, state, names, bots, landing)
    told = [line for line in at.happened if "landed" in line]
    assert len(told) == 1 and told[0].startswith(news.group(arrived.boats) + " landed on ")
    assert not any(line.startswith("They") for line in at.happened)
    # a mail that tells the arrival too (a `mail turns` player's) says "They" after it
    mail = letters.letter(at, 0, earlier=arrival)
    lines = list(mail.happened)
    at_arrival = lines.index(news.event(arrived))
    landed = next(n for n, line in enumerate(lines) if "landed" in line)
    assert lines[landed].startswith("They landed on ")
    assert all(line.startswith(("Blue:", "Red:")) for line in lines[at_arrival + 1 : landed])
    italian = Words("it").say(told[0])
    assert italian.startswith(Words("it").say(news.group(arrived.boats)) + " sono sbarcate su ")


def test_a_placed_tile_says_where_as_the_put_command_named_it() -> None:
    state = arrange(("blue", "red"), boats={"Tonga a": "BR", "Tonga b": "B"}, top=["N", "Samoa"])
    state.apply(parse_choice("colonise"))
    names, bots = NAMES[:2], [False, False]
    first = list(state.apply(parse_choice("put Tonga NE red S")))
    at = letters.moment(7, state, names, bots, first)
    assert (
        at.happened[0] == "Tile sea N was placed north-east of Tonga, its red emblem facing south."
    )
    second = list(state.apply(parse_choice("put sea N N red S")))
    at = letters.moment(7, state, names, bots, second)
    assert at.happened == ("Tile Samoa was placed north of sea N, its red emblem facing south.",)
    said = {lang: Words(lang).say(at.happened[0]) for lang in ("it", "fi", "hu")}
    assert said["it"] == (
        "La tessera Samoa è stata piazzata a nord di mare N, col simbolo rosso verso sud."
    )
    assert said["fi"] == (
        "Laatta Samoa asetettiin meren N pohjoispuolelle, punainen symboli etelään päin."
    )
    assert "az óceán N-től északra" in said["hu"]  # the article and suffix by its sounds
    # one mail that tells both moves names the places as the table was when each was put
    mail = letters.letter(at, 0, earlier=first)
    assert mail.happened == (
        "Tile sea N was placed north-east of Tonga, its red emblem facing south.",
        "New tile: Samoa, laid north of sea N with its red emblem facing south (14 islands and "
        "15 sea tiles left).",
    )


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (4, 3), (6, 4)])
def test_every_placed_tile_is_named_by_a_tile_on_the_table_before_it(
    players: int, seed: int
) -> None:
    state = State(Setup.from_seed(COLOURS[:players], seed))
    bot = make_bot("greedy", seed)
    while state.decision is not None:
        laid = dict(state.tiles)
        events = list(state.apply(bot.choose(state)))
        named = happened.placed_where(events, state.tiles)
        for index, event in enumerate(events):
            if isinstance(event, IslandRemoved):
                laid = {p: t for p, t in laid.items() if t[0] != event.island}
            if not isinstance(event, TilePlaced):
                continue
            anchor, direction = empty_places(laid)[event.position]
            if anchor is None or anchor in (name for name, _ in state.tiles.values()):
                # as the put command (State.empty_places) named the place then
                assert named[index] == news.place(anchor, direction)
            laid[event.position] = (event.tile, event.rotation)

    settings = Settings(from_address="tongiaki@example.test")
    page = "<p>" + "<span>B</span>" * 400 + "</p>"
    raw = compose(
        settings,
        recipient="ana@example.test",
        subject="Test",
        text="short",
        html=page,
        picture=Picture.of(b"\x89PNG not really"),
        game_id=1,
        tag=None,
        now=datetime(2026, 11, 24, tzinfo=UTC),
    )
    assert max(len(line) for line in raw.split(b"\n")) <= 998
    _, html_part = parts(parse(raw))
    assert html_part.rstrip("\n") == page


@pytest.mark.parametrize("name", sorted(KINDS))
def test_no_markup_is_escaped_twice(name: str) -> None:
    _, page = parts(sample_mails()[name])
    assert "&amp;#" not in page and "&lt;span" not in page


def _tile_prompts(seed: int) -> list[State]:
    return [s for s in _states(3, seed) if s.decision and s.decision.kind.value == "put tile"]


@pytest.mark.parametrize("seed", [3, 15])  # games with both island and sea tiles to place
def test_a_drawn_tile_is_shown_as_it_would_lie_for_each_red_direction(seed: int) -> None:
    """Each line of the prompt says what placing the tile with that red direction makes:
    checked against the board after the engine placed it so."""
    prompts = _tile_prompts(seed)
    assert {p.decision.tile in SEAS for p in prompts if p.decision} == {True, False}
    for state in prompts:
        decision = view.decision(state)
        tile = state.decision.tile if state.decision else None
        assert tile is not None
        title, *lines = decision.turns
        kind = "its trails and their dangers" if tile in SEAS else "beach: where its jetties"
        name = f"sea {tile}" if tile in SEAS else tile
        assert title.startswith(f"How {name} lies, by the direction its red emblem faces (")
        assert kind in title
        choices = {str(c).rsplit(" ", 1)[1]: c for c in state.legal_choices()}
        assert [line.split()[1] for line in lines] == sorted(choices, key=DIRECTIONS.index)
        for line in lines:
            placed = state.copy()
            placed.apply(choices[line.split()[1]])
            after = view.board(placed, NAMES[:3])
            said = " ".join(line.split()[2:])
            if tile in SEAS:
                legend = next(s for s in after.seas if s.startswith(f"sea {tile}: "))
                assert said == legend.removeprefix(f"sea {tile}: ")
            else:
                island = next(i for i in after.islands if i.name == tile)
                jetties = [
                    f"{b.letter}: " + " ".join(j.split(" to ")[0] for j in b.jetties)
                    for b in island.beaches
                ]
                assert said == " ".join(" ".join(jetties).split())
        text = render_text(_prompt(state), COMMAND_HELP)
        assert all(line in text for line in lines)


def test_a_win_shared_by_three_names_all_three() -> None:
    tied = [Standing(colour, 0, ("Tonga",), 1, 1) for colour in ("blue", "red", "green")]
    standings = (*tied, Standing("yellow", 0, ("Tonga",), 2, 4))
    outcome = Outcome("the game master ended the game", standings)
    names = {"blue": "Ana", "red": "Ben", "green": "Cy", "yellow": "Dai"}
    by_colour = {c: _player(n, names[c], c) for n, c in enumerate(names)}
    assert final_module.tie_break(outcome, by_colour) == (
        "Ana, Ben and Cy all have 0 points, 1 island and 1 boat on the board each: "
        "the win is shared."
    )


def test_a_royal_island_that_sends_no_boat_back_says_no_boat() -> None:
    """A tester read "0 boats went back to the reserve": with no boat to send back, none is
    counted."""
    alone = view.happened([RoyalIslandFounded("blue", "Tuvalu", 0)])
    assert alone == ("Blue founded a royal island on Tuvalu; no boat went back to the reserve.",)
    assert view.happened([RoyalIslandFounded("blue", "Tuvalu", 2)]) == (
        "Blue founded a royal island on Tuvalu; 2 boats went back to the reserve.",
    )
    assert Words("it").say(alone[0]).endswith("nessuna barca è tornata nella riserva.")


def test_a_group_of_one_boat_agrees_with_its_verb() -> None:
    """'1 blu è arrivata', not '1 blu sono arrivate': the verb agrees with the group's boats
    in every language that conjugates it (English says 'arrived' either way)."""
    one, two = GroupArrived("Samoa", ("blue",)), GroupArrived("Samoa", ("blue", "red"))
    assert view.happened([one]) == ("1 blue arrived at Samoa.",)
    assert Words("it").say(view.happened([one])[0]) == "1 blu è arrivata a Samoa."
    assert Words("it").say(view.happened([two])[0]) == "1 blu, 1 rossa sono arrivate a Samoa."
    assert Words("nl").say(view.happened([one])[0]) == "1 blauwe kwam aan bij Samoa."
    assert Words("nl").say(view.happened([two])[0]) == "1 blauwe, 1 rode kwamen aan bij Samoa."


def test_the_header_and_examples_follow_the_options_of_a_player_with_only_royal_boats() -> None:
    """Issue 30: a player with only a royal boat left was told to "expand, found a royal
    island, or colonise" above `place` options. The header names what the options hold, and
    each command's example is one of them."""
    state = arrange(
        ("blue", "red"),
        tiles=[("O", (0, 1), 3), ("Samoa", (1, 0), 0)],
        royal={"Samoa": "blue"},
        boats={"Tonga a": "RR", "Tonga b": "R"},
    )
    legal = [str(c) for c in state.legal_choices()]
    assert {c.split()[0] for c in legal} == {"place", "colonise"}
    shown = view.decision(state)
    assert shown.asked == (
        "Blue has no boat on a beach and must start the turn: put boats on an island, or colonise."
    )
    examples = [line.partition(", for example: ")[2] for line in shown.syntax]
    assert examples == ["", legal[0]]  # colonise, place ...
    assert shown.syntax[0] == "colonise"


@pytest.mark.parametrize("seed", [1, 6])
def test_every_example_in_a_prompt_is_one_of_its_options(seed: int) -> None:
    for state in _states(3, seed)[::2]:
        legal = {str(c) for c in state.legal_choices()}
        shown = view.decision(state)
        for line in shown.syntax:
            example = line.partition(", for example: ")[2]
            assert not example or example in legal, (line, sorted(legal)[:5])
        asked = str(shown.asked)
        verbs = {c.split()[0] for c in legal}
        if state.phase is Phase.TURN:
            assert ("expand" in asked) == ("expand" in verbs), asked
            assert ("royal island" in asked) == ("royal" in verbs), asked


def test_a_misspelt_island_is_matched_first_with_the_decision_then_the_board() -> None:
    """Issue 30: 'land tuvlau ...' while landing on Tuvalu suggested Tuvalu, Tuamotu and
    Tokelau, the last two not on the board. Suggestions are the islands the decision names,
    then the others on the board, never one off the board."""
    state = arrange(
        ("blue", "red"),
        tiles=[("O", (0, 1), 3), ("Tuvalu", (1, 0), 0)],
        boats={"Tonga a": "BBR", "Tuvalu a": "R"},
        phase=Phase.EMIGRATE,
    )
    plain = parse_error("land tuvlau a:B")
    assert "Tuamotu" in plain or "Tokelau" in plain  # without the game: every island
    with pytest.raises(ChoiceError) as refused:
        read_choice(state, "emigrate tuvlau a s", numbers=True)
    said = str(refused.value)
    assert said.startswith("No island is called 'tuvlau'. Did you mean Tuvalu? Write it as: ")
    with pytest.raises(ChoiceError) as refused:
        read_choice(state, "emigrate tokelua a s", numbers=True)  # close to Tokelau, off the board
    assert str(refused.value).startswith("No island is called 'tokelua'. Write it as:")


def parse_error(line: str) -> str:
    with pytest.raises(ChoiceError) as refused:
        parse_choice(line)
    return str(refused.value)
