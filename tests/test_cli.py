"""The `pbem` command line on the embedded defaults (local mail folders)."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

import pbem
from pbem.core.config import ImapSettings, Settings, load_settings, settings_toml
from pbem.core.kinds import AnswerKind
from pbem.flow.replies import handle
from pbem.flow.service import Service
from pbem.host.cli import app
from pbem.store.db import open_database, session
from pbem.store.models import Answered
from tests.support.localmail import START, reply_to, take_mail, text_of

runner = CliRunner()


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    return tmp_path


def _ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_new_game_prints_its_id_and_mails_the_players() -> None:
    out = _ok(
        "new-game",
        "--player",
        "Ann:ann@example.test:red",
        "--player",
        "Bob:bob@example.test",
        "--bot",
        "Cy:greedy",
        "--seed",
        "3",
        "--deadline",
        "2d",
    )
    assert out.startswith("1\n")
    assert "note: game 1's stack was shuffled from seed 3, so it is predictable" in out
    assert "g1  running  decision 1    Ann (red), Bob (blue), Cy (green, greedy bot)" in _ok("list")
    assert "sent 3 mails" in _ok("poll")
    outbox = Path("pbem-data/mail/outbox/new")
    assert len(os.listdir(outbox)) == 3
    shown = _ok("show", "1")
    assert "Tonga (0 points)" in shown and "Now waiting for Ann (red) to put a set-up boat" in shown


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--player", "Ann:ann@example.test"], "2 to 6 seats"),
        (["--player", "Ann:ann@x.test", "--player", "Bob:ann@x.test"], "same address"),
        (["--player", "Ann:ann@x.test:pink", "--player", "Bob:bob@x.test"], "Unknown colour"),
        (["--player", "Ann:ann@x.test", "--player", "Bob"], "should be NAME:ADDRESS"),
        (["--player", "Ann:ann@x.test", "--bot", "Cy:clever"], "Unknown bot"),
        (["--bot", "Kai:greedy", "--bot", "Cy:random"], "A game needs a player"),
        (
            ["--player", "Ann:ann@x.test", "--player", "Bob:b@x.test", "--stack", "Samoa,A"],
            "31 tiles",
        ),
        (
            ["--player", "Ann:ann@x.test", "--player", "Bob:b@x.test", "--stack", "Atlantis"],
            "Unknown tile",
        ),
    ],
)
def test_new_game_refuses_a_bad_game_and_creates_nothing(args: list[str], says: str) -> None:
    result = runner.invoke(app, ["new-game", *args])
    assert result.exit_code == 2
    assert says in result.output
    assert _ok("list") == ""


def test_new_game_without_a_seed_prints_only_its_id() -> None:
    result = runner.invoke(app, ["new-game", "--player", "Ann:a@x.test", "--bot", "Kai:random"])
    assert result.exit_code == 0 and result.output == "1\n"
    assert "operating system's randomness" in _ok("show", "1")


def test_new_game_refuses_a_seed_out_of_range() -> None:
    for seed in ("-1", "2147483648"):
        result = runner.invoke(app, ["new-game", "--player", "Ann:a@x.test", "--seed", seed])
        assert result.exit_code == 2
        assert "The seed must be a whole number from 0 to 2147483647." in result.output
    assert _ok("list") == ""


def test_reply_from_the_terminal_plays_the_demo_seat() -> None:
    _ok("new-game", "--player", "Sina:you@localhost", "--bot", "Kai:greedy", "--seed", "1")
    _ok("poll")
    assert "Your move: place a set-up boat on Tonga (decision 1)" in _ok("read")
    assert "Replied to" in _ok("reply", "place tonga b")
    assert "handled 1 messages" in _ok("poll")
    assert "(decision 3)" in _ok("read")
    assert "Tonga" in _ok("show", "1")


def test_read_and_reply_pass_over_a_mail_they_cannot_read_in_the_outbox() -> None:
    """Something odd dropped in the local outbox (no header, binary junk, a To that is not an
    address) is no mail to you: read and reply find your mails as before."""
    _ok("new-game", "--player", "Sina:you@localhost", "--bot", "Kai:greedy", "--seed", "1")
    _ok("poll")
    outbox = Path("pbem-data/mail/outbox/new")
    for n, junk in enumerate([b"", b"\xff\xfe\x00garbage", b"To: ,,,@@\n\nhello", b"From"]):
        (outbox / f"9999999999.M{n}P1Q1.junk").write_bytes(junk)
    assert "Your move: place a set-up boat on Tonga (decision 1)" in _ok("read")
    assert "(asks for your decision)" in _ok("read", "--list")
    assert "Replied to: [Tongiaki g1] Your move" in _ok("reply", "1")
    assert "handled 1 messages" in _ok("poll")


def test_reply_says_when_the_answer_budget_keeps_an_answer_back() -> None:
    """Issue 30: `pbem reply` said nothing when no answer would come. With the sender's
    answers for 24 hours spent, it says so and until when; otherwise it adds nothing."""
    _ok("new-game", "--player", "Sina:you@localhost", "--bot", "Kai:greedy", "--seed", "1")
    _ok("poll")
    said = _ok("reply", "hello?")
    assert "Replied to" in said and "answer budget" not in said
    settings = load_settings(None)
    engine = open_database(settings.database)
    first = datetime.now(UTC) - timedelta(hours=3)
    with session(engine) as db:
        for n in range(settings.answers_per_day):
            db.add(
                Answered(
                    address="you@localhost", at=first + timedelta(minutes=n), kind=AnswerKind.ERROR
                )
            )
        db.commit()
    engine.dispose()
    said = " ".join(_ok("reply", "hello again?").split())
    until = (first + timedelta(days=1)).strftime("%Y-%m-%d %H:%M")
    assert (
        f"has had 10 answers in 24 hours (the answer budget, answers_per_day): until {until} UTC"
        in said
    )


def test_reply_from_the_terminal_as_the_game_master() -> None:
    players = ("--player", "Sina:you@localhost", "--bot", "Kai:greedy")
    _ok("new-game", *players, "--gm", "gm@localhost")
    _ok("poll")
    said = _ok("reply", "--from", "gm@localhost", "pause")
    assert "Replied to: [Tongiaki g1] You are the game master of game 1" in said
    assert "handled 1 messages" in _ok("poll")
    assert "Done: pause" in _ok("read", "--to", "gm@localhost")
    assert "paused the game" in _ok("show", "1")
    refused = runner.invoke(app, ["reply", "--from", "nobody@localhost", "1"])
    assert refused.exit_code == 2 and "no mail to nobody@localhost" in refused.output


def test_a_bad_config_file_names_the_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('poll_seconds = "often"\n[imap]\ntls = "maybe"\n')
    result = runner.invoke(app, ["list", "--config", str(bad)])
    assert result.exit_code == 2
    assert "'poll_seconds' must be a number" in result.output


@pytest.mark.parametrize(
    ("deadline", "says"),
    [
        ("soon", "error: --deadline: 'soon' is not a duration (for example 48h, 2d, 1d12h, 90m)."),
        ("30s", "error: The time per decision must be at least a minute."),
    ],
)
def test_new_game_refuses_a_deadline_that_is_no_time_per_decision(deadline: str, says: str) -> None:
    args = ["new-game", "--player", "Ann:ann@example.test", "--player", "Bob:bob@example.test"]
    result = runner.invoke(app, [*args, "--deadline", deadline])
    assert result.exit_code == 2 and result.output.strip() == says
    assert _ok("list") == ""  # nothing was created
    _ok(*args, "--deadline", "1d12h", "--now", "2026-11-23T09:00:00+00:00")
    assert "The deadline is Tue 24 Nov 2026, 21:00 UTC." in " ".join(_ok("show", "1").split())


def test_version_prints_the_packages_version() -> None:
    assert _ok("--version") == f"pbem {pbem.__version__}\n"
    assert re.fullmatch(r"\d+\.\d+\.\d+", pbem.__version__)


def test_show_an_unknown_game() -> None:
    result = runner.invoke(app, ["show", "7"])
    assert result.exit_code == 2 and "There is no game 7" in result.output


def test_settings_written_as_toml_read_back_the_same(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path / "d",
        mail="imap",
        gm_addresses=("gm@x.test",),
        imap=ImapSettings(port=1143, tls="starttls", ca_file='/tmp/"odd"'),
    )
    config = tmp_path / "c.toml"
    config.write_text(settings_toml(settings))
    assert load_settings(config) == settings


def test_poll_now_runs_the_deadlines_as_if_at_that_time() -> None:
    _ok(
        "new-game",
        "--player",
        "Ann:ann@example.test",
        "--player",
        "Bob:bob@example.test",
        "--deadline",
        "1h",
        "--now",
        "2026-11-23T09:00:00Z",
    )
    first = _ok("poll", "--now", "2026-11-23T09:10:00Z")
    assert "handled 0 messages, 0 reminders, 0 automatic moves" in first
    assert "sent 3 mails" in first
    assert "1 reminders, 0 automatic moves" in _ok("poll", "--now", "2026-11-23T10:31:00+01:00")
    assert "0 reminders, 1 automatic moves" in _ok("poll", "--now", "2026-11-23T10:00:00Z")
    assert "decision 2" in _ok("list")
    assert "Ann (blue)'s turn" not in _ok("show", "1")
    assert "Now waiting for Bob (red) to put a set-up boat on a beach of Tonga (decision 2)" in _ok(
        "show", "1"
    )
    result = runner.invoke(app, ["poll", "--now", "tomorrow"])
    assert result.exit_code == 2 and "not an ISO 8601 time" in result.output


def test_a_bad_duration_in_the_config_names_the_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('reminders = ["50%", "soon"]\n')
    result = runner.invoke(app, ["list", "--config", str(bad)])
    assert result.exit_code == 2
    assert "'reminders': 'soon' is not a duration" in result.output


def test_serve_fires_a_deadline_that_passed_before_it_started(tmp_path: Path) -> None:
    """The deadline lives in the database: `pbem serve` finds it due on start-up."""
    created = datetime.now(UTC) - timedelta(hours=2)
    _ok(
        "new-game",
        "--player",
        "Ann:ann@example.test",
        "--player",
        "Bob:bob@example.test",
        "--deadline",
        "1h",
        "--now",
        created.isoformat(),
    )
    config = tmp_path / "fast.toml"
    config.write_text("poll_seconds = 0.2\noutbox_seconds = 0.2\n")
    command = [str(Path(sys.executable).parent / "pbem"), "serve", "--config", str(config)]
    server = subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    database = tmp_path / "pbem-data" / "pbem.sqlite"
    try:
        waited = time.monotonic() + 600  # a bound for a loaded machine, not a figure
        moves: list[tuple[str, str]] = []
        while not moves and time.monotonic() < waited:
            time.sleep(0.1)
            with closing(sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True)) as reader:
                moves = reader.execute("SELECT choice, source FROM move").fetchall()
    finally:
        server.send_signal(signal.SIGTERM)
        _, log = server.communicate(timeout=600)
    assert moves == [("place Tonga a", "auto")]
    assert "deadline passed, automatic move for seat 1 (Ann, blue): place Tonga a" in log
    assert server.returncode == 0


def test_one_service_per_database(tmp_path: Path) -> None:
    """A second `serve` or a `poll` beside a running `serve` would send waiting mail twice."""
    _ok("new-game", "--player", "Ann:ann@example.test", "--bot", "Kai:greedy")
    command = [str(Path(sys.executable).parent / "pbem"), "serve"]
    server = subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        while "serving:" not in server.stderr.readline():
            assert server.poll() is None, "pbem serve stopped"
        for args in (["poll"], ["serve"]):
            refused = runner.invoke(app, args)
            assert refused.exit_code == 3  # not 2 (bad settings): systemd tries again later
            said = " ".join(refused.output.split())
            assert (
                f"error: pbem (pid {server.pid}) is serving pbem-data/pbem.sqlite already; "
                "run one service per database" in said
            ), said
    finally:
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=600)
    assert server.returncode == 0
    assert "handled 0 messages" in _ok("poll")  # the lock went with the service


def test_show_says_when_the_game_master_ended_or_paused_the_game() -> None:
    _ok("new-game", "--player", "Ann:ann@example.test", "--player", "Bob:bob@example.test")
    shown = _ok("show", "1")
    assert (
        "Now waiting for Ann (blue) to put a set-up boat on a beach of Tonga (decision 1)" in shown
    )
    assert "The deadline is" in shown  # what `status` says, as `status` says it
    _ok("gm", "1", "pause")
    shown = _ok("show", "1")
    assert "The game master paused the game at decision 1" in shown
    assert "The deadline is" not in shown
    _ok("gm", "1", "resume")
    _ok("gm", "1", "end")
    shown = _ok("show", "1")
    assert shown.rstrip().endswith("The game is over.") and "waiting" not in shown


@pytest.mark.parametrize(
    ("journal", "starts"),
    [pytest.param(False, r"\d{4}-\d\d-\d\d \d\d:", marks=pytest.mark.slow), (True, "INFO ")],
)
def test_log_lines_carry_a_time_except_in_systemds_journal(
    tmp_path: Path, journal: bool, starts: str
) -> None:
    _ok("new-game", "--player", "Ann:ann@example.test", "--player", "Bob:bob@example.test")
    env = {k: v for k, v in os.environ.items() if k not in ("JOURNAL_STREAM", "PBEM_CONFIG")}
    if journal:
        env["JOURNAL_STREAM"] = "8:12345"
    command = [str(Path(sys.executable).parent / "pbem"), "poll"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines and all(re.match(starts, line) for line in lines), lines
    assert any("mail 1 sent to ann@example.test (game 1)" in line for line in lines)


def test_new_game_with_observers_who_may_talk() -> None:
    _ok(
        "new-game",
        "--player",
        "Ann:ann@example.test",
        "--player",
        "Bob:bob@example.test",
        "--observer",
        "olga@example.test:Olga",
        "--observer",
        "oz@example.test",
        "--observers-talk",
    )
    settings = Settings()
    service = Service(open_database(settings.database), settings)
    mails = take_mail(service)
    watch = {str(m["To"]): m for m in mails if m["X-Tongiaki-Kind"] == "watch"}
    assert sorted(watch) == ["olga@example.test", "oz@example.test"]
    ann = [m for m in mails if m["To"] == "ann@example.test"][-1]  # her prompt
    assert "Watching: Olga, Observer 1." in " ".join(text_of(ann).split())
    assert "oz@" not in text_of(ann)  # an observer without a name is not named by address
    olga = watch["olga@example.test"]
    assert handle(service, reply_to(olga, "say Fair winds!"), START) == "applied"
    take_mail(service)
    assert handle(service, reply_to(ann, "status"), START) == "answered"
    (answer,) = take_mail(service)
    assert "Olga (watching) to the table: Fair winds!" in text_of(answer)
