"""`pbem export`: the record of a whole game as one HTML page that needs nothing else, and
the game in notation, which replays to the same final state."""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlmodel import col, select
from typer.testing import CliRunner

from engine import ISLAND_ALIASES, STACK_TILES, Setup, State, parse_choice
from pbem.core.config import ConfigError, load_settings
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec
from pbem.host.cli import app
from pbem.store.db import reading, session
from pbem.store.models import Move, Talk
from pbem.views.export import game_record_html, read_notation
from pbem.views.picture import board_png
from tests.support.browser import chromium, measure
from tests.support.localmail import START, later, local_service, reply_to, take_mail

ANN = "ann@example.test"
SEATS = [
    SeatSpec("Ann", ANN, "red"),
    *(
        SeatSpec(name, None, colour, "greedy")
        for name, colour in (
            ("Kai", "blue"),
            ("Mele", "green"),
            ("Tui", "yellow"),
            ("Ula", "orange"),
            ("Vai", "purple"),
        )
    ),
]
SEED = 6  # Ann has a dozen decisions: the bots play the rest of some 140
PUBLIC = "Good luck to you all & fair winds"
PRIVATE = "Psst, Kai: let us share Tonga"
runner = CliRunner()


@dataclass(frozen=True)
class Exported:
    folder: Path
    page: str
    notation: str
    output: str
    moves: list[tuple[int, str, str]]  # number, the mover's name, the choice
    state: State
    names: list[str]


def _play(folder: Path) -> int:
    """A whole game through the service: Ann answers each prompt with option 1."""
    service = local_service(folder, data_dir=folder / "pbem-data")  # what `pbem` finds there
    game = service.new_game(SEATS, seed=SEED, now=START)
    minute = 0
    while True:
        mails = take_mail(service)
        if any("Game over" in str(m["Subject"]) for m in mails):
            break
        prompts = [m for m in mails if m["X-Tongiaki-Decision"] and ANN in str(m["To"])]
        assert len(prompts) == 1, [m["Subject"] for m in mails]
        minute += 1
        assert handle(service, reply_to(prompts[0], "1"), later(minute)) == "applied"
        assert minute < 200
    with session(service.engine) as db:
        db.add(Talk(game_id=game, at=later(1), seat=0, speaker="Ann (red)", text=PUBLIC))
        db.add(
            Talk(game_id=game, at=later(2), seat=0, speaker="Ann (red)", to_seat=1, text=PRIVATE)
        )
        db.add(Talk(game_id=game, at=later(3), seat=None, speaker="Ola", text="What a voyage!"))
        db.commit()
    return game


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Exported]:
    folder = tmp_path_factory.mktemp("export")
    game = _play(folder)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        patch.delenv("PBEM_CONFIG", raising=False)
        result = runner.invoke(app, ["export", str(game), "--out", "record.html"])
        assert result.exit_code == 0, result.output
        service = local_service(folder, data_dir=folder / "pbem-data")
        with reading(service.engine) as db:
            table = service.table(db, game, START)
            seats, state = table.seats, table.state
            names = [s.name for s in seats]
            rows = db.exec(select(Move).where(Move.game_id == game).order_by(col(Move.number)))
            moves = [(m.number, names[m.seat], m.choice) for m in rows]
        yield Exported(
            folder,
            (folder / "record.html").read_text(encoding="utf-8"),
            (folder / "record.txt").read_text(encoding="utf-8"),
            result.output,
            moves,
            state,
            names,
        )


@pytest.fixture
def _in_folder(exported: Exported, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(exported.folder)
    monkeypatch.delenv("PBEM_CONFIG", raising=False)


def test_the_record_is_one_html_page_that_needs_nothing_else(exported: Exported) -> None:
    page = exported.page
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert page.count("<html") == 1 and page.count("</html>") == 1
    assert not re.search(r"https?:|<link|<script|@import|url\(", page, re.IGNORECASE)
    references = re.findall(r"""\b(?:src|href|srcset|poster)\s*=\s*["']?([^"'\s>]*)""", page)
    assert references and all(r.startswith("data:image/png;base64,") for r in references)


def test_one_picture_per_turn_and_the_final_board(exported: Exported) -> None:
    replay = State(exported.state.setup)
    turns = set()
    for _number, _who, choice in exported.moves:
        turns.add(replay.turn)
        replay.apply(parse_choice(choice))
    pictures = re.findall(r'<img src="data:image/png;base64,([^"]+)" alt="([^"]+)"', exported.page)
    assert len(pictures) == len(turns) == exported.state.turn + 1  # the set-up and each turn
    assert [alt for _, alt in pictures][:2] == [
        "The board after the set-up",
        "The board after turn 1",
    ]
    data, alt = pictures[-1]
    assert alt == "The final board"
    assert base64.b64decode(data) == board_png(exported.state, english=True)  # Fiji, if drawn
    assert "drew 10 of" in exported.output  # progress, on stderr


def test_every_move_appears_in_order_with_its_player(exported: Exported) -> None:
    page = exported.page
    at = 0
    for number, who, choice in exported.moves:
        found = re.compile(
            rf"#{number}</span> <b[^>]*>\w</b> {re.escape(html.escape(who))}: "
            rf'<span class="choice">{re.escape(html.escape(_english(choice)))}</span>'
        ).search(page, at)
        assert found is not None, (number, who, choice)
        at = found.end()
    assert "Turn 1: red." in page  # what followed a move, in words
    assert "New tile: sea" in page


def _english(choice: str) -> str:
    return choice.replace("Fidschi", "Fiji")  # the one island English readers name otherwise


def test_public_talk_is_in_the_record_and_private_talk_never(exported: Exported) -> None:
    assert html.escape(PUBLIC) in exported.page and "What a voyage!" in exported.page
    assert "Psst" not in exported.page and "Psst" not in exported.notation
    assert exported.page.index(html.escape(PUBLIC)) < exported.page.index("What a voyage!")


def test_the_final_table_lists_every_player_with_their_points(exported: Exported) -> None:
    final = exported.page[exported.page.index("Final scores") : exported.page.index("<section")]
    standings = exported.state.standings().standings
    assert len(standings) == len(exported.names) == 6
    colours = exported.state.colours
    for standing in standings:
        name = exported.names[colours.index(standing.colour)]
        row = rf"{standing.rank}\.</td><td[^>]*><b[^>]*>\w</b> {name}</td>"
        row += rf"<td[^>]*>{standing.points}</td>"
        assert re.search(row, final), name


def test_the_notation_replays_to_the_same_final_state(exported: Exported) -> None:
    text = exported.notation
    setup, choices = read_notation(text)
    assert State.replay(setup, choices).to_json() == exported.state.to_json()
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    colours, stack, *moves = lines  # readable by hand too: the set-up, then the choices
    tiles = [ISLAND_ALIASES.get(name, name) for name in stack.split(": ")[1].split(",")]
    by_hand = Setup(tuple(colours.split(": ")[1].split(",")), tuple(tiles))
    assert by_hand == setup
    assert [parse_choice(m) for m in moves] == [parse_choice(c) for _, _, c in exported.moves]
    assert State.replay(by_hand, [parse_choice(m) for m in moves]).to_json() == (
        exported.state.to_json()
    )
    assert f"<pre>{html.escape(text)}</pre>" in exported.page


@pytest.mark.usefixtures("_in_folder")
def test_notation_alone_is_printed(exported: Exported) -> None:
    result = runner.invoke(app, ["export", "1", "--notation"])
    assert result.exit_code == 0 and result.output == exported.notation


def test_the_record_says_fiji_where_the_tile_prints_fidschi(exported: Exported) -> None:
    """English readers' name of the island everywhere, the notation too (`read_notation`
    and every command read both names)."""
    assert "Fidschi" in ",".join(exported.state.setup.stack)  # the game drew it
    record, _, notation = exported.page.partition("The game in notation")
    assert "Fidschi" not in exported.page and "Fidschi" not in exported.notation
    assert ">expand Fiji " in record or ">land Fiji " in record  # a choice on it
    assert "New tile: Fiji," in record  # what happened
    assert ", Fiji," in record.split("The stack, top first:")[1].split("</p>")[0]
    assert ",Fiji," in notation and ("\nexpand Fiji " in notation or "\nland Fiji " in notation)


def test_the_record_of_a_game_going_on_says_fiji_in_what_it_waits_for(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    stack = ["Fidschi", *(tile for tile in STACK_TILES if tile != "Fidschi")]
    bob = SeatSpec("Bob", "bob@example.test", "blue")
    game = service.new_game([SEATS[0], bob], stack=stack, now=START)
    mails = take_mail(service)
    for minute, lines in enumerate(["place Tonga a", "place Tonga b"] * 2 + ["colonise"], 1):
        prompt = next(m for m in mails if m["X-Tongiaki-Decision"])  # to whoever decides
        assert handle(service, reply_to(prompt, lines), later(minute)) == "applied"
        mails = take_mail(service)
    with session(service.engine) as db:
        page = game_record_html(db, game)
    summary = page.split("<h1>", 1)[1].split("<h2>", 1)[0]
    assert "Fiji" in summary and "Fidschi" not in summary  # red must put the drawn tile Fiji


@pytest.mark.usefixtures("_in_folder")
def test_an_unknown_game_is_a_clear_error() -> None:
    result = runner.invoke(app, ["export", "99"])
    assert result.exit_code == 2
    assert result.output.strip() == "error: There is no game 99."
    assert not Path("game-99.html").exists()


def test_a_game_in_progress_keeps_its_stack_hidden(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    game = service.new_game(SEATS[:2], seed=SEED, now=START)
    with session(service.engine) as db:
        db.add(Talk(game_id=game, at=later(1), seat=0, speaker="Ann (red)", text="Hello"))
        db.add(Talk(game_id=game, at=later(2), seat=1, speaker="Kai", to_seat=0, text="Psst"))
        db.commit()
    with reading(service.engine) as db:
        page = game_record_html(db, game)
        state = service.table(db, game, START).state
    assert page.count("<img ") == 1 and 'alt="The board now"' in page
    assert "kept hidden while the game goes on" in page and "The game in notation" not in page
    assert ",".join(state.setup.stack) not in page and "Final scores" not in page
    assert "Now waiting for Ann (red)" in page and "Hello" in page and "Psst" not in page


def test_the_setting_export_on_game_over(tmp_path: Path) -> None:
    config = tmp_path / "pbem.toml"
    assert load_settings(None).export_on_game_over == "none"
    config.write_text('export_on_game_over = "attach"\n')
    assert load_settings(config).export_on_game_over == "attach"
    config.write_text('export_on_game_over = "post"\n')
    with pytest.raises(ConfigError, match="'export_on_game_over' must be one of none, attach, li"):
        load_settings(config)
    config.write_text('export_on_game_over = "link"\nexport_url = "https://example.test/g/"\n')
    with pytest.raises(ConfigError, match="'export_dir' must name the folder"):
        load_settings(config)
    config.write_text('export_on_game_over = "link"\nexport_dir = "/srv/www/games"\n')
    with pytest.raises(ConfigError, match="'export_url' must be the address"):
        load_settings(config)
    config.write_text(
        'export_on_game_over = "link"\nexport_dir = "/srv/www/games"\n'
        'export_url = "https://example.test/games/"\n'
    )
    linked = load_settings(config)
    assert (linked.export_dir, linked.export_url) == (
        "/srv/www/games",
        "https://example.test/games/",
    )


@pytest.mark.skipif(chromium() is None, reason="Chromium is not installed")
def test_the_record_fits_a_phone(exported: Exported) -> None:
    report = measure({"record": exported.page}, 360)["record"]
    assert report["scrollWidth"] == 360 and report["outside"] == [], report
    images = report["images"]
    assert isinstance(images, list) and images and all(w > 0 for w in images)
