"""Attacks found by a review of the open address, each failed on the code before it was
mended: each test states what README's "Security" section promises."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.core.headers import raw_header_texts
from pbem.flow.service import Service
from pbem.host.runner import take
from pbem.mail_in.inbound import MAX_ADDRESS_FIELD, MAX_COPIES, arrive
from pbem.store.db import open_database, session
from pbem.store.models import Inbound, Quarantined, Seat
from tests.support.localmail import START, local_service, reply_to, text_of
from tests.test_open_address import (
    ANN,
    DAY,
    GM,
    MINUTE,
    _moves,
    _rows,
    _seat,
    _start,
    _with_message_id,
    flat,
)

# -- F1: a reply that acted but also had a rejected line is stored under the "unchanged" key


def test_a_vacation_with_a_trailing_rejected_line_acts_once(tmp_path: Path) -> None:
    """README 7: 'The same reply address with the same commands again (a replayed mail with
    a new Message-ID) is logged as a replay and changes nothing, and is not answered'."""
    table = _start(tmp_path)
    prompt = table.latest[ANN]
    body = "vacation 1d\nplace Nowhere a"  # no such island: rejected
    assert table.handle(reply_to(prompt, body), START + MINUTE) == "rejected"
    first = table.sent()
    assert [to for to, _, _ in first] == [ANN]  # the others once it was on an hour
    assert _seat(table.service, 0).vacation_used == 86400
    after = _rows(table.service)

    outcomes, sent = [], []
    for n in range(2, 9):  # the same genuine mail replayed with new Message-IDs
        outcomes.append(table.handle(reply_to(prompt, body), START + n * MINUTE))
        sent += table.sent()
    used = _seat(table.service, 0).vacation_used
    assert used == 86400, f"the replays spent {used // 86400} days of vacation"
    assert sent == []
    assert _rows(table.service) == after


def test_a_move_then_a_rejected_line_leaves_the_acted_key(tmp_path: Path) -> None:
    """The same for a move: the replay is only stopped by the decision check, not by the
    replay rule; its ReplyUse key is the 'unchanged' one."""
    table = _start(tmp_path)
    prompt = table.latest[ANN]
    body = "place Tonga a\nplace Tonga b"  # the second is not Ann's decision: rejected
    assert table.handle(reply_to(prompt, body), START + MINUTE) == "rejected"
    table.mail()
    outcome = table.handle(reply_to(prompt, body), START + 2 * MINUTE)
    answered = table.sent()
    assert outcome == "ignored"
    assert answered == []


# -- F2: answers to status/log/board/help are in no budget


def test_a_forger_with_one_reply_address_cannot_make_unbounded_answers(tmp_path: Path) -> None:
    """README 8 and 'What a stranger can do': 'cannot make the service mail anyone more
    than the budget allows'. One reply address of Ann's (a forwarded mail), From forged
    (authenticated_from = off, the default), commands varied so that none is a replay: real
    commands from the seat's address, so the budget of real commands (40) bounds them."""
    table = _start(tmp_path)
    prompt = table.latest[ANN]
    metas = ["status", "log", "board", "help"]
    count = 0
    for n in range(60):
        lines = [metas[(n >> (2 * k)) & 3] for k in range(4)]  # 4**4 distinct bodies
        outcome = table.handle(reply_to(prompt, "\n".join(lines)), START + n * MINUTE)
        assert outcome == "answered"
        count += len([s for s in table.sent() if s[0] == ANN])
    assert count <= 40, f"{count} answers to one address in an hour"


def test_a_game_master_address_gets_unbounded_answers(tmp_path: Path) -> None:
    table = _start(tmp_path)
    welcome = table.latest[GM]
    metas = ["status", "log", "board", "help"]
    count = 0
    for n in range(40):
        lines = [metas[(n >> (2 * k)) & 3] for k in range(3)]
        assert table.handle(reply_to(welcome, "\n".join(lines)), START + n * MINUTE) in (
            "answered",
            "ignored",
        )
        count += len([s for s in table.sent() if s[0] == GM])
    assert count <= 10


# -- F3: a version 3 database keeps UNIQUE (message_id) on inbound


def test_a_migrated_database_takes_two_long_message_ids_as_two_mails(tmp_path: Path) -> None:
    """README 3: 'A mail is known by a hash of its whole Message-ID'. On a database
    upgraded from version 3, the old UNIQUE (message_id) holds the 300-character form."""
    service = local_service(tmp_path)
    path = tmp_path / "old" / "pbem.sqlite"
    path.parent.mkdir()
    with sqlite3.connect(path) as connection:
        connection.executescript((Path(__file__).parent / "fixtures" / "schema-v3.sql").read_text())
    engine = open_database(path)
    service = Service(engine, service.settings)
    shared = "<" + "y" * 399
    raws = [
        (
            f"From: stranger{n}@example.test\r\nTo: tongiaki@example.test\r\n"
            f"Subject: hi\r\nMessage-ID: {shared}{n}@example.test>\r\n\r\nhello\r\n"
        ).encode()
        for n in (1, 2)
    ]
    outcomes = [take(service, raw, START + n * MINUTE) for n, raw in enumerate(raws)]
    with session(engine) as db:
        assert db.exec(select(Quarantined)).all() == []
    assert outcomes == ["refused", "refused"]


# -- F4: a game master's command line is logged as it came


def test_a_game_master_line_cannot_forge_a_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    table = _start(tmp_path)
    welcome = table.latest[GM]
    evil = "extend 1d\u2028 \x1c\x1d\x1e\x1f\x0b\x0c\x85 1h"
    with caplog.at_level(logging.INFO, logger="pbem"):
        table.handle(reply_to(welcome, evil), START + MINUTE)
    lines = [r.getMessage() for r in caplog.records]
    assert not any(set(line) & set("\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\u2028") for line in lines)


# keep the imports used (ruff)
_ = (DAY, Inbound, Seat, _moves, _with_message_id)


# -- F5: the From header is parsed by the slow address parser before authres refuses it


@pytest.mark.parametrize(
    ("name", "head"),
    [
        ("one From of 4,000 bytes", "From: " + "a," * 1990 + "\r\n"),
        ("one From of 4,000 bytes of comments", "From: " + "(a)" * 1330 + "\r\n"),
        ("ten From fields of 4,000 bytes (40 KB)", ("From: " + "a," * 1990 + "\r\n") * 10),
        (
            "120 Precedence fields of 4,000 bytes",
            "From: eve@evil.test\r\n" + ("Precedence: " + "a " * 1995 + "\r\n") * 120,
        ),
    ],
)
def test_a_strangers_long_from_is_cut_before_any_parser_reads_it(
    tmp_path: Path, name: str, head: str
) -> None:
    """README 1: the work per mail is bounded. The address parser is quadratic, so what it
    gets is cut first: at most two From fields of at most 500 bytes, two copies of any
    other field (the time is printed by `python3 dev.py bench-hostile`, not asserted)."""
    service = local_service(tmp_path)
    raw = head + "To: tongiaki@example.test\r\nSubject: x\r\nMessage-ID: <f5@x>\r\n\r\nhi\r\n"
    arrival = arrive(raw.encode())
    froms = raw_header_texts(arrival.message, "From")
    assert 1 <= len(froms) <= MAX_COPIES and all(len(f) <= MAX_ADDRESS_FIELD for f in froms)
    assert len(raw_header_texts(arrival.message, "Precedence")) <= MAX_COPIES
    assert take(service, raw.encode(), START) in ("ignored", "refused")


# -- F6: Authentication-Results of any subdomain of authserv_id are believed


def test_a_result_from_a_made_up_subdomain_of_the_server_is_not_believed() -> None:
    """RFC 8601 section 5: the border MTA removes A-R fields that claim ITS authserv-id; one
    naming another host (attacker.mx.google.com) is left in the mail, as anyone wrote it."""
    from tests.test_authres import dmarc, mail

    server = (
        "Authentication-Results: mx.google.com;\n"
        "       spf=fail smtp.mailfrom=ann@example.com;\n"
        "       dmarc=none header.from=example.com\n"
    )
    forged = "Authentication-Results: attacker.mx.google.com; dkim=pass header.d=example.com\n"
    assert dmarc(mail(server + forged), "mx.google.com") is not None


def test_a_forged_dkim_pass_beside_the_servers_own_dkim_verdict_is_refused() -> None:
    """The twin of test_authres.test_a_forged_pass_beside_the_servers_none_is_refused, with a
    forged dkim=pass: the server (OpenDKIM) wrote its own verdict on the mail's signature, so
    a pass beside a none or fail was written by someone else. (dmarc=none with an aligned
    dkim=pass alone is a real Postfix header for a domain without a DMARC policy.)"""
    from tests.test_authres import dmarc, mail

    for verdict in ("none", "fail (bad signature)"):
        server = (
            "Authentication-Results: mail.example.org;"
            " dmarc=none (p=none dis=none) header.from=example.com\n"
            f"Authentication-Results: mail.example.org; dkim={verdict}\n"
        )
        forged = "Authentication-Results: mail.example.org; dkim=pass header.d=example.com\n"
        assert dmarc(mail(server + forged), "mail.example.org") is not None
        assert dmarc(mail(forged + server), "mail.example.org") is not None


def test_with_dmarc_a_forger_cannot_move_with_a_made_up_subdomain_result(tmp_path: Path) -> None:
    """End to end: authenticated_from = dmarc, authserv_id = mx.google.com (README 5); the
    receiving server's own result says dmarc=none (Ann's domain publishes no DMARC policy);
    Eve, who holds Ann's reply address, adds a result of her own naming a subdomain."""
    table = _start(tmp_path, authenticated_from="dmarc", authserv_id="mx.google.com")
    prompt = table.latest[ANN]
    server = "mx.google.com; spf=fail smtp.mailfrom=ann@example.test; dmarc=none"
    forged = "evil.mx.google.com; dkim=pass header.d=example.test"
    alone = reply_to(prompt, "place Tonga a", Authentication_Results=server)
    assert table.handle(alone, START + MINUTE) == "refused"
    raw = reply_to(prompt, "place Tonga b")
    raw = f"Authentication-Results: {forged}\r\nAuthentication-Results: {server}\r\n".encode() + raw
    assert table.handle(raw, START + 2 * MINUTE) == "refused"
    assert _moves(table.service) == []


# -- F7: the v4 tables are made outside the upgrade's transaction, and never again after


def test_an_upgrade_interrupted_before_its_new_tables_is_finished_on_the_next_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """migrate.py: the v4 step sets schema_version = 4 in its transaction; the new tables
    (quarantined, replyuse, gmtag, answered) come from `create_all` afterwards. A failure in
    between (a full disk, a kill by systemd) leaves version 4 without them, and the next
    open returns early (version == SCHEMA_VERSION) without making them."""
    from sqlmodel import SQLModel

    service = local_service(tmp_path)
    path = tmp_path / "old" / "pbem.sqlite"
    path.parent.mkdir()
    with sqlite3.connect(path) as connection:
        connection.executescript((Path(__file__).parent / "fixtures" / "schema-v3.sql").read_text())
    real = SQLModel.metadata.create_all

    def full_disk(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(SQLModel.metadata, "create_all", full_disk)
    with pytest.raises(sqlite3.OperationalError):
        open_database(path)
    monkeypatch.setattr(SQLModel.metadata, "create_all", real)
    engine = open_database(path)  # the disk has room again; the service restarts
    with sqlite3.connect(path) as connection:
        tables = {r[0] for r in connection.execute("SELECT name FROM sqlite_master")}
    service = Service(engine, service.settings)
    raw = (
        b"From: bob@example.test\r\nTo: tongiaki@example.test\r\nSubject: hi\r\n"
        b"Message-ID: <after-crash@example.test>\r\n\r\nstatus\r\n"
    )
    assert {"quarantined", "replyuse", "gmtag", "answered"} <= tables
    assert take(service, raw, START) == "refused"  # no game tag: handled, not stuck


def test_a_forger_with_one_reply_address_cannot_mail_every_player_without_end(
    tmp_path: Path,
) -> None:
    """The same forger (one reply address, From forged, dmarc off): each `vacation` is a new
    command (a new replay key); a vacation lasts at least 6 hours, so the allowance (7d)
    bounds it at 28 rounds; a vacation is news to the others only once it was on an hour,
    so these, within the hour, tell nobody (`caused_per_day` bounds what told ones may:
    tests/test_fair_table.py)."""
    table = _start(tmp_path)
    prompt = table.latest[ANN]
    assert table.handle(reply_to(prompt, "vacation 1s"), START) == "rejected"
    assert "at least 6 hours" in flat(text_of(table.mail()[0]))
    rounds = count = 0
    for n in range(1, 40):
        outcome = table.handle(reply_to(prompt, f"vacation 6h{n}s"), START + n * MINUTE)
        count += len(table.sent())
        if outcome != "applied":
            break
        rounds += 1
    assert rounds == 27  # 27 vacations of a little over 6 hours fit in 7 days
    assert count <= rounds + 1  # Ann's answers alone


# -- F8: a mail too large is marked seen in `inbound` before it is kept in the quarantine


def test_a_too_large_mail_is_kept_when_the_disk_fills_up_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """replies.py `_too_large`: the Inbound row commits first, `keep` runs in a second
    transaction. A database failure in `keep` leaves the mail unread (as README 2 says:
    tried again), but the next try finds its Inbound row and calls it a duplicate: the mail
    is marked handled, never quarantined, and its player never told."""
    from sqlalchemy.exc import OperationalError

    import pbem.flow.replies

    table = _start(tmp_path)
    prompt = table.latest[ANN]
    raw = reply_to(prompt, "place Tonga a\n" + "x" * 1_100_000)
    real_row = pbem.flow.replies.quarantine_row

    def full(*args: object, **kwargs: object) -> Quarantined:
        raise OperationalError("INSERT INTO quarantined", {}, sqlite3.OperationalError("disk full"))

    monkeypatch.setattr(pbem.flow.replies, "quarantine_row", full)
    with pytest.raises(OperationalError):
        take(table.service, raw, START + MINUTE)  # the runner leaves the mail unread
    monkeypatch.setattr(pbem.flow.replies, "quarantine_row", real_row)
    assert take(table.service, raw, START + 2 * MINUTE) == "quarantined"  # the next poll
    with session(table.service.engine) as db:
        kept = list(db.exec(select(Quarantined)))
    assert [to for to, _, _ in table.sent()] == [ANN]  # told once, briefly
    assert len(kept) == 1
