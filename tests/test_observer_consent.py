"""Nobody is mailed without consent, and everybody can stop (issue 27, item 3): an observer
the game master names is invited first and mailed nothing else until they accept; every
mail to an observer carries List-Unsubscribe; `stop` ends everything, with one short answer.
Against a spammer's game master mail, a stranger, a replay, an autoresponder, the clock and
a poll killed with SIGKILL."""

from __future__ import annotations

import time
from datetime import timedelta
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from sqlmodel import col, select

from pbem.flow.deadlines import tick
from pbem.flow.gm import GameMaster
from pbem.flow.replies import handle
from pbem.flow.service import GameError, SeatSpec, Service
from pbem.host.runner import run_cycle
from pbem.host.transport import MaildirInbox
from pbem.store.db import session
from pbem.store.models import MAX_OBSERVERS, Declined, Inbound, Observer
from tests.support.localmail import (
    START,
    handled,
    killed_mid_batch,
    local_service,
    poll_command,
    reply_to,
    take_mail,
    text_of,
)
from tests.test_poison import poisons

ANN, BOB, GM = "ann@example.test", "bob@example.test", "gm@example.test"
OLGA, EVE = "olga@example.test", "eve@example.test"
MINUTE, HOUR = timedelta(minutes=1), timedelta(hours=1)
DAY = timedelta(days=1)


def _game(service: Service, *, seed: int = 3, **options: object) -> int:
    seats = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")]
    return service.new_game(seats, seed=seed, gm=GM, now=START, **options)  # type: ignore[arg-type]


def _to(mails: list[EmailMessage], address: str) -> list[EmailMessage]:
    return [m for m in mails if m["To"] == address]


def _flat(mail: EmailMessage) -> str:
    return " ".join(text_of(mail).split())


def _invite(service: Service, line: str = f"observe {OLGA} Olga", at: int = 1) -> EmailMessage:
    """The game master invites someone from the command line; the invitation."""
    results, _ = GameMaster(service).run_host(1, [line], START + at * HOUR)
    assert [r.outcome for r in results] == ["applied"], results
    mails = take_mail(service)
    (invitation,) = mails  # to the invitee alone: the players are told nothing yet
    assert invitation["X-Tongiaki-Kind"] == "invitation"
    return invitation


def _observer(service: Service, address: str = OLGA) -> Observer:
    with session(service.engine) as db:
        found = db.exec(select(Observer).where(Observer.address == address)).one()
        db.expunge(found)
        return found


def _detail(service: Service) -> str:
    with session(service.engine) as db:
        row = db.exec(select(Inbound).order_by(col(Inbound.id).desc())).first()
        assert row is not None
        return row.detail


def _unsubscribe(mail: EmailMessage, *, sender: str = OLGA, **headers: str) -> bytes:
    """What a mail client sends for the List-Unsubscribe of `mail` (its mailto: as given)."""
    value = str(mail["List-Unsubscribe"]).strip()  # folded onto a line of its own
    assert value.startswith("<mailto:") and value.endswith(">"), value
    url = urlsplit(value[1:-1])
    fields = dict(part.split("=", 1) for part in url.query.split("&"))
    message = EmailMessage()
    message["From"] = sender
    message["To"] = url.path
    message["Subject"] = unquote(fields["subject"])
    message["Message-ID"] = make_msgid("unsubscribe", domain="example.test")
    for name, text in headers.items():
        message[name.replace("_", "-")] = text
    message.set_content(unquote(fields["body"]) + "\n")
    return bytes(message)


def _sent(service: Service) -> list[Path]:
    """The mails the service handed to its local transport."""
    return [p for p in service.settings.outbox_dir.rglob("*") if p.is_file()]


def _move(service: Service, mails: list[EmailMessage], at: timedelta) -> list[EmailMessage]:
    """The player whose decision is open makes it; the mails that causes."""
    prompt = next(m for m in reversed(mails) if m["X-Tongiaki-Decision"])
    assert handle(service, reply_to(prompt, "1"), START + at) == "applied"
    return take_mail(service)


def test_an_invitation_says_who_invites_and_how_to_answer_and_nothing_comes_before_watch(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    invitation = _invite(service)
    assert invitation["To"] == OLGA
    assert str(invitation["Subject"]) == "[Tongiaki g1] Will you watch game 1?"
    text = _flat(invitation)
    assert "The game master of game 1 of Tongiaki by email" in text
    assert "reply to this mail with the word watch" in text and "reply stop" in text
    assert "the invitation lapses" in text and "30 Nov 2026" in text  # 7 days on
    # neither the game master's address nor the name they gave greets her
    assert GM not in str(invitation) and "Olga" not in str(invitation)
    # unconfirmed: not named to the players, not mailed the news
    news = _move(service, mails, 2 * HOUR)
    assert OLGA not in [m["To"] for m in news]
    assert all("Olga" not in text_of(m) for m in news)
    # a reply with anything but watch or stop is not answered, and accepts nothing
    for minute, body in enumerate(["status", "Watch this space!", "yes", "Thanks"], 1):
        assert handle(service, reply_to(invitation, body), START + 3 * HOUR + minute * MINUTE) in (
            "rejected",
            "ignored",
        )
        assert "not answered (an invitation not accepted)" in _detail(service)
    assert take_mail(service) == []
    assert _observer(service).confirmed_at is None
    # `watch` accepts: her first mail of the game, and the players hear who watches now
    assert handle(service, reply_to(invitation, "watch"), START + 4 * HOUR) == "applied"
    told = take_mail(service)
    (welcome,) = _to(told, OLGA)
    assert welcome["X-Tongiaki-Kind"] == "watch" and "You watch game 1" in str(welcome["Subject"])
    assert "Olga watches the game now." in text_of(_to(told, ANN)[-1])
    assert "Watching: Olga." in text_of(_to(told, ANN)[-1])
    assert OLGA in [m["To"] for m in _move(service, mails + told, 5 * HOUR)]


def test_a_spammers_observe_lines_mail_at_most_twenty_strangers_and_never_their_text(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    spam = "Buy cheap pills at pills.example"
    lines = "\n".join(f"observe victim{n}@example.test {spam}"[:70] for n in range(30))
    assert handle(service, reply_to(_to(mails, GM)[-1], lines), START + HOUR) == "rejected"
    told = take_mail(service)
    invitations = [m for m in told if m["X-Tongiaki-Kind"] == "invitation"]
    assert len(invitations) == MAX_OBSERVERS == 20
    assert all("pills" not in str(m).lower() for m in invitations)
    assert [m["To"] for m in told if m["X-Tongiaki-Kind"] != "invitation"] == [GM]
    answer = _flat(_to(told, GM)[0])
    assert "A game has at most 20 observers" in answer
    # the players never see them, nor does any of them get the news
    news = _move(service, mails, 2 * HOUR)
    assert {m["To"] for m in news} <= {ANN, BOB, GM}
    assert all("pills" not in text_of(m) for m in news)
    # withdrawing an invitation frees no place: a game master cannot mail stranger on stranger
    results, _ = GameMaster(service).run_host(
        1, ["unobserve victim0@example.test", "observe victim20@example.test"], START + 3 * HOUR
    )
    assert [r.outcome for r in results] == ["applied", "rejected"]
    assert "invitation to" in results[0].detail and "withdrawn" in results[0].detail
    assert take_mail(service) == []
    # ... nor invite the one withdrawn again
    again, _ = GameMaster(service).run_host(1, ["observe victim0@example.test"], START + 4 * HOUR)
    assert again[0].outcome == "rejected" and "an address is invited once" in again[0].detail


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (f"observe {OLGA} " + "x" * 41, "too long for a name"),
        (f"observe {OLGA} Olga <olga@evil.example>", "a name is not an address"),
        (f"observe {OLGA} Ol\u202ega", "invisible formatting character"),
        ("observe not-an-address Olga", "is not a mail address"),
        (f"observe {ANN}", "has a seat or watches this game already"),
    ],
)
def test_an_invitees_name_and_address_pass_the_players_checks(
    tmp_path: Path, line: str, why: str
) -> None:
    service = local_service(tmp_path)
    _game(service)
    take_mail(service)
    results, _ = GameMaster(service).run_host(1, [line], START + HOUR)
    assert results[0].outcome == "rejected" and why in results[0].detail
    assert take_mail(service) == []
    with session(service.engine) as db:
        assert db.exec(select(Observer)).all() == []


def test_stop_to_an_invitation_is_answered_once_and_no_game_master_invites_again(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    _game(service, seed=4)
    take_mail(service)
    invitation = _invite(service)
    assert handle(service, reply_to(invitation, "stop"), START + 2 * HOUR) == "applied"
    (answer,) = take_mail(service)
    assert answer["To"] == OLGA and answer["X-Tongiaki-Kind"] == "notice"
    assert str(answer["Subject"]) == "[Tongiaki g1] No more mail from game 1"
    assert "no game master of this service invites you to watch a game again" in _flat(answer)
    assert answer["List-Unsubscribe"]
    # the same stop again (a new Message-ID), another stop, her `watch`: nothing, ever
    for hour, body in enumerate(["stop", "unsubscribe", "watch"], 3):
        assert handle(service, reply_to(invitation, body), START + hour * HOUR) == "ignored"
    assert take_mail(service) == []
    # no game master invites her again, to this game or another
    for game in (1, 2):
        results, _ = GameMaster(service).run_host(game, [f"observe {OLGA}"], START + 6 * HOUR)
        assert results[0].outcome == "rejected"
        assert "said stop" in results[0].detail
    assert take_mail(service) == []
    # the host may still add her to a new game (their word is her consent)
    service.new_game(
        [SeatSpec("Ann", ANN), SeatSpec("Bob", BOB)],
        seed=5,
        observers=[(OLGA, "Olga")],
        now=START + 7 * HOUR,
    )
    assert [m["X-Tongiaki-Kind"] for m in _to(take_mail(service), OLGA)] == ["watch"]


def test_her_own_watch_to_another_invitation_takes_her_off_the_declined_list(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    _game(service, seed=4)
    take_mail(service)
    first = _invite(service)
    GameMaster(service).run_host(2, [f"observe {OLGA} Olga"], START + HOUR)
    (second,) = take_mail(service)
    assert handle(service, reply_to(first, "stop"), START + 2 * HOUR) == "applied"
    take_mail(service)
    with session(service.engine) as db:
        assert db.get(Declined, OLGA) is not None
    assert handle(service, reply_to(second, "watch"), START + 3 * HOUR) == "applied"
    assert [m["X-Tongiaki-Kind"] for m in _to(take_mail(service), OLGA)] == ["watch"]
    with session(service.engine) as db:
        assert db.get(Declined, OLGA) is None


@pytest.mark.parametrize(
    "word",
    [
        "stop",
        "STOP.",
        "Unsubscribe",
        "unobserve",
        "basta",
        "afmelden",
        "lopeta",
        "leiratkozom",
        "הסרה",
    ],
)
def test_stop_from_a_watching_observer_in_any_language_ends_all_their_mail(
    tmp_path: Path, word: str
) -> None:
    service = local_service(tmp_path)
    _game(service, observers=[(OLGA, "Olga")])
    mails = take_mail(service)
    (welcome,) = _to(mails, OLGA)
    assert handle(service, reply_to(welcome, word), START + HOUR) == "applied"
    told = take_mail(service)
    (answer,) = _to(told, OLGA)
    assert answer["X-Tongiaki-Kind"] == "notice"
    assert "this is the last mail you get from game 1" in _flat(answer)
    assert "invites you" not in _flat(answer)  # she had accepted: no word of invitations
    assert "Olga no longer watches the game." in text_of(_to(told, ANN)[-1])
    # nothing more: the news, the game over, her own commands
    assert OLGA not in [m["To"] for m in _move(service, mails, 2 * HOUR)]
    assert handle(service, reply_to(welcome, "status"), START + 3 * HOUR) == "ignored"
    results, _ = GameMaster(service).run_host(1, ["end"], START + 4 * HOUR)
    assert results[0].outcome == "applied"
    assert OLGA not in [m["To"] for m in take_mail(service)]
    # a watcher who stopped is not invited to this game again (elsewhere she may be)
    again, _ = GameMaster(service).run_host(1, [f"observe {OLGA}"], START + 5 * HOUR)
    assert again[0].outcome == "rejected"


def test_every_mail_to_an_observer_carries_a_list_unsubscribe_that_stops_it(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    mails = take_mail(service)
    invitation = _invite(service)
    seen = {"invitation": invitation}
    assert handle(service, reply_to(invitation, "watch"), START + 2 * HOUR) == "applied"
    seen["welcome"] = _to(take_mail(service), OLGA)[0]
    seen["news"] = _to(_move(service, mails, 3 * HOUR), OLGA)[0]
    assert handle(service, reply_to(seen["news"], "status"), START + 4 * HOUR) == "answered"
    seen["answer"] = _to(take_mail(service), OLGA)[0]
    assert handle(service, reply_to(seen["news"], "bogus"), START + 5 * HOUR) == "rejected"
    seen["error"] = _to(take_mail(service), OLGA)[0]
    GameMaster(service).run_host(1, ["end"], START + 6 * HOUR)
    seen["game over"] = _to(take_mail(service), OLGA)[0]
    assert seen["game over"]["X-Tongiaki-Kind"] == "game_over"
    for name, mail in seen.items():
        value = str(mail["List-Unsubscribe"]).strip()
        reply = str(mail["Reply-To"]).split("<")[-1].rstrip(">")
        assert value.startswith(f"<mailto:{reply}?subject=stop&body=stop>"), name
        assert "+g1-o1-" in value, name
        assert not mail["List-Unsubscribe-Post"], name
    # her mail client's unsubscribe (to the last mail's address) stops her mail
    assert handle(service, _unsubscribe(seen["game over"]), START + 7 * HOUR) == "applied"
    (answer,) = take_mail(service)  # the game is over: the players hear no more of it
    assert answer["To"] == OLGA and "last mail" in _flat(answer)
    assert _observer(service).ended == "stop"


def test_without_plus_addressing_the_unsubscribe_carries_the_tag_in_its_subject(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path, plus_addressing=False)
    _game(service, observers=[(OLGA, "Olga")])
    (welcome,) = _to(take_mail(service), OLGA)
    value = str(welcome["List-Unsubscribe"]).strip()
    assert value.startswith("<mailto:tongiaki@example.test?subject=stop%20%5BTongiaki%20g1%20")
    assert handle(service, _unsubscribe(welcome), START + HOUR) == "applied"
    told = take_mail(service)
    assert [m["X-Tongiaki-Kind"] for m in _to(told, OLGA)] == ["notice"]
    assert {m["To"] for m in told} == {OLGA, ANN, BOB}  # who watches changed
    assert _observer(service).ended == "stop"


def test_an_automatic_unsubscribe_stops_quietly_and_an_autoresponder_never_accepts(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    take_mail(service)
    invitation = _invite(service)
    # an autoresponder's answer, marked (dropped at the door) or not (not `watch`): unanswered
    marked = reply_to(invitation, "watch", Auto_Submitted="auto-replied")
    assert handle(service, marked, START + 2 * HOUR) == "ignored"
    assert "Auto-Submitted" in _detail(service)
    careless = reply_to(invitation, "I am out of the office until Monday.", quote=False)
    assert handle(service, careless, START + 3 * HOUR) == "rejected"
    listy = reply_to(invitation, "watch", Precedence="bulk")
    assert handle(service, listy, START + 4 * HOUR) == "ignored"
    assert take_mail(service) == [] and _observer(service).confirmed_at is None
    # an unsubscribing agent that marks its mail automatic still stops her mail, unanswered
    agent = _unsubscribe(invitation, Auto_Submitted="auto-generated")
    assert handle(service, agent, START + 5 * HOUR) == "applied"
    assert take_mail(service) == []
    assert _observer(service).ended == "stop"


def test_a_stranger_cannot_accept_for_her_but_whoever_has_her_mail_may_stop_it(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path)
    _game(service)
    take_mail(service)
    invitation = _invite(service)
    assert handle(service, reply_to(invitation, "watch", sender=EVE), START + 2 * HOUR) == (
        "refused"
    )
    forged = reply_to(invitation, "stop").replace(b"+g1-o1-1-", b"+g1-o2-1-")
    assert handle(service, forged, START + 2 * HOUR) == "refused"
    assert take_mail(service) == [] and _observer(service).confirmed_at is None
    # her mail forwarded elsewhere, unsubscribed from there: stopped, and she is told
    assert handle(service, _unsubscribe(invitation, sender=EVE), START + 3 * HOUR) == "applied"
    (answer,) = take_mail(service)
    assert answer["To"] == OLGA


def test_an_invitation_not_accepted_in_seven_days_lapses_without_a_word(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    _game(service)
    take_mail(service)
    invitation = _invite(service, at=0)
    assert tick(service, START + 7 * DAY - HOUR).lapsed == 0
    assert _observer(service).ended is None
    assert tick(service, START + 7 * DAY).lapsed == 1
    assert _observer(service).ended == "lapsed"
    assert OLGA not in [m["To"] for m in take_mail(service)]
    assert handle(service, reply_to(invitation, "watch"), START + 8 * DAY) == "ignored"
    assert take_mail(service) == []
    results, _ = GameMaster(service).run_host(1, [f"observe {OLGA}"], START + 8 * DAY)
    assert results[0].outcome == "rejected" and "did not accept" in results[0].detail


def test_a_late_watch_before_the_clock_saw_the_lapse_accepts_nothing(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    _game(service)
    take_mail(service)
    invitation = _invite(service, at=0)
    assert handle(service, reply_to(invitation, "watch"), START + 7 * DAY + HOUR) == "ignored"
    assert take_mail(service) == []
    assert _observer(service).ended == "lapsed"


def test_a_host_adds_at_most_twenty_observers(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    many = [(f"o{n}@example.test", None) for n in range(21)]
    with pytest.raises(GameError, match="at most 20 observers"):
        _game(service, observers=many)
    _game(service, observers=many[:20])
    assert len([m for m in take_mail(service) if m["X-Tongiaki-Kind"] == "watch"]) == 20


def test_a_poll_killed_mid_batch_of_answers_to_invitations_acts_on_each_once(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path, inbound_batch=3)
    games = 8  # 24 mails in 8 batches: the kill lands between two of them
    batch: dict[str, bytes] = {}
    for game in range(1, games + 1):
        _game(service, seed=game)
        take_mail(service)
        results, _ = GameMaster(service).run_host(game, [f"observe {OLGA}"], START + HOUR)
        assert results[0].outcome == "applied"
        (invitation,) = take_mail(service)
        # accepted, the same again (a replay), then stopped
        for n, body in enumerate(["watch", "watch", "stop"]):
            batch[f"{game:02}.{n}"] = reply_to(invitation, body)
    MaildirInbox(service.settings.inbox_dir)
    new = service.settings.inbox_dir / "new"
    for name, raw in sorted(batch.items()):
        (new / f"{time.time_ns()}.{name}").write_bytes(raw)
    database = service.settings.database_path
    killed_at = killed_mid_batch(poll_command(service, tmp_path, START + 2 * HOUR), database)
    assert 0 < killed_at < len(batch), "the kill did not land in the middle of the poll"
    run_cycle(service, START + 3 * HOUR)
    assert handled(database) == len(batch)
    with session(service.engine) as db:
        rows = db.exec(select(Observer)).all()
        assert len(rows) == games
        assert all(o.confirmed_at is not None and o.ended == "stop" for o in rows)
        outcomes = [i.outcome for i in db.exec(select(Inbound).order_by(col(Inbound.id)))]
    assert outcomes.count("applied") == 2 * games  # each watch once, each stop once
    assert outcomes.count("ignored") == games  # the replays


def test_malformed_mail_to_an_invitation_accepts_and_stops_nothing(tmp_path: Path) -> None:
    service = local_service(tmp_path)
    _game(service)
    take_mail(service)
    invitation = _invite(service)
    target = str(invitation["Reply-To"]).split("<")[-1].rstrip(">")
    hostile = dict(poisons(target, OLGA))
    hostile["8 bit"] = f"From: {OLGA}\nTo: {target}\nMessage-ID: <w8@x.test>\n\n".encode() + (
        b"watch \xff\n"
    )
    hostile["no text"] = f"From: {OLGA}\nTo: {target}\nMessage-ID: <w0@x.test>\n\n".encode()
    MaildirInbox(service.settings.inbox_dir)
    new = service.settings.inbox_dir / "new"
    for name, raw in hostile.items():
        (new / f"{time.time_ns()}.{name.replace(' ', '_')}").write_bytes(raw)
    run_cycle(service, START + 2 * HOUR)  # sends what it queued: nothing to her
    assert not any(OLGA in p.read_text(errors="replace") for p in _sent(service))
    observer = _observer(service)
    assert observer.confirmed_at is None and observer.ended is None
    assert handle(service, reply_to(invitation, "watch"), START + 3 * HOUR) == "applied"
