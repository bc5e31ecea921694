"""Scripted matches of any game, for tests/bots/misbehave_any.py.

A game's own dialogue is played here in-process, every reply drawn from the
plugin's ``random_reply`` (as ``arena check-game`` does), with the seed and
the bot names the real match will have; so the real ``arena play`` sends
every seat the same lines, and a bot that knows nothing of the game can play
it by replaying its seat. One seat may be given a bad reply, or none at all
(a transport fault), at one of its requests; the script then holds what the
arena does after it: the match ends there, or (hold'em) goes on without that
seat. The dialogue's own verdict on a bad line is kept, so a test can check
the real report against what the game says.

Knowledge of a game comes from its plugin only: a new game is covered as
soon as it is installed.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from arena import BotFault, BotSpec, LineBuffer, load_game
from arena._checks import game_params
from arena._seeds import chance_stream, seed_text
from arena.play._stepping import step_through
from protocols import Exchange, ProtocolError

#: the misbehaving seat writes nothing where a reply was due (it is silent,
#: slow, gone or crashed, or its line never became one): a BotFault in the arena
GONE = None


@dataclass(frozen=True)
class Table:
    """The smallest match of a game worth playing: its first golden
    playthrough's parameters, and the fewest seats (two where it can)."""

    game: str
    raw: tuple[tuple[str, Any], ...]
    seats: int

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.raw)

    def options(self) -> list[str]:
        """The parameters as ``arena play`` options."""
        out = []
        for key, value in self.raw:
            out += ["-p", f"{key}={value}"]
        return out


@cache
def table(game: str) -> Table:
    plugin = load_game(game)
    raw = dict(plugin.playthrough_matches[0][0])
    params = game_params(plugin, raw, keys=True)
    accepted = []
    for n in range(plugin.spec.min_seats, plugin.spec.max_seats + 1):
        try:
            plugin.check_seats(params, n)
        except ValueError:
            continue
        accepted.append(n)
    seats = min((n for n in accepted if n >= 2), default=accepted[0])
    return Table(game, tuple(sorted(raw.items())), seats)


@dataclass
class Step:
    read: list[str]  # the lines this seat is sent
    reply: bytes | None  # what it writes back (None: a notification, nothing to write)


@dataclass
class Played:
    """One in-process match, seat by seat."""

    steps: list[list[Step]]
    #: for each seat, the index in its steps of each of its requests
    requests: list[list[int]]
    #: the bad seat's trigger: its step index, the words the exchange gave
    #: for a correct reply, the legal reply it replaced
    trigger_step: int | None = None
    expected: str | None = None
    legal: str | None = None
    #: the dialogue's verdict on the bad line (None: accepted, or no line)
    verdict: ProtocolError | None = None
    #: the arena's verdict on the bytes themselves (not UTF-8, too long)
    line_fault: BotFault | None = None
    #: every reply the dialogue refused, whichever seat sent it
    refused: list[ProtocolError] = field(default_factory=list)
    #: the match ran to its end (with or without seats that left it)
    ended: bool = False


def play(game: str, seed: int, names: list[str], bad: int | None = None, at: int | None = None,
         reply: bytes | None = GONE) -> Played:
    """Play ``game`` at its ``table`` with legal replies, except the ``at``-th
    request (from 0) of seat ``bad``, answered with ``reply`` (or nothing)."""
    plugin = load_game(game)
    t = table(game)
    params = game_params(plugin, t.params, keys=True)
    run = plugin.open_dialogue(params, chance_stream(seed_text(seed)), list(names), 0)
    rng = random.Random(seed)
    played = Played([[] for _ in range(t.seats)], [[] for _ in range(t.seats)])
    asking: Exchange | None = None  # the exchange being answered

    def refused(fault: ProtocolError) -> None:  # a refused reply; the dialogue plays on without that seat
        played.refused.append(fault)
        if fault.seat == bad and played.verdict is None:
            played.verdict = fault

    def seen(n: int, exchange: Exchange) -> None:
        nonlocal asking
        asking = exchange
        if not exchange.reply:
            for seat, payload in exchange.sends:
                played.steps[seat].append(Step(_lines(payload), None))

    def answer(n: int, seat: int, payload: bytes) -> str | None:
        exchange, steps = asking, played.steps[seat]
        assert exchange is not None
        lines = _lines(payload)
        legal = plugin.random_reply(run, seat, payload, rng)
        played.requests[seat].append(len(steps))
        if seat != bad or len(played.requests[seat]) - 1 != at:
            steps.append(Step(lines, legal.encode()))
            return legal
        expect = exchange.expect
        played.trigger_step, played.legal = len(steps), legal
        played.expected = expect() if callable(expect) else expect
        steps.append(Step(lines, legal.encode() if reply is GONE else reply))
        line = None
        if reply is not GONE:
            buffer = LineBuffer(plugin.max_reply_bytes)
            buffer.feed(reply + b"\n")
            try:
                line = buffer.next_line()
            except BotFault as exc:
                played.line_fault = exc
        if line is None:
            # What the arena does with a seat that sent no line: play on
            # without it if the game can (one seat asked), else stop.
            gone = getattr(run, "seat_gone", None)
            if gone is None or len(exchange.sends) > 1 or not gone(seat):
                raise _Stopped
        return line

    try:
        step_through(run, game, answer, on_exchange=seen, on_fault=refused)
    except _Stopped:
        return played
    except ProtocolError as exc:
        played.refused.append(exc)
        if exc.seat == bad:
            played.verdict = exc
        return played
    played.ended = True
    return played


class _Stopped(Exception):
    """The match ends where the bad seat sent no line and the game cannot play on without it."""


def _lines(payload: bytes) -> list[str]:
    """A message's lines, as a bot reads them."""
    return payload.decode().removesuffix("\n").split("\n")


def _replies_seen(game: str, seed: int, names: tuple[str, ...]) -> list[str]:
    played = play(game, seed, list(names))
    seen = []
    for steps in played.steps:
        for step in steps:
            if step.reply is not None and step.reply.decode() not in seen:
                seen.append(step.reply.decode())
    return seen


def _variants(legal: str, seen: list[str]) -> list[str]:
    """Replies that are likely well formed but wrong here: other replies of
    the match, and the legal one with each value changed."""
    out = [s for s in seen if s != legal]
    numbers = [-1, 0, 1, 2, 3, 5, 7, 10, 99, 1_000_000, 2.5]
    try:
        obj = json.loads(legal)
    except ValueError:
        obj = None
    if isinstance(obj, dict):
        fields: dict[str, set[str]] = {}  # each field of this reply type, and the values seen in it
        for other in seen:
            parsed = json.loads(other) if other.startswith("{") else None
            if isinstance(parsed, dict) and parsed.get("type") == obj.get("type"):
                for key, value in parsed.items():
                    fields.setdefault(key, set()).add(json.dumps(value))
        for key in sorted(fields.keys() - {"type"}):
            values = [json.loads(v) for v in sorted(fields[key])] + numbers
            for value in values:
                changed = dict(obj, **{key: value})
                if changed != obj:
                    out.append(json.dumps(changed))
    else:
        words = legal.split(" ")
        for i, word in enumerate(words):
            for value in numbers if word.lstrip("-").isdigit() else []:
                out.append(" ".join(words[:i] + [str(value)] + words[i + 1:]))
    return list(dict.fromkeys(out))


@dataclass(frozen=True)
class Trigger:
    """Where seat ``bad`` misbehaves (its ``at``-th request), and a reply
    there that is well formed but illegal (None: the game has none)."""

    at: int
    illegal: str | None
    misplaced: str | None


@cache
def trigger(game: str, seed: int, names: tuple[str, ...], bad: int) -> Trigger:
    """The first request of ``bad`` after its first (the handshake) at which
    some well-formed reply is illegal; else its second request."""
    legal_run = play(game, seed, list(names))
    seen = _replies_seen(game, seed, names)
    count = len(legal_run.requests[bad])
    assert count >= 2, f"{game}: seat {bad} is asked only {count} times in a match of {table(game)}"
    for at in range(1, count):
        legal = legal_run.steps[bad][legal_run.requests[bad][at]].reply.decode()
        for candidate in _variants(legal, seen):
            verdict = play(game, seed, list(names), bad, at, candidate.encode()).verdict
            if verdict is not None and verdict.kind == "illegal_action":
                return Trigger(at, candidate, misplaced(game, seed, names, bad, at, legal, seen))
    legal = legal_run.steps[bad][legal_run.requests[bad][1]].reply.decode()
    return Trigger(1, None, misplaced(game, seed, names, bad, 1, legal, seen))


def request_with(game: str, seed: int, names: tuple[str, ...], seat: int, word: str) -> int:
    """Which of ``seat``'s requests (from 0) is the first whose first line contains ``word``."""
    played = play(game, seed, list(names))
    for n, step in enumerate(played.requests[seat]):
        if word in played.steps[seat][step].read[0]:
            return n
    raise LookupError(f"{game}: seat {seat} is sent no request with {word!r}")


def misplaced(game, seed, names, bad, at, legal, seen) -> str | None:
    """A legal reply to some other request of the match that is refused here."""
    for other in seen:
        if other != legal and play(game, seed, list(names), bad, at, other.encode()).verdict is not None:
            return other
    return None


def names_of(commands: list[str]) -> list[str]:
    """The names the arena gives these bot commands (match_start carries them)."""
    return [BotSpec.parse(c).name for c in commands]


def write_script(path: Path, played: Played, modes: dict[int, dict[str, Any]] | None = None) -> Path:
    """The script misbehave_any.py replays: every seat's steps, and for some
    seats a ``mode`` (with ``trigger``, a step index, and what else it needs)."""
    seats = []
    for seat, steps in enumerate(played.steps):
        entry: dict[str, Any] = {"steps": [{"read": s.read, "reply": None if s.reply is None else s.reply.hex()}
                                           for s in steps]}
        entry.update((modes or {}).get(seat, {}))
        seats.append(entry)
    path.write_text(json.dumps({"seats": seats}))
    return path
