"""Names and addresses at the door: `pbem.core.identity`, and where it stands guard (a new game on
the command line and in the service, a game master's `replace`, the settings)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import select
from typer.testing import CliRunner

from pbem.core.config import ConfigError, load_settings
from pbem.core.identity import IdentityError, check_address, check_name
from pbem.flow.service import GameError, SeatSpec
from pbem.host.cli import app
from pbem.store.db import session
from pbem.store.models import Game, Seat
from tests.support.localmail import START, local_service
from tests.test_gm import HOUR, SET_UP, _refused, _table

runner = CliRunner()


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("you@localhost", "you@localhost"),
        ("You@LocalHost", "You@localhost"),
        ("tongiaki@localhost", "tongiaki@localhost"),
        ("ann@example.test", "ann@example.test"),
        ("bob@example.org", "bob@example.org"),
        ("Bob.Smith+tongiaki@Example.ORG", "Bob.Smith+tongiaki@example.org"),
        ("ann@mail.example", "ann@mail.example"),
        ("ann@bücher.example", "ann@xn--bcher-kva.example"),  # the domain as SMTP writes it
    ],
)
def test_an_address_is_kept_as_written_with_its_domain_lowercase(text: str, address: str) -> None:
    assert check_address(text) == address


@pytest.mark.parametrize(
    "text",
    [
        '"><script>@localhost',
        "bob5@localhost>",
        "<ann@example.org>",
        "Ann <ann@example.org>",
        "a b@example.org",
        " ann@example.org",
        "ann@example.org ",
        "ann@",
        "@example.org",
        "ann",
        "ann@example.org\r\n",
        "ann@example.org\r\nBcc: eve@evil.example",
        "ann\n@example.org",
        "ann@example.org,bob@example.org",
        "a@b@example.org",
        '"ann"@example.org',
        "ann@[192.0.2.1]",
        "ann@intranet",  # no dot: not deliverable outside the host
        "ann@printer.local",
        "ann@site.onion",
        "ännie@example.org",  # needs SMTPUTF8, which the outgoing server may not have
        "a" * 64 + "@" + ".".join(["b" * 60] * 4) + ".org",
        "ann@" + "b" * 300 + ".org",
        "a" * 100_000 + "@example.org",
    ],
)
def test_what_is_not_a_plain_address_is_refused(text: str) -> None:
    with pytest.raises(IdentityError) as error:
        check_address(text)
    message = str(error.value)
    assert "is not a mail address" in message
    assert len(message) < 300


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Ann", "Ann"),
        ("  Ann Example  ", "Ann Example"),
        ("Zoë Ōtake", "Zoë Ōtake"),
        ("李小龍", "李小龍"),
        ("O'Brien & Sons: the blue", "O'Brien & Sons: the blue"),
        ("x" * 40, "x" * 40),
    ],
)
def test_a_name_is_kept_stripped(text: str, name: str) -> None:
    assert check_name(text) == name


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "cannot be empty"),
        ("   ", "cannot be empty"),
        ("x" * 41, "at most 40 characters"),
        ("x" * 100_000, "at most 40 characters"),
        ("Ann\r\n\r\n<b>X</b>", "a control character (U+000D)"),
        ("Ann\tExample", "a control character (U+0009)"),
        ("Ann\x00", "a control character (U+0000)"),
        ("Ann\u202egnp.exe", "an invisible formatting character (U+202E)"),  # right-to-left
        ("Ann\u2066Bob\u2069", "an invisible formatting character (U+2066)"),  # isolate
        ("A\u200dnn", "an invisible formatting character (U+200D)"),  # zero-width joiner
        ("Ann\u200b", "an invisible formatting character (U+200B)"),  # zero-width space
        ("Ann\u2028Bob", "a line separator (U+2028)"),
        ("Ann\u2029Bob", "a paragraph separator (U+2029)"),
        ("bob@bank.example", "a name is not an address"),
        ("<b>Ann</b>", "a name is not an address"),
        ("Ann >", "a name is not an address"),
    ],
)
def test_a_name_that_could_deceive_or_break_a_mail_is_refused(text: str, says: str) -> None:
    with pytest.raises(IdentityError) as error:
        check_name(text)
    assert says in str(error.value)
    assert len(str(error.value)) < 200


# -- where the checks stand ------------------------------------------------------------------


@pytest.fixture
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    return tmp_path


@pytest.mark.usefixtures("_in_tmp")
@pytest.mark.parametrize(
    ("player", "says"),
    [
        ("Ann\r\n\r\n<b>X</b>:ann@localhost", "holds a control character"),
        ("x" * 100_000 + ":ann@localhost", "at most 40 characters"),
        ('Ann:"><script>@localhost', "is not a mail address"),
        ("Ann:bob5@localhost>", "is not a mail address"),
    ],
)
def test_new_game_refuses_a_bad_player_in_one_line_and_creates_nothing(
    player: str, says: str
) -> None:
    args = ["new-game", "--player", player, "--player", "Bob:bob@localhost"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0], lines
    assert len(lines[0]) < 300
    listed = runner.invoke(app, ["list"])
    assert listed.exit_code == 0 and listed.stdout == ""


def test_the_service_stores_the_checked_name_and_address(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    seats = [SeatSpec("  Ann  ", "Ann@Example.TEST"), SeatSpec("Cy", None, bot="greedy")]
    service.new_game(seats, seed=1, gm="GM@Example.TEST", now=START)
    with session(service.engine) as db:
        stored = [(s.name, s.address) for s in db.exec(select(Seat).order_by(Seat.seat))]
        game = db.exec(select(Game)).one()
        assert stored == [("Ann", "Ann@example.test"), ("Cy", None)]
        assert game.gm_address == "GM@example.test"


@pytest.mark.parametrize(
    ("seats", "gm", "says"),
    [
        ([SeatSpec("Ann", "ann@example.test"), SeatSpec("Ann", "ANN@EXAMPLE.test")], None, "same"),
        ([SeatSpec("Ann", "ann@example.test"), SeatSpec("<i>", None, bot="greedy")], None, "<"),
        ([SeatSpec("Ann", "ann@example.test"), SeatSpec("", None, bot="greedy")], None, "empty"),
        ([SeatSpec("Ann", "ann@example.test"), SeatSpec("B", "b@x.test")], "gm@x.test>", "gm@"),
    ],
)
def test_the_service_refuses_what_the_command_line_would(
    tmp_path: Path, seats: list[SeatSpec], gm: str | None, says: str
) -> None:
    service = local_service(tmp_path)
    with pytest.raises(GameError) as error:
        service.new_game(seats, seed=1, gm=gm, now=START)
    assert says in str(error.value)
    with session(service.engine) as db:
        assert db.exec(select(Game)).all() == []


@pytest.mark.parametrize("how", ["cli", "mail"])
@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("replace 1 evil@x.org <b>", "'<b>' holds '<'; a name is not an address."),
        (
            "replace 1 evil@x.org Eve\u202e",
            "'Eve\\u202e' holds an invisible formatting character (U+202E)",
        ),
        ("replace 1 evil@x.org " + "E" * 41, f"'{'E' * 41}' is too long for a name"),
        ('replace 1 "><script>@localhost', "'\"><script>@localhost' is not a mail address."),
        ("replace 1 bob5@localhost>", "'bob5@localhost>' is not a mail address."),
    ],
)
def test_a_game_masters_replace_refuses_a_bad_name_or_address(
    tmp_path: Path, how: str, command: str, says: str
) -> None:
    table = _table(tmp_path, how)
    table.start()
    table.play(START, SET_UP[:2])
    table.gm("status", START + HOUR)
    _refused(table, command, says, START + HOUR + timedelta(minutes=1))


def test_a_game_masters_replace_keeps_the_seats_name_when_none_is_given(tmp_path: Path) -> None:
    table = _table(tmp_path, "cli")
    table.start()
    done = table.gm("replace 1 Dan@Example.TEST", START + HOUR)
    assert done.outcome == "applied", done.said
    with session(table.service.engine) as db:
        seat = db.exec(select(Seat).where(Seat.seat == 0)).one()
        assert (seat.name, seat.address) == ("Ann", "Dan@example.test")


@pytest.mark.parametrize(
    ("toml", "says"),
    [
        ("from_address = 'tongiaki@localhost>'\n", "'from_address': 'tongiaki@localhost>' is not"),
        ("from_address = 'Tongiaki <t@example.org>'\n", "'from_address': "),
        ("gm_addresses = ['gm@example.org', 'a b@example.org']\n", "'gm_addresses': 'a b@"),
        ("gm_addresses = ['gm@example.org\\r\\nBcc: x@y.org']\n", "'gm_addresses': "),
    ],
)
def test_settings_refuse_an_address_that_is_not_plain(tmp_path: Path, toml: str, says: str) -> None:
    config = tmp_path / "pbem.toml"
    config.write_text(toml)
    with pytest.raises(ConfigError) as error:
        load_settings(config)
    assert says in str(error.value)


def test_settings_take_the_demo_and_test_addresses(tmp_path: Path) -> None:
    config = tmp_path / "pbem.toml"
    config.write_text(
        "from_address = 'tongiaki@localhost'\n"
        "gm_addresses = ['gm@example.test', 'boss@example.org']\n"
    )
    assert load_settings(config).gm_addresses == ("gm@example.test", "boss@example.org")
