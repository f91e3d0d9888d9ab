"""The kinds of decision a game asks for, in the order a turn meets them (RULES.md §2-§13)."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    SETUP = "setup"
    TURN = "turn"
    EMIGRATE = "emigrate"
    LAND = "land"
    PUT_TILE = "put tile"
    COLONY_BOAT = "colony boat"
    OVER = "over"
