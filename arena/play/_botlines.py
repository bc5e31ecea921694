"""A bot's line I/O, as the match sees it: messages out (with what is held
back for the next one, and an outbox for what its stdin pipe does not take),
reply lines in, by a deadline.

The hot path reads and writes the non-blocking pipe fds directly and only
enters trio's scheduler when a pipe is not ready (about 10 µs per exchange
with a C bot against 24 µs through trio's stream API; see shared research
pipe-bench). Writing never blocks the match: what does not fit in the bot's
stdin pipe waits in its outbox, and the bot has its own deadline to take it
(a bot that does not read its input is the one faulted, never another seat).

For an ACPC agent (``arena.seats.acpc``) the two fds become the agent's
socket once its relay hands it over, and ``codec`` translates both ways: the
messages the dialogue writes become MATCHSTATE lines, and each response line
is read as the reply it stands for. Nothing above sees the difference.

How a bot that stops answering ended (``raise_gone``) and the hand-over
(``_adopt``) are the process's (``BotProcess``).
"""

from __future__ import annotations

import os
import select
from collections.abc import Callable
from typing import Any

import trio

from .._faults import BotFault, FaultKind
from ._lines import LineBuffer, decode_line

#: Input the arena keeps for a bot that is not reading (beyond its pipe).
OUTBOX_CAP = 1024 * 1024
#: Notifications held back for a bot's next message, at most: with the
#: message they stay one pipe write the native exchange takes (PIPE_BUF).
HOLD_CAP = 3072
#: How long a reply is waited for in a plain poll() before trio is entered,
#: unless the host says otherwise (``BotHost.sync_wait``). Most replies come
#: within microseconds, and a poll() costs about a third of trio's cancel
#: scope plus ``wait_readable``; nothing else on the event loop runs meanwhile.
DEFAULT_SYNC_WAIT = 0.001

Trace = Callable[[int, str, str], None]


class BotLines:
    """The lines to and from one seat's bot."""

    #: an ACPC agent's hand-over socket until its relay's first line (``BotProcess._adopt``)
    _hand_over: Any = None

    def __init__(self, seat: int, write_fd: int, read_fd: int, *, max_line: int, trace: Trace | None,
                 sync_wait: float = DEFAULT_SYNC_WAIT) -> None:
        self.seat = seat
        self._wfd: int | None = write_fd
        self._rfd = read_fd
        self._poll = select.poll()
        self._poll.register(self._rfd, select.POLLIN)
        self._stdin_poll = select.poll()  # POLLERR: the bot's end of its stdin is closed
        self._stdin_poll.register(self._wfd, 0)
        self._lines = LineBuffer(max_line)
        self._trace = trace
        self._eof = False
        #: input not yet taken by the bot, and since when it has been waiting
        self.outbox = bytearray()
        #: notifications not written yet: they go out in one write with the
        #: next message to this bot (``queue``), or at the match's end
        self.held = b""
        self.stalled_since: float | None = None
        #: its host's setting: how long a reply is waited for before trio is entered
        self.sync_wait = sync_wait
        #: an ACPC agent's codec once the arena speaks to the agent itself (else None)
        self.codec: Any = None

    def set_trace(self, trace: Trace | None) -> None:
        self._trace = trace

    @property
    def trace(self) -> Trace | None:
        return self._trace

    @property
    def max_line(self) -> int:
        return self._lines.max_line

    def idle(self) -> bool:
        """Nothing in flight either way: nothing waiting to be written, no
        bytes read ahead, its pipes open (where native code may take over)."""
        return not self.outbox and not len(self._lines) and not self._eof and self._wfd is not None

    def take_over(self, unread: bytes | None, eof: bool) -> None:
        """What the compiled loop read on this bot's pipe and did not accept
        (read again from the line buffer), and whether the pipe ended."""
        if unread:
            self._lines.feed(unread)
        if eof:
            self._eof = True

    def wrote(self, data: bytes) -> None:
        """Native code wrote ``data`` to this bot, all of it."""
        if self._trace is not None:
            self._trace(self.seat, "->", data.decode())

    def read_natively(self, line: str) -> None:
        """Native code read ``line`` from this bot."""
        if self._trace is not None:
            self._trace(self.seat, "<-", line)

    # -- writing ----------------------------------------------------------------

    def send_nowait(self, data: bytes) -> int:
        """Write what fits now, after anything held (part of the public API,
        docs/api.md); the bytes of ``data`` written, or -1 when the pipe is broken."""
        if self._trace is not None:
            self._trace(self.seat, "->", data.decode())
        held = self.take_held()
        written = self._write_nowait(held + data)
        if 0 <= written < len(held):  # the held part did not all fit: still held, first
            self.held = held[written:]
            return 0
        return written if written < 0 else written - len(held)

    def _write_nowait(self, data: bytes) -> int:
        """Write what fits now; the bytes written, or -1 when the pipe is broken."""
        if self.codec is not None:
            # Translated and sent; what the socket does not take waits in the codec, and a
            # connection gone is found by the next read, in the words of a hang-up.
            self.codec.send(self._wfd, data)
            return len(data)
        try:
            return os.write(self._wfd, data)  # type: ignore[arg-type]
        except BlockingIOError:
            return 0
        except (BrokenPipeError, ConnectionResetError):
            return -1

    def hold(self, data: bytes) -> bool:
        """Keep a notification to write with the next message (the bot reads
        the same bytes, woken once); the trace has it now, in the dialogue's
        order. False, keeping nothing, when it must be written now (``queue``,
        after what was held): what is held would pass ``HOLD_CAP``, input is
        already waiting in the outbox (its deadline runs), or the bot's end of
        the pipe is closed, so that the write fails now, in the hand it would
        have failed in unheld."""
        if (len(self.held) + len(data) > HOLD_CAP or self.outbox or self._wfd is None
                or self._stdin_poll.poll(0)):
            return False
        if self._trace is not None:
            self._trace(self.seat, "->", data.decode())
        self.held += data
        return True

    def take_held(self) -> bytes:
        """What is held, now written by the caller (it was traced when held)."""
        held, self.held = self.held, b""
        return held

    def queue(self, data: bytes, now: float) -> int:
        """Deliver ``data`` (after what is held; ``b""``: only that) or keep
        the rest in the outbox: 1 delivered, 0 waiting, -1 gone."""
        if data and self._trace is not None:
            self._trace(self.seat, "->", data.decode())
        if self.held:
            data = self.held + data
            self.held = b""
        if self.outbox:
            self.outbox += data
            if len(self.outbox) > OUTBOX_CAP:
                raise self._not_reading(now, f"over {OUTBOX_CAP >> 10} KiB of its input waiting")
            return 0
        written = self._write_nowait(data)
        if written == len(data):
            return 1
        if written < 0:
            return -1
        self.outbox += data[written:]
        self.stalled_since = now
        return 0

    def flush_nowait(self, now: float) -> int:
        """Write what the pipe takes of the outbox: 1 empty now, 0 still waiting, -1 gone."""
        try:
            written = os.write(self._wfd, self.outbox)  # type: ignore[arg-type]
        except BlockingIOError:
            return 0
        except (BrokenPipeError, ConnectionResetError):
            return -1
        del self.outbox[:written]
        if self.outbox:
            return 0
        self.stalled_since = None
        return 1

    def _not_reading(self, now: float, why: str) -> BotFault:
        waited = now - (self.stalled_since or now)
        return BotFault(
            FaultKind.TIMEOUT,
            f"did not read its input: {len(self.outbox)} bytes sent to it were still waiting "
            f"after {waited:.3g} s ({why})",
            seat=self.seat,
        )

    def not_reading_fault(self, now: float, limit: float) -> BotFault:
        return self._not_reading(now, f"its stdin pipe stayed full past its {limit:g} s deadline")

    async def drain(self, deadline: float) -> None:
        """Wait until the bot has taken its whole outbox, or fault it at ``deadline``."""
        while True:
            done = self.flush_nowait(trio.current_time())
            if done > 0:
                return
            if done < 0:
                await self.raise_gone(during="writing to it")
            with trio.move_on_at(deadline):
                await trio.lowlevel.wait_writable(self._wfd)  # type: ignore[arg-type]
                continue
            raise self._not_reading(trio.current_time(), "its stdin pipe stayed full until its deadline")

    # -- reading ----------------------------------------------------------------

    def receive_nowait(self) -> str | None:
        """The reply line if exactly one whole line is ready now, else None.

        None leaves any bytes read in the buffer; the slow path goes on from
        there.
        """
        lines = self._lines
        if len(lines):
            return None
        data = self._read()
        if data is None:
            return None
        if not data:
            self._eof = True
            return None
        end = data.find(b"\n")
        if end != len(data) - 1 or end > lines.max_line:
            self._feed(data)  # several lines, or part of one
            return None
        line = self._take(data[:-1])
        if self._trace is not None:
            self._trace(self.seat, "<-", line)
        return line

    def _read(self) -> bytes | None:
        """What the bot's stdout has now (b"": end of file), or None: nothing yet."""
        try:
            return os.read(self._rfd, 65536)  # larger reads cost an mmap each
        except BlockingIOError:
            return None
        except OSError:
            if self.codec is None:
                raise
            return b""  # the agent's connection failed (reset, ...): as a hang-up

    def _take(self, raw: bytes) -> str:
        """A whole line received (without its newline) as the reply it is; the
        first line of an ACPC agent's relay is where the agent's socket is taken."""
        line = self._decode(raw if self.codec is None else self.codec.reply(raw))
        if self._hand_over is not None:
            self._adopt()
        return line

    def _feed(self, data: bytes) -> None:
        try:
            self._lines.feed(data)
        except BotFault as exc:
            exc.seat = self.seat
            raise

    def _decode(self, raw: bytes) -> str:
        try:
            return decode_line(raw)
        except BotFault as exc:
            exc.seat = self.seat
            raise

    def read_ready(self) -> tuple[str | None, bool]:
        """A whole line if one can be had without waiting, and whether the pipe is at EOF."""
        while True:
            try:
                raw = self._lines.next_raw()
            except BotFault as exc:
                exc.seat = self.seat
                raise
            if raw is not None:
                line = self._take(raw)
                if self._trace is not None:
                    self._trace(self.seat, "<-", line)
                return line, False
            if self._eof:
                return None, True
            data = self._read()
            if data is None:
                return None, False
            if not data:
                self._eof = True
                return None, True
            self._feed(data)

    async def receive_line(self, deadline: float, timeout_text: str, ready_checked: bool = False) -> str:
        """The next line, by ``deadline``; every failure becomes a BotFault.

        ``ready_checked``: the caller just tried ``receive_nowait``.
        """
        if not ready_checked:
            line = self.receive_nowait()
            if line is not None:
                return line
        while True:
            line, eof = self.read_ready()
            if line is not None:
                return line
            if eof:
                await self.raise_gone(during="waiting for its reply")
            budget = min(self.sync_wait, deadline - trio.current_time())
            if budget > 0 and self._poll.poll(budget * 1000):
                continue
            with trio.move_on_at(deadline):
                await trio.lowlevel.wait_readable(self._rfd)
                continue
            raise self.timeout_fault(timeout_text)

    def timeout_fault(self, text: str) -> BotFault:
        partial = self._lines.pending()
        return BotFault(
            FaultKind.TIMEOUT,
            text + (" (it wrote part of a line and no newline)" if partial else ""),
            received=partial.decode("utf-8", "backslashreplace") if partial else None,
            seat=self.seat,
        )

    @property
    def read_fd(self) -> int:
        return self._rfd

    @property
    def write_fd(self) -> int | None:
        return self._wfd

    async def raise_gone(self, during: str) -> None:
        """Raise the fault for a bot whose pipe closed (the process's to say)."""
        raise NotImplementedError

    def _adopt(self) -> None:
        """At the first line while ``_hand_over`` is set: the process takes an ACPC agent's connection."""
