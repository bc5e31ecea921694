"""A tournament worker: plays the matches it is sent, one at a time, pinned to one core.

Run as ``python -m arena.play._worker CORE``. Each job is a ``MatchJob`` as a
JSON line on stdin; each answer a ``MatchRecord`` as a JSON line on stdout
(both in ``arena.play._jobs``, which the coordinator imports: this module is
only ever run, never imported by the arena).
The cluster sends the same two records (``arena.cluster``). The worker pins
itself (and so the bots it starts, which inherit the affinity) to CORE: on
these VMs a wake-up across cores costs about 20 µs, and one pinned process
per core is what scales (shared research: pipe-bench).

Two answers other than a record, each a JSON line with one key, say that the
match's result is not the bots' doing: ``{"void": TEXT}`` when this process
was stopped (SIGSTOP, a suspended machine) during a match in which a bot was
faulted, since the bots' clocks ran on while nothing could read their
replies; ``{"error": TEXT}`` when a bot's command cannot be started here (its
files went missing). Whoever sent the job plays it again.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import trio

from .._games import load_game

from .._spec import BadBotCommand, BotSpec
from ._host import BotHost, open_host
from ._jobs import MatchJob, MatchRecord
from ._match import MatchSettings, run_match
from ..sandbox import SandboxPolicy, share_checks_with
from ._transcript import Transcript


class Worker:
    """What one worker process keeps between jobs: a bot host per sandbox setting."""

    def __init__(self) -> None:
        self._hosts: dict[str, BotHost] = {}

    def host(self, sandbox: dict) -> BotHost:
        key = json.dumps(sandbox, sort_keys=True)
        if key not in self._hosts:
            self._hosts[key] = open_host(sandbox.get("level"), SandboxPolicy.from_json(sandbox.get("policy")))
        return self._hosts[key]

    async def play(self, job: MatchJob) -> MatchRecord:
        plugin = load_game(job.game)
        specs = [replace(BotSpec.parse(b.command, name=b.name), data=b.data) for b in job.bots]
        host = self.host(job.sandbox)
        transcript = Transcript(Path(job.transcript)) if job.transcript else None
        settings = MatchSettings(
            timeout=job.timeout,
            startup_timeout=job.startup_timeout,
            budget=job.budget,
            log_dir=Path(job.log_dir) if job.log_dir else None,
            trace=transcript,
            host=host,
            pseudonyms=job.pseudonyms,
        )
        try:
            result = await run_match(plugin, specs, plugin.Params(**job.params), job.seed, settings)
        finally:
            if transcript is not None:
                transcript.close()
        return MatchRecord.of(job.key, result, host.summary(), job.transcript)

    def close(self) -> None:
        for host in self._hosts.values():
            host.close()


#: A gap of more than this many seconds between two ticks of ``StopWatch`` counts as this process stopped.
STOP_GAP = 1.0


class StopWatch:
    """Adds up the time this process did not run: a thread that wakes every
    ``tick`` seconds and counts any gap longer than ``STOP_GAP`` beyond it. The
    monotonic clock runs on while a process is stopped; a sleeping thread
    notices only when it runs again. (Four wake-ups a second cost nothing measurable.)"""

    def __init__(self, tick: float = 0.25) -> None:
        self.tick = tick
        self._stopped = 0.0
        self._last = time.monotonic()
        threading.Thread(target=self._watch, name="arena-stopwatch", daemon=True).start()

    def _watch(self) -> None:
        while True:
            time.sleep(self.tick)
            now = time.monotonic()
            if now - self._last - self.tick > STOP_GAP:
                self._stopped += now - self._last - self.tick
            self._last = now

    def stopped(self) -> float:
        """Seconds stopped so far, a stop just ended included (whose gap the thread may not have seen yet)."""
        gap = time.monotonic() - self._last - self.tick
        return self._stopped + (gap if gap > STOP_GAP else 0.0)


async def answer(worker: Worker, job: MatchJob, watch: StopWatch) -> dict:
    """The JSON line for ``job``: its record, or why its result is not the bots' doing."""
    before = watch.stopped()
    try:
        record = await worker.play(job)
    except BadBotCommand as exc:
        return {"error": f"match {job.label}: {exc}"}
    stopped = watch.stopped() - before
    if stopped and record.faults:
        return {"void": f"this arena worker process was stopped for {stopped:.1f} s during match {job.label}, "
                        "and a bot was faulted meanwhile: its clock ran while nothing read its replies"}
    return record.to_json()  # no stop, or no bot faulted: a stop changed no verdict


async def serve(worker: Worker) -> None:
    """Play jobs until stdin closes; a close in the middle of a job means the
    coordinator is gone, so the job is abandoned (its bots are ended)."""
    stdin = trio.lowlevel.FdStream(os.dup(sys.stdin.fileno()))
    watch = StopWatch()
    send, receive = trio.open_memory_channel[MatchJob](1)
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def on_signal() -> None:
                async for _ in signals:
                    nursery.cancel_scope.cancel()
                    return

            async def read_jobs() -> None:
                buffer = b""
                while True:
                    chunk = await stdin.receive_some(65536)
                    if not chunk:
                        nursery.cancel_scope.cancel()
                        return
                    buffer += chunk
                    while b"\n" in buffer:
                        line, _, buffer = buffer.partition(b"\n")
                        await send.send(MatchJob.from_json(json.loads(line)))

            nursery.start_soon(on_signal)
            nursery.start_soon(read_jobs)
            async for job in receive:
                sys.stdout.write(json.dumps(await answer(worker, job, watch)) + "\n")
                sys.stdout.flush()


def main() -> None:
    core = int(sys.argv[1]) if len(sys.argv) > 1 else None
    if core is not None:
        try:
            os.sched_setaffinity(0, {core % (os.cpu_count() or 1)})  # (None: the count is unknown)
        except OSError:
            pass  # affinity is an optimisation, not a requirement
    # The page cache is checked once per run, by whichever of its processes starts a bot first.
    share_checks_with(os.getppid())
    worker = Worker()
    try:
        trio.run(serve, worker)
    except KeyboardInterrupt:
        pass
    except Exception as exc:
        refused = _refused_write(exc)
        if refused is None:
            raise
        # A full or read-only disk is a known condition: one line in the coordinator's log (the
        # organiser's, for the league), no traceback; the coordinator sees this worker end.
        where = f" ({refused.filename})" if refused.filename else ""
        try:
            sys.stderr.write(f"arena: a tournament worker stopped: it could not write{where}: {refused.strerror}\n")
            sys.stderr.flush()
        except OSError:
            pass  # the log's own disk is full: the coordinator still sees this worker end
        sys.exit(1)
    finally:
        worker.close()


def _refused_write(exc: BaseException) -> OSError | None:
    """The write that failed for lack of room (or on a read-only disk) behind ``exc``, if any."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS):
        return exc
    inner = list(exc.exceptions) if isinstance(exc, BaseExceptionGroup) else [exc.__cause__, exc.__context__]
    return next((found for e in inner if e is not None and (found := _refused_write(e)) is not None), None)


if __name__ == "__main__":
    main()
