"""A bot of OpenSpiel's competition referee (HIGC): ``higc:CMD``.

The bot runs behind the arena's relay (protocols/higc/relay.py), which speaks
the referee's protocol to it and the arena's to the dealer; the relay's script
is the program the interpreter runs, so the sandbox shows its folder as the
bot's, and CMD's files as the bot's own."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ._kind import SeatKind

RELAY = Path(__file__).resolve().parents[2] / "protocols" / "higc" / "relay.py"


def _parse(cls: Any, command: str, rest: str, name: str | None, person_ok: bool,
           files: tuple[tuple[str, bool], ...] | None) -> Any:
    inner = cls.parse(rest, files=files)
    argv = (sys.executable, "-I", str(RELAY), "--", *inner.argv)
    return cls(command=command, argv=argv, name=name or command, kind=KIND.name,
               files=((str(RELAY), False), *inner.behind()))


KIND = SeatKind("higc", "higc:", relay=True, parse=_parse,
                summary="a bot of OpenSpiel's competition referee, behind its relay (higc:CMD)")
