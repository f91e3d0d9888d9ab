"""Scoring (RULES.md §12): points, then islands, then the fewest boats on the board."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.board import Board
from engine.tiles import ISLANDS


class Termination(StrEnum):
    """Why a game ended. The text is how the mails say it, and how a saved state keeps it."""

    LAST_SEA_TILE = "the last sea tile was drawn"  # RULES.md §12
    LAST_ISLAND = "the last island was drawn"  # RULES.md §12
    GAME_MASTER = "the game master ended the game"  # the service's `end` command, not a rule


class DecidedBy(StrEnum):
    """What separated the first place from the second (RULES.md §12)."""

    POINTS = "points"
    ISLANDS = "islands"  # equal points: more islands
    BOATS = "boats"  # equal points and islands: fewer boats on the board
    SHARED = "shared"  # equal in all three: the win is shared


@dataclass(frozen=True)
class Standing:
    colour: str
    points: int
    islands: tuple[str, ...]  # islands the player is on, royal ones included
    boats: int  # boats on the board, royal boats included
    rank: int  # 1 for the winners; equal ranks share a place

    @property
    def key(self) -> tuple[int, int, int]:
        return (-self.points, -len(self.islands), self.boats)


@dataclass(frozen=True)
class Outcome:
    """The score by the rules; when the game is over, the final result."""

    # why the game ends, once that is known: from the draw of the last tile of a kind (the
    # turn is still played out, its voyages land), or from the game master's end; None before
    termination: Termination | None
    standings: tuple[Standing, ...]  # best first, seat order among equals

    @property
    def reason(self) -> str:
        """Why the game ends, as the mails say it ("" while no end is known)."""
        return self.termination or ""

    @property
    def winners(self) -> tuple[str, ...]:
        return tuple(s.colour for s in self.standings if s.rank == 1)

    @property
    def decided_by(self) -> DecidedBy:
        """What separated first from second."""
        if len(self.standings) < 2:
            return DecidedBy.POINTS
        first, second = self.standings[0].key, self.standings[1].key
        rules = (DecidedBy.POINTS, DecidedBy.ISLANDS, DecidedBy.BOATS)
        for rule, a, b in zip(rules, first, second, strict=True):
            if a != b:
                return rule
        return DecidedBy.SHARED


def score(board: Board, colours: tuple[str, ...], termination: Termination | None) -> Outcome:
    rows = []
    royal = board.royal
    per_island = [  # (name, royal owner, boats per seat) of each island, in the order placed
        (board.name(pos), royal.get(pos), [sum(column) for column in zip(*beaches, strict=True)])
        for pos, beaches in board.boats.items()
    ]
    for seat, colour in enumerate(colours):
        islands: list[str] = []
        boats = 0
        for name, owner, on_beaches in per_island:
            count = on_beaches[seat] + (owner == seat)
            if count:
                islands.append(name)
                boats += count
        points = sum(ISLANDS[name].points for name in islands)
        rows.append((colour, points, tuple(islands), boats))
    keys = [(-p, -len(i), b) for _, p, i, b in rows]
    standings = [
        Standing(colour, points, islands, boats, 1 + sum(1 for k in keys if k < keys[seat]))
        for seat, (colour, points, islands, boats) in enumerate(rows)
    ]
    standings.sort(key=lambda s: s.rank)
    return Outcome(termination, tuple(standings))
