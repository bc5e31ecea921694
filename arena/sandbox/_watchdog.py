"""A watchdog per launcher: when the arena dies, nothing it started survives.

The watchdog is a small process that holds the read end of a pipe whose
write end only the arena holds. When the arena ends or dies the pipe reads
end-of-file, and the watchdog SIGKILLs every process carrying the launcher's
token in its environment (the sandbox's outer processes; the bot's
supervisor sees its socket close and ends the bot by itself), then removes
the launcher's cgroups and its state folder. It is started from the trio
thread, not a worker thread, so no thread-bound death signal can fire early.

While the arena lives, the watchdog also enforces the CPU limit of a whole
bot: every ``POLL`` seconds it reads the CPU time of each bot's cgroup (all
its processes, living and dead) and kills the bot's processes once that
reaches the limit; the cgroup's verdict then says why. It runs here rather
than in a thread of the arena because the arena's event loop may be inside
a compiled dialogue's loop, which holds the GIL for up to 512 messages, and
because a process of its own is scheduled apart from a busy arena. The
supervisor is spared (it is PID 1 of the bot's PID namespace): it sees its
bot killed by SIGKILL, ends what is left, and reports it as usual.
"""

from __future__ import annotations

import os
import subprocess
import sys

MARKER_ENV = "ARENA_SANDBOX_ID"

#: How often the CPU time of every bot is read: a bot capped at one CPU uses
#: at most this much beyond its limit, plus the time a kill takes.
POLL = 0.1

_WATCHDOG = r"""
import os, select, sys, time, shutil
token, state, poll, limit_usec, acct = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
top = sys.argv[6:]


def usage_usec(bot):
    # v2 cpu.stat (usage_usec) or v1 cpuacct.usage (ns), of all the bot's processes
    try:
        with open(os.path.join(acct, bot, "cpu.stat")) as f:
            for line in f:
                if line.startswith("usage_usec "):
                    return int(line.split()[1])
    except OSError:
        pass
    try:
        with open(os.path.join(acct, bot, "cpuacct.usage")) as f:
            return int(f.read()) // 1000
    except (OSError, ValueError):
        return 0


def nspid(pid):
    try:
        with open("/proc/%s/status" % pid) as f:
            for line in f:
                if line.startswith("NSpid:"):
                    return line.split()[1:]
    except OSError:
        pass
    return None


def kill_bot(bot):
    # Every process of the bot's PID namespace and below, but its PID 1 (the
    # supervisor, which reports how its bot ended); not the launch chain above.
    pids = set()
    for d in top:
        try:
            with open(os.path.join(d, bot, "cgroup.procs")) as f:
                pids.update(f.read().split())
        except OSError:
            pass
    levels = {pid: nspid(pid) for pid in pids}
    inits = [len(ns) for ns in levels.values() if ns and len(ns) > 1 and ns[-1] == "1"]
    if not inits:
        return  # no supervisor yet (or any more): nothing of the bot runs
    depth = min(inits)
    for pid, ns in levels.items():
        if ns and (len(ns) > depth or (len(ns) == depth and ns[-1] != "1")):
            try:
                os.kill(int(pid), 9)
            except OSError:
                pass


def check():
    try:
        bots = os.listdir(acct)
    except OSError:
        return  # no bot started yet
    for bot in bots:
        if os.path.isdir(os.path.join(acct, bot)) and usage_usec(bot) >= limit_usec:
            kill_bot(bot)


# Until the arena closes the pipe: every `poll` s, each bot's CPU time.
watch = limit_usec > 0 and acct != "-"
while True:
    ready, _, _ = select.select([0], [], [], poll if watch else None)
    if ready and not os.read(0, 4096):
        break
    if watch:
        check()
# The arena closed the pipe (it ended or died): kill what carries our token.
needle = ("%s=%s" % ("ARENA_SANDBOX_ID", token)).encode()
# Until nothing marked is left for a few passes in a row (a chain that was
# being spawned when the arena died shows up a little later), for 10 s at most.
quiet = 0
deadline = time.monotonic() + 10
while quiet < 3 and time.monotonic() < deadline:
    found = 0
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                with open("/proc/%s/environ" % name, "rb") as f:
                    if needle in f.read().split(b"\0"):
                        os.kill(int(name), 9)
                        found += 1
            except OSError:
                pass
    quiet = 0 if found else quiet + 1
    time.sleep(0.05)
for d in top:
    for path, dirs, files in os.walk(d, topdown=False):
        if "cgroup.kill" in files:
            try:
                open(os.path.join(path, "cgroup.kill"), "w").write("1")
            except OSError:
                pass
        try:
            for pid in open(os.path.join(path, "cgroup.procs")).read().split():
                os.kill(int(pid), 9)
        except OSError:
            pass
    for _ in range(100):
        for path, dirs, files in os.walk(d, topdown=False):
            try:
                os.rmdir(path)
            except OSError:
                pass
        if not os.path.exists(d):
            break
        time.sleep(0.01)
shutil.rmtree(state, ignore_errors=True)
"""


def _accounting_top(cgroup_tops: list[str]) -> str:
    """The top whose bot folders count CPU time, as ``BotCgroup.cpu_used`` reads it:
    the unified hierarchy's (cpu.stat), else v1 cpuacct's; "-" for none."""
    for marker in ("cgroup.controllers", "cpuacct.usage"):
        for top in cgroup_tops:
            if os.path.exists(os.path.join(os.path.dirname(top), marker)):
                return top
    return "-"


class Watchdog:
    def __init__(self, token: str, state: str, cgroup_tops: list[str], cpu_seconds: float | None = None) -> None:
        """``cpu_seconds``: the CPU limit of each bot (all its processes), None for no limit."""
        read_end, write_end = os.pipe()  # both close-on-exec: no bot inherits them
        limit_usec = int(cpu_seconds * 1e6) if cpu_seconds else 0
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _WATCHDOG, token, state, str(POLL), str(limit_usec),
                 _accounting_top(cgroup_tops), *cgroup_tops],
                stdin=read_end, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True,  # Ctrl-C on the terminal is not for it
            )
        finally:
            os.close(read_end)
        self._fd: int | None = write_end

    def close(self) -> None:
        """Let it clean up now (the arena is done) and wait for it."""
        if self._fd is None:
            return
        os.close(self._fd)
        self._fd = None
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
