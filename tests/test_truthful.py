"""Mails that say what happened (issue 14 item 1): a line naming what the game already did
counts as done, a sign-off is no error, a refused line in a reply to one's own open decision
comes back in a prompt, `pbem reply` answers the mail that asks, vacations end."""

from __future__ import annotations

import re
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import select
from typer.testing import CliRunner

from engine import (
    STACK_TILES,
    ChoiceError,
    ChoiceMade,
    DirectionError,
    Phase,
    Setup,
    State,
    parse_choice,
)
from pbem.core.clock import format_duration
from pbem.flow.deadlines import send_held, tick
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.host.cli import app
from pbem.store.db import session
from pbem.store.models import Inbound, Seat
from tests.support.localmail import START, local_service, reply_to, take_mail, text_of

ANN, BOB = "ann@example.test", "bob@example.test"
HOUR = timedelta(hours=1)


def _game(tmp_path: Path, **changes: object) -> Service:
    service = local_service(tmp_path, **changes)
    service.new_game([SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")], seed=5, now=START)
    return service


def _prompt_for(mails: list[EmailMessage], address: str) -> EmailMessage:
    asking = [m for m in mails if m["To"] == address and m["X-Tongiaki-Decision"]]
    assert asking, [(m["To"], m["Subject"]) for m in mails]
    return asking[-1]


def _detail(service: Service) -> str:
    with session(service.engine) as db:
        rows = list(db.exec(select(Inbound)))
    return rows[-1].detail


def test_a_sign_off_after_the_commands_is_no_error(tmp_path: Path) -> None:
    service = _game(tmp_path)
    prompt = _prompt_for(take_mail(service), ANN)
    body = "place Tonga a\n\nThanks!\nAnn"
    assert handle(service, reply_to(prompt, body), START + HOUR) == "applied"
    mails = take_mail(service)
    to_ann = [m for m in mails if m["To"] == ANN]
    assert [m["X-Tongiaki-Kind"] for m in to_ann] == ["update"]
    assert not any("Not applied" in str(m["Subject"]) for m in mails)
    text = text_of(to_ann[0])
    assert "> Thanks!\n  ignored: not a command, so not read, nor the line after it" in text
    assert "'thanks!' is not a command" not in text
    # the first line that is no command still gets an answer that says why
    prompt = _prompt_for(mails, BOB)
    assert handle(service, reply_to(prompt, "Thanks!"), START + 2 * HOUR) == "rejected"
    assert "'thanks!' is not a command" in _detail(service)


def test_a_refused_line_in_a_reply_to_ones_own_decision_comes_back_in_a_prompt(
    tmp_path: Path,
) -> None:
    service = _game(tmp_path)
    prompt = _prompt_for(take_mail(service), ANN)
    assert handle(service, reply_to(prompt, "place Tunga a"), START + HOUR) == "rejected"
    (mail,) = take_mail(service)
    assert mail["X-Tongiaki-Kind"] == "prompt"
    assert str(mail["Subject"]).startswith("[Tongiaki g1] Your move: place a set-up boat")
    assert str(mail["Subject"]).endswith("a line of your reply was not applied")
    assert mail["X-Tongiaki-Decision"] == "1 setup"
    text = text_of(mail)
    assert "> place Tunga a\n  rejected:" in text
    # the mail that says no is the mail to answer: its reply address acts
    assert handle(service, reply_to(mail, "1"), START + 2 * HOUR) == "applied"


def test_a_reply_applied_in_part_is_news_that_says_which_lines_were_applied(
    tmp_path: Path,
) -> None:
    """The issue's headline: the first line is applied, the next refused once the decision
    has passed to someone else; the mail says so, not "Not applied"."""
    service = _game(tmp_path)
    prompt = _prompt_for(take_mail(service), ANN)
    body = "place Tonga a\nplace Tonga b"
    assert handle(service, reply_to(prompt, body), START + HOUR) == "rejected"
    mails = take_mail(service)
    assert not any("Not applied" in str(m["Subject"]) for m in mails)
    (mail,) = [m for m in mails if m["To"] == ANN]
    assert mail["X-Tongiaki-Kind"] == "update"
    assert str(mail["Subject"]) == (
        "[Tongiaki g1] Waiting for Bob (blue); a line of your reply was not applied"
    )
    text = text_of(mail)
    assert text.startswith(
        "Your mail to game 1 was applied in part: line 1 was applied, line 2 was not"
    )
    assert "not applied." not in text
    assert "> place Tonga a\n  applied: place Tonga a" in text
    assert "> place Tonga b\n  rejected: It is not your decision now" in text
    assert "- Red put 1 boat on Tonga (a)." in text
    html = mail.get_body(("html",))
    assert html is not None and "applied in part" in str(html.get_content())
    # Bob's prompt is the ordinary one
    assert str(_prompt_for(mails, BOB)["Subject"]).startswith("[Tongiaki g1] Your move:")


def test_a_turns_player_reads_every_move_since_their_last_mail_marked_on_the_board(
    tmp_path: Path,
) -> None:
    """`mail turns`: Ann gets no mail while Bob and Cy place; her next prompt tells both
    moves and marks the beaches they changed, in the text and the HTML."""
    cy = "cy@example.test"
    service = local_service(tmp_path)
    seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue"), SeatSpec("Cy", cy, "green")]
    service.new_game(seats, seed=5, now=START)
    at = START + HOUR
    first = _prompt_for(take_mail(service), ANN)
    assert handle(service, reply_to(first, "mail turns\nplace Tonga a"), at) == "applied"
    mails = take_mail(service)
    for address, line in ((BOB, "place Tonga b"), (cy, "place Tonga c")):
        at += HOUR
        assert handle(service, reply_to(_prompt_for(mails, address), line), at) == "applied"
        mails = take_mail(service)
        to_ann = [m for m in mails if m["To"] == ANN]
        assert len(to_ann) == (address == cy)  # Bob's move: no mail to her
    prompt = _prompt_for(mails, ANN)
    text = text_of(prompt)
    happened = text.split("WHAT HAPPENED\n", 1)[1].split("\n\n", 1)[0]
    assert happened == "- Blue put 1 boat on Tonga (b).\n- Green put 1 boat on Tonga (c)."
    islands = text.split("ISLANDS (", 1)[1]
    assert "\n* changed since your last mail.\n* Tonga (0 points)\n" in islands
    assert "\n  a: R " in islands  # her own boat: told in the mail that answered her move
    assert "\n* b: B " in islands and "\n* c: G " in islands and "\n  d: - " in islands
    assert max(len(line) for line in text.splitlines()) <= 78
    html = prompt.get_body(("html",))
    assert html is not None
    page = str(html.get_content())
    assert "Highlighted: changed since your last mail." in page and "b*</b></td>" in page
    # Bob gets every mail: his update of Cy's move marks that beach only
    bob = text_of(next(m for m in mails if m["To"] == BOB))
    assert "\n* c: G " in bob and "\n  b: B " in bob
    assert bob.split("WHAT HAPPENED\n", 1)[1].startswith("- Green put 1 boat on Tonga (c).\n\n")


def _forced_emigration_game() -> tuple[int, list[str], str, str]:
    """A seed, the moves up to a decision of the first seat, and two lines: an emigration
    after which the game makes the first seat's last emigration by itself, and that one."""
    for seed in range(400):
        state = State(Setup.from_seed(("red", "blue"), seed))
        made: list[str] = []
        while (decision := state.decision) is not None and len(made) < 160:
            options = state.legal_choices()
            if decision.seat == 0 and decision.kind is Phase.EMIGRATE and len(options) > 1:
                for option in options:
                    trial = state.copy()
                    forced = [
                        e
                        for e in trial.apply(option)
                        if isinstance(e, ChoiceMade) and e.forced and e.colour == "red"
                    ]
                    if forced and forced[0].choice.startswith("emigrate"):
                        return seed, made, str(option), forced[0].choice
            choice = options[(len(made) * 7 + seed) % len(options)]
            state.apply(choice)
            made.append(str(choice))
    raise AssertionError("no game with a forced emigration found")


def test_a_line_naming_what_the_game_did_by_itself_counts_as_done(tmp_path: Path) -> None:
    seed, made, chosen, forced = _forced_emigration_game()
    service = local_service(tmp_path)
    service.new_game(
        [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")], seed=seed, now=START
    )
    at = START
    for number, line in enumerate(made):
        at += timedelta(minutes=1)
        mover = ANN if _whose(service) == 0 else BOB
        prompt = _prompt_for(take_mail(service), mover)
        assert handle(service, reply_to(prompt, line), at) == "applied", (number, line)
    prompt = _prompt_for(take_mail(service), ANN)
    lower = forced.lower()  # as a player types it
    assert handle(service, reply_to(prompt, f"{chosen}\n{lower}"), at + HOUR) == "applied"
    assert "already done: the only option" in _detail(service)
    mails = take_mail(service)
    assert not any("Not applied" in str(m["Subject"]) for m in mails)
    text = text_of(next(m for m in mails if m["To"] == ANN))
    assert f"> {lower}\n  applied: already done: the only option" in text


def _whose(service: Service) -> int:
    with session(service.engine) as db:
        state = service.table(db, 1, START).state
    assert state.decision is not None
    return state.decision.seat


@pytest.mark.parametrize("off", ["vacation off", "vacation 0", "Vacation off.", "vacation back"])
def test_a_vacation_ends_when_asked_and_the_days_not_used_come_back(
    tmp_path: Path, off: str
) -> None:
    service = _game(tmp_path, default_deadline="2d")
    prompt = _prompt_for(take_mail(service), ANN)
    assert handle(service, reply_to(prompt, "vacation 3d"), START + HOUR) == "applied"
    with session(service.engine) as db:
        game = service.table(db, 1, START).game
        away_deadline = game.deadline_at
    assert away_deadline is not None
    mails = take_mail(service)
    assert tick(service, START + 2 * HOUR).vacations == 1  # the others hear of it now
    assert handle(service, reply_to(mails[0], off), START + 25 * HOUR) == "applied"
    send_held(service, START + 25 * HOUR)  # the others hear of it at the poll's end
    with session(service.engine) as db:
        table = service.table(db, 1, START)
        game, seats = table.game, table.seats
        assert seats[0].away_until is None
        assert seats[0].vacation_used == 86400  # one day used of the three asked
        assert game.deadline_at is not None
        assert game.deadline_at.replace(tzinfo=None) == (
            away_deadline.replace(tzinfo=None) - timedelta(days=2)
        )
    told = take_mail(service)
    assert any("Ann (red) is back from vacation." in text_of(m) for m in told if m["To"] == BOB)
    again = next(m for m in told if m["To"] == ANN)
    assert handle(service, reply_to(again, "vacation end"), START + 26 * HOUR) == "rejected"
    assert "You are not on vacation." in _detail(service)


def test_the_vacation_left_is_told_to_the_minute(tmp_path: Path) -> None:
    service = _game(tmp_path)
    prompt = _prompt_for(take_mail(service), ANN)
    assert handle(service, reply_to(prompt, "vacation 3d"), START + HOUR) == "applied"
    assert "(4 days of vacation left)" in _detail(service)
    ann = next(m for m in take_mail(service) if m["To"] == ANN)
    back = START + HOUR + timedelta(seconds=27)
    assert handle(service, reply_to(ann, "vacation off"), back) == "applied"
    # a vacation uses the hours it was on, at least one: not 6d 23h 59m 33s left, nor 7d
    assert "6 days and 23 hours of vacation left in this game" in _detail(service)
    assert format_duration(27) == "27s" and format_duration(89) == "1m"
    assert format_duration(3 * 3600 + 29) == "3h" and format_duration(3 * 3600 + 31) == "3h 1m"


def test_a_move_ends_a_vacation_and_keeps_the_days_left(tmp_path: Path) -> None:
    service = _game(tmp_path)
    prompt = _prompt_for(take_mail(service), ANN)
    assert handle(service, reply_to(prompt, "vacation 4d"), START + HOUR) == "applied"
    mails = take_mail(service)
    ann = next(m for m in mails if m["To"] == ANN)
    assert tick(service, START + 2 * HOUR).vacations == 1  # the others hear of it now
    assert handle(service, reply_to(ann, "place Tonga a"), START + 13 * HOUR) == "applied"
    with session(service.engine) as db:
        seat = db.exec(select(Seat).where(Seat.seat == 0)).one()
        assert seat.away_until is None
        assert seat.vacation_used == 12 * 3600
    assert any("Ann (red) is back from vacation." in text_of(m) for m in take_mail(service))


def _lines(mail: EmailMessage) -> str:
    """The text part with its wrapping undone (every run of white space one space)."""
    return " ".join(text_of(mail).split())


def test_status_and_vacation_answers_show_the_players_own_zone(tmp_path: Path) -> None:
    service = _game(tmp_path)
    mails = take_mail(service)
    prompt, bob = _prompt_for(mails, ANN), [m for m in mails if m["To"] == BOB][-1]
    assert handle(service, reply_to(bob, "tz America/New_York"), START + HOUR) == "applied"
    take_mail(service)
    body = "tz Pacific/Tongatapu\nstatus\nvacation 1d"
    assert handle(service, reply_to(prompt, body), START + 2 * HOUR) == "applied"
    mails = take_mail(service)
    to_ann = _lines(next(m for m in mails if m["To"] == ANN))
    back = "Tue 24 Nov 2026, 11:00 UTC"
    assert (
        f"> vacation 1d applied: you are away until {back} (Wed 25 Nov, 00:00 "
        "Pacific/Tongatapu); your deadlines wait until then (6 days of vacation left) " in to_ann
    )
    assert (  # the status after all the lines: the vacation after it moved the deadline
        "STATUS Now waiting for Ann (red) to put a set-up boat on a beach of Tonga (decision "
        "1). The deadline is Thu 26 Nov 2026, 09:00 UTC (Thu 26 Nov, 22:00 "
        f"Pacific/Tongatapu). Ann (red) is on vacation until {back} (Wed 25 Nov, 00:00 "
        "Pacific/Tongatapu): their deadlines wait." in to_ann
    )
    # the news, as each reader reads it (in their own zone, or in UTC alone), once the
    # vacation was on for an hour; Ann had her answer
    told = "WHAT HAPPENED - Ann (red) is on vacation until {}: their deadlines wait. "
    assert "WHAT HAPPENED" not in to_ann and [m["To"] for m in mails] == [ANN]
    assert tick(service, START + 3 * HOUR).vacations == 1
    to_bob = _lines(next(m for m in take_mail(service) if m["To"] == BOB))
    assert told.format(f"{back} (Tue 24 Nov, 06:00 America/New_York)") in to_bob
    assert handle(service, reply_to(bob, "tz utc"), START + 3 * HOUR) == "applied"
    take_mail(service)
    ann = _prompt_for(mails, ANN)  # a longer vacation the others know of: told at once
    assert handle(service, reply_to(ann, "vacation 1d"), START + 4 * HOUR) == "applied"
    send_held(service, START + 4 * HOUR)  # at the poll's end
    to_bob = _lines(next(m for m in take_mail(service) if m["To"] == BOB))
    assert told.format("Wed 25 Nov 2026, 11:00 UTC") in to_bob


def test_the_downtime_notice_and_the_calendar_event_show_the_readers_zone(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue", lang="it")]
    service.new_game(seats, seed=5, now=START)
    mails = take_mail(service)
    prompt, bob = _prompt_for(mails, ANN), [m for m in mails if m["To"] == BOB][-1]
    assert handle(service, reply_to(bob, "fuso Europe/Rome"), START + HOUR) == "applied"
    assert handle(service, reply_to(prompt, "tz Asia/Tokyo"), START + HOUR) == "applied"
    take_mail(service)  # the answers; the deadline did not move: no calendar part
    tick(service, START + 2 * HOUR)
    back = START + 60 * HOUR  # down from hour 2 to hour 60: the deadline passed meanwhile
    assert tick(service, back).graced == 1
    mails = take_mail(service)
    # the deadline moved: the calendar event comes, in Ann's zone
    event = next(
        p
        for m in mails
        if m["To"] == ANN
        for p in m.walk()
        if p.get_content_type() == "text/calendar"
    )
    ics = event.get_content()
    ics = (ics.decode() if isinstance(ics, bytes) else ics).replace("\r\n ", "")
    description = ics.partition("DESCRIPTION:")[2].partition("\r\n")[0].replace("\\,", ",")
    assert "is Thu 26 Nov 2026, 03:00 UTC (Thu 26 Nov, 12:00 Asia/Tokyo). Reply" in description
    to_ann = " ".join(text_of(next(m for m in mails if m["To"] == ANN)).split())
    assert (
        "The game service was not running from Mon 23 Nov 2026, 11:00 UTC (Mon 23 Nov, "
        "20:00 Asia/Tokyo) to Wed 25 Nov 2026, 21:00 UTC (Thu 26 Nov, 06:00 Asia/Tokyo), "
        "and the deadline of decision 1 passed meanwhile. It is now Thu 26 Nov 2026, 03:00 "
        "UTC (Thu 26 Nov, 12:00 Asia/Tokyo) (6 hours from now)."
    ) in to_ann
    to_bob = " ".join(text_of(next(m for m in mails if m["To"] == BOB)).split())
    assert "gio 26 nov 2026, 03:00 UTC (gio 26 nov, 04:00 Europe/Rome)" in to_bob


runner = CliRunner()


def _ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_pbem_reply_answers_the_mail_that_asks_and_read_reaches_older_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    _ok("new-game", "--player", "Sina:you@localhost", "--bot", "Kai:greedy", "--seed", "1")
    _ok("poll")
    _ok("reply", "place Atlantis b")  # refused: the answer carries the decision again
    _ok("poll")
    listed = _ok("read", "--list").splitlines()
    assert len(listed) == 3
    assert "Welcome to game 1" in listed[0]
    assert listed[2].endswith("(asks for your decision)") and "not applied" in listed[2]
    assert "Welcome to game 1" in _ok("read", "1")
    # twice in a row: each reply answers the newest mail that asks, never a past decision
    _ok("reply", "place Tonga b")
    assert "handled 1 messages" in _ok("poll")
    assert "(decision 3)" in _ok("read")
    assert "past" not in _ok("read")
    missing = runner.invoke(app, ["read", "9"])
    assert missing.exit_code == 2 and "there is no mail 9" in missing.output


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("place Tunga a", "Did you mean Tonga?"),
        ("expand samao a", "Did you mean Samoa?"),
        ("emigrate Tahitu a N", "Did you mean Tahiti or"),
        ("place Qwxz a", "No island is called 'qwxz'. Write it as"),
    ],
)
def test_a_misspelt_island_gets_a_suggestion(line: str, says: str) -> None:
    with pytest.raises(ChoiceError, match=re.escape(says)):
        parse_choice(line)


def test_fiji_is_the_island_the_tiles_call_fidschi() -> None:
    assert str(parse_choice("place Fiji a")) == "place Fidschi a"


def test_english_mail_says_fiji_and_italian_mail_the_printed_fidschi(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    stack = ["Fidschi", *(tile for tile in STACK_TILES if tile != "Fidschi")]
    ann, bob = SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue", lang="it")
    service.new_game([ann, bob], stack=stack, now=START)
    mails, at = take_mail(service), START
    for who, lines in [
        (ANN, "place Tonga a"),
        (BOB, "place Tonga b"),
        (ANN, "place Tonga a"),
        (BOB, "place Tonga b"),
        (ANN, "colonise\nput Tonga N red S\nplace Fiji a"),  # the tile drawn is Fidschi
    ]:
        at += HOUR
        assert handle(service, reply_to(_prompt_for(mails, who), lines), at) == "applied"
        mails = take_mail(service)
    english = text_of(next(m for m in mails if m["To"] == ANN))
    assert "- Red put 1 boat on Fiji (a)." in english  # the news
    assert "\n* Fiji (5 points)\n" in english  # the islands
    assert "d: -     3 of 3 free; jetty N to Fiji" in english
    assert ":  Fiji :" in english and "Fidschi is Fiji" not in english  # the map, no key
    assert "new tiles: Fiji." in " ".join(english.split())  # the tiles laid since the last mail
    italian = text_of(_prompt_for(mails, BOB))
    assert "- Rosso ha messo 1 barca su Fidschi (a)." in italian
    assert "\n* Fidschi (5 punti)\n" in italian and ":Fidschi:" in italian
    assert "Fidschi è Fiji" in italian and "Fiji (" not in italian
    assert "Fidschi." in " ".join(italian.split()).split("ultima mail")[1][:40], italian[:300]
    at += HOUR
    assert handle(service, reply_to(_prompt_for(mails, BOB), "expand Tonga c,d"), at) == "applied"
    prompt = _prompt_for(take_mail(service), ANN)
    options = text_of(prompt)
    assert "   1) expand Fiji a\n" in options and "   4) royal Fiji\n" in options
    assert "Fidschi" not in options
    assert handle(service, reply_to(prompt, "expand Fiji a"), at + HOUR) == "applied"
    assert _detail(service) == "expand Fiji a -> applied (expand Fidschi a)"  # stored as printed
    echoed = [text_of(m) for m in take_mail(service) if m["To"] == ANN]
    assert echoed and all("applied: expand Fiji a" in t and "Fidschi" not in t for t in echoed)
    assert handle(service, reply_to(prompt, "log"), at + 2 * HOUR) == "answered"
    (log,) = [text_of(m) for m in take_mail(service) if m["To"] == ANN]
    assert "expand Fiji a" in log and "Fidschi" not in log


def test_a_typo_by_mail_is_answered_with_the_island_meant(tmp_path: Path) -> None:
    service = _game(tmp_path)
    prompt = _prompt_for(take_mail(service), ANN)
    assert handle(service, reply_to(prompt, "place Tunga a"), START + HOUR) == "rejected"
    assert "Did you mean Tonga?" in text_of(take_mail(service)[0])


def test_an_html_reply_with_a_sign_off_is_applied_and_says_so(tmp_path: Path) -> None:
    """The issue's case: `place tonga e<br><br>Thanks!` from an HTML-only mail client."""
    service = _game(tmp_path)
    prompt = _prompt_for(take_mail(service), ANN)
    reply = EmailMessage()
    reply["From"] = ANN
    reply["To"] = str(prompt["Reply-To"])
    reply["Subject"] = "Re: " + str(prompt["Subject"])
    reply["Message-ID"] = "<html-reply@example.test>"
    reply.set_content("<div>place tonga e<br><br>Thanks!</div>", subtype="html")
    assert handle(service, bytes(reply), START + HOUR) == "applied"
    mails = take_mail(service)
    assert not any("Not applied" in str(m["Subject"]) for m in mails)
    text = text_of(next(m for m in mails if m["To"] == ANN))
    assert "> place tonga e\n  applied: place Tonga e" in text
    assert "> Thanks!\n  ignored: not a command, so not read" in text


def test_the_demo_player_has_a_name(tmp_path: Path) -> None:
    """Not "You": the mails read "You are Sina (blue)" and "Game over: Sina won"."""
    from pbem.host.cli import demo_seats

    service = local_service(tmp_path)
    service.new_game(demo_seats(), seed=1, now=START)
    mails = take_mail(service)
    assert "You are Sina (blue)." in text_of(mails[0])
    assert not any("You are You" in text_of(m) for m in mails)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("staus", "'staus' is not a command. Did you mean status? A move is"),
        ("plase Tonga a", "'plase' is not a command. Did you mean place?"),
        ("expnad Tonga a", "'expnad' is not a command. Did you mean expand?"),
        ("stto", "'stto' is not a command. Did you mean stato?"),  # Italian: status
        ("frobnicate", "'frobnicate' is not a command. A move is"),
    ],
)
def test_a_misspelt_command_gets_a_suggestion(tmp_path: Path, body: str, says: str) -> None:
    service = _game(tmp_path)
    prompt = _prompt_for(take_mail(service), ANN)
    assert handle(service, reply_to(prompt, body), START + HOUR) == "rejected"
    assert says in _detail(service)
    (mail,) = take_mail(service)
    assert says in _lines(mail)


def test_a_misspelt_command_after_a_move_is_refused_with_a_suggestion_not_left_unread(
    tmp_path: Path,
) -> None:
    service = _game(tmp_path)
    prompt = _prompt_for(take_mail(service), ANN)
    body = "place Tonga a\nstaus\nRegards"
    handle(service, reply_to(prompt, body), START + HOUR)
    text = _lines(next(m for m in take_mail(service) if m["To"] == ANN))
    assert "> staus rejected: 'staus' is not a command. Did you mean status?" in text
    assert "applied in part: line 1 was applied, line 2 was not" in text


def _to_emigration(service: Service) -> EmailMessage:
    """Both place their set-up boats on Tonga a and c, then Ann fills both: her prompt to
    choose which full beach emigrates first."""
    lines = [(ANN, "place Tonga a"), (BOB, "place Tonga a"), (ANN, "place Tonga c")]
    lines += [(BOB, "place Tonga c"), (ANN, "expand Tonga a,c")]
    for number, (address, line) in enumerate(lines, start=1):
        prompt = _prompt_for(take_mail(service), address)
        assert handle(service, reply_to(prompt, line), START + number * HOUR) == "applied"
    return _prompt_for(take_mail(service), ANN)


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("emigrate Tonga a sout", "'sout' is not a direction: did you mean S? Beach Tonga a has "),
        (
            "emigrate Tonga c nww",
            "'nww' is not a direction: did you mean NW? Beach Tonga c has one jetty: NW.",
        ),
        ("emigrate Tonga c nrth", "'nrth' is not a direction: did you mean NW? Beach Tonga c"),
        ("emigrate Tonga c up", "'up' is not a direction; beach Tonga c has one jetty: NW."),
        ("emigrate Tonga a N", "beach a has no jetty to the north (its jetties: S)"),
    ],
)
def test_a_misspelt_jetty_names_the_jetties_of_that_beach(
    tmp_path: Path, line: str, says: str
) -> None:
    service = _game(tmp_path)
    prompt = _to_emigration(service)
    assert "emigrate Tonga a S" in text_of(prompt) and "emigrate Tonga c NW" in text_of(prompt)
    assert handle(service, reply_to(prompt, line), START + 9 * HOUR) == "rejected"
    (mail,) = take_mail(service)
    assert mail["X-Tongiaki-Kind"] == "prompt"
    assert says in _lines(mail)


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (
            "emigrate Samoa b nww",
            "'nww' is not a direction (S, SW, NW, N, NE or SE). Did you mean NW?",
        ),
        ("emigrate Samoa b nrth", "Did you mean N?"),
        (
            "put Samoa nrth red S",
            "'nrth' is not a direction (S, SW, NW, N, NE or SE). Did you mean N?",
        ),
        ("put Samoa NE red sout", "Did you mean S?"),
        ("emigrate Samoa b up", "'up' is not a direction (S, SW, NW, N, NE or SE). Write it as"),
    ],
)
def test_a_misspelt_direction_gets_the_closest_without_a_board(line: str, says: str) -> None:
    with pytest.raises(DirectionError, match=re.escape(says)):
        parse_choice(line)


def test_the_players_table_of_every_mail_gives_the_points_of_each_island(
    tmp_path: Path,
) -> None:
    service = _game(tmp_path)
    prompt = _prompt_for(take_mail(service), ANN)
    assert handle(service, reply_to(prompt, "place Tonga a"), START + HOUR) == "applied"
    mail = next(m for m in take_mail(service) if m["To"] == ANN)
    players = text_of(mail).split("\nPLAYERS ", 1)[1].split("\nStack:", 1)[0]
    nbsp = "\u00a0"  # an island and its points stay on one line
    assert players.splitlines()[1:] == [
        "R Ann               0       1      14  <- you",
        f"  points from: Tonga{nbsp}0",
        "B Bob               0       0      15",  # on no island: no line
    ]
    html = mail.get_body(("html",))
    assert html is not None
    assert f">points from: Tonga{nbsp}0</td></tr>" in str(html.get_content())
