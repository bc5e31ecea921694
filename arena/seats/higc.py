"""A bot of OpenSpiel's competition referee (HIGC): ``higc:CMD``.

The bot runs behind the arena's relay (protocols/higc/relay.py), which speaks
the referee's protocol to it and the arena's to the dealer; the relay's script
is the program the interpreter runs, so the sandbox shows its folder as the
bot's, and CMD's files as the bot's own.

As under the referee, CMD is shell text, run by ``/bin/sh -c`` inside the
sandbox: shell syntax works, and a script without a ``#!`` line runs as a
shell script. Its first simple command is checked like any bot's program
before anything starts, and every word that names a file here is made
absolute (and shown to the bot), as on any command line.

The referee's clocks: a bot answers ``ponder`` to an observation on its own
clock (``ARENA_HIGC_PONDER`` seconds, 0.2 unless set), which the arena adds
to the seat's next reply limit for each observation sent since its last
reply, so pondering never eats into an ``act``; after ``tournament over`` it
has ``ARENA_HIGC_OVER`` seconds (60 unless set) to answer and exit before it
is stopped. Both are read where the command is parsed and travel in the
relay's command, so the relay and the arena's clock agree."""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from ._kind import BadBotCommand, SeatKind, named_here

RELAY = Path(__file__).resolve().parents[2] / "protocols" / "higc" / "relay.py"
#: the referee's defaults for a bot's ``ponder`` answer and its exit after ``tournament over``, seconds
PONDER, OVER = 0.2, 60.0
#: words the shell itself reads (no program to check before the start)
_SHELL_FIRST = frozenset({"cd", "exec", "export", "set", "eval", ".", "if", "for", "while", "{", "(", "!"})
#: the shell's operators: passed to it as typed
_OPERATOR = re.compile(r"[();<>|&]+")
#: a plain word of the text (between spaces, no quote or operator in it)
_PLAIN_WORD = re.compile(r"(?<!\S)[\w@%+=:,./-]+(?!\S)")


def _seconds(variable: str, default: float, ceiling: float) -> float:
    text = os.environ.get(variable)
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= ceiling:
        raise BadBotCommand(f"{variable}={text!r}: expected a number of seconds above 0 and at most {ceiling:g}")
    return value


def _tokens(command: str, rest: str) -> list[str]:
    lexer = shlex.shlex(rest, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError as exc:
        raise BadBotCommand(f"bot {command!r} cannot be split: {exc}") from None
    if not tokens or _OPERATOR.fullmatch(tokens[0]):
        raise BadBotCommand(f"bot {command!r} names no program after 'higc:'")
    return tokens


def _absolute(m: re.Match[str], files: Any, found: list[tuple[str, bool]]) -> str:
    # A league's command names only its own folder's files (files given): no lookup.
    named = named_here(m.group(0)) if files is None else None
    if named is None:
        return m.group(0)
    if named not in found:
        found.append(named)
    return shlex.quote(named[0])


def _parse(cls: Any, command: str, rest: str, name: str | None, person_ok: bool,
           files: tuple[tuple[str, bool], ...] | None) -> Any:
    tokens = _tokens(command, rest)
    first = next((i for i, t in enumerate(tokens) if _OPERATOR.fullmatch(t)), len(tokens))
    if 0 < first < len(tokens) and tokens[first - 1].isdigit() and tokens[first][0] in "<>":
        first -= 1  # ``2>/dev/null``: the 2 is the redirection's
    if tokens[0] in _SHELL_FIRST:
        first = 0  # a shell's own word (``cd DIR && ./bot``): the shell says if what follows runs
    # The first simple command: checked and its paths made absolute like any bot's.
    inner = cls.parse(shlex.join(tokens[:first]), files=files) if first else None
    words = list(inner.argv) if inner else [t for t in tokens if not _OPERATOR.fullmatch(t)]
    found = list(inner.files or ()) if inner else []
    # The text as typed, each plain word that names something here made absolute (and shown to the bot).
    shell = _PLAIN_WORD.sub(lambda m: _absolute(m, files, found), rest)
    ponder = _seconds("ARENA_HIGC_PONDER", PONDER, 60.0)
    over = _seconds("ARENA_HIGC_OVER", OVER, 3600.0)
    behind = inner.behind() if inner else ()
    argv = (sys.executable, "-I", str(RELAY), "--shell", shell, "--ponder", f"{ponder:g}", "--over", f"{over:g}",
            "--", *(inner.argv if inner else words))
    own = (*behind, *(f for f in found if f not in behind))
    return cls(command=command, argv=argv, name=name or command, kind=KIND.name, files=((str(RELAY), False), *own))


def _relay_seconds(spec: Any, flag: str, default: float) -> float:
    argv = list(spec.argv)
    if flag in argv and "--" in argv and argv.index(flag) < argv.index("--"):
        return float(argv[argv.index(flag) + 1])
    return default


KIND = SeatKind("higc", "higc:", relay=True, parse=_parse,
                notice_grace=lambda spec: _relay_seconds(spec, "--ponder", PONDER),
                end_grace=lambda spec: _relay_seconds(spec, "--over", OVER) + 1.0,
                summary="a bot of OpenSpiel's competition referee, behind its relay (higc:CMD)")
