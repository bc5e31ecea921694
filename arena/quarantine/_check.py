"""A check's result, and the table every check plays at (shared by
``_conformance`` and ``_soundness``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

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


def tables(plugin: GamePlugin[Any], params: Any) -> list[int]:
    """Every number of seats the game accepts with ``params``, smallest first."""
    out = []
    for n in range(plugin.spec.min_seats, plugin.spec.max_seats + 1):
        try:
            plugin.check_seats(params, n)
        except ValueError:
            continue
        out.append(n)
    return out


def message_type(model: type[BaseModel]) -> str:
    """The ``type`` of a JSON game's message or reply model: the one value of
    its ``type: Literal[...]`` field."""
    literal: Any = model.model_fields["type"].annotation  # Literal["the type"]
    return literal.__args__[0]


def largest_table(plugin: GamePlugin[Any], params: Any) -> int:
    """The largest table the game accepts with ``params``."""
    accepted = tables(plugin, params)
    if not accepted:
        raise ValueError(f"{plugin.spec.id} accepts no number of seats with {params!r}")
    return accepted[-1]
