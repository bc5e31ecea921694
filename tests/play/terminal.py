"""A real pseudo-terminal with the arena running in it, as a person's terminal would be."""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import subprocess
import termios
import time


class Terminal:
    """``argv`` started on a new pty that is its controlling terminal (so
    Ctrl-C typed there reaches it as SIGINT, as it would a person's shell job)."""

    def __init__(self, argv: list[str], cwd: str, env: dict[str, str]) -> None:
        self.master, slave = os.openpty()
        self.tty = os.ttyname(slave)
        attrs = termios.tcgetattr(slave)
        attrs[3] &= ~termios.ECHO  # what the person types is not part of what the arena wrote
        termios.tcsetattr(slave, termios.TCSANOW, attrs)

        def own_terminal() -> None:
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # as a shell's foreground job has it

        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env,
                                        start_new_session=True, preexec_fn=own_terminal)
        os.close(slave)
        self.screen = ""
        self._seen = 0

    def _read(self, until: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], max(0.0, until - time.monotonic()))
        if not ready:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: every holder of the pty's other end closed it
            return False
        if not data:
            return False
        self.screen += data.decode("utf-8", "replace").replace("\r\n", "\n")
        return True

    def expect(self, pattern: str, timeout: float = 20.0) -> re.Match[str]:
        """The next match of ``pattern`` in what appeared after the last one (fails at ``timeout``)."""
        until = time.monotonic() + timeout
        rx = re.compile(pattern)
        while True:
            found = rx.search(self.screen, self._seen)
            if found:
                self._seen = found.end()
                return found
            if not self._read(until):
                raise AssertionError(f"{pattern!r} never appeared; the screen ends:\n{self.screen[-1500:]}")

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def finish(self, timeout: float = 20.0) -> int:
        """Read to the end and wait for the exit code."""
        until = time.monotonic() + timeout
        while self._read(until):
            pass
        code = self.process.wait(timeout=max(1.0, until - time.monotonic()))
        os.close(self.master)
        return code
