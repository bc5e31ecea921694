"""``arena tournament``: start or resume one, with its progress lines."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from collections.abc import Mapping
from typing import Annotated, Any, Optional

import trio
import typer

from .._checks import UsageError, check_range, game_params, parse_param
from ..cluster import ClusterError, check_shippable
from ..cluster._security import certs_folder
from .._plan import entrant_specs, load_plugin
from ..results._report import game_units, standings_format, standings_of
from ._results import cell_width, clip, print_standings, rank_and_wins_disagree, say
from ..results._sprt import Sprt
from ..results._standings import Disqualification
from ..results._store import MatchRecord as StoredMatch
from ..results._store import Store, open_store
from .._text import inert
from ..tournament._run import BROKEN_START, MatchRecord, Outcome, Pairing, Progress, run_tournament
from ..tournament._plan import (RESTORED, check_cluster, create_tournament, default_lifetime, load_tournament,
                                plan_tournament)

EXIT_OK, EXIT_FAULT, EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


def _usage(message: str) -> typer.Exit:
    typer.echo(f"arena: error: {message}", err=True)
    return typer.Exit(EXIT_USAGE)


def _rounds_help() -> str:
    return ("How many rounds; one round is every seating of the entrants, or what the game says "
            "(`arena games GAME`). With --until-ci, the most. (default: 1)")


SprtOpt = Annotated[Optional[str], typer.Option(
    "--sprt", metavar="ELO0,ELO1[,ALPHA,BETA]",
    help="Two entrants of a two-seat game: play rounds until the sequential probability ratio test "
         "accepts that the first is ELO0 or ELO1 Elo stronger, as fastchess does (alpha, beta default 0.05; "
         "--rounds is the cap, default 10000; pentanomial with --duplicate). It counts matches won, drawn and "
         "lost; for poker, --sprt-chips counts chips.")]
DataMbOpt = Annotated[Optional[int], typer.Option(
    "--data-mb", help="Give each entrant a folder of at most MB megabytes at /data in its sandbox, kept "
                      "from one of its matches to the next (needs root and --jobs 1; default: none).")]
KeepDataOpt = Annotated[Optional[Path], typer.Option(
    help="Copy each entrant's data folder to DIR/NAME at the end (default: they are removed).")]
SprtChipsOpt = Annotated[Optional[str], typer.Option(
    "--sprt-chips", metavar="MBB0,MBB1[,ALPHA,BETA]",
    help="Two entrants of a two-seat poker game: play rounds until a sequential probability ratio test on "
         "chips accepts that the first wins MBB0 or MBB1 mbb/g (each match, or each deal with --duplicate, "
         "one observation; alpha, beta default 0.05; --rounds is the cap, default 10000).")]


def tournament_cmd(
    game: Annotated[Optional[str], typer.Argument(help="The game (see `arena games`).")] = None,
    bots: Annotated[Optional[list[str]], typer.Argument(
        metavar="[NAME=]BOT...", help="The entrants: a command, or NAME=COMMAND to name it.")] = None,
    rounds: Annotated[Optional[int], typer.Option(help=_rounds_help())] = None,
    seats: Annotated[Optional[int], typer.Option(
        help="Bots per match, for games played by 2 or more (default: the game's table size for the entrants).")] = None,
    jobs: Annotated[Optional[int], typer.Option(
        help="Matches at once (one pinned worker process each) (default: 1; on --resume, the run's own).")] = None,
    cluster: Annotated[Optional[str], typer.Option(
        metavar="ADDRESS", help="Play the matches on the Dask cluster whose scheduler is at ADDRESS "
        "(tls://HOST:8786; workers: `arena worker`); see docs/cluster.md.")] = None,
    certs: Annotated[Optional[Path], typer.Option(
        help="The cluster's certificates, for a tls:// --cluster (made by `arena cluster init-certs DIR`; "
             "default: $ARENA_CERTS).")] = None,
    seed: Annotated[Optional[str], typer.Option(
        help="Tournament seed, a number or a word, keyed with a secret drawn for this run; every match's "
             "seed derives from both, and the whole key (SEED:SECRET) is shown when the tournament has finished.")] = None,
    db: Annotated[Path, typer.Option(help="SQLite file for the results.")] = Path("arena.db"),
    resume: Annotated[Optional[int], typer.Option(help="Continue tournament ID from the database.")] = None,
    accept_changed_bots: Annotated[bool, typer.Option(
        "--accept-changed-bots", help="On --resume: play on although a bot's files changed (recorded).")] = False,
    lifetime: Annotated[Optional[str], typer.Option(
        help="'match' (fresh processes) or 'tournament' (one process per entrant) (default: the game's).")] = None,
    param: Annotated[Optional[list[str]], typer.Option("--param", "-p", help="A game parameter KEY=VALUE (repeatable).")] = None,
    duplicate: Annotated[Optional[bool], typer.Option(
        "--duplicate", help="Every seating of the same entrants gets the same cards (duplicate deals).")] = None,
    gauntlet: Annotated[Optional[str], typer.Option(
        metavar="NAME", help="Only the seatings with this entrant: one candidate against the rest.")] = None,
    until_ci: Annotated[Optional[float], typer.Option(
        "--until-ci", metavar="W", help="Play rounds until every 95% interval is at most +/-W (--rounds is the cap).")] = None,
    sprt: SprtOpt = None,
    sprt_chips: SprtChipsOpt = None,
    on_fault: Annotated[Optional[str], typer.Option(
        "--on-fault", help="'forfeit' (default): a faulting bot scores the worst it could have had by playing on "
                           "(its game's fault rule); 'score-so-far': it keeps its score so far, which lets a fault "
                           "pay (a losing bot cuts its losses).")] = None,
    max_faults: Annotated[Optional[int], typer.Option(
        "--max-faults", help="Disqualify an entrant at this many faults (0: never) (default: the game's).")] = None,
    broken_start: Annotated[Optional[int], typer.Option(
        "--broken-start", metavar="N",
        help="Disqualify an entrant whose first N matches all fault (0: never) (default: 3).")] = None,
    timeout: Annotated[Optional[float], typer.Option(help="Seconds allowed for each reply (default: 1).")] = None,
    startup_timeout: Annotated[Optional[float], typer.Option(
        "--startup-timeout", help="Seconds for each bot's first reply, start-up included (default: 10).")] = None,
    budget: Annotated[Optional[float], typer.Option(help="Total seconds each bot may use in a match.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")] = False,
    sandbox: Annotated[Optional[str], typer.Option(help="none, basic or strict (default: see `arena doctor`).")] = None,
    memory_mb: Annotated[Optional[int], typer.Option("--memory-mb", help="Memory per bot, MB (default: 512).")] = None,
    cpu_seconds: Annotated[Optional[int], typer.Option("--cpu-seconds", help="CPU seconds per bot process (default: 60).")] = None,
    pids: Annotated[Optional[int], typer.Option(help="Processes and threads per bot (default: 64).")] = None,
    data_mb: DataMbOpt = None,
    keep_data: KeepDataOpt = None,
) -> None:
    """Play every entrant against every other, in every seating; store and rank."""
    given = {k: v for k, v in locals().items() if k in RESTORED and v not in (None, [])}
    raise typer.Exit(_tournament(game, bots, given, jobs=jobs, cluster=cluster, certs=certs, db=db, resume=resume,
                                 accept_changed_bots=accept_changed_bots, json_out=json_out))


def _tournament(game: str | None, bots: list[str] | None, given: dict[str, Any], *, jobs: int | None,
                cluster: str | None, certs: Path | None, db: Path, resume: int | None, accept_changed_bots: bool,
                json_out: bool) -> int:
    """Start or resume, play and report: the exit code."""
    try:
        check_range("--jobs", jobs, 1, 256, optional=True)
        certs = certs_folder(certs) if cluster else None
        check_cluster(cluster, given.get("lifetime", "match"), reach=True, certs=certs)  # before the database is touched
        if resume is None and cluster is not None and game is not None and "lifetime" not in given:
            check_cluster(cluster, default_lifetime(load_plugin(game), entrant_specs(bots or []),
                                                    duplicate=bool(given.get("duplicate"))), certs=certs)
        if resume is not None:
            config, plugin, store, tid = _resume(resume, db, game, bots, given, accept_changed_bots, jobs)
        else:
            config, plugin, store, tid = _start(game, bots, given, jobs or 1, db, cluster)
    except UsageError as exc:
        raise _usage(str(exc)) from None
    try:
        config.cluster = check_cluster(cluster, config.lifetime, certs=certs)  # a resumed tournament's own
        config.cluster_certs = certs
        if resume is not None and cluster is not None:
            for spec in config.bots:
                check_shippable(spec)
    except UsageError as exc:
        store.close()
        raise _usage(str(exc)) from None
    try:
        return _play_and_report(config, plugin, store, tid, db, json_out, resumed=resume is not None)
    finally:
        store.close()


def _start(game, bots, given: dict[str, Any], jobs: int, db: Path, cluster: str | None):
    """A new tournament: every option checked before the database is touched."""
    if game is None or not bots:
        raise UsageError("give a GAME and its entrants, or --resume ID")
    # The game's parameters are checked before the bots (the first error is the one named).
    options = dict(given)
    plugin = load_plugin(game)
    options["params"] = dict(parse_param(p) for p in options.pop("param", []))
    game_params(plugin, options["params"], keys=True)
    config = plan_tournament(game, entrant_specs(bots), jobs=jobs, cluster=cluster, **options)
    store = open_store(db)
    try:
        tid = create_tournament(store, config)
    except BaseException:
        store.close()
        raise
    return config, plugin, store, tid


def _resume(tid: int, db: Path, game, bots, given: dict[str, Any], accept_changed: bool, jobs: int | None):
    """Tournament ``tid`` as it was started: every option from the database (``jobs`` too, unless given)."""
    changed = sorted(given)
    if changed:
        raise UsageError(
            f"--resume restores every option of tournament {tid} from {db}; do not give "
            + ", ".join("--" + k.replace("_", "-") for k in changed)
        )
    store = open_store(db, create=False)
    try:
        config, plugin = load_tournament(store, tid, jobs, game=game, bots=bots, accept_changed=accept_changed)
    except BaseException:
        store.close()
        raise
    return config, plugin, store, tid


def _play_and_report(config: Any, plugin: Any, store: Store, tid: int, db: Path, json_out: bool, *,
                     resumed: bool = False) -> int:
    specs = config.bots
    config.seat_for(plugin)
    per_round = len(config.pairings(rounds=1))
    total = per_round * config.rounds
    already = len(store.done_positions(tid)) if resumed else 0
    extras = _options_said(config)
    where = f"cluster {config.cluster}" if config.cluster else f"jobs {config.jobs}"
    say(f"{'Resumed' if resumed else 'Started'} tournament {tid} ({config.game}, {len(specs)} entrants, "
        f"{total} matches{' at most' if config.until_ci or config.sprt else ''}"
        f"{f', {already} played before' if resumed else ''}, {where}, sandbox {config.sandbox}, "
        f"db {db}{''.join(', ' + w for w in extras)})")
    progress = _progress(total, per_round, already)
    try:
        outcome, signum = trio.run(_run_until_signal, plugin, config, store, tid, progress)
    except (UsageError, ClusterError) as exc:
        _progress_done(progress)
        say(f"arena: error: {exc}")
        say(f"Stopped tournament {tid} after {progress.done} of {total} matches; resume with:",
            command=f"arena tournament --resume {tid} --db {db}")
        return EXIT_USAGE if isinstance(exc, UsageError) else EXIT_INTERNAL
    _progress_done(progress)
    if outcome is None:
        name = signal.Signals(signum).name if signum else "interrupted"
        say(f"Interrupted tournament {tid} ({name}) after {progress.done} of {total} matches; resume with:",
            command=f"arena tournament --resume {tid} --db {db}")
        return EXIT_INTERRUPTED
    return _report(config, store, tid, db, json_out, outcome, per_round)


def _report(config: Any, store: Store, tid: int, db: Path, json_out: bool, outcome: Outcome, per_round: int) -> int:
    """The end lines (stderr) and the standings (stdout) of a tournament played to its end."""
    table = standings_of(store, tid)
    saved = store.tournament(tid)
    assert saved is not None, "the tournament just played is stored"
    settings = saved["settings"]
    matches = store.matches(tid)
    faults = sum(1 for m in matches if m["faults"])
    early = f" (stopped early after {outcome.rounds} of {config.rounds} rounds)" if outcome.stopped_early else ""
    say(f"Finished tournament {tid}: {len(matches)} of {per_round * outcome.rounds} matches, {faults} with a "
        f"fault{early}, seed {config.seed}")
    if outcome.sprt is not None:
        say(sprt_line(outcome.sprt, [s.name for s in config.bots], game_units(config.game, config.params)["tournament"]))
    if json_out:
        # No table follows: the end lines say it when the rank and the matches won disagree.
        disagree = rank_and_wins_disagree(table, game_units(config.game, config.params)["tournament"])
        if disagree:
            say(disagree)
        sys.stdout.write(json.dumps(_as_json(config, store, tid, db, outcome, matches, settings, table)) + "\n")
    else:
        print_standings(config.game, tid, table, settings, config.params)
    return EXIT_OK


def _options_said(config: Any) -> list[str]:
    """The tournament's options a person would want named on its first line."""
    extras = []
    if config.duplicate:
        extras.append("duplicate deals")
    if config.gauntlet is not None:
        extras.append(f"gauntlet {inert(config.bots[config.gauntlet].name)}")
    if config.until_ci is not None:
        extras.append(f"until every 95% interval is within +/-{config.until_ci:g}")
    if config.sprt is not None:
        extras.append(Sprt.from_json(config.sprt).describe())
    return extras + Disqualification(0, config.max_faults, config.broken_start).describe(BROKEN_START)


def _as_json(config: Any, store: Store, tid: int, db: Path, outcome: Any, matches: list[StoredMatch],
             settings: dict[str, Any], table: Mapping[str, Any]) -> dict[str, Any]:
    """``--json``: the finished tournament, its matches and its standings."""
    names = [s.name for s in config.bots]
    return {
        "tournament": tid, "game": config.game, "seed": config.seed, "rounds": outcome.rounds,
        "rounds_planned": config.rounds, "completed": outcome.finished, "stopped_early": outcome.stopped_early,
        "matches": len(matches), "db": str(db), "sandbox": config.sandbox, "duplicate": config.duplicate,
        "on_fault": config.on_fault, "max_faults": config.max_faults, "broken_start": config.broken_start,
        "format": standings_format(settings), "events": store.events(tid),
        "units": game_units(config.game, config.params),
        **({"sprt": outcome.sprt} if outcome.sprt is not None else {}),
        "match_list": [{"id": m["id"], "round": m["round"], "index": m["idx"],
                        "entrants": [names[i] for i in m["seats"]], "status": m["status"],
                        "scores": m["scores"], "faults": [f["kind"] for f in m["faults"]]} for m in matches],
        **table,
    }


async def _run_until_signal(plugin, config, store, tid, progress) -> tuple[Outcome | None, int | None]:
    """Play; on SIGINT or SIGTERM stop cleanly: matches in flight are
    abandoned, their bots stopped, workers ended (the store keeps the rest)."""
    got: list[int] = []
    failed: Exception | None = None
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                async for signum in signals:
                    got.append(signum)
                    nursery.cancel_scope.cancel()
                    return

            nursery.start_soon(watch)
            try:
                outcome = await run_tournament(plugin, config, store, tid, progress)
            except (UsageError, ClusterError) as exc:
                failed = exc  # said in words by the caller, not as a group of tracebacks
            nursery.cancel_scope.cancel()
    if failed is not None:
        raise failed
    if got:
        return None, got[0]
    return outcome, None


def _progress_done(progress: Progress) -> None:
    """End the live display (there is one only on a terminal)."""
    board = _BOARDS.pop(id(progress), None)
    if board is not None:
        board.stop()


#: the live display of each running tournament's progress, on a terminal (see ``_Board``)
_BOARDS: dict[int, "_Board | None"] = {}


class _Board:
    """rich's live progress display, on a terminal only: a bar, matches
    done/total, elapsed, time left, faults and the current leader (the most
    points so far), fitted to the terminal's width (``board_text``). Off a
    terminal the stable lines are printed instead."""

    def __init__(self, total: int, done: int = 0) -> None:
        from rich.console import Console
        from rich.progress import Progress as Bar, ProgressColumn
        from rich.text import Text

        console = Console(stderr=True)  # its width is the terminal's as it is now (resized, too)
        board = self

        class Line(ProgressColumn):
            def render(self, task: Any) -> Text:
                return board.render(console.width, task)

        self.bar = Bar(Line(), console=console, transient=True)
        self.task = self.bar.add_task("tournament", total=total, completed=done, faults=0)
        self.leader: tuple[str, str] | None = None
        self.points: dict[int, list] = {}  # entrant -> [name, points so far]
        self.bar.start()

    def render(self, width: int, task: Any) -> Any:
        from rich.text import Text

        bar, first, second = board_text(width, int(task.completed), int(task.total or 0), task.elapsed,
                                        task.time_remaining, task.fields.get("faults", 0), self.leader)
        done = round(bar * task.completed / task.total) if task.total else 0
        text = Text("━" * done, style="bar.complete")
        text.append("━" * (bar - done), style="bar.back")
        text.append((" " if bar else "") + first + ("\n" + second if second else ""))
        return text

    def finished(self, p: Pairing, names: list[str], record: MatchRecord, progress: Progress) -> None:
        for seat, entrant in enumerate(p.seats):
            row = self.points.setdefault(entrant, [names[seat], 0.0])
            if seat < len(record.tournament_scores):
                row[1] += record.tournament_scores[seat]
        name, points = max(self.points.values(), key=lambda row: row[1])
        self.leader = (inert(name), f"{points:+g}")
        self.bar.update(self.task, completed=progress.done, faults=progress.faults)

    def note(self, text: str) -> None:
        self.bar.console.print(text, markup=False, highlight=False)  # above the bar, which stays

    def stop(self) -> None:
        self.bar.stop()


def board_text(width: int, done: int, total: int, elapsed: float | None, left: float | None, faults: int,
               leader: tuple[str, str] | None) -> tuple[int, str, str]:
    """The live display in ``width`` columns: (the bar's width, the words beside it, a second
    line or ""). One line where it fits beside a bar of 20; else the bar with the matches and
    times, and faults and the leader below; the leader's name is cut with "…" to fit, never wrapped."""
    first = f"{done}/{total} matches · {_clock(elapsed)} elapsed · {_clock(left)} left"

    def who(room: int) -> str:
        head = f"faults {faults} · leader "
        if leader is None:
            return head + "-"
        name, points = leader
        return head + clip(name, max(room - cell_width(head) - len(points) - 3, 4)) + f" ({points})"

    one = f"{first} · {who(10_000)}"
    if cell_width(one) + 21 <= width:
        return min(40, width - 1 - cell_width(one)), one, ""
    if len(first) + 11 > width:  # narrower still: the times without their words
        first = f"{done}/{total} · {_clock(left)} left"
    return max(0, min(40, width - 1 - len(first))), first, who(width)


def _clock(seconds: float | None) -> str:
    """H:MM:SS, as rich's time columns show it (-:--:-- before it is known)."""
    if seconds is None:
        return "-:--:--"
    s = max(0, int(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def sprt_line(state: dict[str, Any], names: list[str], unit: str = "score") -> str:
    """The test's verdict in fastchess's words: LLR against its bounds, and what was accepted,
    and what it counts: matches won, drawn and lost (by ``unit``), never how much they were won by."""
    low, high = state["bounds"]
    # Accepting a hypothesis says which of the two differences the results favour, at the
    # test's error rates; it is not a bound on the difference itself.
    first, e0, e1 = inert(names[0]), state["elo0"], state["elo1"]
    if state.get("model") == "chips":
        return _chips_sprt_line(state, first)
    verdict = {"H1": f"H1 accepted: the results favour {first} being {e1:g} Elo stronger over {e0:g}",
               "H0": f"H0 accepted: the results favour {first} being {e0:g} Elo stronger over {e1:g}",
               None: "no decision within --rounds"}[state["decision"]]
    model = state.get("model", "normalized")
    elo_text = ""
    if state["elo"] is not None:
        err = state["elo_error"]
        elo_text = (f"; Elo {state['elo']:+.1f}" + (f" +/- {err:.1f}" if err == err else "")
                    + f", LOS {100 * state['los']:.1f}%")
    counts = "/".join(map(str, state["counts"]))
    pairs = state["model_counts"] == "pentanomial"
    kind = "LL/LD/WL+DD/WD/WW" if pairs else "L/D/W"
    what = "pairs of matches (a deal in both seats)" if pairs else "matches"
    return (f"SPRT [{e0:g}, {e1:g}] {model} Elo: LLR {state['llr']:.2f} ({low:.2f}, {high:.2f}), "
            f"{verdict}{elo_text} (logistic Elo of {what} won, drawn and lost, not of how many {unit}: "
            f"{kind} {counts})")


def _chips_sprt_line(state: dict[str, Any], first: str) -> str:
    """The verdict of ``--sprt-chips``: what it counts is chips, in mbb/g."""
    low, high = state["bounds"]
    m0, m1 = state["elo0"], state["elo1"]
    verdict = {"H1": f"H1 accepted: the results favour {first} winning {m1:g} mbb/g over {m0:g}",
               "H0": f"H0 accepted: the results favour {first} winning {m0:g} mbb/g over {m1:g}",
               None: "no decision within --rounds"}[state["decision"]]
    deals = state["model_counts"] == "pentanomial"
    what = "deals" if deals else "matches"
    mean = state.get("mbb_per_game")
    found = "" if mean is None else f"; {first} {mean:+.1f} mbb/g over {state['observations']} {what}"
    each = "each deal (both its seatings)" if deals else "each match"
    return (f"SPRT [{m0:g}, {m1:g}] mbb/g on chips: LLR {state['llr']:.2f} ({low:.2f}, {high:.2f}), {verdict}"
            f"{found} (chips won per hand, {each} one observation; not matches won)")


def outcome_words(record: MatchRecord, names: list[str]) -> str:
    """A finished match in a few words: each entrant's score, or its fault."""
    if record.status == "forfeit":
        return "forfeit (disqualified entrant)"
    if record.status == "void":
        return f"void, no seat blamed: {inert(record.game_error or 'the game failed')}"
    if record.faults:
        f = record.faults[0]
        return f"cancelled: {inert(names[f['seat']])} {f['kind']}"
    return ", ".join(f"{inert(n)} {s:g}" for n, s in zip(names, record.tournament_scores))


def _progress(total: int, per_round: int, already: int = 0) -> Progress:
    """Progress lines (stable, greppable) off a terminal; rich's live display on it (``_Board``).
    ``already``: the matches a resumed tournament had played before."""
    tty = sys.stderr.isatty()
    progress = Progress(total=total, done=already)

    def number(p: Pairing) -> str:
        return f"{p.round * per_round + p.idx + 1}/{total}"

    def on_start(match_id: int, p: Pairing, names: list[str]) -> None:
        if not tty:
            say(f"Started match {match_id} [{number(p)}]: {' vs '.join(map(inert, names))}")

    board = _BOARDS[id(progress)] = _Board(total, already) if tty else None

    def on_finish(match_id: int, p: Pairing, names: list[str], record: MatchRecord) -> None:
        if board is not None:
            board.finished(p, names, record, progress)
            return
        say(f"Finished match {match_id} [{number(p)}]: {outcome_words(record, names)}")

    def on_note(text: str) -> None:
        if board is not None:
            board.note(f"arena: {inert(text)}")
            return
        say(f"arena: {inert(text)}")

    progress.on_start = on_start
    progress.on_finish = on_finish
    progress.on_note = on_note
    return progress


def register(app: typer.Typer) -> None:
    app.command("tournament")(tournament_cmd)
