"""The coordinator's side: a connection to a Dask scheduler, driven from trio.

Dask's client runs its own event loop in a thread of its own; trio never
waits on it directly. Submitting is a non-blocking call, a finished match
comes back through a done-callback that hands the future to trio
(``run_sync_soon``), and the result is fetched in a worker thread. Only
the trio side writes files and the database.

Matches travel in batches, one Dask task each, played one after another on
one slot (fishtest's way): the scheduler and this side pay per batch, not per
match. A batch is sized (``batch_size``) to last about ``BATCH_SECONDS``, more
on a large cluster (so that the tasks per second stay few however many slots
there are), by the matches' mean duration so far (one match per task until
the first results tell it); never more than a third of what is left per slot,
so batches shrink towards the end of a run and the slots finish together.
A bounded number of batches is in flight (twice the cluster's slots, and a
few more; the window grows as workers join), so the scheduler never holds a
whole league's schedule, and a disqualified entrant's later matches are
decided before they are sent.

Nothing heavy passes through the scheduler: the bots' files are in this
coordinator's store (``_store``), which workers fetch from by SHA-256, and
results (transcripts and logs with them) are gathered straight from the
worker that played them.

Every match asks for a slot of this coordinator's build (``_build``), so a
worker of another arena or other games gets none; the session says so, once
per worker. A match a worker could not play for a reason of its own
(``WorkerUnfit``) is sent again, with the same seed, to a worker that has not
failed it; the reasons travel with the record.

Nothing the cluster sends is unpickled here in full (``_wire``, trusting
no one): a result comes as one msgpack document, unpacked to plain data only
(``_wire.unpack_plain``), an error as one of a few exception classes or its text.

It heals out loud. Every worker the scheduler removes (killed, stopped
answering, gone) is said, with the matches it held, which the
scheduler gives to another worker; a run with no worker of its build left
says so with its deadline; a session made to ``reconnect`` (the league's)
connects again with back-off after losing its scheduler (a restarted one
needs nothing sent again: the bots' files are in the store). Each of these is said through
``note`` and, during a run, ``on_event``.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import gc
import logging
import math
import os
import queue
import sys
import time
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import trio

from .._spec import BotSpec
from .._checks import UsageError
from ..play._jobs import MatchJob, MatchRecord
from . import _wire
from ._artifacts import ShippedBot, pack_bot
from ._build import build, describe
from ._remote import RESOURCE, SILENT_STIMULUS, WorkerUnfit, build_resource, play_batch
from ._security import check_secured, client_security, split_address
from ._store import StoreServer, open_session_store
from ._wire import NotPlain, pack_plain, unpack_plain

#: How long to wait for a first worker with arena slots (seconds; ``ARENA_WORKER_WAIT`` overrides).
WORKER_WAIT = 60.0
WORKER_WAIT_ENV = "ARENA_WORKER_WAIT"
#: How often the connection is looked at while no match finishes, and how
#: long a reconnection may take before the run stops.
CONNECTION_CHECK = 2.0
RECONNECT_WAIT = 60.0
#: A session that reconnects waits this long after the first failed try, doubling up to BACKOFF_MAX.
BACKOFF_FIRST, BACKOFF_MAX = 1.0, 30.0
#: A wait without a deadline (the league's) is said again this often (seconds).
REMINDER = 600.0
#: The most matches in one task (``ARENA_BATCH_MAX`` overrides; 1: one match per task).
BATCH_MAX = 256
BATCH_MAX_ENV = "ARENA_BATCH_MAX"
#: How long a batch should last (seconds), and the tasks per second the whole cluster
#: should send at most, which makes batches on a large cluster longer still: a task
#: costs the coordinator and the scheduler a few ms of CPU each.
BATCH_SECONDS, TASKS_PER_SECOND = 1.0, 100.0


def batch_size(pending: int, slots: int, most: int, seconds_each: float | None) -> int:
    """How many of ``pending`` matches the next task takes, ``seconds_each`` being the
    matches' mean duration so far (None: none played yet, so one): enough to last
    ``BATCH_SECONDS`` (or ``slots / TASKS_PER_SECOND``, if longer), but at most a third of
    what is left per slot, so batches shrink as the run ends (guided scheduling), and
    between 1 and ``most``."""
    slots = max(1, slots)
    if seconds_each is None:
        return 1
    lasting = max(BATCH_SECONDS, slots / TASKS_PER_SECOND)
    wanted = int(lasting / max(seconds_each, 1e-3))
    return max(1, min(most, pending // (3 * slots), wanted))


def clock(at: float) -> str:
    """A time of day for a person: ``14:05:31``."""
    return time.strftime("%H:%M:%S", time.localtime(at))


def _outcome(future: Any) -> tuple[Any, BaseException | None]:
    """A finished future's result, or what it raised (in a worker thread)."""
    try:
        return future.result(), None
    except BaseException as exc:  # the task's own error, or Dask's cancellation
        return None, exc


class ClusterError(RuntimeError):
    """A match the cluster could not play (the tournament stops; --resume goes on)."""


class ClusterLost(ClusterError):
    """The connection to the scheduler was lost, or the scheduler restarted and forgot the
    run's matches: the tournament stops (its stored matches kept), and the league plays
    it on once it has connected again."""


#: How results travel from the workers (through the scheduler) to the coordinator: msgpack
#: (plain data), and Dask's "error" family, which carries a text; never a pickle.
DESERIALIZERS = ["msgpack", "error"]


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise UsageError("--cluster needs Dask: pip install 'arena-cardgames[cluster]' (dask and distributed)") from None
    return distributed


class ClusterSession:
    """An open connection to a Dask cluster. Use ``open_cluster``; ``aclose`` it.

    Each bot's artifact is packed once per session into the session's store
    (``store``), which workers fetch from while the session lasts; workers keep
    the bytes and what they unpacked on disk. ``worker_wait``: how long a run waits for a
    worker of this build (None: as long as it takes, said every ``REMINDER``
    seconds); ``reconnect``: connect again after losing the scheduler, instead
    of raising ``ClusterLost``.
    """

    def __init__(self, address: str, client: Any, store: StoreServer, note: Callable[[str], None] | None = None,
                 connect: Callable[[], Any] | None = None) -> None:
        self.address = address
        self.client = client
        self.store = store
        #: Where the session says what an organiser should know (a refused worker, a match played again).
        self.note = note or (lambda text: print(f"arena: cluster: {text}", file=sys.stderr, flush=True))
        self._connect = connect
        self.reconnect = False
        self.worker_wait: float | None = float(os.environ.get(WORKER_WAIT_ENV) or WORKER_WAIT)
        self.build = build()
        self.resource = build_resource(self.build)
        self.batch_max = int(os.environ.get(BATCH_MAX_ENV) or BATCH_MAX)
        self._packed: dict[tuple[str, str], ShippedBot] = {}
        self._refused: set[str] = set()  # workers of another build, already said
        self._shunned: dict[str, str] = {}  # worker address -> why no match goes there any more
        self._names: dict[str, str] = {}  # worker address -> its name, as last seen
        self._removed: queue.SimpleQueue[dict] = queue.SimpleQueue()  # the scheduler's remove-worker events
        self._scheduler_id: str | None = None
        self._waiting = _NoWorker(self)

    # -- connection -----------------------------------------------------------------

    def _ask_identity(self, n_workers: int) -> dict:
        """The scheduler's identity, asked now (a worker thread). Not ``Client.scheduler_info``:
        that returns the client's one shared copy, which its periodic update (or another
        thread) may have just replaced with one listing no workers, so a run once found no
        worker to send a match to while one was playing."""
        try:
            found = self.client.sync(self.client.scheduler.identity, n_workers=n_workers)
        except Exception:
            if self.client.status == "running":
                raise
            return {}  # a closed client: no answer (the callers say the connection is lost)
        return found if isinstance(found, dict) else {}

    def _identity(self) -> str | None:
        """The scheduler's id, or None when there is no working connection (a worker thread)."""
        if self.client.status != "running":
            return None
        try:
            ident = self._ask_identity(0).get("id")
        except Exception:  # whatever a broken connection raises: the caller connects again or stops
            return None
        return ident if isinstance(ident, str) else None

    def _watch(self) -> None:
        """Hear the scheduler's events; its remove-worker ones are kept for ``_losses``."""
        def heard(event: Any) -> None:  # Dask's thread
            msg = event[1] if isinstance(event, (tuple, list)) and len(event) == 2 else None
            if isinstance(msg, dict) and msg.get("action") == "remove-worker":
                self._removed.put(msg)
        self.client.subscribe_topic("all", heard)

    async def ensure(self) -> None:
        """A working connection, to the scheduler this session's state was made with. A
        scheduler that restarted holds none of it: the bots' files are sent again. A lost
        connection raises ``ClusterLost``, or is made again (``reconnect``), said in words."""
        ident = await trio.to_thread.run_sync(self._identity)
        fresh = ident is None  # a new client: the old one's futures (the bots' files) are not its own
        if fresh:
            if not self.reconnect or self._connect is None:
                raise ClusterLost(f"lost the connection to the Dask scheduler at {self.address} "
                                  f"(client {self.client.status}); the stored matches are kept")
            ident = await self._reconnect()
        if ident == self._scheduler_id and not fresh:
            return
        if self._scheduler_id not in (None, ident):
            self.note(f"the Dask scheduler at {self.address} restarted: its workers are looked at again")
        self._scheduler_id = ident
        self._refused.clear()
        self._shunned.clear()
        await trio.to_thread.run_sync(self._watch)

    async def _reconnect(self) -> str:
        """Connect again, waiting BACKOFF_FIRST seconds after a failed try, doubling up to BACKOFF_MAX."""
        assert self._connect is not None
        since = told = time.time()
        self.note(f"lost the connection to the Dask scheduler at {self.address}: trying again after "
                  f"{BACKOFF_FIRST:g} s, then less and less often (every {BACKOFF_MAX:g} s at most), until it answers")
        old = self.client
        await trio.to_thread.run_sync(lambda: _close_quietly(old))
        delay = BACKOFF_FIRST
        while True:
            try:
                self.client = await trio.to_thread.run_sync(self._connect)
                ident = await trio.to_thread.run_sync(self._identity)
                if ident is not None:
                    self.note(f"connected again to the Dask scheduler at {self.address} after "
                              f"{time.time() - since:.0f} s")
                    return ident
                problem = f"client {self.client.status}"
            except Exception as exc:  # refused, unreachable, timed out: all are tried again
                problem = str(exc) or type(exc).__name__
            if time.time() - told > REMINDER:
                told = time.time()
                self.note(f"still cannot reach the Dask scheduler at {self.address} (since {clock(since)}): "
                          f"{problem}; trying again every {delay:g} s")
            await trio.sleep(delay)
            delay = min(2 * delay, BACKOFF_MAX)

    def workers(self) -> dict[str, dict]:
        """The workers of this build (address -> Dask's info); a worker of another build is said, once."""
        fitting = {}
        known = self._ask_identity(-1).get("workers")
        if known is None:  # a closed client's empty answer
            raise ClusterLost(f"lost the connection to the Dask scheduler at {self.address} "
                              f"(client {self.client.status}); the stored matches are kept")
        for address, w in known.items():
            resources = w.get("resources", {})
            self._names[address] = str(w.get("name", address))
            if not resources.get(RESOURCE):
                continue  # not an arena worker (one cluster can serve other work)
            if resources.get(self.resource):
                fitting[address] = w
            elif address not in self._refused:
                self._refused.add(address)
                theirs = next((r.partition(":")[2] for r in resources if r.startswith("arena-build:")), None)
                said = describe(theirs) if theirs else "an arena that does not say its build (an older one)"
                self.note(f"worker {w.get('name', address)} at {address} runs {said}; this coordinator runs "
                          f"{describe(self.build)}: refused, no match goes to it (install the same arena and "
                          "games on every machine)")
        return fitting

    def slots(self) -> int:
        return int(sum(w["resources"][RESOURCE] for a, w in self.workers().items() if a not in self._shunned))

    async def wait_for_slots(self, on_event: Callable[[str], None] | None = None) -> int:
        """The slots of this build's workers, once there are any (``worker_wait``; raises ClusterError)."""
        while True:
            n = await trio.to_thread.run_sync(self.slots)
            self._waiting.check(n, "", on_event)
            if n:
                return n
            await trio.sleep(0.25)

    async def aclose(self) -> None:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(lambda: _close_quietly(self.client))
            await trio.to_thread.run_sync(self.store.close)

    # -- bots -----------------------------------------------------------------------

    async def ship(self, specs: list[BotSpec]) -> list[dict]:
        """Each bot packed (once per session) and its bytes in this coordinator's store,
        where workers fetch them by SHA-256; their templates."""
        await self.ensure()
        out = []
        for spec in specs:
            key = (spec.name, spec.command)
            if key not in self._packed:
                shipped, data = await trio.to_thread.run_sync(pack_bot, spec)
                if data is not None:
                    await trio.to_thread.run_sync(self.store.put, data)
                self._packed[key] = shipped
            out.append(self._packed[key].to_json())
        return out

    # -- matches --------------------------------------------------------------------

    async def _next_finished(self, run: _Run, on_event: Callable[[str], None]) -> Any:
        """The next finished match; a ClusterError once the scheduler is gone for good, or no
        worker of this build has been there for ``worker_wait`` seconds.

        Dask's client reconnects by itself; while it does, no match finishes
        and no done-callback comes, so the connection is looked at now and then,
        with the workers (one lost, one of another build joined, none left).
        """
        lost_since: float | None = None
        while True:
            with trio.move_on_after(CONNECTION_CHECK):
                return await run.receive.receive()
            status = self.client.status
            if status == "running":
                lost_since = None
                if any(b.future.status == "lost" for b in run.running.values()):
                    # A scheduler that restarted does not know the matches it was given.
                    raise ClusterLost(f"the Dask scheduler at {self.address} lost this run's matches "
                                      "(it restarted?); the stored matches are kept")
                await self._losses(run, on_event)
                n = await trio.to_thread.run_sync(self.slots)
                self._waiting.check(n, f" ({run.in_flight()} match(es) waiting)", on_event)
                run.grow(n)
                continue
            now = trio.current_time()
            lost_since = now if lost_since is None else lost_since
            if status in ("closed", "closing", "failed") or now - lost_since > RECONNECT_WAIT:
                raise ClusterLost(f"lost the connection to the Dask scheduler at {self.address} "
                                  f"(client {status}); the stored matches are kept")

    async def _losses(self, run: _Run, on_event: Callable[[str], None]) -> None:
        """Say each worker the scheduler removed, and each match of ``run`` it held (the
        scheduler gives those to another worker; each record keeps the loss)."""
        if self._removed.empty():
            return
        # A worker may log an event on the same topic, naming itself: one still there was not removed.
        info = await trio.to_thread.run_sync(self._ask_identity, -1)
        present = set(info.get("workers") or ())
        while True:
            try:
                msg = self._removed.get_nowait()
            except queue.Empty:
                return
            address = str(msg.get("worker"))
            if address in present:
                continue
            name = self._names.get(address, address)
            why = _why_removed(str(msg.get("stimulus_id") or ""), bool(msg.get("expected")))
            keys = msg.get("processing-tasks") or ()
            mine = [job for k in keys if isinstance(k, str) and k in run.running for _, job, _ in run.running[k].entries]
            on_event(f"worker {name} at {address} was lost: {why}" +
                     (f"; the match(es) it held (in play or queued there) go to another worker: "
                      f"{', '.join(sorted(j.label for j in mine))}" if mine else ""))
            for job in mine:
                run.lost.setdefault(job.label, []).append({"worker": name, "reason": f"lost: {why}"})

    async def play(
        self,
        items: list[Any],
        job_for: Callable[[Any], tuple[MatchJob, list[dict]] | None],
        on_reply: Callable[[Any, MatchJob, MatchRecord, bytes | None, dict[str, bytes]], None],
        on_event: Callable[[str], None] | None = None,
        together: Callable[[], AbstractContextManager[Any]] = contextlib.nullcontext,
    ) -> None:
        """Play every item: ``job_for`` makes its job and bots (None: not to be
        played, decided just before sending); ``on_reply`` takes each match's
        record, transcript and stderr logs (relative path: bytes) on the trio
        side, in the order they finish, a batch's inside one ``together()``
        (the store's transaction); ``on_event`` hears, in words, of a
        worker lost and of a match played again (else ``note`` does)."""
        distributed = _import_distributed()
        if await trio.to_thread.run_sync(self._identity) != self._scheduler_id:  # since ``ship``
            raise ClusterLost(f"the Dask scheduler at {self.address} restarted or went away before the run began")
        tell = on_event or self.note
        run = _Run(self, items, job_for, await self.wait_for_slots(tell))
        while not self._removed.empty():  # losses before this run are not its events
            self._removed.get_nowait()
        looked = trio.current_time()
        try:
            run.launch()
            while run.running:
                future = await self._next_finished(run, tell)
                await self._losses(run, tell)
                if trio.current_time() - looked > CONNECTION_CHECK:  # a worker joined (of another build?)
                    looked = trio.current_time()
                    run.grow(await trio.to_thread.run_sync(self.slots))
                batch = run.running.pop(future.key)
                reply, failure = await trio.to_thread.run_sync(_outcome, future)
                if isinstance(failure, WorkerUnfit) and all(
                        isinstance(x, str) for x in (failure.address, failure.name, failure.reason)):
                    await self._again(run, batch.entries, failure, tell)
                    continue
                if failure is not None:
                    raise self._failed(batch.entries[0][1], failure, distributed)
                unplayed = self._store_batch(run, batch, reply, on_reply, tell, together)
                if unplayed is not None:
                    await self._again(run, *unplayed, tell)
                run.launch()
        finally:
            if run.running:
                left = [b.future for b in run.running.values()]
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(self.client.cancel, left)

    def _store_batch(self, run: _Run, batch: _Batch, reply: Any,
                     on_reply: Callable[[Any, MatchJob, MatchRecord, bytes | None, dict[str, bytes]], None],
                     tell: Callable[[str], None],
                     together: Callable[[], AbstractContextManager[Any]],
                     ) -> tuple[list[tuple[Any, MatchJob, list[dict]]], WorkerUnfit] | None:
        """A batch's results handed to ``on_reply`` (inside one ``together()``), checked first;
        (the matches it did not play, why) when its worker stopped before the end."""
        results, unfit = self._results(batch, reply)
        records = [self._record(job, result) for (_, job, _), result in zip(batch.entries, results)]
        run.played += len(records)
        run.played_for += sum(max(0.0, float(r.duration)) for r in records)
        with together():
            for (item, job, _), result, record in zip(batch.entries, results, records):
                for retry in record.retried or ():
                    tell(f"match {job.label}: worker {retry['worker']} threw a result away ({retry['reason']})")
                record.retried = [*run.history(job.label), *(record.retried or ())] or None
                on_reply(item, job, record, result.get("transcript"), result.get("logs") or {})
        return None if unfit is None else (batch.entries[len(results):], unfit)

    @staticmethod
    async def _again(run: _Run, entries: list[tuple[Any, MatchJob, list[dict]]], failure: WorkerUnfit,
                     tell: Callable[[str], None]) -> None:
        """Matches a worker could not play, sent to another worker with the same seeds."""
        for _, job, _ in entries:
            run.unfit(job, failure)
        tell(f"match(es) {', '.join(job.label for _, job, _ in entries)}: {failure}; played again on "
             "another worker")
        await trio.to_thread.run_sync(run.submit, entries)

    @staticmethod
    def _results(batch: _Batch, reply: Any) -> tuple[list[dict], WorkerUnfit | None]:
        """A batch's results (checked to be plain data, one per match played, in order) and
        why the worker stopped before the end (None: it did not)."""
        first = batch.entries[0][1].label
        try:
            reply = unpack_plain(reply)
        except NotPlain as exc:
            raise ClusterError(f"the result of the batch from match {first} is {exc}: refused") from None
        results = reply.get("results") if isinstance(reply, dict) else None
        unfit = reply.get("unfit") if isinstance(reply, dict) else None
        if not (isinstance(results, list) and len(results) <= len(batch.entries)
                and all(isinstance(r, dict) and r.get("label") == job.label
                        for r, (_, job, _) in zip(results, batch.entries))):
            raise ClusterError(f"the result of the batch from match {first} does not list its matches in "
                               "the order they were sent: refused")
        if unfit is None:
            if len(results) != len(batch.entries):
                raise ClusterError(f"the result of the batch from match {first} has {len(results)} of its "
                                   f"{len(batch.entries)} matches and says no reason: refused")
            return results, None
        if not (isinstance(unfit, dict) and all(isinstance(unfit.get(k), str) for k in ("address", "name", "reason"))
                and len(results) < len(batch.entries)):
            raise ClusterError(f"the result of the batch from match {first} names its worker's failure "
                               "wrongly: refused")
        return results, WorkerUnfit(unfit["address"], unfit["name"], unfit["reason"])

    @staticmethod
    def _record(job: MatchJob, reply: Any) -> MatchRecord:
        """The record a worker sent (plain data, checked with its batch), checked to be a match's result."""
        logs = reply.get("logs")
        if not (isinstance(reply.get("record"), dict) and isinstance(reply.get("transcript"), (bytes, type(None)))
                and isinstance(logs, dict) and all(isinstance(v, bytes) for v in logs.values())):
            raise ClusterError(f"the result of match {job.label} is not a match's result: refused")
        record = MatchRecord.from_json(reply["record"])
        retried = record.retried
        if not (retried is None or (isinstance(retried, list) and all(
                isinstance(r, dict) and isinstance(r.get("worker"), str) and isinstance(r.get("reason"), str)
                for r in retried))):
            raise ClusterError(f"the result of match {job.label} lists its replays wrongly: refused")
        return record

    def _failed(self, job: MatchJob, failure: BaseException, distributed: Any) -> ClusterError:
        """A match that failed for a reason other than its worker's, in words."""
        if self.client.status != "running" or isinstance(failure, concurrent.futures.CancelledError):
            # We cancel nothing we still wait for: Dask's client cancels every future when it
            # loses its scheduler (and may have connected again since).
            return ClusterLost(f"lost the connection to the Dask scheduler at {self.address} "
                               f"(client {self.client.status}); the stored matches are kept")
        if isinstance(failure, distributed.KilledWorker):
            return ClusterError(f"match {job.label}: every worker that tried it died ({failure})")
        if type(failure) is Exception and failure.args and isinstance(failure.args[0], (bytes, bytearray)):
            # Dask's own stand-in for an error it could not unpickle (here: one that was
            # more than one of the listed exception classes).
            return ClusterError(f"match {job.label} failed on the cluster with an error that came pickled as "
                                "more than plain data: not unpickled, nothing run")
        return ClusterError(f"match {job.label} failed on the cluster: {failure!r}")


def _close_quietly(client: Any) -> None:
    try:
        client.close(timeout=5)
    except Exception:  # a client whose scheduler is gone may fail to say goodbye; it is closed all the same
        pass


def _why_removed(stimulus: str, expected: bool) -> str:
    """Why the scheduler removed a worker, in words, from the stimulus Dask names."""
    if stimulus.startswith(SILENT_STIMULUS):
        # arena-worker-silent-30s-<time>
        limit = stimulus.removeprefix(SILENT_STIMULUS).split("-")[1].removesuffix("s")
        return f"it stopped answering for more than {limit} s (frozen, or its machine unreachable)"
    if "worker-ttl" in stimulus:
        return "it stopped answering for longer than Dask's worker-ttl"
    if expected or "retire" in stimulus:
        return "it was retired"
    if "cleanup" in stimulus or "stream" in stimulus:
        return "its connection closed (the process was killed or its machine went away)"
    return f"the scheduler removed it ({stimulus or 'no reason given'})"


class _NoWorker:
    """A wait for a worker of this build, said in words with its deadline (or its lack of one)."""

    def __init__(self, session: ClusterSession) -> None:
        self.session = session
        self.since: float | None = None
        self.told = 0.0

    def check(self, slots: int, waiting: str, on_event: Callable[[str], None] | None = None) -> None:
        """Called with the slots there are now; raises ClusterError once the deadline has passed."""
        s = self.session
        tell = on_event or s.note
        now = time.time()
        if slots:
            if self.since is not None:
                tell(f"a worker of {describe(s.build)} joined after {now - self.since:.0f} s: playing on")
                self.since = None
            return
        wait = s.worker_wait
        if self.since is None:
            self.since = self.told = now
            what = f"a worker of {describe(s.build)} to join the cluster at {s.address}{waiting}"
            tell((f"waiting for {what}, without a deadline" if wait is None else
                  f"waiting up to {wait:g} s for {what}: the run stops at {clock(now + wait)} unless one joins")
                 + f"; start one with `arena worker {s.address}`")
        elif wait is None and now - self.told > REMINDER:
            self.told = now
            tell(f"still no worker of {describe(s.build)} in the cluster at {s.address} (since {clock(self.since)})")
        if wait is not None and now - self.since > wait:
            self.since = None
            raise ClusterError(
                f"no worker of the cluster at {s.address} offers arena slots for {describe(s.build)} "
                f"after {wait:g} s; start one with `arena worker {s.address}`")


class _Batch:
    """The matches of one Dask task, in the order it plays them, and its future."""

    __slots__ = ("entries", "future")

    def __init__(self, entries: list[tuple[Any, MatchJob, list[dict]]], future: Any) -> None:
        self.entries, self.future = entries, future


class _Run:
    """One ``ClusterSession.play``: the matches waiting, the batches on the cluster (at
    most ``window``, grown as workers join), and the workers each match could not be
    played on."""

    def __init__(self, session: ClusterSession, items: list[Any],
                 job_for: Callable[[Any], tuple[MatchJob, list[dict]] | None], slots: int) -> None:
        self.session = session
        self.job_for = job_for
        self.slots = 0
        self.window = 0
        self.grow(slots)
        self.token = trio.lowlevel.current_trio_token()
        self.send, self.receive = trio.open_memory_channel[Any](math.inf)
        self.pending = list(reversed(items))
        self.running: dict[Any, _Batch] = {}
        self.failed: dict[str, dict[str, tuple[str, str]]] = {}  # job label -> {worker address: (name, reason)}
        self.lost: dict[str, list[dict[str, str]]] = {}  # job label -> workers lost while playing it
        self.run_id = uuid.uuid4().hex[:8]
        self.sent = 0
        self.played, self.played_for = 0, 0.0  # matches come back, and their seconds in all

    def grow(self, slots: int) -> None:
        """More slots than before (a worker joined): more batches in flight, and smaller ones."""
        if slots > self.slots:
            self.slots = slots
            self.window = max(self.window, 2 * slots + 2)

    def in_flight(self) -> int:
        return sum(len(b.entries) for b in self.running.values())

    def finished(self, future: Any) -> None:  # a Dask callback thread
        try:
            self.token.run_sync_soon(self.send.send_nowait, future)
        except trio.RunFinishedError:
            pass

    def submit(self, entries: list[tuple[Any, MatchJob, list[dict]]]) -> None:
        session = self.session
        tried: dict[str, tuple[str, str]] = {}
        for _, job, _ in entries:
            tried.update(self.failed.get(job.label, {}))
        avoid = set(session._shunned) | set(tried)
        where: dict[str, Any] = {}
        if avoid:
            allowed = [a for a in session.workers() if a not in avoid]
            if not allowed:
                reasons = "; ".join([*session._shunned.values(), *(f"{n}: {r}" for n, r in tried.values())])
                labels = ", ".join(job.label for _, job, _ in entries)
                raise ClusterError(f"match(es) {labels}: no worker of the cluster at {session.address} can "
                                   f"play it ({reasons})")
            where = {"workers": allowed, "allow_other_workers": False}
        self.sent += 1
        first, last = entries[0][1].label, entries[-1][1].label
        batch = pack_plain({"jobs": [job.to_json() for _, job, _ in entries], "bots": [b for _, _, b in entries]})
        future = session.client.submit(
            play_batch, batch, session.store.url, session.build, pure=False,
            key=f"arena-{self.run_id}-{self.sent}-{first}" + (f"-to-{last}" if last != first else ""),
            resources={RESOURCE: 1, session.resource: 1}, **where)
        self.running[future.key] = _Batch(entries, future)
        future.add_done_callback(self.finished)

    def launch(self) -> None:
        while self.pending and len(self.running) < self.window:
            size = batch_size(len(self.pending), self.slots, self.session.batch_max,
                              self.played_for / self.played if self.played else None)
            entries: list[tuple[Any, MatchJob, list[dict]]] = []
            while self.pending and len(entries) < size:
                item = self.pending.pop()
                made = self.job_for(item)
                if made is not None:
                    entries.append((item, *made))
            if entries:
                self.submit(entries)

    def history(self, label: str) -> list[dict[str, str]]:
        """The workers that could not play match ``label`` or were lost while playing it (forgotten here)."""
        unfit = [{"worker": n, "reason": r} for n, r in self.failed.pop(label, {}).values()]
        return unfit + self.lost.pop(label, [])

    def unfit(self, job: MatchJob, failure: WorkerUnfit) -> None:
        """A worker that could not play ``job``: not asked again for it, and for
        nothing again when its machine cannot apply the sandbox."""
        self.failed.setdefault(job.label, {})[failure.address] = (failure.name, failure.reason)
        if failure.reason.startswith("sandbox "):  # the machine's, not this match's: for good
            self.session._shunned[failure.address] = f"{failure.name}: {failure.reason}"


async def open_cluster(address: str, certs: Path | None = None) -> ClusterSession:
    """Connect to the Dask scheduler at ``address`` (raises UsageError in words);
    ``certs``: the folder of ``arena cluster init-certs``, for a ``tls://`` address."""
    distributed = _import_distributed()
    parts = split_address(address)
    if parts is None:
        raise UsageError(f"--cluster takes a Dask scheduler's address like tls://HOST:8786, not {address!r}")
    check_secured("--cluster", address, parts[0], parts[1], certs)
    assert certs is not None  # (check_secured: TLS, with certificates)
    security = client_security(certs)
    _wire.install(trusted=())

    def connect() -> Any:
        # Results are gathered from the worker that holds them, not relayed by the scheduler.
        return distributed.Client(address, timeout="15s", set_as_default=False, security=security,
                                  deserializers=DESERIALIZERS, direct_to_workers=True)

    # Dask's client logs a traceback for every failed reconnection; what the
    # user needs is said once, in words, by ClusterError.
    for name in ("distributed.client", "distributed.comm", "distributed.core"):
        logging.getLogger(name).setLevel(logging.CRITICAL)

    try:
        client = await trio.to_thread.run_sync(connect)
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"--cluster {address}: cannot reach a Dask scheduler there ({exc})") from None
    except ImportError as exc:  # how Dask's client raises the scheduler's refusal to register it
        raise UsageError(f"--cluster {address}: {exc}") from None
    try:
        store = await trio.to_thread.run_sync(open_session_store, certs, parts[1])
    except BaseException:
        await trio.to_thread.run_sync(lambda: _close_quietly(client))
        raise
    session = ClusterSession(address, client, store, connect=connect)
    try:
        await session.ensure()  # (its scheduler's id, and its events heard)
    except BaseException:
        await session.aclose()  # (the client and the store: nothing of it outlives the refusal)
        raise
    # Dask's import leaves a large heap that every full collection would walk again
    # (30 ms each, every few hundred matches): it lives as long as the session.
    gc.freeze()
    return session
