"""Loaded by ``dask worker --preload`` and ``--preload-nanny`` (``arena worker``
passes both): the guard goes on the worker and its nanny (``_guard``), and the
worker starts its arena worker processes, one per CPU, so that the first
matches do not wait for Python to start and import the arena."""

from __future__ import annotations

from typing import Any

from ._guard import install
from ._remote import warm_up


def dask_setup(server: Any) -> None:
    install(server)
    if "compute-task" in getattr(server, "stream_handlers", {}):  # the worker, not its nanny
        warm_up()
