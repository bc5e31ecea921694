"""Loaded by ``dask scheduler --preload`` (``arena cluster scheduler``) and by
``dask worker --preload`` and ``--preload-nanny`` (``arena worker``).

Dask imports this module when it makes the server and calls ``dask_setup``
once the server listens: so the unpickling policy (``_wire``) is on from the
import, and a comm that arrives before ``dask_setup`` has put the guard on
(``_guard``) is dropped. A worker also starts its arena worker processes,
one per CPU, so that the first matches do not wait for Python to start and
import the arena."""

from __future__ import annotations

from typing import Any

from . import _wire
from ._guard import install, install_scheduler
from ._remote import warm_up

_wire.install(servers=True)  # trusting no one until dask_setup knows which server this is


def dask_setup(server: Any) -> None:
    from distributed import Scheduler, Worker

    if isinstance(server, Scheduler):
        _wire.trust({"client"})  # the coordinator's task graphs come pickled
        install_scheduler(server)
        return
    if isinstance(server, Worker):
        _wire.trust({"scheduler"})  # the tasks, which the scheduler passes on from the coordinator
    install(server)
    if isinstance(server, Worker):
        warm_up()
