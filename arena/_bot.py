"""A bot as a child process: spawn, line I/O under deadlines, and teardown.

The hot path reads and writes the non-blocking pipe fds directly and only
enters trio's scheduler when a pipe is not ready (measured here at about 10 µs
per exchange with a C bot against 24 µs through trio's stream API; see
shared research pipe-bench). Waiting always happens inside a cancel scope, so
deadlines, Ctrl-C and cancellation work as usual.
"""

from __future__ import annotations

import errno
import os
import shlex
import shutil
import signal
import subprocess
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import trio

from ._faults import BotFault, FaultKind
from ._lines import DEFAULT_MAX_LINE, LineBuffer, decode_line

DEFAULT_STDERR_CAP = 1024 * 1024
STDERR_TAIL = 2048
#: How long an exited bot's status is waited for after EOF, to tell a crash
#: (non-zero exit, signal) from a bot that merely closed its stdout.
EXIT_STATUS_WAIT = 0.25

Trace = Callable[[int, str, str], None]


class BadBotCommand(ValueError):
    """A bot command that cannot even be tried (usage error, said before start)."""


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot as the user gave it: a path or a command line, and a display name."""

    command: str
    argv: tuple[str, ...]
    name: str

    @classmethod
    def parse(cls, command: str, name: str | None = None) -> "BotSpec":
        """Split and check a command line; raise BadBotCommand with a sentence."""
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise BadBotCommand(f"bot command {command!r} cannot be split: {exc}") from None
        if not argv:
            raise BadBotCommand("empty bot command")
        exe = argv[0]
        if "/" in exe:
            path = Path(exe)
            if not path.exists():
                raise BadBotCommand(f"bot {command!r}: {exe} does not exist")
            if path.is_dir():
                raise BadBotCommand(f"bot {command!r}: {exe} is a directory, not a program")
            if not os.access(path, os.X_OK):
                hint = ""
                if path.suffix in (".py", ".js", ".pl", ".rb", ".sh"):
                    interp = {".py": "python3", ".js": "node", ".pl": "perl", ".rb": "ruby", ".sh": "sh"}
                    hint = f' (run `chmod +x {exe}` or give "{interp[path.suffix]} {exe}")'
                raise BadBotCommand(f"bot {command!r}: {exe} is not executable{hint}")
        elif shutil.which(exe) is None:
            raise BadBotCommand(
                f"bot {command!r}: {exe!r} is not a program on PATH "
                f"(for a file in this folder write ./{exe})"
            )
        return cls(command=command, argv=tuple(argv), name=name or command)


def bot_environment() -> dict[str, str]:
    """An explicit, small environment: bots must not depend on ours."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/"),
        "LANG": "C.UTF-8",
    }
    return env


class BotProcess:
    """One running bot. Create it with ``open_bot``; it is closed for you."""

    def __init__(
        self,
        spec: BotSpec,
        seat: int,
        process: trio.Process,
        *,
        max_line: int,
        stderr_path: Path | None,
        trace: Trace | None,
    ) -> None:
        self.spec = spec
        self.seat = seat
        self.process = process
        assert process.stdin is not None and process.stdout is not None
        self._wfd = process.stdin.fileno()
        self._rfd = process.stdout.fileno()
        self._lines = LineBuffer(max_line)
        self._trace = trace
        self.stderr_path = stderr_path
        self.stderr_tail = bytearray()
        self.stderr_bytes = 0
        self.stdin_closed = False
        self._eof = False
        self.replied = False  # has it answered once (start-up is over)?
        self.slowest = 0.0  # the longest single reply (after start-up), seconds
        #: how the process ended: "exited N" on its own after stdin closed,
        #: or "killed" when it was still running after the grace period
        self.ending: str | None = None
        self.leftovers = 0  # processes of its group still running when it was ended
        self.sandbox_verdict: str | None = None  # what the sandbox saw (e.g. out of memory)
        self.reaped = False  # killed and waited for by the teardown
        #: seconds this bot spent on its replies (see ``receive_line``)
        self.time_used = 0.0

    @property
    def name(self) -> str:
        return self.spec.name

    # -- writing ----------------------------------------------------------------

    def send_nowait(self, data: bytes) -> int:
        """Write what fits now, without awaiting; return the bytes written.

        The caller finishes with ``send_rest`` when not all of it was taken.
        Returns -1 when the pipe is broken (the bot is gone).
        """
        if self._trace is not None:
            self._trace(self.seat, "->", data.decode())
        try:
            return os.write(self._wfd, data)
        except BlockingIOError:
            return 0
        except (BrokenPipeError, ConnectionResetError):
            return -1

    async def send(self, data: bytes, deadline: float) -> None:
        written = self.send_nowait(data)
        if written != len(data):
            await self.send_rest(data, written, deadline)

    async def send_rest(self, data: bytes, written: int, deadline: float) -> None:
        """Finish a write that ``send_nowait`` could not complete."""
        if written < 0:
            await self._raise_gone(during="writing to it")
        view = memoryview(data)[written:]
        # The pipe is full: the bot is not reading its stdin (yet).
        while view:
            try:
                view = view[os.write(self._wfd, view):]
            except BlockingIOError:
                with trio.move_on_at(deadline):
                    await trio.lowlevel.wait_writable(self._wfd)
                    continue
                raise BotFault(
                    FaultKind.TIMEOUT,
                    "stopped reading its stdin (the pipe stayed full until the deadline)",
                ) from None
            except (BrokenPipeError, ConnectionResetError):
                await self._raise_gone(during="writing to it")

    # -- reading ----------------------------------------------------------------

    def receive_nowait(self, sent_at: float) -> str | None:
        """The reply line if exactly one whole line is ready now, else None.

        None leaves any bytes read in the buffer; ``receive_line`` goes on
        from there. Time used is charged from ``sent_at`` to the moment the
        reply was found (an upper bound when it was already waiting).
        """
        lines = self._lines
        if len(lines):
            return None
        try:
            data = os.read(self._rfd, 65536)  # larger reads cost an mmap each
        except BlockingIOError:
            return None
        if not data:
            self._eof = True
            return None
        end = data.find(b"\n")
        if end != len(data) - 1 or end > lines.max_line:
            lines.feed(data)  # several lines, or part of one
            return None
        line = decode_line(data[:-1])
        took = trio.current_time() - sent_at
        self.time_used += took
        if took > self.slowest:
            self.slowest = took
        if self._trace is not None:
            self._trace(self.seat, "<-", line)
        return line

    async def receive_line(self, deadline: float, sent_at: float, timeout_text: str) -> str:
        """The next reply line; every failure becomes a BotFault."""
        line = self.receive_nowait(sent_at)
        if line is not None:
            return line
        return await self._receive_slow(deadline, sent_at, timeout_text)

    async def _receive_slow(self, deadline: float, sent_at: float, timeout_text: str) -> str:
        lines = self._lines
        if self._eof:
            await self._raise_gone(during="waiting for its reply")
        while True:
            line = lines.next_line()
            if line is not None:
                break
            try:
                data = os.read(self._rfd, 65536)
            except BlockingIOError:
                with trio.move_on_at(deadline):
                    await trio.lowlevel.wait_readable(self._rfd)
                    continue
                partial = lines.pending()
                raise BotFault(
                    FaultKind.TIMEOUT,
                    timeout_text
                    + (" (it wrote part of a line and no newline)" if partial else ""),
                    received=partial.decode("utf-8", "backslashreplace") if partial else None,
                ) from None
            if not data:
                await self._raise_gone(during="waiting for its reply")
            lines.feed(data)
        took = trio.current_time() - sent_at
        self.time_used += took
        if took > self.slowest:
            self.slowest = took
        if self._trace is not None:
            self._trace(self.seat, "<-", line)
        return line

    async def _raise_gone(self, during: str) -> None:
        """Raise the fault for a bot whose pipe closed: crashed or disconnected."""
        partial = self._lines.pending()
        received = partial.decode("utf-8", "backslashreplace") if partial else None
        with trio.move_on_after(EXIT_STATUS_WAIT):
            await self.process.wait()
        code = self.process.returncode
        if code is None:
            raise BotFault(
                FaultKind.DISCONNECTED,
                (
                    f"closed its stdin (broken pipe) while {during} but is still running"
                    if during == "writing to it"
                    else f"closed its stdout while {during} but is still running"
                ),
                received=received,
            )
        if code < 0:
            try:
                signame = signal.Signals(-code).name
            except ValueError:
                signame = f"signal {-code}"
            raise BotFault(FaultKind.CRASHED, f"killed by {signame} while {during}", received)
        if code in (126, 127) and not self.replied:
            # A launcher (prlimit, a shell) could not execute the bot: 126 is
            # "cannot execute", 127 "not found". The stderr tail says which.
            raise BotFault(
                FaultKind.FAILED_TO_START,
                f"the sandbox could not execute it (exit {code}): {self.stderr_text().strip()[-200:]}",
                received,
            )
        if code != 0:
            raise BotFault(FaultKind.CRASHED, f"exited with code {code} while {during}", received)
        raise BotFault(FaultKind.DISCONNECTED, f"exited (code 0) while {during}", received)

    # -- stderr -----------------------------------------------------------------

    async def _drain_stderr(self, cap: int) -> None:
        """Keep the bot's stderr flowing: at most ``cap`` bytes go to the log."""
        assert self.process.stderr is not None
        stream = self.process.stderr
        log = open(self.stderr_path, "wb") if self.stderr_path is not None else None  # noqa: SIM115
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
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            pass
        finally:
            if log is not None:
                if self.stderr_bytes > cap:
                    log.write(
                        f"\n[arena: stderr capped at {cap} bytes; "
                        f"{self.stderr_bytes - cap} more bytes dropped]\n".encode()
                    )
                log.close()

    def stderr_text(self) -> str:
        return bytes(self.stderr_tail).decode("utf-8", "backslashreplace")

    # -- teardown ---------------------------------------------------------------

    async def close_stdin(self) -> None:
        if not self.stdin_closed:
            self.stdin_closed = True
            assert self.process.stdin is not None
            try:
                await self.process.stdin.aclose()
            except (trio.BrokenResourceError, OSError):
                pass

    def kill_group(self) -> None:
        """SIGKILL the bot's whole process group (it is its own session leader)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # leader reaped and no member left
        except PermissionError:
            # The pgid can no longer be ours only if the group is gone.
            pass


@dataclass(slots=True)
class LaunchPlan:
    """How one bot process is started: the sandbox layer's answer for one spawn."""

    argv: list[str]
    env: dict[str, str]
    cwd: str | None = None
    pass_fds: tuple[int, ...] = ()
    #: called after the process group was killed and reaped (e.g. cgroup.kill + rmdir);
    #: returns a verdict sentence to add to a crash report (e.g. "out of memory"), or None
    on_end: Callable[[], str | None] | None = None
    #: called right after the spawn (e.g. to close fds handed to the child)
    after_spawn: Callable[[], None] | None = None


class Launcher:
    """No sandbox: the bot runs directly (own session and process group only).

    The sandbox layers (arena._sandbox) subclass this and wrap the command.
    """

    level = "none"

    def plan(self, spec: BotSpec, seat: int) -> LaunchPlan:
        return LaunchPlan(argv=list(spec.argv), env=bot_environment())


async def _spawn(spec: BotSpec, launcher: Launcher | None = None, seat: int = 0) -> trio.Process:
    plan = (launcher or Launcher()).plan(spec, seat)
    try:
        process = await trio.lowlevel.open_process(
            plan.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # own session and process group: killed as a whole
            env=plan.env,
            cwd=plan.cwd,
            pass_fds=plan.pass_fds,
        )
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        if exc.errno == errno.ENOEXEC:
            reason += " (is the file missing a #! line?)"
        raise BotFault(FaultKind.FAILED_TO_START, f"could not start {spec.argv[0]}: {reason}") from None
    finally:
        if plan.after_spawn is not None:
            plan.after_spawn()
    process.arena_on_end = plan.on_end  # type: ignore[attr-defined]
    return process


@asynccontextmanager
async def open_bots(
    specs: list[BotSpec],
    *,
    log_dir: Path | None,
    max_line: int = DEFAULT_MAX_LINE,
    stderr_cap: int = DEFAULT_STDERR_CAP,
    grace: float = 0.5,
    trace: Trace | None = None,
    launcher: Launcher | None = None,
) -> AsyncIterator[list[BotProcess]]:
    """Start every bot; on exit, however it happens, end them all.

    Teardown: close every stdin (a polite bot exits on EOF), give them
    ``grace`` seconds together, then SIGKILL each whole process group and reap
    the leaders. It runs shielded, so it also completes on Ctrl-C.
    A bot that fails to start raises ``BotFault`` with ``.seat`` set.
    """
    bots: list[BotProcess] = []
    try:
        for seat, spec in enumerate(specs):
            try:
                process = await _spawn(spec, launcher, seat)
            except BotFault as fault:
                fault.seat = seat  # type: ignore[attr-defined]
                raise
            stderr_path = log_dir / f"seat{seat}.stderr.log" if log_dir is not None else None
            bots.append(
                BotProcess(spec, seat, process, max_line=max_line, stderr_path=stderr_path, trace=trace)
            )
        try:
            async with trio.open_nursery() as nursery:
                for bot in bots:
                    nursery.start_soon(bot._drain_stderr, stderr_cap)
                try:
                    yield bots
                finally:
                    await _teardown(bots, grace)
                    # The stderr drains end at EOF once the group is dead; a process
                    # that escaped the group could hold stderr open for ever.
                    nursery.cancel_scope.deadline = trio.current_time() + 0.2
        except BaseExceptionGroup as group:
            # Callers see what the match raised, not trio's wrapper around it.
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise
    finally:
        await _teardown(bots, grace)  # bots started before a later one failed to


async def _teardown(bots: list[BotProcess], grace: float) -> None:
    """Close stdins, wait ``grace`` seconds in all, kill every group, reap."""
    with trio.CancelScope(shield=True):
        for bot in bots:
            await bot.close_stdin()
        with trio.move_on_after(grace):
            for bot in bots:
                if not bot.reaped:
                    await bot.process.wait()
        for bot in bots:
            if not bot.reaped:
                code = bot.process.returncode
                bot.ending = "killed" if code is None else f"exited {code}"
                # What it leaves behind: its group, minus a leader that is gone.
                bot.leftovers = _count_live(bot.process.pid) - (1 if code is None else 0)
                bot.kill_group()
                await bot.process.wait()
                bot.reaped = True
        for bot in bots:
            # The sandbox's own end: cgroup kill, and what it saw (e.g. out of memory).
            on_end = getattr(bot.process, "arena_on_end", None)
            if on_end is not None:
                bot.process.arena_on_end = None  # once
                try:
                    bot.sandbox_verdict = on_end()
                except OSError:
                    pass
        # SIGKILL is delivered asynchronously: make sure the groups are really
        # gone before the match is reported over.
        groups = {bot.process.pid for bot in bots}
        with trio.move_on_after(2.0):
            while alive := _live_members(groups):
                for pgid in alive:
                    try:
                        os.killpg(pgid, signal.SIGKILL)
                    except OSError:
                        pass
                await trio.sleep(0.005)


def _count_live(pgid: int) -> int:
    return sum(1 for group in _live_member_groups({pgid}) if group == pgid)


def _live_members(pgids: set[int]) -> set[int]:
    return set(_live_member_groups(pgids))


def _live_member_groups(pgids: set[int]) -> list[int]:
    """For each running (non-zombie) process in one of ``pgids``, its group."""
    alive: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return alive
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # Fields after the command (which may contain spaces): state ppid pgrp ...
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) in pgids and fields[0] not in (b"Z", b"X"):
            alive.append(int(fields[2]))
    return alive
