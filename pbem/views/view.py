"""What one player sees of a game, as plain values: the templates get these, never the engine.

Building a view is pure: state, names and times in, frozen dataclasses out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache

from engine import (
    BEACH_LETTERS,
    DIRECTIONS,
    ISLAND_ALIASES,
    ISLANDS,
    LETTERS,
    SEAS,
    SYNTAX,
    BoatMoved,
    BoatsPlaced,
    Choice,
    Emigrate,
    Event,
    Expand,
    GroupArrived,
    GroupLanded,
    GroupSailed,
    Joined,
    Message,
    Phase,
    PutTile,
    RoyalIslandFounded,
    State,
    Termination,
    TilePlaced,
    TilePreview,
    neighbour,
    preview,
    tile_words,
    what_is_asked,
)
from pbem.core import AnswerTopic, LineOutcome, MailKind
from pbem.views.happened import happened as happened  # the mails and the export call it here
from pbem.views.hexmap import map_for_readers, sea_legend, short_name, tile_turns
from pbem.views.i18n import Named, names_printed, printed, stamp, with_names
from pbem.views.leads import leads

MAX_LISTED = 40  # options listed by number; the others are written as commands
SHORT_LEADS = 12  # more options listed than this: each says where it leads in fewer words

# the commands that can answer each kind of decision
COMMANDS_FOR = {
    Phase.SETUP: ("place",),
    Phase.TURN: ("expand", "royal", "colonise", "place"),
    Phase.EMIGRATE: ("emigrate",),
    Phase.LAND: ("land",),
    Phase.PUT_TILE: ("put",),
    Phase.COLONY_BOAT: ("place",),
}


@dataclass(frozen=True)
class LineResult:
    """What became of one line of a player's reply; the line is quoted as it was written,
    its islands named as the player named them, for every reader."""

    line: str
    outcome: LineOutcome
    detail: str = ""
    code: str = ""  # a refusal's stable code (`CommandError.code`, `ChoiceError.code`)

    def __post_init__(self) -> None:
        if not isinstance(self.line, Named):
            object.__setattr__(self, "line", Named(self.line, self.line))


@dataclass(frozen=True)
class Boats:
    """Boats of one colour on one beach."""

    colour: str
    count: int

    @property
    def letters(self) -> str:
        return LETTERS[self.colour] * self.count


@dataclass(frozen=True)
class Beach:
    letter: str
    berths: int
    boats: tuple[Boats, ...]
    jetties: tuple[str, ...]  # "NE to sea C", "S to open sea"
    changed: bool = False  # its boats changed since the reader's last mail

    @property
    def free(self) -> int:
        return self.berths - sum(b.count for b in self.boats)

    @property
    def letters(self) -> str:
        return "".join(b.letters for b in self.boats)


@dataclass(frozen=True)
class Island:
    name: str
    points: int
    royal: str | None  # the owner's colour
    beaches: tuple[Beach, ...]
    changed: bool = False  # its boats, or the island itself, changed since the reader's last mail


@dataclass(frozen=True)
class Player:
    seat: int
    name: str
    colour: str
    points: int
    islands: tuple[str, ...]
    reserve: int
    bot: bool = False
    resigned: bool = False  # the player left the game; a bot played on, the points are theirs
    removed: bool = False  # the game master removed the player (`kick`); a bot played on
    points_from: str = ""  # each island the player is on and its points: "Tonga 0, Samoa 3"

    @property
    def letter(self) -> str:
        return LETTERS[self.colour]


@dataclass(frozen=True)
class Board:
    map: str
    seas: tuple[str, ...]  # one line per sea tile: its trails and dangers
    islands: tuple[Island, ...]
    players: tuple[Player, ...]
    islands_left: int
    seas_left: int
    key: tuple[str, ...] = ()  # names the map shortens, and other names: "Mangar. is Mangareva"
    marked: bool = False  # islands and beaches that changed since the reader's last mail marked
    new_tiles: tuple[str, ...] = ()  # the tiles laid since the reader's last mail
    as_before: tuple[str, ...] = ()  # islands left out, unchanged since the reader's last mail
    # under the picture (drawn once for every language): its sea tiles are named as a command
    # names them, 'sea K', where the map says 'water K' ('' in English)
    picture_key: str = ""


@dataclass(frozen=True)
class Changes:
    """What changed on the board over some events, to mark it for the reader of a mail."""

    islands: frozenset[str] = frozenset()
    beaches: frozenset[tuple[str, int]] = frozenset()  # island, beach (counted from 0)
    tiles: tuple[str, ...] = ()  # laid, in order


def changes(events: Sequence[Event]) -> Changes:
    """The islands and beaches whose boats the events changed, and the tiles they laid."""
    beaches: set[tuple[str, int]] = set()
    islands: set[str] = set()
    tiles: list[str] = []
    for event in events:
        if isinstance(event, BoatsPlaced):
            beaches.update((event.island, b) for b in event.beaches)
        elif isinstance(event, BoatMoved):
            beaches.update(
                {(event.from_island, event.from_beach), (event.to_island, event.to_beach)}
            )
        elif isinstance(event, GroupSailed):
            beaches.add((event.island, event.beach))
        elif isinstance(event, GroupLanded):
            beaches.update((event.island, b) for b, _ in event.placement)
        elif isinstance(event, (RoyalIslandFounded, GroupArrived)):
            islands.add(event.island)
        elif isinstance(event, TilePlaced):
            tiles.append(event.tile)
            if event.tile not in SEAS:
                islands.add(event.tile)
    islands.update(island for island, _ in beaches)
    return Changes(frozenset(islands), frozenset(beaches), tuple(tiles))


def marked(board: Board, changed: Changes) -> Board:
    """The board with what `changed` marked: the reader sees at a glance what is new."""
    if not changed.islands and not changed.tiles:
        return board
    new_tiles = tuple(with_names(tile_words(tile)) for tile in changed.tiles)  # Fiji
    laid = {str(tile) for tile in new_tiles}
    islands = tuple(
        replace(
            island,
            changed=printed(island.name) in changed.islands or _leads_to(island, laid),
            beaches=tuple(
                replace(beach, changed=(printed(island.name), number) in changed.beaches)
                for number, beach in enumerate(island.beaches)
            ),
        )
        for island in board.islands
    )
    return replace(
        board,
        islands=islands,
        marked=True,
        new_tiles=new_tiles,
    )


def _leads_to(island: Island, tiles: set[str]) -> bool:
    """Whether a jetty of `island` leads to one of `tiles` (laid since the reader's last
    mail: where it leads changed)."""
    return any(
        isinstance(jetty, Message) and str(jetty.params.get("place")) in tiles
        for beach in island.beaches
        for jetty in beach.jetties
    )


# the boards folded lately, by the board's id: every reader of a round gets the same one, so
# that it is translated and rendered once per language
_folds: dict[int, tuple[Board, Board]] = {}


def folded(board: Board) -> Board:
    """The board of a news mail: in full only the islands that changed since the reader's
    last mail, the others named (`as_before`); whole when nothing is marked (no event since
    that mail changed the board: a digest tells held news, not moves)."""
    if not board.marked:
        return board
    hit = _folds.get(id(board))
    if hit is not None and hit[0] is board:
        return hit[1]
    fold = replace(
        board,
        islands=tuple(island for island in board.islands if island.changed),
        as_before=tuple(island.name for island in board.islands if not island.changed),
    )
    if len(_folds) >= 8:
        _folds.clear()
    _folds[id(board)] = (board, fold)
    return fold


@dataclass(frozen=True)
class Option:
    number: int
    command: str
    leads: str = ""  # where the option leads, in a few words ("" when nothing to say)


@dataclass(frozen=True)
class Deadline:
    utc: str
    local: str | None  # in the player's own time zone, when they set one


@dataclass(frozen=True)
class Decision:
    number: int
    kind: Phase
    colour: str
    asked: str
    options: tuple[Option, ...]
    total: int
    syntax: tuple[str, ...]
    deadline: Deadline | None
    turns: tuple[str, ...] = ()  # placing a drawn tile: a title, then how it lies for each
    # direction its red emblem may face
    grouped: int = 0  # expansions not numbered but summed up by island in `groups`
    groups: tuple[str, ...] = ()  # a title, then one line per island, then where boats come from

    @property
    def unlisted(self) -> int:
        return self.total - len(self.options) - self.grouped

    @property
    def last(self) -> int:
        """The highest number a reply may give."""
        return len(self.options)

    @property
    def setup(self) -> bool:
        """Whether it places a set-up boat (the prompt explains the set-up first)."""
        return self.kind is Phase.SETUP


@dataclass(frozen=True)
class Final:
    reason: str  # why the game ended, as the mails say it
    standings: tuple[tuple[int, Player, int], ...]  # rank, player, boats on the board
    tie_break: str
    termination: Termination | None = None  # why the game ended, for a template to switch on
    points_from: tuple[str, ...] = ()  # each player's islands and their points, in order


@dataclass(frozen=True)
class Answer:
    """The answer to a command that looks (`text` is empty for the players' help and the
    rules: the mail's template has them)."""

    kind: AnswerTopic
    text: str = ""


@dataclass(frozen=True)
class Mail:
    """Everything one mail shows; `kind` picks the template."""

    kind: MailKind  # welcome | prompt | update | reminder | error | answer | game_over
    game: int
    subject: str
    you: Player
    notice: str = ""
    remark: str = ""  # a word to this player about their seat (absent, removed ...)
    results: tuple[LineResult, ...] = ()
    answers: tuple[Answer, ...] = ()
    happened: tuple[str, ...] = ()
    waiting: str = ""
    until: Deadline | None = None  # the deadline of someone else's open decision
    decision: Decision | None = None
    board: Board | None = None
    final: Final | None = None
    seats: tuple[Player, ...] = ()
    picture: str | None = None  # the Content-ID of the board picture
    talk: tuple[str, ...] = ()  # table talk for this reader since their last mail
    watching: tuple[str, ...] = ()  # the names of those who watch the game
    record_url: str = ""  # where the record of a game that is over can be read


@dataclass(frozen=True)
class Notice:
    """A short mail about a mail that was refused (too large, from another address, for no
    game): a few paragraphs, and the games of the person it goes to."""

    kind: MailKind  # notice, invitation
    subject: str
    paragraphs: tuple[str, ...]
    games: tuple[str, ...] = ()
    footer: str = ""  # the last line, when it is not about a refused reply


@dataclass(frozen=True)
class CommandHelp:
    """The commands as the mails list them (made from the command registries)."""

    moves: tuple[str, ...]  # the moves' syntax, as the engine's notation has them
    looks: tuple[tuple[str, str], ...]  # a player's commands that look: (name, what it shows)
    settings: tuple[str, ...]  # the other commands of a player, one help line each
    gm: tuple[str, ...]  # the game master's commands, one help line each
    watching: tuple[str, ...] = ()  # what an observer may write
    gm_looks: tuple[tuple[str, str], ...] = ()  # the game master's commands that look
    # a player's commands in each language's own words: (command, language, word)
    words: tuple[tuple[str, str, str], ...] = ()

    @staticmethod
    def listed(pairs: Sequence[tuple[str, str]]) -> str:
        """'help (this text), board (the current board)'"""
        return ", ".join(f"{name} ({what})" for name, what in pairs)

    def word(self, name: str, lang: str) -> str:
        """The word of `lang` for the command `name` (its English name if it has none)."""
        return next((w for n, in_, w in self.words if n == name and in_ == lang), name)

    def words_of(self, lang: str) -> str:
        """'aiuto = help, regole = rules, ...': `lang`'s words for a player's commands ('' for
        English)."""
        return ", ".join(f"{w} = {n}" for n, in_, w in self.words if in_ == lang)


@dataclass(frozen=True)
class GmSeat:
    """A seat as the game master sees it: with its address and how it is played."""

    number: int  # 1-based, as the game master names seats
    name: str
    colour: str
    address: str | None
    played_by: str  # "the player", "the greedy bot: the player is absent", ...


@dataclass(frozen=True)
class GmMail:
    """A mail to the game master: their commands' results, the game's state, their commands."""

    kind: MailKind  # gm
    game: int
    subject: str
    notice: str = ""
    results: tuple[LineResult, ...] = ()
    answers: tuple[Answer, ...] = ()
    happened: tuple[str, ...] = ()
    status: str = ""
    deadline: Deadline | None = None
    seats: tuple[GmSeat, ...] = ()
    board: Board | None = None
    final: Final | None = None
    picture: str | None = None


def players(
    state: State,
    names: Sequence[str],
    bots: Sequence[bool] = (),
    resigned: Sequence[bool] = (),
    removed: Sequence[bool] = (),
) -> tuple[Player, ...]:
    by_colour = {s.colour: s for s in state.standings().standings}
    return tuple(
        Player(
            seat=seat,
            name=names[seat],
            colour=colour,
            points=by_colour[colour].points,
            islands=by_colour[colour].islands,
            reserve=state.reserve_of(seat),
            bot=bool(bots[seat]) if bots else False,
            resigned=bool(resigned[seat]) if resigned else False,
            removed=bool(removed[seat]) if removed else False,
            points_from=points_from(by_colour[colour].islands),
        )
        for seat, colour in enumerate(state.colours)
    )


NBSP = "\u00a0"  # a space no line is broken at


def points_from(islands: Sequence[str]) -> str:
    """The islands a player is on, each with its points: 'Tonga 0, Samoa 3' ('no island');
    an island and its points are never broken over two lines (no-break spaces)."""
    if not islands:
        return Message("no island")
    return Joined(", ", [f"{name} {ISLANDS[name].points}".replace(" ", NBSP) for name in islands])


def board(
    state: State,
    names: Sequence[str],
    bots: Sequence[bool] = (),
    resigned: Sequence[bool] = (),
    removed: Sequence[bool] = (),
) -> Board:
    """The board as its readers read it: the islands in their language (`with_names`; a
    board whose islands and players' names name no island otherwise in English is so
    already: its strings come from them alone)."""
    made = _board(state, names, bots, resigned, removed)
    return with_names(made) if names_printed((*state.islands(), *names)) else made


def _board(
    state: State,
    names: Sequence[str],
    bots: Sequence[bool],
    resigned: Sequence[bool],
    removed: Sequence[bool],
) -> Board:
    return Board(
        map=map_for_readers(state),
        seas=tuple(sea_legend(state)),
        islands=_islands(state),
        players=players(state, names, bots, resigned, removed),
        islands_left=state.islands_left,
        seas_left=state.seas_left,
        key=(
            *(
                # Translators: on the map, a short name and the island it stands for
                Message("{short} is {name}", short=short_name(n), name=n)
                for n in state.islands()
                if short_name(n) != n
            ),
            *(  # English readers read the English name on the map: no key for it
                Named("", Message("{short} is {name}", short=n, name=alias))
                for alias, n in ISLAND_ALIASES.items()
                if n in state.islands()
            ),
        ),
        picture_key=_picture_key(state),
    )


def _picture_key(state: State) -> str:
    """What the picture's sea tiles are named in the reader's words (English readers read
    the picture's own words): the first sea tile on the board as an example."""
    sea = next((name for name, _ in state.tiles.values() if name in SEAS), None)
    if sea is None:
        return ""
    # Translators: under the picture of the board (drawn in the command's words for every
    # language): "sea K" as the picture names a sea tile, and the tile in your words
    told = Message(
        "In the picture a sea tile is named as in a command: {command} is {tile}.",
        command=f"sea {sea}",
        tile=tile_words(sea),
    )
    return Named("", told)


def _islands(state: State) -> tuple[Island, ...]:
    islands = []
    for name in state.islands():
        owner = state.royal_owner(name)
        islands.append(
            Island(
                name=name,
                points=ISLANDS[name].points,
                royal=state.colours[owner] if owner is not None else None,
                beaches=tuple(
                    Beach(
                        letter=BEACH_LETTERS[index],
                        berths=tile_beach.berths,
                        boats=tuple(
                            Boats(colour, count)
                            for colour, count in zip(
                                state.colours, state.boats_on(name, index), strict=True
                            )
                            if count
                        ),
                        jetties=tuple(
                            # Translators: where a jetty leads: "NE to sea C", "S to open sea"
                            Message(
                                "{direction} to {place}",
                                direction=DIRECTIONS[d],
                                place=_beyond(state, name, d),
                            )
                            for d in state.jetties(name, index)
                        ),
                    )
                    for index, tile_beach in enumerate(ISLANDS[name].beaches)
                ),
            )
        )
    return tuple(islands)


def _beyond(state: State, island: str, direction: int) -> str:
    """What lies next to `island` in `direction`: a tile, or open sea."""
    position = state.position_of(island)
    assert position is not None
    placed = state.tile_at(neighbour(position, direction))
    return Message("open sea") if placed is None else tile_words(placed)


def numbered(legal: Sequence[Choice]) -> list[Choice]:
    """The options a prompt numbers, in their order: all of them when there are at most
    MAX_LISTED; else every option but the expansions (summed up by island instead), at most
    MAX_LISTED. A reply's number picks from this list."""
    if len(legal) <= MAX_LISTED:
        return list(legal)
    kept: list[Choice] = [choice for choice in legal if not isinstance(choice, Expand)]
    return kept[:MAX_LISTED]


def short_leads(legal: Sequence[Choice]) -> bool:
    """Whether the options' lines say where they lead in fewer words: when many are listed."""
    return len(numbered(legal)) > SHORT_LEADS or len(legal) > MAX_LISTED


def decision(state: State, deadline: Deadline | None = None) -> Decision:
    """The decision now open, with its numbered options (at most MAX_LISTED of them) and,
    when the expansions are too many to list, those summed up by island."""
    open_decision = state.decision
    assert open_decision is not None
    legal = state.legal_choices()
    kind = open_decision.kind
    verbs = _verbs(legal)
    listed = numbered(legal)
    expansions = [c for c in legal if isinstance(c, Expand)] if len(legal) > MAX_LISTED else []
    short = short_leads(legal)
    syntax = [_syntax(verb, legal) for verb in COMMANDS_FOR[kind] if verb in verbs]
    return Decision(
        number=open_decision.number,
        kind=kind,
        colour=open_decision.colour,
        asked=what_is_asked(state),
        options=tuple(
            Option(n, str(choice), _leads(state, choice, short=short))
            for n, choice in enumerate(listed, start=1)
        ),
        total=len(legal),
        syntax=tuple(syntax),
        deadline=deadline,
        turns=_turns(open_decision.tile, legal),
        grouped=len(expansions),
        groups=_expansion_groups(state, expansions),
    )


def _syntax(verb: str, legal: Sequence[Choice]) -> str:
    """The form of a command, its example one of the legal choices now (issue 30: no
    'place Tonga c' once Tonga is gone): the first numbered one, else the first of all."""
    entry = SYNTAX[verb]
    if not isinstance(entry, Joined):  # a command of one word ('colonise') needs no example
        return entry
    form = entry.parts[0]  # its placeholders said in the reader's words
    listed = numbered(legal)
    example = next((c for c in [*listed, *legal] if str(c).split(" ", 1)[0] == verb), None)
    return Joined(", for example: ", [form, str(example)]) if example is not None else form


def _expansion_groups(state: State, expansions: Sequence[Expand]) -> tuple[str, ...]:
    """Many expansions in a few lines: for each island, the beaches that may get a boat
    (those it would fill marked `!`) and how many at once; where the boats come from."""
    if not expansions:
        return ()
    beaches: dict[str, set[int]] = {}
    most: dict[str, int] = {}
    sources: dict[str, set[tuple[str, int]]] = {}
    for choice in expansions:
        beaches.setdefault(choice.island, set()).update(choice.beaches)
        most[choice.island] = max(most.get(choice.island, 0), len(choice.beaches))
        if choice.borrow is not None:
            sources.setdefault(choice.island, set()).add(choice.borrow)
    every = set().union(*sources.values()) if sources else set()
    shared = bool(every) and all(
        sources.get(island) == {p for p in every if p[0] != island} for island in beaches
    )
    lines: list[str] = [
        Message(
            "Expansions ({count}), by island: the beaches that may get a boat (! the boat "
            "fills the beach, which emigrates next):",
            count=len(expansions),
        )
    ]
    for island, chosen in beaches.items():
        letters = ", ".join(
            BEACH_LETTERS[b] + ("!" if state.free_berths(island, b) == 1 else "")
            for b in sorted(chosen)
        )
        parts: list[str] = [f"{island}: {letters}"]
        if most[island] > 1:
            parts.append(Message("up to {most} at once", most=most[island]))
        if island in sources and not shared:
            parts.append(Message("a boat from {beaches}", beaches=_places(sources[island])))
        lines.append(Joined("; ", parts))
    if shared:
        lines.append(
            Message(
                "Your reserve is empty: each boat comes from a beach of yours on another "
                "island: {beaches}",
                beaches=_places(every),
            )
        )
    return tuple(lines)


def _places(places: set[tuple[str, int]]) -> str:
    """'Rapa Nui a, b; Tahiti a': beaches by island, in the order of the islands' names."""
    by_island: dict[str, list[str]] = {}
    for island, beach in sorted(places):
        by_island.setdefault(island, []).append(BEACH_LETTERS[beach])
    return "; ".join(f"{island} {', '.join(letters)}" for island, letters in by_island.items())


def _leads(state: State, choice: Choice, *, short: bool) -> str:
    """Where `choice` leads, in words; nothing for the boats of the set-up and of a new
    island, which never fill a beach."""
    if state.phase in (Phase.SETUP, Phase.COLONY_BOAT):
        return ""
    seen = preview(state, choice)
    around: dict[int, str] = {}
    if isinstance(seen, TilePreview):
        for direction in range(6):
            tile = state.tile_at(neighbour(seen.place, direction))
            if tile is not None:
                around[direction] = tile
    # an emigration's own option names the trails it crosses even in a long list
    return leads(seen, short=short and not isinstance(choice, Emigrate), around=around)


def _turns(tile: str | None, legal: Sequence[object]) -> tuple[str, ...]:
    """For a drawn tile: how it lies with its red emblem in each direction it may face."""
    reds = [choice.red for choice in legal if isinstance(choice, PutTile)]
    if not tile or not reds:
        return ()
    if tile in SEAS:
        title = Message(
            "How {tile} lies, by the direction its red emblem faces "
            "(its trails and their dangers):",
            tile=tile_words(tile),
        )
    else:
        title = Message(
            "How {tile} lies, by the direction its red emblem faces "
            "(beach: where its jetties lead):",
            tile=tile_words(tile),
        )
    return (title, *tile_turns(tile, reds))


def _verbs(legal: Sequence[object]) -> set[str]:
    """The commands that some legal choice starts with."""
    return {str(choice).split(" ", 1)[0] for choice in legal}


@lru_cache(maxsize=256)
def deadline(moment: datetime, tz: str | None = None) -> Deadline:
    """A deadline in UTC, and also in the zone `tz` when that names a known time zone (the
    mails of a round tell the same one: made once)."""
    utc = stamp(moment, "UTC")
    assert utc is not None
    return Deadline(utc, stamp(moment, tz, year=False) if tz else None)


def when(moment: datetime) -> str:
    """A time as every player reads it in an announcement or an answer: in UTC, and in the
    reader's own zone when they set one."""
    told = stamp(moment, "UTC", everyone=True)
    assert told is not None
    return told
