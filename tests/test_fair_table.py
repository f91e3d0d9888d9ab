"""A fair table (issue 27): one person's commands that move nothing (a vacation switched on
and off, talk) mail each other reader a bounded number of times a day and make a bounded
digest; a vacation uses the hours it was on; talk reaches the game master past the
speaker's answer budget and ends with the game; a person trying commands is answered
generously while an autoresponder stays bounded. Against a stranger, a replay and a
service killed with SIGKILL mid-poll too."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import col, select

from pbem.flow.deadlines import tick
from pbem.flow.gm import GameMaster
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.host.runner import run_cycle
from pbem.host.transport import MaildirInbox
from pbem.mail_out import policy
from pbem.mail_out.mailing import HELD_LINES
from pbem.store.db import session
from pbem.store.models import Held, Inbound, Move, Seat, Talk
from tests.support.localmail import (
    START,
    handled,
    killed_mid_batch,
    later,
    local_service,
    poll_command,
    reply_to,
    take_mail,
    text_of,
)
from tests.test_open_address import _out_of_office

ANN, BOB, CY = "ann@example.test", "bob@example.test", "cy@example.test"
GM, OLGA, EVE = "gm@example.test", "olga@example.test", "eve@example.test"
HOUR = timedelta(hours=1)
BUDGET = 10  # the default answers_per_day
COMMAND_BUDGET = 40  # the default command_answers_per_day
CAUSED = 3  # the default caused_per_day


def _game(service: Service) -> dict[str, EmailMessage]:
    """Ann (whose set-up decision is open), Bob and Cy, a game master and Olga watching;
    the newest mail of each."""
    seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue"), SeatSpec("Cy", CY, "green")]
    service.new_game(seats, seed=4, gm=GM, observers=[(OLGA, "Olga")], now=START)
    return {str(m["To"]): m for m in take_mail(service)}


def _seat(service: Service, number: int) -> Seat:
    with session(service.engine) as db:
        return db.exec(select(Seat).where(Seat.seat == number)).one()


def _flat(mail: EmailMessage) -> str:
    return " ".join(text_of(mail).split())


def _off(n: int) -> str:
    """`vacation off`, written a little differently each time (else it is a replay)."""
    return "vacation off" + "." * n


def test_vacations_switched_on_and_off_in_one_mail_tell_nobody_and_use_an_hour_each(
    tmp_path: Path,
) -> None:
    """The trial of the issue: 14 pairs a mail, a new number each time; 30 mails."""
    service = local_service(tmp_path)
    latest = _game(service)
    answers = 0
    used = []
    for n in range(30):
        pairs = [f"vacation {360 + 14 * n + k}m\n{_off(k)}" for k in range(14)]
        outcome = handle(service, reply_to(latest[ANN], "\n".join(pairs)), later(1 + n))
        assert outcome in ("applied", "rejected")
        mails = take_mail(service)
        assert {str(m["To"]) for m in mails} <= {ANN}  # nobody else hears of any of it
        answers += len(mails)
        used.append(_seat(service, 0).vacation_used)
    assert used[0] == 14 * 3600  # each vacation uses at least an hour
    allowance = 7 * 24 * 3600
    assert used == sorted(used) and allowance - 14 * 3600 < used[-1] <= allowance
    ann = _seat(service, 0)
    assert (ann.away_until, ann.away_told) == (None, False)
    assert tick(service, later(24 * 60)).vacations == 0
    assert {str(m["To"]) for m in take_mail(service)} <= {ANN}
    assert answers == 30  # her own commands: each mail answered


def test_a_hostile_players_vacations_mail_each_other_reader_a_bounded_number_of_times(
    tmp_path: Path,
) -> None:
    """Ann switches a vacation on, lets it be told (an hour), switches it off, again and
    again for 30 rounds (31 hours): Bob (every mail), Cy (a digest) and Olga (watching) get
    at most `caused_per_day` mails of it in any 24 hours, the rest waits in a bounded form,
    and every vacation uses the hours it was on."""
    service = local_service(tmp_path)
    latest = _game(service)
    assert handle(service, reply_to(latest[CY], "mail digest 18"), later(1)) == "applied"
    take_mail(service)
    got: dict[str, list[datetime]] = {BOB: [], OLGA: [], GM: []}
    digests: list[EmailMessage] = []

    def note(now: datetime) -> None:
        for mail in take_mail(service):
            if mail["To"] == CY:
                digests.append(mail)
            else:
                got.setdefault(str(mail["To"]), []).append(now)

    at = START + HOUR
    for n in range(30):
        assert handle(service, reply_to(latest[ANN], f"vacation {400 + n}m"), at) == "applied"
        note(at)
        told = at + HOUR + timedelta(minutes=1)
        assert tick(service, told).vacations == 1
        note(told)
        back = told + timedelta(minutes=1)
        assert handle(service, reply_to(latest[ANN], _off(n)), back) == "applied"
        note(back)
        at += HOUR + timedelta(minutes=3)
    assert got[OLGA] == []  # quiet changes: an observer hears of them with the next move
    for reader in (BOB,):
        times = got[reader]  # Bob's held news came at 8:00 on the second day: the clock's
        if reader == BOB:
            assert times.count(START.replace(hour=8, minute=1) + timedelta(days=1)) == 1
            times.remove(START.replace(hour=8, minute=1) + timedelta(days=1))
        assert CAUSED <= len(times) <= 2 * CAUSED
        assert all(b - a >= timedelta(days=1) for a, b in zip(times, times[CAUSED:], strict=False))
    assert got[GM] == []
    assert len(got[ANN]) == 60  # her own answers: she wrote 60 real commands in 31 hours
    assert _seat(service, 0).vacation_used == 30 * 2 * 3600  # on 62 minutes: 2 hours each
    assert len(digests) == 1  # Cy's, at 18:00 on the first day: Ann's news in a bounded form
    text = _flat(digests[0])
    assert "Your daily digest of game 1" in str(digests[0]["Subject"])
    assert text.count("Ann (red) is") == HELD_LINES
    assert "more lines about Ann (red), left out" in text

    # Bob's next mail due anyway (Ann's move) tells the news that waited, in a bounded form
    assert handle(service, reply_to(latest[ANN], "1"), at) == "applied"
    bob = next(m for m in take_mail(service) if m["To"] == BOB)
    text = _flat(bob)
    assert text.count("Ann (red) is") == HELD_LINES
    assert "more lines about Ann (red), left out" in text
    with session(service.engine) as db:
        assert db.exec(select(Held).where(Held.seat == 1)).all() == []

    # Cy's next digest: HELD_LINES lines of Ann's, how many more there were, and the move
    assert tick(service, (at + timedelta(days=1)).replace(hour=18, minute=5)).digests == 1
    (digest,) = [m for m in take_mail(service) if m["To"] == CY]
    text = _flat(digest)
    assert text.count("Ann (red) is") == HELD_LINES
    assert "more lines about Ann (red), left out" in text
    assert "Red put 1 boat on Tonga" in text  # news of the game: all of it


def test_news_held_for_a_reader_who_gets_every_mail_goes_at_their_digest_hour(
    tmp_path: Path,
) -> None:
    """With nobody moving, the news that waited past the bound comes once a day, at the
    reader's digest hour (8:00 UTC by default), in one mail."""
    service = local_service(tmp_path, caused_per_day=1)
    latest = _game(service)
    assert handle(service, reply_to(latest[ANN], "vacation 6h"), later(1)) == "applied"
    assert [str(m["To"]) for m in take_mail(service)] == [ANN]
    assert tick(service, later(62)).vacations == 1  # a quiet change: observers hear it later
    assert sorted(str(m["To"]) for m in take_mail(service)) == [BOB, CY]
    assert handle(service, reply_to(latest[ANN], "vacation 1d"), later(63)) == "applied"
    assert [str(m["To"]) for m in take_mail(service)] == [ANN]  # longer: waits for the others
    assert tick(service, later(120)).digests == 0
    assert take_mail(service) == []
    mails = take_mail_at(service, START.replace(hour=8, minute=1) + timedelta(days=1))
    bob, cy = sorted(mails, key=lambda m: str(m["To"]))
    assert str(bob["Subject"]) == "[Tongiaki g1] News of game 1 held for you"
    assert "Ann (red) is on vacation until Tue 24 Nov 2026, 15:01 UTC" in _flat(bob)
    assert str(cy["To"]) == CY


def take_mail_at(service: Service, now: datetime) -> list[EmailMessage]:
    """The mails a tick at `now` sends."""
    tick(service, now)
    return take_mail(service)


def test_a_vacation_and_its_end_within_the_hour_tell_nobody_a_later_end_tells_everyone(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    latest = _game(service)
    assert handle(service, reply_to(latest[BOB], "vacation 6h"), later(1)) == "applied"
    assert handle(service, reply_to(latest[BOB], "vacation off"), later(59)) == "applied"
    assert {str(m["To"]) for m in take_mail(service)} == {BOB}
    assert tick(service, later(200)).vacations == 0
    assert take_mail(service) == []
    assert _seat(service, 1).vacation_used == 3600  # on 58 minutes: an hour

    assert handle(service, reply_to(latest[BOB], "vacation 7h"), later(300)) == "applied"
    take_mail(service)
    assert tick(service, later(361)).vacations == 1
    assert sorted(str(m["To"]) for m in take_mail(service)) == [ANN, CY]
    assert handle(service, reply_to(latest[BOB], "vacation back"), later(420)) == "applied"
    told = take_mail(service)
    assert [str(m["To"]) for m in told] == [BOB]
    told = take_mail_at(service, later(420))  # the others' short line, with the clock
    assert sorted(str(m["To"]) for m in told) == [ANN, CY]
    ann = next(m for m in told if m["To"] == ANN)
    assert "Bob (blue) is back from vacation." in _flat(ann)
    assert _seat(service, 1).vacation_used == 3600 + 2 * 3600  # on 2 hours


def test_a_stranger_or_a_replay_sets_no_vacation_and_tells_nothing(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    latest = _game(service)
    assert handle(service, reply_to(latest[BOB], "vacation 6h", sender=EVE), later(1)) == (
        "refused"
    )
    assert {str(m["To"]) for m in take_mail(service)} <= {BOB}  # Bob hears of it, not Eve
    assert _seat(service, 1).away_until is None
    assert handle(service, reply_to(latest[BOB], "vacation 6h"), later(2)) == "applied"
    assert handle(service, reply_to(latest[BOB], "vacation 6h"), later(3)) == "ignored"
    assert _seat(service, 1).vacation_used == 6 * 3600
    take_mail(service)
    assert tick(service, later(70)).vacations == 1
    assert tick(service, later(80)).vacations == 0
    assert sorted(str(m["To"]) for m in take_mail(service)) == [ANN, CY]


@pytest.mark.slow  # one kill mid-poll per path by default: test_reading_hostile, test_mail_loop
def test_poll_killed_mid_batch_of_vacation_pairs_acts_on_each_once_and_tells_nobody(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path, inbound_batch=5)
    latest = _game(service)
    count = 30  # a vacation switched on and off in each
    MaildirInbox(service.settings.inbox_dir)  # the local mailbox, made as the service makes it
    new = service.settings.inbox_dir / "new"
    for n in range(count):
        body = f"vacation {360 + n}m\n{_off(n)}"
        (new / f"{time.time_ns()}.{n:03}").write_bytes(reply_to(latest[ANN], body))
    database = service.settings.database_path
    before = handled(database)
    killed_at = killed_mid_batch(poll_command(service, tmp_path, later(5)), database)
    assert 0 < killed_at < count, "the kill did not land in the middle of the poll"
    run_cycle(service, later(6))  # the next poll, as the service restarted would make it
    assert handled(database) - before == count
    with session(service.engine) as db:
        outcomes = [i.outcome for i in db.exec(select(Inbound).order_by(col(Inbound.id)))]
    assert outcomes[-count:] == ["applied"] * count
    assert _seat(service, 0).vacation_used == count * 3600  # an hour each, once each
    run_cycle(service, later(180))
    assert {str(m["To"]) for m in take_mail(service)} <= {ANN}


@pytest.mark.parametrize("waiting", ["talk", "news"])
def test_a_poll_killed_while_sending_what_waited_mails_each_reader_once(
    tmp_path: Path, waiting: str
) -> None:
    """The mail the clock sends at a poll's end goes one reader to a transaction: killed
    after the first (SIGKILL), the next poll mails the others, and nobody twice."""
    service = local_service(tmp_path)
    latest = _game(service)
    if waiting == "talk":  # said to the table: mailed once the gathering minutes passed
        assert handle(service, reply_to(latest[ANN], "say Hello table"), later(1)) == "applied"
        readers = [BOB, CY]
    else:  # a quiet change: each player's news at the poll's end
        GameMaster(service).run_host(1, ["extend 1d"], later(1))
        readers = [ANN, BOB, CY]
    take_mail(service)
    database = service.settings.database_path
    command = poll_command(service, tmp_path, later(10))
    killed_mid_batch(command, database, counting="outbox")
    first = take_mail(service)
    assert len(first) == 1 and str(first[0]["To"]) in readers, "the kill did not land between"
    tick(service, later(11))  # the clock's step of the next poll, the service restarted
    rest = take_mail(service)
    assert sorted(str(m["To"]) for m in first + rest) == readers
    tick(service, later(12))
    assert take_mail(service) == []  # nothing waits any more


def test_the_game_master_reads_talk_when_the_speakers_answers_are_spent(tmp_path: Path) -> None:
    service = local_service(tmp_path, gm_reads_talk=True, command_answers_per_day=3)
    latest = _game(service)
    assert handle(service, reply_to(latest[CY], "mail talk now"), later(1)) == "applied"
    take_mail(service)
    for n, look in enumerate(("status", "board", "log"), 2):
        assert handle(service, reply_to(latest[BOB], look), later(n)) == "answered"
    assert [str(m["To"]) for m in take_mail(service)] == [BOB] * 3  # the last says so
    assert handle(service, reply_to(latest[BOB], "help"), later(5)) == "answered"
    assert take_mail(service) == []  # Bob's answers are spent for today
    assert handle(service, reply_to(latest[BOB], "say is anyone there?"), later(6)) == "applied"
    told = take_mail(service)  # the game masters' copy at once; Bob gets no answer
    told += take_mail_at(service, later(6) + policy.TALK_GATHER)  # the players' talk mail
    assert sorted(str(m["To"]) for m in told) == [ANN, CY, GM]
    gm = next(m for m in told if m["To"] == GM)
    assert "Bob (blue) to the table: is anyone there?" in _flat(gm)


def test_talk_ends_with_the_game(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")]
    observers = [(OLGA, "Olga")]
    service.new_game(seats, seed=4, gm=GM, observers=observers, observers_talk=True, now=START)
    latest = {str(m["To"]): m for m in take_mail(service)}
    assert handle(service, reply_to(latest[GM], "end"), later(1)) == "applied"
    over = {str(m["To"]): m for m in take_mail(service)}
    assert "Game over" in str(over[ANN]["Subject"])
    for n, (who, body) in enumerate(
        [
            (ANN, "say buy cheap pills at https://spam.example"),
            (ANN, "tell blue buy cheap pills at https://spam.example"),
            (OLGA, "say buy cheap pills at https://spam.example"),
        ],
        2,
    ):
        assert handle(service, reply_to(over[who], body), later(n)) == "rejected"
        (answer,) = take_mail(service)  # the game is over, said to the sender alone
        assert answer["To"] == who
        assert "The game is over." in _flat(answer)
        assert "https://spam.example" in _flat(answer)  # quoting their own line
    with session(service.engine) as db:
        assert db.exec(select(Talk)).all() == []
    assert handle(service, reply_to(over[BOB], "status"), later(19 * 24 * 60)) == "answered"
    (status,) = take_mail(service)
    assert "spam.example" not in _flat(status)


def test_a_person_trying_commands_gets_more_than_30_answers_a_day(tmp_path: Path) -> None:
    """A seat's own address writing real commands, refused ones too; its typos keep the
    budget of text that is no command, which the real commands do not spend."""
    service = local_service(tmp_path)
    latest = _game(service)
    zones = ("Europe/Berlin", "Europe/Rome", "Europe/Helsinki", "Asia/Tokyo", "America/Lima")
    bodies = [
        *("status", "board", "log", "help", "rules", "log talk"),
        *(f"tz {zone}" for zone in zones),
        *(f"lang {code}" for code in ("it", "nl", "fi", "hu", "he", "en")),
        *(f"mail digest {hour}" for hour in range(6, 12)),
        *("mail all", "mail turns", "mail talk now", "mail talk later"),
        *("vacation 1h", "vacation 2h", "tz Mars/Olympus", "lang xx", "place Tonga a"),
    ]
    assert len(bodies) >= 30
    for n, body in enumerate(bodies, 1):
        outcome = handle(service, reply_to(latest[BOB], body), later(n))
        assert outcome in ("applied", "answered", "rejected"), body
        answers = take_mail(service)
        assert [str(m["To"]) for m in answers] == [BOB], body
    for n in range(BUDGET):  # a typo still gets its answer ("did you mean")
        assert handle(service, reply_to(latest[BOB], f"staus {n}"), later(100 + n)) == "rejected"
        (answer,) = take_mail(service)
        assert "Did you mean status?" in _flat(answer)


def test_an_autoresponder_that_quotes_commands_or_echoes_the_prompt_stays_bounded(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    latest = _game(service)
    for who, write, bound in (
        # the prompt's text echoed, unquoted, after a line of its own (with that line at
        # the end, the lines read, the first 30, are the same each time: a replay)
        (ANN, lambda mail, n: f"(auto-reply {n})\n{text_of(mail)}", BUDGET),
        # a command with a counter: a real command's word, refused
        (BOB, lambda mail, n: f"tz Europe/Nowhere{n}", COMMAND_BUDGET),
    ):
        waiting, received = [latest[who]], 0
        for n in range(1, 61):  # every answer answered again, a new text each time
            for mail in waiting:
                raw = _out_of_office(mail, "reply-to", write(mail, n))
                assert handle(service, raw, later(10 + n)) in ("rejected", "ignored")
            waiting = take_mail(service)
            assert {str(m["To"]) for m in waiting} <= {who}
            received += len(waiting)
        assert received == bound, who
    with session(service.engine) as db:
        assert db.exec(select(Talk)).all() == []
        assert db.exec(select(Move)).all() == []  # nothing was played
