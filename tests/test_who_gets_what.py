"""Who gets which mail (issues 28, 30, 31): the policy as a pure function, and what players
get of quiet changes, table talk at once, the picture and the calendar, where features meet."""

from __future__ import annotations

from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.core.kinds import MailKind, MailMode, PictureChoice
from pbem.flow.deadlines import send_held, tick
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.mail_out import policy
from pbem.mail_out.policy import Calendar, Happening, Reader, Release, Send
from pbem.store.db import session
from pbem.store.models import Seat, Talk
from tests.support.localmail import START, local_service, reply_to, take_mail, text_of
from tests.test_open_address import _out_of_office

ANN, BOB, CY, DEE = "ann@example.test", "bob@example.test", "cy@example.test", "dee@example.test"
GM, OLGA = "gm@example.test", "olga@example.test"
HOUR, MINUTE = timedelta(hours=1), timedelta(minutes=1)
GATHER = policy.TALK_GATHER

# -- the policy, without a database ---------------------------------------------------------

ALL, TURNS, DIGEST = (
    Reader(0, MailMode.ALL),
    Reader(1, MailMode.TURNS),
    Reader(2, MailMode.DIGEST),
)


def _sends(happening: Happening, *readers: Reader) -> dict[int, Send]:
    return {d.seat: d.send for d in policy.deliveries(happening, readers)}


def test_a_quiet_change_is_a_line_for_the_clock_to_every_mail_and_the_digest() -> None:
    quiet = Happening(news=True, quiet=True)
    assert _sends(quiet, ALL, TURNS, DIGEST) == {0: Send.SOON, 2: Send.DIGEST}
    resigned = Reader(3, resigned=True)
    assert _sends(quiet, resigned) == {}


def test_a_deadline_moved_reaches_the_one_who_decides_whatever_their_mode() -> None:
    decides = Reader(1, MailMode.TURNS, decides=True)
    moved = Happening(news=True, quiet=True, deadline_moved=True)
    assert _sends(moved, decides, TURNS) == {1: Send.SOON}  # not the other `mail turns`
    assert _sends(Happening(news=True, quiet=True), decides) == {}


def test_a_move_mails_everyone_now_whoever_decides_and_the_digest_keeps_it() -> None:
    moved = Happening(news=True)
    decides = Reader(1, MailMode.TURNS, decides=True)
    assert _sends(moved, ALL, decides, DIGEST) == {0: Send.NOW, 1: Send.NOW, 2: Send.DIGEST}
    (catching_up,) = [d for d in policy.deliveries(moved, [decides]) if d.catch_up]
    assert catching_up.seat == 1
    over = Happening(news=True, over=True)
    assert _sends(over, Reader(3, MailMode.TURNS, resigned=True)) == {3: Send.NOW}


def test_a_commands_news_is_charged_to_its_sender_who_hears_only_their_answer() -> None:
    vacation = Happening(news=True, quiet=True, sender=0, cause=0)
    found = {d.seat: d for d in policy.deliveries(vacation, [ALL, Reader(1), DIGEST])}
    assert found[0] == policy.Delivery(0, Send.NOW)  # the sender's answer, not charged
    assert found[1].charged and found[1].past_bound is Send.HELD
    assert not found[2].charged and found[2].send is Send.DIGEST  # a digest costs no mail


def test_the_picture_goes_where_the_reader_plans_unless_they_choose() -> None:
    prompts, always, never = PictureChoice.PROMPTS, PictureChoice.ALWAYS, PictureChoice.NEVER
    assert policy.picture(prompts, MailKind.PROMPT) and policy.picture(prompts, MailKind.GAME_OVER)
    assert not policy.picture(prompts, MailKind.UPDATE)
    assert policy.picture(prompts, MailKind.UPDATE, digest=True)
    assert policy.picture(prompts, MailKind.ANSWER, asked=True)  # `board`
    assert policy.picture(always, MailKind.UPDATE)
    assert not policy.picture(never, MailKind.PROMPT)
    assert not policy.picture(never, MailKind.UPDATE, digest=True)


def test_the_calendar_part_only_when_a_deadline_is_set_or_moves() -> None:
    due, later = START + 48 * HOUR, START + 72 * HOUR
    ask = {"decides": True, "asks": True, "deadline": due}
    assert policy.calendar(**ask, sent=None, open=False) is Calendar.REQUEST
    assert policy.calendar(**ask, sent=due, open=True) is Calendar.NONE  # a reminder, status
    assert policy.calendar(**ask | {"deadline": later}, sent=due, open=True) is Calendar.REQUEST
    welcome = ask | {"asks": False}
    assert policy.calendar(**welcome, sent=None, open=False) is Calendar.NONE
    done = {"decides": False, "asks": False, "deadline": None}
    assert policy.calendar(**done, sent=due, open=True) is Calendar.CANCEL
    assert policy.calendar(**done, sent=None, open=False) is Calendar.NONE


def test_talk_waits_a_few_minutes_for_the_lines_after_it() -> None:
    said = [START, START + MINUTE]
    assert not policy.talk_due(said, START + GATHER - MINUTE, talk_now=True)
    assert policy.talk_due(said, START + GATHER, talk_now=True)
    assert not policy.talk_due(said, START + HOUR, talk_now=False)  # `mail talk later`
    assert not policy.talk_due([], START + HOUR, talk_now=True)


def test_held_news_goes_with_the_clock_or_at_the_digest_hour() -> None:
    release = policy.release
    assert release(MailMode.ALL, due=False, soon=True, caused_only=True) is Release.NEWS
    assert release(MailMode.ALL, due=False, soon=False, caused_only=True) is Release.WAIT
    assert release(MailMode.ALL, due=True, soon=False, caused_only=True) is Release.NEWS
    assert release(MailMode.DIGEST, due=False, soon=True, caused_only=False) is Release.NEWS
    assert release(MailMode.DIGEST, due=False, soon=False, caused_only=False) is Release.WAIT
    assert release(MailMode.DIGEST, due=True, soon=False, caused_only=False) is Release.DIGEST


# -- through the service ---------------------------------------------------------------------


def _game(service: Service) -> dict[str, EmailMessage]:
    """Ann (whose set-up decision is open), Bob, Cy and Dee, a game master and Olga
    watching; the newest mail of each."""
    seats = [
        SeatSpec("Ann", ANN, "red"),
        SeatSpec("Bob", BOB, "blue"),
        SeatSpec("Cy", CY, "green"),
        SeatSpec("Dee", DEE, "yellow"),
    ]
    service.new_game(seats, seed=4, gm=GM, observers=[(OLGA, "Olga")], now=START)
    return {str(m["To"]): m for m in take_mail(service)}


def _flat(mail: EmailMessage) -> str:
    return " ".join(text_of(mail).split())


def _parts(mail: EmailMessage) -> list[str]:
    return [p.get_content_type() for p in mail.walk() if not p.is_multipart()]


def _seat(service: Service, number: int) -> Seat:
    with session(service.engine) as db:
        return db.exec(select(Seat).where(Seat.seat == number)).one()


def test_quiet_changes_of_one_poll_are_one_short_mail_per_reader(tmp_path: Path) -> None:
    """`deadline`, `extend` and `unobserve` in three mails of one poll: each player gets one
    mail of three lines with the clock, no prompt again, no board, no picture; the calendar
    update only to Ann, whose deadline moved; Olga, who no longer watches, nothing."""
    service = local_service(tmp_path, answers_per_day=100)
    latest = _game(service)
    gm = latest[GM]
    for n, line in enumerate(("deadline 24h", "extend 1d", "unobserve Olga")):
        assert handle(service, reply_to(gm, line), START + HOUR + n * MINUTE) == "applied"
        answers = take_mail(service)
        assert [m["To"] for m in answers] == [GM]  # the game master's answer, nobody else yet
        gm = answers[0]
    assert tick(service, START + HOUR + 3 * MINUTE).digests == 4  # the end of the poll
    told = {str(m["To"]): m for m in take_mail(service)}
    assert sorted(told) == [ANN, BOB, CY, DEE]
    for address, mail in told.items():
        assert mail["X-Tongiaki-Kind"] == "update" and mail["X-Tongiaki-Decision"] is None
        assert str(mail["Subject"]) == "[Tongiaki g1] News of game 1"
        text = _flat(mail)
        assert "time per decision to 1 day" in text and "1 day more" in text
        assert "Olga no longer watches the game." in text
        assert "THE BOARD" not in text and "image/png" not in _parts(mail)
        calendar = "text/calendar" in _parts(mail)
        assert calendar == (address == ANN), address  # the deadline moved for Ann alone
        assert len(bytes(mail)) < 10_000
    assert "Deadline: Thu 26 Nov 2026, 09:00 UTC" in _flat(told[ANN])
    assert tick(service, START + 2 * HOUR).digests == 0  # nothing twice


def test_a_quiet_change_during_a_vacation_is_one_line_and_the_vacation_stands(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    latest = _game(service)
    assert handle(service, reply_to(latest[BOB], "vacation 2d"), START + HOUR) == "applied"
    take_mail(service)
    away = _seat(service, 1).away_until
    assert handle(service, reply_to(latest[GM], "deadline 24h"), START + 2 * HOUR) == "applied"
    send_held(service, START + 2 * HOUR)
    (to_bob,) = [m for m in take_mail(service) if m["To"] == BOB]
    assert str(to_bob["Subject"]) == "[Tongiaki g1] News of game 1"
    assert "time per decision to 1 day" in _flat(to_bob) and "image/png" not in _parts(to_bob)
    assert _seat(service, 1).away_until == away
    # the vacation's own news an hour after it began is one short line to the others, too
    assert tick(service, START + 2 * HOUR + MINUTE).vacations == 1
    told = take_mail(service)
    assert sorted(str(m["To"]) for m in told) == [ANN, CY, DEE]
    assert all("image/png" not in _parts(m) and "THE BOARD" not in text_of(m) for m in told)


def test_a_move_after_quiet_changes_tells_them_with_it_and_the_clock_sends_nothing_more(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    latest = _game(service)
    assert handle(service, reply_to(latest[GM], "deadline 24h"), START + HOUR) == "applied"
    assert handle(service, reply_to(latest[ANN], "1"), START + HOUR + MINUTE) == "applied"
    told = {str(m["To"]): m for m in take_mail(service) if m["To"] != GM}
    assert "time per decision to 1 day" in _flat(told[CY])  # with the news of Ann's move
    assert tick(service, START + HOUR + 2 * MINUTE).digests == 0


def test_talk_within_a_few_minutes_is_one_mail_and_a_chatty_player_is_bounded(
    tmp_path: Path,
) -> None:
    """Bob talks in bursts all day: each other player gets one mail per burst, at most
    `caused_per_day` (3) a day of his; past that his talk waits for their next mail."""
    service = local_service(tmp_path, command_answers_per_day=200, talk_per_day=200)
    latest = _game(service)
    got: dict[str, int] = {}
    at = START + HOUR
    for burst in range(6):
        for n in range(3):
            body = f"say burst {burst} line {n}"
            assert handle(service, reply_to(latest[BOB], body), at + n * MINUTE) == "applied"
        take_mail(service)  # Bob's answers
        for minute in range(0, 10):
            tick(service, at + minute * MINUTE)
            for mail in take_mail(service):
                got[str(mail["To"])] = got.get(str(mail["To"]), 0) + 1
                if burst == 0:
                    assert "Table talk in game 1" in str(mail["Subject"])
                    assert all(f"burst 0 line {n}" in _flat(mail) for n in range(3))
        at += 2 * HOUR
    assert got == {ANN: 3, CY: 3, DEE: 3}  # no observer: talk reaches them with their mails
    # the rest reaches Ann with her next mail
    assert handle(service, reply_to(latest[ANN], "1"), at) == "applied"
    ann = [m for m in take_mail(service) if m["To"] == ANN][-1]
    assert "burst 5 line 2" in _flat(ann)


def test_talk_later_waits_for_the_next_mail_and_the_clock_sends_it_nothing(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    latest = _game(service)
    assert handle(service, reply_to(latest[CY], "mail talk later"), START + HOUR) == "applied"
    take_mail(service)
    assert handle(service, reply_to(latest[BOB], "say hello"), START + 2 * HOUR) == "applied"
    take_mail(service)
    assert tick(service, START + 2 * HOUR + GATHER).talk == 2  # Ann and Dee
    assert CY not in [m["To"] for m in take_mail(service)]


def test_a_stranger_a_replay_and_an_autoresponder_make_no_talk_mail(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    latest = _game(service)
    said = reply_to(latest[BOB], "say hello")
    assert handle(service, said, START + HOUR) == "applied"
    take_mail(service)
    assert tick(service, START + HOUR + GATHER).talk == 3
    talk = {str(m["To"]): m for m in take_mail(service)}
    # the same mail again, and a stranger's from Bob's reply address
    handle(service, said, START + 2 * HOUR)
    stranger = reply_to(latest[BOB], "say buy pills", sender="eve@example.test")
    handle(service, stranger, START + 2 * HOUR)
    # Ann's out-of-office answers the talk mail, quoting it
    ooo = _out_of_office(talk[ANN], "reply-to", "I am away. say hello to everyone")
    handle(service, ooo, START + 2 * HOUR)
    with session(service.engine) as db:
        assert [t.text for t in db.exec(select(Talk))] == ["hello"]
    take_mail(service)
    assert tick(service, START + 3 * HOUR).talk == 0
    assert take_mail(service) == []


@pytest.mark.parametrize("choice", ["prompts", "never"])
def test_picture_never_leaves_the_digest_without_it(tmp_path: Path, choice: str) -> None:
    service = local_service(tmp_path)
    latest = _game(service)
    body = f"mail digest 18\nmail picture {choice}"
    assert handle(service, reply_to(latest[CY], body), START + HOUR) == "applied"
    (answer,) = take_mail(service)
    assert (
        "the picture of the board comes with your prompts" in _flat(answer)
        if choice == "prompts"
        else "without a picture" in _flat(answer)
    )
    assert _seat(service, 2).picture == choice
    assert handle(service, reply_to(latest[ANN], "1"), START + 2 * HOUR) == "applied"
    assert CY not in [m["To"] for m in take_mail(service)]  # kept for the digest
    tick(service, START.replace(hour=18, minute=1))
    (digest,) = [m for m in take_mail(service) if m["To"] == CY]
    assert "daily digest" in str(digest["Subject"]) and "THE BOARD" in text_of(digest)
    assert ("image/png" in _parts(digest)) == (choice == "prompts")


def test_updates_carry_no_picture_and_the_one_who_decides_gets_it(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    latest = _game(service)
    assert handle(service, reply_to(latest[DEE], "mail picture always"), START + HOUR) == (
        "applied"
    )
    take_mail(service)
    assert handle(service, reply_to(latest[ANN], "1"), START + 2 * HOUR) == "applied"
    told = {str(m["To"]): m for m in take_mail(service)}
    prompt = next(m for m in told.values() if m["X-Tongiaki-Kind"] == "prompt")
    assert "image/png" in _parts(prompt)
    updates = [m for a, m in told.items() if m is not prompt and a in (ANN, BOB, CY)]
    assert updates and all("image/png" not in _parts(m) for m in updates)
    assert all("THE BOARD" in text_of(m) for m in updates)  # the board as text stays
    assert "image/png" in _parts(told[DEE])  # Dee chose it always
    assert "image/png" not in _parts(told[OLGA])  # observers: their first mail, the game over


@pytest.mark.parametrize("line", ["mail picture sometimes", "mail picture", "mail picture never x"])
def test_a_bad_picture_choice_is_refused_and_changes_nothing(tmp_path: Path, line: str) -> None:
    service = local_service(tmp_path)
    latest = _game(service)
    assert handle(service, reply_to(latest[BOB], line), START + HOUR) == "rejected"
    (answer,) = take_mail(service)
    assert "mail picture always|prompts|never" in _flat(answer)
    assert _seat(service, 1).picture == "prompts"


def test_talk_while_the_reader_decides_reaches_them_and_a_reminder_has_no_calendar(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    latest = _game(service)
    assert handle(service, reply_to(latest[BOB], "tell red are you there?"), START + HOUR) == (
        "applied"
    )
    take_mail(service)
    tick(service, START + HOUR + GATHER)
    (talk,) = take_mail(service)
    assert talk["To"] == ANN and "are you there?" in _flat(talk)
    assert "text/calendar" not in _parts(talk)
    at = START + 30 * HOUR
    while not (reminders := [m for m in take_mail(service) if m["X-Tongiaki-Kind"] == "reminder"]):
        tick(service, at)
        at += HOUR
    assert "text/calendar" not in _parts(reminders[0])  # the deadline stands as sent
    assert "image/png" in _parts(reminders[0])  # where she plans


def test_the_benchmark_of_mail_sizes_runs(tmp_path: Path) -> None:
    from tests.bench_mail_size import run

    per_reply, sizes = run(4, 4)
    assert per_reply > 0 and "prompt" in sizes and "update" in sizes
