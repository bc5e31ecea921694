"""Run one match: start the bots, drive the game's dialogue, end cleanly.

This is where a protocol dialogue meets real I/O. Whatever happens (a bot
fault, a finished round, Ctrl-C, a bug in the arena) the bots are shut down
by their host (``arena.play._host``).
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import trio

from protocols import GamePlugin
from protocols import ProtocolError

from ._bot import BotProcess, Trace

from .._spec import BotSpec
from ._exchange import Limits, Table, time_used
from .._faults import BotFault, Fault, FaultKind
from ._host import BotHost, open_bots, open_host
from .._seeds import chance_stream, pseudonyms, seed_text
from .._scoring import Rates, forfeit_scores, match_scores, poker_rates, tournament_scores
from ._guard import STEP_SECONDS, GameError, Guarded, StepOverrun, game_code

#: Yield to trio every this many exchanges: the raw pipe path never blocks
#: when replies are ready, and timers, Ctrl-C and other tasks need a turn.
CHECKPOINT_EVERY = 32


@dataclass(slots=True)
class MatchSettings:
    timeout: float = 1.0  # per reply, from the moment the request was delivered
    startup_timeout: float = 10.0  # for each bot's first reply, which includes its start-up
    budget: float | None = None  # total seconds per bot for the whole match
    grace: float = 0.5  # after stdin is closed, before the bots are stopped
    max_line: int | None = None  # longest reply line; None: the game's longest valid reply
    stderr_cap: int = 1024 * 1024
    log_dir: Path | None = None
    trace: Trace | None = None
    progress: Callable[[int, list], None] | None = None  # called with hands played and each seat's payoff so far
    host: BotHost | None = None  # the process owner (sandbox level); None: the machine's default level
    native: bool = True  # native code where it takes an exchange (arena.play._exchange.Table); same matches
    pseudonyms: bool = False  # bots are told per-match pseudonyms (arena._seeds.pseudonyms), not each other's names
    #: the longest the game's own code may compute between two messages (arena/play/_guard.py)
    game_seconds: float = STEP_SECONDS

    def limits(self) -> Limits:
        return Limits(self.timeout, self.startup_timeout, self.budget)


#: what a person's seat records as its sandbox level: it ran outside the sandbox
PERSON_LEVEL = "person"


def told_names(specs: list[BotSpec], seed: str, settings: MatchSettings) -> list[str]:
    """What the bots of a match are told the seats are called."""
    return pseudonyms(seed, len(specs)) if settings.pseudonyms else [s.name for s in specs]


def max_reply(plugin: GamePlugin[Any], settings: MatchSettings) -> int:
    """The reply line cap: the game's longest valid reply, unless a test sets one."""
    if settings.max_line is not None:
        return settings.max_line
    return int(plugin.max_reply_bytes)


@dataclass(slots=True)
class SeatResult:
    seat: int
    bot: str
    #: what the seat won in the game's own unit (docs/vocabulary.md, "payoff")
    payoff: int
    score: float
    time_used: float
    slowest_reply: float = 0.0
    ending: str | None = None  # "exited N" by itself after stdin closed, or "killed"
    leftovers: int | None = 0  # processes it started still running when it ended (then killed); None: not countable
    #: how this seat's process ran: the host's sandbox level, or "person" for a
    #: person's seat (the arena's own program on the person's terminal, outside the sandbox)
    sandbox: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "bot": self.bot,
            "payoff": self.payoff,
            # The key's old name, kept for scripts written before 0.2 (docs/vocabulary.md).
            "bankroll": self.payoff,
            "score": self.score,
            "time_used": round(self.time_used, 6),
            "slowest_reply": round(self.slowest_reply, 6),
            "ending": self.ending,
            "leftovers": self.leftovers,
            "sandbox": self.sandbox,
        }

    @property
    def bankroll(self) -> int:
        """``payoff`` under its old name (until 0.2)."""
        warnings.warn("SeatResult.bankroll is now SeatResult.payoff (docs/vocabulary.md)", DeprecationWarning,
                      stacklevel=2)
        return self.payoff


@dataclass(slots=True)
class MatchResult:
    game: str
    game_version: int
    seed: str
    params: dict[str, Any]
    hands: int
    completed: bool
    seats: list[SeatResult]
    faults: list[Fault] = field(default_factory=list)
    exchanges: int = 0
    #: of ``exchanges``, the messages written by native code (the compiled loop or
    #: the native exchange; 0 on the pure-Python path)
    native_messages: int = 0
    duration: float = 0.0
    log_dir: str | None = None
    #: each seat's score for a tournament (the game's rule; a poker game may rank by chips)
    tournament_scores: list[float] = field(default_factory=list)
    #: the same after a fault, by the game's fault rule (None without a fault)
    forfeit_scores: list[float] | None = None
    #: the match went on to its end without the seats that faulted (``seat_gone``)
    played_on: bool = False
    #: the sandbox level the bots ran at (``BotHost.level``); each seat's is in ``seats``
    sandbox: str | None = None
    #: the game's own code failed (raised or spun: arena/play/_guard.py), in words; the match
    #: is void, no seat is blamed
    game_error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "game_version": self.game_version,
            "seed": self.seed,
            "params": self.params,
            "hands": self.hands,
            "completed": self.completed,
            "seats": [s.to_json() for s in self.seats],
            "faults": [f.to_json() for f in self.faults],
            "tournament_scores": self.tournament_scores,
            "forfeit_scores": self.forfeit_scores,
            "played_on": self.played_on,
            "exchanges": self.exchanges,
            "native_messages": self.native_messages,
            "duration": round(self.duration, 6),
            "log_dir": self.log_dir,
            "sandbox": self.sandbox,
            "game_error": self.game_error,
            "python": sys.version.split()[0],
        }


async def run_match(
    plugin: GamePlugin[Any],
    specs: list[BotSpec],
    params: Any,
    seed: int | str,
    settings: MatchSettings | None = None,
    *,
    dialogue: Any = None,
) -> MatchResult:
    """Play one match with fresh bot processes; bot failures become faults.

    ``seed`` keys every chance event of the match (``arena._seeds``).
    ``dialogue`` replaces the game's own (seeded) dialogue, for example one
    whose chance steps are rigged by a test.
    """
    results = await run_series(plugin, specs, [(params, seed)], settings, dialogues=[dialogue])
    return results[0]


async def run_series(
    plugin: GamePlugin[Any],
    specs: list[BotSpec],
    matches: Sequence[tuple[Any, int | str]],
    settings: MatchSettings | None = None,
    *,
    lifetime: str = "match",
    dialogues: list[Any] | None = None,
) -> list[MatchResult]:
    """Play ``matches`` (params, seed) one after another between the same bots.

    ``lifetime="match"`` starts fresh processes for every match;
    ``"tournament"`` keeps one process per bot for all of them (the game's
    protocol must mark where matches begin and end). The series stops at the
    first match with a fault (fail-fast): the bots' state is then unknown.
    """
    settings = settings or MatchSettings()
    if settings.log_dir is not None:
        settings.log_dir.mkdir(parents=True, exist_ok=True)
    if lifetime not in ("match", "tournament"):
        raise ValueError(f"lifetime is 'match' or 'tournament', not {lifetime!r}")
    for params, _ in matches:  # (the library's callers too: a table the game cannot seat, in its words)
        plugin.check_seats(params, len(specs))
    if lifetime == "tournament" and len(matches) > 1 and not plugin.reusable_processes:
        raise ValueError(
            f"{plugin.spec.id}'s protocol has no match boundaries: it needs a fresh process per match"
        )
    # Without a host, the machine's default sandbox level (never none unless ARENA_SANDBOX says so).
    host = settings.host if settings.host is not None else open_host()
    try:
        run = _Series(plugin, specs, [(params, seed_text(seed)) for params, seed in matches], settings, host,
                      dialogues)
        results = await (run.in_kept_processes() if lifetime == "tournament" else run.in_fresh_processes())
    finally:
        if host is not settings.host:
            host.close()
    for result in results:
        result.sandbox = host.level
        for seat in result.seats:
            seat.sandbox = PERSON_LEVEL if specs[seat.seat].person else host.level
    return results


@dataclass(slots=True)
class _Series:
    plugin: GamePlugin[Any]
    specs: list[BotSpec]
    matches: list[tuple[Any, str]]
    settings: MatchSettings
    host: BotHost
    dialogues: list[Any] | None

    def dealer_for(self, index: int) -> Any:
        if self.dialogues is not None and self.dialogues[index] is not None:
            return self.dialogues[index]
        params, seed = self.matches[index]
        with game_code(self.plugin.spec.id, "its open_dialogue", self.settings.game_seconds):
            return self.plugin.open_dialogue(params, chance_stream(seed),
                                             told_names(self.specs, seed, self.settings), index)

    def open_bots(self, index: int | None = None):
        log_dir = self.settings.log_dir
        if index is not None and log_dir is not None and len(self.matches) > 1:
            log_dir = log_dir / f"match{index}"  # fresh processes, fresh logs
            log_dir.mkdir(parents=True, exist_ok=True)
        s = self.settings
        return open_bots(self.specs, host=self.host, log_dir=log_dir, max_line=max_reply(self.plugin, s),
                         stderr_cap=s.stderr_cap, grace=s.grace, trace=s.trace)

    async def in_kept_processes(self) -> list[MatchResult]:
        """One process per bot for every match (``--lifetime tournament``)."""
        results: list[MatchResult] = []
        bots: list[BotProcess] = []
        try:
            async with self.open_bots() as bots:
                for index, (params, seed) in enumerate(self.matches):
                    try:
                        dealer = self.dealer_for(index)
                    except GameError as exc:
                        results.append(void_result(self.plugin, self.specs, params, seed, str(exc), self.settings))
                        break
                    results.append(await play_on(self.plugin, self.specs, params, seed, dealer, bots, self.settings))
                    if results[-1].faults or results[-1].game_error:
                        break
        except BotFault as exc:  # a bot's launch failed
            try:
                results.append(failed_start(self.plugin, self.specs, self.matches[0], self.dealer_for(0), exc,
                                            self.settings))
            except GameError as error:
                results.append(void_result(self.plugin, self.specs, *self.matches[0], str(error), self.settings))
        if results:
            add_endings(results[-1], bots)
        return results

    async def in_fresh_processes(self) -> list[MatchResult]:
        results: list[MatchResult] = []
        for index, (params, seed) in enumerate(self.matches):
            bots: list[BotProcess] = []
            try:
                dealer = self.dealer_for(index)
            except GameError as exc:  # before any bot starts: nothing to tear down
                results.append(void_result(self.plugin, self.specs, params, seed, str(exc), self.settings))
                break
            try:
                async with self.open_bots(index) as bots:
                    result = await play_on(self.plugin, self.specs, params, seed, dealer, bots, self.settings)
            except BotFault as exc:
                result = failed_start(self.plugin, self.specs, self.matches[index], dealer, exc, self.settings)
            # Faults and endings are known after teardown (the stderr tail too).
            add_endings(result, bots)
            results.append(result)
            if result.faults or result.game_error:
                break
        return results


async def play_on(
    plugin: GamePlugin[Any], specs: list[BotSpec], params: Any, seed: str, dealer: Any,
    bots: list[BotProcess], settings: MatchSettings,
) -> MatchResult:
    """Play one match over bots that are already running (fresh or kept)."""
    started = time.perf_counter()
    outcome, found, exchanges, native, game_error = await _drive(plugin.spec.id, dealer, bots, settings)
    result = _result(plugin, specs, params, seed, dealer, bots, outcome, found, exchanges,
                     time.perf_counter() - started, settings, game_error)
    result.native_messages = native
    return result


def add_endings(result: MatchResult, bots: list[BotProcess]) -> None:
    """After teardown: how each bot ended, and what the faulting one left on stderr."""
    for seat in result.seats:
        if seat.seat < len(bots):
            seat.ending = bots[seat.seat].ending
            seat.leftovers = bots[seat.seat].leftovers
    for fault in result.faults:
        bot = bots[fault.seat] if fault.seat < len(bots) else None
        if bot is not None:
            fault.stderr_tail = bot.stderr_text()
            if bot.sandbox_verdict and bot.sandbox_verdict not in fault.detail:
                fault.detail += f" (sandbox: {bot.sandbox_verdict})"


#: one fault found in a match: (seat, the error, what a correct reply was, the hand it happened in)
PendingFault = tuple[int, "BotFault | ProtocolError", "str | None", "int | None"]


class _Drive:
    """One dialogue over open bots, in parts: the game's steps (each under
    ``game_code``), the compiled dialogue's turns, each exchange's replies,
    and the fault policy (whether the match plays on without a seat)."""

    def __init__(self, game: str, dealer: Any, bots: list[BotProcess], settings: MatchSettings) -> None:
        self.game, self.dealer, self.settings = game, dealer, settings
        # Native code takes finite deadlines only; a person's seat has none, and no need of speed.
        native = settings.native and not any(b.spec.person for b in bots)
        self.table = Table.open(bots, settings.limits(), dealer, native=native)
        self.exchanges = 0
        self.faults: list[PendingFault] = []
        self.sends: list[tuple[int, bytes]] = []
        self.expect: Any = None
        self.next_checkpoint = CHECKPOINT_EVERY
        self.gen: Guarded | None = None  # the dialogue, once play() starts it (its run() is the game's code)
        # At a table with an ACPC agent a fault ends the match, as under the ACPC dealer:
        # playing on would deal hands to fewer seats than the agent's game definition
        # has, and fold the seat where ACPC has no fold (a free one), states an innocent
        # agent cannot read.
        self._seat_gone = None if any(b.spec.loopback for b in bots) else getattr(dealer, "seat_gone", None)
        if hasattr(dealer, "acpc_seats"):  # a game that shows ACPC agents what their dealer shows
            dealer.acpc_seats = frozenset(b.seat for b in bots if b.spec.loopback)

    @property
    def plays_on(self) -> bool:
        """Whether a fault may leave the match going (the game plays on without a seat)."""
        return self._seat_gone is not None

    def gone(self, seat: int) -> bool:
        """The game's word on playing on without ``seat`` (False where nobody may play on)."""
        if self._seat_gone is None:
            return False
        with game_code(self.game, "its seat_gone", self.settings.game_seconds):
            return bool(self._seat_gone(seat))

    def leave(self, seat: int, error: Any, words: str | None) -> None:
        """Record ``seat``'s fault and play on without it."""
        self.faults.append((seat, error, words, _hand(self.game, self.dealer)))
        self.table.leave(seat)

    def step(self, replies: Any) -> Any:
        """The dialogue's next exchange (StopIteration at its end); a game that
        asks nobody anything for ever is a GameError."""
        assert self.gen is not None, "play() starts the dialogue"
        return self.gen.send(replies)

    async def finish(self) -> None:
        """The notifications still held; a seat whose input closed since: as if found when told."""
        self.sends = []
        while True:
            try:
                await self.table.flush_held()
                break
            except BotFault as exc:
                if exc.seat is None or not self.gone(exc.seat):
                    raise
                self.leave(exc.seat, exc, None)
        await self.table.finish()

    async def compiled(self, exchange: Any) -> tuple[Any, Any]:
        """Let the compiled dialogue play on from ``exchange`` where it may: the
        exchange the Python dialogue stands at then, and the hand-back (None:
        it did not play)."""
        progress = self.settings.progress
        handback = self.table.compiled_turn()
        while handback is not None and not handback.mid and handback.messages:
            # It stopped between exchanges (its batch of messages was played): a turn for
            # trio, and on in C where it may go on, without an exchange in Python between.
            self.exchanges += handback.messages
            await trio.lowlevel.checkpoint()
            if progress is not None:
                progress(*self.dealer.standings())
            handback = self.table.compiled_turn() or replace(handback, messages=0)
        if handback is not None:
            # The compiled dialogue played on from here; the Python one resumes where it stopped.
            self.exchanges += handback.messages
            assert self.gen is not None, "play() starts the dialogue"
            exchange = self.gen.resume()
            self.next_checkpoint = self.exchanges  # a turn for trio after every call
        return exchange, handback

    async def replies(self, exchange: Any, handback: Any) -> Sequence[str | None]:
        """The exchange written and its replies read; a seat's fault where the game plays on without it."""
        self.expect, self.sends = exchange.expect, exchange.sends
        try:
            replies: Sequence[str | None] = await self.table.replies(self.sends, exchange.reply, handback)
        except BotFault as exc:
            seat = exc.seat if exc.seat is not None else (self.sends[0][0] if self.sends else 0)
            asked = exchange.reply and any(s == seat for s, _ in self.sends)
            # Playing on needs every other reply of the exchange: one seat asked at a time.
            if (exchange.reply and len(self.sends) > 1) or not self.gone(seat):
                raise
            self.leave(seat, exc, self.words() if asked else None)
            replies = [None] if asked else []
        self.exchanges += len(self.sends)
        return replies

    def words(self) -> str | None:
        """What a correct reply to the exchange under way is, in words."""
        return self.expect() if callable(self.expect) else self.expect

    async def checkpoint(self) -> None:
        """Every CHECKPOINT_EVERY exchanges: a turn for trio, and the progress line."""
        if self.exchanges < self.next_checkpoint:
            return
        self.next_checkpoint = self.exchanges + CHECKPOINT_EVERY
        await trio.lowlevel.checkpoint()
        if self.settings.progress is not None:
            with game_code(self.game, "its standings", self.settings.game_seconds):
                standing = self.dealer.standings()
            self.settings.progress(*standing)

    async def play(self) -> Any:
        """The match to its end: its outcome (raises the fault or the game's failure that ends it)."""
        self.gen = Guarded(self.dealer, self.game, self.settings.game_seconds)
        replies: Any = None
        while True:
            try:
                exchange = self.step(replies)
            except StopIteration as stop:
                await self.finish()
                return stop.value
            if exchange.fault is not None:  # a reply the dialogue refused; it plays on without that seat
                if not self.plays_on:  # ... unless nobody may play on here: the match ends at it
                    raise exchange.fault
                self.leave(exchange.fault.seat, exchange.fault, exchange.fault.expected)
                replies = []
                continue
            exchange, handback = await self.compiled(exchange)
            replies = await self.replies(exchange, handback)
            await self.checkpoint()


async def _drive(
    game: str, dealer: Any, bots: list[BotProcess], settings: MatchSettings
) -> tuple[Any, list[PendingFault], int, int, str | None]:
    """Run one dialogue over open bots: (outcome or None, faults, exchanges,
    of which native code's, the game's own failure in words or None).

    A fault ends the match (fail-fast: no outcome), unless the dialogue plays
    on without the faulting seat (``seat_gone``: a poker game may fold it out)
    and no seat is an ACPC agent: then the fault is recorded, the bot is
    stopped, and the match goes on. The game's own code runs under
    ``game_code`` (arena/play/_guard.py): if it raises, spins, or yields
    exchanges that ask nobody anything for ever, the match ends there with
    no seat blamed.
    """
    drive = _Drive(game, dealer, bots, settings)
    for bot in bots:
        bot.in_step = False
    try:
        outcome = await drive.play()
        faulted = {seat for seat, *_ in drive.faults}
        for bot in bots:
            bot.in_step = bot.seat not in faulted
        return outcome, drive.faults, drive.exchanges, drive.table.native_messages, None
    except ProtocolError as exc:
        drive.faults.append((exc.seat, exc, exc.expected, _hand(game, dealer)))
    except BotFault as exc:
        seat = exc.seat if exc.seat is not None else (drive.sends[0][0] if drive.sends else 0)
        asked = any(s == seat for s, _ in drive.sends)
        drive.faults.append((seat, exc, drive.words() if asked else None, _hand(game, dealer)))
    except (GameError, StepOverrun) as exc:
        error = exc if isinstance(exc, GameError) else GameError(game, "its dialogue overran its time")
        # Its bots are told nothing more: the teardown ends them as after any cancelled match.
        return None, [], drive.exchanges, drive.table.native_messages, str(error)
    finally:
        if drive.gen is not None:
            drive.gen.close()  # its own cleanup is the game's too (Guarded.close)
    return None, drive.faults, drive.exchanges, drive.table.native_messages, None


def _hand(game: str, dealer: Any) -> int | None:
    try:
        with game_code(game, "its context"):
            return dealer.context().get("hand")
    except GameError:
        return None  # a report's detail: the failure itself is reported where it matters


def void_result(plugin: GamePlugin[Any], specs: list[BotSpec], params: Any, seed: str, error: str,
                settings: MatchSettings) -> MatchResult:
    """A match the game could not even open (its ``open_dialogue`` failed): void, nobody blamed."""
    return MatchResult(
        game=plugin.spec.id, game_version=plugin.spec.version, seed=seed, params=params.model_dump(mode="json"),
        hands=0, completed=False, seats=[SeatResult(seat=i, bot=s.name, payoff=0, score=0.0, time_used=0.0)
                                         for i, s in enumerate(specs)],
        log_dir=str(settings.log_dir) if settings.log_dir is not None else None,
        tournament_scores=[0.0] * len(specs), game_error=error)


def failed_start(plugin, specs, match, dealer, exc: BotFault, settings) -> MatchResult:
    params, seed = match
    found: list[PendingFault] = [(exc.seat or 0, exc, None, None)]
    return _result(plugin, specs, params, seed, dealer, [], None, found, 0, 0.0, settings)


def _fault(pending: PendingFault, specs: list[BotSpec], bots: list[BotProcess]) -> Fault:
    """A fault found in a match as the result reports it, with its bot's stderr."""
    fseat, exc, expected, hand = pending
    bot = bots[fseat] if fseat < len(bots) else None
    received: str | None  # a bot's fault may have no line
    if isinstance(exc, ProtocolError):
        kind, detail, received = FaultKind(exc.kind), exc.reason, exc.received
        if specs[fseat].loopback and received is not None:  # an ACPC agent's wrong response, in ACPC's words
            from protocols.acpc import agent_fault

            words = agent_fault(received)
            if words is not None:
                code, detail, received, expected = words
                kind = FaultKind(code)
    else:
        kind, detail, received = exc.kind, exc.detail, exc.received
        if kind is FaultKind.FAILED_TO_START:
            hand = None
    return Fault(seat=fseat, bot=specs[fseat].name, kind=kind, detail=detail, received=received, expected=expected,
                 hand=hand, stderr_tail=bot.stderr_text() if bot is not None else "",
                 stderr_log=str(bot.stderr_path) if bot is not None and bot.stderr_path else None)


def _result(
    plugin, specs, params, seed, dealer, bots, outcome, found: list[PendingFault], exchanges, duration, settings,
    game_error: str | None = None,
) -> MatchResult:
    game = plugin.spec.id
    try:
        with game_code(game, "its standings and scores"):
            hands, payoffs = dealer.standings()
            scores = match_scores(dealer, sorted({seat for seat, *_ in found}))
            by_game = tournament_scores(dealer)
            by_rule = forfeit_scores(dealer, sorted({seat for seat, *_ in found})) if found else None
    except GameError as exc:
        game_error = game_error or str(exc)
    if game_error is not None:
        # The game failed: the match is void, nobody scores, nobody is blamed.
        hands, payoffs, scores, by_game, by_rule = 0, [0] * len(specs), [0.0] * len(specs), [0.0] * len(specs), None
    faults = [_fault(pending, specs, bots) for pending in found]
    if settings.progress is not None:
        settings.progress(hands, payoffs)
    used = [time_used(bots[i]) if i < len(bots) else (0.0, 0.0) for i in range(len(specs))]
    seats = [
        SeatResult(
            seat=i,
            bot=spec.name,
            payoff=payoffs[i],
            score=scores[i],
            time_used=used[i][0],
            slowest_reply=used[i][1],
        )
        for i, spec in enumerate(specs)
    ]
    return MatchResult(
        game=plugin.spec.id,
        game_version=plugin.spec.version,
        seed=seed,
        params=params.model_dump(mode="json"),
        hands=hands,
        completed=outcome is not None and not faults,
        played_on=outcome is not None and bool(faults),
        seats=seats,
        faults=faults,
        exchanges=exchanges,
        duration=duration,
        log_dir=str(settings.log_dir) if settings.log_dir is not None else None,
        tournament_scores=by_game,
        forfeit_scores=by_rule,
        game_error=game_error,
    )


@dataclass(slots=True)
class SeriesResult:
    """Several matches between the same bots, with the game's own aggregate."""

    game: str
    game_version: int
    seed: str
    lifetime: str
    planned: int
    matches: list[MatchResult]
    seats: list[SeatResult]
    #: each match's big blind in the payoff's unit (``GamePlugin.big_blind``); None: not poker in chips
    big_blinds: list[float] | None = None
    #: each match's seating (``seats[k]`` of a match is the bot of ``seats[seating[k]]`` here);
    #: None: every match in the order of ``seats``. With several, ``seats`` are the bots (--duplicate)
    seatings: list[tuple[int, ...]] | None = None
    #: with --aivat, each bot's estimates with luck taken out (arena._scoring.LuckTally.report)
    luck: list[dict[str, Any]] | None = None

    @property
    def duplicate(self) -> bool:
        return self.seatings is not None and len(set(self.seatings)) > 1

    def seat_of(self, match: int, bot: int) -> int:
        """Where bot ``bot`` (its place in ``seats``) sat in match ``match``."""
        return self.seatings[match].index(bot) if self.seatings is not None else bot

    def bot_of(self, match: int, seat: int) -> int:
        return self.seatings[match][seat] if self.seatings is not None else seat

    @property
    def completed(self) -> bool:
        return len(self.matches) == self.planned and all(m.completed for m in self.matches)

    @property
    def played_on(self) -> bool:
        """Every match went to its end, some without seats that faulted."""
        return (len(self.matches) == self.planned and any(m.played_on for m in self.matches)
                and all(m.completed or m.played_on for m in self.matches))

    @property
    def faults(self) -> list[Fault]:
        return [f for m in self.matches for f in m.faults]

    @property
    def game_error(self) -> str | None:
        """The game's own failure that ended the series, in words (no seat blamed)."""
        return next((m.game_error for m in self.matches if m.game_error), None)

    @property
    def hands(self) -> int:
        return sum(m.hands for m in self.matches)

    @property
    def duration(self) -> float:
        return sum(m.duration for m in self.matches)

    def rates(self, seat: int) -> Rates | None:
        """The seat's mbb/g and bb/100 over the series (``poker_rates``), None where the game has no big blind."""
        if not self.big_blinds or len(self.big_blinds) < len(self.matches):
            return None
        won = sum(m.seats[self.seat_of(k, seat)].payoff / bb
                  for k, (m, bb) in enumerate(zip(self.matches, self.big_blinds)))
        return poker_rates(won, self.hands)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "game_version": self.game_version,
            "seed": self.seed,
            "lifetime": self.lifetime,
            "hands": self.hands,
            "completed": self.completed,
            "played_on": self.played_on,
            "big_blind": self.big_blinds[0] if self.big_blinds and len(set(self.big_blinds)) == 1 else None,
            # with --duplicate, each match's bots in seat order (``seats`` are then the bots, not seats)
            "seatings": [list(s) for s in self.seatings] if self.duplicate and self.seatings else None,
            # (null rates: the game has no big blind, or no hand was played)
            "seats": [{**s.to_json(), **(self.rates(s.seat) or {"mbb_per_game": None, "bb_per_100": None}),
                       **({"luck": self.luck[s.seat]} if self.luck is not None else {})}
                      for s in self.seats],
            "faults": [f.to_json() for f in self.faults],
            "game_error": self.game_error,
            "exchanges": sum(m.exchanges for m in self.matches),
            "matches_planned": self.planned,
            "matches": [m.to_json() for m in self.matches],
            "duration": round(self.duration, 6),
            "python": sys.version.split()[0],
        }


def _most_left(leftovers: list[int | None]) -> int | None:
    """A seat's leftovers over a series: the most of any match (0 without
    matches), None when some match's could not be counted."""
    if any(n is None for n in leftovers):
        return None
    return max((n for n in leftovers if n is not None), default=0)


def summarize_series(
    plugin: GamePlugin[Any], specs: list[BotSpec], seed: int | str, lifetime: str, planned: int,
    results: list[MatchResult], big_blinds: list[float] | None = None,
    seatings: list[tuple[int, ...]] | None = None,
) -> SeriesResult:
    """Combine per-match scores with the game's ``aggregate`` (default: sum);
    ``big_blinds``: each planned match's (``GamePlugin.big_blind``), for poker's
    rates; ``seatings``: each result's order of ``specs`` at the table
    (``--duplicate``), whose figures are then summed per bot."""
    series = SeriesResult(
        game=plugin.spec.id, game_version=plugin.spec.version, seed=seed_text(seed), lifetime=lifetime,
        planned=planned, matches=results, seats=[], big_blinds=big_blinds, seatings=seatings,
    )

    # bot i's seat in every match
    sat = [[m.seats[series.seat_of(k, i)] for k, m in enumerate(results)] for i in range(len(specs))]
    per_match = [[sat[i][k].score for i in range(len(specs))] for k in range(len(results))]
    scores = list(plugin.aggregate(per_match)) if per_match else [0.0] * len(specs)
    series.seats = [
        SeatResult(
            seat=i,
            bot=spec.name,
            payoff=sum(s.payoff for s in mine),
            score=scores[i],
            time_used=sum(s.time_used for s in mine),
            slowest_reply=max((s.slowest_reply for s in mine), default=0.0),
            ending=mine[-1].ending if mine else None,
            leftovers=_most_left([s.leftovers for s in mine]),
            sandbox=mine[-1].sandbox if mine else None,
        )
        for i, (spec, mine) in enumerate(zip(specs, sat))
    ]
    return series
