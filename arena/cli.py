"""The ``arena`` command line.

Human output (progress, the seed, fault reports) goes to stderr; the result
table or, with ``--json``, one JSON object goes to stdout.
Exit codes: 0 the match completed, 1 a bot broke the protocol (the match was
cancelled), 2 bad usage (nothing was started), 3 an internal error, 130 Ctrl-C.
"""

from __future__ import annotations

import json
import secrets
import shutil
import sys
import tempfile
import time
import traceback
from functools import partial
from pathlib import Path
from typing import Annotated, Optional

import trio
import typer

from ._games import PluginLoadError, available_games, load_game

from ._bot import BadBotCommand, BotSpec
from ._match import MatchSettings, SeriesResult, run_series, summarize_series
from ._checks import UsageError, check_range, game_params, parse_param
from ._host import open_host
from ._sandbox import SandboxPolicy
from ._sandbox import register as _register_sandbox
from ._seeds import derive_seed
from ._text import inert

_DEFAULT_POLICY = SandboxPolicy()

EXIT_OK, EXIT_FAULT, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Play card games between bots written in any language, over stdin/stdout.",
)


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("arena")
        except PackageNotFoundError:  # run from a checkout that was never installed
            number = "unknown (not installed)"
        typer.echo(f"arena {number} (Python {sys.version.split()[0]})")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_print_version,
                                          help="Print the arena's version and exit.")] = False,
) -> None:
    """Play card games between bots written in any language, over stdin/stdout."""


def _usage_error(message: str) -> typer.Exit:
    typer.echo(f"arena: error: {message}", err=True)
    return typer.Exit(EXIT_USAGE)


@app.command("games")
def games_cmd(
    game: Annotated[Optional[str], typer.Argument(
        metavar="[GAME]", help="One game: its seats, parameters, defaults and ranges.")] = None,
) -> None:
    """List the installed games: id, version, seats and what each is."""
    if game is not None:
        _describe_game(game)
        return
    rows = []
    for game_id in sorted(available_games()):
        try:
            plugin = load_game(game_id)
        except PluginLoadError as exc:
            rows.append((game_id, "-", "-", f"(broken plugin: {exc})"))
            continue
        spec = plugin.spec
        rows.append((spec.id, str(spec.version), _seats(spec), spec.description))
    width = max([len(r[0]) for r in rows] + [4])
    typer.echo(f"{'GAME':<{width}}  VERSION  SEATS  DESCRIPTION")
    for game_id, version, seats, description in rows:
        typer.echo(f"{game_id:<{width}}  {version:<7}  {seats:<5}  {description}")


def _seats(spec) -> str:
    return str(spec.min_seats) if spec.min_seats == spec.max_seats else f"{spec.min_seats}-{spec.max_seats}"


def _range(field) -> str:
    """A field's bounds in words, from its pydantic constraints (``1..1000000``)."""
    low = high = None
    for rule in field.metadata:
        low = getattr(rule, "ge", low)
        high = getattr(rule, "le", high)
        if getattr(rule, "gt", None) is not None:
            low = f">{rule.gt}"
        if getattr(rule, "lt", None) is not None:
            high = f"<{rule.lt}"
    if low is None and high is None:
        return ""
    return f"{'' if low is None else low}..{'' if high is None else high}"


def _describe_game(game_id: str) -> None:
    try:
        plugin = load_game(game_id)
    except PluginLoadError as exc:
        raise _usage_error(str(exc)) from None
    spec = plugin.spec
    typer.echo(f"{spec.id} version {spec.version}: {spec.description}")
    typer.echo(f"seats: {_seats(spec)}")
    typer.echo(f"tournament: lifetime {plugin.default_lifetime}, "
               f"max faults {plugin.default_max_faults or 'never'}"
               + (f"; a round is {plugin.round_note}" if plugin.round_note else ""))
    typer.echo("parameters (-p KEY=VALUE):")
    for name, field in plugin.Params.model_fields.items():
        default = field.default
        shown = json.dumps(list(default) if isinstance(default, tuple) else default)
        bounds = _range(field)
        about = f"  {field.description}" if field.description else ""
        line = f"  {name:<18} default {shown:<12}{'  range ' + bounds if bounds else ''}{about}"
        typer.echo(line.rstrip())


def _parse_end_prob(text: str) -> tuple[int, int]:
    for sep in ("/", ","):
        if sep in text:
            a, _, b = text.partition(sep)
            try:
                return int(a), int(b)
            except ValueError:
                break
    raise _usage_error(f"--end-prob takes A/B with integers, like 1/1000; got {text!r}")


def _check(option: str, value: float | None, low: float, high: float) -> None:
    try:
        check_range(option, value, low, high)
    except UsageError as exc:
        raise _usage_error(str(exc)) from None


def _given(**values: object) -> dict:
    """The game parameters the user set (the rest keep the game's defaults)."""
    return {k: v for k, v in values.items() if v is not None}


def _parse_ints(option: str, text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise _usage_error(f"{option} takes integers separated by commas, like 1,1,1; got {text!r}") from None


class _Progress:
    """A one-line progress indicator on stderr, only when stderr is a terminal."""

    def __init__(self, enabled: bool, label: str) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.label = label
        self.started = time.perf_counter()
        self._last = 0.0

    def __call__(self, hands: int) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last < 0.1:
            return
        self._last = now
        rate = hands / max(now - self.started, 1e-9)
        sys.stderr.write(f"\r{self.label}: {hands} hands ({rate:,.0f} hands/s)\x1b[K")
        sys.stderr.flush()

    def done(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _tracer(started: float, names: list[str]):
    def trace(seat: int, direction: str, text: str) -> None:
        stamp = time.perf_counter() - started
        for line in text.splitlines() or [""]:
            sys.stderr.write(f"[{stamp:10.6f}] seat {seat} {direction} {inert(line)}\n")

    return trace


def _print_table(result: SeriesResult) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    fault_by_seat = {f.seat: f for f in result.faults}
    status = "completed" if result.completed else "CANCELLED"
    matches = f"{len(result.matches)} matches · " if result.planned > 1 else ""
    table = Table(title=f"{result.game} · seed {result.seed} · {matches}{result.hands} hands · {status}")
    for column in ("seat", "bot", "bankroll", "hands", "score", "fault"):
        table.add_column(column, justify="right" if column in ("seat", "bankroll", "hands", "score") else "left")
    for seat in result.seats:
        fault = fault_by_seat.get(seat.seat)
        table.add_row(
            str(seat.seat),
            Text(inert(seat.bot)),  # a Text is never read as rich markup ("[x]" stays)
            str(seat.bankroll),
            str(result.hands),
            f"{seat.score:.3f}",
            str(fault.kind) if fault else "",
        )
    # Off a terminal nothing should be cut: the bot names must stay greppable.
    Console(width=None if sys.stdout.isatty() else 1000).print(table)


# Options every game command shares (the same words as kuhn3's, which came first).
SeedOpt = Annotated[Optional[int], typer.Option(help="Seed for every chance event (random and printed if not given).")]
TimeoutOpt = Annotated[float, typer.Option(help="Seconds allowed for each reply.")]
BudgetOpt = Annotated[Optional[float], typer.Option(help="Total seconds each bot may use in a match.")]
StartupOpt = Annotated[float, typer.Option(
    "--startup-timeout", help="Seconds for each bot's first reply, start-up included (a JVM or a big model may need more).")]
LogDirOpt = Annotated[Optional[Path], typer.Option("--log-dir", help="Where each bot's stderr log is written.")]
TraceOpt = Annotated[bool, typer.Option("--trace", help="Print every line sent and received, with seat and time.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the table.")]
SandboxOpt = Annotated[
    Optional[str],
    typer.Option(help="none, basic or strict (default: basic when it works here; see `arena doctor`)."),
]
MemoryOpt = Annotated[int, typer.Option("--memory-mb", help="Memory per bot, MB.")]
CpuOpt = Annotated[int, typer.Option("--cpu-seconds", help="CPU seconds per bot process.")]
PidsOpt = Annotated[int, typer.Option(help="Processes and threads per bot.")]
LifetimeOpt = Annotated[
    str,
    typer.Option(
        help="'match': fresh bot processes for every match; 'tournament': one process per bot for all of them."
    ),
]


@app.command("kuhn3")
def kuhn3_cmd(
    bots: Annotated[list[str], typer.Argument(metavar="BOT BOT BOT", help="Three executables or quoted command lines, in seat order.")],
    seed: SeedOpt = None,
    hands: Annotated[Optional[int], typer.Option(help="Play exactly N hands instead of ending by chance.")] = None,
    end_prob: Annotated[str, typer.Option("--end-prob", help="Chance A/B that the round ends after each hand.")] = "1/1000",
    antes: Annotated[str, typer.Option(help="Each seat's ante, in seat order.")] = "1,1,1",
    max_bet: Annotated[int, typer.Option("--max-bet", help="What a bet takes a seat to in front.")] = 2,
    timeout: TimeoutOpt = 1.0,
    startup_timeout: StartupOpt = 10.0,
    budget: BudgetOpt = None,
    log_dir: LogDirOpt = None,
    trace: TraceOpt = False,
    json_out: JsonOpt = False,
    sandbox: SandboxOpt = None,
    memory_mb: MemoryOpt = _DEFAULT_POLICY.memory_mb,
    cpu_seconds: CpuOpt = _DEFAULT_POLICY.cpu_seconds,
    pids: PidsOpt = _DEFAULT_POLICY.pids,
) -> None:
    """Play one round of 3-player Kuhn poker between three bots."""
    params = {
        "hands": hands,
        "end_prob": _parse_end_prob(end_prob),
        "antes": _parse_ints("--antes", antes),
        "max_bet": max_bet,
    }
    raise typer.Exit(
        _play("kuhn3", bots, params, seed=seed, timeout=timeout, budget=budget, log_dir=log_dir,
              trace=trace, json_out=json_out, startup_timeout=startup_timeout,
              sandbox=(sandbox, dict(memory_mb=memory_mb, cpu_seconds=cpu_seconds, pids=pids)))
    )


@app.command("vonneumann")
def vonneumann_cmd(
    bots: Annotated[list[str], typer.Argument(metavar="BOT BOT", help="Two bots; roles A and B alternate every game.")],
    sessions: Annotated[Optional[int], typer.Option(help="Sessions in the match.")] = None,
    ante: Annotated[Optional[int], typer.Option(help="Ante per game (seed: 10).")] = None,
    max_bet: Annotated[Optional[int], typer.Option("--max-bet", help="Bet limit (seed: 50).")] = None,
    stack: Annotated[Optional[int], typer.Option(help="Money at the start of each session (seed: 100).")] = None,
    games_per_session: Annotated[
        Optional[int], typer.Option("--games-per-session", help="Games per session at most (seed: 50).")
    ] = None,
    matches: Annotated[int, typer.Option(help="How many matches the two bots play.")] = 1,
    seed: SeedOpt = None,
    timeout: TimeoutOpt = 1.0,
    startup_timeout: StartupOpt = 10.0,
    budget: BudgetOpt = None,
    log_dir: LogDirOpt = None,
    trace: TraceOpt = False,
    json_out: JsonOpt = False,
    sandbox: SandboxOpt = None,
    memory_mb: MemoryOpt = _DEFAULT_POLICY.memory_mb,
    cpu_seconds: CpuOpt = _DEFAULT_POLICY.cpu_seconds,
    pids: PidsOpt = _DEFAULT_POLICY.pids,
    lifetime: LifetimeOpt = "match",
) -> None:
    """Play von Neumann poker (seed 000) between two bots: sessions of up to 50 games."""
    params = _given(sessions=sessions, ante=ante, max_bet=max_bet, stack=stack,
                    games_per_session=games_per_session)
    _check("--matches", matches, 1, 1_000_000)
    raise typer.Exit(
        _play("vonneumann", bots, [params] * matches, seed=seed, timeout=timeout, budget=budget,
              log_dir=log_dir, trace=trace, json_out=json_out, lifetime=lifetime, startup_timeout=startup_timeout,
              sandbox=(sandbox, dict(memory_mb=memory_mb, cpu_seconds=cpu_seconds, pids=pids)))
    )


@app.command("twocarddraw")
def twocarddraw_cmd(
    bots: Annotated[list[str], typer.Argument(metavar="BOT [BOT]", help="One bot against --strategy files, or two bots.")],
    strategy: Annotated[
        Optional[list[Path]], typer.Option(help="A strategy file for the built-in opponent; repeat for several.")
    ] = None,
    hands: Annotated[Optional[int], typer.Option(help="Hands per match (10,000 by default, as the seed).")] = None,
    bet1: Annotated[Optional[int], typer.Option(help="Bet size in the first round (bot against bot).")] = None,
    bet2: Annotated[Optional[int], typer.Option(help="Bet size in the second round (bot against bot).")] = None,
    seed: SeedOpt = None,
    timeout: TimeoutOpt = 1.0,
    startup_timeout: StartupOpt = 10.0,
    budget: BudgetOpt = None,
    log_dir: LogDirOpt = None,
    trace: TraceOpt = False,
    json_out: JsonOpt = False,
    sandbox: SandboxOpt = None,
    memory_mb: MemoryOpt = _DEFAULT_POLICY.memory_mb,
    cpu_seconds: CpuOpt = _DEFAULT_POLICY.cpu_seconds,
    pids: PidsOpt = _DEFAULT_POLICY.pids,
    lifetime: LifetimeOpt = "match",
) -> None:
    """Play TwoCardDraw (seed 001): a bot against strategy files, or two bots."""
    base = _given(hands=hands, bet1=bet1, bet2=bet2)
    if strategy:
        if len(bots) != 1:
            raise _usage_error(f"with --strategy give exactly one bot, got {len(bots)}")
        for path in strategy:
            if not path.is_file():
                raise _usage_error(f"--strategy {path}: no such file")
        params: dict | list[dict] = [{**base, "strategy": str(path)} for path in strategy]
    else:
        if len(bots) != 2:
            raise _usage_error(f"twocarddraw needs two bots, or one bot and --strategy FILE; got {len(bots)} bots")
        params = base
    raise typer.Exit(
        _play("twocarddraw", bots, params, seed=seed, timeout=timeout, budget=budget, log_dir=log_dir,
              trace=trace, json_out=json_out, lifetime=lifetime, startup_timeout=startup_timeout,
              sandbox=(sandbox, dict(memory_mb=memory_mb, cpu_seconds=cpu_seconds, pids=pids)))
    )


@app.command("rpsdraft")
def rpsdraft_cmd(
    bots: Annotated[list[str], typer.Argument(metavar="BOT BOT", help="Two bots.")],
    matches: Annotated[int, typer.Option(help="How many matches the two bots play.")] = 1,
    draft_rounds: Annotated[Optional[int], typer.Option("--draft-rounds", help="Draft rounds (seed: 5).")] = None,
    hand_size: Annotated[Optional[int], typer.Option("--hand-size", help="Cards in hand (seed: 3).")] = None,
    turns: Annotated[Optional[int], typer.Option(help="Turns of the main phase (seed: 10).")] = None,
    seed: SeedOpt = None,
    timeout: TimeoutOpt = 1.0,
    startup_timeout: StartupOpt = 10.0,
    budget: BudgetOpt = None,
    log_dir: LogDirOpt = None,
    trace: TraceOpt = False,
    json_out: JsonOpt = False,
    sandbox: SandboxOpt = None,
    memory_mb: MemoryOpt = _DEFAULT_POLICY.memory_mb,
    cpu_seconds: CpuOpt = _DEFAULT_POLICY.cpu_seconds,
    pids: PidsOpt = _DEFAULT_POLICY.pids,
    lifetime: LifetimeOpt = "match",
) -> None:
    """Play RPS-draft (seed 004): a card draft, then ten turns of rock-paper-scissors."""
    _check("--matches", matches, 1, 1_000_000)
    params = _given(draft_rounds=draft_rounds, hand_size=hand_size, turns=turns)
    raise typer.Exit(
        _play("rpsdraft", bots, [params] * matches, seed=seed, timeout=timeout, budget=budget,
              log_dir=log_dir, trace=trace, json_out=json_out, lifetime=lifetime, startup_timeout=startup_timeout,
              sandbox=(sandbox, dict(memory_mb=memory_mb, cpu_seconds=cpu_seconds, pids=pids)))
    )


def _mount_strategy_tools() -> None:
    try:
        from ._strategy_cli import strategy_app
    except ImportError:  # the TwoCardDraw tools are optional
        return
    app.add_typer(strategy_app, name="strategy", help="TwoCardDraw strategy files: value, generate.")


_mount_strategy_tools()

@app.command("play")
def play_cmd(
    game: Annotated[str, typer.Argument(help="The game, as `arena games` lists it.")],
    bots: Annotated[list[str], typer.Argument(
        metavar="[NAME=]BOT...", help="The bots in seat order: a command, or NAME=COMMAND to name it.")],
    param: Annotated[Optional[list[str]], typer.Option("--param", "-p", help="A game parameter KEY=VALUE (repeatable).")] = None,
    matches: Annotated[int, typer.Option(help="How many matches the bots play (games with match boundaries).")] = 1,
    seed: SeedOpt = None,
    timeout: TimeoutOpt = 1.0,
    startup_timeout: StartupOpt = 10.0,
    budget: BudgetOpt = None,
    log_dir: LogDirOpt = None,
    trace: TraceOpt = False,
    json_out: JsonOpt = False,
    sandbox: SandboxOpt = None,
    memory_mb: MemoryOpt = _DEFAULT_POLICY.memory_mb,
    cpu_seconds: CpuOpt = _DEFAULT_POLICY.cpu_seconds,
    pids: PidsOpt = _DEFAULT_POLICY.pids,
    lifetime: LifetimeOpt = "match",
) -> None:
    """Play any installed game: its parameters as -p KEY=VALUE (see `arena games`)."""
    _check("--matches", matches, 1, 1_000_000)
    try:
        raw = dict(parse_param(p) for p in param or [])
    except UsageError as exc:
        raise _usage_error(str(exc)) from None
    raise typer.Exit(
        _play(game, bots, [raw] * matches, seed=seed, timeout=timeout, budget=budget, log_dir=log_dir,
              trace=trace, json_out=json_out, lifetime=lifetime, startup_timeout=startup_timeout, keys=True,
              sandbox=(sandbox, dict(memory_mb=memory_mb, cpu_seconds=cpu_seconds, pids=pids)))
    )


from ._results_cli import register as _register_results  # noqa: E402
from ._tournament_cli import entrant  # noqa: E402
from ._tournament_cli import register as _register_tournament  # noqa: E402

_register_tournament(app)
_register_results(app)
_register_sandbox(app)


def _play(
    game_id: str,
    commands: list[str],
    raw_params: dict | list[dict],
    *,
    seed: int | None,
    timeout: float,
    budget: float | None,
    log_dir: Path | None,
    trace: bool,
    json_out: bool,
    lifetime: str = "match",
    sandbox: tuple[str | None, dict] = (None, {}),
    startup_timeout: float = 10.0,
    keys: bool = False,
) -> int:
    """Validate everything, play one match (or a series), report; return the exit code.

    A bot may be given as ``NAME=COMMAND`` to name it; ``keys``: the game
    parameters came as ``-p KEY=VALUE`` (their errors say so).
    """
    try:
        plugin = load_game(game_id)
    except PluginLoadError as exc:
        raise _usage_error(str(exc)) from None
    spec = plugin.spec
    if not spec.min_seats <= len(commands) <= spec.max_seats:
        want = spec.min_seats if spec.min_seats == spec.max_seats else f"{spec.min_seats} to {spec.max_seats}"
        raise _usage_error(f"{game_id} needs {want} bots, got {len(commands)}")
    params_list = []
    for raw in raw_params if isinstance(raw_params, list) else [raw_params]:
        try:
            params_list.append(game_params(plugin, raw, keys=keys))
        except UsageError as exc:
            raise _usage_error(str(exc)) from None
    try:
        check_range("--timeout", timeout, 0, 3600, low_open=True)
        check_range("--startup-timeout", startup_timeout, 0, 3600, low_open=True)
        check_range("--budget", budget, 0, 10_000_000, low_open=True, optional=True)
        check_range("--seed", seed, 0, (1 << 63) - 1, optional=True)
    except UsageError as exc:
        raise _usage_error(str(exc)) from None
    if log_dir is not None and log_dir.exists() and not log_dir.is_dir():
        raise _usage_error(f"--log-dir {log_dir} is a file, not a folder")
    if lifetime not in ("match", "tournament"):
        raise _usage_error(f"--lifetime is 'match' or 'tournament', not {lifetime!r}")
    if lifetime == "tournament" and len(params_list) > 1 and not plugin.reusable_processes:
        raise _usage_error(f"{game_id}'s protocol has no match boundaries: --lifetime tournament needs one match")
    try:
        specs = []
        for text in commands:
            name, command = entrant(text)
            specs.append(BotSpec.parse(command, name=name))
    except BadBotCommand as exc:
        raise _usage_error(str(exc)) from None
    if seed is None:
        seed = secrets.randbits(32)
    # One match plays the run's seed itself; a series derives one per match.
    matches = (
        [(params_list[0], seed)]
        if len(params_list) == 1
        else [(p, derive_seed(seed, game_id, "match", i)) for i, p in enumerate(params_list)]
    )

    level, limits = sandbox
    try:
        # ARENA_SANDBOX sets the default level for a whole environment (a CI job, a test suite).
        host = open_host(level, SandboxPolicy(**limits))
    except UsageError as exc:
        raise _usage_error(str(exc)) from None

    own_log_dir = log_dir is None
    if log_dir is None:
        log_dir = Path(tempfile.mkdtemp(prefix=f"arena-{game_id}-{seed}-"))
    names = [s.name for s in specs]
    typer.echo(f"Started {game_id} seed {seed}: {' vs '.join(map(inert, names))}", err=True)
    typer.echo(f"Sandbox: {host.describe()}", err=True)
    started = time.perf_counter()
    progress = _Progress(enabled=not trace, label=f"{game_id} seed {seed}")
    settings = MatchSettings(
        timeout=timeout,
        startup_timeout=startup_timeout,
        budget=budget,
        log_dir=log_dir,
        trace=_tracer(started, names) if trace else None,
        progress=progress,
        host=host,
    )
    try:
        results = trio.run(partial(run_series, lifetime=lifetime), plugin, specs, matches, settings)
    except KeyboardInterrupt:
        host.close()
        progress.done()
        typer.echo(f"Interrupted {game_id} seed {seed}: every bot was stopped", err=True)
        return 130
    except Exception:
        progress.done()
        traceback.print_exc()
        typer.echo(
            f"arena: internal error while playing {game_id} seed {seed} "
            "(a bug in the arena, not in a bot; the bots were stopped)",
            err=True,
        )
        return EXIT_INTERNAL
    finally:
        host.close()
    progress.done()
    series = summarize_series(plugin, specs, seed, lifetime, len(matches), results)

    # A temporary log folder is kept only when a bot wrote something to stderr.
    kept = str(log_dir)
    if own_log_dir and not any(p.stat().st_size for p in log_dir.iterdir()):
        shutil.rmtree(log_dir, ignore_errors=True)
        kept = None
        for match in series.matches:
            match.log_dir = None
            for fault in match.faults:
                fault.stderr_log = None

    for fault in series.faults:
        typer.echo("FAULT " + fault.describe(), err=True)
    if series.completed:
        verdict = "completed"
    elif series.faults:
        verdict = f"cancelled ({series.faults[0].kind}, seat {series.faults[0].seat})"
    else:
        verdict = "cancelled"
    of_matches = f"{len(series.matches)} of {series.planned} matches, " if series.planned > 1 else ""
    typer.echo(
        f"Finished {game_id} seed {seed}: {verdict} after {of_matches}{series.hands} hands "
        f"in {series.duration:.2f} s" + (f"; bot stderr logs in {kept}" if kept else ""),
        err=True,
    )
    if json_out:
        sys.stdout.write(json.dumps({**series.to_json(), "sandbox": host.summary()}) + "\n")
    else:
        _print_table(series)
    return EXIT_OK if series.completed else EXIT_FAULT


from ._quarantine import register as _register_quarantine  # noqa: E402

_register_quarantine(app)


def main() -> None:
    try:
        app()
    except SystemExit:
        raise
    except Exception:  # an arena bug outside a match
        traceback.print_exc()
        sys.exit(EXIT_INTERNAL)
