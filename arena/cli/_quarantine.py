"""``arena quarantine GAME BOT``: the command around the steps of ``arena.quarantine._run``.

Exit codes: 0 every step passed, 1 a step failed, 2 bad usage, 3 an internal error or the game's own code failed.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Annotated, Any, Optional

import trio
import typer

from ..play._host import BotHost, open_host
from ..quarantine._run import DEFAULT_MATCHES, make_plan, run_quarantine
from ..quarantine._report import STEPS, StepResult, write_junit
from .._text import inert
from .._seeds import public_seed

EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


def quarantine(
    game: str, bot: str, *, matches: int = DEFAULT_MATCHES, junit: Path | None = None,
    require_win: bool = False, seed: int | str | None = None, timeout: float = 1.0,
    sandbox: str | None = None, params: list[str] | None = None, opponents: Path | None = None,
) -> int:
    """Run ``arena quarantine``; print the steps; return the exit code."""
    try:
        plan = make_plan(game, bot, matches=matches, seed=seed, timeout=timeout, require_win=require_win,
                         params=params, opponents=opponents)
        # A submission is untrusted: it runs in the sandbox (the default level
        # unless told otherwise; ARENA_SANDBOX sets it for a whole CI job), and
        # without any sandbox only when asked for explicitly.
        host = open_host(sandbox, untrusted=True)
    except ValueError as exc:
        typer.echo(f"arena: error: {exc}", err=True)
        return EXIT_USAGE
    typer.echo(f"Sandbox: {host.describe()}", err=True)
    with host:
        return _quarantine(plan, game, junit, host)


def _quarantine(plan: Any, game: str, junit: Path | None, host: BotHost) -> int:
    if junit is not None and not junit.parent.is_dir():
        typer.echo(f"arena: error: --junit {junit}: the folder {junit.parent} does not exist", err=True)
        return EXIT_USAGE
    typer.echo(
        f"Started quarantine of {inert(plan.candidate.name)} for {game} seed {public_seed(plan.seed)}: "
        f"{plan.matches} matches against {len(plan.opponents)} sample bots, {plan.seats} seats, "
        f"timeout {plan.timeout:g} s",
        err=True,
    )
    workdir = Path(tempfile.mkdtemp(prefix=f"arena-quarantine-{game}-"))
    try:
        report = trio.run(run_quarantine, plan, workdir, print_step, host)
    except KeyboardInterrupt:
        typer.echo("Interrupted quarantine: every bot was stopped", err=True)
        return 130
    except Exception:
        traceback.print_exc()
        typer.echo("arena: internal error during the quarantine (a bug in the arena, not in the bot)", err=True)
        return EXIT_INTERNAL
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    failed = report.failed_step
    if report.game_error is not None:
        assert failed is not None  # the step the game failed in is a FAIL (QuarantineReport.game_error)
        typer.echo(f"quarantine NOT JUDGED: the game failed at step {failed.number}/{STEPS}, not the bot "
                   f"(seed {report.seed}, {report.duration:.1f} s): {report.game_error}")
    elif failed is None:
        typer.echo(f"quarantine PASSED: {inert(report.bot)} for {game} (seed {report.seed}, {report.duration:.1f} s)")
    else:
        typer.echo(f"quarantine FAILED at step {failed.number}/{STEPS}: {failed.title} "
                   f"(seed {report.seed}, {report.duration:.1f} s)")
    if junit is not None:
        write_junit(report, junit)
        typer.echo(f"JUnit report written to {junit}", err=True)
    sys.stdout.flush()
    if report.game_error is not None:
        return EXIT_INTERNAL
    return EXIT_PASS if report.passed else EXIT_FAIL


def quarantine_cmd(
    game: Annotated[str, typer.Argument(metavar="GAME", help="The game, as `arena games` lists it.")],
    bot: Annotated[str, typer.Argument(metavar="BOT", help="The bot: an executable or a quoted command line.")],
    matches: Annotated[
        int, typer.Option(help="Matches against the sample bots; the bot takes every seat in turn.")
    ] = DEFAULT_MATCHES,
    junit: Annotated[Optional[Path], typer.Option("--junit", metavar="FILE", help="Write a JUnit XML report to FILE.")] = None,
    require_win: Annotated[
        bool, typer.Option("--require-win", help="Fail unless the bot beats the random sample bot.")
    ] = False,
    seed: Annotated[Optional[str], typer.Option(
        help="Seed for every match, a number or a word (random and printed if not given).")] = None,
    timeout: Annotated[float, typer.Option(help="Seconds allowed for each reply.")] = 1.0,
    sandbox: Annotated[Optional[str], typer.Option(help="none, basic, strict or gvisor (default: see `arena doctor`).")] = None,
    param: Annotated[Optional[list[str]], typer.Option(
        "--param", "-p", help="A game parameter KEY=VALUE, instead of the game's quarantine manifest's.")] = None,
    opponents: Annotated[Optional[Path], typer.Option(
        "--opponents", metavar="FILE", help="An opponents manifest instead of the one the game ships.")] = None,
) -> None:
    """Check a new bot before it joins: starts, answers, plays every seat, exits, cleans up.

    Exit codes: 0 every step passed, 1 a step failed, 2 bad usage, 3 an internal error or the game's own code failed.
    """
    raise typer.Exit(
        quarantine(game, bot, matches=matches, junit=junit, require_win=require_win, seed=seed, timeout=timeout,
                   sandbox=sandbox, params=param, opponents=opponents)
    )


def register(app: typer.Typer) -> None:
    """Add ``arena quarantine`` to ``app``."""
    app.command("quarantine")(quarantine_cmd)


def print_step(step: StepResult) -> None:
    typer.echo(step.line())
    for line in step.details:
        typer.echo("    " + line)
