"""``arena check-game GAME``: the conformance checks of a game plugin, printed."""

from __future__ import annotations

from typing import Annotated

import typer

from .._checks import UsageError
from .._plan import load_plugin
from .._text import inert


def check_game_cmd(
    game: Annotated[str, typer.Argument(metavar="GAME", help="An installed game, as `arena games` lists it.")],
    write_golden_file: Annotated[bool, typer.Option(
        "--write-golden", help="Write the golden playthrough file first (then review its diff).")] = False,
) -> None:
    """Check that a game keeps the plugin contract: random legal and bad replies,
    determinism, schemas, its golden playthrough and rules page.

    Exit codes: 0 every check passed, 1 a check failed, 2 bad usage.
    """
    from ..quarantine._conformance import check_game, write_golden  # only this command needs it

    try:
        plugin = load_plugin(game)
        if write_golden_file:
            typer.echo(f"wrote {write_golden(plugin)}", err=True)
    except UsageError as exc:
        typer.echo(f"arena: error: {exc}", err=True)
        raise typer.Exit(2) from None
    except ValueError as exc:  # the game's own playthrough did not play (write_golden says how)
        typer.echo(f"arena: error: {exc}", err=True)
        raise typer.Exit(1) from None
    results = check_game(plugin)
    for result in results:
        typer.echo(result.line())
        for detail in result.details:
            typer.echo(f"        {inert(detail)}")
    failed = sum(not r.ok for r in results)
    typer.echo(f"check-game {game}: {'PASSED' if not failed else f'FAILED ({failed} of {len(results)} checks)'}")
    raise typer.Exit(1 if failed else 0)
