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

from engine import (
    make_bot,
)
from pbem.db import session
from pbem.deadlines import tick
from pbem.i18n import LANGUAGES
from pbem.replies import handle
from pbem.service import SeatSpec, Service
from tests.support.localmail import later, local_service, reply_to, take_mail

GOLDEN = Path(__file__).resolve().parent / "golden"
ANA, BEN = "ana@example.test", "ben@example.test"
SEED = 2026


@cache
def sample_mails(lang: str = "en") -> dict[str, EmailMessage]:
    """The first mail of each kind of the sample game, by name (welcome, prompt-setup ...),
    with its players reading `lang`."""
    with tempfile.TemporaryDirectory() as tmp:
        return _play(local_service(Path(tmp)), lang)


def golden_folder(lang: str) -> Path:
    """English mails are in tests/golden, each other language's in tests/golden/LANG."""
    return GOLDEN if lang == "en" else GOLDEN / lang


def _play(service: Service, lang: str = "en") -> dict[str, EmailMessage]:
    specs = [
        SeatSpec("Ana", ANA),
        SeatSpec("Ben", BEN),
        SeatSpec("Cy", None, bot="greedy"),
    ]
    game = service.new_game(specs, seed=SEED, gm="gm@example.test", now=later(0), lang=lang)
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
        if "reminder" not in found and "error" in found and decision.seat == 0:
            # Ana shows deadlines in her time zone, then waits: reminders at half-time and
            # 6 h before, then her turn is passed
            handle(service, reply_to(latest[ANA], "tz Pacific/Auckland"), later(minute))
            _collect(take_mail(service), found, latest, "")
            for _ in range(12):
                minute += 4 * 60
                tick(service, later(minute))
                for mail in take_mail(service):
                    if mail["X-Tongiaki-Kind"] == "reminder":
                        found.setdefault("reminder", mail)
                    elif mail["To"] == ANA:
                        found["update-automatic"] = mail
                    _collect([mail], found, latest, "")
            assert "update-automatic" in found
            continue
        if "error" not in found and decision.kind.value == "turn":
            # a refused line in a reply to one's own decision comes back in a prompt
            handle(service, reply_to(latest[address], "expand Nowhere a"), later(minute))
            _collect(take_mail(service), found, latest, "error")
            continue
        if "not-applied" not in found and decision.seat == 0:
            handle(service, reply_to(latest[ANA], "1", sender=BEN), later(minute))
            _collect(take_mail(service), found, latest, "not-applied")
            continue
        elif (
            "prompt-put-tile" not in found
            and "answer" in found
            and decision.seat == 0
            and "colonise" in map(str, state.legal_choices())
        ):
            body = "colonise"  # Ana draws a tile and is asked where it goes
        elif "answer" not in found and decision.seat == 0 and BEN in latest:
            handle(service, reply_to(latest[BEN], "status\nlog"), later(minute))
            _collect(take_mail(service), found, latest, "answer")
            continue
        else:
            choice = make_bot("greedy", SEED + decision.number).choose(state)
            legal = state.legal_choices()
            body = str(legal.index(choice) + 1) if decision.number % 2 else str(choice)
        handle(service, reply_to(latest[address], body), later(minute))
        _collect(take_mail(service), found, latest)
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
        kind = _name(mail) if name is None else name
        if kind:
            found.setdefault(kind, mail)


def _name(mail: EmailMessage) -> str:
    kind = str(mail["X-Tongiaki-Kind"])
    if kind == "prompt":
        return "prompt-" + str(mail["X-Tongiaki-Decision"]).split(" ", 1)[1].replace(" ", "-")
    return kind.replace("_", "-")


def parts(mail: EmailMessage) -> tuple[str, str]:
    """The plain-text and the HTML part of a mail."""
    text = mail.get_body(("plain",))
    html = mail.get_body(("html",))
    assert text is not None and html is not None
    return str(text.get_content()), str(html.get_content())


def write_golden() -> None:
    for lang in LANGUAGES:
        folder = golden_folder(lang)
        folder.mkdir(exist_ok=True)
        for old in folder.glob("*.*"):
            old.unlink()
        for name, mail in sorted(sample_mails(lang).items()):
            text, html = parts(mail)
            (folder / f"{name}.txt").write_text(f"Subject: {mail['Subject']}\n\n{text}")
            (folder / f"{name}.html").write_text(html)
        print(f"wrote {len(sample_mails(lang))} mails into {folder.relative_to(GOLDEN.parent)}")


if __name__ == "__main__":
    write_golden()
    sys.exit(0)
