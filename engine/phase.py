"""The kinds of decision a game asks for, in the order a turn meets them (RULES.md §2-§13),
and the open decision itself."""

from __future__ import annotations

from enum import StrEnum

from engine.values import value


class Phase(StrEnum):
    SETUP = "setup"
    TURN = "turn"
    EMIGRATE = "emigrate"
    LAND = "land"
    PUT_TILE = "put tile"
    COLONY_BOAT = "colony boat"
    OVER = "over"


@value
class Decision:
    """Who must decide what now; `island`, `boats` and `tile` say more where they apply."""

    number: int
    seat: int
    colour: str
    kind: Phase
    island: str | None = None  # LAND: where the group arrives; COLONY_BOAT: the new island
    boats: tuple[str, ...] = ()  # LAND: the arriving group
    tile: str | None = None  # PUT_TILE: the tile drawn
