"""A watchdog per launcher: when the arena dies, nothing it started survives.

The watchdog is a small process that holds the read end of a pipe whose
write end only the arena holds. When the arena ends or dies the pipe reads
end-of-file, and the watchdog SIGKILLs every process carrying the launcher's
token in its environment (the sandbox's outer processes; the bot's
supervisor sees its socket close and ends the bot by itself), then removes
the launcher's cgroups and its state folder. It is started from the trio
thread, not a worker thread, so no thread-bound death signal can fire early.
"""

from __future__ import annotations

import os
import subprocess
import sys

MARKER_ENV = "ARENA_SANDBOX_ID"

_WATCHDOG = r"""
import os, sys, time, shutil
token, state, top = sys.argv[1], sys.argv[2], sys.argv[3:]
while os.read(0, 4096):
    pass
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


class Watchdog:
    def __init__(self, token: str, state: str, cgroup_tops: list[str]) -> None:
        read_end, write_end = os.pipe()  # both close-on-exec: no bot inherits them
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _WATCHDOG, token, state, *cgroup_tops],
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
