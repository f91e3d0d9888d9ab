"""How the tests read the service's mails: `email.policy.default`, with each header field
parsed once."""

from __future__ import annotations

from email.headerregistry import BaseHeader, HeaderRegistry
from email.policy import default
from functools import lru_cache


class _KeptHeaders(HeaderRegistry):
    """`email.policy.default`'s header fields, each parsed once: the parser asks for a part's
    Content-Type some twenty times, and the service's mails repeat their fields, so the
    tests read each mail in a quarter of the time. A field is immutable text, so one object
    serves every message with that field; the cache is bounded (the tests' mails only).
    Only text read from a mail is kept: a value a test sets (a datetime, addresses) is not
    the same field as another equal to it."""

    def __call__(self, name: str, value: object) -> BaseHeader:
        if type(value) is str:
            return self._kept(name, value)
        return super().__call__(name, value)

    @lru_cache(maxsize=8192)  # noqa: B019 (one registry for the whole test run)
    def _kept(self, name: str, value: str) -> BaseHeader:
        return super().__call__(name, value)


READING = default.clone(header_factory=_KeptHeaders())


__all__ = ["READING"]
