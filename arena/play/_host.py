"""The one owner of bot processes: every path that runs a bot starts, times
and stops it here, through one sandbox launcher.

A single match, a series, a tournament worker, a tournament that keeps one
process per bot, the quarantine (and later the server) all hold a
``BotHost`` and call ``start``/``stop`` (or ``open_bots``); nothing else in
the arena spawns a bot. The host's launcher fixes the sandbox level and the
limits for all of them, and ``summary()`` is what results record.

Teardown, however a match ends (normal end, fault, Ctrl-C, an arena bug):
close every bot's stdin (a polite bot exits on end-of-file), give them
``grace`` seconds together, count in each bot's cgroup what it started that
is still there (a bot that ended by itself has its leftovers stopped by its
supervisor until then), then ask each supervisor to stop what is left (it
kills the bot and everything the bot started, wherever it went, and says
how many there were: the count the arena takes when there is no cgroup),
then SIGKILL the launch chain's process group, run the launcher's cleanup
(cgroups, uid) and reap.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import trio

from ._bot import DEFAULT_STDERR_CAP, DEFAULT_SYNC_WAIT, BotProcess, Trace
from ._exchange import SeatClock

from .._spec import BotSpec
from .._faults import BotFault, FaultKind
from ._lines import DEFAULT_MAX_LINE
from ..native import NativeBuildError, acpc_codec
from ..sandbox import Launcher, SandboxPolicy, StagingError, open_launcher
from ..sandbox._supervision import Channel

#: the level-none launcher of a person's seat (``BotSpec.person``)
_PERSON_LAUNCHER = Launcher()

#: After the grace period: how long a supervisor gets to stop its bot.
STOP_WAIT = 2.0


class BotHost:
    """Starts and stops bot processes through one launcher (one sandbox level).

    ``sync_wait``: how long a reply is waited for in a plain poll() before the
    wait is handed to trio. Most replies come within microseconds, and the
    poll costs a third of trio's wait; but nothing else on the event loop runs
    meanwhile, so a process whose loop serves other work too (the league's
    web pages) sets 0.
    """

    def __init__(self, launcher: Launcher | None = None, *, sync_wait: float = DEFAULT_SYNC_WAIT) -> None:
        # No launcher: the machine's default level, as open_host() gives; no sandbox
        # only when asked by name (open_host("none"), ARENA_SANDBOX=none).
        self.launcher = launcher if launcher is not None else open_launcher(None)
        self.sync_wait = max(0.0, sync_wait)

    @property
    def level(self) -> str:
        return self.launcher.level

    def describe(self) -> str:
        return self.launcher.describe()

    def summary(self) -> dict[str, Any]:
        """The level and limits actually applied, for results and ``--json``."""
        return self.launcher.summary()

    def close(self) -> None:
        self.launcher.close()

    def __enter__(self) -> "BotHost":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    async def start(
        self, spec: BotSpec, seat: int, nursery: trio.Nursery, *, stderr_path: Path | None = None,
        max_line: int = DEFAULT_MAX_LINE, stderr_cap: int = DEFAULT_STDERR_CAP, trace: Trace | None = None,
    ) -> BotProcess:
        """Start one bot; its stderr drains into ``stderr_path`` from ``nursery``.

        Raises ``BotFault(FAILED_TO_START)`` (with ``seat``) when not even the
        launch chain could be started; a bot that cannot be executed inside it
        is reported by the supervisor, at its first exchange.
        """
        # A person's seat runs the arena's own program, which needs the person's
        # terminal: under the supervisor like any bot, but outside the sandbox.
        launcher = _PERSON_LAUNCHER if spec.person else self.launcher
        if launcher.policy.private_files:  # (may read gigabytes: never on the event loop)
            await trio.to_thread.run_sync(launcher.prepare, spec)
        channel = Channel.open(handoff=spec.loopback)
        try:
            plan = launcher.plan(spec, channel.theirs.fileno())
            codec = acpc_codec() if spec.loopback else None  # an ACPC agent's seat, should its relay hand it over
        except (StagingError, NativeBuildError, OSError) as exc:
            channel.close_all()
            raise BotFault(FaultKind.FAILED_TO_START, f"could not prepare its sandbox: {exc}", seat=seat) from None
        try:
            process = await trio.lowlevel.open_process(
                plan.argv, stdin=subprocess.DEVNULL if plan.stdin is None else plan.stdin,
                stdout=subprocess.DEVNULL, stderr=channel.stderr_w,
                start_new_session=True,  # killed as a group, away from the terminal's signals
                env=plan.env, cwd=plan.cwd, pass_fds=plan.pass_fds,
            )
        except OSError as exc:
            channel.close_all()
            if plan.cleanup is not None:
                plan.cleanup()
            raise BotFault(FaultKind.FAILED_TO_START, f"could not start {plan.argv[0]}: {exc.strerror}",
                           seat=seat) from None
        channel.hand_over()
        bot = BotProcess(spec, seat, process, channel, plan, max_line=max_line, stderr_path=stderr_path,
                         trace=trace, sync_wait=self.sync_wait, clock=SeatClock(), codec=codec)
        nursery.start_soon(bot.drain_stderr, stderr_cap)
        return bot

    async def stop(self, bots: list[BotProcess], grace: float = 0.5) -> None:
        """End ``bots`` (see the module docstring); shielded, so it also completes on Ctrl-C."""
        live = [b for b in bots if not b.reaped]
        if not live:
            return
        with trio.CancelScope(shield=True):
            await _let_end(live, grace)
            counted = {id(bot): bot.plan.count_leftovers() if bot.plan.count_leftovers is not None else None
                       for bot in live}
            for bot in live:
                bot.ask_stop()  # a bot still running is ended; one that ended, what it left
            with trio.move_on_after(STOP_WAIT):
                for bot in live:
                    await bot.wait_ended()
            with trio.move_on_after(STOP_WAIT):  # each supervisor kills what is left, and exits
                for bot in live:
                    await bot.process.wait()
            for bot in live:
                bot.ending = bot.status.ending() or "killed"
                said = bot.status.leftovers if bot.status.leftovers is not None and bot.status.leftovers >= 0 else None
                bot.leftovers = counted[id(bot)] if counted[id(bot)] is not None else said
                _kill_group(bot.process.pid)
            for bot in live:
                await _reap(bot)


async def _let_end(live: list[BotProcess], grace: float) -> None:
    """Close each bot's input and give it until its own deadline to exit: ``grace``, or
    longer where its seat kind is owed more (HIGC's ``tournament over``)."""
    for bot in live:
        bot.close_stdin()
    closed = trio.current_time()
    for owed, bot in sorted(((_end_grace(b, grace), b) for b in live), key=lambda x: x[0]):
        with trio.move_on_at(closed + owed):
            await bot.wait_ended()


async def _reap(bot: BotProcess) -> None:
    with trio.move_on_after(5):
        await bot.process.wait()
    if bot.process.returncode is None:  # not even SIGKILL took: keep trying
        _kill_group(bot.process.pid)
        bot.process.kill()
        await bot.process.wait()
    bot.close_channels()
    if bot.plan.cleanup is not None:
        try:
            bot.sandbox_verdict = bot.plan.cleanup()
        except OSError:
            pass
    bot.reaped = True


@trio.lowlevel.enable_ki_protection
async def _start_all(host: BotHost, specs: list[BotSpec], nursery: trio.Nursery, bots: list[BotProcess], *,
                     log_dir: Path | None, max_line: int, stderr_cap: int, trace: Trace | None) -> None:
    """Start every bot, each one in ``bots`` as soon as its process exists.

    Protected from Ctrl-C: a KeyboardInterrupt raised between a process's
    creation and its entry in ``bots`` would leave a bot no teardown knows
    of; it is delivered at the next wait instead, with every bot on the list.
    """
    for seat, spec in enumerate(specs):
        path = log_dir / f"seat{seat}.stderr.log" if log_dir is not None else None
        bots.append(await host.start(spec, seat, nursery, stderr_path=path, max_line=max_line,
                                     stderr_cap=stderr_cap, trace=trace))


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone


def open_host(
    level: str | None = None, policy: SandboxPolicy | None = None, *, sync_wait: float = DEFAULT_SYNC_WAIT,
    **kwargs: Any,
) -> BotHost:
    """A host at ``level`` (see ``arena.sandbox.open_launcher``; None: the
    machine's default level, or ``ARENA_SANDBOX``). Close it when done, or use
    it as a context manager: ``with open_host() as host: ...``."""
    return BotHost(open_launcher(level, policy, **kwargs), sync_wait=sync_wait)


def _end_grace(bot: BotProcess, grace: float) -> float:
    own = bot.spec.seat_kind.end_grace
    return max(grace, own(bot.spec)) if own is not None and bot.in_step else grace


@asynccontextmanager
async def open_bots(
    specs: list[BotSpec],
    *,
    host: BotHost | None = None,
    log_dir: Path | None = None,
    max_line: int = DEFAULT_MAX_LINE,
    stderr_cap: int = DEFAULT_STDERR_CAP,
    grace: float = 0.5,
    trace: Trace | None = None,
) -> AsyncIterator[list[BotProcess]]:
    """Start every bot (seat = position); on exit, however it happens, end them all.

    Without ``host`` the bots run under a host made here at the machine's
    default sandbox level (``open_host()``), never without a sandbox unless
    ``ARENA_SANDBOX=none`` says so. A bot whose launch fails raises
    ``BotFault`` with ``.seat`` set.
    """
    own = host is None
    host = host or open_host()
    bots: list[BotProcess] = []
    try:
        async with trio.open_nursery() as nursery:  # the stderr drains
            try:
                await _start_all(host, specs, nursery, bots, log_dir=log_dir, max_line=max_line,
                                 stderr_cap=stderr_cap, trace=trace)
                yield bots
            finally:
                await host.stop(bots, grace)
                # The drains end at EOF once the chain is gone; a process that
                # escaped everything could hold stderr open for ever.
                nursery.cancel_scope.deadline = trio.current_time() + 0.2
    except BaseExceptionGroup as group:
        # Callers see what the match raised, not trio's wrapper around it.
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise
    finally:
        if own:
            host.close()
