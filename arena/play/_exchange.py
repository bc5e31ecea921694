"""One exchange of a dialogue over real pipes, with a clock per seat.

This module owns every seat's clock (``SeatClock``: start-up over or not,
replies owed, time used, slowest reply): nothing else writes one. An
exchange is played one of three ways, all here and all charging the same
clocks the same way (``Table``): in Python; by the native exchange
(``arena/native/fastloop.c``: write every message, read the replies that come
within the sync wait); or by a game's compiled dialogue, which plays whole
exchanges in C while everything is regular and hands the match back
mid-exchange otherwise (``CompiledLoop``). The driver (``arena.play._match``)
only asks the table for the replies of each exchange.

The rules that keep one bot from getting another faulted:

* writing never blocks: what a bot's stdin pipe does not take waits in that
  bot's outbox, and the bot has its own deadline (its reply limit) to take
  it; a bot that does not read its input is faulted ``timeout`` ("did not
  read its input"), never a seat written after it;
* a seat's clock runs only while the arena waits for that seat: from the
  moment its message is fully delivered to the moment its reply line arrives;
* several seats asked at once are waited for together, each against its own
  deadline, and each reply is timed when it arrives (one epoll set that trio
  waits on), so a slow seat costs the others nothing.

The common case (the bot's pipe took the message, one seat asked) is the
direct path: a non-blocking read, else one wait on that pipe.

A notification (an exchange that asks nothing) is held for each seat and
written with the next message to that seat, or at the dialogue's end
(``BotProcess.hold``): each bot reads the same bytes, woken once per
request rather than once per line. A seat whose input is closed, or whose
outbox is waiting, is written at once, so its fault comes where it would
have come unheld.
"""

from __future__ import annotations

import select
from dataclasses import dataclass, field
from typing import Any

import trio

from ._bot import BotProcess
from .._faults import BotFault
from ..native import compiled_dialogue, fastloop


@dataclass(slots=True)
class SeatClock:
    """How long one seat's bot has taken; kept with its process (a kept
    process carries it from match to match) and written only here."""

    replied: bool = False  # its first reply came: start-up is over
    awaiting: int = 0  # requests delivered (or queued) whose reply is not read yet
    time_used: float = 0.0  # seconds spent on its replies this match, from delivery to reply
    slowest: float = 0.0  # the longest single reply (after start-up), seconds
    notices: int = 0  # notifications sent since its last reply (a relay may answer each to its bot first)

    def charge(self, took: float) -> None:
        if self.awaiting:
            self.awaiting -= 1
        self.notices = 0
        self.time_used += took
        if took > self.slowest:
            self.slowest = took

    def first_reply_done(self) -> None:
        if not self.replied:
            # Start-up (an interpreter, a JIT) is not thinking time.
            self.replied = True
            self.time_used = self.slowest = 0.0


def clock(bot: BotProcess) -> SeatClock:
    """``bot``'s seat clock (one is made by its host at the start)."""
    if bot.clock is None:
        bot.clock = SeatClock()
    return bot.clock  # type: ignore[return-value]


def new_match(bots: list[BotProcess]) -> None:
    """A time budget is per match: every seat's time used starts again."""
    for bot in bots:
        clock(bot).time_used = 0.0


def time_used(bot: BotProcess) -> tuple[float, float]:
    """What ``bot`` took this match, and its slowest reply."""
    c = clock(bot)
    return c.time_used, c.slowest


@dataclass(slots=True)
class Limits:
    """Per-reply time rules of a match."""

    timeout: float
    startup_timeout: float
    budget: float | None

    def limit(self, bot: BotProcess) -> float:
        """The time ``bot`` has for its next reply (a person's seat: no limit), with its seat
        kind's allowance for each notification since its last reply (HIGC's ``ponder``)."""
        if bot.spec.person:
            return float("inf")
        c = clock(bot)
        grace = bot.spec.seat_kind.notice_grace
        extra = c.notices * grace(bot.spec) if grace is not None and c.notices else 0.0
        if not c.replied:
            return max(self.timeout, self.startup_timeout) + extra
        if self.budget is not None and self.budget - c.time_used < self.timeout:
            return max(0.0, self.budget - c.time_used) + extra
        return self.timeout + extra

    def for_bot(self, bot: BotProcess) -> tuple[float, str]:
        """The time ``bot`` has for its next reply, and the words if it runs out."""
        limit = self.limit(bot)
        if not clock(bot).replied:
            return limit, (
                f"no first reply within {limit:g} s of starting (is its stdout flushed after each "
                "line? is it waiting for a line the arena does not send?)"
            )
        if limit < self.timeout:
            return limit, f"used up its time budget of {self.budget:g} s for the match"
        pondered = clock(bot).notices
        allowed = (f"{limit:g} s ({self.timeout:g} s, and {limit - self.timeout:g} s for answering the "
                   f"{pondered} observation{'s' if pondered != 1 else ''} before it)" if limit > self.timeout
                   else f"{self.timeout:g} s")
        return limit, (
            f"no reply within {allowed} (thinking too long, a reply not flushed, "
            "or waiting for a line the arena does not send?)"
        )


def _charge(bot: BotProcess, took: float) -> None:
    clock(bot).charge(took)


def deliver(bots: list[BotProcess], sends: list[tuple[int, bytes]], now: float,
            backlog: set[int], limits: Limits) -> int | None:
    """Write every message (what does not fit waits); fault a seat whose backlog is overdue.

    Never waits. Returns the seat whose stdin turned out closed (the caller
    raises its fault, which needs a wait for how it ended), else None; the
    other seats' messages are written all the same (a game may play on
    without that seat).
    """
    lost = None
    for seat, payload in sends:
        if seat == lost:
            continue
        state = bots[seat].queue(payload, now)
        if state == 0:
            backlog.add(seat)
        elif state < 0 and lost is None:
            lost = seat
    if lost is not None:
        return lost
    if backlog:
        just_sent = {s for s, _ in sends}
        for seat in list(backlog):
            if seat in just_sent:
                continue  # judged when it is waited for
            bot = bots[seat]
            state = bot.flush_nowait(now)
            if state > 0:
                backlog.discard(seat)
            elif state < 0:
                return seat
            else:
                limit, _ = limits.for_bot(bot)
                if now - (bot.stalled_since or now) > limit:
                    raise bot.not_reading_fault(now, limit)
    return None


def reply_nowait(bots: list[BotProcess], sends: list[tuple[int, bytes]], now: float,
                 backlog: set[int]) -> list[str] | None:
    """The common case without a wait: one seat asked, its reply already there."""
    if len(sends) != 1 or backlog:
        return None
    bot = bots[sends[0][0]]
    if not clock(bot).replied:
        return None
    line = bot.receive_nowait()
    if line is None:
        return None
    _charge(bot, trio.current_time() - now)  # an upper bound when it was already waiting
    return [line]


async def gather(bots: list[BotProcess], sends: list[tuple[int, bytes]], now: float,
                 backlog: set[int], limits: Limits) -> list[str]:
    """One reply line per message of ``sends``, in the same order (after ``reply_nowait``)."""
    if len(sends) == 1 and not backlog:
        bot = bots[sends[0][0]]
        c = clock(bot)
        limit, why = limits.for_bot(bot)
        line = await bot.receive_line(now + limit, why, ready_checked=c.replied)
        c.charge(trio.current_time() - now)
        c.first_reply_done()
        return [line]
    replies: list[str | None] = [None] * len(sends)
    waiting: list[int] = []
    for i, (seat, _) in enumerate(sends):
        bot = bots[seat]
        if seat not in backlog and clock(bot).replied:
            ready = bot.receive_nowait()
            if ready is not None:
                _charge(bot, trio.current_time() - now)
                replies[i] = ready
                continue
        waiting.append(i)
    if waiting or backlog:
        await _multiplex(bots, sends, waiting, replies, backlog, now, limits)
    return replies  # type: ignore[return-value]


@dataclass(slots=True)
class _Wait:
    index: int | None  # position in ``sends``, or None for a backlog-only seat
    bot: BotProcess
    sent_at: float  # when its message was fully delivered (its clock's start)
    deadline: float
    why: str
    delivering: bool


async def finish(bots: list[BotProcess], backlog: set[int], limits: Limits) -> None:
    """At the end of a dialogue: every seat takes what is still waiting for it
    (a last notification), each within its own deadline, before it is stopped."""
    if backlog:
        await _multiplex(bots, [], [], [], backlog, trio.current_time(), limits, drain=True)


async def _multiplex(bots: list[BotProcess], sends: list[tuple[int, bytes]], waiting: list[int],
                     replies: list[str | None], backlog: set[int], now: float, limits: Limits,
                     drain: bool = False) -> None:
    asked = {sends[i][0] for i in waiting}
    pending: dict[int, _Wait] = {}  # by fd
    ep = select.epoll()
    try:
        def arm(w: _Wait) -> None:
            if w.delivering:
                fd = w.bot.write_fd
                assert fd is not None  # a bot with a message to deliver has its input open
                ep.register(fd, select.EPOLLOUT)
            else:
                fd = w.bot.read_fd
                ep.register(fd, select.EPOLLIN)
            pending[fd] = w

        for i in waiting:
            bot = bots[sends[i][0]]
            limit, why = limits.for_bot(bot)
            delivering = sends[i][0] in backlog
            start = bot.stalled_since if delivering and bot.stalled_since is not None else now
            arm(_Wait(i, bot, now, start + limit, why, delivering))
        for seat in backlog - asked:
            bot = bots[seat]
            limit, why = limits.for_bot(bot)
            arm(_Wait(None, bot, now, (bot.stalled_since or now) + limit, why, True))

        def busy() -> bool:
            # replies still awaited; with ``drain``, deliveries too
            return bool(pending) if drain else any(w.index is not None for w in pending.values())

        while busy():
            t = trio.current_time()
            for fd, w in list(pending.items()):
                await _advance(fd, w, t, ep, pending, replies, backlog, limits, arm)
            if not busy():
                break
            t = trio.current_time()
            # the earliest deadline first; among equal ones, the first in send order
            overdue = sorted((w for w in pending.values() if w.deadline <= t),
                             key=lambda w: (w.deadline, w.index if w.index is not None else -1))
            if overdue:
                w = overdue[0]
                if w.delivering:
                    limit, _ = limits.for_bot(w.bot)
                    raise w.bot.not_reading_fault(t, limit)
                raise w.bot.timeout_fault(w.why)
            first = min(w.deadline for w in pending.values())
            if ep.poll(min(bots[0].sync_wait if bots else 0.0, max(0.0, first - t))):
                continue
            with trio.move_on_at(first):
                await trio.lowlevel.wait_readable(ep.fileno())
    finally:
        ep.close()


async def _advance(fd: int, w: _Wait, t: float, ep: Any, pending: dict[int, _Wait],
                   replies: list[str | None], backlog: set[int], limits: Limits, arm: Any) -> None:
    """Move one wait along as far as it goes without blocking."""
    bot = w.bot
    if w.delivering:
        state = bot.flush_nowait(t)
        if state < 0:
            await bot.raise_gone(during="writing to it")
        if state == 0:
            return
        backlog.discard(bot.seat)
        ep.unregister(fd)
        del pending[fd]
        if w.index is None:
            return
        # Delivered: its reply clock starts now.
        limit, why = limits.for_bot(bot)
        arm(_Wait(w.index, bot, t, t + limit, why, False))
        return
    line, eof = bot.read_ready()
    if line is not None:
        replies[w.index] = line  # type: ignore[index]
        c = clock(bot)
        c.charge(t - w.sent_at)
        c.first_reply_done()
        ep.unregister(fd)
        del pending[fd]
    elif eof:
        await bot.raise_gone(during="waiting for its reply")



#: The most sends the native exchange takes, and the longest message (a
#: write of up to PIPE_BUF bytes to a pipe is all or nothing).
NATIVE_SENDS = 16
NATIVE_MESSAGE = select.PIPE_BUF


async def exchange_natively(fast: Any, bots: list[BotProcess], sends: list[tuple[int, bytes]],
                            backlog: set[int], limits: Limits) -> list[str] | None:
    """The common case in C (``arena/native/fastloop.c`` ``exchange``): write
    every message, read the replies that come within the sync wait. None when
    the exchange is not one it takes (a backlog, start-up, a long message, a
    seat asked twice); else the replies, the rest finished by ``complete``."""
    if backlog or len(sends) > NATIVE_SENDS:
        return None
    asked: list[BotProcess] = []
    for seat, payload in sends:
        bot = bots[seat]
        if (len(bot.held) + len(payload) > NATIVE_MESSAGE or bot in asked or not bot.idle()
                or not clock(bot).replied or bot.codec is not None):
            return None
        asked.append(bot)
    # (list comprehensions, not generators: this runs once per exchange)
    payloads = tuple([b.held + p if b.held else p for b, (_, p) in zip(asked, sends)])  # held: in the same write
    before = trio.current_time()
    written, lines, took, lead, unread, eof = fast.exchange(
        tuple([b.write_fd for b in asked]), tuple([b.read_fd for b in asked]), payloads,
        tuple([limits.limit(b) for b in asked]), asked[0].sync_wait, asked[0].max_line,
    )
    for i in range(written):
        asked[i].take_held()
        asked[i].wrote(sends[i][1])
    for i, bot in enumerate(asked):
        if unread[i] is not None or eof[i]:
            bot.take_over(unread[i], eof[i])
        if lines[i] is not None:
            bot.read_natively(lines[i])
            _charge(bot, took[i])
    if None not in lines:
        return list(lines)
    return await complete(bots, sends, written, lines, before + lead, backlog, limits)


async def complete(bots: list[BotProcess], sends: list[tuple[int, bytes]], written: int,
                   accepted: tuple[str | None, ...], sent_at: float, backlog: set[int], limits: Limits) -> list[str]:
    """Finish an exchange native code began (``CompiledLoop``): write
    what it did not, read the replies it did not take, each seat on its own
    clock from when its message went out."""
    now = trio.current_time()
    for (seat, _), line in zip(sends, accepted):
        if line is None:
            clock(bots[seat]).awaiting += 1
    start = sent_at  # the seats written so far: their clocks run from the exchange's first write
    if written < len(sends):
        gone = deliver(bots, sends[written:], now, backlog, limits)
        if gone is not None:
            await bots[gone].raise_gone(during="writing to it")
        start = now  # the later seats' clocks start now; the earlier ones gain a little
    todo = [send for send, line in zip(sends, accepted) if line is None]
    if not todo:
        return list(accepted)  # type: ignore[arg-type]
    got = iter(reply_nowait(bots, todo, start, backlog) or await gather(bots, todo, start, backlog, limits))
    return [line if line is not None else next(got) for line in accepted]


async def resynchronise(bot: BotProcess, goodbye: bytes | None, limits: Limits) -> bool:
    """After another seat's fault: read the replies ``bot`` still owes (and
    drop them), then deliver ``goodbye`` (the game's note that the match was
    not completed), each within the bot's own limit. False when it could not
    be brought back in step; it is then started afresh, and not charged."""
    c = clock(bot)
    try:
        while c.awaiting > 0:
            limit, why = limits.for_bot(bot)
            now = trio.current_time()
            await bot.receive_line(now + limit, why)
            c.charge(trio.current_time() - now)
        if goodbye is not None:
            now = trio.current_time()
            if bot.queue(goodbye, now) < 0:
                return False
            limit, _ = limits.for_bot(bot)
            await bot.drain(now + limit)
    except BotFault:
        return False
    return True


# -- the compiled dialogue -------------------------------------------------------

#: Messages per call of a compiled dialogue: the driver yields to trio between
#: calls (timers, Ctrl-C, the bots' stderr readers), every few milliseconds
#: with C bots (512 rather than 128: +4% hands/s of the three-player poker game pinned, as a hand-back
#: costs about as much as five exchanges).
BATCH = 512


@dataclass(slots=True)
class Handback:
    """Where a compiled dialogue left the match."""

    messages: int  # messages of the exchanges it completed
    mid: bool  # it stopped inside an exchange (some of it done)
    written: int  # messages of that exchange written
    accepted: tuple[str | None, ...]  # replies of that exchange it took, in send order
    sent_at: float  # when that exchange's first message was written (trio's clock; never late)


class CompiledLoop:
    """A game's compiled dialogue (``protocols.CompiledDialogue``), played over
    the bots' pipes between exchange boundaries.

    The loop renders, writes, reads, checks and applies replies itself, and
    hands the match back at the first thing that needs more than that (a
    reply in another form, a wrong one, a slow one, a full or closed pipe, a
    step it does not play), or after ``BATCH`` messages. The driver then
    resumes the Python dialogue from the state and finishes the exchange in
    progress through ``complete``, so every fault and its words come from the
    Python dialogue. ``ARENA_NATIVE=0`` (or no C compiler) keeps everything in
    Python; the transcripts are the same (tests of the native path).
    """

    def __init__(self, play: Any, dealer: Any, bots: list[BotProcess], limits: Limits) -> None:
        self._play = play
        self.dealer = dealer
        self.bots = bots
        self.params = dealer.native_params()
        self.limits = limits
        self.steps = dealer.compiled.steps

    @classmethod
    def open(cls, dealer: Any, bots: list[BotProcess], limits: Limits) -> CompiledLoop | None:
        spec = getattr(dealer, "compiled", None)
        if spec is None:
            return None
        play = compiled_dialogue(spec)
        if play is None:
            return None
        return cls(play, dealer, bots, limits)

    def ready(self, backlog: set[int]) -> bool:
        """At an exchange boundary: may the loop take over now? (``native_chance``
        is asked each time: None keeps this exchange, or the match, in Python.)"""
        if backlog or self.dealer.step not in self.steps:
            return False
        self.chance = self.dealer.native_chance()
        if self.chance is None:
            return False
        trace = self.bots[0].trace
        if not self.dealer.compiled.takes_codecs and any(bot.codec is not None for bot in self.bots):
            return False
        return all(bot.idle() and clock(bot).replied and bot.trace is trace for bot in self.bots)

    def play(self) -> Handback:
        bots, limits = self.bots, self.limits
        clocks = [clock(b) for b in bots]
        before = trio.current_time()
        (mid, state, written, accepted, lead, used, slowest, unread, eof, messages, *held) = self._play(
            self.dealer.compiled.pack(self.dealer.native_state()), self.params,
            *(self.chance if not self.dealer.compiled.takes_held
              else (self.chance[0], tuple(b.take_held() for b in bots))),
            tuple(b.write_fd for b in bots), tuple(b.read_fd for b in bots),
            tuple(c.time_used for c in clocks), tuple(c.slowest for c in clocks),
            limits.timeout, -1.0 if limits.budget is None else limits.budget, bots[0].sync_wait,
            bots[0].max_line, bots[0].trace, BATCH,
            *((tuple([b.codec for b in bots]),) if self.dealer.compiled.takes_codecs else ()),
        )
        self.dealer.load_native_state(self.dealer.compiled.unpack(state))
        for seat, bot in enumerate(bots):
            clocks[seat].time_used, clocks[seat].slowest = used[seat], slowest[seat]
            bot.take_over(unread[seat], bool(eof[seat]))
            if held and held[0][seat]:  # notices it said and kept for the seat's next message
                bot.held = held[0][seat]
        return Handback(messages, bool(mid), written, accepted, before + lead)


def per_seat(sends: list[tuple[int, bytes]]) -> list[tuple[int, bytes]]:
    """A notification's messages joined into one write per seat, the seats in
    the order of their first message: each seat reads the same bytes in the
    same order, woken once (a poker game tells every seat an action and then
    the street it opened: one wake-up of every bot instead of two)."""
    if len(sends) <= 1:
        return sends
    joined: dict[int, bytes] = {}
    for seat, payload in sends:
        joined[seat] = joined[seat] + payload if seat in joined else payload
    return sends if len(joined) == len(sends) else list(joined.items())


# -- one interface for the driver -------------------------------------------------

@dataclass(slots=True)
class Table:
    """The seats of one match, and the one way each exchange is played over
    their pipes: the compiled dialogue where it may take over, else the
    native exchange where it takes the exchange, else Python."""

    bots: list[BotProcess]
    limits: Limits
    fast: Any = None  # the native module, or None (the pure-Python path)
    compiled: CompiledLoop | None = None
    backlog: set[int] = field(default_factory=set)  # seats whose input is not all delivered yet
    native_messages: int = 0  # messages written by native code

    @classmethod
    def open(cls, bots: list[BotProcess], limits: Limits, dealer: Any, *, native: bool) -> Table:
        new_match(bots)
        fast = fastloop() if native else None
        compiled = CompiledLoop.open(dealer, bots, limits) if fast is not None else None
        return cls(bots, limits, fast, compiled)

    def compiled_turn(self) -> Handback | None:
        """At an exchange boundary: let the compiled dialogue play if it may;
        where it stopped, or None when it did not take over."""
        if self.compiled is None:
            return None
        if any(b.held for b in self.bots) and not self.compiled.dealer.compiled.takes_held:
            # Written now (a seat whose pipe is gone is found at its next message).
            deliver(self.bots, [(i, b"") for i, b in enumerate(self.bots) if b.held], trio.current_time(),
                    self.backlog, self.limits)
        if not self.compiled.ready(self.backlog):
            return None
        handback = self.compiled.play()
        self.native_messages += handback.messages
        return handback

    async def replies(self, sends: list[tuple[int, bytes]], reply: bool,
                      handback: Handback | None = None) -> list[str]:
        """Write ``sends`` and, when the exchange asks for them, read one reply
        per send (in send order); ``handback``: finish the exchange a compiled
        dialogue stopped inside."""
        bots, backlog, limits = self.bots, self.backlog, self.limits
        if handback is not None and handback.mid:
            return await complete(bots, sends, handback.written, handback.accepted, handback.sent_at,
                                  backlog, limits)
        if self.fast is not None and reply:
            got = await exchange_natively(self.fast, bots, sends, backlog, limits)
            if got is not None:
                self.native_messages += len(sends)
                return got
        now = trio.current_time()
        if not reply:
            for seat, _ in sends:
                clock(bots[seat]).notices += 1
            sends = [(seat, payload) for seat, payload in per_seat(sends) if not bots[seat].hold(payload)]
            if not sends:
                return []
        lost = deliver(bots, sends, now, backlog, limits)
        if lost is not None:
            await bots[lost].raise_gone(during="writing to it")
        if not reply:
            return []
        for seat, _ in sends:
            clock(bots[seat]).awaiting += 1
        return reply_nowait(bots, sends, now, backlog) or await gather(bots, sends, now, backlog, limits)

    async def flush_held(self) -> None:
        """Write every notification still held (at the dialogue's end); a
        seat whose pipe is gone raises its fault, as when it was told."""
        bots = self.bots
        held = [(i, b"") for i, b in enumerate(bots) if b.held]
        if held:
            lost = deliver(bots, held, trio.current_time(), self.backlog, self.limits)
            if lost is not None:
                await bots[lost].raise_gone(during="writing to it")

    async def finish(self) -> None:
        await finish(self.bots, self.backlog, self.limits)

    def leave(self, seat: int) -> None:
        """A seat the match plays on without: nothing more is written to it, and it is stopped now."""
        bot = self.bots[seat]
        self.backlog.discard(seat)
        bot.close_stdin()
        bot.ask_stop()
