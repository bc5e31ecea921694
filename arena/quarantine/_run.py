"""``arena quarantine GAME BOT``: admission checks for a new bot.

A bot is put through numbered steps, in order; the first required step that
fails stops the run and the later ones are reported as skipped:

1. the bot starts (it is spawned; no ``failed_to_start``);
2. it answers the first exchange correctly;
3. it plays N matches against the game's sample bots, in every seat, without a fault;
4. it plays several matches in one process (``--lifetime tournament``), where
   the game's protocol marks where matches end (information otherwise);
5. it stays within its time (slowest reply under half the per-reply timeout);
6. it exits when told (after the match its stdin is closed and it exits by itself);
7. it leaves no process behind (nothing it started, however it left its
   session, still running when it ended);
8. it beats a random bot (information only, unless ``--require-win``).

Steps 1, 2 and 3 are read from the same matches: the first match tells
steps 1 and 2 apart by the candidate's fault. ``failed_to_start`` fails step 1.
Any other fault that comes before the candidate gave one accepted reply fails
step 2: a timeout, a crash or an EOF before its first reply, or a first reply
that was itself rejected (the fault quotes the very line it sent). A fault
after at least one accepted reply fails step 3. Steps 5 to 7 look at the
matches of step 3 (the endings and leftovers the teardown recorded).

The opponents come from the game's own manifest (its plugin's
``reference_opponents()``), or from ``--opponents FILE``; the format is in
``arena.quarantine._manifest``.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from protocols import GamePlugin
from ._manifest import Manifest, ManifestError, manifest_of
from .._plan import check_limits, check_seats, check_seed, load_plugin

from .._spec import BadBotCommand, BotSpec
from .._checks import check_range, game_params, parse_param
from .._faults import Fault, FaultKind
from ..play._host import BotHost
from ..play._match import MatchResult, MatchSettings, SeatResult, run_match, run_series
from .._seeds import derive_seed
from ._report import FAIL, INFO, PASS, SKIP, STEP_TITLES, STEPS, QuarantineReport, StepResult
from .._text import inert

DEFAULT_MATCHES = 6
#: step 5: the slowest reply must stay under this share of the per-reply timeout
TIME_MARGIN = 0.5
#: step 4: matches played by one process of the bot (--lifetime tournament)
KEPT_MATCHES = 3
#: lines of the candidate's dialogue kept for a failure report
TRANSCRIPT_LINES = 20
STDERR_LINES = 15

# -- one match ---------------------------------------------------------------------


class _Recorder:
    """The trace callable: the last lines of the candidate's dialogue.

    ``->`` lines were sent to the candidate, ``<-`` lines are its replies.
    It also keeps the lines around the slowest reply (timed here roughly, only
    to choose what to show; the figure reported is the arena's own).
    """

    def __init__(self, seat: int, keep: int = TRANSCRIPT_LINES) -> None:
        self.seat = seat
        self.lines: deque[str] = deque(maxlen=keep)
        self.replies = 0
        self.last_reply: str | None = None
        self.first_reply: str | None = None
        self._sent_at: float | None = None
        self._slowest = 0.0
        self.around_slowest: list[str] = []

    def __call__(self, seat: int, direction: str, text: str) -> None:
        if seat != self.seat:
            return
        if direction == "->":
            for line in text.splitlines():
                self.lines.append("-> " + _clip(line))
            self._sent_at = time.perf_counter()
            return
        self.lines.append("<- " + _clip(text))
        self.replies += 1
        self.last_reply = text
        if self.first_reply is None:
            self.first_reply = text
        elif self._sent_at is not None:  # the first reply includes start-up
            took = time.perf_counter() - self._sent_at
            if took > self._slowest:
                self._slowest = took
                self.around_slowest = list(self.lines)


def _clip(line: str, limit: int = 200) -> str:
    """A line of the bot's, shortened and inert (safe to print and to put in XML)."""
    return inert(line if len(line) <= limit else line[:limit] + f"... ({len(line)} characters)")


@dataclass(slots=True)
class _Played:
    """One match the candidate played, with what is needed to report on it."""

    label: str  # e.g. "match 2 of 6"
    seat: int  # the candidate's seat
    seed: str
    lineup: list[str]  # names in seat order
    result: MatchResult
    recorder: _Recorder
    stderr: str

    @property
    def me(self) -> SeatResult:
        return self.result.seats[self.seat]

    @property
    def fault(self) -> Fault | None:
        return self.result.faults[0] if self.result.faults else None

    def accepted_replies(self) -> int:
        """Replies of the candidate the game accepted (the faulty one excluded)."""
        n = self.recorder.replies
        f = self.fault
        if (
            f is not None and f.seat == self.seat and n
            and f.received is not None and f.received == self.recorder.last_reply
        ):
            n -= 1
        return n

    def where(self) -> str:
        seats = ", ".join(
            f"seat {i} {'the bot' if i == self.seat else name}" for i, name in enumerate(self.lineup)
        )
        return f"{self.label} (seed {self.seed}): {seats}"

    def transcript(self, lines: list[str] | None = None, header: str = "last exchanges") -> list[str]:
        shown = list(self.recorder.lines) if lines is None else lines
        if not shown:
            return ["nothing was exchanged with the bot"]
        return [f"{header} (-> sent to the bot, <- its replies):"] + ["  " + ln for ln in shown]

    def stderr_lines(self) -> list[str]:
        tail = self.stderr.splitlines()[-STDERR_LINES:]
        if not tail:
            return ["its stderr: (empty)"]
        return ["last lines of its stderr:"] + ["  " + _clip(ln) for ln in tail]


def _fault_lines(fault: Fault, candidate: int | None = None) -> list[str]:
    """The fault in words; when it is not the bot under test's (seat
    ``candidate``), the faulting bot's stderr tail too: a sample bot that
    crashes says why there (the candidate's own stderr is added apart)."""
    where = f" in hand {fault.hand}" if fault.hand is not None else ""
    lines = [f"fault: {fault.kind}{where}: {inert(fault.detail)}"]
    if fault.received is not None:
        lines.append(f"received: {_clip(fault.received)!r}")
    if fault.expected:
        lines.append(f"expected: {inert(fault.expected)}")
    if candidate is not None and fault.seat != candidate:
        tail = fault.stderr_tail.splitlines()[-STDERR_LINES:]
        lines += ([f"last lines of {fault.bot}'s stderr:"] + ["  " + _clip(ln) for ln in tail] if tail
                  else [f"{fault.bot}'s stderr: (empty)"])
    return lines


async def _play(
    plugin: GamePlugin[Any], candidate: BotSpec, seat: int, others: list[BotSpec], params: Any,
    seed: str, timeout: float, log_dir: Path, label: str, host: BotHost | None, pseudonyms: bool = False,
) -> _Played:
    specs = list(others)
    specs.insert(seat, candidate)
    recorder = _Recorder(seat)
    settings = MatchSettings(timeout=timeout, log_dir=log_dir, trace=recorder, host=host, pseudonyms=pseudonyms)
    result = await run_match(plugin, specs, params, seed, settings)
    stderr = ""
    fault = result.faults[0] if result.faults else None
    if fault is not None and fault.seat == seat and fault.stderr_tail:
        stderr = fault.stderr_tail
    else:
        try:
            with open(log_dir / f"seat{seat}.stderr.log", "rb") as f:
                f.seek(0, 2)
                f.seek(max(0, f.tell() - 4096))
                stderr = f.read().decode("utf-8", "backslashreplace")
        except OSError:
            pass
    return _Played(label, seat, seed, [s.name for s in specs], result, recorder, stderr)


# -- the steps ---------------------------------------------------------------------


@dataclass(slots=True)
class Plan:
    """Everything checked and resolved before any process is started."""

    plugin: GamePlugin[Any]
    manifest: Manifest
    params: Any
    seats: int
    candidate: BotSpec
    opponents: list[BotSpec]
    randoms: list[BotSpec]
    matches: int
    seed: str
    timeout: float
    require_win: bool
    #: the bots are told per-match pseudonyms, as in a league's tournaments, so
    #: that a bot cannot tell its quarantine from the league by its opponents' names
    pseudonyms: bool = False


def make_plan(
    game_id: str, bot: "str | BotSpec", *, matches: int = DEFAULT_MATCHES, seed: int | str | None = None,
    timeout: float = 1.0, require_win: bool = False, opponents: Path | None = None, params: list[str] | None = None,
) -> Plan:
    """Check the arguments; raise ValueError with a sentence for a usage error."""
    plugin = load_plugin(game_id)
    try:
        manifest = manifest_of(plugin, opponents)
    except ManifestError as exc:
        raise ValueError(str(exc)) from None
    try:
        plugin.Params(**manifest.params)
    except (ValidationError, TypeError) as exc:
        raise ValueError(f"{manifest.path}: bad {game_id} params: {exc}") from None
    # -p changes the manifest's parameters (fewer hands for a quick check, say)
    chosen = game_params(plugin, {**manifest.params, **dict(parse_param(p) for p in params or [])}, keys=True)
    spec = plugin.spec
    seats = manifest.seats if manifest.seats is not None else (plugin.fixed_seats(chosen) or spec.max_seats)
    if not spec.min_seats <= seats <= spec.max_seats:
        raise ValueError(
            f"{manifest.path}: {game_id} is played by {spec.min_seats} to {spec.max_seats} seats, not {seats}"
        )
    check_seats(plugin, chosen, seats)
    check_limits(timeout=timeout, startup_timeout=10.0, budget=None)
    seed = check_seed(seed)
    if matches < seats:
        raise ValueError(
            f"--matches must be at least {seats} so that the bot plays every seat of {game_id}, got {matches}"
        )
    check_range("--matches", matches, seats, 10_000)
    try:
        candidate = bot if isinstance(bot, BotSpec) else BotSpec.parse(bot)
    except BadBotCommand as exc:
        raise ValueError(str(exc)) from None
    opponent_specs: list[BotSpec] = []  # (``opponents`` is the manifest given)
    randoms: list[BotSpec] = []
    for opp in manifest.opponents:
        try:
            spec_ = BotSpec.parse(manifest.command(opp), name=opp.name)
        except (BadBotCommand, ValueError) as exc:
            raise ValueError(
                f"{manifest.path}: sample bot {opp.name!r} cannot be run: {exc} "
                "(are the sample bots built? run `make bots`)"
            ) from None
        opponent_specs.append(spec_)
        if opp.random:
            randoms.append(spec_)
    return Plan(
        plugin=plugin, manifest=manifest, seats=seats, candidate=candidate,
        opponents=opponent_specs, randoms=randoms, matches=matches, params=chosen,
        seed=seed, timeout=timeout, require_win=require_win,
    )


def _lineup(plan: Plan, index: int) -> tuple[int, list[BotSpec]]:
    """Match ``index`` of step 3: the candidate's seat and the opponents, in seat order."""
    seat = index % plan.seats
    need = plan.seats - 1
    others = [plan.opponents[(index * need + k) % len(plan.opponents)] for k in range(need)]
    return seat, others


async def run_quarantine(
    plan: Plan, workdir: Path, on_step: Callable[[StepResult], None] | None = None,
    host: BotHost | None = None, on_match: Callable[[int, int, int], None] | None = None,
) -> QuarantineReport:
    """Run the steps in order; stop at the first required one that fails.

    Every bot runs through ``host`` (its sandbox level); None: level none.
    ``on_match(step, done, total)`` is told as the matches of a step are played.
    """
    run = _Run(plan, workdir, on_step, host, on_match)
    started = time.perf_counter()
    for step in (run.matches, run.kept_process, run.in_time, run.exits, run.no_leftovers, run.beats_random):
        if not await step():
            break
    run.report.duration = time.perf_counter() - started
    return run.report


class _Run:
    """One quarantine: the plan, the matches played so far, the report."""

    def __init__(self, plan: Plan, workdir: Path, on_step: Callable[[StepResult], None] | None,
                 host: BotHost | None, on_match: Callable[[int, int, int], None] | None = None) -> None:
        self.plan, self.workdir, self.on_step, self.host = plan, workdir, on_step, host
        self.on_match = on_match
        self.game = plan.plugin.spec.id
        self.report = QuarantineReport(
            game=self.game, bot=plan.candidate.name, seed=plan.seed, timeout=plan.timeout,
            matches=plan.matches, require_win=plan.require_win,
        )
        self.titles = [t.format(n=plan.matches) for t in STEP_TITLES]
        self.played: list[_Played] = []

    def progress(self, step: int, done: int, total: int) -> None:
        if self.on_match is not None:
            self.on_match(step, done, total)

    def done(self, number: int, status: str, summary: str = "", details: list[str] | None = None,
             duration: float = 0.0) -> bool:
        """Record step ``number``; after a failure, every later step as skipped. False to stop."""
        # Summaries and details quote the bot: inert, for the terminal and the XML.
        steps = [StepResult(number, self.titles[number - 1], status, inert(summary),
                            [inert(d) for d in details or []], duration)]
        if status == FAIL:
            steps += [StepResult(n, self.titles[n - 1], SKIP, f"step {number} failed")
                      for n in range(number + 1, STEPS + 1)]
        for step in steps:
            self.report.steps.append(step)
            if self.on_step is not None:
                self.on_step(step)
        return status != FAIL

    def failed_match(self, number: int, p: _Played, fault: Fault, took: float) -> bool:
        details = [p.where()] + _fault_lines(fault, p.seat) + p.transcript()
        if fault.seat == p.seat:
            summary = f"{fault.kind} in {p.label}, seat {p.seat}: {fault.detail}"
            details += p.stderr_lines()
        else:
            summary = _opponent_fault(p, fault)
        return self.done(number, FAIL, summary, details, took)

    def game_failed(self, number: int, p: _Played, took: float) -> bool:
        """The game's own code failed in ``p``: the step cannot be judged (a FAIL,
        never a pass), and the report says the bot under test is not to blame."""
        self.report.game_error = p.result.game_error
        return self.done(number, FAIL, f"the game failed, not the bot under test, in {p.label}: "
                                       f"{p.result.game_error}", [p.where()] + p.transcript(), took)

    async def matches(self) -> bool:
        """Steps 1 to 3: the matches against the sample bots."""
        plan = self.plan
        t0 = time.perf_counter()
        self.progress(3, 0, plan.matches)
        for index in range(plan.matches):
            seat, others = _lineup(plan, index)
            seed = derive_seed(plan.seed, self.game, "quarantine", index)
            p = await _play(plan.plugin, plan.candidate, seat, others, plan.params, seed, plan.timeout,
                            self.workdir / f"match{index}", f"match {index + 1} of {plan.matches}", self.host,
                            plan.pseudonyms)
            self.played.append(p)
            self.progress(3, index + 1, plan.matches)
            if p.result.game_error is not None:
                return self.game_failed(1 if index == 0 else 3, p, time.perf_counter() - t0)
            if index == 0:
                first_steps = _judge_first_match(p)
                for number, status, summary, details in first_steps:
                    took = time.perf_counter() - t0 if number == first_steps[-1][0] else 0.0
                    if not self.done(number, status, summary, details, took):
                        return False
            if p.fault is not None:
                return self.failed_match(3, p, p.fault, time.perf_counter() - t0)
        hands = sum(p.result.hands for p in self.played)
        names = sorted({name for p in self.played for i, name in enumerate(p.lineup) if i != p.seat})
        seats = sorted({p.seat for p in self.played})
        return self.done(3, PASS, f"{len(self.played)} matches, {hands} hands, seats {','.join(map(str, seats))}, "
                         f"against {', '.join(names)}", duration=time.perf_counter() - t0)

    async def kept_process(self) -> bool:
        """Step 4: several matches in one process (--lifetime tournament), where the game allows it."""
        plan = self.plan
        if not plan.plugin.reusable_processes:
            return self.done(4, INFO, f"not checked: {self.game}'s protocol has no match boundaries, so "
                                      "every match starts a fresh process")
        t0 = time.perf_counter()
        count = KEPT_MATCHES
        seat, others = _lineup(plan, 0)
        specs = list(others)
        specs.insert(seat, plan.candidate)
        recorder = _Recorder(seat)
        settings = MatchSettings(timeout=plan.timeout, log_dir=self.workdir / "kept", trace=recorder,
                                 host=self.host, pseudonyms=plan.pseudonyms)
        matches = [(plan.params, derive_seed(plan.seed, self.game, "quarantine-kept", i)) for i in range(count)]
        self.progress(4, 0, count)
        results = await run_series(plan.plugin, specs, matches, settings, lifetime="tournament")
        self.progress(4, len(results), count)
        last = results[-1]
        stderr = last.faults[0].stderr_tail if last.faults and last.faults[0].seat == seat else ""
        p = _Played(f"match {len(results)} of {count} in one process", seat, matches[len(results) - 1][1],
                    [s.name for s in specs], last, recorder, stderr)
        if last.game_error is not None:
            return self.game_failed(4, p, time.perf_counter() - t0)
        if p.fault is not None:
            return self.failed_match(4, p, p.fault, time.perf_counter() - t0)
        return self.done(4, PASS, f"{count} matches in one process against {', '.join(s.name for s in others)}, "
                                  f"{sum(r.hands for r in results)} hands", duration=time.perf_counter() - t0)

    async def in_time(self) -> bool:
        """Step 5: the slowest reply (start-up excluded) against the timeout."""
        plan = self.plan
        limit = plan.timeout * TIME_MARGIN
        slow = max(self.played, key=lambda p: p.me.slowest_reply)
        slowest = slow.me.slowest_reply
        figure = (f"slowest reply {slowest * 1000:.1f} ms in {slow.label} (limit {limit * 1000:.0f} ms, "
                  f"{TIME_MARGIN:.0%} of the {plan.timeout:g} s timeout)")
        if slowest >= limit:
            return self.done(5, FAIL, figure, [slow.where()] + slow.transcript(
                slow.recorder.around_slowest or None, "exchanges up to its slowest reply") + slow.stderr_lines())
        return self.done(5, PASS, figure)

    async def exits(self) -> bool:
        """Step 6: it exited by itself once its stdin was closed."""
        for p in self.played:
            ending = p.me.ending or "unknown"
            if not ending.startswith("exited"):
                return self.done(6, FAIL, f"in {p.label} it was still running {MatchSettings().grace:g} s after "
                                          f"its stdin was closed at the end of the match ({ending})",
                                 [p.where()] + p.transcript() + p.stderr_lines())
        codes = sorted({p.me.ending for p in self.played if p.me.ending})
        note = "" if codes == ["exited 0"] else " (not all with status 0)"
        return self.done(6, PASS, f"it exited by itself after every match: {', '.join(codes)}{note}")

    async def no_leftovers(self) -> bool:
        """Step 7: nothing it started outlived it."""
        for p in self.played:
            if p.me.leftovers is None:
                return self.done(7, FAIL, f"in {p.label} the processes it started could not be counted when it ended "
                                          "(a check that cannot run is not a pass)", [p.where()] + p.stderr_lines())
            if p.me.leftovers:
                return self.done(7, FAIL, f"in {p.label} {p.me.leftovers} process(es) it started were still "
                                          "running when it ended (they were killed)", [p.where()] + p.stderr_lines())
        return self.done(7, PASS, "no process it started was left running")

    async def beats_random(self) -> bool:
        """Step 8: against the random bot, in every seat."""
        plan = self.plan
        t0 = time.perf_counter()
        if plan.seats < 2 or not plan.randoms:
            why = "a one-seat table has no opponent" if plan.seats < 2 else \
                f"{plan.manifest.path} marks no opponent as random"
            return self.done(8, FAIL if plan.require_win else INFO, f"not checked: {why}")
        rnd = plan.randoms[0]
        mine = theirs = 0.0
        self.progress(8, 0, plan.seats)
        for seat in range(plan.seats):
            seed = derive_seed(plan.seed, self.game, "quarantine-random", seat)
            p = await _play(plan.plugin, plan.candidate, seat, [rnd] * (plan.seats - 1), plan.params, seed,
                            plan.timeout, self.workdir / f"random{seat}",
                            f"match {seat + 1} of {plan.seats} against {rnd.name}", self.host, plan.pseudonyms)
            self.progress(8, seat + 1, plan.seats)
            if p.result.game_error is not None:
                return self.game_failed(8, p, time.perf_counter() - t0)
            if p.fault is not None:
                return self.failed_match(8, p, p.fault, time.perf_counter() - t0)
            scores = [s.score for s in p.result.seats]
            mine += scores[seat]
            theirs += (sum(scores) - scores[seat]) / (len(scores) - 1)
        n = plan.seats
        won = mine > theirs
        summary = (f"{'won' if won else 'did not win'}: score {mine / n:.3f} a match against "
                   f"{theirs / n:.3f} for {rnd.name} ({n} matches, one in each seat)")
        return self.done(8, PASS if won else (FAIL if plan.require_win else INFO), summary,
                         duration=time.perf_counter() - t0)


def _opponent_fault(p: _Played, fault: Fault) -> str:
    return (f"a sample bot failed, not the bot under test: seat {fault.seat} ({fault.bot}) "
            f"{fault.kind} in {p.label}: {fault.detail}")


def _judge_first_match(p: _Played) -> list[tuple[int, str, str, list[str]]]:
    """Steps 1 and 2 from the first match (see the module docstring for the rule)."""
    fault = p.fault
    if fault is not None and fault.seat == p.seat and fault.kind is FaultKind.FAILED_TO_START:
        return [(1, FAIL, fault.detail, [p.where()] + _fault_lines(fault))]
    if fault is not None and fault.kind is FaultKind.FAILED_TO_START:
        return [(1, FAIL, "not checked: " + _opponent_fault(p, fault), [p.where()] + _fault_lines(fault, p.seat))]
    steps: list[tuple[int, str, str, list[str]]] = [(1, PASS, "", [])]
    if fault is not None and p.accepted_replies() == 0:
        details = [p.where()] + _fault_lines(fault, p.seat) + p.transcript()
        if fault.seat == p.seat:
            summary = f"{fault.kind} before its first accepted reply: {fault.detail}"
            details += p.stderr_lines()
        else:
            summary = "not checked: " + _opponent_fault(p, fault)
        steps.append((2, FAIL, summary, details))
        return steps
    first = p.recorder.first_reply
    steps.append((2, PASS, f"first reply {_clip(first)!r}" if first is not None else "", []))
    return steps


__all__ = ["DEFAULT_MATCHES", "Plan", "make_plan", "run_quarantine"]
