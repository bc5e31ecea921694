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

import math
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from .._bot import BotSpec
from .._checks import UsageError
from ._artifacts import ShippedBot, pack_bot
from ._remote import RESOURCE, describe_worker, play_match

#: How long to wait for a first worker with arena slots.
WORKER_WAIT = 60.0


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

    def workers(self) -> dict[str, dict]:
        """What each worker says of itself (``describe_worker``)."""
        return self.client.run(describe_worker)

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
                    self._blobs[shipped.sha256] = await trio.to_thread.run_sync(
                        lambda: self.client.scatter(data, hash=False))
                self._packed[key] = shipped
            out.append(self._packed[key].to_json())
        return out

    # -- matches --------------------------------------------------------------------

    async def play(
        self,
        items: list[Any],
        job_for: Callable[[Any], tuple[dict, list[dict]] | None],
        on_reply: Callable[[Any, dict, dict], Awaitable[None]],
    ) -> None:
        """Play every item: ``job_for`` makes its job and bots (None: not to be
        played, decided just before sending); ``on_reply`` takes each result
        on the trio side, in the order they finish."""
        distributed = _import_distributed()
        slots = await self.wait_for_slots()
        window = 2 * slots + 2
        token = trio.lowlevel.current_trio_token()
        send, receive = trio.open_memory_channel[Any](math.inf)
        pending = list(reversed(items))
        running: dict[Any, tuple[Any, dict, Any]] = {}
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
                    play_match, job, bots, blobs, key=f"arena-{run_id}-{job['label']}",
                    resources={RESOURCE: 1}, pure=False)
                running[future.key] = (item, job, future)
                future.add_done_callback(finished)

        try:
            launch()
            while running:
                future = await receive.receive()
                item, job, _ = running.pop(future.key)
                if future.status != "finished":
                    try:
                        await trio.to_thread.run_sync(future.result)
                        raise ClusterError(f"match {job['label']} was {future.status} on the cluster")
                    except distributed.KilledWorker as exc:
                        raise ClusterError(f"match {job['label']}: every worker that tried it died ({exc})") from None
                    except ClusterError:
                        raise
                    except Exception as exc:
                        raise ClusterError(f"match {job['label']} failed on the cluster: {exc}") from None
                reply = await trio.to_thread.run_sync(future.result)
                launch()
                await on_reply(item, job, reply)
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

    try:
        client = await trio.to_thread.run_sync(connect)
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"--cluster {address}: cannot reach a Dask scheduler there ({exc})") from None
    return ClusterSession(address, client)
