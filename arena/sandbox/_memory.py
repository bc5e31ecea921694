"""The page cache of the files every bot sees: held whole, so that it carries
nothing from one bot process to another.

Every bot reads the same system files (``/usr``, its interpreter's tree).
The first read of a page that is not in the page cache waits for the disk
(about 40 us here), a cached page is read in under one: a bot that reads
page ``N`` of a large system file in one seating of a duplicate deal, and
times that page in the next, passes a card to itself (29 of 34 opponents'
cards right in a test tournament, tests/sandbox/test_duplicate_memory.py).
The seccomp filter refuses the calls that would empty the cache or probe it
without a read, but a read is all the attack needs: each cold page is one
mark, and ``/usr`` has a million of them.

So where that must not happen (``SandboxPolicy.private_files``: duplicate
tournaments, the league) the arena reads every page of those files into the
cache before a bot starts, and checks again before later ones: with every
page cached, no read says anything. A bot's own files are copies made for
its process (written, so cached). A bot cannot evict a page it did not bring
in (the advice that would is made a no-op, and its memory cgroup reclaims
only what was charged to it); the kernel evicts under memory pressure only,
which is why the files must fit in memory with room to spare (``hold``
says when they do not), and why a kernel that pages out idle page cache by
itself (DAMON's proactive reclaim, as on the VMs the arena is tested on,
pages idle for 60 s) weakens it: the files are checked again at a bot's
start at most every ``HOLD_AGAIN`` seconds, and what was evicted meanwhile
could be marked (``proactive_reclaim`` says so, for ``arena doctor``).

The check uses ``cachestat`` (Linux 6.5): one call per file says how many of
its pages are cached. Without it, every file is read again.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..native import pagecache_path
from ._uids import lock_dir

#: How long a check of the held files stands before the next bot start checks again.
HOLD_AGAIN = 120.0
#: The files held may take at most this share of the machine's memory.
MEMORY_SHARE = 0.6


@dataclass(slots=True)
class Held:
    """What one check of the files did."""

    files: int = 0
    bytes: int = 0
    read: int = 0  # bytes that were not cached and were read now
    seconds: float = 0.0
    #: why the files cannot be held (too large for this machine's memory), or ""
    problem: str = ""
    skipped: int = 0  # files that could not be read


def _memory_bytes() -> int:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def hold(roots: Iterable[str]) -> Held:
    """Bring every page of every file under ``roots`` into the page cache
    (``arena-pagecache``, arena/native/pagecache.c: the walk and the reads)."""
    started = time.monotonic()
    roots = sorted(set(roots))
    memory = _memory_bytes()
    import subprocess  # here: importing the sandbox starts no process

    proc = subprocess.run([pagecache_path(), str(int(memory * MEMORY_SHARE)), *roots], capture_output=True,
                          text=True, check=False)
    words = proc.stdout.split()
    if proc.returncode != 0 or not words or words[0] not in ("held", "too-large"):
        raise OSError(f"arena-pagecache failed (exit {proc.returncode}): {proc.stderr.strip() or proc.stdout!r}")
    files, total = int(words[1]), int(words[2])
    if words[0] == "too-large":
        return Held(files, total, problem=(
            f"the files every bot sees ({', '.join(roots)}: {total / 2**30:.1f} GiB) cannot be held in this "
            f"machine's memory ({memory / 2**30:.1f} GiB; at most {MEMORY_SHARE:.0%} of it is used so): "
            "a bot can mark their page cache and read the marks in a later process (docs/sandbox.md)"))
    return Held(files, total, read=int(words[3]), skipped=int(words[4]), seconds=time.monotonic() - started)


_checked: dict[str, float] = {}
#: The process whose checks this one shares (``share_checks_with``); None: its own.
_family: int | None = None


def share_checks_with(pid: int) -> None:
    """Count the checks of process ``pid`` (a tournament worker's coordinator,
    or a league server) and of its other workers as this process's own: one
    arena run then reads the files once per ``HOLD_AGAIN`` between all of its
    processes, while a new run checks afresh at its first bot."""
    global _family
    _family = pid


def _now() -> float:
    # The stamp is read by other processes: one clock for the machine.
    return time.clock_gettime(time.CLOCK_BOOTTIME)


def _started(pid: int) -> str:
    """When ``pid`` started (clock ticks since boot): a pid reused later differs."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return "?"


def _stamp(root: str) -> Path:
    """Where the last check of ``root`` by this process's run says when it ended:
    in the sandbox's own folder (0700, the arena user's), out of every bot's view."""
    head = _family if _family is not None else os.getpid()
    digest = hashlib.sha256("\0".join((str(head), _started(head), root)).encode()).hexdigest()[:16]
    return lock_dir() / f"page-cache-{digest}.held"


def _read_stamp(path: Path) -> tuple[float, str] | None:
    try:
        data = json.loads(path.read_text())
        return float(data["at"]), str(data["problem"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def hold_for(roots: Iterable[str], warn: Callable[[str], None]) -> None:
    """Hold the folders of ``roots`` that this arena run (``share_checks_with``)
    has not held in the last ``HOLD_AGAIN`` seconds; ``warn`` is told of a
    problem. Each folder counts on its own: a bot in another language adds
    its runtime's tree, not another walk of ``/usr``. One process of the
    machine at a time reads (a tournament's workers start together): the
    others then find the check done."""
    stale = [r for r in sorted(set(roots)) if _now() - _checked.get(r, -HOLD_AGAIN) >= HOLD_AGAIN]
    if not stale:
        return
    problems: set[str] = set()
    fd = os.open(lock_dir() / "page-cache.lock", os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        due = []
        for root in stale:
            last = _read_stamp(_stamp(root))
            if last is not None and 0 <= _now() - last[0] < HOLD_AGAIN:
                _checked[root] = last[0]
                problems.add(last[1])
            else:
                due.append(root)
        if due:
            held = hold(due)
            at = _now()
            forget_stamps()
            for root in due:
                stamp = _stamp(root)
                tmp = stamp.with_name(f"{stamp.name}.{os.getpid()}")
                tmp.write_text(json.dumps({"at": at, "problem": held.problem}))
                tmp.replace(stamp)
                _checked[root] = at
            problems.add(held.problem)
    finally:
        os.close(fd)
    for problem in sorted(problems - {""}):
        warn(problem)


def forget_stamps(older_than: float = HOLD_AGAIN) -> None:
    """Remove the stamps no run can use any more (kept small: a file per run and folder)."""
    now = time.time()
    for path in lock_dir().glob("page-cache-*.held"):
        try:
            if now - path.stat().st_mtime > older_than:
                path.unlink()
        except OSError:
            pass


def proactive_reclaim() -> str:
    """Whether this kernel pages out idle memory by itself (a DAMON scheme), in words; "" when not."""
    base = "/sys/kernel/mm/damon/admin/kdamonds"

    def said(*path: str) -> str:
        with open(os.path.join(base, *path)) as f:
            return f.read().strip()

    found = []
    try:
        for kd in sorted(os.listdir(base)):
            if not kd.isdigit() or said(kd, "state") != "on":
                continue
            schemes = os.path.join(base, kd, "contexts", "0", "schemes")
            found += [kd for sc in sorted(os.listdir(schemes))
                      if sc.isdigit() and said(kd, "contexts", "0", "schemes", sc, "action") == "pageout"]
    except OSError:
        pass
    if not found:
        return ""
    return ("this kernel pages out idle page cache by itself (DAMON pageout): the system files held in memory "
            "for duplicate tournaments and the league are evicted once idle, and a bot may mark what was evicted "
            "between two checks (docs/sandbox.md)")
