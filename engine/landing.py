"""Every legal way for an arriving group to land on an island (RULES.md §7)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from itertools import combinations, permutations, repeat
from operator import getitem, sub

from engine.choices import Land
from engine.values import maker

_LAND = maker(Land)  # Land(...), each field stored at once (values.maker)

Counts = tuple[int, ...]  # boats per seat
Order = tuple[tuple[int, str], ...]  # (seat, colour) pairs in the fixed colour order
Colours = tuple[str, ...]
Placement = tuple[tuple[int, Colours], ...]  # (beach, boats by colour), beaches in order
Found = tuple[list[Placement], list[Colours]]  # placements, and the boats each leaves out

# the most landings (of groups, and of the boats left of them) kept for a colour order before
# they are all forgotten, so that a long run keeps a bounded memory
_KEPT = 50_000


@lru_cache(maxsize=8192)
def _splits(available: Counts, size: int) -> tuple[tuple[Counts, Counts], ...]:
    """Every way to take `size` boats from `available` (per seat): what is taken and what
    is left, as counts per seat, the most of the first seat taken first."""
    return tuple((taken, tuple(map(sub, available, taken))) for taken in _take(available, size, 0))


def _take(available: Counts, size: int, seat: int) -> Iterator[Counts]:
    if seat == len(available) - 1:
        if size <= available[seat]:
            yield (size,)
        return
    rest_capacity = sum(available[seat + 1 :])
    for take in range(min(size, available[seat]), -1, -1):
        if size - take > rest_capacity:
            break
        for tail in _take(available, size - take, seat + 1):
            yield (take, *tail)


def colours_of(order: Order, counts: Counts) -> Colours:
    """Boats per seat as colour names, in the fixed colour order."""
    return tuple(colour for seat, colour in order for _ in range(counts[seat]))


class Landings:
    """The landings of groups on islands, the boats named by colour in one fixed colour
    `order` (as `Land` has them), each worked out once and kept for the next group like it.

    A group lands one boat on each beach with a free berth while boats remain (the player
    picks the beaches if boats run short); the rest go on any free berths; what does not fit
    stays out. The landings of the boats left for the last beaches are shared by every way
    to fill the first ones, for every group and island that leaves the same."""

    __slots__ = (
        "_fills",
        "_one_each",
        "_orders",
        "_pairs",
        "_splits",
        "listed",
        "moved",
        "named",
        "order",
        "seat_of",
    )

    def __init__(self, order: Order) -> None:
        self.order = order
        self.named: dict[Counts, Colours] = {}  # boats per seat by colour
        seats = len(order)
        singles = [self.name(tuple(int(s == seat) for s in range(seats))) for seat in range(seats)]
        # one boat of each seat on each beach (an island has a beach on six edges at most)
        self._pairs = [[(beach, single) for single in singles] for beach in range(6)]
        self._splits: dict[tuple[Counts, int], tuple[tuple[Colours, Counts, Colours], ...]] = {}
        self._fills: dict[tuple[Counts, Counts, Counts, int], Found] = {}
        self._one_each: dict[tuple[Counts, Counts], Found] = {}
        self._orders: dict[Counts, list[Counts]] = {}
        self.seat_of = {colour: seat for seat, colour in order}  # the seat of each colour
        self.moved: dict[Placement, tuple[tuple[int, int, int], ...]] = {}  # `moves`, kept
        # the landings as choices, by island, group and free berths (`State._landings`)
        self.listed: dict[tuple[str, Counts, Counts], tuple[Land, ...]] = {}

    def name(self, counts: Counts) -> Colours:
        """Boats per seat as colour names."""
        named = self.named.get(counts)
        if named is None:
            named = self.named[counts] = colours_of(self.order, counts)
        return named

    def moves(self, placement: Placement) -> tuple[tuple[int, int, int], ...]:
        """A landing's boats as (beach, seat, boats of that seat there), beaches in order."""
        moves = self.moved.get(placement)
        if moves is None:
            seat_of = self.seat_of
            found = [
                (beach, seat_of[colour], colours.count(colour))
                for beach, colours in placement
                for colour in dict.fromkeys(colours)
            ]
            if len(self.moved) >= _KEPT:
                self.moved.clear()
            moves = self.moved[placement] = tuple(found)
        return moves

    def lands(self, island: str, group: Counts, free: Counts) -> tuple[Land, ...]:
        """The landings of `group` on `island`, with `free` berths per beach, as choices."""
        placements, outs = self.of(group, free)
        return tuple(map(_LAND, repeat(island), placements, outs))

    def of(self, group: Counts, free: Counts) -> Found:
        """All final placements of `group` on beaches with `free` berths, with the boats left
        out (shared lists: not to be changed)."""
        beaches = tuple([b for b, f in enumerate(free) if f > 0])
        total = sum(group)
        if total < len(beaches):
            return self._one_each_of(group, beaches)
        if not beaches:
            return [()], [self.name(group)]
        highs = tuple([free[b] for b in beaches])
        return self._fill(beaches, highs, group, min(total, sum(highs)))

    def _fill(self, beaches: Counts, highs: Counts, remaining: Counts, left: int) -> Found:
        """The landings of `left` boats of `remaining` on `beaches`, one boat at least and
        `highs` at most on each, the most on the first beach first."""
        key = (beaches, highs, remaining, left)
        found = self._fills.get(key)
        if found is not None:
            return found
        beach = beaches[0]
        placements: list[Placement]
        outs: list[Colours]
        if len(beaches) == 1:  # the boats left all go here
            splits = self._split(remaining, left)
            placements = [((beach, taken),) for taken, _, _ in splits]
            outs = [out for _, _, out in splits]
        else:
            placements, outs = [], []
            beaches_after, highs_after = beaches[1:], highs[1:]
            room_after = sum(highs_after)
            for size in range(min(highs[0], left - len(beaches_after)), 0, -1):
                rest = left - size
                if rest > room_after:
                    break
                for taken, after, _ in self._split(remaining, size):
                    tails, tail_outs = self._fill(beaches_after, highs_after, after, rest)
                    head = ((beach, taken),)
                    placements += [head + tail for tail in tails]
                    outs += tail_outs
        if len(self._fills) >= _KEPT:
            self._fills.clear()
        found = self._fills[key] = placements, outs
        return found

    def _split(self, available: Counts, size: int) -> tuple[tuple[Colours, Counts, Colours], ...]:
        """`_splits` with what is taken and what is left also named by colour."""
        key = (available, size)
        found = self._splits.get(key)
        if found is None:
            name = self.name
            found = tuple([(name(taken), left, name(left)) for taken, left in _splits(*key)])
            if len(self._splits) >= _KEPT:
                self._splits.clear()
            self._splits[key] = found
        return found

    def _one_each_of(self, group: Counts, beaches: Counts) -> Found:
        """Fewer boats than beaches with room: one boat each on beaches the player picks."""
        key = (group, beaches)
        found = self._one_each.get(key)
        if found is not None:
            return found
        orders = self._orders.get(group)
        if orders is None:
            boats = [seat for seat, n in enumerate(group) for _ in range(n)]
            orders = self._orders[group] = sorted(set(permutations(boats)), reverse=True)
        placements: list[Placement] = []
        for chosen in combinations(beaches, len(orders[0])):
            beach_pairs = [self._pairs[b] for b in chosen]  # (beach, one boat) by seat
            placements += [tuple(map(getitem, beach_pairs, order)) for order in orders]
        found = placements, [self.name((0,) * len(group))] * len(placements)
        if len(self._one_each) >= _KEPT:
            self._one_each.clear()
        self._one_each[key] = found
        return found
