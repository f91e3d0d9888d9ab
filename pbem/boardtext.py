"""The board as plain text: islands with their beaches and jetties, reserves, score, stack."""

from __future__ import annotations

from engine import State
from engine.colours import LETTERS
from engine.hexgrid import DIRECTIONS, neighbour
from engine.tiles import BEACH_LETTERS, ISLANDS, SEAS


def _boats(state: State, counts: list[int]) -> str:
    return "".join(LETTERS[c] for c in state.colours_of(counts))


def _beyond(state: State, position: tuple[int, int], direction: int) -> str:
    placed = state.board.tiles.get(neighbour(position, direction))
    if placed is None:
        return "open sea"
    name = placed[0]
    return f"sea {name}" if name in SEAS else name


def island_lines(state: State) -> list[str]:
    board = state.board
    lines = []
    for position, beaches in board.boats.items():
        name = board.name(position)
        island = ISLANDS[name]
        owner = board.royal.get(position)
        royal = f", royal island of {state.colours[owner]}" if owner is not None else ""
        lines.append(f"{name} ({island.points} points{royal})")
        for index, (beach, boats) in enumerate(zip(island.beaches, beaches, strict=True)):
            free = beach.berths - sum(boats)
            jetties = ", ".join(
                f"{DIRECTIONS[d]} to {_beyond(state, position, d)}"
                for d in board.jetties(position, index)
            )
            shown = _boats(state, boats) or "-"
            letter = BEACH_LETTERS[index]
            lines.append(f"  {letter}: {shown:<5} {free} of {beach.berths} free; jetty {jetties}")
    return lines


def score_lines(state: State, names: list[str]) -> list[str]:
    standings = state.standings()
    by_colour = {s.colour: s for s in standings.standings}
    lines = []
    for seat, colour in enumerate(state.colours):
        s = by_colour[colour]
        lines.append(
            f"{colour.capitalize():<7} {names[seat]:<12} {s.points:>2} points, "
            f"{len(s.islands)} islands, reserve {state.reserve[seat]}"
        )
    return lines


def board_text(state: State, names: list[str]) -> str:
    sea_tiles = [f"{n}@{q},{r}" for (q, r), (n, _) in state.board.tiles.items() if n in SEAS]
    parts = [
        "ISLANDS (beach: boats, free berths, where each jetty leads)",
        *island_lines(state),
        "",
        f"Sea tiles on the board: {len(sea_tiles)}; "
        f"stack: {state.islands_left} islands and {state.seas_left} sea tiles left",
        "",
        "PLAYERS",
        *score_lines(state, names),
    ]
    return "\n".join(parts)
