"""Bots as content-addressed artifacts: packed by the coordinator, checked and
unpacked once per worker machine.

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
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import shlex
import shutil
import stat
import tarfile
import tempfile
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


#: What each artifact checked in this process holds, by SHA-256: tree name ->
#: ("file", content SHA-256, executable?) or ("link", target). Taken from the
#: checked bytes, never from the disk, so a changed cache cannot vouch for itself.
_MANIFESTS: dict[str, dict[str, tuple]] = {}


def _manifest(sha256: str, data: bytes) -> dict[str, tuple]:
    known = _MANIFESTS.get(sha256)
    if known is not None:
        return known
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        raise ArtifactError(f"artifact {sha256[:12]} arrived with SHA-256 {got[:12]}: refused, nothing run")
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
    out = {}
    for top, dirs, names in os.walk(root):
        for n in dirs + names:
            full = os.path.join(top, n)
            st = os.lstat(full)
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
            st = os.lstat(full)
            name = os.path.relpath(full, root)
            if stat.S_ISLNK(st.st_mode):
                seen[name] = ("link", os.readlink(full))
            elif stat.S_ISREG(st.st_mode):
                with open(full, "rb") as f:
                    seen[name] = ("file", hashlib.file_digest(f, "sha256").hexdigest(), bool(st.st_mode & 0o111))
            elif not stat.S_ISDIR(st.st_mode):
                seen[name] = ("other",)
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
    SHA-256 is checked first); unpacked again when absent or different.

    ``warn`` hears, in words, of an entry that was dropped.
    """
    manifest = _manifest(sha256, data)
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
