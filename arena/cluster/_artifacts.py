"""Bots as content-addressed artifacts: packed by the coordinator, checked and
unpacked once per worker machine, kept there while used, evicted when not.

An artifact is a gzipped tar of the bot's own files (``bot_files``: the
folder of its program or script, and any other file or folder its command
names), packed the same way every time (sorted, no owners, no times), so the
same files give the same SHA-256 wherever they lie. The command travels as a
template: each word that is one of the bot's paths becomes a path inside the
artifact; every other word (``python3``, an interpreter's absolute path, a
flag) is kept as written, so a worker needs the same runtimes as the
coordinator names.

A worker refuses bytes whose SHA-256 is not the one asked for, and unpacks
into ``CACHE/<sha256>`` by an atomic rename. Before every use it compares
that folder, file by file, with the artifact's own list (taken from the
checked bytes, not from the disk): a file changed, added or deleted there
drops the entry, which is unpacked again. The contents are hashed at the
first use in a process and whenever a file's lstat has moved since.

The worker fetches an artifact's bytes from the coordinator only when it
lacks them (``cached_artifact``), and keeps them as ``CACHE/<sha256>.tgz``:
a dropped entry is unpacked again from there, without asking the network.
The kept bytes are no more trusted than the folder: hashed at their first
use in a process and whenever their lstat moved, fetched again when wrong.

Without eviction a worker kept every bot it ever played (44 GB for 10,000
bots). Each use touches ``CACHE/<sha256>.used`` (its mtime is the last use;
a match's own reads change nothing there), and ``evict`` removes the least
recently used entries while the cache is over ``ARENA_CACHE_MB``. A match
holds its bots' entries (``hold_entries``: a shared ``flock`` of
``CACHE/<sha256>.lock``, which works between threads as between processes);
eviction takes that lock exclusively, without waiting, and passes over what
it cannot take. An evicted bot that comes back is simply fetched again.
"""

from __future__ import annotations

import contextlib
import fcntl
import gzip
import hashlib
import io
import os
import re
import shlex
import shutil
import stat
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .._spec import BotSpec, behind_relay, bot_environment
from .._checks import UsageError
from ..sandbox._view import bot_files

#: The largest bot the coordinator packs (its files before compression).
ARTIFACT_MAX = 256 * 2**20
#: Inside an artifact, the bot's files are under this folder.
TREE = "tree"


class ArtifactError(RuntimeError):
    """An artifact that cannot be packed, or that arrived wrong."""


@dataclass(frozen=True, slots=True)
class ShippedBot:
    """A bot as a worker receives it: a name, its artifact and its command's words."""

    name: str
    sha256: str | None  # None: nothing of its own to ship (an installed command)
    words: tuple[tuple[str, str], ...]  # ("word", text) as written, or ("path", path inside the tree)
    #: "acpc:" or "higc:" for a bot behind one of the arena's relays: the words
    #: are the bot's own command, and the worker puts its own relay before it
    relay: str = ""

    def to_json(self) -> dict:
        return {"name": self.name, "sha256": self.sha256, "words": [list(w) for w in self.words],
                "relay": self.relay}

    @staticmethod
    def command(data: dict, root: Path | None) -> str:
        """The command line on a worker whose copy of the artifact is ``root``."""
        out = []
        for kind, text in data["words"]:
            if kind == "path":
                assert root is not None
                out.append(str(root / TREE / text))
            else:
                out.append(text)
        return data.get("relay", "") + shlex.join(out)


def _files_of(spec: BotSpec) -> list[tuple[str, bool]]:
    return bot_files(spec, bot_environment()["PATH"])


def pack_bot(spec: BotSpec) -> tuple[ShippedBot, bytes | None]:
    """The bot's artifact (or None for an installed command) and its command template.

    Of a bot behind a relay (``acpc:CMD``), the bot itself: the relay is a
    program of the coordinator's arena, at a path of its own machine."""
    relay, spec = behind_relay(spec)
    files = _files_of(spec)
    if not files:
        return ShippedBot(spec.name, None, tuple(("word", w) for w in spec.argv), relay), None
    base = os.path.commonpath([os.path.dirname(p) for p, _ in files])
    words: list[tuple[str, str]] = []
    for i, word in enumerate(spec.argv):
        # The program, and the words that are the bot's files (absolute once parsed); the rest is text.
        is_path = ("/" in word) if i == 0 else os.path.isabs(word)
        full = os.path.abspath(word) if is_path else None
        inside = next((p for p, _ in files if full is not None and (full == p or full.startswith(p + "/"))), None)
        words.append(("path", os.path.relpath(full, base)) if inside and full is not None else ("word", word))
    data = _tar(_entries(spec.name, files, base))
    return ShippedBot(spec.name, hashlib.sha256(data).hexdigest(), tuple(words), relay), data


def check_shippable(spec: BotSpec) -> None:
    """Raise UsageError, before anything is stored, for a bot a cluster cannot be sent:
    a link out of its files, a device or fifo, more than ARTIFACT_MAX bytes."""
    files = _files_of(behind_relay(spec)[1])
    if files:
        _entries(spec.name, files, os.path.commonpath([os.path.dirname(p) for p, _ in files]))


def _entries(name: str, files: list[tuple[str, bool]], base: str) -> list[tuple[str, str, os.stat_result]]:
    """Every path of the bot's files (on disk, in the tree, its lstat), sorted by tree name; checked."""
    found: list[tuple[str, str]] = []
    for path, is_dir in files:
        found.append((path, os.path.relpath(path, base)))
        if is_dir:
            for top, dirs, names in os.walk(path):
                dirs.sort()
                for n in sorted(dirs + names):
                    full = os.path.join(top, n)
                    found.append((full, os.path.relpath(full, base)))
    found.sort(key=lambda e: e[1])
    total = 0
    out = []
    for full, arc in found:
        st = os.lstat(full)
        if stat.S_ISREG(st.st_mode):
            total += st.st_size
            if total > ARTIFACT_MAX:
                raise UsageError(
                    f"bot {name!r}: its files ({', '.join(p for p, _ in files)}) are over "
                    f"{ARTIFACT_MAX >> 20} MB, too much to ship to a cluster; give the bot a folder of its own")
        elif stat.S_ISLNK(st.st_mode):
            target = os.readlink(full)
            resolved = os.path.normpath(os.path.join(os.path.dirname(full), target))
            if os.path.isabs(target) or not any(resolved == p or resolved.startswith(p + "/") for p, _ in files):
                raise UsageError(f"bot {name!r}: {full} is a link to {target}, outside the bot's files; "
                                 "a cluster ships the bot's own files only")
        elif not stat.S_ISDIR(st.st_mode):
            raise UsageError(f"bot {name!r}: {full} is not a file, folder or link; it cannot be shipped")
        out.append((full, arc, st))
    return out


def _tar(entries: list[tuple[str, str, os.stat_result]]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for full, arc, st in entries:
            info = tarfile.TarInfo(f"{TREE}/{arc}")
            info.mtime = 0
            if stat.S_ISDIR(st.st_mode):
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            elif stat.S_ISREG(st.st_mode):
                info.size = st.st_size
                info.mode = 0o755 if st.st_mode & 0o111 else 0o644
                with open(full, "rb") as f:
                    tar.addfile(info, f)
            else:
                info.type, info.linkname, info.mode = tarfile.SYMTYPE, os.readlink(full), 0o777
                tar.addfile(info)
    return gzip.compress(raw.getvalue(), compresslevel=6, mtime=0)


def default_cache() -> Path:
    return Path(os.environ.get("ARENA_CACHE") or Path.home() / ".cache" / "arena" / "artifacts")


#: The cache's size, in MB, over which a worker evicts (``arena worker --cache-mb``); 0: never.
CACHE_LIMIT_ENV = "ARENA_CACHE_MB"
CACHE_MB_DEFAULT = 20480


def cache_limit() -> int | None:
    """The cache's limit in bytes ($ARENA_CACHE_MB, else 20480 MB); None for 0, no limit."""
    text = os.environ.get(CACHE_LIMIT_ENV, "").strip()
    try:
        mb = int(text) if text else CACHE_MB_DEFAULT
    except ValueError:
        mb = -1
    if mb < 0:
        raise UsageError(f"${CACHE_LIMIT_ENV} is {text!r}: it takes a whole number of MB (0: never evict)")
    return mb << 20 or None


#: An artifact's name in the cache: its SHA-256, never a path of its own.
_SHA256 = re.compile(r"[0-9a-f]{64}")


def _check_name(sha256: str) -> None:
    if not _SHA256.fullmatch(sha256):
        raise ArtifactError(f"{sha256[:80]!r} is not an artifact's SHA-256: refused, nothing run")


#: What each artifact checked in this process holds, by SHA-256: tree name ->
#: ("file", content SHA-256, executable?) or ("link", target). Taken from the
#: checked bytes, never from the disk, so a changed cache cannot vouch for itself.
_MANIFESTS: dict[str, dict[str, tuple]] = {}


def _check_bytes(sha256: str, data: bytes) -> None:
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        raise ArtifactError(f"artifact {sha256[:12]} arrived with SHA-256 {got[:12]}: refused, nothing run")


def _manifest(sha256: str, data: bytes, checked: bool = False) -> dict[str, tuple]:
    """The artifact's list of files; ``checked``: ``data`` was just found to hash to ``sha256``."""
    known = _MANIFESTS.get(sha256)
    if known is not None:
        return known
    if not checked:
        _check_bytes(sha256, data)
    manifest: dict[str, tuple] = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar:
            if member.isfile():
                content = tar.extractfile(member)
                assert content is not None
                manifest[member.name] = ("file", hashlib.sha256(content.read()).hexdigest(),
                                         bool(member.mode & 0o111))
            elif member.issym():
                manifest[member.name] = ("link", member.linkname)
    _MANIFESTS[sha256] = manifest
    return manifest


#: Per cache entry checked in this process: each path's lstat (inode, size, mode, mtime,
#: ctime) when its content was last found equal to the artifact's. Any change to a file
#: (a write, a rename over it, a chmod) moves its ctime, which no one can set back.
_CHECKED: dict[Path, dict[str, tuple]] = {}


def entry_state(root: Path) -> dict[str, tuple]:
    """Each path's lstat under ``root`` (inode, size, mode, mtime, ctime): any change to the
    entry, its removal or its being unpacked again, changes this."""
    out: dict[str, tuple] = {}
    for top, dirs, names in os.walk(root):
        for n in dirs + names:
            full = os.path.join(top, n)
            try:
                st = os.lstat(full)
            except FileNotFoundError:  # removed since it was listed (by hand, mid-match): a change too
                out[os.path.relpath(full, root)] = ("gone",)
                continue
            out[os.path.relpath(full, root)] = (st.st_ino, st.st_size, st.st_mode, st.st_mtime_ns, st.st_ctime_ns)
    return out


def checked_state(root: Path) -> dict[str, tuple]:
    """``root``'s state when its contents were last found equal to its artifact (``unpack``
    checked it): a match that finds the entry otherwise afterwards ran on a changed entry,
    however early the change came (before its bots started, too)."""
    return _CHECKED.get(root) or entry_state(root)


def _difference(root: Path, manifest: dict[str, tuple]) -> str | None:
    """How the unpacked ``root`` differs from its artifact, in words; None when it does not.

    The contents are hashed again only when some path's lstat moved since they last matched."""
    before = entry_state(root)
    if _CHECKED.get(root) == before:
        return None
    what = _compare(root, manifest)
    if what is None:
        _CHECKED[root] = before
    else:
        _CHECKED.pop(root, None)
    return what


def _compare(root: Path, manifest: dict[str, tuple]) -> str | None:
    seen: dict[str, tuple] = {}
    for top, dirs, names in os.walk(root):
        for n in dirs + names:
            full = os.path.join(top, n)
            name = os.path.relpath(full, root)
            try:
                st = os.lstat(full)
                if stat.S_ISLNK(st.st_mode):
                    seen[name] = ("link", os.readlink(full))
                elif stat.S_ISREG(st.st_mode):
                    with open(full, "rb") as f:
                        seen[name] = ("file", hashlib.file_digest(f, "sha256").hexdigest(), bool(st.st_mode & 0o111))
                elif not stat.S_ISDIR(st.st_mode):
                    seen[name] = ("other",)
            except FileNotFoundError:  # removed since it was listed: missing, as if never there
                seen.pop(name, None)
    for name in sorted(manifest.keys() | seen.keys()):
        if name not in seen:
            return f"{name} is missing"
        if name not in manifest:
            return f"{name} is not in the artifact"
        if seen[name] != manifest[name]:
            return f"{name} was changed"
    return None


def _extract(tar: tarfile.TarFile, dest: Path) -> None:
    """Unpack with tarfile's "data" filter; before Python 3.11.4 (Debian 12's
    3.11.2) tarfile has none, and the same refusals are made here: no absolute
    or ``..`` names, no link out of ``dest``, nothing but files, folders and
    links, no set-id or group/other-write bits, owned by whoever unpacks."""
    if hasattr(tarfile, "data_filter"):
        tar.extractall(dest, filter="data")
        return
    members = []
    for m in tar.getmembers():
        parts = Path(m.name).parts
        if m.name.startswith("/") or ".." in parts:
            raise ArtifactError(f"artifact entry {m.name!r} points outside its folder: refused, nothing run")
        if m.issym() or m.islnk():
            # a symbolic link is read from its own folder, a hard link from the top
            start = os.path.dirname(m.name) if m.issym() else ""
            target = os.path.normpath(os.path.join(start, m.linkname))
            if m.linkname.startswith("/") or target == ".." or target.startswith("../"):
                raise ArtifactError(f"artifact link {m.name!r} -> {m.linkname!r} leads outside its folder: "
                                    "refused, nothing run")
        elif not (m.isfile() or m.isdir()):
            raise ArtifactError(f"artifact entry {m.name!r} is not a file, folder or link: refused, nothing run")
        m.mode &= 0o755
        m.uid, m.gid, m.uname, m.gname = os.getuid(), os.getgid(), "", ""
        members.append(m)
    tar.extractall(dest, members=members)


def unpack(cache: Path, sha256: str, data: bytes, warn=None) -> Path:
    """``cache/<sha256>``, checked file by file against the artifact ``data`` (whose
    SHA-256 is checked first); unpacked again when absent or different. Held from
    eviction while this runs, and marked used.

    ``warn`` hears, in words, of an entry that was dropped.
    """
    _check_name(sha256)
    with hold_entries(cache, [sha256]):
        root = _unpack(cache, sha256, data, warn, checked=False)
        _mark_used(cache, sha256)
        return root


def _unpack(cache: Path, sha256: str, data: bytes, warn, checked: bool) -> Path:
    """``unpack``, its entry held by the caller; ``checked``: ``data`` hashes to ``sha256``."""
    known = sha256 in _MANIFESTS
    manifest = _manifest(sha256, data, checked)
    root = cache / sha256
    if root.is_dir():
        what = _difference(root, manifest)
        if what is None:
            return root
        if warn is not None:
            warn(f"cache entry {root} differs from artifact {sha256[:12]} ({what}): dropped, unpacked again")
        trash = Path(tempfile.mkdtemp(prefix=".dropped-", dir=cache))
        try:
            root.rename(trash / "entry")
        except FileNotFoundError:
            pass  # another task of this worker dropped it first
        shutil.rmtree(trash, ignore_errors=True)
    if known and not checked:
        _check_bytes(sha256, data)  # the list came from other bytes: check these, which are unpacked
    cache.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=cache))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            _extract(tar, tmp)
        tmp.chmod(0o755)
        try:
            tmp.rename(root)
        except OSError:
            if not root.is_dir():  # not merely another thread or process first
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    _CHECKED[root] = entry_state(root)  # made from checked bytes just now
    return root


#: Each kept ``<sha256>.tgz`` whose bytes were last found, in this process, to hash to its
#: name: its lstat then (device, inode, size, mode, mtime, ctime). A write or a rename over
#: it moves the ctime, which no one can set back: the bytes are hashed again.
_KEPT: dict[Path, tuple] = {}


def _file_key(st: os.stat_result) -> tuple:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mode, st.st_mtime_ns, st.st_ctime_ns)


def _kept_unchanged(kept: Path) -> bool:
    known = _KEPT.get(kept)
    try:
        return known is not None and known == _file_key(os.lstat(kept))
    except FileNotFoundError:
        return False


def cached_artifact(cache: Path, sha256: str, fetch: Callable[[], bytes], warn=None) -> Path:
    """``cache/<sha256>``, checked as ``unpack`` checks it, from the bytes kept as
    ``cache/<sha256>.tgz``; ``fetch()`` (the artifact's bytes, from the coordinator) is
    called only when those are missing or do not hash to ``sha256``, and its bytes are
    kept in their stead. Held from eviction while this runs, and marked used: hold the
    entry (``hold_entries``) from before this call until the match ends.

    ``warn`` hears of an entry dropped, and of kept bytes found wrong. Raises
    ArtifactError for fetched bytes that are not the artifact (nothing is kept or unpacked).
    """
    _check_name(sha256)
    root, kept = cache / sha256, cache / f"{sha256}.tgz"
    with hold_entries(cache, [sha256]):
        if not (sha256 in _MANIFESTS and _kept_unchanged(kept) and _CHECKED.get(root) == entry_state(root)):
            data = _read_kept(kept, sha256, warn)
            if data is None:
                data = fetch()
                _check_bytes(sha256, data)
                _keep(cache, kept, data)
            _unpack(cache, sha256, data, warn, checked=True)
        _mark_used(cache, sha256)
    return root


def _read_kept(kept: Path, sha256: str, warn) -> bytes | None:
    """The kept bytes, when they hash to ``sha256``; else None (and ``warn`` hears why)."""
    try:
        fd = os.open(kept, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:  # a link, unreadable
        what = f"cannot be read ({exc.strerror})"
    else:
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())  # before reading: a write during the read moves the ctime
            if not stat.S_ISREG(st.st_mode):
                what = "is not a file"
            else:
                data = f.read()
                got = hashlib.sha256(data).hexdigest()
                if got == sha256:
                    _KEPT[kept] = _file_key(st)
                    return data
                what = f"has SHA-256 {got[:12]}"
    if warn is not None:
        warn(f"kept artifact {kept} {what}, not {sha256[:12]}: fetched again")
    return None


def _keep(cache: Path, kept: Path, data: bytes) -> None:
    """``data`` as ``kept``, by an atomic rename, readable by this user only. Hashed again
    at its next use (its lstat is not vouched for here): a torn write is found then."""
    fd, tmp = tempfile.mkstemp(prefix=".keeping-", dir=cache)  # mode 0600
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, kept)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _KEPT.pop(kept, None)


def _mark_used(cache: Path, sha256: str) -> None:
    """``cache/<sha256>.used`` touched: its mtime is the entry's last use."""
    used = cache / f"{sha256}.used"
    try:
        os.utime(used, follow_symlinks=False)
    except FileNotFoundError:
        os.close(os.open(used, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600))


def _lock(path: Path, how: int) -> int | None:
    """A descriptor of ``path`` (made if missing) locked with ``flock(how)``; None when
    LOCK_NB could not take it. Eviction unlinks an entry's lock file while it holds it,
    so a lock taken on a file no longer at ``path`` is let go and taken again."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, how)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        mine = os.fstat(fd)
        try:
            now = os.lstat(path)
            if (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino):
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)
        if how & fcntl.LOCK_NB:
            return None


@contextlib.contextmanager
def hold_entries(cache: Path, shas: Iterable[str]) -> Iterator[None]:
    """Keeps these entries of ``cache`` from eviction, by this or any other process,
    while the ``with`` block runs (whether or not they are there yet): a shared
    ``flock`` of ``cache/<sha256>.lock`` each. Waits while one is being evicted."""
    names = sorted(set(shas))
    for sha in names:
        _check_name(sha)
    cache.mkdir(parents=True, exist_ok=True, mode=0o700)
    held: list[int] = []
    try:
        for sha in names:
            fd = _lock(cache / f"{sha}.lock", fcntl.LOCK_SH)
            assert fd is not None  # (waited for)
            held.append(fd)
        yield
    finally:
        for fd in held:
            os.close(fd)


#: A temporary file or folder of the cache's (an unpacking, a dropped entry, bytes being
#: kept) older than this, in seconds, was left by a process that died: evict removes it.
STALE_TEMP = 3600
_TEMP_PREFIXES = (".unpacking-", ".dropped-", ".keeping-")
#: A name in the cache: an entry's folder, its kept bytes, its last-use marker, its lock.
_ENTRY_NAME = re.compile(r"([0-9a-f]{64})(\.tgz|\.used|\.lock)?")
#: Each entry folder measured in this process: (device, inode, mtime, ctime) -> its bytes.
_SIZES: dict[Path, tuple[tuple, int]] = {}


@dataclass(slots=True)
class _Entry:
    sha256: str
    size: int = 0  # bytes on disk, st_blocks * 512
    marked: float | None = None  # the .used marker's mtime
    made: float = 0.0  # the folder's or kept bytes' mtime, for an entry never marked
    whole: bool = False  # a folder or kept bytes (not only a lock or marker)

    @property
    def used(self) -> float:
        return self.made if self.marked is None else self.marked


def _on_disk(st: os.stat_result) -> int:
    return st.st_blocks * 512


def _folder_size(path: Path, st: os.stat_result) -> int:
    """The space ``path``'s files take. Measured once per process and folder (a folder
    unpacked again is a new one): what is written into an entry later is not counted
    until its next use, which drops it and unpacks it anew."""
    key = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
    known = _SIZES.get(path)
    if known is not None and known[0] == key:
        return known[1]
    total = _on_disk(st)
    for top, dirs, names in os.walk(path):
        for name in dirs + names:
            with contextlib.suppress(FileNotFoundError):
                total += _on_disk(os.lstat(os.path.join(top, name)))
    _SIZES[path] = (key, total)
    return total


def _cache_entries(cache: Path) -> list[_Entry]:
    found: dict[str, _Entry] = {}
    try:
        names = os.listdir(cache)
    except FileNotFoundError:
        return []
    for name in names:
        match = _ENTRY_NAME.fullmatch(name)
        if match is None:
            continue
        entry = found.setdefault(match[1], _Entry(match[1]))
        try:
            st = os.lstat(cache / name)
        except FileNotFoundError:
            continue
        kind = match[2]
        if kind == ".used":
            entry.marked = st.st_mtime
        elif kind != ".lock":
            entry.whole = True
            entry.made = max(entry.made, st.st_mtime)
        entry.size += _folder_size(cache / name, st) if stat.S_ISDIR(st.st_mode) else _on_disk(st)
    return list(found.values())


def _remove(cache: Path, sha256: str) -> bool:
    """Remove the entry (folder, kept bytes, marker, lock) unless it is held; True if removed."""
    lock = cache / f"{sha256}.lock"
    fd = _lock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    if fd is None:
        return False
    try:
        root = cache / sha256
        # Renamed aside first: no one finds a half-removed folder under the entry's name.
        trash = Path(tempfile.mkdtemp(prefix=".dropped-", dir=cache))
        try:
            with contextlib.suppress(FileNotFoundError):
                root.rename(trash / "entry")
            for suffix in (".tgz", ".used"):
                (cache / f"{sha256}{suffix}").unlink(missing_ok=True)
        finally:
            shutil.rmtree(trash, ignore_errors=True)
        _CHECKED.pop(root, None)
        _SIZES.pop(root, None)
        _KEPT.pop(cache / f"{sha256}.tgz", None)
        _MANIFESTS.pop(sha256, None)
        lock.unlink(missing_ok=True)  # while still held: a waiting holder then takes a new one
    finally:
        os.close(fd)
    return True


def _sweep(cache: Path) -> None:
    """Remove the temporary files and folders that processes which died left behind."""
    try:
        names = os.listdir(cache)
    except FileNotFoundError:
        return
    old = time.time() - STALE_TEMP
    for name in names:
        if name.startswith(_TEMP_PREFIXES):
            path = cache / name
            try:
                st = os.lstat(path)
            except FileNotFoundError:
                continue
            if st.st_mtime < old:
                if stat.S_ISDIR(st.st_mode):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)


def _amount(size: int) -> str:
    for unit, shift in (("GB", 30), ("MB", 20), ("KB", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):.1f}".removesuffix(".0") + f" {unit}"
    return f"{size} bytes"


def evict(cache: Path, limit_bytes: int, warn=None, keep: Iterable[str] = ()) -> list[str]:
    """While the cache's size is over ``limit_bytes``, remove its least recently used
    entry (folder, kept bytes, marker and lock) that is neither held (``hold_entries``,
    by any process) nor in ``keep``; the SHA-256s removed, oldest first. ``warn`` hears
    of each.

    The size is the space on disk (st_blocks * 512) of the entries' folders, kept bytes
    and markers. Also removed: the lock and marker of an entry that has neither folder
    nor bytes (a fetch that failed), and temporary files older than STALE_TEMP.
    """
    _sweep(cache)
    keep = set(keep)
    entries = sorted(_cache_entries(cache), key=lambda e: (e.used, e.sha256))

    def remove(sha256: str) -> bool:
        try:
            return _remove(cache, sha256)
        except OSError as exc:  # (a lock that is not a file, a folder that cannot be moved)
            if warn is not None:
                warn(f"cannot evict artifact {sha256[:12]} from the cache: {exc}")
            return False

    for entry in entries:
        if not entry.whole and entry.sha256 not in keep:
            remove(entry.sha256)
    total = sum(e.size for e in entries if e.whole)
    removed: list[str] = []
    for entry in entries:
        if total <= limit_bytes:
            break
        if not entry.whole or entry.sha256 in keep or not remove(entry.sha256):
            continue
        total -= entry.size
        removed.append(entry.sha256)
        if warn is not None:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.used))
            warn(f"cache over {_amount(limit_bytes)}: evicted artifact {entry.sha256[:12]} "
                 f"({_amount(entry.size)}, last used {when})")
    return removed
