"""What the state keeps up to date about each island on the table as boats move, so that
listing the choices never counts the boats again."""

from __future__ import annotations

from operator import attrgetter

from engine.board import BERTHS
from engine.choices import Emigrate, Expand
from engine.hexgrid import Hex

# the full and the other beaches of an island of n beaches, by n, then the bits of its full ones
_SORTED: tuple[tuple[tuple[tuple[int, ...], tuple[int, ...]], ...], ...] = tuple(
    tuple(
        (
            tuple(b for b in range(n) if bits >> b & 1),
            tuple(b for b in range(n) if not bits >> b & 1),
        )
        for bits in range(1 << n)
    )
    for n in range(7)
)
_BIT = tuple(1 << b for b in range(6))  # a beach's bit in `IslandTally.bits`
# no boat of any seat, by the number of seats (copied as `[*_NONE[seats]]`: a list repeated
# by `*` goes through Python 3.11's general path of numbers)
_NONE = tuple((0,) * seats for seats in range(7))
_RANK = attrgetter("rank")  # the order of the islands as placed (a seat's homes)

# the islands where each seat has boats on a beach, by seat, each in the order placed (the
# state's `_homes`): a tally's `land` and `clear` keep them, the state's steps the rest (lists
# the tallies do not keep: a tally in a list of its own would make a reference cycle)
Homes = list[list["IslandTally"]]


def join_home(row: list[IslandTally], isle: IslandTally) -> None:
    """`isle` into a seat's homes `row`, in the order placed (mostly the last placed)."""
    row.append(isle)
    if len(row) > 1 and row[-2].rank > isle.rank:
        row.sort(key=_RANK)


# the berths of each island's beaches and its full and other beaches (`_SORTED`), by its name
_FRESH = {name: (berths, _SORTED[len(berths)]) for name, berths in BERTHS.items()}


class IslandTally:
    """One island's boats counted: free berths per beach (`room`), boats per seat (`boats`),
    its full beaches and the others (`full`, `open`, in beach order), and the emigrations
    from its full beaches over open routes (`exits`: None until asked for, and again once a
    full beach's boats changed, or a tile came or went where one of their routes stops;
    `routes` keeps them per full beach with those places, until the same happens to that
    beach). `beaches` is the board's own list of boats per beach per
    seat, changed here alone; `total` counts its boats, and `expansions` are the expansions
    onto its open beaches by number of boats (None until asked for, and again once a beach
    filled or emptied). `rank` orders the islands as placed (`Homes`)."""

    __slots__ = (
        "beaches",
        "bits",
        "boats",
        "exits",
        "expansions",
        "full",
        "name",
        "open",
        "position",
        "rank",
        "room",
        "routes",
        "sorts",
        "total",
    )

    def __init__(self, name: str, position: Hex, beaches: list[list[int]], rank: int) -> None:
        self.name = name
        self.position = position
        self.beaches = beaches
        self.rank = rank
        berths = BERTHS[name]
        self.room: list[int] = [n - sum(boats) for n, boats in zip(berths, beaches, strict=True)]
        self.boats: list[int] = [sum(column) for column in zip(*beaches, strict=True)]
        self.total = sum(self.boats)
        self.bits = sum(1 << b for b, free in enumerate(self.room) if free <= 0)
        self.sorts = _SORTED[len(beaches)]  # its full and other beaches by the bits of the full
        self.full, self.open = self.sorts[self.bits]
        self.exits: tuple[Emigrate, ...] | None = None
        self.expansions: tuple[tuple[Expand, ...], ...] | None = None
        self.routes: dict[int, tuple[tuple[Emigrate, ...], tuple[Hex, ...]]] = {}

    @classmethod
    def placed(cls, name: str, position: Hex, beaches: list[list[int]], rank: int) -> IslandTally:
        """The tally of an island just put on the table: no boat on `beaches` yet."""
        isle = cls.__new__(cls)
        isle.name, isle.position, isle.beaches = name, position, beaches
        isle.rank = rank
        berths, isle.sorts = _FRESH[name]
        isle.room = [*berths]
        isle.boats = [*_NONE[len(beaches[0])]]
        isle.total = isle.bits = 0
        isle.full, isle.open = isle.sorts[0]
        isle.exits = isle.expansions = None
        isle.routes = {}
        return isle

    def copy(self, beaches: list[list[int]]) -> IslandTally:
        """The same tally over `beaches`, a copy of the board's lists."""
        other = IslandTally.__new__(IslandTally)
        other.name, other.position, other.beaches = self.name, self.position, beaches
        other.rank = self.rank
        other.room, other.boats, other.total = list(self.room), list(self.boats), self.total
        other.bits, other.full, other.open = self.bits, self.full, self.open
        other.sorts = self.sorts
        other.exits, other.expansions = self.exits, self.expansions
        other.routes = dict(self.routes)
        return other

    def move(self, beach: int, seat: int, n: int) -> bool:
        """`n` boats of `seat` onto `beach` (off it when negative); True when the beach
        became full or stopped being full."""
        self.beaches[beach][seat] += n
        self.boats[seat] += n
        self.total += n
        room = self.room
        before = room[beach]
        after = room[beach] = before - n
        if before > 0 and after > 0:  # a beach with room before and after: no full beach changed
            return False
        return self._changed(beach, before, after)

    def add(self, beaches: tuple[int, ...], seat: int) -> bool:
        """One boat of `seat` onto each of `beaches` (`move` for each); True when a beach
        became full."""
        rows, room = self.beaches, self.room
        filled = False
        for b in beaches:
            rows[b][seat] += 1
            after = room[b] = room[b] - 1
            if after <= 0:  # `_changed`, written out: most expansions fill no beach
                self.exits = None
                self.routes.pop(b, None)
                if after == 0:  # the beach became full
                    self.bits += _BIT[b]
                    filled = True
        count = len(beaches)
        self.boats[seat] += count
        self.total += count
        if filled:
            self.full, self.open = self.sorts[self.bits]
            self.expansions = None
        return filled

    def recall(self, seat: int) -> int:
        """Take every boat of `seat` off the island (`move` for each of its beaches); returns
        how many."""
        room = self.room
        count = 0
        for b, row in enumerate(self.beaches):
            n = row[seat]
            if n:
                row[seat] = 0
                before = room[b]
                room[b] = before + n
                count += n
                if before <= 0:  # a full beach (none at a turn's start)
                    self._changed(b, before, before + n)
        self.boats[seat] = 0
        self.total -= count
        return count

    def land(self, moves: tuple[tuple[int, int, int], ...], homes: Homes) -> bool:
        """`n` boats of `seat` onto `beach` for each (beach, seat, n) of `moves`, a landing's
        (`move` for each; the island joins the `homes` of a seat that had no boat on it):
        boats land only where there is room, and no more than fits, so a beach has room before
        each move and may be full after its last; True when a beach became full."""
        rows, room, boats = self.beaches, self.room, self.boats
        changed = False
        total = self.total
        for b, seat, n in moves:
            rows[b][seat] += n
            boats[seat] += n
            if boats[seat] == n:  # the seat's first boats here
                join_home(homes[seat], self)
            total += n
            after = room[b] = room[b] - n
            if after <= 0:  # `_changed` for a beach that became full, written out
                self.exits = self.expansions = None
                self.routes.pop(b, None)
                bits = self.bits = self.bits + _BIT[b]
                self.full, self.open = self.sorts[bits]
                changed = True
        self.total = total
        return changed

    def clear(self, beach: int, homes: Homes) -> list[int]:
        """Take every boat off `beach`, a full one (only full beaches emigrate; the island leaves
        the `homes` of a seat that has no boat left on it); returns them per seat."""
        taken = self.beaches[beach]
        self.beaches[beach] = [*_NONE[len(taken)]]
        boats = self.boats
        for seat, n in enumerate(taken):
            if n:
                boats[seat] -= n
                if not boats[seat]:
                    homes[seat].remove(self)
        count = sum(taken)
        self.total -= count
        self.room[beach] += count
        # `_changed` for a full beach that has room again, written out (every emigration)
        self.exits = self.expansions = None
        self.routes.pop(beach, None)
        bits = self.bits = self.bits - _BIT[beach]
        self.full, self.open = self.sorts[bits]
        return taken

    def empty(self, beaches: list[list[int]]) -> None:
        """Every boat gone (a royal island): `beaches` are the board's new, empty lists."""
        self.beaches = beaches
        self.room = list(BERTHS[self.name])
        self.boats = [0] * len(self.boats)
        self.total = self.bits = 0
        self.full, self.open = self.sorts[0]
        self.exits = self.expansions = None
        self.routes = {}

    def leave(self, homes: Homes) -> None:
        """The island leaves the `homes` of every seat with boats on it (it left the table)."""
        for seat, n in enumerate(self.boats):
            if n:
                homes[seat].remove(self)

    def _changed(self, beach: int, before: int, after: int) -> bool:
        """A full beach changed (`before` or `after` its free berths were none)."""
        self.exits = None
        self.routes.pop(beach, None)
        # comparisons that jump and additions: the forms Python 3.11 runs at once (a shift,
        # an exclusive or and a comparison kept as a value go through its general paths)
        if before > 0:
            if after > 0:
                return False
            bits = self.bits = self.bits + _BIT[beach]  # the beach became full
        elif after <= 0:
            return False
        else:
            bits = self.bits = self.bits - _BIT[beach]  # it has room again
        self.full, self.open = self.sorts[bits]
        self.expansions = None
        return True
