"""Tournaments: schedule, run on worker processes, store, resume.

Every match has a fixed position (round, index) in the schedule and a seed
derived from the tournament seed and that position, so the results do not
depend on how many matches run at once or in which order they finish. With
``duplicate`` every seating of the same set of entrants in a round shares one
seed: the same cards go to the same seats, and each entrant in turn plays
every seat's cards (ACPC's duplicate matches).

The whole schedule is written to the store before play (each match gets its
id up front); ``--until-ci`` writes it a round at a time and stops early once
every entrant's 95% interval is narrow enough.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from protocols import GamePlugin

from ..play._bot import BotProcess

from .._spec import BotSpec
from ..play._exchange import resynchronise
from .._faults import BotFault
from ..play._host import BotHost, open_host
from ..play._match import MatchSettings, add_endings, failed_start, max_reply, play_on
from ..sandbox import SandboxPolicy
from .._scoring import forfeit_scores
from .._seeds import chance_stream, derive_seed
from ..results._standings import BROKEN_START, Disqualification, compute_standings
from ..results._store import Store
from ..play._transcript import Transcript

FAULT_RULES = ("forfeit", "score-so-far")


@dataclass(frozen=True, slots=True)
class Pairing:
    round: int
    idx: int
    seats: tuple[int, ...]  # entrant indices, in seat order
    seed: str


def schedule(
    entrants: int, seats: int, rounds: int, seed: int | str, *, duplicate: bool = False,
    gauntlet: int | None = None, first_round: int = 0, rotations: bool = False,
) -> list[Pairing]:
    """Every ordered choice of ``seats`` distinct entrants (every seating), per round.

    ``rotations``: each set of ``seats`` entrants in its ``seats`` rotations
    only (every entrant in every seat once, the others in the same order);
    for tables of many seats, where every ordering would be too many.
    ``gauntlet``: only the seatings that include that entrant. ``duplicate``:
    the seatings of one set of entrants share the round's seed for that set.
    """
    if entrants < seats:
        raise ValueError(f"a tournament of a {seats}-seat game needs at least {seats} bots, got {entrants}")
    if rotations:
        chosen = (c[r:] + c[:r] for c in itertools.combinations(range(entrants), seats) for r in range(seats))
    else:
        chosen = itertools.permutations(range(entrants), seats)
    lineups = [lu for lu in chosen if gauntlet is None or gauntlet in lu]
    pairings = []
    for r in range(first_round, first_round + rounds):
        for i, lineup in enumerate(lineups):
            if duplicate:
                seed_i = derive_seed(seed, "round", r, "deal", *sorted(lineup))
            else:
                seed_i = derive_seed(seed, "round", r, "match", i)
            pairings.append(Pairing(r, i, lineup, seed_i))
    return pairings


@dataclass(slots=True)
class TournamentConfig:
    game: str
    params: dict[str, Any]
    bots: list[BotSpec]  # one per entrant, named
    seed: str
    rounds: int = 1
    jobs: int = 1
    seats: int = 0  # bots per match (0: the game's most)
    rotations: bool = False  # seatings are rotations only (the game's ``seatings``)
    lifetime: str = "match"
    timeout: float = 1.0
    startup_timeout: float = 10.0
    budget: float | None = None
    sandbox: str | None = None  # a level of arena.sandbox, or None for the default
    policy: SandboxPolicy = field(default_factory=SandboxPolicy)
    on_fault: str = "forfeit"  # or "score-so-far"
    max_faults: int | None = None  # disqualified at this many faults
    broken_start: int | None = None  # disqualified when its first this many matches all faulted
    duplicate: bool = False
    gauntlet: int | None = None  # the candidate's entrant index
    until_ci: float | None = None  # stop once every CI half-width is at most this
    sample: int | None = None  # at most this many matches a round (whole sets of entrants, chosen by the seed)
    unplayed: float = 0.0  # a disqualified entrant's score in a match it does not play
    cluster: str | None = None  # a Dask scheduler's address: matches run there (not stored: a run option)

    def sandbox_job(self) -> dict[str, Any]:
        return {"level": self.sandbox, "policy": self.policy.to_json()}

    def seat_for(self, plugin: GamePlugin) -> None:
        """Take the game's table size (unless given) and way of seating."""
        self.seats = self.seats or plugin.spec.max_seats
        self.rotations = plugin.seatings == "rotations"

    def pairings(self, rounds: int | None = None, first_round: int = 0) -> list[Pairing]:
        chosen = schedule(len(self.bots), self.seats, self.rounds if rounds is None else rounds, self.seed,
                          duplicate=self.duplicate, gauntlet=self.gauntlet, first_round=first_round,
                          rotations=self.rotations)
        return chosen if self.sample is None else sample_sets(chosen, self.sample, self.seed)


def sample_sets(pairings: list[Pairing], most: int, seed: int | str) -> list[Pairing]:
    """At most ``most`` pairings a round: whole sets of entrants (every seating
    of the set, so each of them still plays every seat, and a duplicate deal
    stays whole), the sets taken in an order drawn from ``seed``, at least one.

    For a big pool, where every seating is too many (a gauntlet of one bot
    against 49 others at a 3-seat table is 7,056 matches): the league's
    placement matches.
    """
    out = []
    for r in sorted({p.round for p in pairings}):
        sets: dict[tuple[int, ...], list[Pairing]] = {}
        for p in pairings:
            if p.round == r:
                sets.setdefault(tuple(sorted(p.seats)), []).append(p)
        keys = sorted(sets)
        chance_stream(derive_seed(seed, "sample", r)).shuffle(keys)
        taken = 0
        for key in keys:
            if taken and taken + len(sets[key]) > most:
                break
            out += sets[key]
            taken += len(sets[key])
    return sorted(out, key=lambda p: (p.round, p.idx))


@dataclass(slots=True)
class Progress:
    """What the coordinator reports as matches start and finish."""

    total: int
    done: int = 0
    faults: int = 0
    started_at: float = field(default_factory=time.perf_counter)
    on_start: Callable[[int, Pairing, list[str]], None] | None = None
    on_finish: Callable[[int, Pairing, list[str], dict[str, Any]], None] | None = None


@dataclass(slots=True)
class Outcome:
    """How a run of ``run_tournament`` ended."""

    rounds: int  # rounds scheduled in the end
    finished: bool
    stopped_early: bool = False


def _record(p: Pairing, result: dict[str, Any], transcript: str | None, on_fault: str) -> dict[str, Any]:
    faulted = bool(result["faults"]) and result.get("forfeit_scores") is not None
    scores = result["forfeit_scores"] if faulted and on_fault == "forfeit" else result["tournament_scores"]
    return {
        "round": p.round,
        "idx": p.idx,
        "seats": list(p.seats),
        "seed": p.seed,
        "completed": result["completed"],
        "hands": result["hands"],
        "scores": scores,
        "payoffs": [s["bankroll"] for s in result["seats"]],
        "faults": result["faults"],
        "timings": {
            "duration": result["duration"],
            "exchanges": result["exchanges"],
            "time_used": [s["time_used"] for s in result["seats"]],
            "sandbox": result.get("sandbox") or {"level": "none"},
            "scores_so_far": result["tournament_scores"],
            **({"worker": result["worker"]} if result.get("worker") is not None else {}),
        },
        "transcript": transcript,
        "log_dir": result.get("log_dir"),
    }


class _Faults:
    """Disqualifications as results come in (``Disqualification``, in the order
    they arrive), to stop launching a disqualified entrant's matches; the
    standings judge again in schedule order."""

    def __init__(self, entrants: int, config: "TournamentConfig", stored: list[dict[str, Any]]) -> None:
        self.rule = Disqualification(entrants, config.max_faults, config.broken_start)
        for m in stored:
            if m["status"] != "forfeit":
                self.add(m["seats"], m["faults"])

    def add(self, seats: list[int], faults: list[dict[str, Any]]) -> None:
        self.rule.add(list(seats), {f["seat"] for f in faults})

    def out(self, seats: tuple[int, ...]) -> bool:
        return any(self.rule.out[s] for s in seats)


async def run_tournament(
    plugin: GamePlugin, config: TournamentConfig, store: Store, tid: int, progress: Progress,
    cluster: Any = None,
) -> Outcome:
    """Play every match of tournament ``tid`` not yet stored; store each as it ends.

    With ``config.cluster`` the matches run on that Dask cluster, through
    ``cluster`` (an open ``arena.cluster.ClusterSession``) if given, else
    through a connection made for this run.
    """
    if config.cluster is not None and cluster is None:
        from ..cluster import open_cluster

        session = await open_cluster(config.cluster)
        try:
            return await run_tournament(plugin, config, store, tid, progress, session)
        finally:
            await session.aclose()
    config.seat_for(plugin)
    data = store.data_dir / f"t{tid}"
    faults = _Faults(len(config.bots), config, store.matches(tid))
    ids: dict[tuple[int, int], int] = {}

    def store_result(p: Pairing, result: dict[str, Any], transcript: str | None) -> None:
        record = _record(p, result, transcript, config.on_fault)
        store.add_match(tid, record)
        faults.add(list(p.seats), result["faults"])
        progress.done += 1
        progress.faults += len(result["faults"])
        if progress.on_finish is not None:
            progress.on_finish(ids[(p.round, p.idx)], p, [config.bots[i].name for i in p.seats], result)

    async def play(pairings: list[Pairing]) -> None:
        store.schedule(tid, pairings)
        ids.update(store.match_ids(tid))
        done = store.done_positions(tid)
        todo = [p for p in pairings if (p.round, p.idx) not in done]
        if cluster is not None:
            await _run_on_cluster(cluster, plugin, config, todo, data, store_result, progress, faults, store, tid,
                                  ids)
        elif config.lifetime == "tournament":
            await _run_in_pool(plugin, config, todo, data, store_result, progress, faults, store, tid, ids)
        else:
            await _run_on_workers(plugin, config, todo, data, store_result, progress, faults, store, tid, ids)

    if config.until_ci is None:
        await play(config.pairings())
        finished = store.done_positions(tid) >= {(p.round, p.idx) for p in config.pairings()}
        if finished:
            store.finish_tournament(tid)
        return Outcome(config.rounds, finished)
    # One round at a time, until every interval is narrow enough (or the cap).
    for r in range(config.rounds):
        round_pairings = config.pairings(rounds=1, first_round=r)
        await play(round_pairings)
        if not store.done_positions(tid) >= {(p.round, p.idx) for p in round_pairings}:
            return Outcome(r + 1, False)
        names = [b.name for b in config.bots]
        table = compute_standings(names, store.matches(tid), max_faults=config.max_faults,
                                  broken_start=config.broken_start, unplayed=config.unplayed,
                                  duplicate=config.duplicate)
        widest = max((row["ci_high"] - row["ci_low"]) / 2 for row in table["standings"]
                     if not row["disqualified"])
        if widest <= config.until_ci:
            store.set_rounds(tid, r + 1)
            store.finish_tournament(tid)
            if r + 1 < config.rounds:
                store.add_event(tid, f"stopped after round {r + 1} of {config.rounds}: every 95% interval "
                                     f"is at most +/-{config.until_ci:g} (widest +/-{widest:.3g})")
            return Outcome(r + 1, True, stopped_early=r + 1 < config.rounds)
    store.finish_tournament(tid)
    return Outcome(config.rounds, True)


def _forfeit_record(config: TournamentConfig, p: Pairing, faults: _Faults) -> dict[str, Any]:
    """A match not played: an entrant in it is disqualified."""
    out = [s for s, who in enumerate(p.seats) if faults.rule.out[who]]
    return {
        "completed": False, "hands": 0, "faults": [], "duration": 0.0, "exchanges": 0,
        "seats": [{"bankroll": 0, "time_used": 0.0} for _ in p.seats],
        "tournament_scores": [config.unplayed if s in out else 0.0 for s in range(len(p.seats))],
        "forfeit_scores": None, "status": "forfeit",
    }


def _job(plugin: GamePlugin, config: TournamentConfig, p: Pairing, data: Path) -> dict[str, Any]:
    name = f"r{p.round}-m{p.idx}"
    return {
        "key": [p.round, p.idx],
        "label": name,
        "game": plugin.spec.id,
        "params": config.params,
        "seed": p.seed,
        "bots": [{"name": config.bots[i].name, "command": config.bots[i].command} for i in p.seats],
        "timeout": config.timeout,
        "startup_timeout": config.startup_timeout,
        "budget": config.budget,
        "transcript": str(data / "transcripts" / f"{name}.log.gz"),
        "log_dir": str(data / "logs" / name),
        "sandbox": config.sandbox_job(),
    }


def _skip_forfeits(config, todo, store, tid, faults, progress, ids) -> list[Pairing]:
    """The pairings still to play, once the disqualified entrants' ones are stored as forfeits."""
    play = []
    for p in todo:
        if faults.out(p.seats):
            record = _record(p, _forfeit_record(config, p, faults), None, config.on_fault)
            record["status"] = "forfeit"
            store.add_match(tid, record)
            progress.done += 1
        else:
            play.append(p)
    return play


async def _run_on_workers(plugin, config, todo, data, store_result, progress, faults, store, tid, ids) -> None:
    """Up to ``jobs`` worker processes, each pinned to its own core, one match each at a time."""
    send, receive = trio.open_memory_channel[Pairing](math.inf)
    for p in todo:
        send.send_nowait(p)
    send.close()
    jobs = max(1, min(config.jobs, len(todo)))
    cores = os.cpu_count() or 1

    async def worker(core: int) -> None:
        process = await trio.lowlevel.open_process(
            [sys.executable, "-m", "arena.play._worker", str(core % cores)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        buffer = b""
        try:
            async for p in receive:
                if not _skip_forfeits(config, [p], store, tid, faults, progress, ids):
                    continue
                if progress.on_start is not None:
                    progress.on_start(ids[(p.round, p.idx)], p, [config.bots[i].name for i in p.seats])
                job = _job(plugin, config, p, data)
                await process.stdin.send_all(json.dumps(job).encode() + b"\n")
                while b"\n" not in buffer:
                    chunk = await process.stdout.receive_some(1 << 20)
                    if not chunk:
                        raise RuntimeError(f"tournament worker on core {core} died (exit {process.returncode})")
                    buffer += chunk
                line, _, buffer = buffer.partition(b"\n")
                reply = json.loads(line)
                store_result(p, reply["result"], job["transcript"])
        finally:
            with trio.CancelScope(shield=True):
                await process.stdin.aclose()
                with trio.move_on_after(5):
                    await process.wait()
                if process.returncode is None:
                    process.terminate()  # it ends its own bots on SIGTERM
                    await process.wait()

    async with trio.open_nursery() as nursery:
        for core in range(jobs):
            nursery.start_soon(worker, core)


async def _run_on_cluster(session, plugin, config, todo, data, store_result, progress, faults, store, tid,
                          ids) -> None:
    """On a Dask cluster: the same jobs as ``_run_on_workers``, each with its bots' artifacts;
    the transcript and stderr logs come back with the result and are written here."""
    shipped = await session.ship(config.bots)

    def job_for(p: Pairing) -> tuple[dict, list[dict]] | None:
        if not _skip_forfeits(config, [p], store, tid, faults, progress, ids):
            return None
        if progress.on_start is not None:
            progress.on_start(ids[(p.round, p.idx)], p, [config.bots[i].name for i in p.seats])
        return _job(plugin, config, p, data), [shipped[i] for i in p.seats]

    def on_reply(p: Pairing, job: dict, reply: dict) -> None:
        transcript = None
        if reply.get("transcript") is not None:
            path = Path(job["transcript"])
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(reply["transcript"])
            transcript = str(path)
        log_dir = Path(job["log_dir"])
        for name, content in reply.get("logs", {}).items():
            target = log_dir / name
            if name.startswith("/") or ".." in Path(name).parts:
                raise RuntimeError(f"a worker sent a log named {name!r}, outside the match's folder")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        result = reply["result"]
        result["log_dir"] = str(log_dir) if result.get("log_dir") else None
        store_result(p, result, transcript)

    await session.play(todo, job_for, on_reply)


async def _run_in_pool(plugin, config, todo, data, store_result, progress, faults, store, tid, ids) -> None:
    """One process per entrant for the whole tournament; matches one at a time.

    The bots are started and stopped by the same host (sandbox level and
    limits) as every other path. A fault cancels the match with the fault on
    the offender alone: the offender is stopped (and started afresh for its
    next match, its state being unknown); every other bot of the match is
    brought back in step (its outstanding reply read, a ``match_end`` that
    says the match was not completed delivered) or, if that fails, started
    afresh, and is never charged.
    """
    pool: dict[int, BotProcess] = {}
    played: dict[int, int] = {}  # matches each pooled process has played (its match_start's "match")
    with open_host(config.sandbox, config.policy) as host:
        async with trio.open_nursery() as nursery:  # the bots' stderr drains
            try:
                for p in todo:
                    if not _skip_forfeits(config, [p], store, tid, faults, progress, ids):
                        continue
                    await _play_pooled(plugin, config, p, data, host, pool, played, nursery, store_result, progress,
                                       ids)
            finally:
                await host.stop(list(pool.values()))
                nursery.cancel_scope.deadline = trio.current_time() + 0.2


async def _play_pooled(plugin, config, p: Pairing, data: Path, host: BotHost, pool: dict[int, BotProcess],
                       played: dict[int, int], nursery, store_result, progress, ids) -> None:
    names = [config.bots[i].name for i in p.seats]
    if progress.on_start is not None:
        progress.on_start(ids[(p.round, p.idx)], p, names)
    params = plugin.Params(**config.params)
    specs = [config.bots[i] for i in p.seats]
    settings = MatchSettings(timeout=config.timeout, startup_timeout=config.startup_timeout,
                             budget=config.budget, host=host)
    for i in p.seats:
        if i not in pool:
            played[i] = 0  # a fresh process (its first, or after a fault) starts counting again
    dealer = plugin.open_dialogue(params, chance_stream(p.seed), names, [played[i] for i in p.seats])
    for seat, i in enumerate(p.seats):
        if i in pool:
            continue
        log_dir = data / "logs" / f"bot{i}"
        log_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            pool[i] = await host.start(config.bots[i], seat, nursery, stderr_path=log_dir / "stderr.log",
                                       max_line=max_reply(plugin, settings))
        except BotFault as exc:
            result = failed_start(plugin, specs, (params, p.seed), dealer, exc, settings)
            record = result.to_json()
            record["sandbox"] = host.summary()
            store_result(p, record, None)
            return
    bots = [pool[i] for i in p.seats]
    for i in p.seats:
        played[i] += 1
    path = data / "transcripts" / f"r{p.round}-m{p.idx}.log.gz"
    transcript = Transcript(path)
    for seat, bp in enumerate(bots):
        bp.seat = seat
        bp.set_trace(transcript)
    try:
        result = await play_on(plugin, specs, params, p.seed, dealer, bots, settings)
        faulted = {p.seats[f.seat] for f in result.faults}
        if faulted:
            await host.stop([pool.pop(i) for i in faulted])
        if faulted and not result.played_on:
            # The others: back in step for their next match, or a fresh process; never charged.
            # (A match played on without the faulting seats ended for them as usual.)
            abandon = getattr(dealer, "abandon", None)
            goodbye = dict(abandon()) if abandon is not None else {}
            for seat, i in enumerate(p.seats):
                if i in pool and not await resynchronise(pool[i], goodbye.get(seat), settings.limits()):
                    await host.stop([pool.pop(i)])
    finally:
        transcript.close()
        for bp in bots:
            bp.set_trace(None)
    add_endings(result, bots)  # the kept ones have not ended: nothing to add for them
    record = result.to_json()
    record["sandbox"] = host.summary()
    store_result(p, record, str(path))


def unplayed_score(plugin: GamePlugin, params: Any) -> float:
    """What a disqualified entrant scores in a match it does not play: its
    game's fault rule applied before the first hand."""
    dealer = plugin.open_dialogue(params, chance_stream(0), [f"seat{i}" for i in range(plugin.spec.max_seats)], 0)
    return forfeit_scores(dealer, [0])[0]


__all__ = ["BROKEN_START", "FAULT_RULES", "Outcome", "Pairing", "Progress", "TournamentConfig", "run_tournament",
           "schedule", "unplayed_score"]
