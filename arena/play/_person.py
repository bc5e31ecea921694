"""The program that sits in a person's seat (``human`` in place of a bot).

It is started like any bot, by ``BotHost``, and plays over the same pipes
through the same dialogue: the seat's messages on stdin, its replies on
stdout. Only its clock differs (no deadline: ``Limits``) and its launcher
(no sandbox: this is the arena's own code, and it needs the person's
terminal, which it opens by path with O_NOCTTY so it never takes it over).
What it shows comes from the game's ``seat_view`` and only from this
seat's own messages, so a person sees what a bot in the seat would know.

    python -m arena.play._person GAME SEAT PARAMS_JSON TTY_PATH [events]

With ``events`` it writes JSON lines instead of words (``{"show": [...]}``,
``{"ask": {"question", "choices", "raw"}}``, ``{"again": reason}``,
``{"withdrawn": true}``) and reads the person's choices as typed: the
league's /play page reads those, and never parses a prompt.
"""

from __future__ import annotations

import json
import os
import select
import sys

from protocols.seatview import SeatView, Turn, pick

from .._games import load_game


class _Terminal:
    """The person's terminal, opened by path (never made our controlling one)."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        self.pending = b""

    def say(self, text: str) -> None:
        data = text.encode()
        try:
            while data:
                data = data[os.write(self.fd, data):]
        except OSError:
            pass  # the terminal hung up: the next read says so

    def read(self, stdin_fd: int) -> str | bytes:
        """A line typed by the person, or what the arena sent meanwhile
        (bytes; empty: our stdin closed, the match ended: its end, another
        seat's fault, Ctrl-C)."""
        while b"\n" not in self.pending:
            ready, _, _ = select.select([self.fd, stdin_fd], [], [])
            if stdin_fd in ready:
                return os.read(stdin_fd, 65536)
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:  # hung up (EIO): the person is gone
                chunk = b""
            if not chunk:
                return b""
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line.decode("utf-8", "replace").strip()


class _Words:
    """The seat for a person at a terminal: lines of text, the prompt with its choices."""

    def __init__(self, tty: _Terminal) -> None:
        self.tty = tty

    def show(self, lines: list[str]) -> None:
        self.tty.say("".join(line + "\n" for line in lines))

    def ask(self, turn: Turn) -> None:
        self.tty.say(turn.prompt())

    def again(self, reason: str) -> None:
        self.tty.say(f"  {reason}; try again\n")

    def withdrawn(self) -> None:
        self.tty.say("\n")

    def chose(self, words: str) -> None:
        """The person's choice, taken (the terminal echoed it already)."""


class _Events(_Words):
    """The seat for a program (the league's /play page): the same, as JSON lines."""

    def _event(self, event: dict) -> None:
        self.tty.say(json.dumps(event) + "\n")

    def show(self, lines: list[str]) -> None:
        self._event({"show": lines})

    def ask(self, turn: Turn) -> None:
        self._event({"ask": {"question": turn.question, "raw": turn.raw,
                             "choices": [{"word": c.word, "low": c.low, "high": c.high} for c in turn.choices]}})

    def again(self, reason: str) -> None:
        self._event({"again": reason})

    def withdrawn(self) -> None:
        self._event({"withdrawn": True})

    def chose(self, words: str) -> None:
        # a terminal echoes what was typed; a page has no echo: the choice goes on the seat's log
        self.show([f"  you: {words}"])


def _decide(view: SeatView, turn: Turn, seat: _Words, stdin_fd: int) -> str | bytes:
    """Ask until the person types a legal choice: the reply line, or bytes the arena sent meanwhile."""
    while True:
        seat.ask(turn)
        typed = seat.tty.read(stdin_fd)
        if isinstance(typed, bytes):
            seat.withdrawn()
            return typed
        if turn.raw:
            if typed:
                return typed
            seat.again("type the reply line")
            continue
        try:
            choice, amount = pick(typed, turn.choices)
        except ValueError as exc:
            seat.again(str(exc))
            continue
        seat.chose(choice.word if amount is None else f"{choice.word} {amount}")
        return view.reply(choice, amount)


def main(argv: list[str]) -> int:
    game_id, seat, params_json, tty_path, *mode = argv
    plugin = load_game(game_id)
    params = plugin.Params.model_validate(json.loads(params_json))
    view = plugin.seat_view(params, int(seat))
    names = next((json.loads(m[len("names="):]) for m in mode if m.startswith("names=")), None)
    if isinstance(names, list) and all(isinstance(n, str) for n in names):
        view.names = names
    tty = _Terminal(tty_path)
    screen = _Events(tty) if "events" in mode else _Words(tty)
    stdin_fd = sys.stdin.fileno()
    out = sys.stdout
    reader = os.fdopen(stdin_fd, "rb", buffering=0, closefd=False)
    buffered = b""
    while True:
        while b"\n" not in buffered:
            chunk = reader.read(65536)
            if not chunk:
                return 0  # the match is over
            buffered += chunk
        raw, _, buffered = buffered.partition(b"\n")
        turn = view.feed(raw.decode("utf-8", "replace"))
        if turn is None:
            continue
        if turn.shown:
            screen.show(turn.shown)
        reply = turn.auto
        if reply is None and (turn.choices or turn.raw):
            if buffered:  # more was sent already: this line was not a request (plain fallback)
                continue
            decided = _decide(view, turn, screen, stdin_fd)
            if isinstance(decided, bytes):
                if not decided:
                    return 0
                buffered += decided  # the arena went on: that line was no request (plain fallback)
                continue
            reply = decided
        if reply is not None:
            out.write(reply + "\n")
            out.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
