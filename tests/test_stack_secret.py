"""The stack nobody can work out (issue 27): a game without a seed is shuffled with the
operating system's randomness and stores no seed; a seeded game says it is predictable;
no bot's choice depends on the order of the tiles still in the stack, and no bot's seed
follows from what a player knows."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from sqlmodel import col, select
from typer.testing import CliRunner

from engine import BOT_KINDS, COLOURS, STACK_TILES, BotKind, Setup, State, make_bot
from pbem.core.config import settings_toml
from pbem.flow.service import MAX_SEED, GameError, SeatSpec, Service
from pbem.game.table import bot_choice, bot_seed
from pbem.host.cli import app
from pbem.store.db import session
from pbem.store.models import Game
from tests.support.localmail import START, local_service, take_mail, text_of
from tests.support.scenario import sealed_stack

ANN, BOB, GM = "ann@example.test", "bob@example.test", "gm@example.test"
SEATS = [SeatSpec("Ann", ANN, "red"), SeatSpec("Bob", BOB, "blue")]
PREDICTABLE = "so it is predictable"

runner = CliRunner()


@pytest.fixture
def service(tmp_path: Path) -> Service:
    return local_service(tmp_path)


def _games(service: Service) -> list[Game]:
    with session(service.engine) as db:
        return list(db.exec(select(Game).order_by(col(Game.id))))


def _midgame(seed: int, decisions: int) -> State:
    state = State(Setup.from_seed(COLOURS[:3], seed))
    bots = [make_bot("greedy", seed * 10 + seat) for seat in range(3)]
    while len(state.log) < decisions and (decision := state.decision) is not None:
        state.apply(bots[decision.seat].choose(state))
    return state


def _reordered(state: State, rng: random.Random) -> State:
    """The same game with the tiles still in the stack in another order, another on top."""
    stack, drawn = state.setup.stack, state.drawn
    hidden = list(stack[drawn:])
    while hidden[0] == stack[drawn]:
        rng.shuffle(hidden)
    return State.replay(Setup(state.colours, stack[:drawn] + tuple(hidden)), state.log)


def test_a_shuffled_stack_comes_from_the_generator_handed_in() -> None:
    colours = ("red", "blue")
    assert Setup.shuffled(colours, random.Random(5)) == Setup.from_seed(colours, 5)
    system = Setup.shuffled(colours, random.SystemRandom())
    assert sorted(system.stack) == sorted(STACK_TILES)


def test_a_game_without_a_seed_stores_its_stack_and_no_seed(service: Service) -> None:
    first = service.new_game(SEATS, now=START)
    second = service.new_game(SEATS, now=START)
    games = _games(service)
    assert [g.id for g in games] == [first, second]
    assert [g.seed for g in games] == [None, None]
    stacks = [tuple(g.stack.split(",")) for g in games]
    assert all(sorted(stack) == sorted(STACK_TILES) for stack in stacks)
    assert stacks[0] != stacks[1]  # 31! orders: the same twice would be no shuffle
    with session(service.engine) as db:
        assert service.table(db, first, START).state.setup.stack == stacks[0]


def test_a_seeded_game_is_the_same_stack_every_time(service: Service) -> None:
    for _ in range(2):
        service.new_game(SEATS, seed=MAX_SEED, now=START)
    games = _games(service)
    assert [g.seed for g in games] == [MAX_SEED, MAX_SEED]
    expected = ",".join(Setup.from_seed(("red", "blue"), MAX_SEED).stack)
    assert games[0].stack == games[1].stack == expected


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1, 2**64])
def test_a_seed_out_of_range_is_refused_and_makes_no_game(service: Service, seed: int) -> None:
    with pytest.raises(GameError, match="The seed must be a whole number from 0 to 2147483647"):
        service.new_game(SEATS, seed=seed, now=START)
    assert _games(service) == [] and take_mail(service) == []


def test_a_bots_seed_follows_from_a_seed_or_from_the_games_secret() -> None:
    seeded = Game(id=3, created_at=START, colours="red,blue", stack="", seed=8, gm_secret="a" * 32)
    assert bot_seed(seeded, 12) == 8 * 1_000_003 + 3 * 7919 + 12  # reproducible, as before
    shuffled = Game(id=3, created_at=START, colours="red,blue", stack="", gm_secret="a" * 32)
    other = Game(id=3, created_at=START, colours="red,blue", stack="", gm_secret="b" * 32)
    seeds = {bot_seed(shuffled, 12), bot_seed(shuffled, 13), bot_seed(other, 12)}
    assert len(seeds) == 3  # the secret and the decision, not the game's id alone
    assert bot_seed(shuffled, 12) == bot_seed(shuffled, 12)  # the same again: undo replays it
    assert bot_seed(shuffled, 12) != 3 * 7919 + 12  # no longer what a player can compute
    assert all(seed >= 0 for seed in seeds) and max(seeds).bit_length() > 128


# the expert through the service's own seeds at its full strength is long (some 15 s): it is
# slow, and tests/test_expert.py checks the same of the expert bot at fewer simulations
@pytest.mark.parametrize(
    "kind",
    [
        pytest.param(kind, marks=pytest.mark.slow) if kind is BotKind.EXPERT else kind
        for kind in BOT_KINDS
    ],
)
def test_no_bot_choice_depends_on_the_order_of_the_stack(kind: BotKind) -> None:
    game = Game(id=5, created_at=START, colours="", stack="", gm_secret="c" * 32)
    rng = random.Random(2)
    asked = 0
    for seed, decisions in [(1, 20), (2, 30), (3, 40), (4, 25)]:
        played = _midgame(seed, decisions)
        if played.decision is None or len(played.legal_choices()) < 2:
            continue
        other = _reordered(played, rng)
        assert other.stack_left != played.stack_left
        seen, seen_other = played.to_json(), other.to_json()
        del seen["setup"], seen_other["setup"]
        assert seen == seen_other
        choice = bot_choice(game, played, kind)
        assert bot_choice(game, other, kind) == choice
        if (
            kind is not BotKind.EXPERT
        ):  # the expert counts the tiles left (public): it shuffles them
            assert bot_choice(game, sealed_stack(played), kind) == choice
        asked += 1
    assert asked >= 3


def test_pbem_show_says_whether_a_stack_is_predictable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    service = local_service(tmp_path)
    config = tmp_path / "pbem.toml"
    config.write_text(settings_toml(service.settings))
    seeded = service.new_game(SEATS, seed=1234, now=START)
    shuffled = service.new_game(SEATS, now=START)

    def shown(game: int) -> str:
        result = runner.invoke(app, ["show", str(game), "--config", str(config)])
        assert result.exit_code == 0, result.output
        return " ".join(result.output.split())

    assert f"shuffled from a seed (1234), {PREDICTABLE}: whoever knows the seed" in shown(seeded)
    said = shown(shuffled)
    assert "shuffled with the operating system's randomness" in said
    assert PREDICTABLE not in said


def test_the_game_masters_mail_says_a_seeded_stack_is_predictable(service: Service) -> None:
    service.new_game(SEATS, seed=77, gm=GM, now=START)
    service.new_game(SEATS, gm=GM, now=START)
    mails = take_mail(service)
    to_gm = [" ".join(text_of(m).split()) for m in mails if m["To"] == GM]
    assert len(to_gm) == 2
    assert f"shuffled from a seed, {PREDICTABLE}: whoever knows the seed" in to_gm[0]
    assert "(77)" not in to_gm[0]  # the seed itself is not mailed
    assert PREDICTABLE not in to_gm[1]
    to_players = [text_of(m) for m in mails if m["To"] in (ANN, BOB)]
    assert len(to_players) == 6 and all(PREDICTABLE not in text for text in to_players)
