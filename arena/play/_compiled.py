"""The compiled dialogue loop, seen from the match driver.

A dealer that names a loop in ``arena/native/fastloop.c`` (today kuhn3's
``native_loop = "kuhn3_play"``) and exports its state as integers can be
played in C between exchanges: the loop renders, writes, reads, checks and
applies replies itself, and hands the match back to Python at the first
thing that needs more than that (a reply in another form, a wrong one, a
slow one, a full or closed pipe, end_round), or after ``BATCH`` messages.
The driver then picks the dialogue up where the state says and finishes the
exchange in progress through ``_exchange.complete``, so every fault and its
words come from the Python dialogue, as without the loop.

``ARENA_NATIVE=0`` (or no C compiler) keeps everything in Python; the
transcripts are the same (tests/test_native.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import trio

from ._bot import BotProcess, sync_wait
from ._exchange import Limits
from ..native import fastloop

#: Messages per call: the driver yields to trio between calls (timers,
#: Ctrl-C, the bots' stderr readers), every few milliseconds with C bots
#: (512 rather than 128: +4% kuhn3 hands/s pinned, as a hand-back costs
#: about as much as five exchanges).
BATCH = 512


@dataclass(slots=True)
class Handback:
    """Where the compiled loop left the match."""

    messages: int  # messages of the exchanges it completed
    mid: bool  # it stopped inside an exchange (some of it done)
    written: int  # messages of that exchange written
    accepted: tuple[str | None, ...]  # replies of that exchange it took, in send order
    sent_at: float  # when that exchange's first message was written (trio's clock; never late)


class CompiledLoop:
    def __init__(self, module: Any, dealer: Any, chance: tuple[Any, Any], bots: list[BotProcess],
                 limits: Limits) -> None:
        self._play = getattr(module, dealer.native_loop)
        self.dealer = dealer
        self.bots = bots
        self.deal, self.ends = chance
        self.params = dealer.native_params()
        self.limits = limits
        self.steps = dealer.native_steps

    @classmethod
    def open(cls, dealer: Any, bots: list[BotProcess], limits: Limits) -> CompiledLoop | None:
        name = getattr(dealer, "native_loop", None)
        if name is None:
            return None
        module = fastloop()
        if module is None or not hasattr(module, name):
            return None
        chance = dealer.native_chance()
        if chance is None:
            return None
        return cls(module, dealer, chance, bots, limits)

    def ready(self, backlog: set[int]) -> bool:
        """At an exchange boundary: may the loop take over now?"""
        if backlog or self.dealer.step not in self.steps:
            return False
        trace = self.bots[0].trace
        return all(bot.idle() and bot.trace is trace for bot in self.bots)

    def play(self) -> Handback:
        bots, limits = self.bots, self.limits
        before = trio.current_time()
        (mid, state, written, accepted, lead, time_used, slowest, unread, eof, messages) = self._play(
            self.dealer.native_state(), self.params, self.deal, self.ends,
            tuple(b.write_fd for b in bots), tuple(b.read_fd for b in bots),
            tuple(b.time_used for b in bots), tuple(b.slowest for b in bots),
            limits.timeout, -1.0 if limits.budget is None else limits.budget, sync_wait(),
            bots[0].max_line, bots[0].trace, BATCH,
        )
        self.dealer.load_native_state(state)
        for seat, bot in enumerate(bots):
            bot.time_used, bot.slowest = time_used[seat], slowest[seat]
            bot.take_over(unread[seat], bool(eof[seat]))
        return Handback(messages, bool(mid), written, accepted, before + lead)
