"""The errors a choice can raise: bad syntax, ambiguous, or not legal now."""

from __future__ import annotations


class EngineError(Exception):
    """The base of every error the engine raises on purpose."""


class ChoiceError(EngineError, ValueError):
    """A choice that cannot be applied; `code` is stable, the message is for the player."""

    code = "choice"


class NotationError(ChoiceError):
    """The text is not a choice at all (checked without the state)."""

    code = "syntax"


class DirectionError(NotationError):
    """A word that is no direction; for a jetty, the island and beach it was to leave from
    (so that the explanation can name that beach's jetties)."""

    def __init__(
        self, message: str, *, word: str, island: str | None = None, beach: int | None = None
    ) -> None:
        super().__init__(message)
        self.word, self.island, self.beach = word, island, beach


class IslandNameError(NotationError):
    """A name that is no island's; `form` is the command's form with its example, so that the
    explanation can suggest islands of the board and keep the form."""

    def __init__(self, message: str, *, word: str, form: str | None = None) -> None:
        super().__init__(message)
        self.word, self.form = word, form


class AmbiguousChoiceError(NotationError):
    """A name in the text fits more than one island."""

    code = "ambiguous"


class IllegalChoiceError(ChoiceError):
    """A well-formed choice that the rules do not allow at this decision."""

    code = "illegal"


class GameOverError(IllegalChoiceError):
    code = "game-over"
