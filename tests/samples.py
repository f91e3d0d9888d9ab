"""One fixed sample game played through the service, and a mail of every kind taken from it.

The golden files, the browser test and the screenshots in docs/ all use these mails.
Regenerate the golden files after a deliberate change with `python3 dev.py golden`.
"""

from __future__ import annotations

import fcntl
import os
import pickle
import sys
import tempfile
from email.message import EmailMessage, Message
from email.parser import BytesHeaderParser
from email.policy import compat32
from functools import cache, cached_property
from pathlib import Path

from engine import (
    make_bot,
)
from pbem.flow.deadlines import tick
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.store.db import session
from pbem.views import view
from pbem.views.i18n import LANGUAGES
from tests.support.localmail import later, local_service, parse, reply_to, take_raw

GOLDEN = Path(__file__).resolve().parent / "golden"
ANA, BEN = "ana@example.test", "ben@example.test"
SEED = 2026
# the kinds of mail the sample game yields, by name: known without playing it (test_golden
# checks that the game yields exactly these), so that collecting the tests plays nothing
KINDS = (
    "welcome",
    "prompt-setup",
    "prompt-turn",
    "prompt-land",
    "prompt-emigrate",
    "prompt-put-tile",
    "prompt-colony-boat",
    "update",
    "update-automatic",
    "gm",
    "answer",
    "reminder",
    "error",
    "not-applied",
    "game-over",
)


@cache
def sample_mails(lang: str = "en") -> dict[str, EmailMessage]:
    """The first mail of each kind of the sample game, by name (welcome, prompt-setup ...),
    with its players reading `lang`."""
    return {name: parse(raw) for name, raw in _shared(lang).items()}


def _shared(lang: str) -> dict[str, bytes]:
    """The sample game's mails, played once per test run: pytest-xdist's workers of one run
    share them through a file (under a lock, so the first plays while the others wait)."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None:
        return _played(lang)
    folder = Path(tempfile.gettempdir()) / f"tongiaki-samples-{run}"
    folder.mkdir(exist_ok=True)
    kept = folder / f"{lang}.pickle"
    with (folder / f"{lang}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if kept.exists():
            mails: dict[str, bytes] = pickle.loads(kept.read_bytes())
            return mails
        mails = _played(lang)
        kept.with_suffix(".part").write_bytes(pickle.dumps(mails))
        kept.with_suffix(".part").rename(kept)
        return mails


def _played(lang: str) -> dict[str, bytes]:
    with tempfile.TemporaryDirectory() as tmp:
        return {name: mail.raw for name, mail in _play(local_service(Path(tmp)), lang).items()}


class _Mail:
    """A mail of the outbox: its header fields read at once (cheaply), the whole mail only
    when it is answered or kept, as parsing every mail of a game would cost a third of it."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.head: Message = BytesHeaderParser(policy=compat32).parsebytes(raw)

    def __getitem__(self, name: str) -> str | None:
        return self.head[name]

    @cached_property
    def full(self) -> EmailMessage:
        return parse(self.raw)


def take_mail(service: Service) -> list[_Mail]:
    return [_Mail(raw) for raw in take_raw(service)]


def golden_folder(lang: str) -> Path:
    """English mails are in tests/golden, each other language's in tests/golden/LANG."""
    return GOLDEN if lang == "en" else GOLDEN / lang


def _play(service: Service, lang: str = "en") -> dict[str, _Mail]:
    specs = [
        SeatSpec("Ana", ANA),
        SeatSpec("Ben", BEN),
        SeatSpec("Cy", None, bot="greedy"),
    ]
    game = service.new_game(specs, seed=SEED, gm="gm@example.test", now=later(0), lang=lang)
    found: dict[str, _Mail] = {}
    latest: dict[str, _Mail] = {}
    _collect(take_mail(service), found, latest)
    minute = 0
    while True:
        with session(service.engine) as db:
            table = service.table(db, game, later(minute))
            seats, state = table.seats, table.state
        decision = state.decision
        if decision is None:
            break
        address = seats[decision.seat].address
        assert address is not None
        minute += 7
        if "reminder" not in found and "error" in found and decision.seat == 0:
            # Ana shows deadlines in her time zone, then waits: reminders at half-time and
            # 6 h before, then her turn is passed
            handle(
                service, reply_to(latest[ANA], "tz Pacific/Auckland", quote=False), later(minute)
            )
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
            handle(
                service, reply_to(latest[address], "expand Nowhere a", quote=False), later(minute)
            )
            _collect(take_mail(service), found, latest, "error")
            continue
        if "not-applied" not in found and decision.seat == 0:
            handle(service, reply_to(latest[ANA], "1", sender=BEN, quote=False), later(minute))
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
            handle(service, reply_to(latest[BEN], "status\nlog", quote=False), later(minute))
            _collect(take_mail(service), found, latest, "answer")
            continue
        else:
            choice = make_bot("greedy", SEED + decision.number).choose(state)
            listed = view.numbered(state.legal_choices())
            numbered = decision.number % 2 and choice in listed
            body = str(listed.index(choice) + 1) if numbered else str(choice)
        handle(service, reply_to(latest[address], body, quote=False), later(minute))
        _collect(take_mail(service), found, latest)
    return found


def _collect(
    mails: list[_Mail],
    found: dict[str, _Mail],
    latest: dict[str, _Mail],
    name: str | None = None,
) -> None:
    for mail in mails:
        recipient = str(mail["To"])
        if mail["X-Tongiaki-Decision"]:  # the mail asks its reader for a decision
            latest[recipient] = mail
        kind = _name(mail) if name is None else name
        if kind:
            found.setdefault(kind, mail)


def _name(mail: _Mail) -> str:
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
