"""The league's disk as a state: room to write, or not (and then why, in a sentence).

Everything the league keeps (the SQLite file, uploads, built bots,
transcripts and logs) lives on one filesystem or two. A write that finds no
room must not end the server: the pages go on being served from what is
stored, and the work that writes (submissions, builds, quarantines,
tournaments) waits until there is room again. ``DiskWatch`` owns that state;
the server's watcher task calls ``check`` every second, and any code that
meets a failed write reports it with ``failed``.

Room runs out in two ways: the free space falls below ``min_free`` (seen by
``check``), or a write fails for lack of space (``failed``). After a failed
write the state holds until the free space is at least twice ``min_free``,
so that the league does not start again only to fill the disk at once. A
filesystem mounted read-only, or a write refused as read-only, is the same
kind of state: it holds until the league's folders can be written again.

One upload too big for the room left is not a state of the league: it is
refused alone (``_uploads.NoRoomForUpload``), in the answer to that one
request (``_web.submit_bot``).
"""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from ..results._store import SQLITE_FULL, SQLITE_READONLY

#: errnos of a write that found no room, and of one refused by a read-only filesystem
_NO_ROOM = (errno.ENOSPC, errno.EDQUOT)
_READ_ONLY = (errno.EROFS,)


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and what it stands for: the members of an exception group, a cause."""
    if isinstance(exc, BaseExceptionGroup):
        return [e for sub in exc.exceptions for e in _causes(sub)]
    out = [exc]
    if exc.__cause__ is not None:
        out += _causes(exc.__cause__)
    return out


def _sqlite_code(exc: BaseException) -> int:
    return (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF


def _no_room_one(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in _NO_ROOM:
        return True
    return isinstance(exc, sqlite3.Error) and (_sqlite_code(exc) == SQLITE_FULL or "disk is full" in str(exc))


def _read_only_one(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in _READ_ONLY:
        return True
    return isinstance(exc, sqlite3.Error) and (_sqlite_code(exc) == SQLITE_READONLY or "readonly" in str(exc))


def no_room(exc: BaseException) -> bool:
    """Whether ``exc`` is a write that failed for lack of space (a file or the database),
    itself or inside the exception group a task's nursery raised."""
    return any(_no_room_one(e) for e in _causes(exc))


def blocked_write(exc: BaseException) -> str | None:
    """What kept ``exc``'s write from the disk, in a few words (``no room``,
    ``a read-only disk``), or None when ``exc`` is some other error."""
    causes = _causes(exc)
    if any(_no_room_one(e) for e in causes):
        return "no room"
    if any(_read_only_one(e) for e in causes):
        return "a read-only disk"
    return None


def in_words(exc: BaseException, limit: int = 300) -> str:
    """An error as one line for the organiser's log: its first cause, type and message (never a traceback)."""
    first = _causes(exc)[0]
    if isinstance(first, OSError) and first.strerror:
        text = first.strerror + (f": {first.filename}" if first.filename else "")
    else:
        text = str(first)
    line = f"{type(first).__name__}: {text}" if text else type(first).__name__
    line = " ".join(line.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class DiskWatch:
    """Whether the league has room to write; ``problem`` is None when it has."""

    def __init__(self, folders: list[Path], min_free: int, log: Callable[[str], None] = print) -> None:
        self.folders = folders
        self.min_free = min_free
        self.log = log
        self.problem: str | None = None
        self.since: float | None = None
        self._failed = False  # a write failed: hold until twice min_free is free
        self._read_only = False  # a write was refused as read-only: hold until the folders take a write

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

    def spare(self) -> int:
        """Bytes free above ``min_free`` (0 when below it): what one upload may take."""
        return max(0, self.free()[0] - self.min_free)

    def _unwritable(self) -> Path | None:
        """A folder of the league that cannot be written now (mounted read-only, or after
        a write refused as read-only, one that does not take a small file), else None."""
        for folder in self.folders:
            try:
                if os.statvfs(folder).f_flag & os.ST_RDONLY:
                    return folder
            except OSError:
                continue
            if self._read_only and not _takes_a_write(folder):
                return folder
        return None

    def check(self) -> str | None:
        """Look at the disk now; returns (and keeps) the problem, if any."""
        unwritable = self._unwritable()
        if unwritable is not None:
            self._set(f"the league's disk cannot be written: {unwritable} is read-only")
            return self.problem
        room, folder = self.free()
        need = self.min_free * 2 if self._failed else self.min_free
        if room >= need and room > 0:
            if self.problem is not None:
                self.log(f"Disk: {_size(room)} free on {folder} again, and it takes writes; "
                         "submissions and tournaments resume")
            self.problem, self.since, self._failed, self._read_only = None, None, False, False
            return None
        if self.problem is None or not self._failed:
            self._set(f"the league's disk is full: {_size(room)} free on {folder}, and it needs "
                      f"{_size(need)} to go on")
        return self.problem

    def failed(self, exc: BaseException, what: str) -> str:
        """A write failed for lack of space (or on a read-only disk) while doing ``what``;
        returns the sentence now in force."""
        if blocked_write(exc) == "a read-only disk":
            self._read_only = True
            self._set(f"the league's disk cannot be written: {what} was refused ({in_words(exc, 120)}); "
                      "it resumes once the league's folders can be written")
            return self.problem  # type: ignore[return-value]
        room, folder = self.free()
        self._failed = True
        self._set(f"the league's disk is full: {what} found no room on {folder} ({_size(room)} free); "
                  f"it resumes once {_size(self.min_free * 2)} are free")
        return self.problem  # type: ignore[return-value]

    def _set(self, sentence: str) -> None:
        if self.problem is None:
            self.log(f"Disk: {sentence}; submissions, builds, quarantines and tournaments wait")
            self.since = time.time()
        self.problem = sentence

    def refusal(self, what: str) -> str | None:
        """A sentence refusing ``what`` while there is no room, else None (the free space is looked at now)."""
        problem = self.problem or self.check()
        if problem is None:
            return None
        return f"{what} is refused for now: {problem}. Pages still work; try again once the organiser has made room."


def _takes_a_write(folder: Path) -> bool:
    probe = folder / ".arena-write-probe"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.close(fd)
        os.unlink(probe)
    except OSError:
        return False
    return True


def _size(n: float) -> str:
    if n >= 2**30:
        return f"{n / 2**30:.1f} GB"
    if n >= 2**20:
        return f"{n / 2**20:.1f} MB"
    return f"{n / 2**10:.0f} KB"
