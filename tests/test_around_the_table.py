"""Around the table (issue 15): table talk, resigning, and how much mail a player gets."""

from __future__ import annotations

import re
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import col, select

from pbem.flow.deadlines import send_held, tick
from pbem.flow.gm import GameMaster
from pbem.flow.held import digest_due
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.mail_out import policy
from pbem.store.db import session
from pbem.store.models import Held, Inbound, MailChoice, Seat, Talk
from tests.support.localmail import START, local_service, reply_to, take_mail, text_of

ANN, BOB, CY = "ann@example.test", "bob@example.test", "cy@example.test"
GM = "gm@example.test"
HOUR = timedelta(hours=1)


def _game(service: Service, *, gm: str | None = "gm@example.test") -> int:
    return service.new_game(
        [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue"), SeatSpec("Cy", CY, "green")],
        seed=11,
        gm=gm,
        now=START,
    )


def _newest(mails: list[EmailMessage], address: str) -> EmailMessage:
    return [m for m in mails if m["To"] == address][-1]


def _detail(service: Service) -> str:
    with session(service.engine) as db:
        return db.exec(select(Inbound).order_by(col(Inbound.id).desc())).first().detail  # type: ignore[union-attr]


def _seats(service: Service, game: int = 1) -> list[Seat]:
    with session(service.engine) as db:
        return list(db.exec(select(Seat).where(Seat.game_id == game).order_by(col(Seat.seat))))


def test_say_and_tell_are_kept_with_the_speakers_name_and_never_an_address(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    body = "say Good luck, everyone!\ntell red Shall we share Samoa?\ntell 3 \u202ehello\u202c"
    assert handle(service, reply_to(_newest(mails, BOB), body), START + HOUR) == "applied"
    with session(service.engine) as db:
        said = [(t.seat, t.speaker, t.to_seat, t.text) for t in db.exec(select(Talk))]
    assert said == [
        (1, "Bob (blue)", None, "Good luck, everyone!"),
        (1, "Bob (blue)", 0, "Shall we share Samoa?"),
        (1, "Bob (blue)", 2, "hello"),  # no bidi override reaches anyone
    ]
    assert "said to the table: Good luck, everyone!" in _detail(service)


def test_tell_names_another_player_and_say_needs_words(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    cases = [
        ("tell blue hi", "That is your own seat"),
        ("tell pink hi", "No seat 'pink'"),
        ("tell red", "Write it as: tell SEAT TEXT"),
        ("say", "Say something"),
    ]
    for minute, (line, says) in enumerate(cases, 1):
        prompt = _newest(mails, BOB)
        assert handle(service, reply_to(prompt, line), START + minute * HOUR) == "rejected"
        assert says in _detail(service)
        mails += take_mail(service)
    with session(service.engine) as db:
        assert db.exec(select(Talk)).all() == []


def test_table_talk_has_a_limit_per_player_and_day(tmp_path: Path) -> None:
    service = local_service(tmp_path, talk_per_day=2)
    _game(service)
    mails = take_mail(service)
    for n in range(1, 4):
        outcome = handle(service, reply_to(_newest(mails, CY), f"say hello {n}"), START + n * HOUR)
        mails += take_mail(service)
        assert outcome == ("applied" if n <= 2 else "rejected")
    assert "You said 2 things to the table in the last 24 hours" in _detail(service)
    later = START + 26 * HOUR
    assert handle(service, reply_to(_newest(mails, CY), "say hello again"), later) == "applied"


def test_resign_asks_to_confirm_then_a_bot_plays_the_seat_and_everyone_hears(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    assert handle(service, reply_to(_newest(mails, ANN), "resign"), START + HOUR) == "applied"
    assert not _seats(service)[0].resigned
    told = take_mail(service)
    assert [m["To"] for m in told] == [ANN]
    asked = " ".join(text_of(told[0]).split())
    assert "reply to this mail with confirm within 24 hours, or write confirm on the next line" in (
        asked
    )
    assert "applied: you have not left yet: to leave the game" in asked  # not read as done

    assert handle(service, reply_to(told[0], "resign\nconfirm"), START + 2 * HOUR) == "applied"
    ann = _seats(service)[0]
    assert (ann.resigned, ann.bot, ann.address) == (True, "greedy", ANN)
    told = take_mail(service)
    to_gm = [m for m in told if m["To"] == "gm@example.test"]
    assert to_gm and "Ann (red) resigned" in str(to_gm[0]["Subject"])
    for address in (BOB, CY):
        text = " ".join(text_of(_newest(told, address)).split())
        assert "Ann (red) resigned: the greedy bot plays red to the end" in text
    with session(service.engine) as db:
        state = service.table(db, 1, START).state
    assert state.decision is not None and state.decision.seat != 0  # the bot placed Ann's boat

    # a resigned player gets no more news, but the final result
    bob = _newest(told, BOB)
    take_mail(service)
    assert handle(service, reply_to(bob, "say bye Ann"), START + 3 * HOUR) == "applied"
    assert ANN not in [m["To"] for m in take_mail(service)]
    GameMaster(service).run_host(1, ["end"], START + 4 * HOUR)
    final = [m for m in take_mail(service) if m["To"] == ANN]
    assert [m["X-Tongiaki-Kind"] for m in final] == ["game_over"]


def test_mail_turns_leaves_out_news_but_never_a_prompt(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    assert handle(service, reply_to(_newest(mails, CY), "mail turns"), START + HOUR) == "applied"
    assert "you get only mails that ask for your decision" in _detail(service)
    take_mail(service)
    # Ann and Bob place their boats: Cy hears nothing of Ann's, then gets the prompt
    assert handle(service, reply_to(_newest(mails, ANN), "1"), START + 2 * HOUR) == "applied"
    after_ann = take_mail(service)
    assert CY not in [m["To"] for m in after_ann]
    assert handle(service, reply_to(_newest(after_ann, BOB), "1"), START + 3 * HOUR) == "applied"
    to_cy = [m for m in take_mail(service) if m["To"] == CY]
    assert [m["X-Tongiaki-Kind"] for m in to_cy] == ["prompt"]


def test_a_digest_holds_the_news_and_comes_once_a_day_at_the_players_hour(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    assert (
        handle(service, reply_to(_newest(mails, CY), "mail digest 18"), START + HOUR) == "applied"
    )
    take_mail(service)
    assert handle(service, reply_to(_newest(mails, ANN), "1"), START + 2 * HOUR) == "applied"
    assert CY not in [m["To"] for m in take_mail(service)]
    with session(service.engine) as db:
        held = db.exec(select(Held)).all()
    assert len(held) == 1 and "Red put 1 boat on Tonga" in held[0].lines

    assert tick(service, START + 8 * HOUR).digests == 0  # 17:00 UTC: not yet
    report = tick(service, START + 9 * HOUR + timedelta(minutes=1))  # 18:01 UTC
    assert report.digests == 1
    (digest,) = [m for m in take_mail(service) if m["To"] == CY]
    assert "Your daily digest of game 1" in str(digest["Subject"])
    assert "Red put 1 boat on Tonga" in text_of(digest)
    with session(service.engine) as db:
        assert db.exec(select(Held)).all() == []
    assert tick(service, START + 10 * HOUR).digests == 0  # once a day


def test_the_digest_hour_is_in_the_players_zone() -> None:
    seat = Seat(game_id=1, seat=0, name="Ann", address=ANN, colour="red", secret="x")
    seat.digest_hour, seat.tz = 8, "Pacific/Tongatapu"  # UTC+13
    due = digest_due(seat, START)  # 09:00 UTC on 23 Nov = 22:00 in Tonga
    assert due == START.replace(hour=19)  # 08:00 in Tonga on 24 Nov


def test_mail_settings_for_all_games_reach_the_other_games_and_the_next(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    _game(service)
    _game(service)
    mails = take_mail(service)
    first = next(m for m in mails if m["To"] == BOB and "g1]" in str(m["Subject"]))
    outcome = handle(service, reply_to(first, "mail turns all-games"), START + HOUR)
    assert outcome == "applied"
    assert [s.mail_mode for s in _seats(service, 2)] == ["all", "turns", "all"]
    with session(service.engine) as db:
        assert db.get(MailChoice, BOB) is not None
    _game(service)
    assert [s.mail_mode for s in _seats(service, 3)] == ["all", "turns", "all"]


OLGA = "olga@example.test"


def test_table_talk_comes_with_the_next_mail_or_at_once_and_a_tell_to_one_only(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path, gm_reads_talk=True)
    _game(service)
    mails = take_mail(service)
    assert handle(service, reply_to(_newest(mails, ANN), "mail talk later"), START + HOUR) == (
        "applied"
    )
    take_mail(service)
    body = "say Good luck, everyone!\ntell red Shall we share Samoa?"
    assert handle(service, reply_to(_newest(mails, BOB), body), START + 2 * HOUR) == "applied"
    told = take_mail(service)  # the game master's copy at once
    assert tick(service, START + 2 * HOUR + policy.TALK_GATHER).talk == 1
    told += take_mail(service)  # the clock's: the talk of a few minutes in one mail
    # Cy gets talk at once (by default); Ann gets it with her next mail
    to_cy = [m for m in told if m["To"] == CY]
    assert [str(m["Subject"]) for m in to_cy] == ["[Tongiaki g1] Table talk in game 1"]
    cy_text = text_of(to_cy[0])
    assert "TABLE TALK\n- Bob (blue) to the table: Good luck, everyone!" in cy_text
    assert "Samoa" not in cy_text
    assert BOB not in [m["To"] for m in told] or "TABLE TALK" not in text_of(_newest(told, BOB))
    gm = [m for m in told if m["To"] == "gm@example.test"]
    assert gm and "Bob (blue) to Ann (red): Shall we share Samoa?" in text_of(gm[0])
    assert ANN not in [m["To"] for m in told]
    players = (ANN, BOB, CY)  # the game masters know the addresses; the players never
    assert all(BOB not in text_of(m) for m in told if m["To"] in players and m["To"] != BOB)
    # Ann's next mail (her set-up prompt after her own move) carries both lines
    assert handle(service, reply_to(_newest(mails, ANN), "1"), START + 3 * HOUR) == "applied"
    ann_text = text_of(_newest(take_mail(service), ANN))
    assert "- Bob (blue) to the table: Good luck, everyone!" in ann_text
    assert "- Bob (blue) to you only: Shall we share Samoa?" in ann_text
    # and only once
    assert handle(service, reply_to(_newest(mails, ANN), "status"), START + 4 * HOUR) == (
        "answered"
    )
    assert "TABLE TALK" not in text_of(_newest(take_mail(service), ANN))
    # log talk: each reads what they may
    assert handle(service, reply_to(_newest(mails, CY), "log talk"), START + 5 * HOUR) == (
        "answered"
    )
    cy_log = text_of(_newest(take_mail(service), CY))
    assert "Bob (blue) to the table: Good luck, everyone!" in cy_log
    assert "Samoa" not in cy_log


def test_observers_watch_every_update_never_get_a_prompt_and_talk_only_if_allowed(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    service.new_game(
        [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")],
        seed=3,
        observers=[(OLGA, "Olga")],
        now=START,
    )
    mails = take_mail(service)
    to_olga = [m for m in mails if m["To"] == OLGA]
    assert [m["X-Tongiaki-Kind"] for m in to_olga] == ["watch"]
    assert "You watch game 1" in str(to_olga[0]["Subject"])
    assert "Watching: Olga." in text_of(_newest(mails, ANN))
    welcome = next(m for m in mails if m["To"] == BOB)  # the players know from the start
    assert welcome["X-Tongiaki-Kind"] == "welcome" and "Watching: Olga." in text_of(welcome)
    # her help lists what she may write here: not `say`
    footer = " ".join(text_of(to_olga[0]).split()).rsplit("--", 1)[1]
    assert "Commands at any time: help, rules, board, status, log, log talk, stop." in footer
    html = to_olga[0].get_body(("html",))
    assert html is not None and "<b>say</b>" not in html.get_content()
    # asked for help, she is told what she may write, not how to play or change a seat
    assert handle(service, reply_to(to_olga[0], "help\nrules"), START + HOUR / 2) == "answered"
    helped = take_mail(service)
    assert [m["To"] for m in helped] == [OLGA]
    text = " ".join(text_of(helped[0]).split())
    assert "WHAT YOU MAY WRITE Reply to any mail of this game with one command per line" in text
    assert "At any time: help (this text), rules (the rules of the game), board" in text
    for never in ("HOW TO PLAY BY MAIL", "place ISLAND", "vacation", "tz ZONE", "say TEXT"):
        assert never not in text, never
    assert "TONGIAKI: THE RULES IN SHORT" in text.upper()  # `rules` answered her too
    helped_html = helped[0].get_body(("html",))
    assert helped_html is not None
    page = helped_html.get_content()
    assert "What you may write" in page and "How to play by mail" not in page
    assert handle(service, reply_to(_newest(mails, ANN), "1"), START + HOUR) == "applied"
    told = take_mail(service)
    olga = [m for m in told if m["To"] == OLGA]
    assert [m["X-Tongiaki-Kind"] for m in olga] == ["watch"]
    assert "Red put 1 boat on Tonga" in text_of(olga[0])
    assert not any(m["X-Tongiaki-Decision"] for m in olga)
    # Olga may look, not move, and not talk in this game
    assert handle(service, reply_to(olga[0], "status"), START + 2 * HOUR) == "answered"
    assert "Now waiting for Bob (blue)" in text_of(take_mail(service)[0])
    assert handle(service, reply_to(olga[0], "1"), START + 3 * HOUR) == "rejected"
    assert "is not a command for observers" in _detail(service)
    # what she is told she may write leaves out `say` in this game
    assert "The commands: stop (and help, rules, board, status, log, log talk)." in _detail(service)
    take_mail(service)
    assert handle(service, reply_to(olga[0], "say hi"), START + 4 * HOUR) == "rejected"
    assert "Observers of this game watch" in _detail(service)
    # another address cannot use Olga's reply address
    forged = reply_to(olga[0], "status", sender="mallory@example.test")
    assert handle(service, forged, START + 5 * HOUR) == "refused"


def test_the_game_master_adds_an_observer_who_may_talk_when_the_game_allows_it(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    service.new_game(
        [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")],
        seed=3,
        gm="gm@example.test",
        observers_talk=True,
        now=START,
    )
    take_mail(service)
    results, _ = GameMaster(service).run_host(1, ["observe olga@example.test Olga"], START + HOUR)
    assert [r.outcome for r in results] == ["applied"]
    (invitation,) = take_mail(service)  # she watches once she accepts
    assert invitation["X-Tongiaki-Kind"] == "invitation"
    assert handle(service, reply_to(invitation, "watch"), START + HOUR) == "applied"
    told = take_mail(service)
    send_held(service, START + HOUR)  # the players hear it with the clock's next round
    told += take_mail(service)
    olga = _newest(told, OLGA)
    assert "You watch game 1" in str(olga["Subject"])
    footer = " ".join(text_of(olga).split()).rsplit("--", 1)[1]
    assert "Commands at any time: help, rules, board, status, log, log talk, say, stop." in footer
    assert handle(service, reply_to(olga, "help"), START + HOUR + HOUR / 2) == "answered"
    helped = " ".join(text_of(take_mail(service)[0]).split())
    assert "WHAT YOU MAY WRITE" in helped and "say TEXT: to everyone at the table" in helped
    assert "tell SEAT" not in helped and "HOW TO PLAY BY MAIL" not in helped
    assert "Olga watches the game now." in text_of(_newest(told, ANN))
    assert handle(service, reply_to(olga, "say Nice opening!"), START + 2 * HOUR) == "applied"
    take_mail(service)
    results, _ = GameMaster(service).run_host(1, ["unobserve Olga"], START + 3 * HOUR)
    assert [r.outcome for r in results] == ["applied"]
    send_held(service, START + 3 * HOUR)  # one short line, with the talk not read yet
    told = take_mail(service)
    assert OLGA not in [m["To"] for m in told]
    ann = text_of(_newest(told, ANN))
    assert "Olga (watching) to the table: Nice opening!" in ann
    assert "Watching:" not in ann
    again, _ = GameMaster(service).run_host(1, ["observe ann@example.test"], START + 4 * HOUR)
    assert again[0].outcome == "rejected" and "has a seat or watches" in again[0].detail


def _calendar(mail: EmailMessage) -> str:
    parts = [p for p in mail.walk() if p.get_content_type() == "text/calendar"]
    return parts[0].get_content() if parts else ""


def test_a_prompt_carries_its_deadline_for_the_calendar_cancelled_once_decided(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    prompt = next(m for m in mails if m["To"] == ANN and m["X-Tongiaki-Decision"])
    event = _calendar(prompt)
    assert "METHOD:REQUEST" in event and "UID:tongiaki-g1-s0@example.test" in event
    assert "DTEND:20261125T090000Z" in event  # the 48 h deadline
    assert "BEGIN:VALARM" in event
    assert not any(_calendar(m) for m in mails if m["To"] != ANN)  # only the one asked
    assert handle(service, reply_to(prompt, "1"), START + HOUR) == "applied"
    told = take_mail(service)
    cancel = _calendar(_newest(told, ANN))
    assert "METHOD:CANCEL" in cancel and "UID:tongiaki-g1-s0@example.test" in cancel
    bob = _calendar(_newest(told, BOB))
    assert "METHOD:REQUEST" in bob and "UID:tongiaki-g1-s1@example.test" in bob
    # the next mail to Ann carries no calendar part at all
    assert handle(service, reply_to(_newest(told, ANN), "status"), START + 2 * HOUR) == "answered"
    assert _calendar(_newest(take_mail(service), ANN)) == ""


def test_a_calendars_accept_or_decline_is_automatic_mail(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    _game(service)
    take_mail(service)
    answer = EmailMessage()
    answer["From"] = ANN
    answer["To"] = "tongiaki@example.test"
    answer["Subject"] = "Accepted: Tongiaki game 1: your decision 1"
    answer["Message-ID"] = "<accept-1@example.test>"
    answer.set_content("Ann has accepted.")
    answer.add_attachment(
        b"BEGIN:VCALENDAR\r\nMETHOD:REPLY\r\nEND:VCALENDAR\r\n",
        maintype="text",
        subtype="calendar",
        params={"method": "REPLY"},
    )
    assert handle(service, bytes(answer), START + HOUR) == "ignored"
    assert take_mail(service) == []
    assert "method=REPLY" in _detail(service)


def test_the_game_over_mail_attaches_the_record_when_the_host_says_so(tmp_path: Path) -> None:
    service = local_service(tmp_path, export_on_game_over="attach")
    _game(service)
    take_mail(service)
    GameMaster(service).run_host(1, ["end"], START + HOUR)
    finals = [m for m in take_mail(service) if m["X-Tongiaki-Kind"] == "game_over"]
    assert sorted(m["To"] for m in finals) == [ANN, BOB, CY]
    for mail in finals:
        (record,) = [p for p in mail.iter_attachments() if p.get_content_type() == "text/html"]
        assert record.get_filename() == "tongiaki-game-1.html"
        page = record.get_content()
        assert page.startswith("<!DOCTYPE html>") and "Ann" in page and "data:image/png" in page
    plain = local_service(tmp_path / "plain")
    _game(plain)
    take_mail(plain)
    GameMaster(plain).run_host(1, ["end"], START + HOUR)
    finals = [m for m in take_mail(plain) if m["X-Tongiaki-Kind"] == "game_over"]
    assert len(finals) == 3
    assert not [
        p for m in finals for p in m.iter_attachments() if p.get_filename() != "deadline.ics"
    ]


def test_a_talk_mail_at_once_leaves_the_event_of_an_open_decision_alone(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    prompt = _newest(mails, ANN)  # the first set-up boat is Ann's
    assert "METHOD:REQUEST" in _calendar(prompt)
    assert handle(service, reply_to(prompt, "mail talk now"), START + HOUR) == "applied"
    answer = _newest(take_mail(service), ANN)
    assert _calendar(answer) == ""  # still her decision, its deadline as her calendar has it
    assert handle(service, reply_to(_newest(mails, BOB), "say Hello"), START + 2 * HOUR) == (
        "applied"
    )
    assert ANN not in [m["To"] for m in take_mail(service)]  # gathered for a few minutes
    tick(service, START + 2 * HOUR + policy.TALK_GATHER)
    (talk,) = [m for m in take_mail(service) if m["To"] == ANN]  # while the table waits for her
    assert "Table talk in game 1" in str(talk["Subject"])
    said = " ".join(text_of(talk).split())
    assert "Now waiting for Ann (red)" in said and "(decision 1)" in said
    assert _calendar(talk) == ""  # neither cancelled nor sent again
    assert talk["X-Tongiaki-Decision"] is None and "picture" not in str(talk)
    # she answers the talk mail with her move: its reply address names her open decision,
    # and the move closes it: the next mail cancels the event
    assert handle(service, reply_to(talk, "1"), START + 3 * HOUR) == "applied"
    assert "METHOD:CANCEL" in _calendar(_newest(take_mail(service), ANN))


def test_a_decision_the_game_made_at_the_deadline_is_cancelled_with_the_next_mail_received(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    prompt = _newest(mails, ANN)
    assert handle(service, reply_to(prompt, "mail turns"), START + HOUR) == "applied"
    assert _calendar(_newest(take_mail(service), ANN)) == ""  # the event stands as it was
    assert tick(service, START + 49 * HOUR).automatic == 1  # Ann's boat placed for her
    assert ANN not in [m["To"] for m in take_mail(service)]  # news: not for `mail turns`
    # the next mail she gets, here the answer to `status`, takes the event away
    assert handle(service, reply_to(prompt, "status"), START + 50 * HOUR) == "answered"
    (answer,) = [m for m in take_mail(service) if m["To"] == ANN]
    assert "METHOD:CANCEL" in _calendar(answer)


def test_a_player_who_resigned_may_look_at_the_game_and_do_nothing_else(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    old = _newest(mails, ANN)  # her set-up prompt, decision 1: its reply address still acts
    assert handle(service, reply_to(old, "resign confirm"), START + HOUR) == "applied"
    take_mail(service)
    refused = [
        "say Bye, all",
        "tell blue Good luck",
        "vacation 2d",
        "mail turns all-games",
        "tz Europe/Berlin",
        "lang it",
        "resign\nconfirm",  # (`resign confirm` again is a replay of the first mail)
        "1",
        "status\nsay hello",
    ]
    for n, body in enumerate(refused, 1):
        assert handle(service, reply_to(old, body), START + (1 + 6 * n) * HOUR) == "rejected", body
        assert "You left this game (resigned at decision 1); you can still read it" in (
            _detail(service)
        )
        told = take_mail(service)
        assert [m["To"] for m in told] == [ANN], body  # no news, no game master, one answer
        assert "You left this game (resigned at decision 1)" in " ".join(text_of(told[0]).split())
    ann = _seats(service)[0]
    assert (ann.mail_mode, ann.tz, ann.lang, ann.away_until, ann.vacation_used) == (
        "all",
        None,
        "en",
        None,
        0,
    )
    with session(service.engine) as db:
        assert db.exec(select(Talk)).all() == []
        assert db.get(MailChoice, ANN) is None
    for n, look in enumerate(["status", "log talk", "board", "help", "rules", "log"]):
        assert handle(service, reply_to(old, look), START + (70 + 6 * n) * HOUR) == "answered"
        told = take_mail(service)
        assert [m["To"] for m in told] == [ANN]
        text = " ".join(text_of(told[0]).split())
        # the truth about her seat, and only what she may still write
        assert "You resigned from this game: the greedy bot plays your seat to the end." in text
        assert "The game master" not in text
        if look == "help":
            assert "WHAT YOU MAY WRITE" in text and "rules (the rules of the game)" in text
            for never in ("HOW TO PLAY BY MAIL", "place ISLAND", "vacation", "say TEXT"):
                assert never not in text, never


def test_confirm_alone_in_a_reply_to_the_mail_that_asked_resigns_within_a_day(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    assert handle(service, reply_to(_newest(mails, BOB), "resign"), START + HOUR) == "applied"
    (asked,) = take_mail(service)
    assert handle(service, reply_to(_newest(mails, ANN), "1"), START + 2 * HOUR) == "applied"
    update = _newest(take_mail(service), BOB)  # a later mail of the game did not ask
    assert handle(service, reply_to(update, "confirm"), START + 3 * HOUR) == "rejected"
    assert "There is nothing to confirm" in _detail(service)
    take_mail(service)
    assert not _seats(service)[1].resigned
    assert handle(service, reply_to(asked, "confirm"), START + 4 * HOUR) == "applied"
    bob = _seats(service)[1]
    assert (bob.resigned, bob.resigned_at, bob.asked) == (True, 2, "")
    told = take_mail(service)
    assert any("Bob (blue) resigned" in str(m["Subject"]) for m in told if m["To"] == GM)
    # a day later, the question has lapsed
    assert handle(service, reply_to(_newest(mails, CY), "resign"), START + 5 * HOUR) == "applied"
    (asked,) = [m for m in take_mail(service) if m["To"] == CY]
    assert handle(service, reply_to(asked, "confirm"), START + 30 * HOUR) == "rejected"
    assert "There is nothing to confirm" in _detail(service)
    assert not _seats(service)[2].resigned


def test_the_final_table_and_the_record_mark_a_player_who_resigned(tmp_path: Path) -> None:
    service = local_service(tmp_path, export_on_game_over="attach")
    _game(service)
    mails = take_mail(service)
    assert handle(service, reply_to(_newest(mails, BOB), "resign confirm"), START + HOUR) == (
        "applied"
    )
    take_mail(service)
    GameMaster(service).run_host(1, ["end"], START + 2 * HOUR)
    finals = [m for m in take_mail(service) if m["X-Tongiaki-Kind"] == "game_over"]
    assert sorted(m["To"] for m in finals) == [ANN, BOB, CY]
    for mail in finals:
        text = " ".join(text_of(mail).split())
        assert text.count("resigned, a bot played on") == 1  # Bob's line of the final table
        (record,) = [p for p in mail.iter_attachments() if p.get_content_type() == "text/html"]
        page = record.get_content()
        assert "Bob (resigned)" in page and "Bob (bot)" not in page
        assert page.count("resigned, a bot played on") == 1


def test_the_game_over_mail_links_the_record_under_a_name_nobody_can_guess(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "www" / "games"
    service = local_service(
        tmp_path,
        export_on_game_over="link",
        export_dir=str(folder),
        export_url="https://example.test/games",
    )
    service.new_game(
        [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")],
        seed=3,
        observers=[(OLGA, "Olga")],
        now=START,
    )
    take_mail(service)
    GameMaster(service).run_host(1, ["end"], START + HOUR)
    (page,) = list(folder.iterdir())  # one record, nothing half written beside it
    name = re.fullmatch(r"tongiaki-game-1-([A-Za-z0-9_-]{22})\.html", page.name)
    assert name is not None  # 128 secret bits in the name: the games cannot be listed
    assert page.read_text().startswith("<!DOCTYPE html>") and "Ann" in page.read_text()
    assert page.stat().st_mode & 0o777 == 0o644
    url = f"https://example.test/games/{page.name}"
    finals = [m for m in take_mail(service) if m["X-Tongiaki-Kind"] == "game_over"]
    assert sorted(m["To"] for m in finals) == [ANN, BOB, OLGA]
    for mail in finals:
        assert f"every turn and every move:\n{url}\n" in text_of(mail)
        html = mail.get_body(("html",))
        assert html is not None and f'<a href="{url}"' in html.get_content()
        assert [p.get_filename() for p in mail.iter_attachments()] in ([], ["deadline.ics"])
    # another game's record has another secret
    service.new_game([SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")], now=START)
    GameMaster(service).run_host(2, ["end"], START + HOUR)
    names = sorted(p.name for p in folder.iterdir())
    assert len(names) == 2 and names[1].startswith("tongiaki-game-2-")
    assert names[0].split("-")[-1] != names[1].split("-")[-1]


def test_a_record_that_cannot_be_written_leaves_the_link_out_and_the_game_ends(
    tmp_path: Path,
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the folder should be")
    service = local_service(
        tmp_path,
        export_on_game_over="link",
        export_dir=str(blocked),
        export_url="https://example.test/games/",
    )
    _game(service)
    take_mail(service)
    results, _ = GameMaster(service).run_host(1, ["end"], START + HOUR)
    assert [r.outcome for r in results] == ["applied"]
    finals = [m for m in take_mail(service) if m["X-Tongiaki-Kind"] == "game_over"]
    assert len(finals) == 3
    assert all("https://example.test" not in text_of(m) for m in finals)


def test_the_game_master_adds_an_observer_by_mail_who_gets_the_game_over_mail(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    to_gm = _newest(mails, GM)
    assert handle(service, reply_to(to_gm, "observe olga@example.test"), START + HOUR) == (
        "applied"
    )
    invited = take_mail(service)
    (invitation,) = [m for m in invited if m["To"] == OLGA]
    assert handle(service, reply_to(invitation, "watch"), START + HOUR) == "applied"
    send_held(service, START + HOUR)
    told = invited + take_mail(service)
    (welcome,) = [m for m in told if m["To"] == OLGA and m is not invitation]
    assert [welcome["X-Tongiaki-Kind"], str(welcome["Subject"])] == [
        "watch",
        "[Tongiaki g1] You watch game 1",
    ]
    # no name given: a number, never a part of the address
    assert "Observer 1 watches the game now." in text_of(_newest(told, ANN))
    assert "olga" not in text_of(_newest(told, ANN)).lower()
    # the next change comes from the answer to the last one
    assert handle(service, reply_to(_newest(told, GM), "end"), START + 2 * HOUR) == "applied"
    (final,) = [m for m in take_mail(service) if m["To"] == OLGA]
    assert final["X-Tongiaki-Kind"] == "game_over"
    assert "Game over" in str(final["Subject"]) and "FINAL" in text_of(final).upper()
    assert not final["X-Tongiaki-Decision"]


def test_without_gm_reads_talk_the_game_master_gets_no_copy(tmp_path: Path) -> None:
    service = local_service(tmp_path)  # gm_reads_talk is off by default
    _game(service)
    mails = take_mail(service)
    assert handle(service, reply_to(_newest(mails, CY), "mail talk now"), START + HOUR) == (
        "applied"
    )
    take_mail(service)
    body = "say Good luck, everyone!\ntell red Shall we share Samoa?"
    assert handle(service, reply_to(_newest(mails, BOB), body), START + 2 * HOUR) == "applied"
    tick(service, START + 2 * HOUR + policy.TALK_GATHER)
    told = take_mail(service)
    assert sorted(m["To"] for m in told if m["To"] != BOB) == [ANN, CY]  # talk at once only
    assert all("Good luck" not in text_of(m) for m in told if m["To"] == GM)
    with session(service.engine) as db:
        assert len(db.exec(select(Talk)).all()) == 2
    # nor in the game master's `log talk`
    assert handle(service, reply_to(_newest(mails, GM), "log talk"), START + 3 * HOUR) == (
        "answered"
    )
    log = text_of(_newest(take_mail(service), GM))
    assert "Good luck" not in log and "Shall we share" not in log
    assert "the host keeps it from you" in log


def test_in_digest_mode_a_prompt_still_comes_at_once(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    assert handle(service, reply_to(_newest(mails, BOB), "mail digest 18"), START + HOUR) == (
        "applied"
    )
    take_mail(service)
    # Ann places her boat: the news is held, and the decision is Bob's, so he is asked now
    assert handle(service, reply_to(_newest(mails, ANN), "1"), START + 2 * HOUR) == "applied"
    to_bob = [m for m in take_mail(service) if m["To"] == BOB]
    assert [m["X-Tongiaki-Kind"] for m in to_bob] == ["prompt"]
    assert to_bob[0]["X-Tongiaki-Decision"] == "2 setup"
    assert "METHOD:REQUEST" in _calendar(to_bob[0])


def test_a_digest_comes_at_the_players_hour_in_their_zone_through_the_deadline_tick(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    body = "tz Asia/Tokyo\nmail digest 7"  # 07:00 in Tokyo is 22:00 UTC the day before
    assert handle(service, reply_to(_newest(mails, CY), body), START + HOUR) == "applied"
    take_mail(service)
    assert handle(service, reply_to(_newest(mails, ANN), "1"), START + 2 * HOUR) == "applied"
    assert CY not in [m["To"] for m in take_mail(service)]
    assert tick(service, START.replace(hour=21, minute=59)).digests == 0  # 06:59 in Tokyo
    assert tick(service, START.replace(hour=22, minute=1)).digests == 1  # 07:01 in Tokyo
    (digest,) = [m for m in take_mail(service) if m["To"] == CY]
    assert "Your daily digest of game 1" in str(digest["Subject"])
    assert "Red put 1 boat on Tonga" in text_of(digest)


def _request(mail: EmailMessage) -> tuple[str, int]:
    event = _calendar(mail)
    assert "METHOD:REQUEST" in event, event
    end = re.search(r"^DTEND:(\S+)", event, re.MULTILINE)
    sequence = re.search(r"^SEQUENCE:(\d+)", event, re.MULTILINE)
    assert end and sequence
    return end.group(1), int(sequence.group(1))


def test_extend_and_vacation_send_the_event_again_later_with_a_higher_sequence(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    first = _request(_newest(mails, ANN))
    assert first[0] == "20261125T090000Z"  # 48 h
    # the game master gives Ann's open decision a day more, by mail
    assert handle(service, reply_to(_newest(mails, GM), "extend 1d"), START + HOUR) == "applied"
    send_held(service, START + HOUR)  # a quiet change: one line, the event moved with it
    extended = _request(_newest(take_mail(service), ANN))
    assert extended[0] == "20261126T090000Z" and extended[1] > first[1]
    # Ann goes on vacation for two days: her open decision waits as long
    assert handle(service, reply_to(_newest(mails, ANN), "vacation 2d"), START + 2 * HOUR) == (
        "applied"
    )
    away = _request(_newest(take_mail(service), ANN))
    assert away[0] == "20261128T090000Z" and away[1] > extended[1]


def test_a_seat_handed_to_a_player_gets_their_mail_choice_not_the_one_who_left(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    dan = "dan@example.test"
    service.new_game([SeatSpec("Dan", dan), SeatSpec("Eve", "eve@example.test")], now=START)
    _game(service)  # game 2: Ann, Bob, Cy
    mails = take_mail(service)
    in_game_1 = next(m for m in mails if m["To"] == dan and "g1]" in str(m["Subject"]))
    assert handle(service, reply_to(in_game_1, "mail turns all-games"), START + HOUR) == ("applied")
    cy = next(m for m in mails if m["To"] == CY)
    assert handle(service, reply_to(cy, "mail digest\ntz Asia/Tokyo\nlang it"), START + HOUR) == (
        "applied"
    )
    ann = [m for m in mails if m["To"] == ANN][-1]
    assert handle(service, reply_to(ann, "1"), START + 2 * HOUR) == "applied"  # held for Cy
    take_mail(service)
    results, _ = GameMaster(service).run_host(2, [f"replace green {dan} Dan"], START + 3 * HOUR)
    assert [r.outcome for r in results] == ["applied"]
    seat = _seats(service, 2)[2]
    assert (seat.address, seat.mail_mode, seat.calendar_open) == (dan, "turns", False)
    assert (seat.tz, seat.lang) == (None, "en")  # Cy's zone and language were Cy's
    with session(service.engine) as db:
        assert db.exec(select(Held).where(Held.game_id == 2, Held.seat == 2)).all() == []
    send_held(service, START + 3 * HOUR)  # Cy's news gone; the others' short line
    told = take_mail(service)
    assert [m["X-Tongiaki-Kind"] for m in told if m["To"] == dan] == ["welcome"]
    # news of game 2 does not reach Dan, who wants only his turns
    bob = [m for m in told if m["To"] == BOB][-1]
    assert handle(service, reply_to(bob, "1"), START + 4 * HOUR) == "applied"
    to_dan = [m for m in take_mail(service) if m["To"] == dan]
    assert all(m["X-Tongiaki-Decision"] for m in to_dan)


@pytest.mark.parametrize("command", ["kick 1", "replace 1 dan@example.test Dan"])
def test_a_player_who_loses_the_seat_with_a_decision_open_gets_its_event_cancelled(
    tmp_path: Path, command: str
) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    assert "METHOD:REQUEST" in _calendar(_newest(mails, ANN))  # the set-up is Ann's
    results, _ = GameMaster(service).run_host(1, [command], START + HOUR)
    assert [r.outcome for r in results] == ["applied"]
    (farewell,) = [m for m in take_mail(service) if m["To"] == ANN]
    assert "You left game 1" in str(farewell["Subject"])
    assert "METHOD:CANCEL" in _calendar(farewell)
