"""The side-by-side benchmark of our engine and the peer's (tools/bench_peer.py): how it gets
the peer's code and how it takes turns. The figures themselves are printed, never asserted."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tools.bench_peer import fetch_peer, interleaved, main


def _git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def _peer_repository(where: Path) -> tuple[Path, str]:
    """A git repository standing in for the peer's, with two commits; returns the first."""
    where.mkdir()
    _git("init", "--quiet", cwd=where)
    for text in ("first", "second"):
        (where / "official_tiles.py").write_text(text)
        _git("add", ".", cwd=where)
        _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", text, cwd=where)
    return where, _git("rev-parse", "HEAD~1", cwd=where)


def test_the_peer_is_cloned_at_its_pinned_commit_once(tmp_path: Path) -> None:
    source, first = _peer_repository(tmp_path / "peer")
    cache = tmp_path / "cache" / "peer"
    tree = fetch_peer(str(source), cache, first)
    assert tree == cache and (cache / "official_tiles.py").read_text() == "first"
    # cached: the source is not asked again
    assert fetch_peer(str(tmp_path / "gone"), cache, first) == cache
    assert [p.name for p in (tmp_path / "cache").iterdir()] == ["peer"]  # no scratch left


def test_a_peer_that_cannot_be_fetched_is_said_and_leaves_no_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache" / "peer"
    with pytest.raises(SystemExit, match="could not fetch the peer from"):
        main(["--peer-source", str(tmp_path / "nowhere"), "--cache", str(cache)])
    assert not cache.exists()
    assert capsys.readouterr().out == ""


def test_the_engines_take_turns_each_with_its_own_seeds() -> None:
    """On a clock of the test's (each game takes 4 ms of it), so that the turns are the same
    however loaded the machine is."""
    played: list[tuple[str, int]] = []
    now = [0.0]

    def engine(name: str) -> Callable[[int], bool]:
        def game(seed: int) -> bool:
            played.append((name, seed))
            now[0] += 0.004
            return (name, seed) != ("b", 1)  # b's game 1 does not end

        return game

    def clock() -> float:
        return now[0]

    engines = {name: engine(name) for name in "ab"}
    totals = interleaved(engines, seconds=0.0, round_seconds=0.0, clock=clock)
    assert played == [("a", 0), ("b", 0)]  # one round each, of one game
    assert {name: (games, failed) for name, (games, _, failed) in totals.items()} == {
        "a": (1, 0),
        "b": (1, 0),
    }
    played.clear()
    totals = interleaved(engines, seconds=0.05, round_seconds=0.01, clock=clock)
    # rounds of three games (12 ms), in turn, until 50 ms have passed: three rounds each, each
    # engine's games seeded 0, 1, 2, ... across its rounds
    assert played == [
        (name, seed) for first in (0, 3, 6) for name in "ab" for seed in range(first, first + 3)
    ]
    assert {name: (games, failed) for name, (games, _, failed) in totals.items()} == {
        "a": (9, 0),
        "b": (8, 1),  # its game 1 did not end: counted apart, its time left out
    }
    assert totals["a"][1] == pytest.approx(9 * 0.004) and totals["b"][1] == pytest.approx(8 * 0.004)
