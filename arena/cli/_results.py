"""Results out of the database: ``arena standings``, ``matches``, ``export``, ``show``.

Everything a bot wrote (its name, its lines) is printed inert.
"""

from __future__ import annotations

import csv
import gzip
import os
import json
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from .._checks import UsageError, current_names
from ..results._report import format_words, game_units, replay_command, standings_format, standings_of
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


#: the narrowest a column of names gets before columns are dropped (a name cut shorter tells little)
NAME_MIN = 12


def fit_table(title: str, columns: list[tuple[str, str]], rows: list[list[str]], *, width: int | None = None,
              names: tuple[str, ...] = (), drop: tuple[str, ...] = (), words: tuple[str, ...] = ("faults", "fault")
              ) -> Any:
    """The title line and a rich table that fits ``width`` columns (default: ``output_width()``).

    ``columns``: (header, "l" or "r"). When the table is too wide, the
    columns of ``names`` give way first, down to ``NAME_MIN`` characters
    each, a name cut short ending in "…" (never wrapped, so never broken
    across lines); then the columns in ``drop`` go, first named first. The
    columns of ``words`` wrap between words; nothing else is cut.
    """
    from rich import box
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    limit = width or output_width()
    keep = list(range(len(columns)))

    def natural(c: int) -> int:
        return max([cell_width(columns[c][0])] + [cell_width(r[c]) for r in rows])

    def need(cols: list[int]) -> int:
        return sum(min(natural(c), NAME_MIN) if columns[c][0] in names else natural(c) for c in cols) \
            + 2 * (len(cols) - 1)

    for name in drop:
        if need(keep) <= limit:
            break
        keep = [c for c in keep if columns[c][0] != name]
    room = _name_room([natural(c) for c in keep if columns[c][0] in names],
                      limit - sum(natural(c) for c in keep if columns[c][0] not in names) - 2 * (len(keep) - 1))
    widths = dict(zip([c for c in keep if columns[c][0] in names], room))
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True)
    for c in keep:
        header, justify = columns[c]
        # Names never wrap (a name split over two lines reads as two); words wrap between words.
        table.add_column(header, justify="right" if justify == "r" else "left", overflow="ellipsis",
                         no_wrap=header not in words)
    for r in rows:
        table.add_row(*(Text(clip(r[c], widths[c]) if c in widths else r[c]) for c in keep))
    return Group(Text(title), table)  # the title on its own line(s): a table would wrap it to its width


def _name_room(naturals: list[int], room: int) -> list[int]:
    """How wide each column of names may be: its widest name where all fit in ``room``, else
    the room shared out evenly (a column that needs less gives the rest to the others), at
    least ``NAME_MIN`` each."""
    out = [0] * len(naturals)
    left = room
    for k, i in enumerate(sorted(range(len(naturals)), key=lambda i: naturals[i])):
        share = left // (len(naturals) - k)
        out[i] = min(naturals[i], max(NAME_MIN, share))
        left -= out[i]
    return out


def cell_width(text: str) -> int:
    """The columns ``text`` takes on a terminal (a wide character takes two)."""
    from rich.cells import cell_len

    return cell_len(text)


def clip(text: str, width: int) -> str:
    """``text`` in at most ``width`` columns: whole, else cut with "…". A list of names
    ("a, b, c") keeps whole names where it can and says how many more there are ("a, b +1 more")."""
    from rich.cells import set_cell_size

    if cell_width(text) <= width:
        return text
    parts = text.split(", ")
    for k in range(len(parts) - 1, 0, -1):
        shown = ", ".join(parts[:k]) + f" +{len(parts) - k} more"
        if cell_width(shown) <= width:
            return shown
    more = f" +{len(parts) - 1} more" if len(parts) > 1 and width - len(str(len(parts))) - 6 >= NAME_MIN else ""
    return set_cell_size(parts[0] if more else text, max(width - len(more) - 1, 0)).rstrip() + "…" + more


def output_width(stream: Any = None) -> int:
    """The columns that output to ``stream`` (stdout) fits: on a terminal, $COLUMNS where it is
    set, else the terminal's width; off a terminal no limit, so that files and pipes keep every
    character (and a $COLUMNS some program exported, as readline does, cuts nothing there)."""
    stream = sys.stdout if stream is None else stream
    if not stream.isatty():
        return 10_000
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) >= 20:
        return int(columns)
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (OSError, ValueError):
        return 80


def say(text: str, *, err: bool = True, indent: str = "  ", command: str = "") -> None:
    """A line for a person (``text`` and ``command``), wrapped between words to the terminal's
    width, continuation lines indented; a ``command`` too long for the rest of the line goes
    whole on a line of its own, to be copied. Off a terminal, the one line as it is, for grep."""
    import textwrap

    stream = sys.stderr if err else sys.stdout
    width = output_width(stream)
    whole = f"{text} {command}" if command else text
    if 2 * len(whole) <= width:  # off a terminal: every progress line of a run comes here
        stream.write(whole + "\n")
        stream.flush()
        return
    if cell_width(whole) <= width:
        lines = [whole]
    else:
        lines = textwrap.wrap(text if command else whole, width, subsequent_indent=indent, break_long_words=False,
                              break_on_hyphens=False) + ([indent + command] if command else [])
    typer.echo("\n".join(lines), err=err)


def _ci(low: float, high: float) -> str:
    return f"±{(high - low) / 2:.3f}"


def print_standings(game: str, tid: int, table: Standings, settings: dict[str, Any],
                    params: dict[str, Any] | None = None, console: Any = None) -> None:
    """Standings, cross-table and head-to-head, each fitting ``console`` (the
    terminal, 80 columns and up; off a terminal, as wide as they are)."""
    from rich.console import Console

    unit = game_units(game, params)["tournament"]
    console = console or Console(width=output_width())
    width = console.width
    margin = table.get("cross_table_measure") == "margin"
    console.print(_standings_table(game, tid, table, settings, unit, width))
    console.print()
    console.print(_cross_table(table, unit, margin, width))
    console.print()
    console.print(_head_to_head(table, margin, width))
    console.print()
    for line in measure_words(table, unit, sprt=(settings.get("sprt") or {}).get("model", "normalized")
                              if settings.get("sprt") else None):
        console.print(line, markup=False, highlight=False)


def measure_words(table: Standings, unit: str, *, sprt: str | None = None) -> list[str]:
    """What the rank counts and what every other verdict counts (in a two-seat game: matches won,
    not their size), and, where they disagree at the top, that they do and why. ``sprt``: the
    model of the tournament's SPRT, if it had one ("chips" counts chips)."""
    by = f"mean {unit} per match" if table.get("ranked_by") == "mean" else f"{unit} in total"
    if table.get("seats") == 2:
        counted = "won, lost, drawn, Elo, LOS" + (", SPRT" if sprt not in (None, "chips") else "") + " and the rating"
        chips = " The SPRT counts chips won per hand (mbb/g), as the rank does." if sprt == "chips" else ""
        if any("los_chips" in row for row in table["head_to_head"]):
            chips += f" LOS chips is the likelihood of superiority in {unit} (a normal model of the margin)."
        words = [f"The rank counts {by}; {counted} count matches (each won by the bot with more {unit} in it), "
                 f"not how many {unit}.{chips}"]
    else:
        words = [f"The rank counts {by}; the rating counts each match's order of finish, not how many {unit}."]
    return words + [w for w in [rank_and_wins_disagree(table, unit)] if w]


def rank_and_wins_disagree(table: Standings, unit: str) -> str | None:
    """In a two-seat game, when the first by the rank won fewer of its matches against the
    second than it lost: a sentence that says so, with both measures."""
    rows = [r for r in table["standings"] if not r["disqualified"]]
    if table.get("seats") != 2 or len(rows) < 2:
        return None
    first, second = rows[0], rows[1]
    pair = next((h for h in table["head_to_head"] if h["bot"] == first["bot"] and h["opponent"] == second["bot"]),
                None)
    if pair is None or pair["wins"] >= pair["losses"]:
        return None
    by_mean = table.get("ranked_by") == "mean"
    ours, theirs = (first["mean"], second["mean"]) if by_mean else (first["score"], second["score"])
    elo = f" (Elo {_elo(pair)}, LOS {100 * pair['los']:.1f}%)" if "los" in pair else ""
    a, b = inert(first["bot"]), inert(second["bot"])
    return (f"{a} ranks first by {unit} ({ours:g} to {theirs:g}{' a match' if by_mean else ''}) but won {pair['wins']} and lost "
            f"{pair['losses']} of its {pair['matches']} matches against {b}{elo}: {a} won by more, {b} more often.")


def _standings_table(game: str, tid: int, table: Standings, settings: dict[str, Any], unit: str,
                     width: int) -> Any:
    ranked = [f"ranked by mean {unit} per match (entrants played different numbers of matches)"
              if table.get("ranked_by") == "mean" else f"ranked by {unit}"]
    poker = any(row.get("mbb_per_game") is not None for row in table["standings"])
    rows = []
    for rank, row in enumerate(table["standings"], 1):
        faults = ", ".join(f"{k} {v}" for k, v in row["faults"].items())
        if row["disqualified"]:
            faults += f" (DISQUALIFIED{', ' + str(row['forfeits']) + ' forfeits' if row['forfeits'] else ''})"
        rates = [_rate(row.get("mbb_per_game"), "+.0f"), _rate(row.get("bb_per_100"), "+.2f")] if poker else []
        rows.append([str(rank), inert(row["bot"]), f"{row['score']:.3f}", f"{row['mean']:.3f}",
                     _ci(row["ci_low"], row["ci_high"]), *rates, str(row["matches"]),
                     f"{row['rating_mu']:.1f}±{row['rating_sigma']:.1f}", faults])
    columns = [("rank", "r"), ("bot", "l"), (unit, "r"), ("mean", "r"), ("95% CI", "r"),
               *([("mbb/g", "r"), ("bb/100", "r")] if poker else []), ("matches", "r"), ("rating", "r"),
               ("faults", "l")]
    return fit_table(" · ".join([f"tournament {tid}", game, *format_words(settings), *ranked]),
                     columns, rows, names=("bot",), drop=("bb/100", "rating", "matches", "95% CI", "mbb/g"),
                     width=width)


def _rate(value: float | None, spec: str) -> str:
    return "" if value is None else format(value, spec)


def _cross_table(table: Standings, unit: str, margin: bool, width: int) -> Any:
    names = [row["bot"] for row in table["standings"]]
    what = (f"mean margin of the row bot over the column bot (row's {unit} minus column's) in their shared matches"
            if margin else f"mean {unit} of the row bot in matches with the column bot")
    cells = [["-" if a == b else f"{table['cross_table'][a].get(b, 0.0):.3f}" for b in names] for a in names]
    heads = [inert(n) for n in names]
    widest = max(map(cell_width, heads), default=0)
    wide = widest * len(names) + max((len(c) for r in cells for c in r), default=0)
    if wide + 2 * len(names) + widest > width:
        # Too wide with names over the columns: the columns are the rows' ranks.
        heads = [str(i) for i in range(1, len(names) + 1)]
        cross_rows = [[f"{i}. {inert(a)}", *row] for i, (a, row) in enumerate(zip(names, cells), 1)]
    else:
        cross_rows = [[inert(a), *row] for a, row in zip(names, cells)]
    return fit_table(f"cross-table: {what}", [("", "l")] + [(h, "r") for h in heads], cross_rows, names=("",),
                     width=width)


def _head_to_head(table: Standings, margin: bool, width: int) -> Any:
    two_seats = any("elo" in row for row in table["head_to_head"])
    chips = any("los_chips" in row for row in table["head_to_head"])
    rows = []
    for row in table["head_to_head"]:
        value, low, high = ((row["margin"], row["margin_low"], row["margin_high"]) if margin
                            else (row["mean"], row["ci_low"], row["ci_high"]))
        cells = [inert(row["bot"]), inert(row["opponent"]), str(row["matches"]), str(row["wins"]),
                 str(row["losses"]), str(row["draws"]), f"{value:.3f}", _ci(low, high)]
        if two_seats:
            cells += [_elo(row), f"{100 * row['los']:.1f}%" if "los" in row else ""]
        if chips:
            los_chips = row.get("los_chips")
            cells += [f"{100 * los_chips:.1f}%" if los_chips is not None else ""]
        rows.append(cells)
    columns = [("bot", "l"), ("opponent", "l"), ("matches", "r"), ("won", "r"), ("lost", "r"), ("drawn", "r"),
               ("margin" if margin else "mean", "r"), ("95% CI", "r")]
    if two_seats:
        columns += [("Elo", "r"), ("LOS", "r")]
    if chips:
        columns += [("LOS chips", "r")]
    return fit_table("head to head: the row bot against the other, in the matches they shared",
                     columns, rows, names=("bot", "opponent"), drop=("drawn", "95% CI", "matches"), width=width)


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
    _console().print(fit_table(f"tournaments in {db}", columns, rows_out, names=("entrants",),
                               drop=("started (UTC)",)))


def _console():
    from rich.console import Console

    return Console(width=output_width())


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
        fields = ["rank", "bot", "score", "mean", "ci_low", "ci_high", "mbb_per_game", "bb_per_100", "matches",
                  "rating", "rating_mu", "rating_sigma", "faults", "forfeits", "disqualified"]
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
