"""The outgoing side in pieces (`pbem.mail_out`): addressing and rendering a mail write
nothing, the queueing step writes what the mail changes (the talk it tells read, the held
news it tells gone, the calendar sent), and a round's readers are read for in one query
each, not one per mail."""

from __future__ import annotations

import json
import quopri
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import event
from sqlmodel import Session, col, select

from engine import Message
from pbem.flow.service import SeatSpec, Service
from pbem.game.table import Table
from pbem.mail_out import outbox
from pbem.mail_out.compose import quoted_printable
from pbem.mail_out.envelope import addressed, marked
from pbem.store.db import session
from pbem.store.models import Held, Outbox, Talk
from pbem.views import letters
from tests.support.localmail import START, local_service, take_raw

NAMES = ("Ann", "Bob", "Cy")


def _service(tmp_path: Path) -> tuple[Service, int]:
    service = local_service(tmp_path)
    specs = [SeatSpec(name, f"{name.lower()}@example.test") for name in NAMES]
    game_id = service.new_game(specs, seed=3, now=START)
    take_raw(service)
    return service, game_id


def _said(db: Session, game_id: int, text: str, *, seat: int = 0) -> None:
    speaker = f"{NAMES[seat]} (red)"
    db.add(Talk(game_id=game_id, at=START, seat=seat, speaker=speaker, text=text))


@contextmanager
def _statements(service: Service) -> Iterator[list[str]]:
    """The SQL the block sends to the database."""
    sent: list[str] = []

    def seen(conn: object, cursor: object, statement: str, *args: object) -> None:
        sent.append(statement)

    event.listen(service.engine, "before_cursor_execute", seen)
    try:
        yield sent
    finally:
        event.remove(service.engine, "before_cursor_execute", seen)


def test_addressing_a_mail_writes_nothing_and_queueing_it_marks_the_talk_read(
    tmp_path: Path,
) -> None:
    service, game_id = _service(tmp_path)
    with session(service.engine) as db:
        _said(db, game_id, "hello all")
        db.commit()
    with session(service.engine) as db:
        table = service.table(db, game_id, START)
        bob = table.seats[1]
        seen, calendar = bob.talk_seen, (bob.calendar_open, bob.calendar_at)
        at, _ = service.mail.moment(table)
        letter = addressed(table, bob, letters.talk(at, bob.seat))
        assert any("hello all" in str(line) for line in letter.mail.talk)
        assert (bob.talk_seen, (bob.calendar_open, bob.calendar_at)) == (seen, calendar)
        assert not db.new and not db.dirty  # nothing to write: addressing only reads
        assert letter.marks is not None and letter.marks.talk_seen > seen
        marked(bob, letter)
        assert bob.talk_seen == letter.marks.talk_seen


def test_a_rounds_readers_are_read_for_once_and_their_held_news_goes_once_told(
    tmp_path: Path,
) -> None:
    service, game_id = _service(tmp_path)
    with session(service.engine) as db:
        for seat in (1, 2):
            lines = json.dumps([f"held news for seat {seat}"])
            db.add(Held(game_id=game_id, seat=seat, at=START, lines=lines))
        _said(db, game_id, "a word to the table")
        db.commit()
    with session(service.engine) as db:
        table: Table = service.table(db, game_id, START)
        news = [Message("The game master says hello.")]
        with _statements(service) as sent:
            service.mail.queue_round(table, [], announced=news, quiet=False)
            db.flush()
        for table_name in ("held", "talk"):  # whether any, then the rows: once for all
            reads = [s for s in sent if s.startswith("SELECT") and f"FROM {table_name}" in s]
            assert ["LIMIT" in s for s in reads] == [True, False], sent
        db.commit()
    with session(service.engine) as db:
        assert list(db.exec(select(Held).where(Held.game_id == game_id))) == []
        mails = list(db.exec(select(Outbox)))
    told = [m for m in mails if b"held news for seat" in m.message]
    assert len(mails) == 3 and len(told) == 2
    assert all(b"a word to the table" in m.message for m in mails if b"bob@" in m.message)


def test_a_rounds_mails_go_in_the_outbox_in_one_statement_in_their_order(tmp_path: Path) -> None:
    service, game_id = _service(tmp_path)
    with session(service.engine) as db:
        table = service.table(db, game_id, START)
        with _statements(service) as sent:
            service.mail.queue_round(table, [], announced=[Message("Hello.")], quiet=False)
        assert len([s for s in sent if s.startswith("INSERT INTO outbox")]) == 1, sent
        db.commit()
    with session(service.engine) as db:
        mails = list(db.exec(select(Outbox).order_by(col(Outbox.id))))
    assert [m.recipient for m in mails] == [f"{n.lower()}@example.test" for n in NAMES]


def test_mails_gathered_in_a_block_that_fails_are_not_put(tmp_path: Path) -> None:
    service, game_id = _service(tmp_path)
    with session(service.engine) as db:
        with outbox.gathered(db):
            with outbox.gathered(db):  # inside another: put with the outer block's
                outbox.put(db, game_id, "ann@example.test", b"first", START)
            outbox.put(db, game_id, "bob@example.test", b"second", START)
            assert not list(db.exec(select(Outbox)))  # not yet
        try:
            with outbox.gathered(db):
                outbox.put(db, game_id, "cy@example.test", b"lost", START)
                raise RuntimeError("a mail failed")
        except RuntimeError:
            pass
        outbox.put(db, game_id, "cy@example.test", b"alone", START)  # no block: at once
        db.commit()
    with session(service.engine) as db:
        mails = list(db.exec(select(Outbox).order_by(col(Outbox.id))))
    assert [m.message for m in mails] == [b"first", b"second", b"alone"]


# lines as mails have them, and those the encoder treats apart: '=', a lone '.', spaces and
# tabs at the end, long lines (soft breaks at 76), characters past ASCII, a CR
_LINE = st.text(alphabet=st.sampled_from("ab =.\t\u00a0é→\r-"), max_size=200)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, max_size=12))
def test_a_body_quoted_line_by_line_is_what_quopri_makes_of_it_whole(lines: list[str]) -> None:
    body = "\n".join(lines) + "\n"
    assert quoted_printable(body) == quopri.encodestring(body.encode("utf-8"))
