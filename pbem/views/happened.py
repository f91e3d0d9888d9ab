"""What happened, in short sentences: the events of a round as the mails tell them (a drawn
tile and its placing in one sentence, a group's voyage and landing), for `pbem.views.view`'s
readers (letters, the export)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine import (
    CENTRE,
    ChoiceMade,
    Event,
    GroupArrived,
    GroupLanded,
    Message,
    Position,
    TileDrawn,
    TilePlaced,
    VoyagePassed,
    neighbour,
    tile_words,
)
from pbem.views import news
from pbem.views.leads import tiles_left


def happened(
    events: Sequence[Event],
    tiles: Mapping[Position, tuple[str, int]] | None = None,
    later: Sequence[Event] = (),
) -> tuple[str, ...]:
    """The events as short sentences; choices are left out unless the game made them, and a
    drawn tile and its placing make one sentence. `tiles`: the tiles on the table after
    `events` and then `later` (`State.tiles`), to say where each tile was placed; a landing
    names its group unless that group's arrival is told just before."""
    lines: list[str] = []
    drawn: TileDrawn | None = None
    arrived: GroupArrived | None = None
    places = placed_where(events, tiles, later) if tiles is not None else {}
    for index, event in enumerate(events):
        if isinstance(event, ChoiceMade) and not event.forced:
            continue
        if isinstance(event, TileDrawn):
            drawn, arrived = event, None
            continue
        where = places.get(index)
        if isinstance(event, TilePlaced) and drawn is not None and drawn.tile == event.tile:
            lines.append(_new_tile(drawn, event, where))
        elif isinstance(event, TilePlaced) and where is not None:
            lines.append(news.tile_placed(event, where))
        elif isinstance(event, VoyagePassed):
            lines.append(_crossed(event))
        elif isinstance(event, GroupLanded) and not _arrived(arrived, event):
            lines.append(news.landed(event))
        else:
            lines.append(news.event(event))
        drawn = None
        if not isinstance(event, ChoiceMade):  # the choice that landed them leaves "They"
            arrived = event if isinstance(event, GroupArrived) else None
    return tuple(lines)


def _arrived(arrived: GroupArrived | None, landed: GroupLanded) -> bool:
    """Whether `arrived` is the arrival of the group that `landed`."""
    if arrived is None or arrived.island != landed.island:
        return False
    boats = [c for _, cs in landed.placement for c in cs] + list(landed.out)
    return sorted(boats) == sorted(arrived.boats)


def placed_where(
    events: Sequence[Event],
    tiles: Mapping[Position, tuple[str, int]],
    later: Sequence[Event] = (),
) -> dict[int, str]:
    """Where each tile placed in `events` went (by the event's index), named as the put
    command named the place then: after the first-placed tile next to it among those placed
    before it. `tiles`: the table after `events` and `later`, in the order placed; a tile
    placed in them after this one names no place. A place whose tiles around it all left the
    game is not named."""
    placed = [(i, e.position) for i, e in enumerate(events) if isinstance(e, TilePlaced)]
    after_all = {e.position for e in later if isinstance(e, TilePlaced)}
    named: dict[int, str] = {}
    for k, (index, position) in enumerate(placed):
        after = after_all | {p for _, p in placed[k:]}
        before = [p for p in tiles if p not in after]
        if not before and position == CENTRE:
            named[index] = news.place(None, 0)
            continue
        for anchor in before:
            direction = next((d for d in range(6) if neighbour(anchor, d) == position), None)
            if direction is not None:
                named[index] = news.place(tiles[anchor][0], direction)
                break
    return named


def _new_tile(drawn: TileDrawn, placed: TilePlaced, where: str | None = None) -> str:
    if where is not None:
        return Message(
            "New tile: {tile}, laid {place} with its red emblem facing {direction} ({left}).",
            tile=tile_words(drawn.tile),
            place=where,
            direction=news.direction(placed.rotation),
            left=tiles_left(drawn.islands_left, drawn.seas_left),
        )
    return Message(
        "New tile: {tile}, laid with its red emblem facing {direction} ({left}).",
        tile=tile_words(drawn.tile),
        direction=news.direction(placed.rotation),
        left=tiles_left(drawn.islands_left, drawn.seas_left),
    )


def _crossed(event: VoyagePassed) -> str:
    if event.danger == 0:
        return Message("They crossed {tile} (no danger).", tile=tile_words(event.tile))
    return Message(
        "They crossed {tile}: the trail needs {danger} colours, they had {colours}.",
        tile=tile_words(event.tile),
        danger=event.danger,
        colours=event.colours,
    )
