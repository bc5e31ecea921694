"""``arena tournament`` and ``arena show``."""

from __future__ import annotations

import gzip
import json
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Optional

import trio
import typer
from pydantic import ValidationError

from games import PluginLoadError, load_game

from ._bot import BadBotCommand, BotSpec
from ._checks import UsageError
from ._sandbox import resolve_level
from ._standings import compute_standings
from ._store import open_store
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


def tournament_cmd(
    game: Annotated[Optional[str], typer.Argument(help="The game (see `arena games`).")] = None,
    bots: Annotated[Optional[list[str]], typer.Argument(metavar="BOT...", help="The entrants.")] = None,
    rounds: Annotated[int, typer.Option(help="How many full cycles of the schedule.")] = 1,
    jobs: Annotated[int, typer.Option(help="Matches at once (one pinned worker process each).")] = 1,
    seed: Annotated[Optional[int], typer.Option(help="Tournament seed; every match's seed derives from it.")] = None,
    db: Annotated[Path, typer.Option(help="SQLite file for the results.")] = Path("arena.db"),
    resume: Annotated[Optional[int], typer.Option(help="Continue tournament ID from the database.")] = None,
    lifetime: Annotated[str, typer.Option(help="'match' (fresh processes) or 'tournament' (one process per bot).")] = "match",
    param: Annotated[Optional[list[str]], typer.Option("--param", "-p", help="A game parameter KEY=VALUE (repeatable).")] = None,
    timeout: Annotated[float, typer.Option(help="Seconds allowed for each reply.")] = 1.0,
    budget: Annotated[Optional[float], typer.Option(help="Total seconds each bot may use in a match.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")] = False,
    sandbox: Annotated[Optional[str], typer.Option(help="none, basic or strict (default: see `arena doctor`).")] = None,
) -> None:
    """Play every bot against every other, in every seating; store and rank."""
    try:
        # The level is decided once, here, and every worker applies that one.
        sandbox = resolve_level(sandbox)
    except UsageError as exc:
        raise _usage(str(exc)) from None
    store = open_store(db)
    try:
        if resume is not None:
            saved = store.tournament(resume)
            if saved is None:
                raise _usage(f"no tournament {resume} in {db}")
            if game is not None and game != saved["game"]:
                raise _usage(f"tournament {resume} is {saved['game']}, not {game}")
            records = [store.bot(b) for b in saved["bots"]]
            specs = [BotSpec.parse(r["command"], name=r["name"]) for r in records]
            if bots and list(bots) != [r["command"] for r in records]:
                raise _usage(f"tournament {resume} was started with other bots: {[r['command'] for r in records]}")
            config = TournamentConfig(
                game=saved["game"], params=saved["params"], bots=specs, seed=saved["seed"],
                rounds=saved["rounds"], jobs=jobs, lifetime=saved["lifetime"], timeout=timeout, budget=budget,
                sandbox=sandbox,
            )
            tid, bot_ids = resume, saved["bots"]
            plugin = load_game(config.game)
        else:
            if game is None or not bots:
                raise _usage("give a GAME and its BOTs, or --resume ID")
            try:
                plugin = load_game(game)
            except PluginLoadError as exc:
                raise _usage(str(exc)) from None
            try:
                specs = [BotSpec.parse(c) for c in bots]
            except BadBotCommand as exc:
                raise _usage(str(exc)) from None
            specs = [BotSpec.parse(s.command, name=n) for s, n in zip(specs, short_names(specs))]
            raw = dict(_parse_param(p) for p in param or [])
            try:
                params = plugin.Params(**raw)
            except ValidationError as exc:
                raise _usage(f"bad {game} parameters: {exc.errors()[0]['msg']}") from None
            if lifetime not in ("match", "tournament"):
                raise _usage(f"--lifetime is 'match' or 'tournament', not {lifetime!r}")
            if lifetime == "tournament" and not getattr(plugin, "reusable_processes", False):
                raise _usage(f"{game}'s protocol has no match boundaries: use --lifetime match")
            seats = plugin.spec.max_seats
            if len(specs) < seats:
                raise _usage(f"a {game} tournament needs at least {seats} bots, got {len(specs)}")
            if rounds < 1 or jobs < 1:
                raise _usage("--rounds and --jobs must be at least 1")
            seed = secrets.randbits(32) if seed is None else seed
            config = TournamentConfig(
                game=game, params=params.model_dump(mode="json"), bots=specs, seed=seed, rounds=rounds,
                jobs=jobs, lifetime=lifetime, timeout=timeout, budget=budget, sandbox=sandbox,
            )
            bot_ids = [store.bot_id(s.name, s.command, list(s.argv)) for s in specs]
            tid = store.new_tournament(
                game, plugin.spec.version, config.params, seed, rounds, lifetime, bot_ids
            )
        total = len(schedule(len(specs), plugin.spec.max_seats, config.rounds, config.seed))
        per_round = total // config.rounds
        typer.echo(
            f"Started tournament {tid} ({config.game}, seed {config.seed}, {len(specs)} bots, "
            f"{total} matches, jobs {config.jobs}, db {db})",
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
                **table,
            }
            sys.stdout.write(json.dumps(out) + "\n")
        else:
            _print_standings(config.game, tid, table)
    finally:
        store.close()


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
            sys.stderr.write(f"Started match {number(p)} ({' vs '.join(names)})\n")
            sys.stderr.flush()

    def on_finish(p, names: list[str], result: dict[str, Any]) -> None:
        if result["faults"]:
            f = result["faults"][0]
            outcome = f"cancelled {{seat {f['seat']} {f['bot']}: {f['kind']}}}"
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
            sys.stderr.write(f"Finished match {number(p)} ({' vs '.join(names)}): {outcome}\n")
        sys.stderr.flush()

    progress.on_start = on_start
    progress.on_finish = on_finish
    return progress


def _print_standings(game: str, tid: int, table: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=None if sys.stdout.isatty() else 1000)
    t = Table(title=f"tournament {tid} · {game}")
    for col in ("rank", "bot", "score", "mean", "95% CI", "matches", "rating (μ ± σ)", "faults"):
        t.add_column(col, justify="left" if col in ("bot", "faults") else "right")
    for rank, row in enumerate(table["standings"], 1):
        faults = ", ".join(f"{k} {v}" for k, v in row["faults"].items())
        t.add_row(
            str(rank), row["bot"], f"{row['score']:.3f}", f"{row['mean']:.3f}",
            f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]", str(row["matches"]),
            f"{row['rating_mu']:.1f} ± {row['rating_sigma']:.1f}", faults,
        )
    console.print(t)
    names = [row["bot"] for row in table["standings"]]
    cross = Table(title="cross-table: mean score of the row bot in matches with the column bot")
    cross.add_column("")
    for n in names:
        cross.add_column(n, justify="right")
    for a in names:
        cross.add_row(a, *(("-" if a == b else f"{table['cross_table'][a].get(b, 0.0):.3f}") for b in names))
    console.print(cross)


def show_cmd(
    match_id: Annotated[int, typer.Argument(help="A match id from the database.")],
    db: Annotated[Path, typer.Option(help="SQLite file with the results.")] = Path("arena.db"),
) -> None:
    """Print one stored match: its result, faults and full message log (--trace format)."""
    if not db.exists():
        raise _usage(f"no database at {db}")
    store = open_store(db)
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
            typer.echo(f"  seat {seat}: {name}  score {m['scores'][seat]:g}  payoff {m['payoffs'][seat]:g}")
        for f in m["faults"]:
            typer.echo(f"  FAULT seat {f['seat']}: {f['kind']}: {f['detail']}")
        if m["transcript"] and Path(m["transcript"]).exists():
            with gzip.open(m["transcript"], "rt", encoding="utf-8") as log:
                for line in log:
                    sys.stdout.write(line)
        else:
            typer.echo("  (no transcript stored)")
    finally:
        store.close()


def register(app: typer.Typer) -> None:
    app.command("tournament")(tournament_cmd)
    app.command("show")(show_cmd)
