"""What every game's rules share: the description of a game and the illegal-move error.

Everything under ``games`` is pure rules: no I/O, no clock, no global random,
and no notion of a wire protocol (that is ``protocols``).
"""

from __future__ import annotations

from dataclasses import dataclass


class IllegalAction(Exception):
    """An action that breaks the rules; the message is a sentence for a human."""


@dataclass(frozen=True, slots=True)
class GameSpec:
    id: str
    version: int
    title: str
    min_seats: int
    max_seats: int
    description: str
