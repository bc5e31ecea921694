"""A bot of OpenSpiel's competition referee (HIGC) behind an arena seat.

Usage: python3 relay.py -- CMD...   (run by the arena, in the bot's sandbox,
for a bot given as ``higc:CMD``; standard library only)

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
  ``ponder`` when it does not act (a reply other than ``ponder`` is noted
  on the seat's stderr: the referee counts it and plays on);
* ``match_end`` becomes ``match over SCORE``, the seat's return as an
  integer (cut toward zero, as the referee's ``int`` does), answered
  ``match over``;
* when the arena closes its input, ``tournament over``, and the relay waits
  a moment for the bot to answer and exit.

A later match of another game or seat starts CMD afresh (the referee tells
a bot both only once). A reply that is not an action id is sent on as it
is, and the arena reports it as the seat's malformed reply; a bot that
exits or closes its output ends the relay (the arena's crash or
disconnect).
"""

from __future__ import annotations

import json
import re
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

    def __init__(self, argv: list[str], game: str, seat: int) -> None:
        self.game, self.seat = game, seat
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
        code = self.proc.poll()
        _note(f"{what}" + (f" (exit status {code})" if code is not None else ""))
        sys.exit(3)

    def finish(self) -> None:
        """``tournament over``, a moment for the bot's answer and exit, then stop it."""
        try:
            self.stdin.write("tournament over\n")
            self.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        deadline = time.monotonic() + 1.0
        while self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
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


def main(argv: list[str]) -> None:
    if argv[:1] == ["--"]:
        argv = argv[1:]
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
                bot = Bot(argv, game, seat)
                if not bot.ready:
                    continue
            if bot.expect("start"):
                _say('{"type": "ready", "tensors": true}')  # the referee's observations
        elif bot is None:
            continue
        elif kind in ("act", "observe"):
            if msg.get("final"):
                continue  # the referee sends no observation of the end
            line = _observation(msg)
            if line is None:
                if kind == "act":
                    _say(f"the game {bot.game!r} has no HIGC observation tensors for this state")
                continue
            bot.send(line)
            answer = bot.read()
            if kind == "act":
                if ACTION_ID.fullmatch(answer):
                    _say(json.dumps({"type": "action", "action": int(answer)}))
                else:
                    _say(answer)  # not an action id: the arena reports it as it is
            elif answer != "ponder":
                _note(f"answered {answer!r} while not acting (the referee expects 'ponder')")
        elif kind == "match_end":
            bot.send(f"match over {int(msg['scores'][seat])}")
            got = bot.read()
            if got != "match over":
                _note(f"answered {got!r} to 'match over'")
    if bot is not None:
        bot.finish()


if __name__ == "__main__":
    main(sys.argv[1:])
