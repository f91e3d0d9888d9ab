"""The rules for players: docs/rules.md, the `rules` mail made from it, the welcome's three
lines, and the worked example of a danger number played by the engine."""

from __future__ import annotations

import html
import re
from email.message import EmailMessage
from pathlib import Path

import pytest

from engine import SEAS, VoyageFailed, VoyagePassed, parse_choice
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.views.render import WIDTH
from pbem.views.rulestext import Block, blocks, parse, rules_path
from tests.support.localmail import START, later, local_service, reply_to, take_mail, text_of
from tests.support.scenario import arrange, group

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
ANN, BOB = "ann@example.test", "bob@example.test"
TOPICS = (
    "The goal",
    "A turn",
    "Voyages and dangers",
    "Landing",
    "Royal islands",
    "New colonisation",
    "The end and scoring",
)


@pytest.fixture
def service(tmp_path: Path) -> Service:
    return local_service(tmp_path)


def _new_game(service: Service) -> list[EmailMessage]:
    seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")]
    service.new_game(seats, seed=11, now=START)
    return take_mail(service)


def _rules_mail(service: Service) -> EmailMessage:
    prompt = next(m for m in _new_game(service) if "Your move" in str(m["Subject"]))
    assert handle(service, reply_to(prompt, "rules"), later(1)) == "answered"
    (answer,) = take_mail(service)
    return answer


def _html_of(message: EmailMessage) -> str:
    part = message.get_body(("html",))
    assert part is not None
    return str(part.get_content())


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_rules_by_mail_answer_with_the_rules_in_text_and_html(service: Service) -> None:
    answer = _rules_mail(service)
    assert answer["To"] == ANN
    text, page = text_of(answer), _html_of(answer)
    assert "TONGIAKI: THE RULES IN SHORT\n" in text
    assert "\nVoyages and dangers\n-------------------\n" in text
    assert all(len(line) <= WIDTH for line in text.splitlines())
    assert ">Tongiaki: the rules in short</h2>" in page
    assert ">expand Samoa a,c</code>" in page
    assert "<li " in page and "**" not in page and "`" not in page
    assert "YOUR DECISION" in text  # the answer still shows Ann's open decision


def test_commands_in_the_text_mail_are_never_broken_across_lines(service: Service) -> None:
    mail = text_of(_rules_mail(service))
    text, lines = _flat(mail), mail.splitlines()
    for command in re.findall(r"`([^`]+)`", RULES.read_text()):
        assert command in text
        if " " in command:
            assert any(command in line for line in lines), command


def test_the_rules_name_every_topic() -> None:
    headings = [b.text for b in blocks() if b.kind == "heading"]
    assert [t for t in TOPICS if t in headings] == list(TOPICS)
    text = _flat(" ".join(b.text for b in blocks()))
    for needed in (
        "danger number",  # voyages
        "different colours",
        "red emblem",
        "Example: ",  # the worked example of a danger number
        "A route is closed when",  # §8.1, routes that only lead back
        "A route where it would fail is not closed",  # §8.1 ruling: danger numbers count
        "when its turn to sail comes",  # §8.1 ruling: when an island is removed
        "a royal boat counts",  # §8.1 ruling: whose boats
        "no boat goes on it",  # §8.1 ruling: no boat on the drawn island
        "At most 2 each",  # §9
        "turns back the same way",  # §9
        "No boats on the board",  # §11
        "one if Tonga has one free berth",  # §11 ruling
        "Empty reserve",  # §11
        "Ties go to the player on more islands",  # §12
        "the win is shared",
    ):
        assert needed.lower() in text.lower(), needed


def test_the_rules_read_in_a_few_minutes_and_use_only_the_markdown_the_mails_render() -> None:
    source = RULES.read_text()
    assert len(source.split()) <= 1000  # 3-4 minutes on a phone
    for line in source.splitlines():
        assert not line.startswith(("###", "* ", "1. ", "|", ">", "    ")), line
        assert "](" not in line and "<" not in line, line
    assert "../" not in source and "RULES.md" not in source  # the repository stands alone


def test_every_command_the_rules_show_is_the_game_notation() -> None:
    commands = re.findall(r"`([^`]+)`", RULES.read_text())
    assert "expand Samoa a,c" in commands
    for command in commands:
        if not command.startswith("out:"):
            assert str(parse_choice(command)) == command


def test_the_mail_and_docs_rules_md_are_one_text(service: Service) -> None:
    assert rules_path().resolve() == RULES.resolve()
    source = parse(RULES.read_text())
    assert source == blocks() and len(source) > 20
    answer = _rules_mail(service)
    text, page = _flat(text_of(answer)), _flat(html.unescape(_html_of(answer)))
    at = 0
    for block in source:
        shown = block.text.upper() if block.kind == "title" else block.text
        found = text.find(_flat(shown), at)
        assert found >= 0, block.source
        at = found
        assert _flat(html.unescape(str(block.html))) in page, block.source


def test_blocks_read_headings_items_and_paragraphs() -> None:
    source = "# T\n\nOne\ntwo `a b` **c**.\n\n## H\n\n- x\n  y\n- z\n\nEnd.\n"
    assert parse(source) == (
        Block("title", "T", False),
        Block("paragraph", "One two `a b` **c**.", False),
        Block("heading", "H", True),
        Block("item", "x y", False),
        Block("item", "z", False),
        Block("paragraph", "End.", True),
    )
    paragraph = parse(source)[1]
    assert paragraph.text == "One two a b c."
    assert paragraph.unbroken == "One two a\u00a0b c."
    assert "<code " in paragraph.html and ">a b</code> <b>c</b>." in paragraph.html
    assert str(Block("paragraph", "<x> & `<y>`", False).html).startswith("&lt;x&gt; &amp; <code")


def test_the_welcome_gives_goal_and_scoring_in_three_lines_and_names_rules(
    service: Service,
) -> None:
    welcome = next(m for m in _new_game(service) if m["To"] == ANN)
    assert "Welcome" in str(welcome["Subject"])
    lines = text_of(welcome).splitlines()
    start = lines.index("THE GAME")
    goal, score, ties, rules = lines[start + 1 : start + 5]
    assert goal.startswith("Goal: ") and "best islands" in goal
    assert score.startswith("Score: ") and "points of each island" in score
    assert ties.startswith("Ties: ") and "more islands" in ties
    assert "reply rules" in rules
    page = _html_of(welcome)
    assert "<b>Goal:</b>" in page and "<b>Score:</b>" in page and "<b>Ties:</b>" in page
    assert "reply <b>rules</b>" in page


def test_the_worked_example_of_a_danger_number_is_what_the_engine_does() -> None:
    example = next(b.text for b in blocks() if b.text.startswith("Example: "))
    numbers = re.search(
        r"Yellow expands (\w+) (\w), which fills with (\d) yellow, (\d) orange and (\d) green "
        r"boats\. The group sails north; the tile drawn there is a sea tile whose trail has "
        r"danger (\d)\. The group has (\d) colours, fewer than \6: all (\d) boats go back to "
        r"their owners' reserves\. Had one yellow boat been purple, the group would have (\d) "
        r"colours and sail on\.",
        example,
    )
    assert numbers is not None, example
    island, beach = numbers[1], numbers[2]
    yellow, orange, green, danger, colours, boats, purple = map(int, numbers.groups()[2:])
    assert (colours, boats, purple) == (3, yellow + orange + green, 4)
    # a sea tile whose trail from the side the group enters by (edge 0) has that danger
    sea = next(
        s for s in SEAS.values() if any(0 in t.edges and t.danger == danger for t in s.trails)
    )
    players = ["yellow", "orange", "green", "purple"]
    other = "a" if beach != "a" else "c"

    # yellow's expansion adds one boat to the beach, whose jetty faces north
    before = "Y" * (yellow - 1) + "O" * orange + "G" * green
    fails = arrange(
        players,
        tiles=[(island, (0, -1), 0)],
        boats={f"{island} {beach}": before},
        top=[sea.name, "Samoa"],
    )
    events = list(fails.apply(parse_choice(f"expand {island} {beach}")))
    sailed = group("Y" * yellow + "O" * orange + "G" * green)
    assert len(set(sailed)) == colours < danger
    assert VoyageFailed(sea.name, danger, sailed) in events
    assert fails.reserve == (15, 15, 15, 15)

    # one yellow boat purple: the expansion's yellow boat comes from one on another beach
    after = "Y" * (yellow - 2) + "O" * orange + "G" * green + "P"
    passes = arrange(
        players,
        tiles=[(island, (0, -1), 0)],
        boats={f"{island} {other}": "Y", f"{island} {beach}": after},
        top=[sea.name, "Samoa"],
    )
    events = list(passes.apply(parse_choice(f"expand {island} {beach}")))
    assert VoyagePassed(sea.name, danger, purple) in events
