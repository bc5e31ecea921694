"""The coordinator's side: a connection to a Dask scheduler, driven from trio.

Dask's client runs its own event loop in a thread of its own; trio never
waits on it directly. Submitting is a non-blocking call, a finished match
comes back through a done-callback that hands the future to trio
(``run_sync_soon``), and the result is fetched in a worker thread. Only
the trio side writes files and the database.

A bounded number of matches is in flight (twice the cluster's slots, and a
few more), so the scheduler never holds a whole league's schedule, and a
disqualified entrant's later matches are decided before they are sent.
"""

from __future__ import annotations

import logging
import math
import uuid
from collections.abc import Callable
from typing import Any

import trio

from .._spec import BotSpec
from .._checks import UsageError
from ..play._jobs import MatchJob, MatchRecord
from ._artifacts import ShippedBot, pack_bot
from ._remote import RESOURCE, play_match

#: How long to wait for a first worker with arena slots.
WORKER_WAIT = 60.0
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


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise UsageError("--cluster needs Dask: pip install 'arena[cluster]' (dask and distributed)") from None
    return distributed


class ClusterSession:
    """An open connection to a Dask cluster. Use ``open_cluster``; ``aclose`` it.

    Each bot's artifact is sent to the cluster once per session and kept
    there while the session lasts; workers keep what they unpacked on disk.
    """

    def __init__(self, address: str, client: Any) -> None:
        self.address = address
        self.client = client
        self._blobs: dict[str, Any] = {}  # sha256 -> Dask future of the bytes
        self._packed: dict[tuple[str, str], ShippedBot] = {}

    # -- connection -----------------------------------------------------------------

    def slots(self) -> int:
        workers = self.client.scheduler_info(n_workers=-1)["workers"].values()
        return int(sum(w.get("resources", {}).get(RESOURCE, 0) for w in workers))

    async def wait_for_slots(self, timeout: float = WORKER_WAIT) -> int:
        with trio.move_on_after(timeout):
            while True:
                n = await trio.to_thread.run_sync(self.slots)
                if n:
                    return n
                await trio.sleep(0.25)
        raise ClusterError(
            f"no worker of the cluster at {self.address} offers arena slots after {timeout:g} s; "
            f"start one with `arena worker {self.address}`")

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
                    # On every worker: scattered data held by one worker only is lost
                    # with it, and every match needing it is cancelled.
                    self._blobs[shipped.sha256] = await trio.to_thread.run_sync(
                        lambda: self.client.scatter(data, hash=False, broadcast=True))
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
    ) -> None:
        """Play every item: ``job_for`` makes its job and bots (None: not to be
        played, decided just before sending); ``on_reply`` takes each match's
        record, transcript and stderr logs (relative path: bytes) on the trio
        side, in the order they finish."""
        distributed = _import_distributed()
        slots = await self.wait_for_slots()
        window = 2 * slots + 2
        token = trio.lowlevel.current_trio_token()
        send, receive = trio.open_memory_channel[Any](math.inf)
        pending = list(reversed(items))
        running: dict[Any, tuple[Any, MatchJob, Any]] = {}
        run_id = uuid.uuid4().hex[:8]

        def finished(future: Any) -> None:  # a Dask callback thread
            try:
                token.run_sync_soon(send.send_nowait, future)
            except trio.RunFinishedError:
                pass

        def launch() -> None:
            while pending and len(running) < window:
                item = pending.pop()
                made = job_for(item)
                if made is None:
                    continue
                job, bots = made
                blobs = {b["sha256"]: self._blobs[b["sha256"]] for b in bots if b["sha256"] is not None}
                future = self.client.submit(
                    play_match, job.to_json(), bots, blobs, key=f"arena-{run_id}-{job.label}",
                    resources={RESOURCE: 1}, pure=False)
                running[future.key] = (item, job, future)
                future.add_done_callback(finished)

        try:
            launch()
            while running:
                future = await self._next_finished(receive, lambda: [f for _, _, f in running.values()])
                item, job, _ = running.pop(future.key)
                reply, failure = await trio.to_thread.run_sync(_outcome, future)
                if failure is not None:
                    if self.client.status != "running":
                        raise ClusterError(f"lost the connection to the Dask scheduler at {self.address} "
                                           f"(client {self.client.status}); the stored matches are kept")
                    if isinstance(failure, distributed.KilledWorker):
                        raise ClusterError(f"match {job.label}: every worker that tried it died ({failure})")
                    raise ClusterError(f"match {job.label} failed on the cluster: {failure!r}")
                launch()
                on_reply(item, job, MatchRecord.from_json(reply["record"]), reply.get("transcript"),
                         reply.get("logs") or {})
        finally:
            if running:
                left = [f for _, _, f in running.values()]
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(self.client.cancel, left)


async def open_cluster(address: str) -> ClusterSession:
    """Connect to the Dask scheduler at ``address`` (raises UsageError in words)."""
    distributed = _import_distributed()

    def connect() -> Any:
        return distributed.Client(address, timeout="15s", set_as_default=False)

    # Dask's client logs a traceback for every failed reconnection; what the
    # user needs is said once, in words, by ClusterError.
    for name in ("distributed.client", "distributed.comm", "distributed.core"):
        logging.getLogger(name).setLevel(logging.CRITICAL)

    try:
        client = await trio.to_thread.run_sync(connect)
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"--cluster {address}: cannot reach a Dask scheduler there ({exc})") from None
    return ClusterSession(address, client)
