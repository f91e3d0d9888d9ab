"""One fixed sample game played through the service, and a mail of every kind taken from it.

The golden files, the browser test and the screenshots in docs/ all use these mails.
Regenerate the golden files after a deliberate change with `python3 dev.py golden`.
"""

from __future__ import annotations

import sys
import tempfile
from email.message import EmailMessage
from functools import cache
from pathlib import Path

from engine.bots import make_bot
from pbem import letters, view
from pbem.db import session
from pbem.render import render
from pbem.service import SeatSpec, Service
from tests.localmail import later, local_service, reply_to, take_mail

GOLDEN = Path(__file__).resolve().parent / "golden"
ANA, BEN = "ana@example.test", "ben@example.test"
SEED = 2026


@cache
def sample_mails() -> dict[str, EmailMessage]:
    """The first mail of each kind of the sample game, by name (welcome, prompt-setup ...)."""
    with tempfile.TemporaryDirectory() as tmp:
        return _play(local_service(Path(tmp)))


def _play(service: Service) -> dict[str, EmailMessage]:
    specs = [
        SeatSpec("Ana", ANA),
        SeatSpec("Ben", BEN),
        SeatSpec("Cy", None, bot="greedy"),
    ]
    game = service.new_game(specs, seed=SEED, now=later(0))
    found: dict[str, EmailMessage] = {}
    latest: dict[str, EmailMessage] = {}
    _collect(take_mail(service), found, latest)
    minute = 0
    while True:
        with session(service.engine) as db:
            _, seats, state = service.game(db, game)
        decision = state.decision
        if decision is None:
            break
        address = seats[decision.seat].address
        assert address is not None
        minute += 7
        if "error" not in found and decision.kind.value == "turn":
            body = "expand Nowhere a"
        elif "not-applied" not in found and decision.seat == 0:
            service.handle(reply_to(latest[ANA], "1", sender=BEN), later(minute))
            _collect(take_mail(service), found, latest, "not-applied")
            continue
        elif "answer" not in found and decision.seat == 0 and BEN in latest:
            service.handle(reply_to(latest[BEN], "status\nlog"), later(minute))
            _collect(take_mail(service), found, latest, "answer")
            continue
        else:
            choice = make_bot("greedy", SEED + decision.number).choose(state)
            legal = state.legal_choices()
            body = str(legal.index(choice) + 1) if decision.number % 2 else str(choice)
        service.handle(reply_to(latest[address], body), later(minute))
        _collect(take_mail(service), found, latest)
        if "reminder" not in found and "prompt-turn" in found:
            found["reminder"] = _reminder(service, game)
    return found


def _collect(
    mails: list[EmailMessage],
    found: dict[str, EmailMessage],
    latest: dict[str, EmailMessage],
    name: str | None = None,
) -> None:
    for mail in mails:
        recipient = str(mail["To"])
        if mail["X-Tongiaki-Decision"]:  # the mail asks its reader for a decision
            latest[recipient] = mail
        kind = name or _name(mail)
        found.setdefault(kind, mail)


def _name(mail: EmailMessage) -> str:
    kind = str(mail["X-Tongiaki-Kind"])
    if kind == "prompt":
        return "prompt-" + str(mail["X-Tongiaki-Decision"]).split(" ", 1)[1].replace(" ", "-")
    return kind.replace("_", "-")


def _reminder(service: Service, game: int) -> EmailMessage:
    """Reminders are sent by the deadline rules; here one is rendered for the open decision."""
    with session(service.engine) as db:
        game_row, seats, state = service.game(db, game)
    assert state.decision is not None
    at, _ = service.moment(game_row, seats, state)
    deadline = view.deadline(later(60 * 24), "Pacific/Auckland")
    mail = letters.reminder(at, state.decision.seat, deadline)
    text, html = render(mail)
    message = EmailMessage()
    message["Subject"] = mail.subject
    message["X-Tongiaki-Kind"] = "reminder"
    message.set_content(text)
    message.add_alternative(html, subtype="html")
    return message


def parts(mail: EmailMessage) -> tuple[str, str]:
    """The plain-text and the HTML part of a mail."""
    text = mail.get_body(("plain",))
    html = mail.get_body(("html",))
    assert text is not None and html is not None
    return str(text.get_content()), str(html.get_content())


def write_golden() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for old in GOLDEN.glob("*"):
        old.unlink()
    for name, mail in sorted(sample_mails().items()):
        text, html = parts(mail)
        (GOLDEN / f"{name}.txt").write_text(f"Subject: {mail['Subject']}\n\n{text}")
        (GOLDEN / f"{name}.html").write_text(html)
        print(f"wrote {name}.txt and {name}.html")


if __name__ == "__main__":
    write_golden()
    sys.exit(0)
