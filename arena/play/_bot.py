"""A bot process seen from the arena: its lines (``BotLines``), its stderr,
and how it ended.

Processes are started and stopped by ``arena.play._host.BotHost`` (the one owner);
this module is the rest of one running bot. How long the bot took is not
kept here: its seat's clock (``clock``) belongs to ``arena.play._exchange``,
which alone writes it.

An ACPC agent's seat (``arena.seats.acpc``) changes hands once: its relay
sends the agent's connected socket over the hand-over socket before its first
line, and from that line on (``_adopt``) the lines are the agent's socket's,
through the seat's codec.
"""

from __future__ import annotations

import os
import select
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from .._faults import BotFault, FaultKind
from .._spec import BotSpec
from ..sandbox._supervision import Channel, SupervisorStatus
from ..seats.acpc import take_agent
from ._botlines import DEFAULT_SYNC_WAIT, HOLD_CAP, OUTBOX_CAP, BotLines, Trace
from ._ending import gone_fault
from ._stderr import DEFAULT_STDERR_CAP, PAST_CAP_RATE, StderrLog

if TYPE_CHECKING:
    from ..sandbox import LaunchPlan

__all__ = ["DEFAULT_STDERR_CAP", "DEFAULT_SYNC_WAIT", "EXIT_STATUS_WAIT", "HOLD_CAP", "OUTBOX_CAP",
           "PAST_CAP_RATE", "BotProcess", "Trace"]

#: How long the supervisor's report is waited for after the bot's stdout
#: closed, to tell a crash (non-zero exit, signal) from a bot that merely
#: closed its stdout. A bot's pipe closes as it exits, and the report follows
#: once the supervisor and the arena get the CPU: 0.5 s was once too short in
#: the full suite on two busy cores. Only a bot that closes its stdout and
#: stays alive waits all of it.
EXIT_STATUS_WAIT = 1.0


class BotProcess(BotLines):
    """One running bot. ``BotHost.start`` makes it; ``BotHost.stop`` ends it."""

    def __init__(self, spec: BotSpec, seat: int, process: trio.Process, channel: Channel, plan: "LaunchPlan", *,
                 max_line: int, stderr_path: Path | None, trace: Trace | None,
                 sync_wait: float = DEFAULT_SYNC_WAIT, clock: object = None,
                 codec: Callable[[int], Any] | None = None) -> None:
        super().__init__(seat, channel.stdin_w, channel.stdout_r, max_line=max_line, trace=trace,
                         sync_wait=sync_wait)
        self.spec = spec
        self.process = process  # the outermost process of the launch chain
        self.plan = plan
        self._sock = channel.ours
        self.status = SupervisorStatus()
        self.stderr = StderrLog(channel.stderr_r, stderr_path)
        #: the seat's clock (``arena.play._exchange.SeatClock``), kept with the
        #: process because a kept process carries it from match to match; only
        #: the exchange module reads or writes it
        self.clock = clock
        #: how it ended: "exited N" by itself, "killed by SIGNAME", or "killed"
        #: when the arena had to stop it
        self.ending: str | None = None
        #: its other processes still running when it ended (then killed); None: they could not be counted
        self.leftovers: int | None = 0
        self.sandbox_verdict: str | None = None  # what the limits saw (e.g. out of memory)
        self.reaped = False
        #: its last match ended in order with this seat in good standing: it is owed its seat
        #: kind's end time (HIGC's ``tournament over``); a faulted or cut-off seat is stopped at once
        self.in_step = False
        #: an ACPC agent's seat: the hand-over socket until the first line, and the codec's class
        self._hand_over = channel.handoff
        self._codec_class = codec
        self._agent: socket.socket | None = None
        self._relay_in: int | None = None  # the relay's stdin and stdout once the agent's socket is ours
        self._relay_out: int | None = None

    # -- stderr -----------------------------------------------------------------

    @property
    def stderr_path(self) -> Path | None:
        return self.stderr.path

    async def drain_stderr(self, cap: int) -> None:
        """Keep the bot's stderr flowing (``StderrLog.drain``), from the host's nursery."""
        await self.stderr.drain(cap)

    def stderr_text(self) -> str:
        return self.stderr.text()

    # -- how it ended -------------------------------------------------------------

    def poll_status(self) -> SupervisorStatus:
        self.status.read_from(self._sock)
        return self.status

    async def wait_ended(self) -> None:
        """Until the supervisor has said how the bot ended (or is gone)."""
        while not self.poll_status().ended:
            await trio.lowlevel.wait_readable(self._sock)

    async def raise_gone(self, during: str) -> None:
        """Raise the fault for a bot whose pipe closed: it crashed, left, or never started."""
        partial = self._lines.pending()
        received = partial.decode("utf-8", "backslashreplace") if partial else None
        if self.codec is not None:  # the agent, not the relay, is at the other end
            raise BotFault(FaultKind.DISCONNECTED,
                           f"the ACPC agent closed the connection while {during}; expected a response to "
                           f"{self.codec.state!r}", received, seat=self.seat)
        with trio.move_on_after(EXIT_STATUS_WAIT):
            await self.wait_ended()
        # The report may have arrived while this process itself waited for the CPU.
        raise gone_fault(self.poll_status(), during, received, seat=self.seat,
                         argv=self.plan.bot_argv or self.spec.argv, stderr=self.stderr_text())

    # -- ending -----------------------------------------------------------------

    def close_stdin(self) -> None:
        if self._wfd is None:
            return
        self._stdin_poll.unregister(self._wfd)
        if self._agent is not None:
            # The agent sees its connection end; the relay, its stdin's, and ends too.
            try:
                self._agent.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            if self._relay_in is not None:
                os.close(self._relay_in)
                self._relay_in = None
        else:
            os.close(self._wfd)
        self._wfd = None
        self.outbox.clear()
        self.held = b""

    def ask_stop(self) -> None:
        """Tell the supervisor to end the bot and everything it started."""
        try:
            self._sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def close_channels(self) -> None:
        self.close_stdin()
        if self._agent is not None:
            self._agent.close()
            if self._relay_out is not None:
                os.close(self._relay_out)
                self._relay_out = None
        else:
            try:
                os.close(self._rfd)
            except OSError:
                pass
        if self._hand_over is not None:
            self._hand_over.close()
            self._hand_over = None
        self._sock.close()

    # -- an ACPC agent's seat ---------------------------------------------------

    def _adopt(self) -> None:
        """At the first line of an ACPC agent's relay: take the agent's
        connection if the relay sent it and speak to the agent itself from now
        on. Anything else sent is refused, and the seat goes on as it was (its
        relay then answers nothing: a timeout, its own)."""
        hand_over, self._hand_over = self._hand_over, None
        agent = take_agent(hand_over, self.seat)
        if agent is None or self._codec_class is None:
            if agent is not None:
                agent.close()
            return
        self.codec = self._codec_class(self.seat)
        self._agent = agent
        self._relay_in, self._relay_out = self._wfd, self._rfd
        self._poll.unregister(self._rfd)
        if self._wfd is not None:
            self._stdin_poll.unregister(self._wfd)
        self._wfd = self._rfd = agent.fileno()
        self._poll.register(self._rfd, select.POLLIN)
        self._stdin_poll.register(self._wfd, 0)
