"""Text a player reads, kept translatable without I/O: English as a `str`, with the template
and the named parameters it was made from, so that the service can say it in another
language (it translates the template, then fills in the parameters, themselves translated
when they are messages too).

`str(message)` is the English text; the templates are found by the message extractor
(`Message(...)` and `counted(...)` are its keywords, `N_` marks a template kept for later).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def N_(template: str) -> str:
    """A template marked for the catalogs, returned as it is."""
    return template


class Message(str):
    """English text made from `template` (`{name}` placeholders) and `params`."""

    template: str
    plural: str | None
    number: int | None
    params: Mapping[str, Any]
    lower_first: bool

    def __new__(cls, template: str, /, **params: Any) -> Message:
        return cls._make(template, None, None, params, lower_first=False)

    @classmethod
    def _make(
        cls,
        template: str,
        plural: str | None,
        count: int | None,
        params: Mapping[str, Any],
        *,
        lower_first: bool,
    ) -> Message:
        chosen = plural if plural is not None and count != 1 else template
        text = chosen.format(**params) if params else chosen
        if lower_first:
            text = text[:1].lower() + text[1:]
        made = super().__new__(cls, text)
        made.template, made.plural, made.number = template, plural, count
        made.params, made.lower_first = params, lower_first
        return made

    def lowered(self) -> Message:
        """The same message with its first letter in lower case (in every language)."""
        return Message._make(self.template, self.plural, self.number, self.params, lower_first=True)

    def __reduce__(self) -> tuple[Any, ...]:
        return (str, (str(self),))


def counted(singular: str, plural: str, count: int, /, **params: Any) -> Message:
    """A message whose words depend on `count` (given to the templates as `{count}` too)."""
    return Message._make(singular, plural, count, {"count": count, **params}, lower_first=False)


class Joined(str):
    """Texts (messages or not) joined by `separator`: each part is translated by itself."""

    separator: str
    parts: tuple[str, ...]

    def __new__(cls, separator: str, parts: Iterable[str]) -> Joined:
        kept = tuple(parts)
        made = super().__new__(cls, separator.join(kept))
        made.separator, made.parts = separator, kept
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (str, (str(self),))


__all__ = ["N_", "Joined", "Message", "counted"]
