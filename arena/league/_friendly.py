"""Friendly matches: a logged-in user plays a seat against the league's bots.

The person's seat is the same program as on a terminal (``human``,
arena/play/_person.py), started by the league's ``BotHost`` and played
through ``run_match`` like any match; its terminal is a pseudo-terminal the
server holds. What the program writes there is the seat's screen (the game's
``seat_view``: only what that seat may know); its prompt line ends with the
legal choices in brackets, which the /play page turns into one form per
decision, and the choice posted is typed into the terminal.

A friendly is stored as a tournament of kind ``friendly`` with one match
(replayable, with its transcript and drawn hands) and is never rated: its
person's seat is no league version. A match nobody answers for ``idle``
seconds (``arena serve --play-idle``) is abandoned: the server hangs up the terminal, the seat's program
ends, the match ends with that seat's fault and its bots are stopped.
"""

from __future__ import annotations

import json
import os
import re
import termios
import time
from dataclasses import dataclass, field
from typing import Any

import trio

from protocols.seatview import RAW_CHOICE, Choice

from .._faults import FaultKind
from .._plan import load_plugin
from .._seeds import new_seed
from .._spec import BotSpec, for_person
from ..play._match import MatchSettings, run_match
from ..play._transcript import Transcript

#: how long a posted choice waits for the next prompt before the page is shown anyway
ANSWER_WAIT = 20.0
#: the screen kept per friendly, and the lines of its end the page shows
SCREEN_CAP = 64 * 1024
SCREEN_LINES = 60
#: friendlies kept in memory for their /play pages (finished ones beyond it are dropped)
KEPT = 200

_PROMPT = re.compile(r"([^\n]*) \[([^\]\n]*)\] $")


def parse_prompt(screen: str) -> tuple[str, list[Choice]] | None:
    """The open question at the end of ``screen``, with its choices, if any."""
    found = _PROMPT.search(screen)
    if found is None:
        return None
    if found.group(2) == RAW_CHOICE:
        return found.group(1), []  # the plain view: the person types the reply line
    choices = []
    for label in found.group(2).split("/"):
        word, _, span = label.partition(" ")
        low, _, high = span.partition("..")
        choices.append(Choice(word, int(low), int(high)) if high else Choice(word))
    return found.group(1), choices


@dataclass(slots=True)
class Friendly:
    """One friendly match in play (or just over)."""

    id: int
    owner: int
    game: str
    names: list[str]
    seat: int
    master: int
    slave: int  # held open here, so the terminal lives until the match is over (or the server hangs up)
    screen: str = ""
    question: tuple[str, list[Choice]] | None = None
    over: bool = False
    match_id: int | None = None
    problem: str | None = None  # the match could not be played: why, in words
    changed: trio.Event = field(default_factory=trio.Event)
    last_answer: float = field(default_factory=time.monotonic)

    def _lines(self) -> list[str]:
        lines = self.screen.rstrip(" ").splitlines()
        if self.question is not None and lines:
            lines.pop()  # the prompt: the page asks it as a form
        return lines

    def public(self) -> dict[str, Any]:
        """What the /play page and its JSON twin show."""
        question = None
        if self.question is not None:
            words, choices = self.question
            question = {"words": words, "choices": [{"word": c.word, "low": c.low, "high": c.high} for c in choices]}
        return {"id": self.id, "game": self.game, "names": self.names, "seat": self.seat,
                "screen": "\n".join(self._lines()[-SCREEN_LINES:]), "question": question, "over": self.over,
                "match": self.match_id, "problem": self.problem}


class Friendlies:
    """The friendlies of one server, played on its runner's host and stored in its store."""

    def __init__(self, runner: Any, idle: float = 600.0) -> None:
        self.runner, self.idle = runner, idle
        self.games: dict[int, Friendly] = {}
        self._next = 1

    def start(self, nursery: trio.Nursery, user: dict[str, Any], game: str, versions: list[dict[str, Any]],
              hands: int | None) -> Friendly:
        """Check and start a friendly of ``user`` against ``versions`` (active ones of ``game``);
        ValueError with a sentence when it cannot be played."""
        plugin = load_plugin(game)
        raw: dict[str, Any] = {}
        if hands is not None:
            if "hands" not in plugin.Params.model_fields:
                raise ValueError(f"{game} is not played in hands")
            raw["hands"] = hands
        params = plugin.Params.model_validate(raw)
        plugin.check_seats(params, len(versions) + 1)
        groups = self.runner.owners_apart(versions)
        if len(set(groups)) < len(groups):
            twice = next(v["owner_name"] for v, g in zip(versions, groups) if groups.count(g) > 1)
            raise ValueError(f"two bots of {twice} cannot share a table (bots of one owner could pass each other "
                             "cards through what the machine lets seats share): choose bots of different owners")
        master, slave = os.openpty()
        attrs = termios.tcgetattr(slave)
        attrs[3] &= ~termios.ECHO  # the page shows the choice, not its echo
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        tty = os.ttyname(slave)
        os.set_blocking(master, False)
        person = for_person(BotSpec.parse(f"human:{user['name']}", person_ok=True), game, 0,
                            json.dumps(params.model_dump(mode="json")), tty)
        specs = [person, *self.runner._specs(versions)]
        f = Friendly(id=self._next, owner=user["id"], game=game, names=[s.name for s in specs], seat=0, master=master,
                     slave=slave)
        self._next += 1
        self.games[f.id] = f
        nursery.start_soon(self._guarded, f, plugin, specs, params, versions)
        # Kept for their pages until the server restarts; the oldest finished ones go first.
        over = [k for k, g in self.games.items() if g.over]
        for k in over[:max(0, len(self.games) - KEPT)]:
            del self.games[k]
        return f

    async def _guarded(self, f: Friendly, *args: Any) -> None:
        """Play it; an error of the arena's ends this friendly (said on its page), never the server."""
        try:
            await self._play(f, *args)
        except Exception as exc:
            f.problem = f"the arena failed to play this match ({exc!r}); it was not stored"
            f.over, f.question = True, None
            f.changed.set()
            self.runner.log(f"arena: internal error in friendly {f.id}: {exc!r}")

    async def answer(self, f: Friendly, typed: str) -> None:
        """Type the person's choice into the seat's terminal; wait for what it brings (a prompt, the end)."""
        if f.over or f.question is None:
            return
        f.question = None
        f.changed = trio.Event()
        f.last_answer = time.monotonic()
        os.write(f.master, typed.encode() + b"\n")
        with trio.move_on_after(ANSWER_WAIT):
            await f.changed.wait()

    def _take(self, f: Friendly) -> bool:
        """Read what the seat's program wrote; False when there was nothing."""
        try:
            data = os.read(f.master, 65536)
        except (BlockingIOError, OSError):
            return False
        f.screen = (f.screen + data.decode("utf-8", "replace").replace("\r\n", "\n"))[-4 * SCREEN_CAP:]
        f.question = parse_prompt(f.screen)
        if f.question is not None:
            f.changed.set()
        return bool(data)

    async def _watch(self, f: Friendly) -> None:
        """The seat's screen as the program writes it; hangs up when the person is gone too long."""
        while True:
            with trio.move_on_after(self.idle) as idle:
                await trio.lowlevel.wait_readable(f.master)
            if not idle.cancelled_caught:
                self._take(f)
                continue
            if f.question is not None and time.monotonic() - f.last_answer >= self.idle:
                f.screen += f"\n(no answer for {self.idle:g} s: the match is abandoned)\n"
                # Hanging up ends the seat's program (its terminal reads end), and with it the match.
                os.close(f.master)
                f.master = -1
                return

    async def _play(self, f: Friendly, plugin: Any, specs: list[BotSpec], params: Any,
                    versions: list[dict[str, Any]]) -> None:
        runner, store = self.runner, self.runner.store
        seed = new_seed()
        folder = runner.files / "friendly" / str(f.id)
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        entrants = [(s.name, v.get("store_bot") or store.bot_id(s.name, s.command, list(s.argv)))
                    for s, v in zip(specs, [{}, *versions])]
        tid = store.new_tournament(plugin.spec.id, plugin.spec.version, params.model_dump(mode="json"), seed, 1,
                                   "match", entrants, {"timeout": runner.settings.timeout, "friendly": True})
        runner.league.add_tournament(tid, "friendly")
        transcript = Transcript(folder / "transcript.gz")
        settings = MatchSettings(timeout=runner.settings.timeout, host=runner.host, trace=transcript,
                                 log_dir=folder / "logs")
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._watch, f)
                result = await run_match(plugin, specs, params, seed, settings)
                nursery.cancel_scope.cancel()
            if f.master >= 0:
                while self._take(f):  # the last lines (the match's end) before the terminal goes
                    pass
        finally:
            transcript.close()
            for fd in (f.master, f.slave):
                if fd >= 0:
                    os.close(fd)
            f.master = f.slave = -1
        faults = [x.to_json() for x in result.faults]
        abandoned = any(x.seat == f.seat and x.kind in (FaultKind.DISCONNECTED, FaultKind.CRASHED)
                        for x in result.faults)
        f.match_id = store.add_match(tid, {
            "round": 0, "idx": 0, "seats": list(range(len(specs))), "seed": seed, "completed": result.completed,
            "hands": result.hands, "scores": result.tournament_scores, "payoffs": [s.payoff for s in result.seats],
            "faults": faults, "timings": {"duration": result.duration, "abandoned": abandoned,
                        # The bots' level, and each seat's: the person's seat ran outside the sandbox.
                        "sandbox": result.sandbox, "seat_sandbox": [x.sandbox for x in result.seats]},
            "transcript": str(folder / "transcript.gz"), "log_dir": str(folder / "logs"),
        })
        store.finish_tournament(tid)
        f.over = True
        f.question = None
        f.changed.set()
        runner.log(f"Friendly {f.id} ({plugin.spec.id}, {' vs '.join(f.names)}) stored as match {f.match_id}")
