"""The record of a game: one self-contained HTML page (the board after every turn as an
embedded picture and as text, the moves and what followed each, the public table talk, the
final table) and the game in notation (its set-up and one choice per line), which
`read_notation` reads back for `State.replay`.

Reading the database (`load`) is apart from the rest, which is pure: the log is replayed
once, and a picture is drawn per turn, not per decision.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session, col, select

from engine import ISLAND_ALIASES, LETTERS, Choice, Setup, State, parse_choice
from pbem.core import GameStatus, MoveSource, as_utc
from pbem.game.table import GameError, outcome
from pbem.store import Game, Move, Seat, Talk
from pbem.views import letters, view
from pbem.views.final import final as final_table
from pbem.views.i18n import island, with_names
from pbem.views.i18n import notation as named_choice
from pbem.views.picture import board_png
from pbem.views.render import environment, render_board_text

Progress = Callable[[int, int], None]  # boards drawn so far, boards in all

# how a move was made, when not by its own player's reply
MADE_BY = {
    MoveSource.ABSENT: "by the bot: the player was absent",
    MoveSource.AUTO: "automatic, at the deadline",
    MoveSource.GM: "by the game master",
}


@dataclass(frozen=True)
class Logged:
    """One move of the log, as stored."""

    number: int
    seat: int
    choice: str
    source: MoveSource
    at: datetime


@dataclass(frozen=True)
class Said:
    """A line of public table talk."""

    at: datetime
    speaker: str
    text: str


@dataclass(frozen=True)
class Played:
    """A game as stored, read once: enough to replay it and make its record."""

    game: int
    status: GameStatus
    ended_by: str | None
    created_at: datetime
    setup: Setup
    names: tuple[str, ...]
    bots: tuple[bool, ...]  # a bot's seat; a player who resigned is no bot
    moves: tuple[Logged, ...]
    talk: tuple[Said, ...]  # to the whole table only: what was told one player never is
    resigned: tuple[bool, ...] = ()  # the player left; a bot played on, the points are theirs
    removed: tuple[bool, ...] = ()  # the game master removed the player; a bot played on

    @property
    def over(self) -> bool:
        return self.status == GameStatus.OVER


@dataclass(frozen=True)
class Entry:
    """A move as the record shows it."""

    number: int
    name: str
    colour: str
    letter: str
    choice: str
    made_by: str  # "" when the player (or the bot seat) made it
    at: str  # "" when the same as the move before
    happened: tuple[str, ...]


@dataclass(frozen=True)
class Chapter:
    """The moves of one turn (or of the set-up) and the board after them."""

    anchor: str
    title: str
    entries: tuple[Entry, ...]
    caption: str
    picture: str  # a data: URL
    board: str  # the board as text, as `pbem show` prints it


@dataclass(frozen=True)
class Record:
    """What the HTML record shows, as plain values."""

    game: int
    title: str
    summary: str
    players: tuple[view.Player, ...]
    stack: str  # the stack's order, or a word on why it is not shown
    chapters: tuple[Chapter, ...]
    final: view.Final | None
    talk: tuple[Said, ...]
    notation: str


def load(db: Session, game_id: int) -> Played:
    """The game `game_id` as stored; raises GameError if there is none."""
    game = db.get(Game, game_id)
    if game is None:
        raise GameError(f"There is no game {game_id}.")
    seats = list(db.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat))))
    moves = db.exec(select(Move).where(Move.game_id == game_id).order_by(col(Move.number)))
    talk = db.exec(
        select(Talk)
        .where(Talk.game_id == game_id, col(Talk.to_seat).is_(None))
        .order_by(col(Talk.at), col(Talk.id))
    )
    return Played(
        game=game_id,
        status=GameStatus(game.status),
        ended_by=game.ended_by,
        created_at=as_utc(game.created_at),
        setup=Setup(tuple(game.colours.split(",")), tuple(game.stack.split(","))),
        names=tuple(s.name for s in seats),
        bots=tuple(bool(s.bot) and not s.resigned and not s.kicked for s in seats),
        resigned=tuple(s.resigned for s in seats),
        removed=tuple(s.kicked for s in seats),
        moves=tuple(
            Logged(m.number, m.seat, m.choice, MoveSource(m.source), as_utc(m.created_at))
            for m in moves
        ),
        talk=tuple(Said(as_utc(t.at), t.speaker, t.text) for t in talk),
    )


# -- the game in notation ------------------------------------------------------------------


def notation(played: Played) -> str:
    """The set-up and one choice per line, in the order they were made, with the English
    names of the islands (Fiji: `read_notation` and every command read both)."""
    who = ", ".join(
        f"{name} ({colour})"
        for name, colour in zip(played.names, played.setup.colours, strict=True)
    )
    return (
        "\n".join(
            [
                f"# Tongiaki game {played.game}: {who}",
                "# The set-up (colours in seat order, the stack top first), then one choice per "
                "line from decision 1.",
                f"colours: {','.join(played.setup.colours)}",
                f"stack: {','.join(island(name) for name in played.setup.stack)}",
                *(named_choice(move.choice) for move in played.moves),
            ]
        )
        + "\n"
    )


def read_notation(text: str) -> tuple[Setup, list[Choice]]:
    """The set-up and the choices of a game in notation (`notation`); lines starting with
    # and empty lines are skipped. Raises NotationError or SetupError."""
    fields: dict[str, tuple[str, ...]] = {}
    choices: list[Choice] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, colon, value = line.partition(":")
        if colon and key.strip().lower() in ("colours", "stack"):
            names = (v.strip() for v in value.split(",") if v.strip())
            fields[key.strip().lower()] = tuple(ISLAND_ALIASES.get(v, v) for v in names)
        else:
            choices.append(parse_choice(line))
    return Setup(fields.get("colours", ()), fields.get("stack", ())), choices


# -- the record ----------------------------------------------------------------------------


def record(played: Played, progress: Progress | None = None) -> Record:
    """Replay the game once, drawing the board after each turn; `progress` is told after
    each picture."""
    groups, state = _replayed(played)
    chapters = []
    for index, group in enumerate(groups):
        chapters.append(_chapter(played, group, last=index == len(groups) - 1))
        if progress is not None:
            progress(index + 1, len(groups))
    names = played.names
    players = view.players(state, names, played.bots, played.resigned, played.removed)
    return Record(
        game=played.game,
        title=f"Tongiaki, game {played.game}",
        summary=with_names(_summary(played, state)),  # what it waits for names islands
        players=players,
        stack=", ".join(island(name) for name in played.setup.stack)
        if played.over
        else "kept hidden while the game goes on",
        chapters=tuple(chapters),
        final=with_names(final_table(outcome(state, played.ended_by), players))
        if played.over
        else None,
        talk=played.talk,
        notation=notation(played) if played.over else "",  # it holds the stack
    )


def _replayed(played: Played) -> tuple[list[_Group], State]:
    """The game's moves replayed once, grouped by turn with the state after each turn; and
    the state at the end."""
    state = State(played.setup)
    groups: list[_Group] = []
    last = ""  # the time of the move before, as shown
    for move in played.moves:
        if not groups or groups[-1].turn != state.turn:
            if groups:
                groups[-1].after = state.copy()
            groups.append(_Group(state.turn, state.active))
        events = state.apply(parse_choice(move.choice))
        at = f"{move.at:%Y-%m-%d %H:%M} UTC"
        colour = played.setup.colours[move.seat]
        shown, last = ("" if at == last else at), at
        groups[-1].entries.append(
            Entry(
                number=move.number,
                name=played.names[move.seat],
                colour=colour,
                letter=LETTERS[colour],
                choice=named_choice(move.choice),  # Fiji, not the printed Fidschi
                made_by=MADE_BY.get(move.source, ""),
                at=shown,
                happened=with_names(view.happened(events, state.tiles)),
            )
        )
    if not groups:  # no move yet: the board as it starts
        groups.append(_Group(state.turn, state.active))
    groups[-1].after = state
    return groups, state


def _chapter(played: Played, group: _Group, *, last: bool) -> Chapter:
    """A turn of the record: its moves and the board after them, as a picture and as text."""
    assert group.after is not None
    turn, names = group.turn, played.names
    return Chapter(
        anchor=f"turn-{turn}",
        title="The set-up" if turn == 0 else f"Turn {turn}: {names[group.seat]}",
        entries=tuple(group.entries),
        caption=_caption(turn, last, played.over),
        # one slot for the record's pictures: they do not push out the layers of the games
        # going on
        picture=_data_url(board_png(group.after, ("record", played.game), english=True)),
        board=render_board_text(
            view.board(group.after, names, played.bots, played.resigned, played.removed)
        ),
    )


@dataclass
class _Group:
    """The moves of one turn while the log is replayed, and the state after them."""

    turn: int
    seat: int
    entries: list[Entry] = field(default_factory=list)
    after: State | None = None


def _caption(turn: int, last: bool, over: bool) -> str:
    if last:
        return "The final board" if over else "The board now"
    return "The board after the set-up" if turn == 0 else f"The board after turn {turn}"


def _summary(played: Played, state: State) -> str:
    size = f"{len(played.moves)} decisions in {state.turn} turns"
    started = f"Started {played.created_at:%Y-%m-%d %H:%M} UTC; {size}"
    if played.over:
        return f"{started}. The game is over."
    paused = played.status == GameStatus.PAUSED
    return f"{started} so far. " + letters.waiting(state, list(played.names), paused=paused)


def _data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def render_record(record: Record) -> str:
    """The record as one HTML page that needs nothing else: pictures inline, no links out."""
    return environment().get_template("export.html.j2").render(record=record, final=record.final)


def game_record_html(db: Session, game_id: int, progress: Progress | None = None) -> str:
    """The record of game `game_id` as one self-contained HTML page (for the game-over mail,
    or `pbem export`); raises GameError if there is no such game."""
    return render_record(record(load(db, game_id), progress))


def game_notation(db: Session, game_id: int) -> str:
    """Game `game_id` in notation: `read_notation` reads it back."""
    return notation(load(db, game_id))


__all__ = [
    "Played",
    "Record",
    "game_notation",
    "game_record_html",
    "load",
    "notation",
    "read_notation",
    "record",
    "render_record",
]
