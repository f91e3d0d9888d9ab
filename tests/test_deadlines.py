"""Deadlines in simulated time: reminders, automatic moves, absence, vacation, time zones,
and fresh time after the service was down."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import col, select

from engine import Phase, State, parse_choice
from pbem.commands.clock import automatic_choice
from pbem.core.clock import DurationError, Reminder, as_utc, parse_reminders, reminder_times
from pbem.core.config import Settings
from pbem.core.kinds import GameStatus
from pbem.flow.deadlines import LAST_TICK, TickReport, send_held, tick
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.game import decision_clock
from pbem.game.table import bot_choice
from pbem.store.db import session
from pbem.store.models import Game, Move, Seat, Setting
from tests.support.localmail import START, local_service, reply_to, take_mail, text_of

ANN, BOB, GM = "ann@example.test", "bob@example.test", "gm@example.test"
HOUR = timedelta(hours=1)


@pytest.fixture
def service(tmp_path: Path) -> Service:
    return local_service(tmp_path)


def _game(service: Service, hours: int = 48, gm: str | None = GM) -> int:
    seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")]
    return service.new_game(seats, seed=4, deadline_seconds=hours * 3600, gm=gm, now=START)


def _row(service: Service, game: int = 1) -> tuple[Game, list[Seat], State]:
    with session(service.engine) as db:
        table = service.table(db, game, START)
        db.commit()
    return table.game, table.seats, table.state


def _utc(moment: datetime | None) -> datetime:
    assert moment is not None
    return as_utc(moment)


def _run(service: Service, start: datetime, end: datetime, step: timedelta) -> TickReport:
    """Tick from `start` to `end` (both included) every `step`, adding up what was done."""
    total = TickReport()
    at = start
    while at <= end:
        done = tick(service, at)
        total.reminders += done.reminders
        total.automatic += done.automatic
        total.graced += done.graced
        at += step
    return total


def _subjects(mails: list[EmailMessage], to: str) -> list[str]:
    return [str(m["Subject"]).split("] ", 1)[1] for m in mails if m["To"] == to]


def _moves(service: Service) -> list[tuple[int, str, str]]:
    with session(service.engine) as db:
        rows = db.exec(select(Move).order_by(col(Move.number)))
        return [(m.seat, m.choice, m.source) for m in rows]


def _prompt(mails: list[EmailMessage], to: str) -> EmailMessage:
    return next(m for m in mails if m["To"] == to and m["X-Tongiaki-Decision"])


def test_reminders_are_read_once_with_the_settings_into_times_before_the_deadline() -> None:
    settings = Settings(reminders=("50%", "6h", " 90m "))
    assert settings.parsed_reminders == (
        Reminder(percent=50),
        Reminder(seconds=6 * 3600),
        Reminder(seconds=90 * 60),
    )
    assert settings.parsed_reminders is settings.parsed_reminders  # parsed once, then kept
    times = reminder_times(START, START + 8 * HOUR, settings.parsed_reminders)
    assert times == [START + 2 * HOUR, START + 4 * HOUR, START + 6.5 * HOUR]
    for bad in (("150%",), ("0%",), ("½%",), ("soon",)):
        with pytest.raises(DurationError):
            parse_reminders(bad)


def test_the_first_decision_has_its_deadline_and_the_prompt_shows_it(service: Service) -> None:
    _game(service, hours=48)
    game, _, _ = _row(service)
    assert as_utc(game.clock_from) == START
    assert as_utc(game.deadline_at) == START + timedelta(days=2)
    assert as_utc(game.wake_at) == START + timedelta(days=1)  # the half-time reminder
    prompt = _prompt(take_mail(service), ANN)
    assert "Deadline: Wed 25 Nov 2026, 09:00 UTC" in text_of(prompt)


def test_reminders_come_at_half_time_and_six_hours_before_and_only_once(
    service: Service,
) -> None:
    _game(service)
    take_mail(service)
    done = _run(service, START, START + 47 * HOUR + timedelta(minutes=45), timedelta(minutes=15))
    assert done.reminders == 2 and done.automatic == 0
    mails = take_mail(service)
    assert _subjects(mails, ANN) == [
        "Reminder: place a set-up boat on Tonga (decision 1)",
        "Reminder: place a set-up boat on Tonga (decision 1)",
    ]
    assert [str(m["Date"]) for m in mails] == [
        "Tue, 24 Nov 2026 09:00:00 +0000",  # 24 h in: half-time
        "Wed, 25 Nov 2026 03:00:00 +0000",  # 6 h before the deadline
    ]
    assert "If no answer comes by Wed 25 Nov 2026, 09:00 UTC" in text_of(mails[0])
    assert mails[0]["Reply-To"] and "-0-1-" in str(mails[0]["Reply-To"])
    assert _moves(service) == []


def test_a_reply_stops_the_clock_and_the_next_decision_gets_its_own(service: Service) -> None:
    _game(service)
    prompt = _prompt(take_mail(service), ANN)
    assert handle(service, reply_to(prompt, "place Tonga a"), START + 30 * HOUR) == "applied"
    game, _, _ = _row(service)
    assert as_utc(game.clock_from) == START + 30 * HOUR
    assert as_utc(game.deadline_at) == START + 78 * HOUR
    take_mail(service)
    done = _run(service, START + 31 * HOUR, START + 53 * HOUR, HOUR)
    assert done.reminders == 0 and done.automatic == 0  # Ann's reminders are gone with her turn
    done = _run(service, START + 54 * HOUR, START + 54 * HOUR, HOUR)
    assert done.reminders == 1
    assert _subjects(take_mail(service), BOB) == [
        "Reminder: place a set-up boat on Tonga (decision 2)"
    ]


def test_nobody_but_the_clock_makes_the_automatic_move(service: Service) -> None:
    """The clock's line (`automatic`) is no command of a player's, a game master's or a
    stranger's mail: written in a reply it is refused and changes nothing."""
    _game(service, hours=1)
    mails = take_mail(service)
    for to in (ANN, GM):
        mail = next(m for m in mails if m["To"] == to)
        assert handle(service, reply_to(mail, "automatic"), START + HOUR / 2) == "rejected"
    assert _moves(service) == []
    assert tick(service, START + HOUR).automatic == 1  # the clock's, at the deadline
    assert _moves(service) == [(0, "place Tonga a", "auto")]


def test_a_set_up_deadline_puts_the_boat_on_the_first_free_beach(service: Service) -> None:
    _game(service, hours=1)
    take_mail(service)
    assert tick(service, START + HOUR - timedelta(seconds=1)).automatic == 0
    assert _subjects(take_mail(service), ANN) == [
        "Reminder: place a set-up boat on Tonga (decision 1)"
    ]
    assert tick(service, START + HOUR).automatic == 1
    assert tick(service, START + HOUR).automatic == 0  # fired once
    assert _moves(service) == [(0, "place Tonga a", "auto")]
    mails = take_mail(service)
    told = (
        "No answer from Ann (red) to decision 1 by its deadline: the boat went on the first "
        "free beach (place Tonga a)."
    )
    ann = next(m for m in mails if m["To"] == ANN)
    bob = _prompt(mails, BOB)
    assert " ".join(text_of(ann).split()).count(told) == 1
    assert told in " ".join(text_of(bob).split())
    assert str(bob["Subject"]).endswith("Your move: place a set-up boat on Tonga (decision 2)")
    game, seats, _ = _row(service)
    assert seats[0].auto_moves == 1 and not seats[0].absent
    assert as_utc(game.deadline_at) == START + 2 * HOUR


def _to_first_turn(service: Service) -> None:
    """Both players place their set-up boats by mail (decisions 1-4): red and blue on
    beaches a and c of Tonga."""
    for number, (address, line) in enumerate(
        [(ANN, "place Tonga a"), (BOB, "place Tonga a"), (ANN, "place Tonga c"), (BOB, "place c")],
        start=1,
    ):
        prompt = _prompt(take_mail(service), address)
        at = START + timedelta(minutes=number)
        assert handle(service, reply_to(prompt, line), at) == "applied"


def test_a_missed_turn_is_passed_and_a_missed_decision_in_a_turn_takes_the_greedy_choice(
    service: Service,
) -> None:
    _game(service, hours=1)
    _to_first_turn(service)
    _, _, state = _row(service)
    assert state.decision is not None and state.decision.kind is Phase.TURN
    assert state.decision.seat == 0
    take_mail(service)
    tick(service, START + timedelta(minutes=4) + HOUR)
    assert _moves(service)[-1] == (0, "pass", "auto")
    mails = take_mail(service)
    assert "the turn was passed (the house rule for a missed turn)" in " ".join(
        text_of(_prompt(mails, BOB)).split()
    )
    # Bob fills beaches a and c: which of them emigrates first is a decision inside his turn
    prompt = _prompt(mails, BOB)
    at = START + 2 * HOUR
    assert handle(service, reply_to(prompt, "expand Tonga a,c"), at) == "applied"
    game, _, state = _row(service)
    assert state.decision is not None and state.decision.kind is Phase.EMIGRATE
    expected = bot_choice(game, state, "greedy")
    assert automatic_choice(game, state) == (
        expected,
        f"the game chose what the greedy bot would ({expected})",
    )
    take_mail(service)
    tick(service, at + HOUR)
    assert _moves(service)[-1] == (1, str(expected), "auto")
    told = "No answer from Bob (blue) to decision 7 by its deadline: the game chose what"
    assert told in " ".join(text_of(take_mail(service)[0]).split())


def test_automatic_choice_by_kind_of_decision(service: Service) -> None:
    _game(service)
    game, _, state = _row(service)
    assert str(automatic_choice(game, state)[0]) == "place Tonga a"
    for line in ("place Tonga a", "place Tonga b", "place Tonga a", "place Tonga b"):
        state.apply(parse_choice(line))
    assert str(automatic_choice(game, state)[0]) == "pass"


def test_three_missed_deadlines_make_a_seat_absent_until_the_player_writes(
    service: Service,
) -> None:
    _absent_after_three_missed_deadlines(service, "all")


def test_a_player_who_gets_only_the_mails_of_their_turns_is_told_they_are_absent(
    service: Service,
) -> None:
    _absent_after_three_missed_deadlines(service, "turns")


def _absent_after_three_missed_deadlines(service: Service, mode: str) -> None:
    _game(service, hours=1)
    take_mail(service)
    with session(service.engine) as db:
        ann_seat = db.exec(select(Seat).where(Seat.address == ANN)).one()
        ann_seat.mail_mode = mode  # type: ignore[assignment]
        db.add(ann_seat)
        db.commit()
    at = START + HOUR
    tick(service, at)  # Ann's first set-up boat
    bob = _prompt(take_mail(service), BOB)
    handle(service, reply_to(bob, "place Tonga b"), at + timedelta(minutes=1))
    take_mail(service)
    tick(service, at + timedelta(minutes=1) + HOUR)  # Ann's second set-up boat
    bob = _prompt(take_mail(service), BOB)
    handle(service, reply_to(bob, "place Tonga d"), at + 2 * HOUR)
    take_mail(service)
    _, seats, _ = _row(service)
    assert seats[0].auto_moves == 2 and not seats[0].absent
    tick(service, at + 3 * HOUR)  # Ann's first turn: passed, the third automatic move
    mails = take_mail(service)
    _, seats, state = _row(service)
    assert seats[0].absent and seats[0].auto_moves == 3
    assert _moves(service)[4] == (0, "pass", "auto")
    gm = [m for m in mails if m["To"] == GM]
    assert len(gm) == 1 and "Ann (red) is absent" in str(gm[0]["Subject"])
    told = " ".join(text_of(gm[0]).split())
    assert "to someone else (replace 1 ADDRESS [NAME]) or to a bot for good (kick 1)." in told
    assert "-gm-" in str(gm[0]["Reply-To"])
    ann = next(m for m in mails if m["To"] == ANN)
    assert "You are marked absent" in text_of(ann)
    assert "You are marked absent in game 1" in str(ann["Subject"])  # not a routine subject
    assert "is marked absent" in " ".join(text_of(_prompt(mails, BOB)).split())

    # from now on Ann's decisions are made by the greedy bot at once, without a deadline:
    # when Bob's turn is passed at his deadline, Ann's turn is played by the bot at once
    assert state.decision is not None and state.decision.seat == 1
    tick(service, at + 4 * HOUR)
    moves = _moves(service)
    assert moves[5] == (1, "pass", "auto")
    assert moves[6][0] == 0 and moves[6][2] == "absent"
    _, _, state = _row(service)
    assert state.decision is not None and state.decision.seat == 1
    mails = take_mail(service)
    news = [m for m in mails if m["To"] == ANN]
    assert len(news) == (mode == "all")  # the bot's moves are news, by her mail mode
    ann = news[0] if news else ann
    # Ann comes back with any valid command, here `status`, in reply to any game mail
    assert handle(service, reply_to(ann, "status"), at + 5 * HOUR) == "answered"
    _, seats, _ = _row(service)
    assert not seats[0].absent and seats[0].auto_moves == 0
    send_held(service, at + 5 * HOUR)  # no move: one short line to the others, no prompt
    told = [m for m in take_mail(service) if m["To"] == BOB]
    assert [m["X-Tongiaki-Decision"] for m in told] == [None]
    assert "Ann (red) is back and plays again." in " ".join(text_of(told[0]).split())


def test_a_rejected_line_does_not_bring_an_absent_player_back(service: Service) -> None:
    _game(service, hours=1)
    with session(service.engine) as db:
        seat = db.exec(select(Seat).where(Seat.seat == 1)).one()
        seat.absent = True
        db.commit()
    mails = take_mail(service)
    bob = next(m for m in mails if m["To"] == BOB)
    assert handle(service, reply_to(bob, "fly away"), START + HOUR / 2) == "rejected"
    _, seats, _ = _row(service)
    assert seats[1].absent


def test_vacation_pushes_the_deadline_and_is_bounded(service: Service) -> None:
    _game(service)
    prompt = _prompt(take_mail(service), ANN)
    at = START + 10 * HOUR
    assert handle(service, reply_to(prompt, "vacation 3d"), at) == "applied"
    game, seats, _ = _row(service)
    assert as_utc(game.deadline_at) == START + timedelta(days=5)
    assert as_utc(seats[0].away_until) == at + timedelta(days=3)
    assert seats[0].vacation_used == 3 * 86400
    mails = take_mail(service)
    ann = next(m for m in mails if m["To"] == ANN)
    assert "applied: you are away until Thu 26 Nov 2026, 19:00 UTC" in " ".join(
        text_of(ann).split()
    )
    assert "(4 days of vacation left)" in " ".join(text_of(ann).split())
    assert "Deadline: Sat 28 Nov 2026, 09:00 UTC" in text_of(ann)
    assert [m["To"] for m in mails] == [ANN]  # the others hear of it once it was on an hour
    assert tick(service, at + HOUR / 2).vacations == 0
    assert take_mail(service) == []
    assert tick(service, at + HOUR).vacations == 1
    (bob,) = take_mail(service)  # Ann hears no more of her own vacation
    assert bob["To"] == BOB
    assert "Ann (red) is on vacation until Thu 26 Nov 2026, 19:00 UTC" in " ".join(
        text_of(bob).split()
    )
    assert tick(service, at + 2 * HOUR).vacations == 0  # told once
    # Bob's `status` says why the deadline is days away, and says the deadline once
    assert handle(service, reply_to(bob, "status"), at + HOUR / 2) == "answered"
    status = " ".join(text_of(next(m for m in take_mail(service) if m["To"] == BOB)).split())
    assert (
        "The deadline is Sat 28 Nov 2026, 09:00 UTC. Ann (red) is on vacation until Thu 26 Nov "
        "2026, 19:00 UTC: their deadlines wait." in status
    )
    assert status.count("28 Nov 2026") == 1
    # the clock moved by the vacation: half-time is at hour 96 now, not 24
    assert _run(service, at, START + 95 * HOUR, HOUR).reminders == 0
    assert _run(service, START + 96 * HOUR, START + 96 * HOUR, HOUR).reminders == 1
    take_mail(service)

    assert handle(service, reply_to(prompt, "vacation 5d"), at + HOUR) == "rejected"
    text = " ".join(text_of(next(m for m in take_mail(service) if m["To"] == ANN)).split())
    assert "You have 4 days of vacation left in this game (of 7 days)" in text
    _, seats, _ = _row(service)
    assert seats[0].vacation_used == 3 * 86400


def test_a_decision_that_opens_during_a_vacation_counts_from_its_end(service: Service) -> None:
    _game(service, hours=24)
    mails = take_mail(service)
    bob = next(m for m in mails if m["To"] == BOB)
    assert handle(service, reply_to(bob, "vacation 2d"), START + HOUR) == "applied"
    ann = _prompt(mails, ANN)
    assert handle(service, reply_to(ann, "1"), START + 2 * HOUR) == "applied"
    game, _, _ = _row(service)
    assert as_utc(game.clock_from) == START + HOUR + timedelta(days=2)
    assert as_utc(game.deadline_at) == START + HOUR + timedelta(days=3)


def test_tz_shows_deadlines_in_the_players_zone_too(service: Service) -> None:
    _game(service)
    prompt = _prompt(take_mail(service), ANN)
    assert handle(service, reply_to(prompt, "tz europe/berlin"), START + HOUR) == "applied"
    _, seats, _ = _row(service)
    assert seats[0].tz == "Europe/Berlin"
    text = text_of(next(m for m in take_mail(service) if m["To"] == ANN))
    assert "applied: your deadlines are shown in Europe/Berlin (and in UTC)" in text
    assert "Deadline: Wed 25 Nov 2026, 09:00 UTC (Wed 25 Nov, 10:00 Europe/Berlin)" in text
    assert handle(service, reply_to(prompt, "tz Mars/Olympus"), START + HOUR) == "rejected"
    assert "'Mars/Olympus' is not a time zone" in text_of(take_mail(service)[0])
    assert handle(service, reply_to(prompt, "tz utc"), START + HOUR) == "applied"
    _, seats, _ = _row(service)
    assert seats[0].tz is None


def test_after_downtime_a_passed_deadline_gets_fresh_time_not_an_automatic_move(
    service: Service,
) -> None:
    _game(service, hours=24)
    take_mail(service)
    tick(service, START + HOUR)
    back = START + 40 * HOUR  # down from hour 1 to hour 40: longer than the 6 h grace
    done = tick(service, back)
    assert done.graced == 1 and done.automatic == 0 and done.reminders == 0
    game, _, _ = _row(service)
    assert as_utc(game.deadline_at) == back + 6 * HOUR
    mails = take_mail(service)
    told = (
        "The game service was not running from Mon 23 Nov 2026, 10:00 UTC to Wed 25 Nov "
        "2026, 01:00 UTC, and the deadline of decision 1 passed meanwhile. It is now Wed 25 "
        "Nov 2026, 07:00 UTC (6 hours from now)."
    )
    for mail in mails:
        assert told in " ".join(text_of(mail).split())
    assert _subjects(mails, BOB) == ["Deadline moved: the service was down"]
    assert _subjects(mails, ANN) == ["Your move: place a set-up boat on Tonga (decision 1)"]
    assert _run(service, back + HOUR, back + 5 * HOUR, HOUR).automatic == 0
    assert tick(service, back + 6 * HOUR).automatic == 1


def test_a_tick_writes_its_time_once_a_minute_and_a_downtime_is_still_seen(
    service: Service,
) -> None:
    """A poll's tick reads when the service last ran and writes it only when that is a
    minute old (NOTE_EVERY): ticks every 10 s write at 0, 60 and 120 s."""
    _game(service, hours=24)
    take_mail(service)
    for seconds in range(0, 150, 10):
        assert tick(service, START + timedelta(seconds=seconds)).graced == 0
    with session(service.engine) as db:
        noted = db.get(Setting, LAST_TICK)
        assert noted is not None
        assert as_utc(datetime.fromisoformat(noted.value)) == START + timedelta(minutes=2)
    assert tick(service, START + 40 * HOUR).graced == 1  # down longer than the 6 h grace


def test_a_short_outage_fires_the_passed_deadline_at_once(service: Service) -> None:
    _game(service, hours=2)
    tick(service, START + HOUR)
    done = tick(service, START + 4 * HOUR)  # 3 h without a tick: within the grace
    assert done.automatic == 1 and done.graced == 0
    assert _moves(service) == [(0, "place Tonga a", "auto")]


def test_when_every_player_is_absent_the_game_waits_for_the_deadlines(tmp_path: Path) -> None:
    service = local_service(tmp_path, absence_after=1)
    _game(service, hours=1)
    tick(service, START + HOUR)  # Ann misses her set-up boat: absent
    tick(service, START + 2 * HOUR)  # Bob misses his: absent too
    _, seats, state = _row(service)
    assert all(s.absent for s in seats)
    assert len(_moves(service)) == 2 and state.decision is not None
    report = _run(service, START + 2 * HOUR, START + 6 * HOUR, timedelta(minutes=10))
    assert report.automatic == 4  # one decision per deadline, no more
    assert [source for _, _, source in _moves(service)] == ["auto"] * 6
    _, _, state = _row(service)
    assert state.decision is not None  # the game goes on, slowly, for whoever comes back


def test_pause_and_resume_stop_and_run_the_game_with_its_clock() -> None:
    game = Game(created_at=START, colours="red,blue", stack="")
    reminders = Settings().parsed_reminders
    decision_clock.start(game, seconds=48 * 3600, away_until=None, reminders=reminders, now=START)
    assert _utc(game.wake_at) == START + 24 * HOUR  # the reminder at half-time
    assert decision_clock.pause(game, START + 10 * HOUR) == 38 * 3600
    assert (game.status, game.wake_at, game.paused_left) == (GameStatus.PAUSED, None, 38 * 3600)
    decision_clock.resume(game, reminders, START + 30 * HOUR)  # no status set beforehand
    assert game.status is GameStatus.RUNNING and game.paused_left is None
    assert _utc(game.deadline_at) == START + 68 * HOUR  # the 38 h it had left
    assert _utc(game.wake_at) == START + 44 * HOUR  # its half-time, 20 h after the pause
    assert decision_clock.wake_time(game, reminders, START + 30 * HOUR) == game.wake_at


def test_only_the_decision_clock_writes_the_clock_of_a_game() -> None:
    """`pbem/game/decision_clock.py` is the one writer of the clock's columns of `Game`."""
    columns = ("clock_from", "deadline_at", "reminded_at", "wake_at", "paused_left")
    writes = re.compile(rf"\.({'|'.join(columns)})\s*=[^=]")
    package = Path(__file__).resolve().parent.parent / "pbem"
    writers = sorted(
        path.name
        for path in package.rglob("*.py")
        if writes.search(path.read_text()) and path.name != "models.py"
    )
    assert writers == ["decision_clock.py"]
