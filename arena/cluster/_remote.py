"""What runs inside a Dask worker: a batch of matches per task, each played by an arena worker process.

The Dask worker never starts a bot. Each of its task threads hands the match
to an ``arena.play._worker`` process (the same one ``--jobs`` uses locally, pinned
to one of the worker's CPUs), which starts the bots through the one
``BotHost`` at the tournament's sandbox level. If the Dask worker dies, its
arena workers read end-of-file, abandon their match and end its bots; the
scheduler gives the match to another worker, with the same seed.

Progress lines on stderr (``arena-worker NAME: start r0-m5`` / ``done``) are
stable, for people and for the worker-loss test.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from .._checks import UsageError
from ..play._jobs import JobBot, MatchJob, MatchRecord, worker_argv
from ._artifacts import (ArtifactError, ShippedBot, cache_limit, cached_artifact, checked_state, default_cache,
                         entry_state, evict, hold_entries)
from ._build import build, describe
from ._store import fetch_artifact
from ._wire import NotPlain, pack_plain, unpack_plain

#: The Dask resource every match asks for one unit of; ``arena worker``
#: offers one per CPU it is given.
RESOURCE = "arena-slot"
#: Set by ``arena worker --allow-no-sandbox``: accept matches at level ``none``.
ALLOW_NONE_ENV = "ARENA_WORKER_ALLOW_NO_SANDBOX"
#: Set by ``arena worker``: its certificates' folder (the store of artifacts is fetched from with worker.pem).
CERTS_ENV = "ARENA_WORKER_CERTS"
#: Set by ``arena worker --cpus``: the CPUs its matches are pinned to, one each.
CPUS_ENV = "ARENA_WORKER_CPUS"
#: Set by ``arena cluster scheduler --worker-silence``: seconds without a heartbeat after which the
#: scheduler gives a worker up (``_guard.give_up_silent``); its matches go to other workers.
SILENCE_ENV = "ARENA_WORKER_SILENCE"
SILENCE = 30.0
#: How the scheduler names that removal to Dask (and so to the coordinator): ``arena-worker-silent-30s-<time>``.
SILENT_STIMULUS = "arena-worker-silent"


def match_cpus() -> list[int]:
    given = os.environ.get(CPUS_ENV)
    return [int(c) for c in given.split(",")] if given else sorted(os.sched_getaffinity(0))


class MatchRefused(RuntimeError):
    """A match this worker will not play (said to the coordinator in words)."""


class WorkerUnfit(RuntimeError):
    """This worker could not play a match, through no fault of the match: its
    arena worker process died, or the sandbox level does not work here. The
    coordinator plays the match again on another worker, with the same seed."""

    def __init__(self, address: str, name: str, reason: str) -> None:
        super().__init__(address, name, reason)
        self.address, self.name, self.reason = address, name, reason

    def __str__(self) -> str:
        return f"worker {self.name} could not play it: {self.reason}"


def build_resource(text: str) -> str:
    """The Dask resource a worker of build ``text`` offers and each match of that build asks
    for, so that the scheduler never gives a match to a worker of another build."""
    return f"arena-build:{text}"


def _log(name: str, text: str) -> None:
    print(f"arena-worker {name}: {text}", file=sys.stderr, flush=True)


class _RunnerDied(RuntimeError):
    pass


#: How many times a worker plays a match again whose result was not the bots' doing
#: (a cache entry changed under it, this worker stopped while a bot was faulted).
ATTEMPTS = 3


class _Runner:
    """One ``arena.play._worker`` process, pinned to ``cpu``."""

    def __init__(self, cpu: int) -> None:
        self.cpu = cpu
        self.process = subprocess.Popen(
            worker_argv(cpu),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )

    def play(self, job: MatchJob) -> dict[str, Any]:
        """Its answer: a ``MatchRecord`` as JSON, or ``{"void": text}`` or ``{"error": text}``."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(job.to_json()).encode() + b"\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            code = self.process.wait()
            raise _RunnerDied(f"its arena worker process on CPU {self.cpu} ended (exit {code}) during the match")
        return json.loads(line)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.terminate()  # it ends its own bots on SIGTERM
            self.process.wait()


class _Runners:
    """The idle arena worker processes of this Dask worker, one per task thread at most."""

    def __init__(self) -> None:
        self._idle: queue.LifoQueue[_Runner] = queue.LifoQueue()
        self._lock = threading.Lock()
        self._made = 0

    def take(self) -> _Runner:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            with self._lock:
                cpus = match_cpus()
                cpu = cpus[self._made % len(cpus)]
                self._made += 1
            return _Runner(cpu)

    def give_back(self, runner: _Runner) -> None:
        self._idle.put(runner)


_RUNNERS = _Runners()


def warm_up() -> None:
    """An idle arena worker process for each of this worker's CPUs, started now."""
    for runner in [_RUNNERS.take() for _ in match_cpus()]:
        _RUNNERS.give_back(runner)


def _sandbox_problem(level: str | None) -> str | None:
    """Why this machine cannot apply ``level`` (None: it can)."""
    from ..sandbox import probe

    if level is None or level == "none":
        return None
    info = probe()
    return None if info.works(level) else f"sandbox '{level}' does not work there: {info.errors.get(level)}"


def _check_fit(given: MatchJob, name: str, address: str, ours: str, wanted: str) -> None:
    """Refuse a match this worker must not play (``MatchRefused``) or cannot (``WorkerUnfit``)."""
    if wanted != ours:  # the scheduler's resources keep this from happening; checked all the same
        raise MatchRefused(f"worker {name} runs {describe(ours)}, the coordinator {describe(wanted)}: "
                           "refused, a match must be played by the arena that ordered it")
    level = given.sandbox.get("level")
    if level == "none" and os.environ.get(ALLOW_NONE_ENV) != "1":
        raise MatchRefused(
            f"worker {name} does not run bots without a sandbox (--sandbox none): such a bot could reach "
            "the cluster's scheduler and run code as the worker; start the worker with --allow-no-sandbox "
            "if every bot is trusted")
    problem = _sandbox_problem(level)
    if problem is not None:
        _log(name, f"cannot play {given.label}: {problem}")
        raise WorkerUnfit(address, name, problem)


def play_batch(batch: bytes, store: str, wanted: str) -> bytes:
    """A Dask task: a batch of matches played one after another on one slot (fishtest's
    way: the scheduler and the coordinator pay per batch, not per match). ``batch`` is
    ``{"jobs": [MatchJob as JSON], "bots": [each one's seats' artifacts]}`` packed by
    ``_wire.pack_plain``, ``store`` the coordinator's store of artifacts (``_store``),
    ``wanted`` the coordinator's build.

    Returns, packed the same way, ``{"results": [...], "unfit": None | {"address",
    "name", "reason"}}``: one result per match played, in order (``{"label", "record":
    MatchRecord as JSON, "transcript": bytes or None, "logs": {relative path: bytes}}``,
    the empty logs left out; a fault's ``stderr_log`` is one of those paths). When this
    worker cannot play a match (``WorkerUnfit``), the matches before it are returned and
    ``unfit`` says why: the coordinator sends that one and the rest to another worker,
    with the same seeds.
    """
    from distributed import get_worker

    worker = get_worker()
    name, address = str(worker.name), worker.address
    ours = build()
    given, bots = _batch(batch, name)
    for job in given:
        _check_fit(job, name, address, ours, wanted)
    results: list[dict[str, Any]] = []
    cache = default_cache()
    unfit: dict[str, str] | None = None
    try:
        for job, seats in zip(given, bots, strict=True):
            results.append(_play_one(job, seats, store, cache, name, address, ours))
    except WorkerUnfit as exc:
        unfit = {"address": exc.address, "name": exc.name, "reason": exc.reason}
    finally:
        try:
            limit = cache_limit()
        except UsageError as exc:
            _log(name, f"no eviction: {exc}")
            limit = None
        if limit is not None:
            keep = {b["sha256"] for seats in bots for b in seats if b["sha256"] is not None}
            evict(cache, limit, warn=lambda text: _log(name, text), keep=keep)
    return pack_plain({"results": results, "unfit": unfit})


def _batch(batch: Any, name: str) -> tuple[list[MatchJob], list[list[dict]]]:
    """A task's batch unpacked: its jobs and their seats' artifacts (MatchRefused, in words, if it is not one)."""
    try:
        plain = unpack_plain(batch)
    except NotPlain as exc:
        raise MatchRefused(f"worker {name} was sent a batch that is {exc}: refused") from None
    jobs, bots = (plain.get("jobs"), plain.get("bots")) if isinstance(plain, dict) else (None, None)
    if not (isinstance(jobs, list) and isinstance(bots, list) and len(jobs) == len(bots) > 0
            and all(isinstance(j, dict) for j in jobs)
            and all(isinstance(seats, list) and all(isinstance(b, dict) for b in seats) for seats in bots)):
        raise MatchRefused(f"worker {name} was sent a batch that does not list matches and their bots: refused")
    return [MatchJob.from_json(job) for job in jobs], bots


def _play_one(given: MatchJob, bots: list[dict], store: str, cache: Path, name: str, address: str,
              ours: str) -> dict[str, Any]:
    """One match of a batch. A result that is not the bots' doing (a cache entry changed
    during the match, this worker stopped while a bot was faulted) is thrown away and the
    match played again here, each time kept in the record's ``retried``; ``WorkerUnfit``
    when the failure is this worker's, not the match's."""
    shas = sorted({b["sha256"] for b in bots if b["sha256"] is not None})
    retried: list[dict[str, str]] = []
    why = ""
    for _ in range(ATTEMPTS):
        with hold_entries(cache, shas):  # (before the entries are looked at: no eviction between)
            roots = _cached(shas, store, cache, name, address)
            seen = {sha: checked_state(root) for sha, root in roots.items()}
            answer, transcript, logs = _attempt(given, bots, roots, name, address)
            moved = next((f"cache entry {root} changed during the match" for sha, root in roots.items()
                          if entry_state(root) != seen[sha]), None)
        why = moved or answer.get("void") or ""
        if not why and "error" in answer:
            # Not a changed cache: this machine cannot start the bot (a runtime missing here).
            raise WorkerUnfit(address, name, str(answer["error"]))
        if not why:
            break
        _log(name, f"playing {given.label} again: {why}")
        retried.append({"worker": name, "reason": f"{why}; played again on the same worker"})
    else:
        raise WorkerUnfit(address, name, f"{ATTEMPTS} tries spoilt ({why})")
    _log(name, f"done {given.label}")
    record = MatchRecord.from_json(answer)
    # The paths were this worker's: the coordinator writes the files and sets its own.
    record.transcript = None
    record.log_dir = given.log_dir if record.log_dir else None
    record.worker = name
    record.build = ours
    record.retried = retried or None
    return {"label": given.label, "record": record.to_json(), "transcript": transcript, "logs": logs}


def _cached(shas: list[str], store: str, cache: Path, name: str, address: str) -> dict[str, Path]:
    """Each artifact's checked cache entry, its bytes fetched from the coordinator's store
    when this machine lacks them (and unpacked again where missing or changed)."""
    folder = os.environ.get(CERTS_ENV)
    try:
        if folder is None:
            raise ArtifactError(f"{CERTS_ENV} is not set (start the worker with `arena worker`)")
        certs = Path(folder)
        return {sha: cached_artifact(cache, sha, partial(fetch_artifact, store, sha, certs),
                                     warn=lambda text: _log(name, text)) for sha in shas}
    except (OSError, ArtifactError) as exc:
        raise WorkerUnfit(address, name, f"its cache of bots failed ({exc})") from None


def _attempt(given: MatchJob, bots: list[dict], roots: dict[str, Path], name: str,
             address: str) -> tuple[dict[str, Any], bytes | None, dict[str, bytes]]:
    """One play of the match in a folder of its own: the arena worker process's answer, the
    transcript and the stderr logs; each fault's ``stderr_log`` made relative to the logs."""
    with tempfile.TemporaryDirectory(prefix="arena-match-") as tmp:
        log_dir = Path(tmp) / "logs"
        here = replace(
            given,
            bots=tuple(JobBot(b["name"], ShippedBot.command(b, roots.get(b["sha256"]))) for b in bots),
            transcript=str(Path(tmp) / "transcript.log.gz") if given.transcript else None,
            log_dir=str(log_dir),
        )
        _log(name, f"start {given.label}")
        runner = _RUNNERS.take()
        try:
            answer = runner.play(here)
        except _RunnerDied as exc:
            runner.close()
            _log(name, f"cannot play {given.label}: {exc}")
            raise WorkerUnfit(address, name, str(exc)) from None
        except BaseException:
            runner.close()
            raise
        _RUNNERS.give_back(runner)
        if "result" not in answer:
            return answer, None, {}
        transcript = Path(here.transcript).read_bytes() if here.transcript and Path(here.transcript).exists() else None
        faults = answer["result"].get("faults") or ()
        for fault in faults:
            where = fault.get("stderr_log")
            inside = where and Path(where).is_relative_to(log_dir)
            fault["stderr_log"] = str(Path(where).relative_to(log_dir)) if inside else None
        # An empty log is sent only when a fault points at it: the coordinator makes a file of
        # each log it is sent, and a file costs it more than the rest of a match's record.
        named = {fault["stderr_log"] for fault in faults}
        logs = {}
        for path in sorted(log_dir.rglob("*")):
            if not path.is_file():
                continue
            relative, content = str(path.relative_to(log_dir)), path.read_bytes()
            if content or relative in named:
                logs[relative] = content
    return answer, transcript, logs
