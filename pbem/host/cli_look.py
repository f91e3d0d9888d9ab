"""`pbem show` and `pbem export`: a game's board now, and the record of a whole game."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pbem.host.cli_app import ConfigOption, app, fail, open_service


@app.command()
def show(game: int, config: ConfigOption = None) -> None:
    """The current board of a game, as text."""
    from pbem.commands.registry import status_text
    from pbem.core.clock import utc_now
    from pbem.flow.service import GameError, stack_note
    from pbem.store.db import reading
    from pbem.views import view
    from pbem.views.render import render_board_text

    service = open_service(config)
    with reading(service.engine) as db:
        try:
            table = service.table(db, game, utc_now())
        except GameError as error:
            fail(str(error))
        typer.echo(render_board_text(view.board(table.state, table.names, table.bots)))
        typer.echo(stack_note(table.game))
        typer.echo(status_text(table))


@app.command("export")
def export_command(
    game: Annotated[int, typer.Argument(help="The game.")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="The HTML file to write (else game-GAME.html)."),
    ] = None,
    notation: Annotated[
        bool,
        typer.Option(
            "--only-notation",
            "--notation",
            help="Write only the game in notation, no HTML page: to --out, else printed "
            "(--notation is the older name).",
        ),
    ] = False,
    config: ConfigOption = None,
) -> None:
    """Write the record of a game: one HTML page (the board after every turn, the moves, the
    public table talk, the final table) and the game in notation next to it (FILE.txt)."""
    from pbem.flow.service import GameError
    from pbem.store.db import reading
    from pbem.views import export

    service = open_service(config)
    with reading(service.engine) as db:
        try:
            played = export.load(db, game)
        except GameError as error:
            fail(str(error))
    text = export.notation(played)
    if notation:
        if out is None:
            typer.echo(text, nl=False)
        else:
            _write(out, text)
            typer.echo(f"wrote {out} ({len(played.moves)} choices)")
        return
    target = out or Path(f"game-{game}.html")
    if target.suffix == ".txt":
        fail(f"{target}: the page needs a name of its own, like game-{game}.html")

    def progress(done: int, total: int) -> None:
        if done % 10 == 0 or (done == total and total >= 10):
            typer.echo(f"drew {done} of {total} boards", err=True)

    page = export.render_record(export.record(played, progress))
    _write(target, page)
    _write(target.with_suffix(".txt"), text)  # after the page: a failure writes neither
    typer.echo(
        f"wrote {target} ({len(page) // 1024} KB) and {target.with_suffix('.txt')} "
        f"({len(played.moves)} choices)"
    )


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        fail(f"cannot write {path}: {error.strerror or error}")
