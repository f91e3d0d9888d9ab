"""Bots that choose for a seat: uniformly at random, greedily by a simple score, or by a
Monte Carlo tree search over the hidden stack (the expert)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from engine.board import EMPTY, FAIL, ISLAND  # RouteEnd members, read as module names
from engine.botkind import BOT_KINDS, BotKind
from engine.choices import Choice, Colonise, Emigrate, Expand, FoundRoyal, Land, Place, PutTile
from engine.search import Budget, Clock, Tuning, search
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
        return self.best(state, choices)

    def best(self, state: State, choices: Sequence[Choice]) -> Choice:
        """The best of `choices` (legal at `state`) by the greedy score, ties at random."""
        scored = [(self._value(state, c), self.rng.random(), c) for c in choices]
        return max(scored, key=lambda item: (item[0], item[1]))[2]

    def _value(self, state: State, choice: Choice) -> float:
        seat = state.active
        colour = state.colours[seat]
        if isinstance(choice, Land):
            kept = sum(cs.count(colour) for _, cs in choice.placement)
            island = ISLANDS[choice.island or ""] if choice.island in ISLANDS else None
            new_here = island is not None and not _boats_of(state, island.name, seat)
            return 10 * kept + (island.points * 3 if island and new_here and kept else 0)
        if isinstance(choice, Expand):
            island = ISLANDS[choice.island]
            return 2 + island.points + len(choice.beaches)
        if isinstance(choice, FoundRoyal):
            mine = _boats_of(state, choice.island, seat)
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
        mine = state.boats_on(choice.island, choice.beach)[state.active]
        route = state.voyage(choice.island, choice.beach, choice.jetty)
        if route.end is FAIL:
            return -mine
        reached = state.tile_at(route.position)
        if route.end is ISLAND and reached is not None and reached != choice.island:
            return mine + ISLANDS[reached].points / 2
        return mine / 2 if route.end is EMPTY else 0


def _boats_of(state: State, island: str, seat: int) -> int:
    """The boats of `seat` on the beaches of `island`."""
    beaches = range(len(ISLANDS[island].beaches))
    return sum(state.boats_on(island, beach)[seat] for beach in beaches)


EXPERT_SIMULATIONS = 600  # under a second a decision on the machine it was tuned on


class ExpertBot:
    """Monte Carlo tree search (engine/search.py) whose rollouts greedy bots play, cut after
    `depth` decisions. With `widening`, the greedy score also picks which choices the tree
    tries first (progressive widening; off by default, as it played worse in short trials).

    It never looks at the order of the stack: each simulation shuffles the unseen tiles
    anew. `budget` bounds the search by simulations and, with a clock, by seconds; with a
    seed and no clock its choice depends on nothing else.
    """

    def __init__(
        self,
        rng: random.Random,
        budget: Budget | None = None,
        depth: int = 15,
        widening: float | None = None,
    ) -> None:
        self.rng = rng
        self.budget = budget or Budget(EXPERT_SIMULATIONS)
        greedy = GreedyBot(rng, curiosity=0.1)
        prior = None if widening is None else greedy.best
        self.tuning = Tuning(greedy.choose, prior, depth, widening=widening or 0.0)

    def choose(self, state: State) -> Choice:
        return search(state, self.rng, self.tuning, self.budget)


def make_bot(
    kind: BotKind | str,
    seed: int,
    *,
    simulations: int = EXPERT_SIMULATIONS,
    seconds: float = 1.0,
    clock: Clock | None = None,
    depth: int = 15,
    widening: float | None = None,
) -> Bot:
    """A bot of one of BOT_KINDS with a generator of its own. The expert stops after
    `simulations`, or after `seconds` by `clock` when one is given (then it is no longer
    reproducible); `depth` and `widening` tune its search (see ExpertBot)."""
    if kind not in BOT_KINDS:
        raise ValueError(f"Unknown bot {kind!r}; the bots are {', '.join(BOT_KINDS)}.")
    rng = random.Random(seed)
    chosen = BotKind(kind)
    if chosen is BotKind.RANDOM:
        return RandomBot(rng)
    if chosen is BotKind.GREEDY:
        return GreedyBot(rng)
    return ExpertBot(rng, Budget(simulations, seconds, clock), depth, widening)
