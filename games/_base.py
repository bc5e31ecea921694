"""The game plugin interface shared by every game, built-in or third-party.

A plugin is one module-level object registered in the ``arena.games``
entry-point group. It describes the game (``spec``), validates parameters
(``Params``) and knows how to run a match over its wire protocol
(``dialogue``). Everything here is pure: no I/O, no clock, no global random.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel


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


@dataclass(slots=True)
class Exchange:
    """One step of a dialogue: send ``lines`` to each seat and read one reply line.

    ``sends`` is a list of ``(seat, payload)`` in the order the messages must be
    written; the replies come back in the same order. ``expect`` says in words
    what a correct reply looks like, for error reports about silence or EOF.
    """

    sends: list[tuple[int, bytes]]
    #: False for notifications: the messages are written and nothing is read
    #: (the dialogue is sent back an empty list)
    reply: bool = True
    #: words for a correct reply, or a function giving them (called only
    #: when a report needs them, to keep the hot path free of formatting)
    expect: str | Callable[[], str] = "a reply"


@dataclass(slots=True)
class MatchOutcome:
    """What a dialogue returns when the match ran to its end."""

    payoffs: list[int] | list[float]
    hands: int
    extra: dict[str, Any] = field(default_factory=dict)


# A dialogue yields Exchanges, is sent back the list of reply lines (decoded,
# without the line ending), and returns a MatchOutcome. It raises
# ``protocols.ProtocolError`` when a reply is wrong.
Dialogue = Generator[Exchange, list[str], MatchOutcome]


@runtime_checkable
class GamePlugin(Protocol):
    """What the ``arena.games`` entry point of a game must provide.

    Optional attributes: ``reusable_processes`` (bool, default False): the
    protocol marks where each match starts and ends, so one bot process may
    play several matches (``--lifetime tournament``); ``aggregate(per_match)``
    turns a list of per-match score lists into one score per seat (default: sum);
    ``max_reply_bytes`` (int, default 4096): the longest reply line the arena
    reads, at least the longest valid reply of the protocol; anything longer
    is a ``malformed_reply`` (the arena never buffers more for a bot).
    """

    spec: GameSpec
    Params: type[BaseModel]

    def open_dialogue(
        self, params: BaseModel, rng: random.Random, names: list[str], match_index: int = 0
    ) -> "DialogueRun": ...


class DialogueRun(Protocol):
    """A running match: the generator plus live state for reports."""

    def run(self) -> Dialogue: ...

    def context(self) -> dict[str, Any]:
        """Where the match is now (e.g. ``{"hand": 12}``), for fault reports."""
        ...

    def standings(self) -> tuple[int, list[int] | list[float]]:
        """Hands (or games) completed so far and each seat's running payoff."""
        ...

    def scores(self) -> list[float]:
        """Each seat's score by the game's own rule (so far, if cut short)."""
        ...
