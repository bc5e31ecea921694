"""Friendly matches: a logged-in user plays a seat against the league's bots.

The person's seat is the same program as on a terminal (``human``,
arena/play/_person.py), started by the league's ``BotHost`` and played
through ``run_match`` like any match; its terminal is a pseudo-terminal the
server holds. The program writes there in JSON lines (its ``events`` mode):
what the seat's view shows (the game's ``seat_view``: only what that seat may
know), and each question with its legal choices, which the /play page turns
into one form per decision; the choice posted is typed into the terminal, as
a person would type it, and a word the game does not take is asked again.

A friendly is stored as a tournament of kind ``friendly`` with one match
(replayable, with its transcript and drawn hands) and is never rated: its
person's seat is no league version. A match nobody answers for ``idle``
seconds (``arena serve --play-idle``) is abandoned: the server hangs up the terminal, the seat's program
ends, the match ends with that seat's fault and its bots are stopped.
"""

from __future__ import annotations

import json
import os
import termios
import time
from dataclasses import dataclass, field
from typing import Any

import trio

from protocols.seatview import Choice

from .._checks import game_params
from .._faults import FaultKind
from .._plan import load_plugin
from .._seeds import new_seed
from .._spec import BotSpec, for_person
from ..play._match import MatchSettings, run_match
from ..play._transcript import Transcript
from ._db import UserRecord, VersionRecord

#: how long a posted choice waits for the next prompt before the page is shown anyway
ANSWER_WAIT = 20.0
#: the screen kept per friendly, and the lines of its end the page shows
SCREEN_CAP = 64 * 1024
SCREEN_LINES = 60
#: friendlies kept in memory for their /play pages (finished ones beyond it are dropped)
KEPT = 200
#: the lines sent to the person's seat kept for drawing its table (the hand in play is among the last)
SEEN_CAP = 2000


def read_events(f: "Friendly", data: bytes) -> None:
    """Take the seat program's JSON lines into ``f``'s screen and open question."""
    f.pending += data
    *lines, f.pending = f.pending.split(b"\n")
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        if not isinstance(event, dict):  # not ours (a warning of the interpreter): shown as it came
            event = {"show": [line.decode("utf-8", "replace")]}
        if "show" in event:
            f.screen = (f.screen + "".join(str(x) + "\n" for x in event["show"]))[-4 * SCREEN_CAP:]
        elif "ask" in event:
            ask = event["ask"]
            choices = [Choice(c["word"], c.get("low"), c.get("high")) for c in ask.get("choices", [])]
            f.question = (str(ask.get("question", "")), choices)
        elif "again" in event:
            f.screen += f"  {event['again']}; try again\n"
        elif event.get("withdrawn"):
            f.question = None


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
    pending: bytes = b""  # the seat program's last line, until its end arrives
    question: tuple[str, list[Choice]] | None = None
    over: bool = False
    match_id: int | None = None
    problem: str | None = None  # the match could not be played: why, in words
    changed: trio.Event = field(default_factory=trio.Event)
    #: counts every change of what the page shows; ``ticked`` is set (and replaced) at each
    revision: int = 0
    ticked: trio.Event = field(default_factory=trio.Event)
    last_answer: float = field(default_factory=time.monotonic)
    #: the lines sent to the person's seat, as ``hands_of`` reads them: only what the seat was told
    seen: list[tuple[int, str, str]] = field(default_factory=list)
    hands_of: Any = None

    def table(self) -> dict[str, Any] | None:
        """The hand in play as the person's own seat was told it (the game's ``hands_of`` on
        those lines alone): seats with names, stacks, cards and last action, the board, the pot;
        None where the game draws no such hands."""
        if self.hands_of is None or not self.seen:
            return None
        try:
            hands = self.hands_of(self.seen)
        except Exception:  # a hand cut by the cap, or a reader's bug: the text screen still shows it all
            return None
        if not hands or "streets" not in hands[-1] or not all("stack" in s for s in hands[-1]["seats"]):
            return None
        hand = hands[-1]
        last: dict[int, str] = {}
        for street in hand["streets"]:
            for action in street["actions"]:
                last[action["seat"]] = action["words"]
        pot = next((st["pot"] for st in reversed(hand["streets"]) if st.get("pot") is not None), None)
        return {"number": hand["number"], "button": hand.get("button"),
                "board": [c for st in hand["streets"] for c in st["board"]], "pot": pot,
                "seats": [{"name": self.names[s["seat"]] if s["seat"] < len(self.names) else str(s["seat"]),
                           "you": s["seat"] == self.seat, "cards": s["cards"], "stack": s.get("stack"),
                           "last": last.get(s["seat"], "")} for s in hand["seats"]],
                "actions": [{"name": self.names[a["seat"]] if a["seat"] < len(self.names) else str(a["seat"]),
                             "words": a["words"], "street": st["name"]}
                            for st in hand["streets"] for a in st["actions"]],
                "over": bool(hand.get("pots"))}

    def touch(self) -> None:
        """What the page shows changed: wake whoever follows it (its live page's event stream)."""
        self.revision += 1
        self.ticked.set()
        self.ticked = trio.Event()

    async def wait_past(self, revision: int) -> None:
        """Return once the page shows something newer than ``revision`` (at once when it already does)."""
        while self.revision == revision:
            await self.ticked.wait()

    def keep_seen(self, seat: int, direction: str, text: str) -> None:
        """The trace hook's share: the lines sent to the person's seat, a line each."""
        if seat == self.seat and direction == "->":
            self.seen += [(seat, direction, line) for line in text.splitlines()]
            if len(self.seen) > 2 * SEEN_CAP:
                del self.seen[:-SEEN_CAP]

    def _lines(self) -> list[str]:
        return self.screen.splitlines()

    def public(self) -> dict[str, Any]:
        """What the /play page and its JSON twin show."""
        question = None
        if self.question is not None:
            words, choices = self.question
            question = {"words": words, "choices": [{"word": c.word, "low": c.low, "high": c.high} for c in choices]}
        return {"id": self.id, "game": self.game, "names": self.names, "seat": self.seat,
                "screen": "\n".join(self._lines()[-SCREEN_LINES:]), "question": question, "over": self.over,
                "match": self.match_id, "problem": self.problem, "table": self.table(), "revision": self.revision}


class Friendlies:
    """The friendlies of one server, played on its runner's host and stored in its store."""

    def __init__(self, runner: Any, idle: float = 600.0) -> None:
        self.runner, self.idle = runner, idle
        self.games: dict[int, Friendly] = {}
        self._next = 1

    def start(self, nursery: trio.Nursery, user: UserRecord, game: str, versions: list[VersionRecord],
              hands: int | None) -> Friendly:
        """Check and start a friendly of ``user`` against ``versions`` (active ones of ``game``);
        ValueError with a sentence when it cannot be played."""
        plugin = load_plugin(game)
        # The league's parameters of the game (its tournaments' own), the length as the person asked.
        raw = self.runner._given(game)["params"]
        if hands is not None:
            if "hands" not in plugin.Params.model_fields:
                raise ValueError(f"{game} is not played in hands")
            raw["hands"] = hands
        params = game_params(plugin, raw)
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
        bots = self.runner._specs(versions)
        seat = BotSpec.parse(f"human:{user['name']}", person_ok=True)
        person = for_person(seat, game, 0, json.dumps(params.model_dump(mode="json")), tty, events=True,
                            names=[seat.name, *(b.name for b in bots)])
        specs = [person, *bots]
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
            f.touch()
            self.runner.log(f"arena: internal error in friendly {f.id}: {exc!r}")

    async def answer(self, f: Friendly, typed: str) -> None:
        """Type the person's choice into the seat's terminal; wait for what it brings (a prompt, the end)."""
        if f.over or f.question is None:
            return
        f.question = None
        f.changed = trio.Event()
        f.touch()
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
        read_events(f, data.replace(b"\r\n", b"\n"))
        if f.question is not None:
            f.changed.set()
        if data:
            f.touch()
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
                f.touch()
                return

    async def _play(self, f: Friendly, plugin: Any, specs: list[BotSpec], params: Any,
                    versions: list[VersionRecord]) -> None:
        runner, store = self.runner, self.runner.store
        seed = new_seed()
        folder = runner.files / "friendly" / str(f.id)
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        # Each seat's bot in the store: a version's own once it has played, else stored now
        # (the person's seat is no version).
        stored = [None, *(v["store_bot"] for v in versions)]
        entrants = [(s.name, bot or store.bot_id(s.name, s.command, list(s.argv))) for s, bot in zip(specs, stored)]
        tid = store.new_tournament(plugin.spec.id, plugin.spec.version, params.model_dump(mode="json"), seed, 1,
                                   "match", entrants, {"timeout": runner.settings.timeout, "friendly": True})
        runner.league.add_tournament(tid, "friendly")
        transcript = Transcript(folder / "transcript.gz")
        f.hands_of = plugin.hands_of

        def trace(seat: int, direction: str, text: str) -> None:
            transcript(seat, direction, text)
            f.keep_seen(seat, direction, text)

        settings = MatchSettings(timeout=runner.settings.timeout, host=runner.host, trace=trace,
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
        f.touch()
        runner.log(f"Friendly {f.id} ({plugin.spec.id}, {' vs '.join(f.names)}) stored as match {f.match_id}")
