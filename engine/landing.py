"""Every legal way for an arriving group to land on an island (RULES.md §7)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import lru_cache, partial
from itertools import combinations, permutations
from operator import sub
from typing import TypeVar

Counts = tuple[int, ...]  # boats per seat
Landing = tuple[tuple[tuple[int, Counts], ...], Counts]  # ((beach, boats per seat), ...), out
Order = tuple[tuple[int, str], ...]  # (seat, colour) pairs in the fixed colour order
Colours = tuple[str, ...]
ColourLanding = tuple[tuple[tuple[int, Colours], ...], Colours]  # a Landing, boats by colour

T = TypeVar("T")
Named = tuple[tuple[tuple[int, T], ...], T]  # a Landing with boats named by counts or colours


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


def landings(group: Counts, free: Counts) -> list[Landing]:
    """All final placements of `group` on beaches with `free` berths, with the boats left out.

    One boat goes on each beach with a free berth while boats remain (the player picks the
    beaches if boats run short); the rest go on any free berths; what does not fit stays out.
    """
    return _landings(group, free, _same)


@lru_cache(maxsize=4096)
def colour_landings(group: Counts, free: Counts, order: Order) -> tuple[ColourLanding, ...]:
    """`landings`, the boats named by colour in the fixed colour `order` (as `Land` has them)."""
    return tuple(_landings(group, free, partial(colours_of, order)))


@lru_cache(maxsize=16384)
def colours_of(order: Order, counts: Counts) -> Colours:
    """Boats per seat as colour names, in the fixed colour order."""
    return tuple(colour for seat, colour in order for _ in range(counts[seat]))


def _same(counts: Counts) -> Counts:
    return counts


def _landings(group: Counts, free: Counts, name: Callable[[Counts], T]) -> list[Named[T]]:
    total = sum(group)
    beaches = [b for b, f in enumerate(free) if f > 0]
    if total < len(beaches):
        return _one_each(group, beaches, name)
    if not beaches:
        return [((), name(group))]
    high = [free[b] for b in beaches]
    last = len(beaches) - 1
    high_after = [sum(high[i:]) for i in range(last + 2)]
    # the ways to fill the beaches from `index` on, shared by every way to fill those before
    done: dict[tuple[int, Counts, int], list[Named[T]]] = {}

    def rest_of(index: int, remaining: Counts, left: int) -> list[Named[T]]:
        key = (index, remaining, left)
        found = done.get(key)
        if found is not None:
            return found
        beach = beaches[index]
        if index == last:  # the boats left all go here (one at least)
            found = [
                (((beach, name(taken)),), name(out)) for taken, out in _splits(remaining, left)
            ]
        else:
            found = []
            low_next, high_next = last - index, high_after[index + 1]
            for size in range(min(high[index], left - low_next), 0, -1):
                rest = left - size
                if rest > high_next:
                    break
                for taken, after in _splits(remaining, size):
                    tails = rest_of(index + 1, after, rest)
                    if tails:
                        head = ((beach, name(taken)),)
                        found += [(head + tail, out) for tail, out in tails]
        done[key] = found
        return found

    return rest_of(0, group, min(total, sum(free)))


def _one_each(group: Counts, beaches: list[int], name: Callable[[Counts], T]) -> list[Named[T]]:
    """Fewer boats than beaches with room: one boat each on beaches the player picks."""
    seats = len(group)
    boats = [seat for seat, n in enumerate(group) for _ in range(n)]
    one = [name(tuple(int(s == seat) for s in range(seats))) for seat in range(seats)]
    orders = [
        tuple(one[seat] for seat in order)
        for order in sorted(set(permutations(boats)), reverse=True)
    ]
    nobody = name((0,) * seats)
    return [
        (tuple(zip(chosen, order, strict=True)), nobody)
        for chosen in combinations(beaches, len(boats))
        for order in orders
    ]
