"""Every registered command is where a player or a game master looks for it: the help mail,
the game master's mail, `pbem gm --help`, the answer to a word that is no command, and the
README's tables. Nothing lists them by hand, so a new command shows up everywhere."""

from __future__ import annotations

import re
from email.message import EmailMessage
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine import ChoiceError, Setup, State
from pbem.commands.gm import GM_COMMANDS
from pbem.commands.player import PLAYER_COMMANDS, read_choice
from pbem.commands.registry import Command, Commands
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.host.cli import app
from tests.support.localmail import START, later, local_service, reply_to, take_mail, text_of

ANN, BOB, GM = "ann@example.test", "bob@example.test", "gm@example.test"
README = Path(__file__).resolve().parent.parent / "README.md"


def _flat(text: str) -> str:
    """Text with its line breaks and runs of spaces (and rich's box lines) made one space."""
    return " ".join(text.replace("│", " ").split())


def _names(text: str, commands: Commands, *, unlisted: bool = True) -> list[str]:
    """The names of `commands` that `text` does not carry as words (with `unlisted`, also
    the commands whose help line is another's, as `confirm` in resign's)."""
    wanted = [c for c in commands if unlisted or c.listed]
    return [c.name for c in wanted if not re.search(rf"(?<![\w-]){re.escape(c.name)}\b", text)]


def _between(text: str, first: str, last: str) -> str:
    start = text.index(first)
    return text[start : text.index(last, start)]


def _game(service: Service) -> dict[str, EmailMessage]:
    """A game of Ann and Bob with a game master: the newest mail to each of them."""
    service.new_game(
        [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")], seed=4, gm=GM, now=START
    )
    return {str(m["To"]): m for m in take_mail(service)}


def _answer(service: Service, mail: EmailMessage, line: str, minute: int) -> str:
    """What the sender of `line` (in a reply to `mail`) reads back, flattened."""
    handle(service, reply_to(mail, line), later(minute))
    back = [m for m in take_mail(service) if m["To"] == mail["To"]]
    assert len(back) == 1
    return _flat(text_of(back[0]))


@pytest.fixture
def newest(tmp_path: Path) -> tuple[Service, dict[str, EmailMessage]]:
    service = local_service(tmp_path)
    return service, _game(service)


def test_the_help_mail_lists_every_players_command(
    newest: tuple[Service, dict[str, EmailMessage]],
) -> None:
    service, mails = newest
    text = _answer(service, mails[ANN], "help", 1)
    helped = _between(text, "HOW TO PLAY BY MAIL", "No answer by a deadline")
    assert _names(helped, PLAYER_COMMANDS) == []
    assert len(PLAYER_COMMANDS.commands) >= 14


def test_the_game_masters_mail_lists_every_game_master_command(
    newest: tuple[Service, dict[str, EmailMessage]],
) -> None:
    _, mails = newest
    text = _flat(text_of(mails[GM]))
    listed = _between(text, "GAME MASTER COMMANDS", "-- Tongiaki game 1.")
    assert _names(listed, GM_COMMANDS) == []
    assert "log talk (all moves so far with the table talk)" in listed
    assert len(GM_COMMANDS.commands) >= 18


def test_pbem_gm_help_names_every_game_master_command() -> None:
    result = CliRunner().invoke(app, ["gm", "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    assert _names(_flat(result.output), GM_COMMANDS) == []


def test_a_word_that_is_no_command_is_answered_with_every_command(
    newest: tuple[Service, dict[str, EmailMessage]],
) -> None:
    service, mails = newest
    player = _answer(service, mails[ANN], "frobnicate", 1)
    said = player[player.index("'frobnicate' is not a command.") :]
    assert _names(said, PLAYER_COMMANDS, unlisted=False) == []
    game_master = _answer(service, mails[GM], "frobnicate", 2)
    said = game_master[game_master.index("'frobnicate' is not a game master command.") :]
    assert _names(said, GM_COMMANDS) == []
    # a misspelt one: the closest command first, then the whole list
    game_master = _answer(service, mails[GM], "pasue", 3)
    assert "'pasue' is not a game master command. Did you mean pause? The commands:" in (
        game_master
    )


def test_accents_on_a_command_word_do_not_matter(
    newest: tuple[Service, dict[str, EmailMessage]],
) -> None:
    """README "Commands for players": case, spacing and accents do not matter, on a move's
    word and on any language's word for a command ('szabalyok' is the Hungarian 'szabályok')."""
    service, mails = newest
    assert "STATUS" in _answer(service, mails[BOB], "stâtus", 1)
    assert "THE RULES IN SHORT" in _answer(service, mails[BOB], "szabalyok", 2)
    moved = _answer(service, mails[ANN], "plâce Tönga B", 3)
    assert "> plâce Tönga B applied: place Tonga b" in moved


def test_a_reply_is_quoted_as_it_was_written(
    newest: tuple[Service, dict[str, EmailMessage]],
) -> None:
    """The quote of a line keeps the player's words: 'Fidschi' stays, though the mail calls
    the island Fiji to an English reader everywhere else."""
    service, mails = newest
    answer = _answer(service, mails[ANN], "expand Fidschi a", 1)
    assert "> expand Fidschi a rejected:" in answer
    assert "> expand Fiji a" not in answer


def _readme_rows(heading: str) -> str:
    """The rows of the first command table under `heading` in the README."""
    section = README.read_text(encoding="utf-8").split(f"\n## {heading}\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert rows, heading
    return "\n".join(rows)


@pytest.mark.parametrize(
    ("heading", "commands"),
    [("Commands for players", PLAYER_COMMANDS), ("The game master", GM_COMMANDS)],
)
def test_the_readme_tables_name_every_registered_command(heading: str, commands: Commands) -> None:
    spans = re.findall(r"`([^`]+)`", _readme_rows(heading))
    missing = [c.name for c in commands if not any(_starts(span, c) for span in spans)]
    assert missing == []


def _starts(span: str, command: Command) -> bool:
    """Whether a code span of the README is `command`, written with its arguments or not."""
    return span == command.name or span.startswith(command.name + " ")


@pytest.mark.parametrize(
    ("body", "outcome", "told"),
    [
        ("2) place Tonga b", "applied", "applied: place Tonga b"),  # an option's line copied
        ("2. place tonga b.", "applied", "applied: place Tonga b"),
        ("1) place Tonga b", "rejected", "Option 1 is place Tonga a, not place Tonga b"),
        ("1 2", "rejected", "Write one option on a line: its number alone (1) or its command"),
        ("3 please", "rejected", "its number alone (3) or its command alone"),
    ],
)
def test_a_line_with_a_number_and_more_is_read_as_the_player_meant_it(
    tmp_path: Path, body: str, outcome: str, told: str
) -> None:
    service = local_service(tmp_path)
    service.new_game([SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")], seed=3, now=START)
    prompt = [m for m in take_mail(service) if m["To"] == ANN][-1]
    assert "2) place Tonga b" in text_of(prompt)  # the option lines as the mail lists them
    assert handle(service, reply_to(prompt, body), later(60)) == outcome
    answer = next(m for m in take_mail(service) if m["To"] == ANN)
    assert told in _flat(text_of(answer))


def test_a_copied_option_line_after_the_first_decision_is_read_by_its_command() -> None:
    """For the decisions after the one the mail asked, numbers mean nothing: the command of
    a copied line is read, and a bare number is refused as before."""
    state = State(Setup.from_seed(("red", "blue"), 3))
    assert str(read_choice(state, "4) place Tonga b", numbers=False)) == "place Tonga b"
    with pytest.raises(ChoiceError, match="A number only picks from the options"):
        read_choice(state, "1 2", numbers=False)


def test_the_help_says_the_hosts_vacation_allowance(tmp_path: Path) -> None:
    service = local_service(tmp_path, vacation_allowance="72h")
    service.new_game([SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")], seed=3, now=START)
    welcome = next(m for m in take_mail(service) if m["To"] == ANN)
    assert "while you are away, up to 3 days per game in all; vacation off ends it" in _flat(
        text_of(welcome)
    )
