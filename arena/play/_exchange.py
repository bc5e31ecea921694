"""One exchange of a dialogue over real pipes, with a clock per seat.

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
"""

from __future__ import annotations

import select
from dataclasses import dataclass
from typing import Any

import trio

from ._bot import BotProcess, sync_wait
from .._faults import BotFault


@dataclass(slots=True)
class Limits:
    """Per-reply time rules of a match."""

    timeout: float
    startup_timeout: float
    budget: float | None

    def limit(self, bot: BotProcess) -> float:
        """The time ``bot`` has for its next reply."""
        if not bot.replied:
            return max(self.timeout, self.startup_timeout)
        if self.budget is not None and self.budget - bot.time_used < self.timeout:
            return max(0.0, self.budget - bot.time_used)
        return self.timeout

    def for_bot(self, bot: BotProcess) -> tuple[float, str]:
        """The time ``bot`` has for its next reply, and the words if it runs out."""
        limit = self.limit(bot)
        if not bot.replied:
            return limit, (
                f"no first reply within {limit:g} s of starting (is its stdout flushed after each "
                "line? is it waiting for a line the arena does not send?)"
            )
        if limit < self.timeout:
            return limit, f"used up its time budget of {self.budget:g} s for the match"
        return limit, (
            f"no reply within {self.timeout:g} s (thinking too long, a reply not flushed, "
            "or waiting for a line the arena does not send?)"
        )


def first_reply_done(bot: BotProcess) -> None:
    if not bot.replied:
        # Start-up (an interpreter, a JIT) is not thinking time.
        bot.replied = True
        bot.time_used = bot.slowest = 0.0


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
    if not bot.replied:
        return None
    line = bot.receive_nowait(now)
    return None if line is None else [line]


async def gather(bots: list[BotProcess], sends: list[tuple[int, bytes]], now: float,
                 backlog: set[int], limits: Limits) -> list[str]:
    """One reply line per message of ``sends``, in the same order (after ``reply_nowait``)."""
    if len(sends) == 1 and not backlog:
        bot = bots[sends[0][0]]
        limit, why = limits.for_bot(bot)
        line = await bot.receive_line(now + limit, now, why, ready_checked=bot.replied)
        first_reply_done(bot)
        return [line]
    replies: list[str | None] = [None] * len(sends)
    waiting: list[int] = []
    for i, (seat, _) in enumerate(sends):
        bot = bots[seat]
        if seat not in backlog and bot.replied:
            line = bot.receive_nowait(now)
            if line is not None:
                replies[i] = line
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
                ep.register(fd, select.EPOLLOUT)
            else:
                fd = w.bot.read_fd
                ep.register(fd, select.EPOLLIN)
            pending[fd] = w  # type: ignore[index]

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
            if ep.poll(min(sync_wait(), max(0.0, first - t))):
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
        replies[w.index] = bot.accept(line, w.sent_at, t)  # type: ignore[index]
        first_reply_done(bot)
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
        if len(payload) > NATIVE_MESSAGE or bot in asked or not bot.idle():
            return None
        asked.append(bot)
    # (list comprehensions, not generators: this runs once per exchange)
    before = trio.current_time()
    written, lines, took, lead, unread, eof = fast.exchange(
        tuple([b.write_fd for b in asked]), tuple([b.read_fd for b in asked]), tuple([p for _, p in sends]),
        tuple([limits.limit(b) for b in asked]), sync_wait(), asked[0].max_line,
    )
    now = trio.current_time()
    for i in range(written):
        asked[i].wrote(sends[i][1], now)
    for i, bot in enumerate(asked):
        if unread[i] is not None or eof[i]:
            bot.take_over(unread[i], eof[i])
        if lines[i] is not None:
            bot.charge(took[i], lines[i])
    if None not in lines:
        return list(lines)
    return await complete(bots, sends, written, lines, before + lead, backlog, limits)


async def complete(bots: list[BotProcess], sends: list[tuple[int, bytes]], written: int,
                   accepted: tuple[str | None, ...], sent_at: float, backlog: set[int], limits: Limits) -> list[str]:
    """Finish an exchange the compiled loop began (``arena.play._compiled``): write
    what it did not, read the replies it did not take, each seat on its own
    clock from when its message went out."""
    now = trio.current_time()
    for (seat, _), line in zip(sends, accepted):
        if line is None:
            bots[seat].awaiting += 1
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
    try:
        while bot.awaiting > 0:
            limit, why = limits.for_bot(bot)
            now = trio.current_time()
            await bot.receive_line(now + limit, now, why)
        if goodbye is not None:
            now = trio.current_time()
            if bot.queue(goodbye, now) < 0:
                return False
            limit, _ = limits.for_bot(bot)
            await bot.drain(now + limit)
    except BotFault:
        return False
    return True
