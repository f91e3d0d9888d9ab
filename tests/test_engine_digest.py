"""The engine plays exactly as it did: random games for 2 to 6 players hash everything they
show (each decision, every legal choice in order, the events of each choice, the full
beaches and empty places, the final snapshot and outcome) to the digests stored in
tests/fixtures/engine_digests.json. A copy and a reloaded snapshot taken midway must go on
to the same digest. A change that alters the play on purpose writes them again:

    python -m tests.test_engine_digest --write
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine import COLOURS, Setup, State

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "engine_digests.json"
GAMES = [(players, seed) for players in (2, 3, 4, 5, 6) for seed in range(12)]


def _midway(seed: int) -> int:
    """The decision at which a game is copied and reloaded (some games end before it)."""
    return 3 + (seed * 17) % 100


def _go_on(state: State, rng: random.Random, digest: Any, until: int | None = None) -> None:
    """Play random choices from `state`, hashing what it shows, until the game is over or
    `until` choices are in its log."""
    update = digest.update
    while state.decision is not None and (until is None or len(state.log) < until):
        update(repr(state.decision).encode())
        legal = state.legal_choices()
        update("|".join(map(repr, legal)).encode())
        update(repr(state.full_beaches()).encode())
        update(repr(list(state.empty_places().items())).encode())
        events = state.apply(rng.choice(legal))
        update("|".join(map(repr, events)).encode())
    if state.decision is None:
        update(json.dumps(state.to_json(), sort_keys=True).encode())
        update(repr(state.outcome).encode())


def game_digests(players: int, seed: int) -> list[str]:
    """The digest of one game played straight through, then of the same game continued from a
    copy and from a reloaded snapshot taken at `_midway(seed)`."""
    rng = random.Random(seed)
    state = State(Setup.from_seed(rng.sample(COLOURS, players), seed))
    digest = hashlib.sha256()
    _go_on(state, rng, digest, until=_midway(seed))
    copied, reloaded = state.copy(), State.from_json(state.to_json())
    saved_rng, saved_digest = rng.getstate(), digest.copy()
    _go_on(state, rng, digest)
    digests = [digest.hexdigest()]
    for other in (copied, reloaded):
        rng.setstate(saved_rng)
        again = saved_digest.copy()
        _go_on(other, rng, again)
        digests.append(again.hexdigest())
    return digests


def _stored() -> dict[str, str]:
    data: dict[str, str] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_games_play_as_recorded(players: int) -> None:
    stored = _stored()
    for p, seed in GAMES:
        if p != players:
            continue
        straight, copied, reloaded = game_digests(players, seed)
        assert straight == stored[f"{players}p seed {seed}"], (players, seed)
        assert copied == straight, ("copy", players, seed)
        assert reloaded == straight, ("from_json", players, seed)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="store the digests of this engine")
    args = parser.parse_args(argv)
    found = {}
    for players, seed in GAMES:
        straight, copied, reloaded = game_digests(players, seed)
        assert copied == straight == reloaded, (players, seed)
        found[f"{players}p seed {seed}"] = straight
    if args.write:
        FIXTURE.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {len(found)} digests to {FIXTURE}")
    else:
        stored = _stored()
        differ = [key for key, value in found.items() if stored.get(key) != value]
        print(f"{len(found) - len(differ)} of {len(found)} games as recorded; differ: {differ}")


if __name__ == "__main__":
    main()
