"""``arena tournament`` and ``arena show``."""

from __future__ import annotations

import gzip
import json
import secrets
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Optional

import trio
import typer
from games import PluginLoadError, load_game

from ._bot import BadBotCommand, BotSpec
from ._checks import UsageError, check_range, game_params
from ._sandbox import SandboxPolicy, resolve_level
from ._standings import compute_standings
from ._store import file_digest, open_store
from ._text import inert
from ._tournament import Progress, TournamentConfig, run_tournament, schedule

EXIT_OK, EXIT_FAULT, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


def _usage(message: str) -> typer.Exit:
    typer.echo(f"arena: error: {message}", err=True)
    return typer.Exit(EXIT_USAGE)


def _parse_param(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise _usage(f"--param takes KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


_INTERPRETERS = {"python", "python3", "node", "perl", "ruby", "sh", "bash", "java"}


def short_names(specs: list[BotSpec]) -> list[str]:
    """Readable, unique names: the program (or script) file name and its arguments."""
    names = []
    for spec in specs:
        argv = list(spec.argv)
        if Path(argv[0]).name in _INTERPRETERS and len(argv) > 1:
            argv = argv[1:]
        names.append(" ".join(Path(a).name if Path(a).is_file() else a for a in argv))
    seen: dict[str, int] = {}
    unique = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        unique.append(name if names.count(name) == 1 else f"{name} #{seen[name]}")
    return unique


#: Options a resume restores from the database (and refuses to change).
RESTORED = ("rounds", "lifetime", "seed", "timeout", "startup_timeout", "budget", "sandbox", "param",
            "memory_mb", "cpu_seconds", "pids")
SEED_MAX = (1 << 63) - 1  # SQLite's INTEGER


def tournament_cmd(
    game: Annotated[Optional[str], typer.Argument(help="The game (see `arena games`).")] = None,
    bots: Annotated[Optional[list[str]], typer.Argument(metavar="BOT...", help="The entrants.")] = None,
    rounds: Annotated[Optional[int], typer.Option(help="How many full cycles of the schedule [default: 1].")] = None,
    jobs: Annotated[int, typer.Option(help="Matches at once (one pinned worker process each).")] = 1,
    seed: Annotated[Optional[int], typer.Option(help="Tournament seed; every match's seed derives from it.")] = None,
    db: Annotated[Path, typer.Option(help="SQLite file for the results.")] = Path("arena.db"),
    resume: Annotated[Optional[int], typer.Option(help="Continue tournament ID from the database.")] = None,
    accept_changed_bots: Annotated[bool, typer.Option(
        "--accept-changed-bots", help="On --resume: play on although a bot's files changed (recorded).")] = False,
    lifetime: Annotated[Optional[str], typer.Option(
        help="'match' (fresh processes) or 'tournament' (one process per bot) [default: match].")] = None,
    param: Annotated[Optional[list[str]], typer.Option("--param", "-p", help="A game parameter KEY=VALUE (repeatable).")] = None,
    timeout: Annotated[Optional[float], typer.Option(help="Seconds allowed for each reply [default: 1].")] = None,
    startup_timeout: Annotated[Optional[float], typer.Option(
        "--startup-timeout", help="Seconds for each bot's first reply, start-up included [default: 10].")] = None,
    budget: Annotated[Optional[float], typer.Option(help="Total seconds each bot may use in a match.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")] = False,
    sandbox: Annotated[Optional[str], typer.Option(help="none, basic or strict (default: see `arena doctor`).")] = None,
    memory_mb: Annotated[Optional[int], typer.Option("--memory-mb", help="Memory per bot, MB [default: 512].")] = None,
    cpu_seconds: Annotated[Optional[int], typer.Option("--cpu-seconds", help="CPU seconds per bot process [default: 60].")] = None,
    pids: Annotated[Optional[int], typer.Option(help="Processes and threads per bot [default: 64].")] = None,
) -> None:
    """Play every bot against every other, in every seating; store and rank."""
    given = {k: v for k, v in locals().items() if k in RESTORED and v not in (None, [])}
    try:
        check_range("--jobs", jobs, 1, 256)
        if resume is not None:
            config, plugin, store, tid, bot_ids = _resume(resume, db, game, bots, given, accept_changed_bots, jobs)
        else:
            config, plugin, store, tid, bot_ids = _start(game, bots, given, jobs, db)
    except UsageError as exc:
        raise _usage(str(exc)) from None
    try:
        _play_and_report(config, plugin, store, tid, bot_ids, db, json_out)
    finally:
        store.close()


def _start(game, bots, given: dict[str, Any], jobs: int, db: Path):
    """A new tournament: every option checked before the database is touched."""
    if game is None or not bots:
        raise UsageError("give a GAME and its BOTs, or --resume ID")
    try:
        plugin = load_game(game)
    except PluginLoadError as exc:
        raise UsageError(str(exc)) from None
    try:
        specs = [BotSpec.parse(c) for c in bots]
    except BadBotCommand as exc:
        raise UsageError(str(exc)) from None
    specs = [BotSpec.parse(s.command, name=n) for s, n in zip(specs, short_names(specs))]
    params = game_params(plugin, dict(_parse_param(p) for p in given.get("param", [])))
    lifetime = given.get("lifetime", "match")
    if lifetime not in ("match", "tournament"):
        raise UsageError(f"--lifetime is 'match' or 'tournament', not {lifetime!r}")
    if lifetime == "tournament" and not getattr(plugin, "reusable_processes", False):
        raise UsageError(f"{game}'s protocol has no match boundaries: use --lifetime match")
    seats = plugin.spec.max_seats
    if len(specs) < seats:
        raise UsageError(f"a {game} tournament needs at least {seats} bots, got {len(specs)}")
    rounds = given.get("rounds", 1)
    check_range("--rounds", rounds, 1, 1_000_000)
    seed = given.get("seed")
    check_range("--seed", seed, 0, SEED_MAX, optional=True)
    seed = secrets.randbits(32) if seed is None else seed
    settings = _settings(given)
    config = TournamentConfig(
        game=game, params=params.model_dump(mode="json"), bots=specs, seed=seed, rounds=rounds, jobs=jobs,
        lifetime=lifetime, **_config_settings(settings),
    )
    store = open_store(db)
    try:
        bot_ids = [store.bot_id(s.name, s.command, list(s.argv)) for s in specs]
        tid = store.new_tournament(game, plugin.spec.version, config.params, seed, rounds, lifetime, bot_ids,
                                   settings)
        store.lock_tournament(tid)
    except BaseException:
        store.close()
        raise
    return config, plugin, store, tid, bot_ids


def _settings(given: dict[str, Any]) -> dict[str, Any]:
    """The run options a resume restores, checked; the sandbox level decided here, once."""
    timeout = given.get("timeout", 1.0)
    check_range("--timeout", timeout, 0, 3600, low_open=True)
    startup = given.get("startup_timeout", 10.0)
    check_range("--startup-timeout", startup, 0, 3600, low_open=True)
    budget = given.get("budget")
    check_range("--budget", budget, 0, 10_000_000, low_open=True, optional=True)
    limits = {k: given[k] for k in ("memory_mb", "cpu_seconds", "pids") if k in given}
    policy = SandboxPolicy(**limits)
    # Every worker applies this level: the one recorded is the one applied.
    level = resolve_level(given.get("sandbox"))
    return {"timeout": timeout, "startup_timeout": startup, "budget": budget, "sandbox": level,
            "policy": policy.to_json()}


def _config_settings(settings: dict[str, Any]) -> dict[str, Any]:
    return {
        "timeout": settings.get("timeout", 1.0), "startup_timeout": settings.get("startup_timeout", 10.0),
        "budget": settings.get("budget"), "sandbox": settings.get("sandbox"),
        "policy": SandboxPolicy.from_json(settings.get("policy")),
    }


def _resume(tid: int, db: Path, game, bots, given: dict[str, Any], accept_changed: bool, jobs: int):
    """Tournament ``tid`` as it was started: every option from the database."""
    changed = sorted(given)
    if changed:
        raise UsageError(
            f"--resume restores every option of tournament {tid} from {db}; do not give "
            + ", ".join("--" + k.replace("_", "-") for k in changed)
        )
    store = open_store(db, create=False)
    try:
        saved = store.tournament(tid)
        if saved is None:
            raise UsageError(f"no tournament {tid} in {db}")
        if game is not None and game != saved["game"]:
            raise UsageError(f"tournament {tid} is {saved['game']}, not {game}")
        records = [store.bot(b) for b in saved["bots"]]
        if bots and list(bots) != [r["command"] for r in records]:
            raise UsageError(f"tournament {tid} was started with other bots: {[r['command'] for r in records]}")
        specs = [BotSpec.parse(r["command"], name=r["name"]) for r in records]
        for record, spec in zip(records, specs):
            now = file_digest(list(spec.argv))
            if now != record["sha256"]:
                what = (f"bot {record['name']!r} changed since tournament {tid} started "
                        f"(SHA-256 of its files was {record['sha256'][:12]}, now {now[:12]})")
                if not accept_changed:
                    raise UsageError(what + "; pass --accept-changed-bots to play on with it anyway")
                store.add_event(tid, "accepted: " + what)
        plugin = load_game(saved["game"])
        settings = saved["settings"]
        # The level recorded must still work here; it is never silently replaced.
        resolve_level(settings.get("sandbox"))
        config = TournamentConfig(
            game=saved["game"], params=saved["params"], bots=specs, seed=saved["seed"], rounds=saved["rounds"],
            jobs=jobs, lifetime=saved["lifetime"], **_config_settings(settings),
        )
        store.lock_tournament(tid)
    except BaseException:
        store.close()
        raise
    return config, plugin, store, tid, saved["bots"]


def _play_and_report(config, plugin, store, tid: int, bot_ids: list[int], db: Path, json_out: bool) -> None:
    specs = config.bots
    total = len(schedule(len(specs), plugin.spec.max_seats, config.rounds, config.seed))
    per_round = total // config.rounds
    typer.echo(
        f"Started tournament {tid} ({config.game}, seed {config.seed}, {len(specs)} bots, "
        f"{total} matches, jobs {config.jobs}, sandbox {config.sandbox}, db {db})",
        err=True,
    )
    progress = _progress(total, per_round)
    try:
        trio.run(run_tournament, plugin, config, store, tid, bot_ids, progress)
    except KeyboardInterrupt:
        progress_done()
        typer.echo(f"Interrupted tournament {tid}: continue with --resume {tid} --db {db}", err=True)
        raise typer.Exit(130) from None
    progress_done()
    matches = store.matches(tid)
    names = [s.name for s in specs]
    index = {b: i for i, b in enumerate(bot_ids)}
    for m in matches:
        m["seats"] = [index[b] for b in m["seats"]]
    table = compute_standings(names, matches)
    faults = sum(len(m["faults"]) for m in matches)
    typer.echo(
        f"Finished tournament {tid}: {len(matches)} of {total} matches, {faults} with a fault", err=True
    )
    if json_out:
        out = {
            "tournament": tid, "game": config.game, "seed": config.seed, "rounds": config.rounds,
            "completed": len(matches) == total, "matches": len(matches), "db": str(db),
            "sandbox": config.sandbox, "events": store.events(tid),
            **table,
        }
        sys.stdout.write(json.dumps(out) + "\n")
    else:
        _print_standings(config.game, tid, table)


_live = {"on": False}


def progress_done() -> None:
    if _live["on"]:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()


def _progress(total: int, per_round: int) -> Progress:
    tty = sys.stderr.isatty()
    _live["on"] = tty
    progress = Progress(total=total)

    def number(p) -> str:
        return f"{p.round * per_round + p.idx + 1}/{total}"

    def on_start(p, names: list[str]) -> None:
        if not tty:
            sys.stderr.write(f"Started match {number(p)} ({' vs '.join(map(inert, names))})\n")
            sys.stderr.flush()

    def on_finish(p, names: list[str], result: dict[str, Any]) -> None:
        if result["faults"]:
            f = result["faults"][0]
            outcome = f"cancelled {{seat {f['seat']} {inert(f['bot'])}: {f['kind']}}}"
        else:
            outcome = " - ".join(f"{s['score']:g}" for s in result["seats"])
        if tty:
            elapsed = time.perf_counter() - progress.started_at
            rate = progress.done / elapsed if elapsed > 0 else 0
            eta = (total - progress.done) / rate if rate > 0 else 0
            sys.stderr.write(
                f"\rmatches {progress.done}/{total}  ETA {eta:,.0f} s  faults {progress.faults}\x1b[K"
            )
        else:
            sys.stderr.write(f"Finished match {number(p)} ({' vs '.join(map(inert, names))}): {outcome}\n")
        sys.stderr.flush()

    progress.on_start = on_start
    progress.on_finish = on_finish
    return progress


def _print_standings(game: str, tid: int, table: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(width=None if sys.stdout.isatty() else 1000)
    t = Table(title=f"tournament {tid} · {game}")
    for col in ("rank", "bot", "score", "mean", "95% CI", "matches", "rating (μ ± σ)", "faults"):
        t.add_column(col, justify="left" if col in ("bot", "faults") else "right")
    for rank, row in enumerate(table["standings"], 1):
        faults = ", ".join(f"{k} {v}" for k, v in row["faults"].items())
        t.add_row(
            str(rank), Text(inert(row["bot"])), f"{row['score']:.3f}", f"{row['mean']:.3f}",
            f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]", str(row["matches"]),
            f"{row['rating_mu']:.1f} ± {row['rating_sigma']:.1f}", faults,
        )
    console.print(t)
    names = [row["bot"] for row in table["standings"]]
    cross = Table(title="cross-table: mean score of the row bot in matches with the column bot")
    cross.add_column("")
    for n in names:
        cross.add_column(Text(inert(n)), justify="right")
    for a in names:
        cross.add_row(Text(inert(a)), *(("-" if a == b else f"{table['cross_table'][a].get(b, 0.0):.3f}") for b in names))
    console.print(cross)


def show_cmd(
    match_id: Annotated[int, typer.Argument(help="A match id from the database.")],
    db: Annotated[Path, typer.Option(help="SQLite file with the results.")] = Path("arena.db"),
) -> None:
    """Print one stored match: its result, faults and full message log (--trace format)."""
    try:
        store = open_store(db, create=False)
    except UsageError as exc:
        raise _usage(str(exc)) from None
    try:
        m = store.match(match_id)
        if m is None:
            raise _usage(f"no match {match_id} in {db}")
        t = store.tournament(m["tournament"])
        names = [store.bot(b)["name"] for b in m["seats"]]
        typer.echo(
            f"match {match_id}: tournament {m['tournament']} ({t['game']}), round {m['round']}, "
            f"index {m['idx']}, seed {m['seed']}, {'completed' if m['completed'] else 'cancelled'}, "
            f"{m['hands']} hands"
        )
        for seat, name in enumerate(names):
            typer.echo(f"  seat {seat}: {inert(name)}  score {m['scores'][seat]:g}  payoff {m['payoffs'][seat]:g}")
        for f in m["faults"]:
            typer.echo(f"  FAULT seat {f['seat']}: {f['kind']}: {inert(f['detail'])}")
        if m["transcript"] and Path(m["transcript"]).exists():
            with gzip.open(m["transcript"], "rt", encoding="utf-8") as log:
                for line in log:
                    sys.stdout.write(inert(line.rstrip("\n")) + "\n")
        else:
            typer.echo("  (no transcript stored)")
    finally:
        store.close()


def register(app: typer.Typer) -> None:
    app.command("tournament")(tournament_cmd)
    app.command("show")(show_cmd)
