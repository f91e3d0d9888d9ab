"""Bots that choose for a seat: uniformly at random, or greedily by a simple score."""

from __future__ import annotations

import random
from typing import Protocol

from engine.choices import Choice, Colonise, Emigrate, Expand, FoundRoyal, Land, Place, PutTile
from engine.hexgrid import neighbour
from engine.state import State
from engine.tiles import ISLANDS


class Bot(Protocol):
    def choose(self, state: State) -> Choice: ...


class RandomBot:
    """Any legal choice, each as likely as the next."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: State) -> Choice:
        return self.rng.choice(state.legal_choices())


class GreedyBot:
    """The choice whose immediate result scores best for its seat; ties broken at random.

    It prefers landings that keep its own boats and put them on islands worth points,
    expansions on valuable islands, and emigrations whose route the group can pass. Now
    and then (`curiosity`) it picks at random: purely greedy players can shuttle boats
    between the same islands forever without drawing a tile, and the game would not end.
    """

    def __init__(self, rng: random.Random, curiosity: float = 0.05) -> None:
        self.rng = rng
        self.curiosity = curiosity

    def choose(self, state: State) -> Choice:
        choices = state.legal_choices()
        if self.rng.random() < self.curiosity:
            return self.rng.choice(choices)
        scored = [(self._value(state, c), self.rng.random(), c) for c in choices]
        return max(scored, key=lambda item: (item[0], item[1]))[2]

    def _value(self, state: State, choice: Choice) -> float:
        seat, board = state.active, state.board
        colour = state.colours[seat]
        if isinstance(choice, Land):
            kept = sum(cs.count(colour) for _, cs in choice.placement)
            island = ISLANDS[choice.island or ""] if choice.island in ISLANDS else None
            new_here = island is not None and board.seat_boats(board.where[island.name], seat) == 0
            return 10 * kept + (island.points * 3 if island and new_here and kept else 0)
        if isinstance(choice, Expand):
            island = ISLANDS[choice.island]
            return 2 + island.points + len(choice.beaches)
        if isinstance(choice, FoundRoyal):
            mine = board.seat_boats(board.where[choice.island], seat)
            return ISLANDS[choice.island].points - 2 * mine + 1
        if isinstance(choice, Colonise):
            return -1 if state.home_islands(seat) else 1
        if isinstance(choice, Emigrate):
            return self._route_value(state, choice)
        if isinstance(choice, Place):
            island = ISLANDS[choice.island or ""] if choice.island in ISLANDS else None
            return island.points if island else 0
        if isinstance(choice, PutTile):
            return 0
        return 0

    def _route_value(self, state: State, choice: Emigrate) -> float:
        board = state.board
        home = board.where[choice.island]
        group = board.boats[home][choice.beach]
        mine = group[state.active]
        colours = sum(1 for n in group if n)
        route = board.trace(neighbour(home, choice.jetty), choice.jetty, colours)
        if route.end == "fail":
            return -mine
        if route.end == "island" and route.position != home:
            return mine + ISLANDS[board.name(route.position)].points / 2
        return mine / 2 if route.end == "empty" else 0


BOT_KINDS = ("random", "greedy")


def make_bot(kind: str, seed: int) -> Bot:
    """A bot of kind 'random' or 'greedy' with a generator of its own."""
    rng = random.Random(seed)
    if kind == "random":
        return RandomBot(rng)
    if kind == "greedy":
        return GreedyBot(rng)
    raise ValueError(f"Unknown bot {kind!r}; the bots are {', '.join(BOT_KINDS)}.")
