"""The generator of hostile mails (tests/support/hostile.py): deterministic, every shape
within 200 mails, no mail over 1.3 MB, and no valid move among them."""

from __future__ import annotations

import email
import email.policy
import re

from pbem.mail_in.replytext import reply_text
from tests.support.hostile import MAX_BYTES, SHAPES, Target, hostile_mails

TARGETS = [
    Target("tongiaki+g1-0-3-abcdefghij@example.test", "ann@example.test", "tongiaki@example.test"),
    Target("tongiaki+g2-1-7-klmnopqrst@example.test", "bob@example.test", "tongiaki@example.test"),
]
_NUMBER = re.compile(r"[0-9]{1,6}\W*")


def test_the_same_seed_gives_the_same_mails() -> None:
    first = list(hostile_mails(90, 3, TARGETS))
    assert first == list(hostile_mails(90, 3, TARGETS))
    assert first != list(hostile_mails(90, 4, TARGETS))


def test_every_shape_within_200_mails_and_none_over_the_size_cap() -> None:
    mails = list(hostile_mails(200, 11, TARGETS))
    assert len(mails) == 200 and {name for name, _ in mails} == set(SHAPES)
    assert all(isinstance(raw, bytes) and len(raw) < 1_300_000 for _, raw in mails)
    assert max(len(raw) for _, raw in mails) > 1_000_000  # the one over the service's cap
    assert max(len(raw) for _, raw in mails) <= MAX_BYTES


def test_each_run_of_as_many_mails_as_shapes_holds_every_shape() -> None:
    names = [name for name, _ in hostile_mails(3 * len(SHAPES), 5, TARGETS)]
    for start in range(0, 2 * len(SHAPES)):
        assert set(names[start : start + len(SHAPES)]) == set(SHAPES)


def test_shapes_vary_within_a_shape() -> None:
    mails = [raw for name, raw in hostile_mails(4 * len(SHAPES), 8, TARGETS) if name != "empty"]
    assert len(set(mails)) > 0.9 * len(mails)


def test_no_mail_from_a_seat_to_its_reply_address_holds_a_move() -> None:
    """What a seat's own mail to its valid reply address says is never an option number
    of at most six digits, nor 'pass' (the moves a service might take from a lenient read)."""
    reached = 0
    for _, raw in hostile_mails(200, 13, TARGETS):
        if not any(t.player.encode() in raw[:2000] for t in TARGETS):
            continue  # the From field comes first: not from a seat
        try:  # compat32: the default policy's header parser is quadratic in a long header
            message = email.message_from_bytes(raw, policy=email.policy.compat32)
        except RecursionError:  # multipart nested 1,000 deep
            continue
        target = next((t for t in TARGETS if t.reply_address in str(message["To"])), None)
        if target is None or target.player not in str(message["From"]):
            continue
        reached += 1
        for line in reply_text(message, own_addresses=[target.service]).splitlines():
            line = line.strip()
            assert not _NUMBER.fullmatch(line) and line.lower() != "pass", line
    assert reached > 50
