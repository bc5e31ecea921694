"""A bot of OpenSpiel's competition referee (HIGC) behind an arena seat.

Usage: python3 relay.py [--shell TEXT] [--ponder S] [--over S] -- CMD...
(run by the arena, in the bot's sandbox, for a bot given as ``higc:CMD``;
standard library only). With ``--shell`` the bot is ``/bin/sh -c TEXT``, as
the referee starts it (CMD then only names it); else CMD itself.

The relay reads the openspiel JSON lines (docs/protocols/openspiel.md) and
speaks HIGC's stdin/stdout protocol to CMD, as OpenSpiel's
``open_spiel/higc/referee.cc`` does:

* at the first ``match_start`` it starts CMD and writes the game string and
  the seat, one line each, and waits for ``ready``; at every
  ``match_start`` it waits for ``start`` (a bot prints it when it is ready
  for a match) and answers ``ready``, asking for the observation tensors;
* each ``act`` and each ``observe`` (but the last one of a match, which the
  referee does not send) becomes ``PUBLIC PRIVATE [ID ...]``: the seat's
  public and private observation tensors, compressed and in base64, as the
  message carries them, then the legal action ids when the seat acts. The
  bot answers an action id, which goes back as ``{"type": "action"}``, or
  ``ponder`` when it does not act, within ``--ponder`` seconds (the arena
  adds that much to the seat's next reply limit for each observation, so
  pondering is never charged to an ``act``); a reply other than ``ponder``,
  or one later than that, is noted on the seat's stderr: the referee counts
  it and plays on;
* ``match_end`` becomes ``match over SCORE``, the seat's return as an
  integer (cut toward zero, as the referee's ``int`` does), answered
  ``match over``;
* when the arena closes its input, ``tournament over``, and the relay waits
  up to ``--over`` seconds for the bot to exit (the arena waits as long).

A later match of another game or seat starts CMD afresh (the referee tells
a bot both only once). A reply that is not an action id is sent on as it
is, and the arena reports it as the seat's malformed reply; a bot that
exits or closes its output ends the relay (the arena's crash or
disconnect).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time


#: what the referee's absl::SimpleAtoi takes as an action id
ACTION_ID = re.compile(r"\s*[+-]?[0-9]+\s*")


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _note(text: str) -> None:
    sys.stderr.write(f"HIGC bot: {text}\n")
    sys.stderr.flush()


class Bot:
    """CMD and its pipes."""

    def __init__(self, argv: list[str], game: str, seat: int, over: float) -> None:
        self.game, self.seat, self.over = game, seat, over
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        assert proc.stdin is not None and proc.stdout is not None  # both are pipes
        self.proc, self.stdin, self.stdout = proc, proc.stdin, proc.stdout
        self.send(game)
        self.send(str(seat))
        self.ready = self.expect("ready")

    def send(self, line: str) -> None:
        try:
            self.stdin.write(line + "\n")
            self.stdin.flush()
        except (BrokenPipeError, OSError):
            self.gone("closed its input")

    def read(self) -> str:
        line = self.stdout.readline()
        if not line:
            self.gone("closed its output")
        return line.rstrip("\r\n")

    def expect(self, word: str) -> bool:
        """Wait for ``word``; anything else is said on stdout, where the arena
        reads it as this seat's (malformed) reply."""
        got = self.read()
        if got != word:
            _say(f"the HIGC bot answered {got!r} where its protocol says {word!r}")
        return got == word

    def gone(self, what: str) -> None:
        """The bot went: the relay ends as it did (its exit code, its signal), so that the
        arena's verdict (crashed, disconnected) is the bot's own, as for any bot."""
        try:
            code = self.proc.wait(0.5)
        except subprocess.TimeoutExpired:
            code = None
        _note(f"{what}" + (f" (exit status {code})" if code is not None else " and is still running"))
        if code is not None and code < 0:
            signal.signal(-code, signal.SIG_DFL)
            os.kill(os.getpid(), -code)
        sys.exit(3 if code is None else code)

    def finish(self) -> None:
        """``tournament over``, a moment for the bot's answer and exit, then stop it."""
        try:
            self.stdin.write("tournament over\n")
            self.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        try:
            self.proc.wait(self.over)
        except subprocess.TimeoutExpired:
            pass
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _observation(msg: dict) -> str | None:
    public, private = msg.get("public_tensor"), msg.get("private_tensor")
    if public is None or private is None:
        return None
    line = f"{public} {private}"
    if msg["type"] == "act":
        line += "".join(f" {a['action']}" for a in msg["legal"])
    return line


def _options(argv: list[str]) -> tuple[list[str], float, float]:
    """The bot's argv (``/bin/sh -c TEXT`` with ``--shell``), the ponder and tournament-over seconds."""
    shell, ponder, over = None, 0.2, 60.0
    while argv and argv[0] != "--":
        flag, value, argv = argv[0], argv[1], argv[2:]
        if flag == "--shell":
            shell = value
        elif flag == "--ponder":
            ponder = float(value)
        elif flag == "--over":
            over = float(value)
    argv = argv[1:]
    return (["/bin/sh", "-c", shell] if shell is not None else argv), ponder, over


def _state(bot: Bot, msg: dict, ponder: float) -> None:
    """An ``act`` or ``observe``: the referee's line to the bot, its answer back (an action
    id) or checked (``ponder``, within ``ponder`` seconds)."""
    kind = msg["type"]
    if msg.get("final"):
        return  # the referee sends no observation of the end
    line = _observation(msg)
    if line is None:
        if kind == "act":
            _say(f"the game {bot.game!r} has no HIGC observation tensors for this state")
        return
    bot.send(line)
    asked = time.monotonic()
    answer = bot.read()
    if kind == "observe" and time.monotonic() - asked > ponder:
        _note(f"answered {time.monotonic() - asked:.3f} s after an observation, over the referee's "
              f"{ponder:g} s to ponder (the referee counts it an error)")
    if kind == "act":
        if ACTION_ID.fullmatch(answer):
            _say(json.dumps({"type": "action", "action": int(answer)}))
        else:
            _say(answer)  # not an action id: the arena reports it as it is
    elif answer != "ponder":
        _note(f"answered {answer!r} while not acting (the referee expects 'ponder')")


def main(argv: list[str]) -> None:
    argv, ponder, over = _options(argv)
    bot: Bot | None = None
    seat = 0
    for raw in sys.stdin:
        msg = json.loads(raw)
        kind = msg.get("type")
        if kind == "match_start":
            if msg.get("game") != "openspiel":
                _say(f"HIGC bots play openspiel games here; this match is {msg.get('game')!r}")
                continue
            game, seat = msg["params"]["game"], msg["seat"]
            if bot is not None and (bot.game, bot.seat) != (game, seat):
                bot.finish()
                bot = None
            if bot is None:
                bot = Bot(argv, game, seat, over)
                if not bot.ready:
                    continue
            if bot.expect("start"):
                _say('{"type": "ready", "tensors": true}')  # the referee's observations
        elif bot is None:
            continue
        elif kind in ("act", "observe"):
            _state(bot, msg, ponder)
        elif kind == "match_end":
            bot.send(f"match over {int(msg['scores'][seat])}")
            got = bot.read()
            if got != "match over":
                _note(f"answered {got!r} to 'match over'")
    if bot is not None:
        bot.finish()


if __name__ == "__main__":
    main(sys.argv[1:])
