"""The coordinator's side: a connection to a Dask scheduler, driven from trio.

Dask's client runs its own event loop in a thread of its own; trio never
waits on it directly. Submitting is a non-blocking call, a finished match
comes back through a done-callback that hands the future to trio
(``run_sync_soon``), and the result is fetched in a worker thread. Only
the trio side writes files and the database.

A bounded number of matches is in flight (twice the cluster's slots, and a
few more), so the scheduler never holds a whole league's schedule, and a
disqualified entrant's later matches are decided before they are sent.

Every match asks for a slot of this coordinator's build (``_build``), so a
worker of another arena or other games gets none; the session says so, once
per worker. A match a worker could not play for a reason of its own
(``WorkerUnfit``) is sent again, with the same seed, to a worker that has not
failed it; the reasons travel with the record.

Nothing the cluster sends is unpickled here in full (``_wire``, trusting
no one): a result comes as msgpack and is checked to be plain data
(``plain``), an error as one of a few exception classes or its text.
"""

from __future__ import annotations

import logging
import math
import os
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from .._spec import BotSpec
from .._checks import UsageError
from ..play._jobs import MatchJob, MatchRecord
from . import _wire
from ._artifacts import ShippedBot, pack_bot
from ._build import build, describe
from ._remote import RESOURCE, WorkerUnfit, build_resource, hold_artifact, play_match
from ._security import check_secured, client_security, split_address

#: How long to wait for a first worker with arena slots (seconds; ``ARENA_WORKER_WAIT`` overrides).
WORKER_WAIT = 60.0
WORKER_WAIT_ENV = "ARENA_WORKER_WAIT"
#: How often the connection is looked at while no match finishes, and how
#: long a reconnection may take before the run stops.
CONNECTION_CHECK = 2.0
RECONNECT_WAIT = 60.0


def _outcome(future: Any) -> tuple[Any, BaseException | None]:
    """A finished future's result, or what it raised (in a worker thread)."""
    try:
        return future.result(), None
    except BaseException as exc:  # the task's own error, or Dask's cancellation
        return None, exc


class ClusterError(RuntimeError):
    """A match the cluster could not play (the tournament stops; --resume goes on)."""


#: How results travel from the workers (through the scheduler) to the coordinator: msgpack
#: (plain data), and Dask's "error" family, which carries a text; never a pickle.
DESERIALIZERS = ["msgpack", "error"]


def plain(value: Any, where: str, depth: int = 0) -> Any:
    """``value`` as JSON-like data (msgpack's tuples as lists), or a ClusterError naming
    what in it is not: None, bool, int, float, str, bytes, lists and str-keyed dicts only."""
    if depth > 30:
        raise ClusterError(f"{where} is nested too deep: refused")
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return value
    if isinstance(value, (list, tuple)):
        return [plain(v, where, depth + 1) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: plain(v, where, depth + 1) for k, v in value.items()}
    raise ClusterError(f"{where} holds a {type(value).__name__}, not plain data: refused")


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise UsageError("--cluster needs Dask: pip install 'arena-cardgames[cluster]' (dask and distributed)") from None
    return distributed


class ClusterSession:
    """An open connection to a Dask cluster. Use ``open_cluster``; ``aclose`` it.

    Each bot's artifact is sent to the cluster once per session and kept
    there while the session lasts; workers keep what they unpacked on disk.
    """

    def __init__(self, address: str, client: Any, note: Callable[[str], None] | None = None) -> None:
        self.address = address
        self.client = client
        #: Where the session says what an organiser should know (a refused worker, a match played again).
        self.note = note or (lambda text: print(f"arena: cluster: {text}", file=sys.stderr, flush=True))
        self.build = build()
        self.resource = build_resource(self.build)
        self._blobs: dict[str, Any] = {}  # sha256 -> Dask future of the artifact task
        self._packed: dict[tuple[str, str], ShippedBot] = {}
        self._refused: set[str] = set()  # workers of another build, already said
        self._shunned: dict[str, str] = {}  # worker address -> why no match goes there any more

    # -- connection -----------------------------------------------------------------

    def workers(self) -> dict[str, dict]:
        """The workers of this build (address -> Dask's info); a worker of another build is said, once."""
        fitting = {}
        for address, w in self.client.scheduler_info(n_workers=-1)["workers"].items():
            resources = w.get("resources", {})
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

    async def wait_for_slots(self, timeout: float | None = None) -> int:
        if timeout is None:
            timeout = float(os.environ.get(WORKER_WAIT_ENV) or WORKER_WAIT)
        said = False
        with trio.move_on_after(timeout):
            while True:
                n = await trio.to_thread.run_sync(self.slots)
                if n:
                    return n
                if not said:
                    self.note(f"waiting up to {timeout:g} s for a worker of {describe(self.build)} "
                              f"to join the cluster at {self.address}")
                    said = True
                await trio.sleep(0.25)
        raise ClusterError(
            f"no worker of the cluster at {self.address} offers arena slots for {describe(self.build)} "
            f"after {timeout:g} s; start one with `arena worker {self.address}`")

    async def aclose(self) -> None:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(self.client.close)

    # -- bots -----------------------------------------------------------------------

    async def ship(self, specs: list[BotSpec]) -> list[dict]:
        """Each bot packed (once per session) and its bytes on the cluster; their templates."""
        out = []
        for spec in specs:
            key = (spec.name, spec.command)
            if key not in self._packed:
                shipped, data = await trio.to_thread.run_sync(pack_bot, spec)
                if shipped.sha256 is not None and shipped.sha256 not in self._blobs:
                    # A task, not scattered data: if every worker holding it is lost, the
                    # scheduler computes it again from the bytes it keeps, and the
                    # matches that need it wait instead of being cancelled.
                    sha = shipped.sha256
                    self._blobs[sha] = await trio.to_thread.run_sync(lambda: self.client.submit(
                        hold_artifact, data, key=f"arena-artifact-{sha}", pure=False,
                        resources={RESOURCE: 1, self.resource: 1}))
                self._packed[key] = shipped
            out.append(self._packed[key].to_json())
        return out

    # -- matches --------------------------------------------------------------------

    async def _next_finished(self, receive: Any, futures: Callable[[], list[Any]]) -> Any:
        """The next finished match; a ClusterError once the scheduler is gone for good.

        Dask's client reconnects by itself; while it does, no match finishes
        and no done-callback comes, so the connection is looked at now and then.
        """
        lost_since: float | None = None
        while True:
            with trio.move_on_after(CONNECTION_CHECK):
                return await receive.receive()
            status = self.client.status
            if status == "running":
                lost_since = None
                if any(f.status == "lost" for f in futures()):
                    # A scheduler that restarted does not know the matches it was given.
                    raise ClusterError(f"the Dask scheduler at {self.address} lost this run's matches "
                                       "(it restarted?); the stored matches are kept")
                await trio.to_thread.run_sync(self.workers)  # says a worker of another build that joined
                continue
            now = trio.current_time()
            lost_since = now if lost_since is None else lost_since
            if status in ("closed", "closing", "failed") or now - lost_since > RECONNECT_WAIT:
                raise ClusterError(f"lost the connection to the Dask scheduler at {self.address} "
                                   f"(client {status}); the stored matches are kept")

    async def play(
        self,
        items: list[Any],
        job_for: Callable[[Any], tuple[MatchJob, list[dict]] | None],
        on_reply: Callable[[Any, MatchJob, MatchRecord, bytes | None, dict[str, bytes]], None],
        on_retry: Callable[[Any, MatchJob, str], None] | None = None,
    ) -> None:
        """Play every item: ``job_for`` makes its job and bots (None: not to be
        played, decided just before sending); ``on_reply`` takes each match's
        record, transcript and stderr logs (relative path: bytes) on the trio
        side, in the order they finish; ``on_retry`` hears, in words, of a
        match sent again because a worker could not play it."""
        distributed = _import_distributed()
        run = _Run(self, items, job_for, window=2 * await self.wait_for_slots() + 2)
        looked = trio.current_time()
        try:
            run.launch()
            while run.running:
                future = await self._next_finished(run.receive, lambda: [f for *_, f in run.running.values()])
                if trio.current_time() - looked > CONNECTION_CHECK:  # a worker of another build joined?
                    looked = trio.current_time()
                    await trio.to_thread.run_sync(self.workers)
                item, job, bots, _ = run.running.pop(future.key)
                reply, failure = await trio.to_thread.run_sync(_outcome, future)
                if isinstance(failure, WorkerUnfit) and all(
                        isinstance(x, str) for x in (failure.address, failure.name, failure.reason)):
                    run.unfit(job, failure)
                    if on_retry is not None:
                        on_retry(item, job, f"match {job.label}: {failure}; played again on another worker")
                    await trio.to_thread.run_sync(run.submit, item, job, bots)
                    continue
                if failure is not None:
                    raise self._failed(job, failure, distributed)
                run.launch()
                reply = plain(reply, f"the result of match {job.label}")
                if not (isinstance(reply, dict) and isinstance(reply.get("record"), dict)):
                    raise ClusterError(f"the result of match {job.label} is not a match's result: refused")
                record = MatchRecord.from_json(reply["record"])
                if job.label in run.failed:
                    record.retried = [{"worker": n, "reason": r} for n, r in run.failed.pop(job.label).values()]
                on_reply(item, job, record, reply.get("transcript"), reply.get("logs") or {})
        finally:
            if run.running:
                left = [f for *_, f in run.running.values()]
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(self.client.cancel, left)

    def _failed(self, job: MatchJob, failure: BaseException, distributed: Any) -> ClusterError:
        """A match that failed for a reason other than its worker's, in words."""
        if self.client.status != "running":
            return ClusterError(f"lost the connection to the Dask scheduler at {self.address} "
                                f"(client {self.client.status}); the stored matches are kept")
        if isinstance(failure, distributed.KilledWorker):
            return ClusterError(f"match {job.label}: every worker that tried it died ({failure})")
        if type(failure) is Exception and failure.args and isinstance(failure.args[0], (bytes, bytearray)):
            # Dask's own stand-in for an error it could not unpickle (here: one that was
            # more than one of the listed exception classes).
            return ClusterError(f"match {job.label} failed on the cluster with an error that came pickled as "
                                "more than plain data: not unpickled, nothing run")
        return ClusterError(f"match {job.label} failed on the cluster: {failure!r}")


class _Run:
    """One ``ClusterSession.play``: the matches waiting, those on the cluster
    (at most ``window``), and the workers each one could not be played on."""

    def __init__(self, session: ClusterSession, items: list[Any],
                 job_for: Callable[[Any], tuple[MatchJob, list[dict]] | None], window: int) -> None:
        self.session = session
        self.job_for = job_for
        self.window = window
        self.token = trio.lowlevel.current_trio_token()
        self.send, self.receive = trio.open_memory_channel[Any](math.inf)
        self.pending = list(reversed(items))
        self.running: dict[Any, tuple[Any, MatchJob, list[dict], Any]] = {}
        self.failed: dict[str, dict[str, tuple[str, str]]] = {}  # job label -> {worker address: (name, reason)}
        self.run_id = uuid.uuid4().hex[:8]

    def finished(self, future: Any) -> None:  # a Dask callback thread
        try:
            self.token.run_sync_soon(self.send.send_nowait, future)
        except trio.RunFinishedError:
            pass

    def submit(self, item: Any, job: MatchJob, bots: list[dict]) -> None:
        session = self.session
        blobs = {b["sha256"]: session._blobs[b["sha256"]] for b in bots if b["sha256"] is not None}
        tried = self.failed.get(job.label, {})
        avoid = set(session._shunned) | set(tried)
        where: dict[str, Any] = {}
        if avoid:
            allowed = [a for a in session.workers() if a not in avoid]
            if not allowed:
                reasons = "; ".join([*session._shunned.values(), *(f"{n}: {r}" for n, r in tried.values())])
                raise ClusterError(f"match {job.label}: no worker of the cluster at {session.address} can "
                                   f"play it ({reasons})")
            where = {"workers": allowed, "allow_other_workers": False}
        tries = len(tried)
        future = session.client.submit(
            play_match, job.to_json(), bots, blobs, session.build, pure=False,
            key=f"arena-{self.run_id}-{job.label}" + (f"-again{tries}" if tries else ""),
            resources={RESOURCE: 1, session.resource: 1}, **where)
        self.running[future.key] = (item, job, bots, future)
        future.add_done_callback(self.finished)

    def launch(self) -> None:
        while self.pending and len(self.running) < self.window:
            item = self.pending.pop()
            made = self.job_for(item)
            if made is not None:
                self.submit(item, *made)

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
        return distributed.Client(address, timeout="15s", set_as_default=False, security=security,
                                  deserializers=DESERIALIZERS)

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
    return ClusterSession(address, client)
