"""A person's seat: ``human`` or ``human:NAME``.

It is played by the arena's own program (arena/play/_person.py) on the
person's terminal, or as JSON events for the league's /play page; it is
allowed only where a person can sit (a single match on a terminal, the
league's friendlies), and a person is never put in a tournament's table."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from typing import Any

from ._kind import BadBotCommand, SeatKind


def _parse(cls: Any, command: str, rest: str, name: str | None, person_ok: bool,
           files: tuple[tuple[str, bool], ...] | None) -> Any:
    if not person_ok:
        raise BadBotCommand(
            f"{command!r} is a person's seat, which plays only in a single match "
            "(arena GAME, arena play), not in tournaments, quarantine or the league "
            "(for a program named human, write ./human)")
    return cls(command=command, argv=(), name=name or rest or "human", kind=KIND.name)


KIND = SeatKind("human", "human:", person=True, parse=_parse,
                summary="a person, on this terminal (human or human:NAME)")


def for_person(spec: Any, game: str, seat: int, params_json: str, tty: str, events: bool = False,
               names: list[str] | None = None) -> Any:
    """A person's seat made runnable: the program that plays it on ``tty``
    (in words, or with ``events`` as JSON lines for a program such as the /play page);
    ``names``: every seat's, for a game whose messages do not carry them."""
    argv = (sys.executable, "-m", "arena.play._person", game, str(seat), params_json, tty,
            *(("events",) if events else ()), *((f"names={json.dumps(names)}",) if names else ()))
    return replace(spec, argv=argv, files=None)
