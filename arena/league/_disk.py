"""The league's disk as a state: enough room, or not (and then why, in a sentence).

Everything the league keeps (the SQLite file, uploads, built bots,
transcripts and logs) lives on one filesystem or two. A write that finds no
room must not end the server: the pages go on being served from what is
stored, and the work that writes (submissions, builds, quarantines,
tournaments) waits until there is room again. ``DiskWatch`` owns that state;
the server's watcher task calls ``check`` every few seconds, and any code
that meets a failed write reports it with ``failed``.

Room runs out in two ways: the free space falls below ``min_free`` (seen by
``check``), or a write fails for lack of space (``failed``). After a failed
write the state holds until the free space is at least twice ``min_free``,
so that the league does not start again only to fill the disk at once.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from ..results._store import SQLITE_FULL


def no_room(exc: BaseException) -> bool:
    """Whether ``exc`` is a write that failed for lack of space (a file or the database)."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        return (code is not None and code & 0xFF == SQLITE_FULL) or "disk is full" in str(exc)
    return False


class DiskWatch:
    """Whether the league has room to write; ``problem`` is None when it has."""

    def __init__(self, folders: list[Path], min_free: int, log: Callable[[str], None] = print) -> None:
        self.folders = folders
        self.min_free = min_free
        self.log = log
        self.problem: str | None = None
        self.since: float | None = None
        self._failed = False  # a write failed: hold until twice min_free is free

    def free(self) -> tuple[int, Path]:
        """The least free space (bytes) over the league's folders, and that folder."""
        least: tuple[int, Path] | None = None
        for folder in self.folders:
            try:
                st = os.statvfs(folder)
            except OSError:
                continue
            room = st.f_bavail * st.f_frsize
            if least is None or room < least[0]:
                least = (room, folder)
        return least if least is not None else (0, self.folders[0])

    def check(self) -> str | None:
        """Look at the free space now; returns (and keeps) the problem, if any."""
        room, folder = self.free()
        need = self.min_free * 2 if self._failed else self.min_free
        if room >= need and room > 0:
            if self.problem is not None:
                self.log(f"Disk: {_size(room)} free on {folder} again; submissions and tournaments resume")
            self.problem, self.since, self._failed = None, None, False
            return None
        if self.problem is None or not self._failed:
            self._set(f"the league's disk is full: {_size(room)} free on {folder}, and it needs "
                      f"{_size(need)} to go on")
        return self.problem

    def failed(self, exc: BaseException, what: str) -> str:
        """A write failed for lack of space while doing ``what``; returns the sentence now in force."""
        room, folder = self.free()
        self._failed = True
        self._set(f"the league's disk is full: {what} found no room on {folder} ({_size(room)} free); "
                  f"it resumes once {_size(self.min_free * 2)} are free")
        return self.problem  # type: ignore[return-value]

    def _set(self, sentence: str) -> None:
        if self.problem is None:
            self.log(f"Disk: {sentence}; submissions, builds, quarantines and tournaments wait for room")
            self.since = time.time()
        self.problem = sentence

    def refusal(self, what: str) -> str | None:
        """A sentence refusing ``what`` while there is no room, else None (the free space is looked at now)."""
        problem = self.problem or self.check()
        if problem is None:
            return None
        return f"{what} is refused for now: {problem}. Pages still work; try again once the organiser has made room."


def _size(n: float) -> str:
    if n >= 2**30:
        return f"{n / 2**30:.1f} GB"
    if n >= 2**20:
        return f"{n / 2**20:.1f} MB"
    return f"{n / 2**10:.0f} KB"
