"""Every legal way for an arriving group to land on an island (RULES.md §7)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from itertools import combinations, permutations

Counts = tuple[int, ...]  # boats per seat
Landing = tuple[tuple[tuple[int, Counts], ...], Counts]  # ((beach, boats per seat), ...), out


@lru_cache(maxsize=8192)
def _sub_multisets(available: Counts, size: int) -> tuple[Counts, ...]:
    """Every way to take `size` boats from `available` (per seat), as counts per seat."""
    return tuple(_take(available, size, 0))


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
    total = sum(group)
    beaches = [b for b, f in enumerate(free) if f > 0]
    if total < len(beaches):
        return _one_each(group, beaches)
    to_place = min(total, sum(free))
    low = [1] * len(beaches)
    high = [free[b] for b in beaches]
    low_after = [sum(low[i:]) for i in range(len(beaches) + 1)]
    high_after = [sum(high[i:]) for i in range(len(beaches) + 1)]
    results: list[Landing] = []

    def place(index: int, remaining: Counts, left: int, done: list[tuple[int, Counts]]) -> None:
        if index == len(beaches):
            if left == 0:
                results.append((tuple(done), remaining))
            return
        for size in range(min(high[index], left), low[index] - 1, -1):
            rest = left - size
            if rest < low_after[index + 1] or rest > high_after[index + 1]:
                continue
            if size == 0:
                place(index + 1, remaining, rest, done)
                continue
            for taken in _sub_multisets(remaining, size):
                done.append((beaches[index], taken))
                place(
                    index + 1,
                    tuple(r - t for r, t in zip(remaining, taken, strict=True)),
                    rest,
                    done,
                )
                done.pop()

    place(0, tuple(group), to_place, [])
    return results


def _one_each(group: Counts, beaches: list[int]) -> list[Landing]:
    """Fewer boats than beaches with room: one boat each on beaches the player picks."""
    seats = len(group)
    boats = [seat for seat, n in enumerate(group) for _ in range(n)]
    orders = sorted(set(permutations(boats)), reverse=True)
    unit = [tuple(int(s == seat) for s in range(seats)) for seat in range(seats)]
    nobody = (0,) * seats
    return [
        (tuple((b, unit[seat]) for b, seat in zip(chosen, order, strict=True)), nobody)
        for chosen in combinations(beaches, len(boats))
        for order in orders
    ]
