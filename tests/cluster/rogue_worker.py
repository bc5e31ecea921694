"""A rogue worker for tests/cluster/test_roles.py: a plain Dask worker (no arena
guard) holding a worker's certificate, loaded with ``dask worker --preload
THIS_FILE``. It plays the arena's matches, but every result it reports names
its type with a pickle that, unpickled, runs a command, and every error it
reports is such a pickle; its third match fails.

The command writes ``$ARENA_TEST_MARKERS/<pid of the process that unpickled it>``.
"""

from __future__ import annotations

import os
import pickle
from typing import Any


class Payload:
    def __reduce__(self) -> Any:
        return (os.system, (f"touch {os.environ['ARENA_TEST_MARKERS']}/$PPID",))


PAYLOAD = pickle.dumps(Payload())


def dask_setup(worker: Any) -> None:
    import distributed.worker
    from distributed.protocol import to_serialize
    from distributed.worker_state_machine import TaskFinishedMsg

    import arena.cluster._remote as remote

    honest_to_dict = TaskFinishedMsg.to_dict

    def to_dict(self: Any) -> dict:
        return {**honest_to_dict(self), "type": PAYLOAD}

    honest_error = distributed.worker.error_message

    def error_message(e: BaseException, status: str = "error") -> dict:
        return {**honest_error(e, status), "exception": to_serialize(PAYLOAD), "traceback": to_serialize(PAYLOAD)}

    honest_play = remote.play_batch
    played = []

    def play_batch(*args: Any) -> Any:
        played.append(1)
        if len(played) == 3:
            raise RuntimeError("the rogue's third match")
        return honest_play(*args)

    TaskFinishedMsg.to_dict = to_dict  # type: ignore[method-assign]
    distributed.worker.error_message = error_message
    remote.play_batch = play_batch
