"""Results out of the database: ``arena standings``, ``matches``, ``export``, ``show``.

Everything a bot wrote (its name, its lines) is printed inert.
"""

from __future__ import annotations

import csv
import gzip
import json
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from .._checks import UsageError
from ..results._report import format_words, replay_command, standings_format, standings_of
from ..results._store import Store, open_store, shown_seed
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


def _tournament(store: Store, tid: int, db: Path) -> dict[str, Any]:
    saved = store.tournament(tid)
    if saved is None:
        raise _usage(f"no tournament {tid} in {db}")
    return saved








def print_standings(game: str, tid: int, table: dict[str, Any], settings: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(width=None if sys.stdout.isatty() else 1000)
    ranked = ["ranked by mean score per match (entrants played different numbers of matches)"] \
        if table.get("ranked_by") == "mean" else []
    t = Table(title=" · ".join([f"tournament {tid}", game, *format_words(settings), *ranked]))
    for col in ("rank", "bot", "score", "mean", "95% CI", "matches", "rating (μ ± σ)", "faults"):
        t.add_column(col, justify="left" if col in ("bot", "faults") else "right")
    for rank, row in enumerate(table["standings"], 1):
        faults = ", ".join(f"{k} {v}" for k, v in row["faults"].items())
        if row["disqualified"]:
            faults += f" (DISQUALIFIED{', ' + str(row['forfeits']) + ' forfeits' if row['forfeits'] else ''})"
        t.add_row(
            str(rank), Text(inert(row["bot"])), f"{row['score']:.3f}", f"{row['mean']:.3f}",
            f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]", str(row["matches"]),
            f"{row['rating_mu']:.1f} ± {row['rating_sigma']:.1f}", Text(faults),
        )
    console.print(t)
    names = [row["bot"] for row in table["standings"]]
    cross = Table(title="cross-table: mean score of the row bot in matches with the column bot")
    cross.add_column("")
    for n in names:
        cross.add_column(Text(inert(n)), justify="right")
    for a in names:
        cross.add_row(Text(inert(a)), *(("-" if a == b else f"{table['cross_table'][a].get(b, 0.0):.3f}")
                                        for b in names))
    console.print(cross)
    h2h = Table(title="head to head: the row bot against the other, in the matches they shared")
    for col in ("bot", "opponent", "matches", "won", "lost", "drawn", "mean score", "95% CI"):
        h2h.add_column(col, justify="left" if col in ("bot", "opponent") else "right")
    for row in table["head_to_head"]:
        h2h.add_row(Text(inert(row["bot"])), Text(inert(row["opponent"])), str(row["matches"]),
                    str(row["wins"]), str(row["losses"]), str(row["draws"]), f"{row['mean']:.3f}",
                    f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]")
    console.print(h2h)


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
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"tournaments in {db}", box=None, pad_edge=False)
    for column in ("id", "game", "entrants", "matches", "status", "started (UTC)"):
        table.add_column(column, justify="right" if column in ("id", "matches") else "left",
                         no_wrap=column != "entrants", overflow="fold")
    for row in rows:
        status = "finished" if row["status"] == "finished" else "unfinished"
        started = time.strftime("%Y-%m-%d %H:%M", time.gmtime(row["created"]))
        table.add_row(str(row["id"]), row["game"], Text(", ".join(map(inert, row["entrants"]))),
                      f"{row['played']}/{row['scheduled']}", status, started)
    _console().print(table)


def _console():
    """Tables fit the terminal (or 80 columns when stdout is not one, so files and pipes read the same)."""
    from rich.console import Console

    return Console(width=None if sys.stdout.isatty() else 80)


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
                                    "format": standings_format(saved["settings"]), **table}) + "\n")
    elif format == "csv":
        fields = ["rank", "bot", "score", "mean", "ci_low", "ci_high", "matches", "rating", "rating_mu",
                  "rating_sigma", "faults", "forfeits", "disqualified"]
        out = csv.DictWriter(sys.stdout, fieldnames=fields, lineterminator="\n")
        out.writeheader()
        for rank, row in enumerate(table["standings"], 1):
            faults = ";".join(f"{k}={v}" for k, v in row["faults"].items())
            out.writerow({**{k: row[k] for k in fields if k in row}, "rank": rank, "faults": faults})
    else:
        print_standings(saved["game"], tournament, table, saved["settings"])


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
        "--format", help="jsonl: one JSON line per match; phh: holdem hands as PHH (.phhs).")] = "jsonl",
) -> None:
    """Write every stored match as one JSON line, with the command that plays it again
    (or, ``--format phh``, every hand of a holdem tournament as PHH)."""
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
    defaults = load_game(saved["game"]).Params().model_dump(mode="json")
    for m in rows:
        lineup = [entrants[i] for i in m["seats"]]
        sys.stdout.write(json.dumps({
            "tournament": tournament, "match": m["id"], "round": m["round"], "index": m["idx"],
            "game": saved["game"], "game_version": saved["game_version"], "params": saved["params"],
            "seed": shown_seed(m), "entrants": [n for n, _ in lineup], "commands": [c for _, c in lineup],
            "status": m["status"], "completed": m["completed"], "hands": m["hands"], "scores": m["scores"],
            "payoffs": m["payoffs"], "faults": m["faults"],
            "replay": (replay_command(saved["game"], saved["params"], defaults, lineup, m["seed"], saved["settings"],
                                     saved.get("lifetime", "match"))
                       if shown_seed(m) is not None else None),
        }) + "\n")


def _export_phh(saved: dict, entrants: list[tuple[str, str]], rows: list[dict]) -> None:
    """Every hand of the stored transcripts, read back as the lines sent to each seat."""
    if saved["game"] != "holdem":
        raise _usage(f"--format phh is for holdem tournaments; this one is {saved['game']}")
    from protocols.holdem_phh import HandHistories

    histories = HandHistories([])
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
