"""Numeric uids for bots when the arena runs as root (no passwd entry needed).

Each running bot process holds a uid of its own, reserved with a ``flock``
that lasts as long as the process, so that ``RLIMIT_NPROC`` counts only that
bot and no two bots (of this arena or another on the machine) share a uid.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path

UID_BASE = 2_147_000_000
UID_COUNT = 4096


def lock_dir() -> Path:
    """The machine's folder for the sandbox's locks (the uids', the page cache's)."""
    for base in ("/run", tempfile.gettempdir()):
        d = Path(base) / "arena-sandbox-uids"
        try:
            d.mkdir(mode=0o700, exist_ok=True)
            return d
        except OSError:
            continue
    raise OSError("no folder for the uid locks")


class UidClaim:
    """A uid no other running bot holds, until ``release``."""

    def __init__(self, hint: int) -> None:
        d = lock_dir()
        for k in range(UID_COUNT):
            n = (hint + k) % UID_COUNT
            fd = os.open(d / str(UID_BASE + n), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            self.uid = UID_BASE + n
            self._fd: int | None = fd
            return
        raise OSError("every sandbox uid is taken")

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
