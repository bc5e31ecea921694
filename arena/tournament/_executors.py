"""The three back-ends that play a tournament's matches, behind one interface.

``Executor.play(run, todo)`` plays the pairings ``todo`` of ``run`` (a
``TournamentRun``): for each, ``run.start`` just before it is launched (a
disqualified entrant's match is stored as a forfeit there), ``run.job`` for
what to play, and ``run.finish`` with the ``MatchRecord`` once it is played.

- ``Processes``: up to ``jobs`` worker processes (``arena.play._worker``),
  each pinned to its own core, one match each at a time (``--jobs``);
- ``Pool``: one bot process per entrant for the whole tournament, matches
  one at a time (``--lifetime tournament``);
- ``Cluster``: the same jobs as ``Processes`` on a Dask cluster (``--cluster``).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path
from typing import Any, Protocol

import trio

from .._faults import BotFault
from ..play._bot import DEFAULT_SYNC_WAIT, BotProcess
from ..play._exchange import resynchronise
from ..play._host import open_host
from ..play._guard import GameError, game_code
from ..play._match import MatchSettings, add_endings, failed_start, max_reply, play_on, told_names, void_result
from ..play._transcript import Transcript
from ..play._jobs import MatchJob, MatchRecord, ignore_sigint, worker_argv
from .._seeds import chance_stream
from ._schedule import Pairing
from ._state import TournamentRun


#: How many times a match whose result a stopped worker process voided is played again.
VOID_REPLAYS = 3


def _note(run: TournamentRun, text: str) -> None:
    """An event of the tournament: kept in the store and told to whoever watches the run."""
    run.store.add_event(run.tid, text)
    if run.progress.on_note is not None:
        run.progress.on_note(text)


class Executor(Protocol):
    async def play(self, run: TournamentRun, todo: list[Pairing]) -> None:
        """Play every pairing of ``todo`` that ``run.start`` allows, handing each to ``run.finish``."""


class Processes:
    """Up to ``jobs`` worker processes, each pinned to its own core, one match each at a time."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs

    async def play(self, run: TournamentRun, todo: list[Pairing]) -> None:
        send, receive = trio.open_memory_channel[Pairing](math.inf)
        for p in todo:
            send.send_nowait(p)
        send.close()
        cores = os.cpu_count() or 1

        async def worker(core: int) -> None:
            process = await trio.lowlevel.open_process(
                worker_argv(core % cores),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                preexec_fn=ignore_sigint,
            )
            stdin, stdout = process.stdin, process.stdout
            assert stdin is not None and stdout is not None  # both are pipes
            buffer = b""

            async def answer(job: MatchJob) -> dict:
                nonlocal buffer
                await stdin.send_all(json.dumps(job.to_json()).encode() + b"\n")
                while b"\n" not in buffer:
                    chunk = await stdout.receive_some(1 << 20)
                    if not chunk:
                        raise RuntimeError(f"tournament worker on core {core} died (exit {process.returncode})")
                    buffer += chunk
                line, _, buffer = buffer.partition(b"\n")
                return json.loads(line)

            try:
                async for p in receive:
                    if not run.start(p):
                        continue
                    job = run.job(p)
                    data = await answer(job)
                    for _ in range(VOID_REPLAYS):
                        if "void" not in data:
                            break
                        # This machine was stopped mid-match (arena.play._worker): no bot's fault.
                        _note(run, f"match {job.label}: {data['void']}; played again")
                        data = await answer(job)
                    if "result" not in data:
                        raise RuntimeError(f"tournament worker on core {core} could not play match {job.label}: "
                                           f"{data.get('error') or data.get('void')}")
                    run.finish(p, MatchRecord.from_json(data))
            finally:
                with trio.CancelScope(shield=True):
                    await stdin.aclose()
                    with trio.move_on_after(5):
                        await process.wait()
                    if process.returncode is None:
                        process.terminate()  # it ends its own bots on SIGTERM
                        await process.wait()

        async with trio.open_nursery() as nursery:
            for core in range(max(1, min(self.jobs, len(todo)))):
                nursery.start_soon(worker, core)


def _write(path: Path, data: bytes) -> None:
    """``path.write_bytes(data)`` in three system calls (a file object costs a few more, and
    the coordinator of a cluster writes a few files for every match)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


class Cluster:
    """On a Dask cluster, through an open ``arena.cluster.ClusterSession``: the
    same jobs as ``Processes``, each with its bots' artifacts; the transcript
    and stderr logs come back with the record and are written here."""

    def __init__(self, session: Any) -> None:
        self.session = session

    async def play(self, run: TournamentRun, todo: list[Pairing]) -> None:
        shipped = await self.session.ship(run.config.bots)

        def job_for(p: Pairing) -> tuple[MatchJob, list[dict]] | None:
            if not run.start(p):
                return None
            return run.job(p), [shipped[i] for i in p.seats]

        last_made: list[Path | None] = [None]

        def made(folder: Path) -> None:  # (the transcripts' folder, and a match's logs', made once)
            if folder != last_made[0]:
                folder.mkdir(parents=True, exist_ok=True)
                last_made[0] = folder

        def on_reply(p: Pairing, job: MatchJob, record: MatchRecord, transcript: bytes | None,
                     logs: dict[str, bytes]) -> None:
            if transcript is not None and job.transcript is not None:
                path = Path(job.transcript)
                made(path.parent)
                _write(path, transcript)
                record.transcript = str(path)
            log_dir = Path(job.log_dir or run.data / "logs" / job.label)
            for name, content in logs.items():
                if name.startswith("/") or ".." in Path(name).parts:
                    raise RuntimeError(f"a worker sent a log named {name!r}, outside the match's folder")
                target = log_dir / name
                made(target.parent)
                _write(target, content)
            for fault in record.faults:
                # The worker names the log it sent (its own folder is gone): point at the copy written here.
                where = fault.get("stderr_log")
                fault["stderr_log"] = str(log_dir / where) if isinstance(where, str) and where in logs else None
            run.finish(p, record)

        # Kept with the tournament (and with the match's record once it is played),
        # and told to whoever watches the run; the league's log when no one does.
        def on_event(text: str) -> None:
            run.store.add_event(run.tid, text)
            if run.progress.on_note is not None:
                run.progress.on_note(f"cluster: {text}")
            else:
                self.session.note(text)  # (says "arena: cluster: ..." itself)

        await self.session.play(todo, job_for, on_reply, on_event, together=run.store.together)


class Pool:
    """One process per entrant for the whole tournament; matches one at a time.

    The bots are started and stopped by the same host (sandbox level and
    limits) as every other path. A fault cancels the match with the fault on
    the offender alone: the offender is stopped (and started afresh for its
    next match, its state being unknown); every other bot of the match is
    brought back in step (its outstanding reply read, a ``match_end`` that
    says the match was not completed delivered) or, if that fails, started
    afresh, and is never charged.
    """

    def __init__(self, sync_wait: float = DEFAULT_SYNC_WAIT) -> None:
        self.sync_wait = sync_wait
        self.pool: dict[int, BotProcess] = {}
        self.played: dict[int, int] = {}  # matches each pooled process has played (its match_start's "match")

    async def play(self, run: TournamentRun, todo: list[Pairing]) -> None:
        with open_host(run.config.sandbox, run.config.policy, sync_wait=self.sync_wait) as host:
            async with trio.open_nursery() as nursery:  # the bots' stderr drains
                try:
                    for p in todo:
                        if run.start(p):
                            await self._play_one(run, p, host, nursery)
                finally:
                    await host.stop(list(self.pool.values()))
                    self.pool.clear()
                    nursery.cancel_scope.deadline = trio.current_time() + 0.2

    async def _play_one(self, run: TournamentRun, p: Pairing, host: Any, nursery: Any) -> None:
        config, plugin, pool, played = run.config, run.plugin, self.pool, self.played
        params = plugin.Params(**config.params)
        specs = [config.bots[i] for i in p.seats]
        settings = MatchSettings(timeout=config.timeout, startup_timeout=config.startup_timeout,
                                 budget=config.budget, host=host, pseudonyms=config.pseudonyms)
        for i in p.seats:
            if i not in pool:
                played[i] = 0  # a fresh process (its first, or after a fault) starts counting again
        try:
            with game_code(plugin.spec.id, "its open_dialogue", settings.game_seconds):
                dealer = plugin.open_dialogue(params, chance_stream(p.seed), told_names(specs, p.seed, settings),
                                              [played[i] for i in p.seats])
        except GameError as exc:  # the game's own failure: this match is void, the tournament goes on
            result = void_result(plugin, specs, params, p.seed, str(exc), settings)
            run.finish(p, MatchRecord.of((p.round, p.idx), result, host.summary()))
            return
        try:
            await self._start_missing(run, p, host, nursery, settings)
        except BotFault as exc:
            result = failed_start(plugin, specs, (params, p.seed), dealer, exc, settings)
            run.finish(p, MatchRecord.of((p.round, p.idx), result, host.summary()))
            return
        bots = [pool[i] for i in p.seats]
        for i in p.seats:
            played[i] += 1
        path = run.transcript_path(p)
        transcript = Transcript(path)
        for seat, bp in enumerate(bots):
            bp.seat = seat
            bp.set_trace(transcript)
        try:
            result = await play_on(plugin, specs, params, p.seed, dealer, bots, settings)
            await self._after(p, dealer, result, host, settings)
        finally:
            transcript.close()
            for bp in bots:
                bp.set_trace(None)
        add_endings(result, bots)  # the kept ones have not ended: nothing to add for them
        run.finish(p, MatchRecord.of((p.round, p.idx), result, host.summary(), str(path)))


    async def _start_missing(self, run: TournamentRun, p: Pairing, host: Any, nursery: Any,
                             settings: MatchSettings) -> None:
        """A process for every entrant of ``p`` the pool has none of (raises the BotFault of one that fails)."""
        for seat, i in enumerate(p.seats):
            if i in self.pool:
                continue
            log_dir = run.data / "logs" / f"bot{i}"
            log_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            self.pool[i] = await host.start(run.config.bots[i], seat, nursery, stderr_path=log_dir / "stderr.log",
                                            max_line=max_reply(run.plugin, settings))

    async def _after(self, p: Pairing, dealer: Any, result: Any, host: Any, settings: MatchSettings) -> None:
        """After a match: a faulting entrant's process stopped (every one, where the game failed); the
        others back in step for their next match, or a fresh process; never charged."""
        pool = self.pool
        faulted = {p.seats[f.seat] for f in result.faults}
        if result.game_error:  # where its bots stand is unknown: fresh processes for their next match
            faulted = set(p.seats)
        if faulted:
            await host.stop([pool.pop(i) for i in faulted])
        if not faulted or result.played_on or result.game_error:
            return  # a match played on without the faulting seats ended for the others as usual
        abandon = getattr(dealer, "abandon", None)
        goodbye = dict(abandon()) if abandon is not None else {}
        for seat, i in enumerate(p.seats):
            if i in pool and not await resynchronise(pool[i], goodbye.get(seat), settings.limits()):
                await host.stop([pool.pop(i)])


def executor_for(run: TournamentRun, cluster: Any = None, *, sync_wait: float = DEFAULT_SYNC_WAIT) -> Executor:
    """The back-end ``run`` plays on: ``cluster`` (an open session) if given, else by its lifetime."""
    if cluster is not None:
        return Cluster(cluster)
    if run.config.lifetime == "tournament":
        return Pool(sync_wait)
    return Processes(run.config.jobs)
