"""Text from strangers made fit for one line of a log or a database column."""

from __future__ import annotations

import re

SHOWN = 300  # characters of a header kept for people (logs, the database)

_SPACE = re.compile(r"[\t\n\r\x0b\x0c\x85\u2028\u2029]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")


def shown(text: str, limit: int = SHOWN) -> str:
    """Text fit to log and store in one line: line breaks and tabs as spaces, no control or
    bidi-override characters or lone surrogates, cut at `limit`."""
    text = _CONTROL.sub("?", _SPACE.sub(" ", text))
    return text if len(text) <= limit else text[: limit - 3] + "..."
