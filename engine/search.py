"""Monte Carlo tree search over determinised draws (information-set MCTS, one tree).

The searching seat never sees the order of the stack: every simulation starts from a
determinisation, the visible state with the unseen tiles shuffled by the search's own
generator. One tree is shared by all determinisations; a node's children are the choices
made from it, and UCB weighs each child by how often it was available (ISMCTS). Every
seat picks the move best for itself (max-n); playouts follow a rollout policy and are cut
at a depth, where the score margin stands in for the result.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.choices import Choice
from engine.state import State

Policy = Callable[[State], Choice]
Clock = Callable[[], float]


@dataclass(frozen=True)
class Budget:
    """How long a search runs: `simulations` at most, and, when a clock is given, no
    longer than `seconds` by that clock (at least one simulation either way)."""

    simulations: int
    seconds: float = 1.0
    clock: Clock | None = None


class Determiniser:
    """States equal to `state` in all a player can see, each with the hidden stack shuffled."""

    def __init__(self, state: State) -> None:
        data = state.to_json()
        data["log"] = []  # only numbers decisions; replaying it would cost more than the rest
        self._data: dict[str, Any] = data
        self._drawn = list(state.setup.stack[: state.drawn])
        self._hidden = sorted(state.stack_left)  # forget the true order at once

    def sample(self, rng: random.Random) -> State:
        hidden = list(self._hidden)
        rng.shuffle(hidden)
        self._data["setup"] = {
            "colours": self._data["setup"]["colours"],
            "stack": self._drawn + hidden,
        }
        return State.from_json(self._data)


class _Node:
    __slots__ = ("available", "children", "seat", "total", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat  # who made the choice that leads here
        self.children: dict[Choice, _Node] = {}
        self.visits = 0
        self.available = 0
        self.total = 0.0


def evaluate(state: State, margin_scale: float = 4.0) -> list[float]:
    """Each seat's reward in [0, 1]: the win (shared when tied) once the game is over, mixed
    with the points margin over the best other seat, squashed."""
    outcome = state.standings()
    seat_of = {colour: seat for seat, colour in enumerate(state.colours)}
    points = [0] * state.seats
    ranks = [0] * state.seats
    for standing in outcome.standings:
        points[seat_of[standing.colour]] = standing.points
        ranks[seat_of[standing.colour]] = standing.rank
    winners = ranks.count(1)
    rewards = []
    for seat in range(state.seats):
        best_other = max(p for s, p in enumerate(points) if s != seat)
        margin = 1 / (1 + math.exp(-(points[seat] - best_other) / margin_scale))
        win = 1 / winners if ranks[seat] == 1 else 0.0
        over = state.decision is None
        rewards.append(0.5 * win + 0.5 * margin if over else 0.25 * win + 0.75 * margin)
    return rewards


def rollout(state: State, policy: Policy, depth: int) -> list[float]:
    """Play `state` on with `policy` for at most `depth` decisions and evaluate where it stops."""
    for _ in range(depth):
        if state.decision is None:
            break
        state.apply(policy(state))
    return evaluate(state)


@dataclass(frozen=True)
class Tuning:
    """How the search spends its simulations.

    `policy` plays the rollouts, cut after `depth` decisions; `prior`, when given, picks
    the next child to try among those not yet tried, and a node then holds no more than
    1 + `widening` * sqrt(its visits) children (progressive widening); without it every
    child is tried once, in random order, before any is tried again.
    """

    policy: Policy
    prior: Callable[[State, list[Choice]], Choice] | None = None
    depth: int = 15
    exploration: float = 0.7
    widening: float = 1.0


def search(state: State, rng: random.Random, tuning: Tuning, budget: Budget) -> Choice:
    """The choice of the active seat that the search visited most."""
    choices = state.legal_choices()
    if len(choices) == 1:
        return choices[0]
    root = _Node(state.active)
    sampler = Determiniser(state)
    start = budget.clock() if budget.clock is not None else 0.0
    for done in range(budget.simulations):
        if budget.clock is not None and done and budget.clock() - start >= budget.seconds:
            break
        _simulate(root, sampler.sample(rng), rng, tuning)
    return max(choices, key=lambda c: _visits(root, c))


def _visits(node: _Node, choice: Choice) -> tuple[int, float]:
    child = node.children.get(choice)
    return (0, 0.0) if child is None else (child.visits, child.total)


def _simulate(root: _Node, state: State, rng: random.Random, tuning: Tuning) -> None:
    path = [root]
    node = root
    while state.decision is not None:
        legal = state.legal_choices()
        children = node.children
        tried = [c for c in legal if c in children]
        for c in tried:
            children[c].available += 1
        if len(tried) < len(legal) and len(tried) < _width(node, tuning):
            untried = [c for c in legal if c not in children]
            choice = rng.choice(untried) if tuning.prior is None else tuning.prior(state, untried)
            child = children[choice] = _Node(state.active)
            child.available = 1
            state.apply(choice)
            path.append(child)
            break
        choice = max(tried, key=lambda c: _ucb(children[c], tuning.exploration))
        node = children[choice]
        state.apply(choice)
        path.append(node)
    rewards = rollout(state, tuning.policy, tuning.depth)
    for visited in path:
        visited.visits += 1
        visited.total += rewards[visited.seat]


def _width(node: _Node, tuning: Tuning) -> float:
    if tuning.prior is None:
        return math.inf
    return 1 + tuning.widening * math.sqrt(node.visits)


def _ucb(node: _Node, exploration: float) -> float:
    mean = node.total / node.visits
    return mean + exploration * math.sqrt(math.log(node.available) / node.visits)
