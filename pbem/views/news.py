"""The engine's events as the sentences of the mails, translatable (`engine.Message`): the same
English as the events' own `str`, which the engine keeps for its tests and tools."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from engine import (
    BEACH_LETTERS,
    COLOURS,
    DIRECTION_WORDS,
    WHO,
    BoatMoved,
    BoatsPlaced,
    BoatsRecalled,
    ChoiceMade,
    Event,
    GameEnded,
    GroupArrived,
    GroupLanded,
    GroupSailed,
    IslandRemoved,
    Joined,
    Message,
    RoyalIslandFounded,
    StayedAtSea,
    Termination,
    TileDrawn,
    TilePlaced,
    TurnedBack,
    TurnPassed,
    TurnStarted,
    VoyageFailed,
    VoyagePassed,
    counted,
    tile_words,
)
from pbem.views.i18n import COLOUR_NAMES, boats_of, listed

# Translators: the directions of the board, as in "its red emblem facing north-east"
DIRECTION_NAMES: dict[str, Message] = {
    "south": Message("south"),
    "south-west": Message("south-west"),
    "north-west": Message("north-west"),
    "north": Message("north"),
    "north-east": Message("north-east"),
    "south-east": Message("south-east"),
}

TERMINATIONS: dict[Termination, Message] = {
    Termination.LAST_SEA_TILE: Message("the last sea tile was drawn"),
    Termination.LAST_ISLAND: Message("the last island was drawn"),
    Termination.GAME_MASTER: Message("the game master ended the game"),
}


def colour(name: str) -> str:
    """A boat colour, translatable ('blue')."""
    return COLOUR_NAMES.get(name, name)


def speaker(said_by: str) -> str:
    """Who said a line of table talk, as stored ("Ben (red)"), with the colour in the
    reader's words; any other speaker ("Olga (watching)") as it is."""
    name, _, rest = said_by.rpartition(" (")
    if name and rest.endswith(")") and rest[:-1] in COLOUR_NAMES:
        return Message("{name} ({colour})", name=name, colour=colour(rest[:-1]))
    return said_by


def who(name: str) -> str:
    """A boat colour at the start of a sentence ('Blue')."""
    return WHO.get(name) or name.capitalize()


def direction(index: int) -> str:
    word = DIRECTION_WORDS[index]
    return DIRECTION_NAMES.get(word, word)


def ending(termination: Termination | None) -> str:
    """Why the game ended, as the mails say it ('' while it goes on)."""
    return TERMINATIONS.get(termination, str(termination)) if termination else ""


def boats(colours: Iterable[tuple[str, int]]) -> str:
    """'2 yellow, 1 orange' ('' for none)."""
    return Joined(", ", [boats_of(c, n) for c, n in colours])


def group(colours: tuple[str, ...]) -> str:
    """The boats of a group of colours: '2 yellow, 1 orange'."""
    return boats(Counter(colours).items())


def landed(e: GroupLanded) -> str:
    """A landing that names its group ('1 blue, 2 green landed on ...'): for news where the
    group's arrival is not the line before."""
    colours = [c for _, cs in e.placement for c in cs] + list(e.out)
    # in the order of the colours of the game (an arrival's order, when seats follow it)
    boats = group(tuple(sorted(colours, key=lambda c: COLOURS.index(c) if c in COLOURS else 6)))
    if e.out:  # two verbs, each agreeing with its own boats
        stayed = counted(
            "{boats} stayed out, back to the reserves.",
            "{boats} stayed out, back to the reserves.",
            len(e.out),
            boats=group(e.out),
        )
        return counted(
            "{boats} landed on {island} ({placed}); {stayed}",
            "{boats} landed on {island} ({placed}); {stayed}",
            len(colours),
            boats=boats,
            island=e.island,
            placed=_placed(e),
            stayed=stayed,
        )
    return counted(
        "{boats} landed on {island} ({placed}).",
        "{boats} landed on {island} ({placed}).",
        len(colours),
        boats=boats,
        island=e.island,
        placed=_placed(e),
    )


def _placed(e: GroupLanded) -> str:
    """Where a landing put the boats: 'a: 1 blue; b: 2 green'."""
    parts = [
        # Translators: the boats a landing puts on one beach, as in "a: 2 red"
        Message("{beach}: {boats}", beach=BEACH_LETTERS[b], boats=group(cs))
        for b, cs in e.placement
    ]
    return Joined("; ", parts) if parts else Message("no room")


def place(anchor: str | None, direction: int) -> str:
    """A place on the table as the put command names it, in a sentence: 'north-east of
    Tonga' (anchor None: the centre of an empty table)."""
    if anchor is None:
        return Message("in the centre")
    tile = tile_words(anchor)
    # Translators: a place on the table, next to a tile, as in "was placed north-east of Tonga"
    return {
        "south": lambda: Message("south of {tile}", tile=tile),
        "south-west": lambda: Message("south-west of {tile}", tile=tile),
        "north-west": lambda: Message("north-west of {tile}", tile=tile),
        "north": lambda: Message("north of {tile}", tile=tile),
        "north-east": lambda: Message("north-east of {tile}", tile=tile),
        "south-east": lambda: Message("south-east of {tile}", tile=tile),
    }[DIRECTION_WORDS[direction]]()


def tile_placed(e: TilePlaced, where: str) -> str:
    """A placed tile and its place (`place`)."""
    return Message(
        "Tile {tile} was placed {place}, its red emblem facing {direction}.",
        tile=tile_words(e.tile),
        place=where,
        direction=direction(e.rotation),
    )


def event(happened: Event) -> str:
    """One event as the mails tell it."""
    told = _told(happened)
    return told if told is not None else str(happened)


def _told(e: Event) -> str | None:
    """`e` as the mails tell it, by the teller of its kind (None: a kind the mails do not
    tell in words of their own)."""
    teller = _TELLERS.get(type(e))
    return None if teller is None else teller(e)


def _choice_made(e: ChoiceMade) -> str:
    if e.forced:
        return Message("{who}: {choice} (the only option).", who=who(e.colour), choice=e.choice)
    return Message("{who}: {choice}.", who=who(e.colour), choice=e.choice)


def _boats_placed(e: BoatsPlaced) -> str:
    return counted(
        "{who} put {count} boat on {island} ({beaches}).",
        "{who} put {count} boats on {island} ({beaches}).",
        len(e.beaches),
        who=who(e.colour),
        island=e.island,
        beaches=", ".join(BEACH_LETTERS[b] for b in e.beaches),
    )


def _boat_moved(e: BoatMoved) -> str:
    return Message(
        "{who} moved a boat from {island} {beach} to {to_island} {to_beach}.",
        who=who(e.colour),
        island=e.from_island,
        beach=BEACH_LETTERS[e.from_beach],
        to_island=e.to_island,
        to_beach=BEACH_LETTERS[e.to_beach],
    )


def _royal_island_founded(e: RoyalIslandFounded) -> str:
    if not e.returned:  # the founder's boat alone was there: it stays as the royal boat
        return Message(
            "{who} founded a royal island on {island}; no boat went back to the reserve.",
            who=who(e.colour),
            island=e.island,
        )
    return counted(
        "{who} founded a royal island on {island}; {count} boat went back to the reserve.",
        "{who} founded a royal island on {island}; {count} boats went back to the reserve.",
        e.returned,
        who=who(e.colour),
        island=e.island,
    )


def _boats_recalled(e: BoatsRecalled) -> str:
    return counted(
        "{who} took {count} boat off the board to colonise anew.",
        "{who} took {count} boats off the board to colonise anew.",
        e.count,
        who=who(e.colour),
    )


def _group_sailed(e: GroupSailed) -> str:
    return counted(  # one form in English; other languages' verbs agree with the boats
        "Beach {island} {beach} was full: {boats} sailed {direction}.",
        "Beach {island} {beach} was full: {boats} sailed {direction}.",
        len(e.boats),
        island=e.island,
        beach=BEACH_LETTERS[e.beach],
        boats=group(e.boats),
        direction=direction(e.jetty),
    )


def _tile_drawn(e: TileDrawn) -> str:
    return Message(
        "Tile {tile} was drawn ({islands}, {seas} left).",
        tile=tile_words(e.tile),
        # Translators: what is left in the stack, as in "(12 islands, 5 seas left)"
        islands=counted("{count} island", "{count} islands", e.islands_left),
        seas=counted("{count} sea", "{count} seas", e.seas_left),
    )


def _tile_placed(e: TilePlaced) -> str:
    return Message(
        "Tile {tile} was placed with its red emblem facing {direction}.",
        tile=tile_words(e.tile),
        direction=direction(e.rotation),
    )


def _voyage_passed(e: VoyagePassed) -> str:
    return Message(
        "They crossed {tile} (danger {danger}, {colours} colours).",
        tile=tile_words(e.tile),
        danger=e.danger,
        colours=e.colours,
    )


def _voyage_failed(e: VoyageFailed) -> str:
    return Message(
        "On {tile} the trail needs {danger} colours; they had {colours}: "
        "lost at sea, {boats} back to the reserves.",
        tile=tile_words(e.tile),
        danger=e.danger,
        colours=len(set(e.boats)),
        boats=group(e.boats),
    )


def _turned_back(e: TurnedBack) -> str:
    return Message(
        "The royal island {royal} turned them back to {island}.",
        royal=e.royal_island,
        island=e.home,
    )


def _group_arrived(e: GroupArrived) -> str:
    return counted(
        "{boats} arrived at {island}.",
        "{boats} arrived at {island}.",
        len(e.boats),
        boats=group(e.boats),
        island=e.island,
    )


def _group_landed(e: GroupLanded) -> str:
    placed = _placed(e)
    if e.out:
        return counted(
            "They landed on {island} ({placed}); {boats} stayed out, back to the reserves.",
            "They landed on {island} ({placed}); {boats} stayed out, back to the reserves.",
            len(e.out),
            island=e.island,
            placed=placed,
            boats=group(e.out),
        )
    return Message("They landed on {island} ({placed}).", island=e.island, placed=placed)


def _stayed_at_sea(e: StayedAtSea) -> str:
    return counted(
        "{boats} stayed at sea: out of play.",
        "{boats} stayed at sea: out of play.",
        len(e.boats),
        boats=group(e.boats),
    )


def _island_removed(e: IslandRemoved) -> str:
    if e.boats:
        return counted(
            "Every route from {island} only led back: the island left the game and "
            "{boats} went back to the reserves.",
            "Every route from {island} only led back: the island left the game and "
            "{boats} went back to the reserves.",
            len(e.boats),
            island=e.island,
            boats=group(e.boats),
        )
    return Message(
        "Every route from {island} only led back: the island left the game.", island=e.island
    )


def _turn_started(e: TurnStarted) -> str:
    return Message("Turn {turn}: {colour}.", turn=e.turn, colour=colour(e.colour))


def _turn_passed(e: TurnPassed) -> str:
    return Message("{who} passed the turn.", who=who(e.colour))


def _game_ended(e: GameEnded) -> str:
    names = [who(w) for w in e.winners]
    if len(names) == 1:
        return Message(
            "Game over ({reason}): {who} wins.", reason=ending(e.termination), who=names[0]
        )
    return Message(
        "Game over ({reason}): {who} share the win.",
        reason=ending(e.termination),
        who=listed(names),
    )


_TELLERS: dict[type[Any], Callable[[Any], str]] = {
    ChoiceMade: _choice_made,
    BoatsPlaced: _boats_placed,
    BoatMoved: _boat_moved,
    RoyalIslandFounded: _royal_island_founded,
    BoatsRecalled: _boats_recalled,
    GroupSailed: _group_sailed,
    TileDrawn: _tile_drawn,
    TilePlaced: _tile_placed,
    VoyagePassed: _voyage_passed,
    VoyageFailed: _voyage_failed,
    TurnedBack: _turned_back,
    GroupArrived: _group_arrived,
    GroupLanded: _group_landed,
    StayedAtSea: _stayed_at_sea,
    IslandRemoved: _island_removed,
    TurnStarted: _turn_started,
    TurnPassed: _turn_passed,
    GameEnded: _game_ended,
}


__all__ = [
    "boats",
    "colour",
    "direction",
    "ending",
    "event",
    "group",
    "landed",
    "place",
    "speaker",
    "tile_placed",
    "who",
]
