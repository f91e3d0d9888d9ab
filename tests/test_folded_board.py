"""News shows what changed (issue 31, half the mail): an update, and an observer's mail, show
in full only the islands that changed since the reader's last mail and name the others in
one line; a prompt, the `board` command and the digest keep every island."""

from __future__ import annotations

import re
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

from engine import STACK_TILES, Event, Setup, State, parse_choice
from pbem.core.kinds import MailKind
from pbem.flow.deadlines import send_held
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.mail_out import policy
from pbem.views import view
from tests.support.localmail import START, local_service, reply_to, take_mail, text_of

ANN, BOB, CY, DEE = "ann@example.test", "bob@example.test", "cy@example.test", "dee@example.test"
OLGA = "olga@example.test"
UNCHANGED = "Unchanged since your last mail:"
STEP = timedelta(minutes=5)


def test_only_news_is_folded_and_a_board_asked_for_is_whole() -> None:
    assert policy.folded(MailKind.UPDATE) and policy.folded(MailKind.WATCH)
    assert not policy.folded(MailKind.UPDATE, asked=True)  # `board` with a move
    assert not policy.folded(MailKind.UPDATE, digest=True)
    for kind in (MailKind.PROMPT, MailKind.REMINDER, MailKind.GAME_OVER, MailKind.ANSWER):
        assert not policy.folded(kind)


def _islands(text: str) -> tuple[list[str], str]:
    """The islands a text mail shows in full (their heading lines), and its line of the
    others ("" when none)."""
    part = text.split("ISLANDS (", 1)[1].split("\n\n", 1)[0]
    shown = [
        line for line in part.splitlines() if re.match(r"[* ]?\*? ?[A-Z][a-z]+ \(\d+ points", line)
    ]
    folded = next((line for line in part.splitlines() if line.startswith(UNCHANGED)), "")
    return shown, folded


def _html(mail: EmailMessage) -> str:
    body = mail.get_body(("html",))
    assert body is not None
    return str(body.get_content())


def _until_folded(service: Service, mails: list[EmailMessage]) -> list[EmailMessage]:
    """Answer each prompt with option 1 (the first in `mails`) until a round's news folds an
    island: the mails of that round."""
    at = START
    for _ in range(40):
        prompt = next(m for m in mails if m["X-Tongiaki-Kind"] == "prompt")
        at += STEP
        assert handle(service, reply_to(prompt, "1"), at) == "applied"
        send_held(service, at)
        mails = take_mail(service)
        if any("* changed since" in text_of(m) and ": Tonga." in text_of(m) for m in mails):
            return mails
    raise AssertionError("no update folded an island in 40 replies")


def test_an_update_shows_the_changed_islands_and_names_the_rest(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    seats = [
        SeatSpec("Ann", ANN, "red"),
        SeatSpec("Bob", BOB, "blue"),
        SeatSpec("Cy", CY, "green"),
        SeatSpec("Dee", DEE, "yellow"),
    ]
    service.new_game(seats, seed=1, observers=[(OLGA, "Olga")], now=START)
    mails = _until_folded(service, take_mail(service))
    prompt = next(m for m in mails if m["X-Tongiaki-Kind"] == "prompt")
    updates = [m for m in mails if m["X-Tongiaki-Kind"] == "update"]
    assert len(updates) == 3
    for update in updates:
        text = text_of(update)
        shown, folded = _islands(text)
        assert folded == f"{UNCHANGED} Tonga."
        assert shown == ["* Tuvalu (4 points)"]  # changed, marked, in full with its beaches
        assert "\n* a: R " in text and "\n* c: Y " in text
        assert "Tonga (0 points)" not in text and ": Tonga :" in text  # the map keeps it
        assert max(len(line) for line in text.splitlines()) <= 78
        page = _html(update)
        assert f"{UNCHANGED} Tonga." in page
        assert "<b>Tuvalu*</b>" in page and "<b>Tonga" not in page
    # the one who decides plans: every island, no line of the others
    shown, folded = _islands(text_of(prompt))
    assert folded == "" and [line.lstrip("* ") for line in shown] == [
        "Tonga (0 points)",
        "Tuvalu (4 points)",
    ]
    assert UNCHANGED not in _html(prompt) and "<b>Tonga" in _html(prompt)
    # an observer's mail of the same round is news: folded as well
    (watch,) = [m for m in mails if m["To"] == OLGA]
    assert _islands(text_of(watch))[1] == f"{UNCHANGED} Tonga."
    # a player who asks for the board gets every island
    reader = next(m for m in updates if m["To"] != prompt["To"])
    assert handle(service, reply_to(reader, "board"), START + timedelta(days=1)) == "answered"
    (answer,) = take_mail(service)
    assert answer["To"] == reader["To"] and UNCHANGED not in text_of(answer)
    assert len(_islands(text_of(answer))[0]) == 2


def test_an_italian_reader_reads_the_line_in_italian(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    seats = [
        SeatSpec("Ann", ANN, "red"),
        SeatSpec("Bob", BOB, "blue"),
        SeatSpec("Cy", CY, "green"),
        SeatSpec("Dee", DEE, "yellow"),
    ]
    service.new_game(seats, seed=1, now=START)
    mails = take_mail(service)
    dee = next(m for m in mails if m["To"] == DEE)
    assert handle(service, reply_to(dee, "lang it"), START + STEP / 2) == "applied"
    take_mail(service)
    mails = _until_folded(service, mails)
    (update,) = [m for m in mails if m["To"] == DEE and m["X-Tongiaki-Kind"] == "update"]
    assert "Invariate dalla tua ultima mail: Tonga." in text_of(update)
    assert "Invariate dalla tua ultima mail: Tonga." in _html(update)


def test_an_island_whose_jetty_leads_to_a_new_tile_is_shown_in_full() -> None:
    """Tonga's boats did not move, but its jetty N now leads to Fiji: it changed."""
    stack = ("Fidschi", *(tile for tile in STACK_TILES if tile != "Fidschi"))
    state = State(Setup(("red", "blue"), stack))
    for line in ("place Tonga a", "place Tonga b", "place Tonga a", "place Tonga b"):
        state.apply(parse_choice(line))
    events = _after(state, "colonise", "put Tonga N red S")
    board = view.folded(view.marked(view.board(state, ["Ann", "Bob"]), view.changes(events)))
    assert [island.name for island in board.islands] == ["Tonga", "Fiji"]
    assert board.as_before == ()
    tonga = board.islands[0]
    assert tonga.changed and "N to Fiji" in tonga.beaches[3].jetties


def _after(state: State, *lines: str) -> list[Event]:
    """The events of `lines` played on `state`, and of the decisions they leave to the same
    player that have one option (the landing on the new island)."""
    events: list[Event] = []
    for line in lines:
        events += state.apply(parse_choice(line))
    while (decision := state.decision) is not None and decision.seat == 0:
        events += state.apply(state.legal_choices()[0])
    return events
