"""The ``arena`` command line.

Human output (progress, the seed, fault reports) goes to stderr; the result
table or, with ``--json``, one JSON object goes to stdout.
Exit codes: 0 the match completed, 1 a bot broke the protocol (the match was
cancelled), 2 bad usage (nothing was started), 3 an internal error, 130 Ctrl-C.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import replace
from functools import cache, partial
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any, Optional

import trio
import typer
import typer.main

from ._game import field_range
from ._results import output_width, say
from .._games import DISTRIBUTION, PluginLoadError, available_games, load_game

from ..play._match import MatchSettings, SeriesResult, run_series, summarize_series
from .._checks import UsageError, check_range, parse_param
from .._plan import PlayPlan, check_agents_level, entrant, plan_play
from .._scoring import LuckTally
from .._seeds import derive_seed, public_seed
from .._spec import BotSpec
from ..play._host import BotHost, open_host
from ..sandbox import SandboxPolicy
from .._text import inert

if TYPE_CHECKING:
    from typer._click import Command  # what typer makes of a Typer app: its own copy of click's

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
            number = version(DISTRIBUTION)
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
    list_: Annotated[bool, typer.Option(
        "--list", help="With GAME: every variant its parameters can name, "
        "its seats, and why the arena refuses it if it does.")] = False,
) -> None:
    """List the installed games: id, version, seats and what each is."""
    if list_:
        if game is None:
            raise _usage_error("--list lists the variants of one game: arena games GAME --list")
        _list_variants(game)
        return
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
    for game_id, version, seats, description in rows:  # a description wraps under its column
        say(f"{game_id:<{width}}  {version:<7}  {seats:<5}  {description}", err=False, indent=" " * (width + 18))


def _seats(spec) -> str:
    return str(spec.min_seats) if spec.min_seats == spec.max_seats else f"{spec.min_seats}-{spec.max_seats}"


def _list_variants(game_id: str) -> None:
    try:
        plugin = load_game(game_id)
    except PluginLoadError as exc:
        raise _usage_error(str(exc)) from None
    try:
        rows = plugin.catalogue()
    except ValueError as exc:  # the game cannot list them here (a library it needs is missing)
        raise _usage_error(f"{game_id}: {exc}") from None
    if rows is None:
        raise _usage_error(f"{game_id} has no variants to list: its parameters are in `arena games {game_id}`")
    width = max([len(r[0]) for r in rows] + [4])
    typer.echo(f"{'NAME':<{width}}  SEATS   PLAYABLE")
    for name, seats, refusal, note in rows:
        verdict = ("yes" + (f", {note}" if note else "")) if refusal is None else "no: " + refusal
        say(f"{name:<{width}}  {seats:<6}  {verdict}", err=False, indent=" " * (width + 10))
    playable = sum(r[2] is None for r in rows)
    typer.echo(f"{playable} of {len(rows)} can be played here", err=True)


def _describe_game(game_id: str) -> None:
    try:
        plugin = load_game(game_id)
    except PluginLoadError as exc:
        raise _usage_error(str(exc)) from None
    spec = plugin.spec
    say(f"{spec.id} version {spec.version}: {spec.description}", err=False)
    typer.echo(f"seats: {_seats(spec)}")
    say(f"tournament: lifetime {plugin.default_lifetime}, max faults {plugin.default_max_faults or 'never'}"
        + (f"; a round is {plugin.round_note}" if plugin.round_note else ""), err=False)
    typer.echo("parameters (-p KEY=VALUE):")
    for name, field in plugin.Params.model_fields.items():
        default = field.default
        shown = json.dumps(list(default) if isinstance(default, tuple) else default)
        bounds = field_range(field)
        about = f"  {field.description}" if field.description else ""
        line = f"  {name:<18} default {shown:<12}{'  range ' + bounds if bounds else ''}{about}"
        say(line.rstrip(), err=False, indent="      ")


def _check(option: str, value: float | None, low: float, high: float) -> None:
    try:
        check_range(option, value, low, high)
    except UsageError as exc:
        raise _usage_error(str(exc)) from None


class _Progress:
    """A live line on stderr, only when stderr is a terminal: hands played, their
    rate and each seat's payoff so far. It also keeps the latest figures, which
    an interrupted match reports (on a terminal or not)."""

    def __init__(self, enabled: bool, label: str, names: list[str], payoff: str = "payoff",
                 hands_word: str = "hands") -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.label, self.names, self.payoff, self.hands_word = label, names, payoff, hands_word
        self.started = time.perf_counter()
        self._last = 0.0
        self.hands = 0
        self.payoffs: list = []

    def __call__(self, hands: int, payoffs: list | None = None) -> None:
        self.hands = hands
        if payoffs is not None:
            self.payoffs = list(payoffs)
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last < 0.1:
            return
        self._last = now
        rate = hands / max(now - self.started, 1e-9)
        line = f"{self.label}: {hands:,} {self.hands_word} ({rate:,.0f} {self.hands_word}/s)"
        if self.payoffs:
            line += f"; {self.payoff}: {self.so_far()}"
        width = shutil.get_terminal_size((80, 24)).columns - 1
        if len(line) > width:  # one terminal line, or \r cannot rewrite it
            line = line[: width - 1] + "…"
        sys.stderr.write(f"\r{line}\x1b[K")
        sys.stderr.flush()

    def so_far(self) -> str:
        return ", ".join(f"{inert(n)} {p:+g}" for n, p in zip(self.names, self.payoffs))

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


def _print_table(result: SeriesResult, units: dict[str, str]) -> None:
    """The result table in the game's words (docs/vocabulary.md), fitting the terminal."""
    from rich.console import Console

    from ._results import fit_table

    # (with --duplicate a fault's seat is its match's: the table's rows are bots)
    fault_by_seat = {result.bot_of(k, f.seat): f for k, m in enumerate(result.matches) for f in m.faults}
    status = "completed" if result.completed else "PLAYED ON WITHOUT A FAULTING SEAT" if result.played_on else "CANCELLED"
    matches = f"{len(result.matches)} matches · " if result.planned > 1 else ""
    if result.duplicate:
        matches = f"duplicate: {len(result.matches)} matches, every seating on the same cards · "
    payoff, score = units["payoff"], units["score"]
    same = payoff == score and all(float(s.payoff) == s.score for s in result.seats)
    rated = [result.rates(s.seat) for s in result.seats]
    poker = all(r is not None for r in rated)
    columns = ([("bot no." if result.duplicate else "seat", "r"), ("bot", "l"), (payoff, "r")] + ([("mbb/g", "r"), ("bb/100", "r")] if poker else [])
               + ([] if same else [(score, "r")]) + [("fault", "l")])
    rows = []
    for seat, rates in zip(result.seats, rated):
        fault = fault_by_seat.get(seat.seat)
        rows.append([str(seat.seat), inert(seat.bot), f"{seat.payoff:g}"]
                    + ([f"{rates['mbb_per_game']:+.0f}", f"{rates['bb_per_100']:+.2f}"] if rates else [])
                    + ([] if same else [f"{seat.score:.3f}"]) + [str(fault.kind) if fault else ""])
    title = f"{result.game} · seed {result.seed} · {matches}{result.hands:,} {units['hands']} · {status}"
    # Off a terminal nothing is cut: the bot names must stay greppable.
    Console(width=output_width()).print(fit_table(title, columns, rows, names=("bot",), drop=("bb/100",)))
    if result.luck is not None:
        _print_luck(result)


#: the estimates' names in a table (protocols/luck.py)
LUCK_WORDS = {"plain": "plain", "allin": "all-in adjusted", "aivat": "AIVAT (chance terms)"}


def _print_luck(result: SeriesResult) -> None:
    """Each bot's winnings per hand with the luck taken out, each with its 95% interval."""
    from rich.console import Console

    from ._results import fit_table

    reports = result.luck or []
    failed = next((r["failed"] for r in reports if "failed" in r), None)
    if failed:
        typer.echo(f"luck: {failed}")
        return
    kinds = [k for k in LUCK_WORDS if any(k in r for r in reports)]
    unit = reports[0]["unit"] if reports else "per hand"
    rows = [[inert(seat.bot), *(f"{r[k]['mean']:+.0f} ±{(r[k]['ci_high'] - r[k]['ci_low']) / 2:.0f}"
                                if unit == "mbb/g" else f"{r[k]['mean']:+.3f} ±{(r[k]['ci_high'] - r[k]['ci_low']) / 2:.3f}"
                                for k in kinds)]
            for seat, r in zip(result.seats, reports)]
    title = (f"{unit} with the luck of the cards taken out, 95% intervals over "
             f"{reports[0]['plain']['hands'] if reports and 'plain' in reports[0] else 0:,} hands (docs/variance.md)")
    Console(width=output_width()).print(fit_table(title, [("bot", "l"), *((LUCK_WORDS[k], "r") for k in kinds)], rows,
                                                  names=("bot",)))


# Options every game command shares (the same words as the first game's).
SeedOpt = Annotated[Optional[str], typer.Option(help="Seed for every chance event: a number or a word, keyed with a secret drawn "
                                                   "for this run; the whole key (SEED:SECRET) is printed when the run ends "
                                                   "and replays it card for card.")]
TimeoutOpt = Annotated[float, typer.Option(help="Seconds allowed for each reply.")]
BudgetOpt = Annotated[Optional[float], typer.Option(help="Total seconds each bot may use in a match.")]
StartupOpt = Annotated[float, typer.Option(
    "--startup-timeout", help="Seconds for each bot's first reply, start-up included (a JVM or a big model may need more).")]
LogDirOpt = Annotated[Optional[Path], typer.Option("--log-dir", help="Where each bot's stderr log is written.")]
TraceOpt = Annotated[bool, typer.Option("--trace", help="Print every line sent and received, with seat and time.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the table.")]
SandboxOpt = Annotated[
    Optional[str],
    typer.Option(help="none, basic, strict or gvisor (default: strict, else basic, when it works here; "
                      "see `arena doctor`)."),
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


@app.command("play")
def play_cmd(
    game: Annotated[str, typer.Argument(help="The game, as `arena games` lists it.")],
    bots: Annotated[list[str], typer.Argument(
        metavar="[NAME=]BOT...", help="The bots in seat order: a command, or NAME=COMMAND to name it.")],
    param: Annotated[Optional[list[str]], typer.Option("--param", "-p", help="A game parameter KEY=VALUE (repeatable).")] = None,
    matches: Annotated[int, typer.Option(help="How many matches the bots play, one after another.")] = 1,
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
    hand_history: Annotated[Optional[Path], typer.Option(
        "--hand-history", metavar="FILE",
        help="Write every hand as PHH (a .phhs file PokerKit reads).")] = None,
    acpc_log: Annotated[Optional[Path], typer.Option(
        "--acpc-log", metavar="FILE",
        help="Write the match as the ACPC dealer's log: its header, a STATE line a hand, its SCORE.")] = None,
    acpc_lenient: Annotated[bool, typer.Option(
        "--acpc-lenient",
        help="Read ACPC agents' lines as the ACPC dealer does, its tolerances included: comment lines and "
             "lines it cannot take as a response are skipped, an unreadable action is a call, a raise out of "
             "bounds is brought to the nearest bound (without: each is the agent's fault).")] = False,
    duplicate: Annotated[bool, typer.Option(
        "--duplicate",
        help="Play every match once in each seating on the same cards (the same seed): each bot plays every "
             "seat's cards, so luck cancels out; the results are per bot.")] = False,
    aivat: Annotated[bool, typer.Option(
        "--aivat",
        help="Also estimate each bot's winnings with the luck of the cards taken out (AIVAT's chance terms; "
             "in hold'em also the all-in adjustment), each with its 95% interval beside the plain one "
             "(the poker games that read their hands' luck; docs/variance.md).")] = False,
) -> None:
    """Play any installed game: its parameters as -p KEY=VALUE (see `arena games`)."""
    try:
        raw = dict(parse_param(p) for p in param or [])
    except UsageError as exc:
        raise _usage_error(str(exc)) from None
    raise typer.Exit(play_from_cli(
        game, bots, [raw], keys=True, matches=matches, seed=seed, timeout=timeout,
        startup_timeout=startup_timeout, budget=budget, log_dir=log_dir, trace=trace, json_out=json_out,
        sandbox=sandbox, memory_mb=memory_mb, cpu_seconds=cpu_seconds, pids=pids, lifetime=lifetime,
        hand_history=hand_history, acpc_log=acpc_log, acpc_lenient=acpc_lenient, duplicate=duplicate, aivat=aivat))


def play_from_cli(
    game_id: str, bots: list[str], raws: list[dict], *, keys: bool, matches: int, sandbox: str | None,
    memory_mb: int, cpu_seconds: int, pids: int, **options,
) -> int:
    """``arena play`` and every ``arena <game>``: one match per entry of
    ``raws`` (a parameter given several times), the whole list ``--matches`` times."""
    _check("--matches", matches, 1, 1_000_000)
    return _play(game_id, bots, raws * matches, keys=keys,
                 sandbox=(sandbox, dict(memory_mb=memory_mb, cpu_seconds=cpu_seconds, pids=pids)), **options)


from ._check_game import check_game_cmd  # noqa: E402
from ._game import register_games  # noqa: E402
from ._results import register as _register_results  # noqa: E402
from ._tournament import register as _register_tournament  # noqa: E402

_register_tournament(app)
_register_results(app)


@app.command("doctor")
def doctor_cmd() -> None:
    """Show which sandbox levels work on this machine and what each guarantees."""
    from ..sandbox import doctor_report

    typer.echo(doctor_report(min(100, output_width())))
register_games(app, play_cmd, play_from_cli)
app.command("check-game")(check_game_cmd)


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
    hand_history: Path | None = None,
    acpc_log: Path | None = None,
    acpc_lenient: bool = False,
    duplicate: bool = False,
    aivat: bool = False,
) -> int:
    """Validate everything, play one match (or a series), report; return the exit code.

    A bot may be given as ``NAME=COMMAND`` to name it; ``keys``: the game
    parameters came as ``-p KEY=VALUE`` (their errors say so).
    """
    if trace and any(re.fullmatch(r"human(:.*)?", entrant(c)[1], re.S) for c in commands):
        # The trace is every seat's lines, on the same terminal as the person's seat.
        raise _usage_error("--trace shows every seat's messages, other seats' cards included: "
                           "not with a human seat (--log-dir or --hand-history keep the match for later)")
    try:
        plan = plan_play(game_id, commands, raw_params if isinstance(raw_params, list) else [raw_params],
                         keys=keys, seed=seed, lifetime=lifetime, timeout=timeout,
                         startup_timeout=startup_timeout, budget=budget, log_dir=log_dir, duplicate=duplicate)
    except UsageError as exc:
        raise _usage_error(str(exc)) from None
    _check_outputs(plan, hand_history=hand_history, acpc_log=acpc_log, duplicate=duplicate, aivat=aivat)
    if acpc_lenient:
        if not any(b.loopback for b in plan.bots):
            raise _usage_error("--acpc-lenient reads ACPC agents' lines, and no bot here is one (acpc:CMD)")
        # their relays read them (docs/acpc.md): told so on their command lines
        plan = replace(plan, bots=[replace(b, argv=(b.argv[0], "--lenient", *b.argv[1:])) if b.loopback else b
                                   for b in plan.bots])
    level, limits = sandbox
    try:
        # ARENA_SANDBOX sets the default level for a whole environment (a CI job, a test suite).
        # A later seating of a duplicate deal must find nothing a bot left in its files' page cache.
        host = open_host(level, SandboxPolicy(**limits, private_files=duplicate))
        check_agents_level(plan.bots, host.level)
    except UsageError as exc:
        raise _usage_error(str(exc)) from None
    return _run(plan, host, trace=trace, json_out=json_out, hand_history=hand_history, acpc_log=acpc_log,
                aivat=aivat)


def _readers(plan: PlayPlan, trace: bool, histories_wanted: bool, aivat: bool) -> tuple[Any, Any, _Luck | None]:
    """The trace hook and what reads the lines sent to the seats through it: the hand
    histories (for --hand-history, --acpc-log) and the luck of each hand (--aivat)."""
    names = [s.name for s in plan.bots]
    tracer = _tracer(time.perf_counter(), names) if trace else None
    histories = plan.plugin.hand_histories(names) if histories_wanted else None
    if histories is not None:
        tracer = _also_histories(tracer, histories)
    luck = _Luck.of(plan) if aivat else None
    if luck is not None:
        tracer = luck.tracer(tracer)
    return tracer, histories, luck


def _check_outputs(plan: PlayPlan, *, hand_history: Path | None, acpc_log: Path | None, duplicate: bool,
                   aivat: bool) -> None:
    """What a run is asked to write or estimate, checked against its game and its other options."""
    game_id = plan.plugin.spec.id
    if duplicate and (hand_history is not None or acpc_log is not None):
        raise _usage_error("--duplicate plays each deal in several seatings, and --hand-history and --acpc-log "
                           "write one seating's hands: play the seatings one by one with the same --seed for them")
    if aivat and any(plan.plugin.luck_reader(params, "") is None for params, _ in plan.matches):
        raise _usage_error(f"--aivat takes the luck of the cards out of poker's chips, and {game_id} with these "
                           "parameters gives no such estimate (docs/variance.md says which games do)")
    formats = plan.plugin.hand_formats
    if hand_history is not None and "phh" not in formats:
        raise _usage_error(f"--hand-history writes poker hands as PHH; {game_id} writes none")
    if acpc_log is not None:
        if "acpc" not in formats:
            raise _usage_error(f"--acpc-log writes hands as the ACPC dealer logs them; {game_id} writes none")
        for params, _ in plan.matches:
            why = plan.plugin.acpc_refusal(params.model_dump(mode="json"))
            if why:
                raise _usage_error(f"--acpc-log: {why}")


def _run(plan: PlayPlan, host: BotHost, *, trace: bool, json_out: bool, hand_history: Path | None = None,
         acpc_log: Path | None = None, aivat: bool = False) -> int:
    """Play a checked plan on ``host`` (closed at the end) and report; the exit code."""
    plugin, specs, matches, seed, log_dir = plan.plugin, plan.bots, plan.matches, plan.seed, plan.log_dir
    game_id = plugin.spec.id
    own_log_dir = log_dir is None
    # While the run plays, only the seed shows (a person's seat reads this
    # terminal); the whole key, secret and all, once it has ended.
    shown = public_seed(seed)
    if log_dir is None:
        log_dir = Path(tempfile.mkdtemp(prefix=f"arena-{game_id}-{shown}-"))
    names = [s.name for s in specs]
    _say_started(game_id, shown, specs, host)
    units = plugin.units(matches[0][0] if matches else None)
    # A person's terminal shows only their seat's view: no live line over it.
    progress = _Progress(enabled=not trace and not any(s.person for s in specs), label=f"{game_id} seed {shown}",
                         names=names, payoff=units["payoff"], hands_word=units["hands"])
    tracer, histories, luck = _readers(plan, trace, hand_history is not None or acpc_log is not None, aivat)
    settings = MatchSettings(
        timeout=plan.timeout, startup_timeout=plan.startup_timeout, budget=plan.budget, log_dir=log_dir,
        trace=tracer, progress=progress, host=host,
    )
    try:
        results, seatings = trio.run(_seatings, plan, settings, luck)
    except KeyboardInterrupt:
        host.close()
        progress.done()
        so_far = (f"; so far, after {progress.hands:,} {units['hands']}, {units['payoff']}: "
                  f"{progress.so_far()}") if progress.payoffs else ""
        typer.echo(f"Interrupted {game_id} seed {seed}: every bot was stopped{so_far}", err=True)
        return 130
    except Exception:
        progress.done()
        traceback.print_exc()
        typer.echo(f"arena: internal error while playing {game_id} seed {seed} "
                   "(a bug in the arena, not in a bot; the bots were stopped)", err=True)
        return EXIT_INTERNAL
    finally:
        host.close()
    progress.done()
    _write_histories(histories, hand_history, acpc_log, plan, results)
    blinds = [plugin.big_blind(params) for params, _ in matches] * len(plan.seatings)
    series = summarize_series(plugin, specs, seed, plan.lifetime, len(matches) * len(plan.seatings), results,
                              big_blinds=None if None in blinds else blinds,  # type: ignore[arg-type]
                              seatings=seatings)
    if luck is not None:
        series.luck = luck.reports(len(specs))
    kept = _keep_logs(series, log_dir) if own_log_dir else str(log_dir)
    _report(series, kept, host.summary() if json_out else None, units)
    if series.game_error:
        return EXIT_INTERNAL  # a bug in the game: not the bots' doing
    return EXIT_OK if series.completed else EXIT_FAULT


class _Luck:
    """``--aivat``: the game's luck reader on the lines sent to the seats, its
    hands summed per bot. A reader that fails stops estimating (saying why);
    the match plays on."""

    def __init__(self, reader: Any, tally: LuckTally) -> None:
        self.reader, self.tally = reader, tally
        self.failed: str | None = None

    @classmethod
    def of(cls, plan: PlayPlan) -> _Luck:
        """The plan's game's reader (its sampling keyed from the run's seed), counting in
        mbb/g where every match has the same big blind."""
        plugin, matches = plan.plugin, plan.matches
        one_blind = {plugin.big_blind(params) for params, _ in matches}
        return cls(plugin.luck_reader(matches[0][0], derive_seed(plan.seed, "luck")),
                   LuckTally(len(plan.bots), one_blind.pop() if len(one_blind) == 1 else None))

    def tracer(self, then: Any) -> Any:
        def trace(seat: int, direction: str, text: str) -> None:
            if direction == "->" and self.failed is None:
                try:
                    self.reader.sent(seat, text)
                    for hand in self.reader.take():
                        self.tally.add(hand)
                except Exception as exc:  # a bug of the game's reader must not end the match
                    self.failed = f"{type(exc).__name__}: {exc}"
            if then is not None:
                then(seat, direction, text)

        return trace

    def reports(self, bots: int) -> list[dict[str, Any]]:
        if self.failed is not None:
            return [{"failed": f"the game's luck reader failed ({self.failed}): no estimate"}] * bots
        return [self.tally.report(b) for b in range(bots)]


async def _seatings(plan: PlayPlan, settings: MatchSettings, luck: _Luck | None = None
                    ) -> tuple[list[Any], list[tuple[int, ...]]]:
    """The plan's matches in each of its seatings, one seating after another (a
    seating with a fault ends the run, as a fault ends a series); every result
    with its seating."""
    results: list[Any] = []
    seatings: list[tuple[int, ...]] = []
    for seating in plan.seatings:
        if luck is not None:
            luck.tally.seating = seating
        played = await run_series(plan.plugin, [plan.bots[e] for e in seating], plan.matches, settings,
                                  lifetime=plan.lifetime)
        results += played
        seatings += [seating] * len(played)
        if not all(r.completed for r in played) or len(played) < len(plan.matches):
            break
    return results, seatings


def _say_started(game_id: str, shown: str, specs: list[BotSpec], host: BotHost) -> None:
    typer.echo(f"Started {game_id} seed {shown}: {' vs '.join(inert(s.name) for s in specs)}", err=True)
    people = [str(i) for i, s in enumerate(specs) if s.person]
    typer.echo(f"Sandbox: {host.describe()}" + (f"; seat {', '.join(people)}: a person, outside the sandbox"
                                                 if people else ""), err=True)


def _write_histories(histories: Any, hand_history: Path | None, acpc_log: Path | None, plan: PlayPlan,
                     results: list[Any]) -> None:
    """The hands of the run, in the formats asked for (PHH, the ACPC dealer's log)."""
    if histories is not None and hand_history is not None:
        hand_history.write_text(histories.dumps())
        typer.echo(f"Hand histories: {len(histories.done)} hands in {hand_history}", err=True)
    if histories is not None and acpc_log is not None:
        from protocols.acpc import dealer_log

        seats = len(plan.bots)
        # the dealer's SCORE line ends a match played to its end
        totals = ([sum(r.seats[s].payoff for r in results) for s in range(seats)]
                  if results and all(r.completed for r in results) else None)
        acpc_log.write_text(dealer_log(
            histories.acpc_log(), path=acpc_log, game=plan.plugin.spec.id, seats=seats, hands=len(histories.done),
            seed=plan.seed, timeout=plan.timeout, budget=plan.budget, names=[b.name for b in plan.bots],
            totals=totals, gamedef=getattr(plan.matches[0][0], "gamedef", None) if plan.matches else None))
        typer.echo(f"ACPC log: {len(histories.done)} hands in {acpc_log}", err=True)


def _also_histories(tracer, histories):
    def trace(seat: int, direction: str, text: str) -> None:
        if direction == "->":
            histories.sent(seat, text)
        elif hasattr(histories, "received"):
            histories.received(seat, text)
        if tracer is not None:
            tracer(seat, direction, text)

    return trace


def _keep_logs(series: SeriesResult, log_dir: Path) -> str | None:
    """A temporary log folder is kept only when a bot wrote something to stderr."""
    if any(p.stat().st_size for p in log_dir.iterdir()):
        return str(log_dir)
    shutil.rmtree(log_dir, ignore_errors=True)
    for match in series.matches:
        match.log_dir = None
        for fault in match.faults:
            fault.stderr_log = None
    return None


def _report(series: SeriesResult, kept: str | None, sandbox_json: dict | None, units: dict[str, str]) -> None:
    """Faults and the Finished line on stderr; the table, or JSON when
    ``sandbox_json`` is given, on stdout."""
    for fault in series.faults:
        typer.echo("FAULT " + fault.describe(), err=True)
    if series.game_error:
        typer.echo(f"GAME ERROR {series.game_error}", err=True)
    if series.completed:
        verdict = "completed"
    elif series.game_error:
        verdict = "void: the game failed, no seat is to blame"
    elif series.played_on:
        verdict = "played to the end without " + ", ".join(f"seat {f.seat} ({f.kind})" for f in series.faults)
    elif series.faults:
        verdict = f"cancelled ({series.faults[0].kind}, seat {series.faults[0].seat})"
    else:
        verdict = "cancelled"
    of_matches = f"{len(series.matches)} of {series.planned} matches, " if series.planned > 1 else ""
    typer.echo(
        f"Finished {series.game} seed {series.seed}: {verdict} after {of_matches}{series.hands} hands "
        f"in {series.duration:.2f} s" + (f"; bot stderr logs in {kept}" if kept else ""),
        err=True,
    )
    if sandbox_json is not None:
        sys.stdout.write(json.dumps({**series.to_json(), "units": units, "sandbox": sandbox_json}) + "\n")
    else:
        _print_table(series, units)


from ._quarantine import register as _register_quarantine  # noqa: E402
from ._exploit import register as _register_exploit  # noqa: E402

_register_quarantine(app)
_register_exploit(app)

from ._league import register as _register_league  # noqa: E402
from ._cluster import register as _register_cluster  # noqa: E402

_register_league(app)
_register_cluster(app)


def _term_as_interrupt(signum: int, frame: FrameType | None) -> None:
    # SIGTERM stops a command as Ctrl-C does (bots ended, one line, exit 130):
    # through the Ctrl-C handler in place (trio's while a match runs), or, when
    # SIGINT is ignored (a background job of a script), as Python's would.
    # Commands that watch both signals themselves replace this while they run.
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
    else:
        raise KeyboardInterrupt


@cache
def command() -> Command:
    """The command tree as click runs it, converted from ``app`` once a process.

    typer converts every command's signature on each call of ``app()`` (some
    60 ms, and more for each game's command): a caller that runs the arena
    several times in one process (a test suite, a notebook) pays it once."""
    return typer.main.get_command(app)


def main() -> None:
    signal.signal(signal.SIGTERM, _term_as_interrupt)
    try:
        command()()
    except SystemExit:
        raise
    except Exception:  # an arena bug outside a match
        traceback.print_exc()
        sys.exit(EXIT_INTERNAL)
