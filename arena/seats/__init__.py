"""What can sit in a seat: a program the organiser names, and the kinds a
prefix names (a person, an ACPC agent, a bot of OpenSpiel's competition
referee). Each kind is one module of this package; ``SEAT_KINDS`` is the one
list of them, which ``BotSpec.parse`` reads a command's prefix from and whose
facts (``SeatKind``) the host, the sandbox and the match act on. A new kind
(a websocket seat, a UCI-style engine) is a module here and a line below."""

from __future__ import annotations

from . import acpc, higc, human
from ._kind import BadBotCommand, SeatKind, named_here

#: A program the organiser names: what a command line is unless a prefix says otherwise.
PROGRAM = SeatKind("program", None, summary="a program: a path or a command line")

SEAT_KINDS: dict[str, SeatKind] = {k.name: k for k in (PROGRAM, human.KIND, acpc.KIND, higc.KIND)}

__all__ = ["PROGRAM", "SEAT_KINDS", "BadBotCommand", "SeatKind", "kind_of_command", "named_here"]


def kind_of_command(command: str) -> tuple[SeatKind, str]:
    """The kind a command line names and what follows its prefix (``human``
    alone is a person too)."""
    if command == "human":
        return human.KIND, ""
    for kind in SEAT_KINDS.values():
        if kind.prefix is not None and command.startswith(kind.prefix):
            return kind, command[len(kind.prefix):]
    return PROGRAM, command
