"""The arena's side of the supervisor protocol (see arena/native/supervisor.c).

Each bot process gets a SOCK_SEQPACKET socketpair: one end goes to the
supervisor at its start, the other stays here. Right after the spawn the
arena sends the bot's stdin (read end) and stdout (write end) over it and
closes its copies, so that only the supervisor and the bot hold them. The
supervisor answers with one status line per packet; ``SupervisorStatus``
parses them.

An ACPC agent's relay gets a third descriptor, its end of a hand-over
socket (the bot's descriptor 3): it sends the agent's connected socket over
it, and the arena speaks to the agent itself (``BotProcess._adopt``).
"""

from __future__ import annotations

import os
import signal
import socket
from dataclasses import dataclass


@dataclass(slots=True)
class Channel:
    """The pipes and the socket of one bot process, before and after the spawn."""

    ours: socket.socket  # the arena's end of the status socket
    theirs: socket.socket  # the supervisor's end (closed here after the spawn)
    stdin_r: int
    stdin_w: int  # the arena writes the bot's input here
    stdout_r: int  # the arena reads the bot's replies here
    stdout_w: int
    stderr_r: int
    stderr_w: int
    #: the hand-over socket (an ACPC agent's relay): the arena's end, and the bot's until the spawn
    handoff: socket.socket | None = None
    handoff_theirs: socket.socket | None = None

    @classmethod
    def open(cls, handoff: bool = False) -> "Channel":
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        for fd in (stdin_w, stdout_r, stderr_r):
            os.set_blocking(fd, False)
        ours.setblocking(False)
        mine = other = None
        if handoff:
            mine, other = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            mine.setblocking(False)
        return cls(ours, theirs, stdin_r, stdin_w, stdout_r, stdout_w, stderr_r, stderr_w, mine, other)

    def hand_over(self) -> None:
        """After the spawn: give the supervisor the bot's pipes; keep only our ends."""
        fds = [self.stdin_r, self.stdout_w]
        if self.handoff_theirs is not None:
            fds.append(self.handoff_theirs.fileno())
        try:
            socket.send_fds(self.ours, [b"F"], fds)
        except OSError:
            pass  # the supervisor is already gone; its status (none) will say so
        for fd in (self.stdin_r, self.stdout_w, self.stderr_w):
            os.close(fd)
        self.theirs.close()
        if self.handoff_theirs is not None:
            self.handoff_theirs.close()
            self.handoff_theirs = None

    def close_all(self) -> None:
        """When the spawn itself failed: close everything."""
        for fd in (self.stdin_r, self.stdin_w, self.stdout_r, self.stdout_w, self.stderr_r, self.stderr_w):
            try:
                os.close(fd)
            except OSError:
                pass
        self.ours.close()
        self.theirs.close()
        for sock in (self.handoff, self.handoff_theirs):
            if sock is not None:
                sock.close()


@dataclass(slots=True)
class SupervisorStatus:
    """What the supervisor reported so far about its bot."""

    started: bool = False
    exec_errno: int | None = None
    exit_code: int | None = None
    signal: int | None = None
    stopped: bool = False  # the arena asked, the bot was still running and was killed
    #: its count of what the bot left running, with its final report (None: no such report, or -1: it could not count)
    leftovers: int | None = None
    closed: bool = False  # the socket reached end-of-file (the supervisor is gone)

    @property
    def ended(self) -> bool:
        """A final word: the bot ended (or never started) and will not say more."""
        return (
            self.exec_errno is not None or self.exit_code is not None or self.signal is not None
            or self.stopped or self.closed
        )

    def feed(self, packet: bytes) -> None:
        words = packet.decode("ascii", "replace").split()
        if not words:
            return
        try:
            numbers = [int(w) for w in words[1:]]
        except ValueError:
            return
        kind = words[0]
        if kind == "started":
            self.started = True
        elif kind == "exec-failed" and numbers:
            self.exec_errno = numbers[0]
        elif kind == "exited" and len(numbers) == 2:
            self.exit_code, self.leftovers = numbers
        elif kind == "signaled" and len(numbers) == 2:
            self.signal, self.leftovers = numbers
        elif kind == "killed" and len(numbers) == 1:
            self.stopped, self.leftovers = True, numbers[0]

    def read_from(self, sock: socket.socket) -> None:
        """Take every packet waiting on ``sock`` (never blocks)."""
        while not self.closed:
            try:
                packet = sock.recv(256)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self.closed = True
                return
            if not packet:
                self.closed = True
                return
            self.feed(packet)

    def ending(self) -> str | None:
        """How the bot ended, in the words reports use."""
        if self.exit_code is not None:
            return f"exited {self.exit_code}"
        if self.signal is not None:
            return f"killed by {signal_name(self.signal)}"
        if self.stopped:
            return "killed"
        return None


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
