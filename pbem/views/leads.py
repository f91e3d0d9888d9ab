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
    Aftermath,
    Arrival,
    ClosedPreview,
    Crossing,
    Draw,
    Emigration,
    End,
    FullBeach,
    Joined,
    Message,
    Next,
    Nothing,
    OpenWater,
    Placement,
    Preview,
    Removal,
    Returned,
    TilePreview,
    counted,
    tile_words,
)
from pbem.views import news
from pbem.views.i18n import listed

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
    return Message("nothing happens: the turn ends")


def boats_words(boats: Boats) -> str:
    """'2 red, 1 green'."""
    return news.boats(boats) if boats else Message("no boats")


def _count(boats: Boats) -> str:
    """'3 boats', 'no boat'."""
    count = sum(n for _, n in boats)
    return counted("{count} boat", "{count} boats", count) if count else Message("no boat")


def beaches_words(beaches: Sequence[FullBeach]) -> str:
    """'Tonga a,c and Samoa b', in the order given."""
    by_island: dict[str, list[str]] = {}
    for beach in beaches:
        by_island.setdefault(beach.island, []).append(BEACH_LETTERS[beach.beach])
    return listed([f"{island} {','.join(letters)}" for island, letters in by_island.items()])


def emigration(seen: Emigration, *, short: bool = False, depth: int = 0) -> str:
    """'2 red, 1 green cross sea O (danger 2), then land on Samoa'; `short`: without the
    trails passed."""
    crossed = seen.crossings[:-1] if seen.end is End.LOST else seen.crossings
    end = _end(seen, short=short, depth=depth)
    if crossed and not short:
        trails = listed([_crossing(c) for c in crossed])
        end = Message("cross {trails}, then {end}", trails=trails, end=end)
    # Translators: a group of boats ({boats}: "2 red, 1 green") and what it does ({end})
    return Message("{boats} {end}", boats=boats_words(seen.boats), end=end)


def _crossing(crossing: Crossing) -> str:
    where = tile_words(crossing.tile)
    if crossing.danger:
        return Message("{tile} (danger {danger})", tile=where, danger=crossing.danger)
    return Message("{tile} (no danger)", tile=where)


def _end(seen: Emigration, *, short: bool, depth: int) -> str:
    """How the group's voyage ends, said of the group's boats (plural)."""
    text: str
    if seen.arrival is not None:
        text = _arrival(seen.arrival, short=short, depth=depth)
        if seen.end is End.TURNED_BACK:
            text = Message("turn back from royal {royal} and {then}", royal=seen.royal, then=text)
        return text
    if seen.end is End.LOST:
        lost = seen.lost_on
        assert lost is not None
        text = Message(
            "are lost at {tile} (needs {danger} colours, has {colours})",
            tile=tile_words(lost.tile),
            danger=lost.danger,
            colours=lost.colours,
        )
    elif seen.end is End.OPEN_WATER:
        assert seen.open_water is not None
        text = Message("reach open water, where {drawn}", drawn=_drawn(seen.open_water))
    else:
        assert seen.end is End.NO_TILE_LEFT
        text = Message("reach open water with no tile left: out of play")
    if seen.after is not None:
        text = _joined(text, aftermath(seen.after, short=short, depth=depth, quiet=True))
    return text


def _drawn(water: OpenWater) -> str:
    """The tile drawn at open water, and whether that draw may end the game (RULES §12)."""
    left = tiles_left(water.islands_left, water.seas_left)
    return {
        Draw.UNKNOWN: Message("a tile is drawn"),
        Draw.ISLAND: Message("an island is drawn (no sea tile is left)"),
        Draw.SEA: Message("a sea tile is drawn (no island is left)"),
        Draw.LAST_SEA: Message("the last sea tile is drawn: they stay at sea"),
        Draw.MAYBE_LAST_SEA: Message(
            "a tile is drawn ({left}): if it is the last sea tile, they stay at sea and the "
            "game ends after this turn",
            left=left,
        ),
        Draw.MAYBE_LAST_ISLAND: Message(
            "a tile is drawn ({left}): if it is the last island, the game ends after this turn",
            left=left,
        ),
        Draw.LAST_EITHER: Message(
            "a tile is drawn ({left}): the game ends after this turn (on the last sea tile "
            "they stay at sea)",
            left=left,
        ),
    }[water.draw]


def tiles_left(islands: int, seas: int) -> str:
    """'3 islands and 1 sea tile left'."""
    return Message(
        # Translators: what the stack holds, as in "3 islands and 1 sea tile left"
        "{islands} and {seas} left",
        islands=counted("{count} island", "{count} islands", islands),
        seas=counted("{count} sea tile", "{count} sea tiles", seas),
    )


def _arrival(arrival: Arrival, *, short: bool, depth: int) -> str:
    text: str = Message("land on {island}", island=arrival.island)
    out = counted("{count} stays out", "{count} stay out", arrival.stay_out)
    if arrival.landing is None:
        if arrival.stay_out:
            return Message("{landing} ({out}, you choose how)", landing=text, out=out)
        return Message("{landing} (you choose how)", landing=text)
    if arrival.stay_out:
        text = Message("{landing} ({out})", landing=text, out=out)
    assert arrival.after is not None
    return _joined(text, aftermath(arrival.after, short=short, depth=depth, quiet=True))


def aftermath(after: Aftermath, *, short: bool = False, depth: int = 0, quiet: bool = False) -> str:
    """What follows once boats were placed or a group sailed: the beaches that become full
    and so emigrate next, an island that leaves the game, tiles drawn until an island. Nothing
    following is 'no beach becomes full', or '' when `quiet`."""
    if depth >= (1 if short else DEPTH):
        return Message("then more follows") if after.full or after.removed else ""
    parts = [removal(r) for r in after.removed]
    new = [b for b in after.full if b.new]
    waiting = [b for b in after.full if not b.new]
    if after.forced is not None:
        parts.append(_forced(after.forced, new, short=short, depth=depth))
    elif new and not waiting:
        parts.append(
            counted(
                "{beaches} becomes full and emigrates next",
                "{beaches} become full and emigrate next",
                len(new),
                beaches=beaches_words(new),
            )
        )
    elif new:
        parts.append(
            counted(
                "{beaches} becomes full; {waiting} emigrate next",
                "{beaches} become full; {waiting} emigrate next",
                len(new),
                beaches=beaches_words(new),
                waiting=beaches_words(after.full),
            )
        )
    elif waiting:
        parts.append(Message("{beaches} still to emigrate", beaches=beaches_words(waiting)))
    elif after.redraw:
        parts.append(Message("then tiles are drawn until an island appears"))
    elif not quiet and not parts:
        parts.append(Message("no beach becomes full"))
    return _joined(*parts)


def _forced(forced: Emigration, new: Sequence[FullBeach], *, short: bool, depth: int) -> str:
    where = f"{forced.island} {BEACH_LETTERS[forced.beach]}"
    sails = Message("emigrates {direction} by itself", direction=news.direction(forced.jetty))
    head: str
    if [(b.island, b.beach) for b in new] == [(forced.island, forced.beach)]:
        head = Message("{beach} becomes full and {sails}", beach=where, sails=sails)
    elif new:
        head = counted(
            "{beaches} becomes full; {beach} {sails}",
            "{beaches} become full; {beach} {sails}",
            len(new),
            beaches=beaches_words(new),
            beach=where,
            sails=sails,
        )
    else:
        head = Message(
            "then {beach} emigrates {direction} by itself",
            beach=where,
            direction=news.direction(forced.jetty),
        )
    return Joined(": ", [head, emigration(forced, short=short, depth=depth + 1)])


def removal(removed: Removal) -> str:
    """'Tonga leaves the game (3 blue, 1 red back to the reserves)'."""
    return Message(
        "{island} leaves the game ({boats} back to the reserves)",
        island=removed.island,
        boats=boats_words(removed.boats),
    )


def placement(seen: Placement, *, short: bool = False) -> str:
    """A placement: which beaches then become full (the boats that stay out of a landing)."""
    text = aftermath(seen.after, short=short)
    if seen.returned:
        out = sum(n for _, n in seen.returned)
        return counted(
            "{boats} stays out; {then}",
            "{boats} stay out; {then}",
            out,
            boats=boats_words(seen.returned),
            then=text,
        )
    return text


def returned(seen: Returned) -> str:
    """Founding a royal island or colonising anew: the boats going back to the reserve."""
    back = _count(seen.boats)
    if seen.island is not None:
        return Message(
            "1 boat stays as the royal boat, {back} back to your reserve; the turn ends",
            back=back,
        )
    left = tiles_left(seen.islands_left, seen.seas_left)
    if seen.islands_left == 1:  # §12: the island drawn is the last one
        return Message(
            "{back} back to your reserve; tiles are drawn until an island appears ({left}): "
            "it is the last island, so the game ends after this turn",
            back=back,
            left=left,
        )
    if seen.seas_left == 1:
        return Message(
            "{back} back to your reserve; tiles are drawn until an island appears ({left}): "
            "if the last sea tile comes first, the game ends after this turn",
            back=back,
            left=left,
        )
    return Message(
        "{back} back to your reserve; tiles are drawn until an island appears", back=back
    )


def tile(seen: TilePreview, around: Mapping[int, str]) -> str:
    """A drawn tile placed: where its trails lead (a sea tile) or what its jetties face (an
    island), then what follows."""
    shown: str
    if seen.trails:
        links = []
        for trail in seen.trails:
            a, b = (tile_words(f) if f else OPEN_WATER for f in trail.faces)
            if a is OPEN_WATER and b is OPEN_WATER:
                continue
            if a is OPEN_WATER:
                a, b = b, a
            danger = (
                Message("danger {danger}", danger=trail.danger)
                if trail.danger
                else Message("no danger")
            )
            links.append(Message("{a} to {b} ({danger})", a=a, b=b, danger=danger))
        shown = (
            counted("trail {links}", "trails {links}", len(links), links=Joined(", ", links))
            if links
            else Message("no trail touches a tile")
        )
    else:
        faced = [
            Message(
                "{beach} {direction} to {place}",
                beach=BEACH_LETTERS[beach],
                direction=DIRECTIONS[d],
                place=tile_words(around[d]),
            )
            for beach, jetties in enumerate(seen.jetties)
            for d in jetties
            if d in around
        ]
        shown = (
            counted("jetty {links}", "jetties {links}", len(faced), links=Joined(", ", faced))
            if faced
            else Message("no jetty faces a tile")
        )
    return Joined("; ", [shown, _next(seen.next)])


OPEN_WATER = Message("open water")


def _next(following: Next) -> str:
    return {
        Next.DRAW_AGAIN: Message("then another tile is drawn"),
        Next.PLACE_BOAT: Message("then you put a boat on it"),
        Next.TURN_ENDS: Message("then the turn ends"),
        Next.GAME_ENDS: Message("then the game ends"),
    }[following]


def _joined(*parts: str) -> str:
    kept = [p for p in parts if p]
    return kept[0] if len(kept) == 1 else Joined("; ", kept)


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
    "tiles_left",
]
