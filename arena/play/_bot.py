"""A bot process seen from the arena: its pipes, line I/O, and how it ended.

Processes are started and stopped by ``arena.play._host.BotHost`` (the one owner);
this module is the I/O on one running bot. How long the bot took is not
kept here: its seat's clock (``clock``) belongs to ``arena.play._exchange``,
which alone writes it. The hot path reads and writes the
non-blocking pipe fds directly and only enters trio's scheduler when a pipe
is not ready (about 10 µs per exchange with a C bot against 24 µs through
trio's stream API; see shared research pipe-bench).

Writing never blocks the match: what does not fit in the bot's stdin pipe
waits in its outbox, and the bot has its own deadline to take it (a bot that
does not read its input is the one faulted, never another seat).

An ACPC agent's seat changes hands once: its relay sends the agent's
connected socket over the hand-over socket before its first line, and from
that line on (``_adopt``) the arena reads and writes the agent's socket
itself, through the seat's codec (protocols/acpc/codec.c): the messages the
dialogue writes become MATCHSTATE lines, and each response line is read as
the reply it stands for. Nothing above this class sees the difference.
"""

from __future__ import annotations

import errno
import os
import select
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from .._faults import BotFault, FaultKind
from ._lines import LineBuffer, decode_line
from .._spec import BotSpec
from ..sandbox._supervision import Channel, SupervisorStatus, signal_name

if TYPE_CHECKING:
    from ..sandbox import LaunchPlan

DEFAULT_STDERR_CAP = 1024 * 1024
#: Past the cap, a bot's stderr is taken at most this fast (bytes a second): the
#: rest waits in the pipe and a bot writing more waits on it, at its own cost.
#: Drained as fast as it came, a flood cost the arena 1.6 s of CPU in a 1.9 s match.
PAST_CAP_RATE = 16 * 1024 * 1024
STDERR_TAIL = 2048
#: How long the supervisor's report is waited for after the bot's stdout
#: closed, to tell a crash (non-zero exit, signal) from a bot that merely
#: closed its stdout. A bot's pipe closes as it exits, and the report follows
#: once the supervisor and the arena get the CPU: 0.5 s was once too short in
#: the full suite on two busy cores. Only a bot that closes its stdout and
#: stays alive waits all of it.
EXIT_STATUS_WAIT = 1.0
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

#: Signals the kernel sends when a limit is reached, in words.
_SIGNAL_WORDS = {
    "SIGXCPU": " (it reached its CPU time limit)",
    "SIGXFSZ": " (it reached its file size limit)",
}


class BotProcess:
    """One running bot. ``BotHost.start`` makes it; ``BotHost.stop`` ends it."""

    def __init__(
        self,
        spec: BotSpec,
        seat: int,
        process: trio.Process,
        channel: Channel,
        plan: "LaunchPlan",
        *,
        max_line: int,
        stderr_path: Path | None,
        trace: Trace | None,
        sync_wait: float = DEFAULT_SYNC_WAIT,
        clock: object = None,
        codec: Callable[[int], Any] | None = None,
    ) -> None:
        self.spec = spec
        self.seat = seat
        self.process = process  # the outermost process of the launch chain
        self.plan = plan
        self._wfd: int | None = channel.stdin_w
        self._rfd = channel.stdout_r
        self._poll = select.poll()
        self._poll.register(self._rfd, select.POLLIN)
        self._stdin_poll = select.poll()  # POLLERR: the bot's end of its stdin is closed
        self._stdin_poll.register(self._wfd, 0)
        self._sock = channel.ours
        self._stderr_fd = channel.stderr_r
        self._lines = LineBuffer(max_line)
        self._trace = trace
        self.status = SupervisorStatus()
        self.stderr_path = stderr_path
        self.stderr_tail = bytearray()
        self.stderr_bytes = 0
        self._eof = False
        #: input not yet taken by the bot, and since when it has been waiting
        self.outbox = bytearray()
        #: notifications not written yet: they go out in one write with the
        #: next message to this bot (``queue``), or at the match's end
        self.held = b""
        self.stalled_since: float | None = None
        #: its host's setting: how long a reply is waited for before trio is entered
        self.sync_wait = sync_wait
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
        #: an ACPC agent's seat: the hand-over socket until the first line, the codec's class
        self._hand_over = channel.handoff
        self._codec_class = codec
        #: the seat's codec once the arena speaks to the agent itself (else None)
        self.codec: Any = None
        self._agent: socket.socket | None = None
        self._relay_in: int | None = None  # the relay's stdin and stdout once the agent's socket is ours
        self._relay_out: int | None = None

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
        st = self.poll_status()
        if st.exec_errno is not None:
            raise BotFault(FaultKind.FAILED_TO_START, self._exec_error(st.exec_errno), received, seat=self.seat)
        if not st.started:
            tail = self.stderr_text().strip()[-300:] or "(nothing on stderr)"
            raise BotFault(FaultKind.FAILED_TO_START, f"the sandbox could not start it: {tail}",
                           received, seat=self.seat)
        if st.signal is not None:
            why = _SIGNAL_WORDS.get(signal_name(st.signal), "")
            raise BotFault(FaultKind.CRASHED, f"killed by {signal_name(st.signal)}{why} while {during}",
                           received, seat=self.seat)
        if st.exit_code is not None and st.exit_code != 0:
            raise BotFault(FaultKind.CRASHED, f"exited with code {st.exit_code} while {during}",
                           received, seat=self.seat)
        if st.exit_code == 0:
            raise BotFault(FaultKind.DISCONNECTED, f"exited (code 0) while {during}", received, seat=self.seat)
        if st.closed and not st.stopped:
            # Its supervisor went without a word: the sandbox ended around it (at gvisor, a limit
            # ends gVisor's kernel with the bot; the limit's verdict follows the detail).
            raise BotFault(FaultKind.CRASHED, f"ended with its sandbox while {during}", received, seat=self.seat)
        what = "closed its stdin (broken pipe)" if during == "writing to it" else "closed its stdout"
        raise BotFault(FaultKind.DISCONNECTED, f"{what} while {during} but is still running",
                       received, seat=self.seat)

    def _exec_error(self, code: int) -> str:
        argv = self.plan.bot_argv or self.spec.argv
        program = argv[0]
        reason = os.strerror(code)
        if code == errno.ENOENT and os.path.isfile(program):
            line = _first_line(program)
            if line.startswith("#!"):
                interp = line[2:].strip()
                return (
                    f"could not start {program}: its #! line names {interp!r}, which the sandbox "
                    f"does not show; name the interpreter first on the command line "
                    f"(e.g. \"python3 {program}\"), or run with --sandbox none"
                )
        if code == errno.EACCES:
            reason += (" (the bot's sandbox user cannot run it: is it executable, and are it and "
                       "its folder readable by others?)")
        if code == errno.ENOEXEC:
            reason += " (is the file missing a #! line?)"
        return f"could not start {program}: {reason}"

    # -- stderr -----------------------------------------------------------------

    async def drain_stderr(self, cap: int) -> None:
        """Keep the bot's stderr flowing: at most ``cap`` bytes go to the log, and
        past them it is read at most ``PAST_CAP_RATE`` bytes a second (its tail
        is kept for fault reports)."""
        stream = trio.lowlevel.FdStream(self._stderr_fd)
        log = open(self.stderr_path, "wb") if self.stderr_path is not None else None  # noqa: SIM115
        past_since: float | None = None  # when the cap was reached
        try:
            while True:
                chunk = await stream.receive_some(65536)
                if not chunk:
                    break
                if log is not None and self.stderr_bytes < cap:
                    log.write(chunk[: cap - self.stderr_bytes])
                    log.flush()
                self.stderr_bytes += len(chunk)
                self.stderr_tail += chunk
                del self.stderr_tail[:-STDERR_TAIL]
                if self.stderr_bytes > cap:
                    now = trio.current_time()
                    past_since = now if past_since is None else past_since
                    ahead = (self.stderr_bytes - cap) / PAST_CAP_RATE - (now - past_since)
                    if ahead > 0:
                        await trio.sleep(ahead)
        except (trio.ClosedResourceError, trio.BrokenResourceError, OSError):
            pass
        finally:
            with trio.CancelScope(shield=True):
                await stream.aclose()
            if log is not None:
                if self.stderr_bytes > cap:
                    log.write(
                        f"\n[arena: stderr capped at {cap} bytes; "
                        f"{self.stderr_bytes - cap} more bytes dropped]\n".encode()
                    )
                log.close()

    def stderr_text(self) -> str:
        return bytes(self.stderr_tail).decode("utf-8", "backslashreplace")

    # -- ending -----------------------------------------------------------------

    def close_stdin(self) -> None:
        if self._wfd is not None:
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
        connection if the relay sent it (the game its codec speaks), and speak to the agent
        itself from now on. Anything else sent is refused, and the seat goes
        on as it was (its relay then answers nothing: a timeout, its own)."""
        from protocols.acpc import HANDOVER  # only when an agent plays

        hand_over, self._hand_over = self._hand_over, None
        assert hand_over is not None
        try:
            words, fds, _flags, _addr = socket.recv_fds(hand_over, 64, 1)
        except OSError:
            words, fds = b"", []
        finally:
            hand_over.close()
        if not fds:
            return
        try:
            agent = socket.socket(fileno=fds[0])
        except OSError:  # not a socket
            os.close(fds[0])
            return
        head, _, seat = words.partition(b" ")
        try:
            agent.getpeername()  # connected (not listening, not left unconnected)
            good = (agent.type == socket.SOCK_STREAM and agent.family in (socket.AF_INET, socket.AF_INET6)
                    and head == HANDOVER and seat == str(self.seat).encode() and self._codec_class is not None)
        except OSError:
            good = False
        if not good:
            agent.close()
            return
        agent.set_inheritable(False)  # no other process the arena starts gets it
        agent.setblocking(False)
        self.codec = self._codec_class(self.seat)
        self._agent = agent
        self._relay_in, self._relay_out = self._wfd, self._rfd
        self._poll.unregister(self._rfd)
        if self._wfd is not None:
            self._stdin_poll.unregister(self._wfd)
        self._wfd = self._rfd = agent.fileno()
        self._poll.register(self._rfd, select.POLLIN)
        self._stdin_poll.register(self._wfd, 0)


def _first_line(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.readline(256).decode(errors="replace").rstrip("\n")
    except OSError:
        return ""
