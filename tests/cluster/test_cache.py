"""A worker's cache of bots: the artifact's bytes kept beside the unpacked entry
(fetched from the coordinator only when missing or wrong), entries held by the
matches that use them, and the least recently used evicted over a limit."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

import pytest

from arena._checks import UsageError
from arena._spec import BotSpec
from arena.cluster import pack_bot, unpack
from arena.cluster._artifacts import (
    CACHE_LIMIT_ENV, ArtifactError, cache_limit, cached_artifact, evict, hold_entries)

from ..conftest import ROOT, clean_env, run_in_process


def _artifact(files: dict[str, bytes]) -> tuple[str, bytes]:
    """An artifact made by hand: (its SHA-256, its bytes)."""
    import hashlib

    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, content in sorted(files.items()):
            info = tarfile.TarInfo(f"tree/{name}")
            info.size, info.mode = len(content), 0o644
            tar.addfile(info, io.BytesIO(content))
    data = gzip.compress(raw.getvalue(), mtime=0)
    return hashlib.sha256(data).hexdigest(), data


class Store:
    """The coordinator's store, as the worker's fetch sees it: counts each fetch."""

    def __init__(self, *artifacts: tuple[str, bytes]) -> None:
        self.data = dict(artifacts)
        self.fetched: list[str] = []

    def fetch(self, sha: str):
        def fetch() -> bytes:
            self.fetched.append(sha)
            return self.data[sha]
        return fetch


def _names(cache: Path, sha: str) -> list[str]:
    """What the cache has of this entry."""
    return sorted(n for n in os.listdir(cache) if n.startswith(sha))


def _on_disk(cache: Path, sha: str) -> int:
    """The entry's space on disk (st_blocks * 512): its folder, kept bytes and markers."""
    total = 0
    for name in _names(cache, sha):
        path = cache / name
        total += path.lstat().st_blocks * 512
        for top, dirs, files in os.walk(path):
            total += sum(os.lstat(os.path.join(top, n)).st_blocks * 512 for n in dirs + files)
    return total


def _last_used(cache: Path, order: list[str]) -> dict[str, float]:
    """The entries' last uses, set to an hour ago and a minute apart, in this order."""
    base = time.time() - 3600
    when = {sha: base + 60 * rank for rank, sha in enumerate(order)}
    for sha, at in when.items():
        os.utime(cache / f"{sha}.used", (at, at))
    return when


#: Another process that holds entries (argv: the cache, the SHA-256s) until its stdin closes.
HOLD = """
import sys
from pathlib import Path
from arena.cluster._artifacts import hold_entries
with hold_entries(Path(sys.argv[1]), sys.argv[2:]):
    print("held", flush=True)
    sys.stdin.read()
"""

#: Another process's use of a kept artifact whose bytes it finds wrong: it stops while it is
#: told (in its warning) until a line comes on its stdin, then fetches the good bytes.
USE = """
import sys
from pathlib import Path
from arena.cluster._artifacts import cached_artifact
cache, sha, good = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]).read_bytes()
def warn(text):
    print("warned:", text, flush=True)
    sys.stdin.readline()
def fetch():
    print("fetching", flush=True)
    return good
print(cached_artifact(cache, sha, fetch, warn), flush=True)
"""


def _python(code: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code, *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)


def test_the_bytes_are_fetched_once_and_kept_and_wrong_ones_fetched_again(tmp_path):
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "main.py").write_text("print('x')\n")
    shipped, data = pack_bot(BotSpec.parse(f"python3 {folder}/main.py"))
    assert shipped.sha256 is not None and data is not None
    sha = shipped.sha256
    store = Store((sha, data))
    cache = tmp_path / "cache"
    said: list[str] = []
    root = cached_artifact(cache, sha, store.fetch(sha), said.append)
    main = root / "tree" / "bot" / "main.py"
    assert cached_artifact(cache, sha, store.fetch(sha), said.append) == root
    assert store.fetched == [sha] and main.read_text() == "print('x')\n"
    kept = cache / f"{sha}.tgz"
    assert kept.read_bytes() == data and stat.S_IMODE(kept.stat().st_mode) == 0o600
    # An entry removed, or changed, is unpacked again from the kept bytes: nothing fetched.
    shutil.rmtree(root)
    assert cached_artifact(cache, sha, store.fetch(sha), said.append) == root
    assert main.read_text() == "print('x')\n" and store.fetched == [sha] and said == []
    main.write_text("print('y')\n")
    assert cached_artifact(cache, sha, store.fetch(sha), said.append) == root
    assert main.read_text() == "print('x')\n" and store.fetched == [sha]
    assert len(said) == 1 and "dropped, unpacked again" in said[0]
    # Kept bytes changed (their size and mtime as they were) are found, said, and fetched again.
    before = kept.stat()
    wrong = bytearray(data)
    wrong[len(wrong) // 2] ^= 1
    kept.write_bytes(wrong)
    os.utime(kept, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert cached_artifact(cache, sha, store.fetch(sha), said.append) == root
    assert store.fetched == [sha, sha] and kept.read_bytes() == data
    assert len(said) == 2 and f"kept artifact {kept} has SHA-256" in said[1] and "fetched again" in said[1]
    # The first use in a process hashes the kept bytes, even under a sound entry.
    elsewhere = tmp_path / "copy"
    shutil.copytree(cache, elsewhere, symlinks=True)
    (elsewhere / f"{sha}.tgz").write_bytes(wrong)
    assert cached_artifact(elsewhere, sha, store.fetch(sha), said.append) == elsewhere / sha
    assert store.fetched == [sha] * 3 and (elsewhere / f"{sha}.tgz").read_bytes() == data
    assert len(said) == 3 and str(elsewhere / f"{sha}.tgz") in said[2]


def test_fetched_bytes_that_are_not_the_artifact_are_refused_and_nothing_is_kept(tmp_path):
    sha, data = _artifact({"bot/main.py": b"print('refused')\n"})
    other_sha, other = _artifact({"bot/main.py": b"print('other')\n"})
    cache = tmp_path / "cache"
    # Of an artifact not seen in this process, and of one whose list is known here
    # already: the bytes are checked before anything is kept or unpacked.
    for wrong in (data[:-1] + bytes([data[-1] ^ 1]), other):
        with pytest.raises(ArtifactError, match="refused"):
            cached_artifact(cache, sha, lambda: wrong)
        assert _names(cache, sha) == [f"{sha}.lock"] and not [n for n in os.listdir(cache) if n.startswith(".")]
        cached_artifact(tmp_path / "good", sha, lambda: data)  # its list now known in this process
    # unpack, given other bytes for an artifact already known, refuses them too.
    with pytest.raises(ArtifactError, match="refused"):
        unpack(cache, sha, other)
    assert not (cache / sha).exists()
    assert unpack(cache, other_sha, other) == cache / other_sha
    # No name of an artifact is a path.
    with pytest.raises(ArtifactError, match="is not an artifact's SHA-256"):
        cached_artifact(cache, "../" + sha[3:], lambda: data)
    # What a failed fetch left (its lock) goes at the next eviction, silently.
    said: list[str] = []
    assert evict(cache, 2**40, said.append) == [] and said == []
    assert _names(cache, sha) == []


def test_the_least_recently_used_go_first_until_the_cache_is_under_its_limit(tmp_path):
    weights = [os.urandom(n) for n in (30_000, 50_000, 70_000, 90_000)]
    artifacts = [_artifact({"bot/weights": w}) for w in weights]
    s0, s1, s2, s3 = (sha for sha, _ in artifacts)
    store = Store(*artifacts)
    cache = tmp_path / "cache"
    for sha in (s0, s1, s2, s3):
        cached_artifact(cache, sha, store.fetch(sha))
        cached_artifact(cache, sha, store.fetch(sha))  # (a use with nothing to check again)
    when = _last_used(cache, [s2, s0, s3, s1])
    cached_artifact(cache, s2, store.fetch(s2))  # used now: the most recent
    sizes = {sha: _on_disk(cache, sha) for sha in (s0, s1, s2, s3)}
    total = sum(sizes.values())
    # Over by more than s0, less than s0 and s3 together: those two go, the oldest first.
    limit = total - sizes[s0] - sizes[s3] + min(sizes.values()) // 2
    stale, fresh = cache / ".unpacking-dead", cache / ".dropped-busy"
    stale.mkdir()
    fresh.mkdir()
    os.utime(stale, (time.time() - 7200, time.time() - 7200))
    said: list[str] = []
    assert evict(cache, limit, said.append) == [s0, s3]
    assert _names(cache, s0) == _names(cache, s3) == []
    for sha in (s1, s2):
        assert _names(cache, sha) == [sha, f"{sha}.lock", f"{sha}.tgz", f"{sha}.used"]
    assert len(said) == 2 and all(text.startswith("cache over ") and " KB: " in text for text in said)
    for text, sha in zip(said, (s0, s3)):
        assert f"evicted artifact {sha[:12]} (" in text
        assert text.endswith(time.strftime(", last used %Y-%m-%d %H:%M)", time.localtime(when[sha])))
    # A temporary folder left an hour ago goes; a fresh one may be another process's.
    assert not stale.exists() and fresh.exists()
    assert evict(cache, limit) == []  # under the limit: nothing more
    # An evicted bot is simply fetched again; the others are not.
    for sha, content in zip((s0, s1, s2), weights):
        root = cached_artifact(cache, sha, store.fetch(sha))
        assert (root / "tree" / "bot" / "weights").read_bytes() == content
    assert store.fetched == [s0, s1, s2, s3, s0]


def test_held_and_kept_entries_are_never_evicted(tmp_path):
    artifacts = [_artifact({"bot/main.py": f"print({i})\n".encode()}) for i in range(4)]
    a, b, c, d = (sha for sha, _ in artifacts)
    store = Store(*artifacts)
    cache = tmp_path / "cache"
    for sha in (a, b, c, d):
        cached_artifact(cache, sha, store.fetch(sha))
    _last_used(cache, [a, b, c, d])
    # Another process holds a (a match of another worker); its end (stdin closed) lets go.
    with _python(HOLD, str(cache), a) as holder:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline() == "held\n"
        assert evict(cache, 0, keep=[b]) == [c, d]
        with hold_entries(cache, [b]):  # a hold in this process counts too (another thread's match)
            assert evict(cache, 0) == []
        assert all((cache / sha / "tree" / "bot" / "main.py").is_file() for sha in (a, b))
    assert holder.returncode == 0
    assert evict(cache, 0) == [a, b]
    cached_artifact(cache, a, store.fetch(a))
    assert store.fetched == [a, b, c, d, a]


def test_an_entry_in_use_by_another_process_is_not_evicted_under_it(tmp_path):
    sha, data = _artifact({"bot/main.py": b"print('in use')\n"})
    cache = tmp_path / "cache"
    root = cached_artifact(cache, sha, lambda: data)
    (cache / f"{sha}.tgz").write_bytes(b"not the artifact")
    (tmp_path / "good.tgz").write_bytes(data)
    with _python(USE, str(cache), sha, str(tmp_path / "good.tgz")) as user:
        assert user.stdout is not None and user.stdin is not None
        # Stopped in the middle of its use (it found the kept bytes wrong): the entry is its own.
        assert user.stdout.readline().startswith(f"warned: kept artifact {cache / sha}.tgz")
        assert evict(cache, 0) == []
        assert (root / "tree" / "bot" / "main.py").read_bytes() == b"print('in use')\n"
        user.stdin.write("\n")
        user.stdin.close()
        assert user.stdout.read() == f"fetching\n{root}\n"
    assert user.returncode == 0
    assert (cache / f"{sha}.tgz").read_bytes() == data
    assert evict(cache, 0) == [sha] and os.listdir(cache) == []


#: Another process evicting an entry as ``evict`` does (its lock taken exclusively, the lock
#: file unlinked last, then let go), stopped with the lock taken until a line on its stdin.
EVICTING = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
sys.stdin.readline()
os.unlink(sys.argv[1])
"""


def _waits_for(path: Path) -> bool:
    """Someone waits for a flock of ``path`` (a blocked lock shows in /proc/locks with "->")."""
    st = path.stat()
    name = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino} "
    return any("->" in line and name in line for line in Path("/proc/locks").read_text().splitlines())


def test_a_hold_that_waited_for_an_eviction_holds_the_entry_anew(tmp_path):
    sha, data = _artifact({"bot/main.py": b"print('waited')\n"})
    cache = tmp_path / "cache"
    cached_artifact(cache, sha, lambda: data)
    lock = cache / f"{sha}.lock"
    held, done = threading.Event(), threading.Event()

    def match() -> None:
        with hold_entries(cache, [sha]):
            held.set()
            done.wait()

    with _python(EVICTING, str(lock)) as evictor:
        assert evictor.stdout is not None and evictor.stdin is not None
        assert evictor.stdout.readline() == "locked\n"
        thread = threading.Thread(target=match)
        thread.start()
        try:
            deadline = time.monotonic() + 30
            while not _waits_for(lock):  # the match waits on the lock file about to be unlinked
                assert time.monotonic() < deadline and not held.is_set()
                time.sleep(0.001)
            evictor.stdin.write("\n")
            evictor.stdin.close()
            assert held.wait(timeout=30)
            # The hold is on the entry's lock file as it is now, not on the one unlinked.
            assert evict(cache, 0) == [] and (cache / sha / "tree" / "bot" / "main.py").is_file()
        finally:
            done.set()
            thread.join()
    assert evict(cache, 0) == [sha]


def test_the_cache_limit_is_read_from_the_environment(monkeypatch):
    monkeypatch.delenv(CACHE_LIMIT_ENV, raising=False)
    assert cache_limit() == 20480 * 2**20
    for text, limit in (("0", None), ("512", 512 * 2**20), (" 7 ", 7 * 2**20)):
        monkeypatch.setenv(CACHE_LIMIT_ENV, text)
        assert cache_limit() == limit
    for text in ("lots", "-1", "1.5"):
        monkeypatch.setenv(CACHE_LIMIT_ENV, text)
        with pytest.raises(UsageError, match="ARENA_CACHE_MB"):
            cache_limit()


def test_arena_worker_takes_a_cache_limit():
    shown = run_in_process(["worker", "--help"], env={**clean_env(), "COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    line = next(line for line in shown.stdout.splitlines() if "--cache-mb" in line)
    assert "Evict the least recently used bots' files once the cache is over this many MB (0: never)" in line


def test_an_entry_emptied_while_it_is_looked_at_is_changed_not_an_error(tmp_path):
    """Files removed between the listing of an entry and their lstat (someone emptying the
    cache mid-match) make the entry "changed" (the match is played again), never an error
    that fails the run."""
    from arena.cluster._artifacts import _compare, entry_state

    root = tmp_path / "entry"
    root.mkdir()
    names = [f"f{i}" for i in range(200)]
    manifest = {}
    for n in names:
        (root / n).write_bytes(b"x")
    stop = threading.Event()

    def churn() -> None:  # remove and make again, as fast as it goes
        while not stop.is_set():
            for n in names:
                try:
                    os.unlink(root / n)
                except FileNotFoundError:
                    pass
                (root / n).write_bytes(b"x")

    churner = threading.Thread(target=churn)
    churner.start()
    states, differences = [], []
    try:
        for _ in range(300):  # until a file has been seen gone (at most 300 looks)
            states.append(entry_state(root))
            differences.append(_compare(root, manifest))
            if ("gone",) in states[-1].values():
                break
    finally:
        stop.set()
        churner.join()
    # Each look came back; a file seen gone is a change of the state and a difference in words.
    assert ("gone",) in states[-1].values(), len(states)
    assert all(d is not None and d.endswith("is not in the artifact") for d in differences)
