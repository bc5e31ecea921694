"""A stored match read back step by step, for the match page of any game.

A game that draws its hands (``GamePlugin.hands_of``: the poker games) gets
its chart from them. Every other game, a third-party one included, gets the
same chart and a table of its steps from what every game already gives the
arena: its dialogue is played again, in-process, from the match's seed with
the replies the transcript recorded, and ``standings()`` after each exchange
is each seat's running payoff, counted in the game's own unit (``units()``);
what a seat was told reads in the words of the game's ``seat_view``.

The replay checks itself: every line it would send must be the line the
transcript holds. Where it cannot go on (a seat faulted, the transcript was
cut, or the match was dealt in a way the page cannot repeat), it stops and
says so, and the chart falls back to the stored result alone.
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from protocols import GamePlugin

from .._seeds import chance_stream
from ..quarantine._conformance import drive

#: the rows of the steps table a page shows (the transcript below holds every line)
STEP_ROWS = 300
#: the most points of a chart (a page with one per hand of 35,000 would weigh a megabyte)
CHART_POINTS = 500


class _Stop(Exception):
    """The replay cannot follow the transcript further; the words say why."""


class StepRow(TypedDict):
    """A row of the steps table: what ``seat`` was told up to its reply, and that reply."""

    n: int  # the transcript line it starts at
    seat: int
    told: list[str]
    did: str | None  # None: no reply (yet)
    hand: NotRequired[int | None]  # from 1; set by ``read_back`` once the replay says where each hand ends


@dataclass(slots=True)
class ReadBack:
    """A match read back: the chart's points and the steps table."""

    #: what the chart's x axis counts: the game's hands word, or "moves"
    #: for a match of one hand (a game of one long hand), where hands say nothing
    unit: str
    #: the game's word for what a match is counted in (``units()["hands"]``)
    hands_word: str = "hands"
    #: and its word for a seat's payoff (``units()["payoff"]``)
    payoff_word: str = "points"
    xs: list[int] = field(default_factory=list)
    #: each seat's running payoff at each of ``xs``
    totals: list[list[float]] = field(default_factory=list)
    #: rows ``{"n", "seat", "hand", "told", "did"}`` in transcript order, the first STEP_ROWS
    steps: list[StepRow] = field(default_factory=list)
    #: the rows in all
    steps_total: int = 0
    #: the replay reached the dialogue's end (else ``problem`` says where it stopped)
    complete: bool = False
    problem: str | None = None
    #: how many of the transcript's lines the replay sent as recorded (the furthest try is kept)
    reached: int = 0
    #: transcript line -> the hands completed when the replay sent it
    hand_at: dict[int, int] = field(default_factory=dict)


def words(line: str) -> str:
    """A JSON protocol line in plain words (``{"type": "coin", "side": "heads"}``
    -> ``coin: side heads``); any other line as it is."""
    try:
        message = json.loads(line)
    except ValueError:
        return line
    if not isinstance(message, dict):
        return line
    kind = message.pop("type", None)
    parts = []
    for key, value in message.items():
        if value is None or value in ("", [], {}):
            continue
        if isinstance(value, list) and all(not isinstance(v, (list, dict)) for v in value):
            shown = " ".join("null" if v is None else str(v) for v in value)
        elif isinstance(value, (list, dict)):
            shown = json.dumps(value, separators=(",", ":"))
        elif isinstance(value, bool):
            shown = "true" if value else "false"
        else:
            shown = str(value)
        parts.append(f"{key} {shown}")
    text = ", ".join(parts)
    return f"{kind}: {text}" if kind is not None and text else str(kind) if kind is not None else text or line


def _steps(plugin: GamePlugin, params: Any, lines: Sequence[tuple[int, str, str]],
           limit: int) -> tuple[list[StepRow], int]:
    """The transcript's rows: per seat, what it was told up to a reply, and
    that reply; told in the words of the game's ``seat_view`` where it has
    them. The first ``limit`` rows, and how many there are in all (the rest
    are counted, never kept: a page shows the first ones)."""
    views: dict[int, Any] = {}
    rows: list[StepRow] = []
    open_row: dict[int, StepRow | None] = {}  # a seat's row until its reply; None past the limit
    count = 0
    for n, (seat, direction, text) in enumerate(lines):
        if seat not in open_row:  # (a reply nobody asked for shows on a row of its own)
            count += 1
            new = StepRow(n=n, seat=seat, told=[], did=None) if count <= limit else None
            if new is not None:
                rows.append(new)
            open_row[seat] = new
        row = open_row[seat]
        if direction == "->":
            if row is not None:
                row["told"].extend(_told(plugin, params, views, seat, text))
        else:
            if row is not None:
                row["did"] = words(text)
            del open_row[seat]
    return rows, count


def _told(plugin: GamePlugin, params: Any, views: dict[int, Any], seat: int, text: str) -> list[str]:
    if seat not in views:
        try:
            views[seat] = plugin.seat_view(params, seat)
        except Exception:
            views[seat] = None
    view = views[seat]
    try:
        turn = view.feed(text) if view is not None else None
    except Exception:  # a view that cannot read the line: the line in plain words
        views[seat] = None
        return [words(text)]
    if view is None:
        return [words(text)]
    if turn is None:
        return []  # a message of several lines: its words come with its last
    if getattr(turn, "raw", False) or turn.shown == [text]:
        return [words(text)]  # the plain view shows the line as it came
    return [s for s in turn.shown if s.strip()]


def read_back(plugin: GamePlugin, params: Any, seed: str | None, names: Sequence[Sequence[str]],
              lines: Sequence[tuple[int, str, str]]) -> ReadBack:
    """``lines`` (the transcript's ``(seat, "->"/"<-", text)``) read back
    through the game's dialogue; ``names``: the lists of seat names the bots
    may have been told (the league tells pseudonyms, a friendly the names),
    tried in turn until one gives the transcript's lines."""
    unit = plugin.units(params)["hands"]
    best = _best_replay(plugin, params, seed, names, lines, unit) if seed is not None else None
    out = best or ReadBack(unit=unit, problem="the match's seed is not stored")
    out.steps, out.steps_total = _steps(plugin, params, lines, STEP_ROWS)
    out.hands_word, out.payoff_word = unit, plugin.units(params)["payoff"]
    last = out.xs[-1] if out.xs and out.unit == unit else None
    for row in out.steps:
        done = out.hand_at.get(row["n"])
        # The hand a row belongs to, from 1; none for what comes after the last (the match's end).
        row["hand"] = done + 1 if done is not None and last is not None and done < last else None
    out.hand_at = {}
    return out


def _best_replay(plugin: GamePlugin, params: Any, seed: str, names: Sequence[Sequence[str]],
                 lines: Sequence[tuple[int, str, str]], unit: str) -> ReadBack | None:
    """The replay that follows the transcript furthest, over every list of
    names and ``match_index`` the match may have been opened with; the first complete one."""
    best: ReadBack | None = None
    tries = [(list(told), index) for told in names for index in _match_indexes(lines, len(told))]
    for told, index in tries:
        got = _replay(plugin, params, seed, told, index, lines, unit)
        if best is None or got.reached > best.reached:
            best = got
        if got.complete:
            break
    return best


def _match_indexes(lines: Sequence[tuple[int, str, str]], seats: int) -> list[Any]:
    """The ``match_index`` values the match may have been opened with: 0 (a
    fresh process per match), else what the JSON framing's ``match_start``
    told each seat (``protocols.jsonlines.match_number``): one number per seat
    when a tournament kept a process per entrant, one for all in a series."""
    told: dict[int, Any] = {}
    for seat, direction, text in lines:
        if direction == "->" and seat not in told:
            try:
                message = json.loads(text)
            except ValueError:
                message = None
            ok = isinstance(message, dict) and message.get("type") == "match_start"
            told[seat] = message.get("match") if ok else None
        if len(told) == seats:
            break
    numbers = [told.get(seat) for seat in range(seats)]
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers) or not any(numbers):
        return [0]
    return [0, numbers] + ([numbers[0]] if len(set(numbers)) == 1 else [])


def _replay(plugin: GamePlugin, params: Any, seed: str, names: list[str], match_index: Any,
            lines: Sequence[tuple[int, str, str]], unit: str) -> ReadBack:
    sent: dict[int, deque[tuple[int, str]]] = defaultdict(deque)
    replies: dict[int, deque[tuple[int, str]]] = defaultdict(deque)
    for n, (seat, direction, text) in enumerate(lines):
        (sent if direction == "->" else replies)[seat].append((n, text))
    seats = len(names)
    moves = hands_now = 0
    out = ReadBack(unit=unit)
    #: (hands completed, moves made, each seat's payoff) after every exchange
    marks: list[tuple[int, int, list[float]]] = [(0, 0, [0.0] * seats)]

    def note(run: Any) -> None:
        nonlocal hands_now
        hands, payoffs = run.standings()
        hands_now = hands
        row = [float(p) for p in payoffs][:seats]
        marks.append((hands, moves, row + [0.0] * (seats - len(row))))

    def sink(wire: str) -> None:
        seat_text, direction, text = wire.split(" ", 2)
        if direction != "->":
            return
        seat = int(seat_text)
        if not sent[seat]:
            raise _Stop(f"the transcript ends before seat {seat} is told {text[:60]!r}")
        n, recorded = sent[seat].popleft()
        if recorded != text:
            raise _Stop(f"line {n + 1} of the transcript is not what the game's replay sends there")
        out.hand_at[n] = hands_now
        out.reached += 1

    def answer(run: Any, seat: int, payload: bytes) -> str:
        nonlocal moves
        if not replies[seat]:
            raise _Stop(f"seat {seat} gave no reply where one was due (a fault, or the transcript's end)")
        moves += 1
        return replies[seat].popleft()[1]

    try:
        run = plugin.open_dialogue(params, chance_stream(seed), names, match_index)
        drive(run, answer, sink, on_fault=lambda fault: None, game=plugin.spec.id, note=note)
        note(run)
        out.complete = True
    except _Stop as stop:
        out.problem = str(stop)
    except Exception as exc:  # the game refused a recorded reply (a fault), or cannot be replayed here
        said = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        out.problem = f"the game's dialogue stopped there: {said}"
    _chart(out, marks, seats)
    return out


def _chart(out: ReadBack, marks: list[tuple[int, int, list[float]]], seats: int) -> None:
    """The chart's points from the standings after every exchange: one a hand
    (one a move, for a match of one hand), at most CHART_POINTS of them."""
    if marks[-1][0] > 1:
        # One point per hand, as it stood when the hand was over; the last is the final standing.
        points = {0: [0.0] * seats}
        for hands, _, payoffs in marks:
            points.setdefault(hands, payoffs)
        points[marks[-1][0]] = marks[-1][2]
    else:
        out.unit = "moves"  # a match of one hand: its moves are what the chart can count
        points = {made: payoffs for _, made, payoffs in marks}
    if len(points) > 1:
        xs = sorted(points)
        # A long match is drawn from at most CHART_POINTS of its points, its last always among them.
        every = -(-len(xs) // CHART_POINTS)
        out.xs = xs[::every] + ([xs[-1]] if (len(xs) - 1) % every else [])
        out.totals = [[points[x][s] for x in out.xs] for s in range(seats)]
