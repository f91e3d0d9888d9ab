"""`pbem new-game` and `pbem gm`: create a game, and act on one as its game master."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from engine import BOT_KINDS
from pbem.commands.usage import gm_examples
from pbem.core import LANGUAGES
from pbem.host.cli_app import ConfigOption, app, fail, open_service, parse_time

if TYPE_CHECKING:
    from pbem.flow.service import SeatSpec

BOT_NOTATION = "|".join(BOT_KINDS)
LANGS = ", ".join(LANGUAGES)


def _seat(text: str, bot: bool) -> SeatSpec:
    """NAME:ADDRESS[:COLOUR[:LANG]] (the colour may be left empty: `Ann:ann@x::it`), or
    NAME:BOT[:COLOUR]."""
    from pbem.flow.service import GameError, SeatSpec

    parts = text.split(":")
    most = 3 if bot else 4
    if not 2 <= len(parts) <= most or not parts[0] or not parts[1] or "" in parts[3:]:
        kind = f"NAME:{BOT_NOTATION}[:COLOUR]" if bot else "NAME:ADDRESS[:COLOUR[:LANG]]"
        raise GameError(f"{text!r} should be {kind}.")
    colour = parts[2].lower() if len(parts) >= 3 and parts[2] else None
    if bot:
        return SeatSpec(parts[0], None, colour, parts[1].lower())
    lang = parts[3].lower() if len(parts) == 4 else None
    return SeatSpec(parts[0], parts[1], colour, lang=lang)


@app.command("new-game")
def new_game(
    player: Annotated[
        list[str],
        typer.Option(help="NAME:ADDRESS[:COLOUR[:LANG]], in seat order (Ann:ann@x::it)."),
    ] = [],  # noqa: B006
    bot: Annotated[
        list[str], typer.Option(help=f"NAME:{BOT_NOTATION}[:COLOUR], seated after the players.")
    ] = [],  # noqa: B006
    seed: Annotated[
        int | None,
        typer.Option(help="Shuffle the stack from this seed: reproducible, so predictable."),
    ] = None,
    stack: Annotated[
        str | None, typer.Option(help="The whole stack, top first: Samoa,C,...")
    ] = None,
    deadline: Annotated[str | None, typer.Option(help="Time per decision, e.g. 48h or 2d.")] = None,
    gm: Annotated[
        str | None,
        typer.Option(help="The game master: ADDRESS[:LANG], their mails in LANG (else --lang)."),
    ] = None,
    observer: Annotated[
        list[str], typer.Option(help="ADDRESS[:NAME] of someone who watches the game.")
    ] = [],  # noqa: B006
    observers_talk: Annotated[
        bool, typer.Option("--observers-talk", help="Observers may say things to the table.")
    ] = False,
    lang: Annotated[
        str, typer.Option(help=f"The game's language, for players who name none: {LANGS}.")
    ] = "en",
    now: Annotated[str | None, typer.Option(help="Create it as if at this ISO 8601 time.")] = None,
    config: ConfigOption = None,
) -> None:
    """Create a game, print its id and mail every player."""
    from pbem.core.clock import utc_now
    from pbem.flow.service import GameError

    seconds = _deadline(deadline)
    service = open_service(config, check=True)
    try:
        specs = [_seat(p, False) for p in player] + [_seat(b, True) for b in bot]
        tiles = [t.strip() for t in stack.split(",")] if stack else None
        game_id = service.new_game(
            specs,
            seed=seed,
            stack=tiles,
            deadline_seconds=seconds,
            gm=gm,
            observers=[(a, n or None) for a, _, n in (o.partition(":") for o in observer)],
            observers_talk=observers_talk,
            lang=lang.lower(),
            now=parse_time(now) if now else utc_now(),
        )
    except GameError as error:
        fail(str(error))
    typer.echo(game_id)
    if seed is not None and not tiles:
        _say_predictable(game_id, seed)


def _deadline(text: str | None) -> int | None:
    """The seconds of `--deadline`, or exit 2 with why it cannot be read."""
    from pbem.core.clock import DurationError, parse_duration

    try:
        return parse_duration(text) if text is not None else None
    except DurationError as error:
        fail(f"--deadline: {error}")


def _say_predictable(game_id: int, seed: int) -> None:
    typer.echo(
        f"note: game {game_id}'s stack was shuffled from seed {seed}, so it is predictable; "
        "games for real play are made without --seed.",
        err=True,
    )


@app.command("gm")
def game_master(
    game: Annotated[int, typer.Argument(help="The game.")],
    command: Annotated[
        list[str],
        typer.Argument(help=f"A game master command: {gm_examples()}."),
    ],
    now: Annotated[str | None, typer.Option(help="Act as if at this ISO 8601 time.")] = None,
    config: ConfigOption = None,
) -> None:
    """Act on a game as its game master; the players are told by mail."""
    from pbem.core.clock import utc_now
    from pbem.core.kinds import LineOutcome
    from pbem.flow.deadlines import send_held
    from pbem.flow.gm import GameMaster
    from pbem.flow.service import GameError

    service = open_service(config, logs=True, check=True)
    at = parse_time(now) if now else utc_now()
    try:
        results, answers = GameMaster(service).run_host(game, [" ".join(command)], at)
    except GameError as error:
        fail(str(error))
    send_held(service, at)  # the quiet changes as a poll's end sends them: one short mail
    for result in results:
        if result.outcome != LineOutcome.ANSWERED:
            typer.echo(f"{result.outcome}: {result.detail}")
    for answer in answers:
        typer.echo(answer.text)
    if any(r.outcome == LineOutcome.REJECTED for r in results):
        raise typer.Exit(code=2)
