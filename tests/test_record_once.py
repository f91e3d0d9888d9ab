"""The record of a game (`export_on_game_over`) is made once, at the game over, and every mail
after it (a `status`, `board`, `log` or `help` of a player) reuses it: nothing is built or
published again, and the log names a linked record's file by its first characters only."""

from __future__ import annotations

import logging
import zlib
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.flow.gm import GameMaster
from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec, Service
from pbem.store.db import session
from pbem.store.models import GameRecord
from tests.support.localmail import START, local_service, reply_to, take_mail, text_of

ANN, BOB = "ann@example.test", "bob@example.test"
HOUR = timedelta(hours=1)
ASKED = ("status", "board", "log", "help")


def _ended(service: Service) -> EmailMessage:
    """A two-player game ended by the host; Ann's game-over mail."""
    service.new_game([SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")], now=START)
    take_mail(service)
    GameMaster(service).run_host(1, ["end"], START + HOUR)
    (final,) = [m for m in take_mail(service) if m["To"] == ANN]
    assert final["X-Tongiaki-Kind"] == "game_over"
    return final


def _asked(service: Service, final: EmailMessage) -> list[EmailMessage]:
    """Ann's answers to a status, board, log and help after the game over."""
    answers = []
    for n, line in enumerate(ASKED, 2):
        assert handle(service, reply_to(final, line), START + n * HOUR) in ("answered", "applied")
        (answer,) = take_mail(service)
        answers.append(answer)
    return answers


def test_a_linked_record_is_published_once_and_linked_from_every_mail_after(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "www"
    service = local_service(
        tmp_path,
        export_on_game_over="link",
        export_dir=str(folder),
        export_url="https://example.test/games",
    )
    with caplog.at_level(logging.INFO):
        final = _ended(service)
        answers = _asked(service, final)
        restarted = Service(service.engine, service.settings)  # a restart, or `pbem poll`
        assert handle(restarted, reply_to(final, "rules"), START + 9 * HOUR) == "answered"
        answers += take_mail(restarted)
    (page,) = folder.iterdir()  # published once, never again under another secret
    url = f"https://example.test/games/{page.name}"
    assert url in text_of(final)
    assert [url in text_of(a) for a in answers] == [True] * (len(ASKED) + 1)
    secret = page.name.removeprefix("tongiaki-game-1-").removesuffix(".html")
    said = [r.getMessage() for r in caplog.records if "the record is at" in r.getMessage()]
    assert len(said) == 1 and f"tongiaki-game-1-{secret[:3]}..." in said[0]
    assert secret not in caplog.text


def test_an_attached_record_is_made_at_the_game_over_and_attached_again_as_it_was(
    tmp_path: Path,
) -> None:
    service = local_service(tmp_path, export_on_game_over="attach")
    final = _ended(service)
    with session(service.engine) as db:
        kept = db.get(GameRecord, 1)
        assert kept is not None and kept.page is not None
        made = zlib.decompress(kept.page)
        assert made.startswith(b"<!DOCTYPE html>")
        kept.page = zlib.compress(b"<!DOCTYPE html><p>the page kept at the game over</p>")
        db.add(kept)
        db.commit()
    (first,) = [p for p in final.iter_attachments() if p.get_filename() == "tongiaki-game-1.html"]
    assert first.get_content().encode() == made
    for answer in _asked(service, final):
        (again,) = [p for p in answer.iter_attachments() if p.get_content_type() == "text/html"]
        assert again.get_content() == "<!DOCTYPE html><p>the page kept at the game over</p>"


def test_a_stranger_a_replay_and_an_autoresponder_after_the_game_over_publish_nothing(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "www"
    service = local_service(
        tmp_path,
        export_on_game_over="link",
        export_dir=str(folder),
        export_url="https://example.test/games",
    )
    final = _ended(service)
    (page,) = folder.iterdir()
    stranger = reply_to(final, "status", sender="eve@example.test")
    assert handle(service, stranger, START + 2 * HOUR) == "refused"
    assert handle(service, reply_to(final, "status"), START + 3 * HOUR) == "answered"
    replay = reply_to(final, "status")  # the same again under a new Message-ID
    assert handle(service, replay, START + 4 * HOUR) == "ignored"
    auto = reply_to(final, "I am out of the office.").replace(
        b"Subject:", b"Auto-Submitted: auto-replied\r\nSubject:", 1
    )
    assert handle(service, auto, START + 5 * HOUR) == "ignored"
    assert list(folder.iterdir()) == [page]  # built and published once, at the game over
    with session(service.engine) as db:
        kept = db.get(GameRecord, 1)
        assert kept is not None and kept.link.endswith(page.name)
