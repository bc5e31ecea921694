"""``arena strategy``: tools for TwoCardDraw strategy files (value, generate).

The game's own command group, which its plugin declares
(``GamePlugin.commands``) and the command line mounts: the one module of the
game that reads and writes files and prints, loaded only by the command
line (the rules, ``games.twocarddraw``, do no I/O). It stands on the game
alone, as a third-party game's command would.
"""

from __future__ import annotations

import random
import secrets
import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

# The solver (numpy) is imported by the commands that use it: this module is loaded
# by every start of the command line.
from . import StrategyError, format_strategy, parse_strategy


strategy_app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="TwoCardDraw strategy files: exact value, and the TopCoder problem's generator.",
)


def _fail(message: str) -> typer.Exit:
    typer.echo(f"arena: error: {message}", err=True)
    return typer.Exit(2)


def _outside(option: str, value: int | None, low: int, high: int) -> str | None:
    """Why ``value`` of ``option`` is refused, in the command line's words (None: in range)."""
    if value is None or low <= value <= high:
        return None
    return f"{option} must be at least {low} and at most {high}, got {value}"


@strategy_app.command("value")
def value_cmd(
    file: Annotated[Path, typer.Argument(help="A strategy file in the TopCoder problem's format.")],
) -> None:
    """Print the strategy's exact value: minus what a perfect opponent earns per hand."""
    try:
        strategy = parse_strategy(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise _fail(f"cannot read {file}: {exc}") from None
    except StrategyError as exc:
        raise _fail(f"{file}: {exc}") from None
    from ._solve import strategy_value

    value = strategy_value(strategy)
    typer.echo(f"{value:.8f}")
    typer.echo(
        f"{file}: bet1={strategy.bet1} bet2={strategy.bet2}; a perfect opponent earns "
        f"{-value:.8f} per hand against it (exact, double precision)",
        err=True,
    )


@strategy_app.command("generate")
def generate_cmd(
    bet1: Annotated[int, typer.Option("--bet1", help="Bet size in round 1 (1..5).")],
    bet2: Annotated[int, typer.Option("--bet2", help="Bet size in round 2 (bet1..3*bet1).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Where to write the strategy file.")],
    iterations: Annotated[int, typer.Option(help="Hill-climb steps (the TopCoder problem's used 10,000 to 200,000).")] = 10000,
    seed: Annotated[Optional[int], typer.Option(help="Seed of the generator (random and printed if not given).")] = None,
    digits: Annotated[int, typer.Option(help="Decimals of each probability in the file.")] = 6,
) -> None:
    """Write a strategy made by the TopCoder problem's hill-climb (see docs/protocols/twocarddraw.md)."""
    problems = [_outside("--bet1", bet1, 1, 5),
                None if _outside("--bet1", bet1, 1, 5) or bet1 <= bet2 <= 3 * bet1 else
                f"--bet2 must be between --bet1 and 3 times --bet1 ({bet1}..{3 * bet1}), got {bet2}",
                _outside("--iterations", iterations, 0, 100_000_000), _outside("--digits", digits, 1, 15),
                _outside("--seed", seed, 0, (1 << 63) - 1)]
    problem = next((p for p in problems if p), None)
    if problem:
        raise _fail(problem)
    if seed is None:
        seed = secrets.randbits(32)
    typer.echo(f"generating bet1={bet1} bet2={bet2}, {iterations} iterations, seed {seed}", err=True)
    started = time.perf_counter()
    last = [started]

    def progress(done: int, value: float) -> None:
        now = time.perf_counter()
        if sys.stderr.isatty() and now - last[0] > 0.2:
            last[0] = now
            sys.stderr.write(f"\r{done}/{iterations} value against the almost perfect opponent {-value:.6f}\x1b[K")
            sys.stderr.flush()

    from ._solve import GENERATOR_EPS, generate, strategy_value

    strategy = generate(bet1, bet2, iterations, random.Random(seed), GENERATOR_EPS, progress)
    if sys.stderr.isatty():
        sys.stderr.write("\r\x1b[K")
    text = format_strategy(strategy, digits)
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise _fail(f"cannot write {output}: {exc}") from None
    value = strategy_value(parse_strategy(text))  # of the file as written (rounded)
    typer.echo(f"{value:.8f}")
    typer.echo(f"wrote {output} in {time.perf_counter() - started:.1f} s; exact value {value:.8f}", err=True)
