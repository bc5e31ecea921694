"""Results out of the database: ``arena standings``, ``matches``, ``export``, ``show``.

Everything a bot wrote (its name, its lines) is printed inert.
"""

from __future__ import annotations

import csv
import shutil
import gzip
import json
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from .._checks import UsageError, current_names
from ..results._report import format_words, replay_command, standings_format, standings_of
from ..results._standings import HeadToHeadRow, Standings
from ..results._store import MatchRecord, Store, TournamentRecord, open_store, shown_seed
from .._text import inert

FORMATS = ("table", "json", "csv")
DbOpt = Annotated[Path, typer.Option(help="SQLite file with the results.")]


def _usage(message: str) -> typer.Exit:
    typer.echo(f"arena: error: {message}", err=True)
    return typer.Exit(2)


def _open(db: Path) -> Store:
    try:
        return open_store(db, create=False)
    except UsageError as exc:
        raise _usage(str(exc)) from None


def _tournament(store: Store, tid: int, db: Path) -> TournamentRecord:
    saved = store.tournament(tid)
    if saved is None:
        raise _usage(f"no tournament {tid} in {db}")
    return saved








def fit_table(title: str, columns: list[tuple[str, str]], rows: list[list[str]], *, width: int | None = None,
              wrap: str | None = None, drop: tuple[str, ...] = ()) -> Any:
    """The title line and a rich table that fits ``width`` columns (the terminal's; off a terminal, no limit).

    ``columns``: (header, "l" or "r"). When the table is too wide, the
    column ``wrap`` (the names) wraps down to 12 characters, then the columns
    in ``drop`` go, first named first; numbers are never cut.
    """
    from rich import box
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    limit = width or _width()
    keep = list(range(len(columns)))

    def need(cols: list[int], squeeze: bool) -> int:
        widths = []
        for c in cols:
            w = max([len(columns[c][0])] + [len(r[c]) for r in rows])
            if squeeze and columns[c][0] == wrap:
                w = min(w, max(12, len(columns[c][0])))
            widths.append(w)
        return sum(widths) + 2 * (len(cols) - 1)

    for name in drop:
        if need(keep, squeeze=True) <= limit:
            break
        keep = [c for c in keep if columns[c][0] != name]
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True)
    for c in keep:
        header, justify = columns[c]
        table.add_column(header, justify="right" if justify == "r" else "left",
                         overflow="fold", no_wrap=header != wrap)
    for r in rows:
        table.add_row(*(Text(r[c]) for c in keep))
    return Group(Text(title), table)  # the title on its own line(s): a table would wrap it to its width


def _width() -> int:
    """The terminal's columns; off a terminal no limit, so that files and pipes keep every character."""
    return shutil.get_terminal_size((80, 24)).columns if sys.stdout.isatty() else 10_000


def _ci(low: float, high: float) -> str:
    return f"±{(high - low) / 2:.3f}"


def game_units(game: str, params: dict[str, Any] | None = None) -> dict[str, str]:
    """The game's words for its scores (docs/vocabulary.md), for a stored tournament's parameters."""
    from .._games import PluginLoadError, load_game

    try:
        plugin = load_game(game)
    except PluginLoadError:
        return {"payoff": "payoff", "hands": "hands", "score": "score", "tournament": "score"}
    try:
        model = plugin.Params(**(params or {}))
    except Exception:  # parameters stored by another version of the game: its words still hold
        model = None
    return plugin.units(model)


def print_standings(game: str, tid: int, table: Standings, settings: dict[str, Any],
                    params: dict[str, Any] | None = None, console: Any = None) -> None:
    """Standings, cross-table and head-to-head, each fitting ``console`` (the
    terminal, 80 columns and up; off a terminal, as wide as they are)."""
    from rich.console import Console

    unit = game_units(game, params)["tournament"]
    console = console or Console(width=_width())
    width = console.width
    margin = table.get("cross_table_measure") == "margin"
    console.print(_standings_table(game, tid, table, settings, unit, width))
    console.print()
    console.print(_cross_table(table, unit, margin, width))
    console.print()
    console.print(_head_to_head(table, margin, width))


def _standings_table(game: str, tid: int, table: Standings, settings: dict[str, Any], unit: str,
                     width: int) -> Any:
    ranked = ["ranked by mean score per match (entrants played different numbers of matches)"] \
        if table.get("ranked_by") == "mean" else []
    rows = []
    for rank, row in enumerate(table["standings"], 1):
        faults = ", ".join(f"{k} {v}" for k, v in row["faults"].items())
        if row["disqualified"]:
            faults += f" (DISQUALIFIED{', ' + str(row['forfeits']) + ' forfeits' if row['forfeits'] else ''})"
        rows.append([str(rank), inert(row["bot"]), f"{row['score']:.3f}", f"{row['mean']:.3f}",
                     _ci(row["ci_low"], row["ci_high"]), str(row["matches"]),
                     f"{row['rating_mu']:.1f}±{row['rating_sigma']:.1f}", faults])
    columns = [("rank", "r"), ("bot", "l"), (unit, "r"), ("mean", "r"), ("95% CI", "r"), ("matches", "r"),
               ("rating", "r"), ("faults", "l")]
    return fit_table(" · ".join([f"tournament {tid}", game, *format_words(settings), *ranked]),
                     columns, rows, wrap="bot", drop=("rating", "matches", "95% CI"), width=width)


def _cross_table(table: Standings, unit: str, margin: bool, width: int) -> Any:
    names = [row["bot"] for row in table["standings"]]
    what = (f"mean margin of the row bot over the column bot (row's {unit} minus column's) in their shared matches"
            if margin else f"mean {unit} of the row bot in matches with the column bot")
    cells = [["-" if a == b else f"{table['cross_table'][a].get(b, 0.0):.3f}" for b in names] for a in names]
    heads = [inert(n) for n in names]
    wide = max(map(len, heads), default=0) * len(names) + max((len(c) for r in cells for c in r), default=0)
    if wide + 2 * len(names) + max(map(len, heads), default=0) > width:
        # Too wide with names over the columns: the columns are the rows' ranks.
        heads = [str(i) for i in range(1, len(names) + 1)]
        cross_rows = [[f"{i}. {inert(a)}", *row] for i, (a, row) in enumerate(zip(names, cells), 1)]
    else:
        cross_rows = [[inert(a), *row] for a, row in zip(names, cells)]
    return fit_table(f"cross-table: {what}", [("", "l")] + [(h, "r") for h in heads], cross_rows, wrap="",
                     width=width)


def _head_to_head(table: Standings, margin: bool, width: int) -> Any:
    two_seats = any("elo" in row for row in table["head_to_head"])
    rows = []
    for row in table["head_to_head"]:
        value, low, high = ((row["margin"], row["margin_low"], row["margin_high"]) if margin
                            else (row["mean"], row["ci_low"], row["ci_high"]))
        cells = [inert(row["bot"]), inert(row["opponent"]), str(row["matches"]), str(row["wins"]),
                 str(row["losses"]), str(row["draws"]), f"{value:.3f}", _ci(low, high)]
        if two_seats:
            cells += [_elo(row), f"{100 * row['los']:.1f}%" if "los" in row else ""]
        rows.append(cells)
    columns = [("bot", "l"), ("opponent", "l"), ("matches", "r"), ("won", "r"), ("lost", "r"), ("drawn", "r"),
               ("margin" if margin else "mean", "r"), ("95% CI", "r")]
    if two_seats:
        columns += [("Elo", "r"), ("LOS", "r")]
    return fit_table("head to head: the row bot against the other, in the matches they shared",
                     columns, rows, wrap="bot", drop=("drawn", "95% CI", "matches"), width=width)


def _elo(row: HeadToHeadRow) -> str:
    if row.get("elo") is None:
        return "+inf" if row.get("los", 0.5) > 0.5 else "-inf" if "los" in row else ""
    error = row.get("elo_error")
    return f"{row['elo']:+.0f}" + (f"±{error:.0f}" if error is not None and error == error else "")


def tournaments_cmd(
    db: DbOpt = Path("arena.db"),
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object per tournament, a line each.")] = False,
) -> None:
    """List the tournaments a database holds: id, game, entrants, matches, status, start."""
    store = _open(db)
    try:
        rows = store.tournament_list()
    finally:
        store.close()
    if json_out:
        for row in rows:
            sys.stdout.write(json.dumps(row) + "\n")
        return
    if not rows:
        typer.echo(f"no tournament in {db} yet", err=True)
        return
    rows_out = []
    for row in rows:
        status = "finished" if row["status"] == "finished" else "unfinished"
        started = time.strftime("%Y-%m-%d %H:%M", time.gmtime(row["created"]))
        rows_out.append([str(row["id"]), row["game"], ", ".join(map(inert, row["entrants"])),
                         f"{row['played']}/{row['scheduled']}", status, started])
    columns = [("id", "r"), ("game", "l"), ("entrants", "l"), ("matches", "r"), ("status", "l"),
               ("started (UTC)", "l")]
    _console().print(fit_table(f"tournaments in {db}", columns, rows_out, wrap="entrants",
                               drop=("started (UTC)",)))


def _console():
    from rich.console import Console

    return Console(width=_width())


def standings_cmd(
    tournament: Annotated[Optional[int], typer.Argument(
        metavar="[ID]", help="A tournament id (default: the latest; `arena tournaments` lists them).")] = None,
    db: DbOpt = Path("arena.db"),
    format: Annotated[str, typer.Option("--format", help="table, json or csv.")] = "table",
) -> None:
    """Print the standings of a stored tournament (also one still being played)."""
    if format not in FORMATS:
        raise _usage(f"--format is one of {', '.join(FORMATS)}, not {format!r}")
    store = _open(db)
    try:
        if tournament is None:
            tournament = store.latest_tournament()
            if tournament is None:
                raise _usage(f"no tournament in {db} yet")
            typer.echo(f"arena: tournament {tournament}, the latest in {db}", err=True)
        saved = _tournament(store, tournament, db)
        table = standings_of(store, tournament)
    finally:
        store.close()
    if format == "json":
        sys.stdout.write(json.dumps({"tournament": tournament, "game": saved["game"],
                                    "units": game_units(saved["game"], saved["params"]),
                                    "format": standings_format(saved["settings"]), **table}) + "\n")
    elif format == "csv":
        fields = ["rank", "bot", "score", "mean", "ci_low", "ci_high", "matches", "rating", "rating_mu",
                  "rating_sigma", "faults", "forfeits", "disqualified"]
        out = csv.DictWriter(sys.stdout, fieldnames=fields, lineterminator="\n")
        out.writeheader()
        for rank, row in enumerate(table["standings"], 1):
            faults = ";".join(f"{k}={v}" for k, v in row["faults"].items())
            out.writerow({**{k: v for k, v in row.items() if k in fields}, "rank": rank, "faults": faults})
    else:
        print_standings(saved["game"], tournament, table, saved["settings"], saved["params"])


def matches_cmd(
    tournament: Annotated[int, typer.Argument(metavar="ID", help="A tournament id.")],
    db: DbOpt = Path("arena.db"),
    bot: Annotated[Optional[str], typer.Option(help="Only the matches of this entrant.")] = None,
    faults: Annotated[bool, typer.Option("--faults", help="Only matches with a fault.")] = False,
) -> None:
    """List a tournament's matches, one line each, with the id `arena show` takes."""
    store = _open(db)
    try:
        saved = _tournament(store, tournament, db)
        names = [e["name"] for e in saved["entrants"]]
        if bot is not None and bot not in names:
            raise _usage(f"--bot {bot!r} is not an entrant of tournament {tournament} ({', '.join(names)})")
        rows = store.matches(tournament, pending=True)
    finally:
        store.close()
    for m in rows:
        who = [names[i] for i in m["seats"]]
        if bot is not None and bot not in who:
            continue
        if faults and not m["faults"]:
            continue
        if m["status"] == "pending":
            what = "not played yet"
        elif m["status"] == "forfeit":
            what = "forfeit (disqualified entrant)"
        elif m["faults"]:
            f = m["faults"][0]
            what = f"cancelled: {inert(who[f['seat']])} {f['kind']}: {inert(f['detail'])}"
        else:
            what = ", ".join(f"{inert(n)} {s:g}" for n, s in zip(who, m["scores"]))
        seed = shown_seed(m) or "(shown once played)"
        typer.echo(f"match {m['id']} round {m['round']} index {m['idx']} seed {seed}: "
                   f"{' vs '.join(map(inert, who))}: {what}")




def export_cmd(
    tournament: Annotated[int, typer.Argument(metavar="ID", help="A tournament id.")],
    db: DbOpt = Path("arena.db"),
    format: Annotated[str, typer.Option(
        "--format", help="jsonl: one JSON line per match; phh: poker hands as PHH (.phhs).")] = "jsonl",
) -> None:
    """Write every stored match as one JSON line, with the command that plays it again
    (or, ``--format phh``, every hand of a poker tournament as PHH)."""
    from .._games import load_game

    if format not in ("jsonl", "phh"):
        raise _usage(f"--format is jsonl or phh, not {format!r}")
    store = _open(db)
    try:
        saved = _tournament(store, tournament, db)
        entrants = [(e["name"], store.bot(e["bot"])["command"]) for e in saved["entrants"]]
        rows = store.matches(tournament)
    finally:
        store.close()
    if format == "phh":
        _export_phh(saved, entrants, rows)
        return
    model = load_game(saved["game"]).Params
    defaults, params = model().model_dump(mode="json"), current_names(model, saved["params"])
    for m in rows:
        lineup = [entrants[i] for i in m["seats"]]
        sys.stdout.write(json.dumps({
            "tournament": tournament, "match": m["id"], "round": m["round"], "index": m["idx"],
            "game": saved["game"], "game_version": saved["game_version"], "params": params,
            "seed": shown_seed(m), "entrants": [n for n, _ in lineup], "commands": [c for _, c in lineup],
            "status": m["status"], "completed": m["completed"], "hands": m["hands"], "scores": m["scores"],
            "payoffs": m["payoffs"], "faults": m["faults"],
            "replay": (replay_command(saved["game"], params, defaults, lineup, m["seed"], saved["settings"],
                                     saved.get("lifetime", "match"))
                       if shown_seed(m) is not None else None),
        }) + "\n")


def _export_phh(saved: TournamentRecord, entrants: list[tuple[str, str]], rows: list[MatchRecord]) -> None:
    """Every hand of the stored transcripts, read back as the lines sent to each seat."""
    from .._games import load_game

    plugin = load_game(saved["game"])
    if "phh" not in plugin.hand_formats:
        raise _usage(f"--format phh writes poker hands; {saved['game']} writes none")
    histories = plugin.hand_histories([])
    for m in rows:
        if not (m["transcript"] and Path(m["transcript"]).exists()):
            continue
        histories.names = [entrants[i][0] for i in m["seats"]]
        with gzip.open(m["transcript"], "rt", encoding="utf-8", errors="backslashreplace") as log:
            for line in log:
                head, arrow, text = line.rstrip("\n").partition(" -> ")
                if arrow and head.split()[-2:-1] == ["seat"]:
                    histories.sent(int(head.split()[-1]), text)
    sys.stdout.write(histories.dumps())


def show_cmd(
    match_id: Annotated[int, typer.Argument(help="A match id from the database.")],
    db: DbOpt = Path("arena.db"),
) -> None:
    """Print one stored match: its result, faults and full message log (--trace format)."""
    store = _open(db)
    try:
        m = store.match(match_id)
        if m is None:
            raise _usage(f"no match {match_id} in {db}")
        t = store.tournament(m["tournament"])
        assert t is not None
        names = [t["entrants"][i]["name"] for i in m["seats"]]
    finally:
        store.close()
    state = {"done": "completed" if m["completed"] else "cancelled", "pending": "not played yet",
             "forfeit": "forfeit (a disqualified entrant)"}[m["status"]]
    typer.echo(
        f"match {match_id}: tournament {m['tournament']} ({t['game']}), round {m['round']}, "
        f"index {m['idx']}, seed {shown_seed(m) or '(shown once played)'}, {state}, {m['hands']} hands"
        + (f", played on cluster worker {inert(str(w))}" if (w := m.get("worker")) else "")
        + (f" by arena {inert(str(b)).replace('+', ' (code ', 1)})" if (b := m.get("build")) and "+" in b else "")
    )
    for retry in (m.get("timings") or {}).get("retried", []):
        typer.echo(f"  played again: worker {inert(str(retry['worker']))} could not play it: {inert(str(retry['reason']))}")
    for seat, name in enumerate(names):
        score = f"  score {m['scores'][seat]:g}  payoff {m['payoffs'][seat]:g}" if m["scores"] else ""
        typer.echo(f"  seat {seat}: {inert(name)}{score}")
    for f in m["faults"]:
        typer.echo(f"  FAULT seat {f['seat']}: {f['kind']}: {inert(f['detail'])}")
    if m["transcript"] and Path(m["transcript"]).exists():
        with gzip.open(m["transcript"], "rt", encoding="utf-8") as log:
            for line in log:
                sys.stdout.write(inert(line.rstrip("\n")) + "\n")
    else:
        typer.echo("  (no transcript stored)")


def register(app: typer.Typer) -> None:
    app.command("tournaments")(tournaments_cmd)
    app.command("standings")(standings_cmd)
    app.command("matches")(matches_cmd)
    app.command("export")(export_cmd)
    app.command("show")(show_cmd)
