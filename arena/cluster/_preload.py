"""Loaded by ``dask worker --preload`` (``arena worker`` passes it): the worker
starts its arena worker processes, one per CPU, when it starts, so the first
matches do not wait for Python to start and import the arena."""

from __future__ import annotations

from typing import Any

from ._remote import warm_up


def dask_setup(worker: Any) -> None:
    warm_up()
