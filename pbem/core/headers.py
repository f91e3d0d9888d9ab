"""Header values that never raise: Python's header parser fails on some malformed headers
(an unclosed quote in `To:` ...), and one such mail must not stop the mailbox."""

from __future__ import annotations

from email.message import Message


def header_texts(message: Message, name: str) -> list[str]:
    """Every value of the header `name`, decoded where it can be, else as it was sent."""
    try:
        return [str(value) for value in message.get_all(name, [])]
    except Exception:  # a header the parser cannot read: its raw text will do
        return raw_header_texts(message, name)


def header_text(message: Message, name: str) -> str:
    """The first value of the header `name`, or "" (only that one is parsed)."""
    try:
        value = message.get(name)
    except Exception:  # a header the parser cannot read: its raw text will do
        raws = raw_header_texts(message, name)
        return raws[0] if raws else ""
    return "" if value is None else str(value)


def raw_header_texts(message: Message, name: str) -> list[str]:
    """Every value of the header `name` as it was sent, unparsed: for a search with a regular
    expression, which needs no address parser (that one is slow on long headers)."""
    return [str(value) for key, value in message.raw_items() if key.lower() == name.lower()]
