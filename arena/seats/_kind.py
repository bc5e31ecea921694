"""What a seat kind is: the prefix that names it on a command line and the
few facts about it that the rest of the arena acts on."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class BadBotCommand(ValueError):
    """A bot command that cannot even be tried (usage error, said before start)."""


#: ``parse(cls, command, rest, name, person_ok, files)``: the BotSpec of ``command``
#: (``rest`` is what follows the prefix), or BadBotCommand with a sentence.
Parse = Callable[[Any, str, str, "str | None", bool, "tuple[tuple[str, bool], ...] | None"], Any]


@dataclass(frozen=True, slots=True)
class SeatKind:
    """One kind of seat. ``name`` is what a BotSpec keeps (``BotSpec.kind``)."""

    name: str
    #: what names it on a command line (``acpc:``), None for a plain program
    prefix: str | None
    #: a person plays it on a terminal: the arena's own program, outside the
    #: sandbox, with no deadline and never in the compiled loop
    person: bool = False
    #: the bot serves a socket on its namespace's loopback to a program it
    #: starts, and its relay hands that connection to the arena (an ACPC agent)
    loopback: bool = False
    #: one of the arena's relays runs first and the author's command follows
    #: its ``--`` (a cluster ships the command, each machine adds its relay)
    relay: bool = False
    parse: Parse | None = None
    #: seconds a notification (a message that asks no reply) may cost the seat's next reply, for
    #: a relay that answers each one to its bot's own clock first (HIGC's ``ponder``); None: none
    notice_grace: Callable[[Any], float] | None = None
    #: seconds the seat is given to exit once its input is closed, if more than a match's grace
    end_grace: Callable[[Any], float] | None = None
    #: one line for docs and help
    summary: str = ""


def named_here(word: str) -> tuple[str, bool] | None:
    """``(absolute path, is_dir)`` when a command line's word names a file or folder where it
    was typed (a flag never does), else None: the one rule for the organiser's paths."""
    if not word or word.startswith("-") or not os.path.exists(word):
        return None
    path = os.path.abspath(word)
    return path, os.path.isdir(path)
