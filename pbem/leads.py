"""Where an option leads, in a few words of the game (issue 14): the engine's structured
`preview` of one option made into the line a mail shows under it.

Pure: a preview in, a string out. `short` is for long lists of options: the same facts
with fewer details (the trails a group passes and the steps made by themselves are left out).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine import (
    BEACH_LETTERS,
    DIRECTIONS,
    SEAS,
    Aftermath,
    Arrival,
    ClosedPreview,
    Crossing,
    Draw,
    Emigration,
    End,
    FullBeach,
    Next,
    Nothing,
    Placement,
    Preview,
    Removal,
    Returned,
    TilePreview,
)

DEPTH = 2  # emigrations made by themselves told one after the other (1 in a short line)

Boats = Sequence[tuple[str, int]]


def leads(seen: Preview, *, short: bool = False, around: Mapping[int, str] | None = None) -> str:
    """The line under an option. `around`: the tiles next to the place of a drawn tile, by
    direction (what an island's jetties face); empty for set-up and the colony boat."""
    if isinstance(seen, Emigration):
        return emigration(seen, short=short)
    if isinstance(seen, ClosedPreview):
        return _joined(removal(seen.removal), aftermath(seen.after, short=short, quiet=True))
    if isinstance(seen, Placement):
        return placement(seen, short=short)
    if isinstance(seen, Returned):
        return returned(seen)
    if isinstance(seen, TilePreview):
        return tile(seen, around or {})
    assert isinstance(seen, Nothing)
    return "nothing happens: the turn ends"


def tile_words(tile: str) -> str:
    """'sea K', 'Samoa'."""
    return f"sea {tile}" if tile in SEAS else tile


def boats_words(boats: Boats) -> str:
    """'2 red, 1 green'."""
    return ", ".join(f"{n} {colour}" for colour, n in boats) or "no boats"


def _count(boats: Boats) -> str:
    """'3 boats', 'no boat'."""
    count = sum(n for _, n in boats)
    return "no boat" if not count else f"{count} boat{'s' if count != 1 else ''}"


def beaches_words(beaches: Sequence[FullBeach]) -> str:
    """'Tonga a,c and Samoa b', in the order given."""
    by_island: dict[str, list[str]] = {}
    for beach in beaches:
        by_island.setdefault(beach.island, []).append(BEACH_LETTERS[beach.beach])
    return _listed([f"{island} {','.join(letters)}" for island, letters in by_island.items()])


def emigration(seen: Emigration, *, short: bool = False, depth: int = 0) -> str:
    """'2 red, 1 green cross sea O (danger 2), then land on Samoa'; `short`: without the
    trails passed."""
    crossed = seen.crossings[:-1] if seen.end is End.LOST else seen.crossings
    end = _end(seen, short=short, depth=depth)
    if crossed and not short:
        end = f"cross {_listed([_crossing(c) for c in crossed])}, then {end}"
    return f"{boats_words(seen.boats)} {end}"


def _crossing(crossing: Crossing) -> str:
    danger = f"danger {crossing.danger}" if crossing.danger else "no danger"
    return f"{tile_words(crossing.tile)} ({danger})"


def _listed(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _end(seen: Emigration, *, short: bool, depth: int) -> str:
    """How the group's voyage ends, said of the group's boats (plural)."""
    if seen.arrival is not None:
        text = _arrival(seen.arrival, short=short, depth=depth)
        if seen.end is End.TURNED_BACK:
            text = f"turn back from royal {seen.royal} and {text}"
        return text
    if seen.end is End.LOST:
        lost = seen.lost_on
        assert lost is not None
        text = (
            f"are lost at {tile_words(lost.tile)} (needs {lost.danger} colours, has {lost.colours})"
        )
    elif seen.end is End.OPEN_WATER:
        assert seen.open_water is not None
        text = "reach open water, where " + _drawn(seen.open_water.draw)
    else:
        assert seen.end is End.NO_TILE_LEFT
        text = "reach open water with no tile left: out of play"
    if seen.after is not None:
        text = _joined(text, aftermath(seen.after, short=short, depth=depth, quiet=True))
    return text


def _drawn(draw: Draw) -> str:
    return {
        Draw.UNKNOWN: "a tile is drawn",
        Draw.ISLAND: "an island is drawn (no sea tile is left)",
        Draw.SEA: "a sea tile is drawn (no island is left)",
        Draw.LAST_SEA: "the last sea tile is drawn: they stay at sea",
    }[draw]


def _arrival(arrival: Arrival, *, short: bool, depth: int) -> str:
    text = f"land on {arrival.island}"
    out = f"{arrival.stay_out} stay{'s' if arrival.stay_out == 1 else ''} out"
    if arrival.landing is None:
        return f"{text} ({out}, you choose how)" if arrival.stay_out else f"{text} (you choose how)"
    if arrival.stay_out:
        text += f" ({out})"
    assert arrival.after is not None
    return _joined(text, aftermath(arrival.after, short=short, depth=depth, quiet=True))


def aftermath(after: Aftermath, *, short: bool = False, depth: int = 0, quiet: bool = False) -> str:
    """What follows once boats were placed or a group sailed: the beaches that become full
    and so emigrate next, an island that leaves the game, tiles drawn until an island. Nothing
    following is 'no beach becomes full', or '' when `quiet`."""
    if depth >= (1 if short else DEPTH):
        return "then more follows" if after.full or after.removed else ""
    parts = [removal(r) for r in after.removed]
    new = [b for b in after.full if b.new]
    waiting = [b for b in after.full if not b.new]
    if after.forced is not None:
        parts.append(_forced(after.forced, new, short=short, depth=depth))
    elif new and not waiting:
        verb = "becomes full and emigrates" if _one(new) else "become full and emigrate"
        parts.append(f"{beaches_words(new)} {verb} next")
    elif new:
        verb = "becomes full" if _one(new) else "become full"
        parts.append(f"{beaches_words(new)} {verb}; {beaches_words(after.full)} emigrate next")
    elif waiting:
        parts.append(f"{beaches_words(waiting)} still to emigrate")
    elif after.redraw:
        parts.append("then tiles are drawn until an island appears")
    elif not quiet and not parts:
        parts.append("no beach becomes full")
    return "; ".join(parts)


def _one(beaches: Sequence[FullBeach]) -> bool:
    return len(beaches) == 1


def _forced(forced: Emigration, new: Sequence[FullBeach], *, short: bool, depth: int) -> str:
    where = f"{forced.island} {BEACH_LETTERS[forced.beach]}"
    sails = f"emigrates {DIRECTIONS[forced.jetty]} by itself"
    if [(b.island, b.beach) for b in new] == [(forced.island, forced.beach)]:
        head = f"{where} becomes full and {sails}"
    elif new:
        verb = "becomes full" if _one(new) else "become full"
        head = f"{beaches_words(new)} {verb}; {where} {sails}"
    else:
        head = f"then {where} {sails}"
    return f"{head}: {emigration(forced, short=short, depth=depth + 1)}"


def removal(removed: Removal) -> str:
    """'Tonga leaves the game (3 blue, 1 red back to the reserves)'."""
    return f"{removed.island} leaves the game ({boats_words(removed.boats)} back to the reserves)"


def placement(seen: Placement, *, short: bool = False) -> str:
    """A placement: which beaches then become full (the boats that stay out of a landing)."""
    text = aftermath(seen.after, short=short)
    if seen.returned:
        out = sum(n for _, n in seen.returned)
        text = f"{boats_words(seen.returned)} stay{'s' if out == 1 else ''} out; {text}"
    return text


def returned(seen: Returned) -> str:
    """Founding a royal island or colonising anew: the boats going back to the reserve."""
    back = _count(seen.boats)
    if seen.island is not None:
        return f"1 boat stays as the royal boat, {back} back to your reserve; the turn ends"
    return f"{back} back to your reserve; tiles are drawn until an island appears"


def tile(seen: TilePreview, around: Mapping[int, str]) -> str:
    """A drawn tile placed: where its trails lead (a sea tile) or what its jetties face (an
    island), then what follows."""
    if seen.trails:
        links = []
        for trail in seen.trails:
            a, b = (tile_words(f) if f else "open water" for f in trail.faces)
            if (a, b) == ("open water", "open water"):
                continue
            if a == "open water":
                a, b = b, a
            danger = f"danger {trail.danger}" if trail.danger else "no danger"
            links.append(f"{a} to {b} ({danger})")
        trails = "trail" if len(links) == 1 else "trails"
        shown = f"{trails} {', '.join(links)}" if links else "no trail touches a tile"
    else:
        faced = [
            f"{BEACH_LETTERS[beach]} {DIRECTIONS[d]} to {tile_words(around[d])}"
            for beach, jetties in enumerate(seen.jetties)
            for d in jetties
            if d in around
        ]
        jetties = "jetty" if len(faced) == 1 else "jetties"
        shown = f"{jetties} {', '.join(faced)}" if faced else "no jetty faces a tile"
    return f"{shown}; {_next(seen.next)}"


def _next(following: Next) -> str:
    return {
        Next.DRAW_AGAIN: "then another tile is drawn",
        Next.PLACE_BOAT: "then you put a boat on it",
        Next.TURN_ENDS: "then the turn ends",
        Next.GAME_ENDS: "then the game ends",
    }[following]


def _joined(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


__all__ = [
    "aftermath",
    "beaches_words",
    "boats_words",
    "emigration",
    "leads",
    "placement",
    "removal",
    "returned",
    "tile",
    "tile_words",
]
