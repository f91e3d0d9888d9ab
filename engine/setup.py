"""A game's set-up: the colours in seat order and the order of the stack."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.colours import COLOURS
from engine.errors import EngineError
from engine.tiles import STACK_TILES, TILES, match_island

_COLOUR_SET = frozenset(COLOURS)
_STACK_SET = frozenset(STACK_TILES)  # each tile once: a stack of these and of its length is whole
# the draws of random.Random.shuffle over a stack, from its bottom: the place swapped and the
# bits drawn for a place among the i + 1 from the top (`_randbelow_with_getrandbits`)
_SHUFFLE_DRAWS = tuple((i, (i + 1).bit_length()) for i in range(len(STACK_TILES) - 1, 0, -1))


class SetupError(EngineError, ValueError):
    """A set-up that cannot start a game (wrong colours or stack)."""


@dataclass(frozen=True)
class Setup:
    colours: tuple[str, ...]
    stack: tuple[str, ...]  # the top of the stack first

    def __post_init__(self) -> None:
        colours, stack = self.colours, self.stack
        if (
            2 <= len(colours) <= 6
            and len(set(colours)) == len(colours)
            and _COLOUR_SET.issuperset(colours)
            and len(stack) == len(STACK_TILES)
            and set(stack) == _STACK_SET
        ):
            return  # a good set-up (the checks below say what is wrong with another)
        if not 2 <= len(self.colours) <= 6:
            raise SetupError(f"Tongiaki needs 2 to 6 players, not {len(self.colours)}.")
        unknown = [c for c in self.colours if c not in COLOURS]
        if unknown:
            raise SetupError(
                f"Unknown colour {unknown[0]!r}; the colours are {', '.join(COLOURS)}."
            )
        if len(set(self.colours)) != len(self.colours):
            raise SetupError("Each player needs a colour of their own.")
        if sorted(self.stack) != sorted(STACK_TILES):
            missing = sorted(set(STACK_TILES) - set(self.stack))
            extra = sorted({t for t in self.stack if self.stack.count(t) > 1 or t not in TILES})
            raise SetupError(
                "The stack must hold each of the 31 tiles once"
                + (f"; missing: {', '.join(missing)}" if missing else "")
                + (f"; unknown or repeated: {', '.join(extra)}" if extra else "")
                + "."
            )

    @classmethod
    def from_seed(cls, colours: Sequence[str], seed: int) -> Setup:
        """The stack shuffled by a generator of its own seeded with `seed`: reproducible, and
        so predictable by whoever knows or tries the seed (a game for real play is shuffled
        by `shuffled` with the operating system's randomness)."""
        # random.Random(seed).shuffle's own draws, made here without its calls of
        # _randbelow for each place (a fifth of setting up a game)
        stack = list(STACK_TILES)
        draw = random.Random(seed).getrandbits
        for i, bits in _SHUFFLE_DRAWS:
            j = draw(bits)
            while j > i:
                j = draw(bits)
            stack[i], stack[j] = stack[j], stack[i]
        return cls(tuple(colours), tuple(stack))

    @classmethod
    def shuffled(cls, colours: Sequence[str], rng: random.Random) -> Setup:
        """The stack shuffled by `rng`, the caller's: `secrets.SystemRandom()` for a stack
        nobody can work out from the tiles drawn."""
        stack = list(STACK_TILES)
        rng.shuffle(stack)
        return cls(tuple(colours), tuple(stack))

    @classmethod
    def from_names(cls, colours: Sequence[str], names: Sequence[str]) -> Setup:
        """A stack given by tile names (islands by name or unique prefix, seas by letter)."""
        return cls(tuple(colours), tuple(tile_name(n) for n in names))

    def to_json(self) -> dict[str, Any]:
        return {"colours": list(self.colours), "stack": list(self.stack)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Setup:
        return cls(tuple(data["colours"]), tuple(data["stack"]))


def tile_name(text: str) -> str:
    """The tile a player or GM means: a sea letter A-P, or an island name or unique prefix."""
    cleaned = text.strip()
    if len(cleaned) == 1 and cleaned.upper() in TILES:
        return cleaned.upper()
    found = match_island(cleaned)
    if len(found) != 1:
        raise SetupError(
            f"Unknown tile {text!r}." if not found else f"{text!r} could be {' or '.join(found)}."
        )
    return found[0]
