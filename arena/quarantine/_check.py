"""A check's result, and the table every check plays at (shared by
``_conformance`` and ``_soundness``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocols import GamePlugin

#: the longest a game's own code may compute in one step of a check's match: a
#: game that spins is reported within seconds, by the check that drove it
CHECK_STEP_SECONDS = 5.0


@dataclass(slots=True)
class Check:
    name: str
    ok: bool
    summary: str
    details: list[str] = field(default_factory=list)

    def line(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'}  {self.name}: {self.summary}"


def largest_table(plugin: GamePlugin, params: Any) -> int:
    """The largest table the game accepts with ``params``."""
    for n in range(plugin.spec.max_seats, plugin.spec.min_seats - 1, -1):
        try:
            plugin.check_seats(params, n)
        except ValueError:
            continue
        return n
    raise ValueError(f"{plugin.spec.id} accepts no number of seats with {params!r}")
