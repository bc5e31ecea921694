"""All-play-all tournaments: schedule, run on worker processes, store, resume.

Every match has a fixed position (round, index) in the schedule and a seed
derived from the tournament seed and that position, so the results do not
depend on how many matches run at once or in which order they finish.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from games import GamePlugin

from ._bot import BotProcess, BotSpec
from ._faults import BotFault
from ._host import BotHost, open_host
from ._match import MatchSettings, add_endings, failed_start, max_reply, play_on
from ._sandbox import SandboxPolicy
from ._seeds import derive_seed
from ._store import Store
from ._transcript import Transcript


@dataclass(frozen=True, slots=True)
class Pairing:
    round: int
    idx: int
    seats: tuple[int, ...]  # entrant indices, in seat order
    seed: int


def schedule(entrants: int, seats: int, rounds: int, seed: int) -> list[Pairing]:
    """Every ordered choice of ``seats`` distinct entrants (every seating), per round."""
    if entrants < seats:
        raise ValueError(f"a tournament of a {seats}-seat game needs at least {seats} bots, got {entrants}")
    lineups = list(itertools.permutations(range(entrants), seats))
    return [
        Pairing(r, i, lineup, derive_seed(seed, "round", r, "match", i))
        for r in range(rounds)
        for i, lineup in enumerate(lineups)
    ]


@dataclass(slots=True)
class TournamentConfig:
    game: str
    params: dict[str, Any]
    bots: list[BotSpec]
    seed: int
    rounds: int = 1
    jobs: int = 1
    lifetime: str = "match"
    timeout: float = 1.0
    startup_timeout: float = 10.0
    budget: float | None = None
    sandbox: str | None = None  # a level of arena._sandbox, or None for the default
    policy: SandboxPolicy = field(default_factory=SandboxPolicy)

    def sandbox_job(self) -> dict[str, Any]:
        return {"level": self.sandbox, "policy": self.policy.to_json()}


@dataclass(slots=True)
class Progress:
    """What the coordinator reports as matches start and finish."""

    total: int
    done: int = 0
    faults: int = 0
    started_at: float = field(default_factory=time.perf_counter)
    on_start: Callable[[Pairing, list[str]], None] | None = None
    on_finish: Callable[[Pairing, list[str], dict[str, Any]], None] | None = None


def _record(p: Pairing, result: dict[str, Any], transcript: str | None, by_payoff: bool) -> dict[str, Any]:
    return {
        "round": p.round,
        "idx": p.idx,
        "seats": list(p.seats),
        "seed": p.seed,
        "completed": result["completed"],
        "hands": result["hands"],
        "scores": [s["bankroll"] if by_payoff else s["score"] for s in result["seats"]],
        "payoffs": [s["bankroll"] for s in result["seats"]],
        "faults": result["faults"],
        "timings": {
            "duration": result["duration"],
            "exchanges": result["exchanges"],
            "time_used": [s["time_used"] for s in result["seats"]],
            "sandbox": result.get("sandbox") or {"level": "none"},
        },
        "transcript": transcript,
        "log_dir": result.get("log_dir"),
    }


async def run_tournament(
    plugin: GamePlugin,
    config: TournamentConfig,
    store: Store,
    tid: int,
    bot_ids: list[int],
    progress: Progress,
) -> None:
    """Play every match of tournament ``tid`` not yet stored; store each as it ends."""
    pairings = schedule(len(config.bots), plugin.spec.max_seats, config.rounds, config.seed)
    done = store.done_positions(tid)
    todo = [p for p in pairings if (p.round, p.idx) not in done]
    progress.done = len(pairings) - len(todo)
    data = store.data_dir / f"t{tid}"

    def store_result(p: Pairing, result: dict[str, Any], transcript: str | None) -> None:
        record = _record(p, result, transcript, getattr(plugin, "tournament_score_is_payoff", False))
        record["seats"] = [bot_ids[i] for i in p.seats]
        store.add_match(tid, record)
        progress.done += 1
        progress.faults += len(result["faults"])
        if progress.on_finish is not None:
            progress.on_finish(p, [config.bots[i].name for i in p.seats], result)

    if config.lifetime == "tournament":
        await _run_in_pool(plugin, config, todo, data, store_result, progress)
    else:
        await _run_on_workers(plugin, config, todo, data, store_result, progress)
    if store.done_positions(tid) >= {(p.round, p.idx) for p in pairings}:
        store.finish_tournament(tid)


def _job(plugin: GamePlugin, config: TournamentConfig, p: Pairing, data: Path) -> dict[str, Any]:
    name = f"r{p.round}-m{p.idx}"
    return {
        "key": [p.round, p.idx],
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


async def _run_on_workers(plugin, config, todo, data, store_result, progress) -> None:
    """Up to ``jobs`` worker processes, each pinned to its own core, one match each at a time."""
    send, receive = trio.open_memory_channel[Pairing](math.inf)
    for p in todo:
        send.send_nowait(p)
    send.close()
    jobs = max(1, min(config.jobs, len(todo)))
    cores = os.cpu_count() or 1

    async def worker(core: int) -> None:
        process = await trio.lowlevel.open_process(
            [sys.executable, "-m", "arena._worker", str(core % cores)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        buffer = b""
        try:
            async for p in receive:
                if progress.on_start is not None:
                    progress.on_start(p, [config.bots[i].name for i in p.seats])
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


async def _run_in_pool(plugin, config, todo, data, store_result, progress) -> None:
    """One process per bot for the whole tournament; matches one at a time.

    The bots are started and stopped by the same host (sandbox level and
    limits) as every other path. A bot that faults is restarted for its next
    match: after a fault its state is unknown.
    """
    pool: dict[int, BotProcess] = {}
    with open_host(config.sandbox, config.policy) as host:
        async with trio.open_nursery() as nursery:  # the bots' stderr drains
            try:
                for p in todo:
                    await _play_pooled(plugin, config, p, data, host, pool, nursery, store_result, progress)
            finally:
                await host.stop(list(pool.values()))
                nursery.cancel_scope.deadline = trio.current_time() + 0.2


async def _play_pooled(plugin, config, p: Pairing, data: Path, host: BotHost, pool: dict[int, BotProcess],
                       nursery, store_result, progress) -> None:
    names = [config.bots[i].name for i in p.seats]
    if progress.on_start is not None:
        progress.on_start(p, names)
    params = plugin.Params(**config.params)
    specs = [config.bots[i] for i in p.seats]
    dealer = plugin.open_dialogue(params, random.Random(p.seed), names, p.idx)
    settings = MatchSettings(timeout=config.timeout, startup_timeout=config.startup_timeout,
                             budget=config.budget, host=host)
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
    path = data / "transcripts" / f"r{p.round}-m{p.idx}.log.gz"
    transcript = Transcript(path)
    for seat, bp in enumerate(bots):
        bp.seat = seat
        bp.set_trace(transcript)
    try:
        result = await play_on(plugin, specs, params, p.seed, dealer, bots, settings)
    finally:
        transcript.close()
        for bp in bots:
            bp.set_trace(None)
    faulted = [pool.pop(p.seats[f.seat]) for f in result.faults]
    if faulted:
        await host.stop(faulted)
    add_endings(result, bots)  # the kept ones have not ended: nothing to add for them
    record = result.to_json()
    record["sandbox"] = host.summary()
    store_result(p, record, str(path))

