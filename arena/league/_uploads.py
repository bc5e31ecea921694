"""Bot submissions: one program or script, or a .zip / .tar.gz with arena.toml.

Everything in an upload is hostile. Nothing is written until every entry's
name, type and size and the manifest have been checked, every file is then
written by hand (never ``extractall``) under a path confirmed to be inside
the destination, and any failure removes the destination again. Sizes are
checked twice: as declared by the archive and as actually read, since a zip's
headers can lie, and gzip is inflated through a bounded reader so that a bomb
is refused without ever being held in memory.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import os
import re
import shlex
import shutil
import stat
import struct
import tarfile
import tempfile
import tomllib
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class UploadError(ValueError):
    """A rejected upload; str(exc) is one sentence for the bot author: what was received, what is expected."""


class NoRoomForUpload(OSError):
    """An upload that would take the disk below the room the league keeps free
    (``UploadLimits.keep_free``): refused alone, before anything is written; the
    league has room for smaller ones. An ``ENOSPC`` whose str() is one sentence."""

    def __init__(self, sentence: str) -> None:
        super().__init__(errno.ENOSPC, sentence)

    def __str__(self) -> str:
        return str(self.strerror)


@dataclass(frozen=True)
class UploadLimits:
    max_upload_bytes: int = 8 * 2**20  # the upload itself
    max_files: int = 1000  # entries in an archive
    max_total_bytes: int = 64 * 2**20  # sum of extracted file sizes
    max_ratio: float = 100.0  # extracted total / compressed upload size
    max_path_len: int = 200
    #: bytes an upload must leave free on the disk it is unpacked on (0: not looked at)
    keep_free: int = 0


@dataclass(frozen=True)
class BotManifest:
    name: str | None  # [A-Za-z0-9][A-Za-z0-9_.-]{0,39}
    game: str | None  # a game id ([a-z0-9_]{1,32})
    run: str  # relative to the bot's folder, e.g. "python3 bot.py" or "./build/bot"
    build: str | None  # e.g. "gcc -O2 -o build/bot bot.c"


@dataclass(frozen=True)
class Unpacked:
    kind: str  # "file", "zip" or "tar.gz"
    sha256: str  # hex digest of the upload bytes
    files: list[str]  # relative paths of the files written, sorted
    manifest: BotManifest  # from arena.toml, or inferred for a single file


MANIFEST = "arena.toml"
MAX_MANIFEST_BYTES = 16 * 2**10
#: the longest run or build command: a command line, not a script
MAX_COMMAND = 1000
# Below this, ratio says nothing: a few KB of source compress 10x easily.
_RATIO_FLOOR = 2**20
_CHUNK = 64 * 2**10

_PATH_CHARS = re.compile(r"[A-Za-z0-9_.+/-]+")
_FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
_BOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
_GAME_ID = re.compile(r"[a-z0-9_]{1,32}")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

_INTERPRETERS = {".py": "python3", ".js": "node", ".sh": "sh", ".exe": "mono"}
_MANIFEST_EXAMPLE = 'run = "python3 bot.py"'
# Archives we do not take; naming them beats "neither a program nor a script".
_OTHER_ARCHIVES = [
    (b"BZh", ".bz2"),
    (b"\xfd7zXZ\x00", ".xz"),
    (b"7z\xbc\xaf\x27\x1c", ".7z"),
    (b"Rar!", ".rar"),
    (b"\x28\xb5\x2f\xfd", ".zst"),
]


# -- messages ----------------------------------------------------------------


def _size(n: float) -> str:
    if n < 2**10:
        return f"{int(n)} bytes"
    value, unit = (n / 2**20, "MB") if n >= 2**20 else (n / 2**10, "KB")
    text = f"{value:.1f}".removesuffix(".0")
    return f"{text} {unit}"


def _a(value: Any) -> str:
    """The TOML type of a value, as a bot author would name it."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"  # dates and times


# -- the upload as a whole ---------------------------------------------------


def _kind(data: bytes) -> str:
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "zip"
    if data.startswith(b"\x1f\x8b"):
        return "tar.gz"
    return "file"


def _file_name(filename: str, limits: UploadLimits) -> str:
    # Browsers on Windows may send the whole client path.
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    if not _FILE_NAME.fullmatch(base) or len(base) > limits.max_path_len:
        raise UploadError(
            f"upload file name {filename!r} is not a plain file name "
            "(letters, digits and _ . - + starting with a letter, digit or _, "
            "like bot.py, is expected)"
        )
    return base


def inspect_upload(data: bytes, filename: str, limits: UploadLimits = UploadLimits()) -> str:
    """Cheap checks before storing: size, and the kind ("file", "zip", "tar.gz") by magic bytes, not by the name. Raises UploadError."""
    if not data:
        raise UploadError(
            f"upload {filename!r} is empty; a program, a script, "
            "or a .zip / .tar.gz archive with arena.toml is expected"
        )
    if len(data) > limits.max_upload_bytes:
        raise UploadError(f"upload is {_size(len(data))}; the limit is {_size(limits.max_upload_bytes)}")
    kind = _kind(data)
    if kind == "file":
        _file_name(filename, limits)
    return kind


def bot_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a bot (a sentence), or None. The whole string
    must match: a trailing newline or an invisible character is refused."""
    if _BOT_NAME.fullmatch(name):
        return None
    return (f"bot name {name!r} is not usable: 1 to 40 letters, digits, '_', '.' or '-' (ASCII), starting with a "
            "letter or digit, and nothing else (no spaces, line breaks or invisible characters) is expected")


# -- single files ------------------------------------------------------------


def _single_manifest(name: str, data: bytes) -> BotManifest:
    suffix = os.path.splitext(name)[1].lower()
    if suffix in _INTERPRETERS:
        run = f"{_INTERPRETERS[suffix]} {name}"
    elif data.startswith((b"\x7fELF", b"#!")):
        run = f"./{name}"
    else:
        hint = next((f" (it looks like a {ext} archive)" for magic, ext in _OTHER_ARCHIVES if data.startswith(magic)), "")
        if len(data) > 262 and data[257:262] == b"ustar":
            hint = " (it looks like an uncompressed .tar; gzip it)"
        raise UploadError(
            f"upload {name!r} is neither a program nor a known script type{hint}; "
            "an ELF executable, a script starting with #!, a .py/.js/.sh/.exe file, "
            "or a .zip / .tar.gz archive with arena.toml is expected"
        )
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.splitext(name)[0])
    stem = re.sub(r"^[^A-Za-z0-9]+", "", stem)[:40]
    return BotManifest(name=stem if _BOT_NAME.fullmatch(stem) else None, game=None, run=run, build=None)


# -- archive entries ---------------------------------------------------------


@dataclass
class _Member:
    """One archive entry as the archive describes it."""

    raw: str  # the name as stored, for messages
    kind: str  # "file", "dir", or what else it is ("a symbolic link", ...)
    size: int  # declared
    executable: bool
    problem: str | None = None  # something wrong with a file entry besides its kind
    # Only valid while the entry is the current one (tar is read as a stream).
    open: Callable[[], Iterator[bytes]] | None = None


@dataclass
class _Entry:
    raw: str
    parts: tuple[str, ...]  # normalised path inside the archive
    is_dir: bool
    executable: bool
    size: int


class _TooBig(Exception):
    """The inflated gzip stream passed its cap (args[0])."""


class _Truncated(Exception):
    """The gzip stream ends before its last block."""


class _Gunzip:
    """A read()-only stream over one gzip member that never inflates more than
    `cap` bytes in all, nor more than asked for in one call."""

    def __init__(self, data: bytes, cap: int) -> None:
        self._data = memoryview(data)
        self._pos = 0
        self._cap = cap
        self._out = 0
        self._z = zlib.decompressobj(wbits=31)

    def read(self, n: int = _CHUNK) -> bytes:
        if n < 0:
            n = _CHUNK
        pieces: list[bytes] = []
        got = 0
        # Data after the end of the first member is ignored, as tarfile does.
        while got < n and not self._z.eof:
            src: bytes | memoryview = self._z.unconsumed_tail
            if not src and self._pos < len(self._data):
                src = self._data[self._pos : self._pos + _CHUNK]
                self._pos += len(src)
            piece = self._z.decompress(src, n - got)
            if not piece and not src:
                raise _Truncated("the gzip stream ends early")
            self._out += len(piece)
            if self._out > self._cap:
                raise _TooBig(self._cap)
            pieces.append(piece)
            got += len(piece)
        return b"".join(pieces)


# Exceptions that corrupt archives make zipfile, tarfile and zlib raise.
_BROKEN = (
    tarfile.TarError,
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    _Truncated,
    EOFError,
    OSError,
    ValueError,
    struct.error,
    NotImplementedError,
    RuntimeError,
    OverflowError,
    IndexError,
    KeyError,
)


def _why(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def _bomb(cap: int, where: str) -> UploadError:
    return UploadError(
        f"archive inflates to more than {_size(cap)}{where}; "
        f"an archive of at most {_size(cap)} inflated (files, headers and padding) is expected"
    )


def _chunks(read: Callable[[int], bytes], raw: str) -> Iterator[bytes]:
    try:
        while chunk := read(_CHUNK):
            yield chunk
    except UploadError:
        raise
    except _TooBig as exc:
        raise _bomb(exc.args[0], f" in entry {raw!r}") from None
    except _BROKEN as exc:
        raise UploadError(f"archive entry {raw!r} cannot be read ({_why(exc)}); an intact archive is expected") from None


def _zip_members(data: bytes) -> Iterator[_Member]:
    zf = zipfile.ZipFile(io.BytesIO(data))
    with zf:
        for info in zf.infolist():
            mode = info.external_attr >> 16
            fmt = stat.S_IFMT(mode)
            # orig_filename: zipfile cuts the name at a NUL, hiding the trick.
            raw = info.orig_filename
            kind = "dir" if raw.endswith("/") else "file"
            if fmt == stat.S_IFLNK:
                kind = "a symbolic link"
            elif fmt and fmt not in (stat.S_IFREG, stat.S_IFDIR):
                kind = "a special file (device, fifo or socket)"
            elif fmt == stat.S_IFDIR and kind == "file":
                kind = "a folder named like a file"
            problem = None
            if info.flag_bits & 0x1:
                problem = "is encrypted; unencrypted entries are expected"
            elif info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                # bzip2 and lzma inflate whole chunks at once: no bound per read.
                problem = f"uses compression method {info.compress_type}; stored or deflated entries are expected"

            def opener(info: zipfile.ZipInfo = info) -> Iterator[bytes]:
                try:
                    src = zf.open(info)
                except _BROKEN as exc:
                    raise UploadError(f"archive entry {info.orig_filename!r} cannot be read ({_why(exc)}); an intact archive is expected") from None
                with src:
                    yield from _chunks(src.read, info.orig_filename)

            yield _Member(raw, kind, info.file_size, bool(mode & 0o111), problem, opener)


def _tar_members(data: bytes, cap: int) -> Iterator[_Member]:
    # "r|": a stream, read once front to back, so nothing is held but the
    # current header; _Gunzip bounds what the stream can inflate to.
    with tarfile.open(fileobj=_Gunzip(data, cap), mode="r|") as tf:  # type: ignore[call-overload]
        for info in tf:
            if info.isdir():
                kind = "dir"
            elif info.issym():
                kind = "a symbolic link"
            elif info.islnk():
                kind = "a hard link"
            elif info.ischr() or info.isblk():
                kind = "a device"
            elif info.isfifo():
                kind = "a fifo"
            elif info.issparse():
                kind = "a sparse file"
            elif info.isreg():
                kind = "file"
            else:
                kind = f"an entry of tar type {info.type!r}"

            def opener(info: tarfile.TarInfo = info) -> Iterator[bytes]:
                src = tf.extractfile(info)
                assert src is not None  # regular files always have a reader
                with src:
                    yield from _chunks(src.read, info.name)

            yield _Member(info.name, kind, info.size, bool(info.mode & 0o111), None, opener)


def _members(kind: str, data: bytes, limits: UploadLimits) -> Iterator[_Member]:
    """The archive's entries, in order; any failure to read it is an UploadError."""
    # A tar stream is the files plus a header (and maybe a pax header) and
    # padding per entry, so the cap on the inflated stream allows for those.
    cap = limits.max_total_bytes + 2048 * (limits.max_files + 2) + tarfile.RECORDSIZE
    source = _zip_members(data) if kind == "zip" else _tar_members(data, cap)
    last: str | None = None
    while True:
        try:
            member = next(source)
        except StopIteration:
            return
        except UploadError:
            raise
        except _TooBig:
            raise _bomb(cap, f" after entry {last!r}" if last is not None else "") from None
        except _BROKEN as exc:
            where = f" after entry {last!r}" if last is not None else ""
            what = ".zip" if kind == "zip" else ".tar.gz"
            raise UploadError(
                f"upload starts like a {what} archive but cannot be read{where} "
                f"({_why(exc)}); an intact {what} archive is expected"
            ) from None
        last = member.raw
        yield member


def _normalise(raw: str, limits: UploadLimits) -> tuple[str, ...]:
    def bad(why: str, expected: str = "a path inside the archive is expected") -> UploadError:
        return UploadError(f"archive entry {raw!r} {why} ({expected})")

    if not raw:
        raise bad("has an empty name")
    if _CONTROL.search(raw):
        raise bad("contains a control character")
    if "\\" in raw:
        raise bad("contains a backslash", "a path with / between folders is expected")
    if raw.startswith("/"):
        raise bad("is an absolute path")
    parts = tuple(p for p in raw.split("/") if p not in ("", "."))
    if ".." in parts:
        raise bad("leaves the bot's folder")
    if len(raw) > limits.max_path_len:
        raise bad(f"is {len(raw)} characters long", f"at most {limits.max_path_len} is expected")
    if not _PATH_CHARS.fullmatch(raw):
        raise bad("has a character other than letters, digits and _ . - + /", "a plain path like src/bot.py is expected")
    return parts


@dataclass
class _Scan:
    entries: list[_Entry]
    manifests: dict[tuple[str, ...], bytes | int]  # candidate arena.toml: bytes, or size if too big


def _scan(kind: str, data: bytes, limits: UploadLimits) -> _Scan:
    """Every per-entry check, without writing anything."""
    scan = _Scan([], {})
    places = _Places()
    total = 0
    for count, member in enumerate(_members(kind, data, limits), 1):
        parts = _member_parts(member, count, limits)
        if parts is None:
            continue
        is_dir = member.kind == "dir"
        size = 0 if is_dir else member.size
        total += size
        _check_total(member.raw, size, total, len(data), limits)
        entry = _Entry(member.raw, parts, is_dir, member.executable and not is_dir, size)
        places.take(entry)
        scan.entries.append(entry)
        if not is_dir and parts[-1] == MANIFEST and len(parts) <= 2:
            scan.manifests[parts] = _read_small(member)
    return scan


def _member_parts(member: _Member, count: int, limits: UploadLimits) -> tuple[str, ...] | None:
    """The checks of one entry on its own: its number, name, kind; its path
    inside the archive, or None for the archive's root folder (skipped)."""
    raw = member.raw
    if count > limits.max_files:
        raise UploadError(
            f"archive has more than {limits.max_files} entries ({raw!r} is entry {count}); "
            f"at most {limits.max_files} files and folders are expected"
        )
    parts = _normalise(raw, limits)
    if member.kind not in ("file", "dir"):
        raise UploadError(f"archive entry {raw!r} is {member.kind} (only regular files and folders are accepted)")
    is_dir = member.kind == "dir"
    if not parts:
        if is_dir:
            return None  # "./" in a tar made with `tar -C bot .`
        raise UploadError(f"archive entry {raw!r} is a file without a name (a path inside the archive is expected)")
    if member.problem and not is_dir:
        raise UploadError(f"archive entry {raw!r} {member.problem}")
    return parts


def _check_total(raw: str, size: int, total: int, upload: int, limits: UploadLimits) -> None:
    """The files so far (``total`` bytes, entry ``raw`` the last) within the
    limits on their sum and on how much the ``upload`` bytes inflate."""
    if total > limits.max_total_bytes:
        raise UploadError(
            f"archive entry {raw!r} is {_size(size)}, which brings the files to {_size(total)}; "
            f"at most {_size(limits.max_total_bytes)} in all is expected"
        )
    if total > _RATIO_FLOOR and total / upload > limits.max_ratio:
        raise UploadError(
            f"archive inflates from {_size(upload)} to {_size(total)} by entry {raw!r}, "
            f"a ratio of {total / upload:.0f}; at most {limits.max_ratio:g} is expected"
        )


@dataclass
class _Places:
    """The paths an archive's entries have taken so far: each path once, and
    never a file where another entry needs a folder (or the other way round)."""

    seen: dict[tuple[str, ...], _Entry] = field(default_factory=dict)
    files: set[tuple[str, ...]] = field(default_factory=set)
    dirs: set[tuple[str, ...]] = field(default_factory=set)  # declared, and every file's folders

    def take(self, entry: _Entry) -> None:
        raw, parts = entry.raw, entry.parts
        if parts in self.seen:
            raise UploadError(f"archive entry {raw!r} appears twice (as {self.seen[parts].raw!r} before); "
                              "each path once is expected")
        for i in range(1, len(parts)):
            if parts[:i] in self.files:
                raise UploadError(
                    f"archive entry {raw!r} is inside {'/'.join(parts[:i])!r}, which is a file; a folder is expected there"
                )
        if not entry.is_dir and parts in self.dirs:
            raise UploadError(f"archive entry {raw!r} is a file where other entries need a folder; a folder is expected there")
        self.seen[parts] = entry
        (self.dirs if entry.is_dir else self.files).add(parts)
        self.dirs.update(parts[:i] for i in range(1, len(parts)))


def _read_small(member: _Member) -> bytes | int:
    """A candidate manifest's bytes, or its size when it is too big to read."""
    if member.size > MAX_MANIFEST_BYTES:
        return member.size
    assert member.open is not None
    out = bytearray()
    for chunk in member.open():
        out += chunk
        if len(out) > MAX_MANIFEST_BYTES:
            return len(out)
    return bytes(out)


def _prefix(entries: list[_Entry]) -> int:
    """1 when one top-level folder wraps everything (a zipped folder), else 0."""
    tops = {e.parts[0] for e in entries}
    if len(tops) != 1:
        return 0
    top = next(iter(tops))
    if any(e.parts == (top,) and not e.is_dir for e in entries):
        return 0
    return 1 if any(len(e.parts) > 1 for e in entries) else 0


def _skipped(parts: tuple[str, ...]) -> bool:
    # Finder's zip adds resource forks beside the folder; they would stop the
    # folder from being stripped and are never part of a bot.
    return parts[0] == "__MACOSX"


# -- the manifest ------------------------------------------------------------

_KEYS = ("run", "build", "name", "game")


def _split(command: str, key: str) -> list[str]:
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise UploadError(f"arena.toml key {key!r} is {command!r}, which cannot be split into words ({exc}); a command line is expected") from None
    if not words:
        raise UploadError(f"arena.toml key {key!r} is empty; a command line like {_MANIFEST_EXAMPLE} is expected")
    return words


def _check_words(words: list[str], what: str) -> None:
    for word in words:
        if word.startswith("/"):
            raise UploadError(f"{what} word {word!r} is an absolute path; a path inside the bot's folder is expected")
        if ".." in word:
            raise UploadError(f"{what} word {word!r} contains '..'; a path inside the bot's folder is expected")


def _parse_manifest(content: bytes | int, where: str) -> BotManifest:
    if isinstance(content, int):
        raise UploadError(f"{where} is {_size(content)}; at most {_size(MAX_MANIFEST_BYTES)} is expected")
    try:
        table = tomllib.loads(content.decode("utf-8"))
    except UnicodeDecodeError:
        raise UploadError(f"{where} is not UTF-8 text; a TOML file like {_MANIFEST_EXAMPLE} is expected") from None
    except tomllib.TOMLDecodeError as exc:
        raise UploadError(f"{where} is not valid TOML ({exc}); a TOML file like {_MANIFEST_EXAMPLE} is expected") from None
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        names = ", ".join(repr(k) for k in unknown)
        raise UploadError(f"{where} has unknown key(s) {names}; the keys are run, build, name and game")
    for key, value in table.items():
        if not isinstance(value, str):
            raise UploadError(f"{where} key {key!r} is {_a(value)}; a string is expected")
        if _CONTROL.search(value):
            raise UploadError(f"{where} key {key!r} contains a control character; one line of plain text is expected")
        if len(value) > MAX_COMMAND:
            raise UploadError(f"{where} key {key!r} is {len(value)} characters long; at most {MAX_COMMAND} is expected "
                              "(a longer build belongs in a script inside the archive)")
    if "run" not in table:
        raise UploadError(f"{where} has no 'run' key; at least {_MANIFEST_EXAMPLE} is expected")
    run, build = table["run"], table.get("build")
    _check_words(_split(run, "run"), "arena.toml key 'run':")
    if build is not None:
        _split(build, "build")
    name, game = table.get("name"), table.get("game")
    if name is not None and not _BOT_NAME.fullmatch(name):
        raise UploadError(
            f"{where} key 'name' is {name!r}; 1 to 40 letters, digits and _ . - starting with a letter or digit is expected"
        )
    if game is not None and not _GAME_ID.fullmatch(game):
        raise UploadError(f"{where} key 'game' is {game!r}; a game id (a-z, 0-9, _) is expected")
    return BotManifest(name=name, game=game, run=run, build=build)


def _manifest(scan: _Scan, strip: int) -> BotManifest:
    key = scan.entries[0].parts[:strip] + (MANIFEST,) if scan.entries else (MANIFEST,)
    if key not in scan.manifests:
        shown = sorted({e.parts[strip] + ("/" if e.is_dir or len(e.parts) > strip + 1 else "") for e in scan.entries if len(e.parts) > strip})
        found = ", ".join(repr(s) for s in shown[:5]) + (", ..." if len(shown) > 5 else "")
        received = f"found {found}" if found else "it is empty"
        raise UploadError(
            f"archive has no {MANIFEST} at its top ({received}); an archive needs "
            f"{MANIFEST} with at least run = \"...\", e.g. {_MANIFEST_EXAMPLE}"
        )
    return _parse_manifest(scan.manifests[key], "/".join(key))


def _check_run_target(manifest: BotManifest, entries: list[_Entry], strip: int) -> None:
    """Without a build step, a run command that names a file must find it,
    executable, and any other word that looks like a path (has a '/') must be
    in the archive: the bot is shown its own files and nothing else."""
    if manifest.build is not None:
        return
    words = shlex.split(manifest.run)
    first = words[0]
    names = {tuple(p for p in e.parts[strip:]) for e in entries}
    names |= {e.parts[strip:k] for e in entries for k in range(strip, len(e.parts))}  # their folders, and the top
    for word in words[1:]:
        if "/" in word and not word.startswith("-") and tuple(p for p in word.split("/") if p not in ("", ".")) not in names:
            raise UploadError(_not_in_archive(f"arena.toml run command {manifest.run!r}:", word))
    if "/" not in first:
        return
    target = tuple(p for p in first.split("/") if p not in ("", "."))
    found = next((e for e in entries if e.parts[strip:] == target), None)
    if found is None or found.is_dir:
        raise UploadError(
            f"arena.toml run command {manifest.run!r} starts with {first!r}, which is not a file in the archive; "
            "a program in the archive, or a build command that makes it, is expected"
        )
    if not found.executable:
        raise UploadError(
            f"arena.toml run command {manifest.run!r} starts with {first!r}, which the archive does not mark executable "
            f"(entry {found.raw!r}); chmod +x it before packing, or run it through its interpreter"
        )


# -- writing -----------------------------------------------------------------


def _inside(dest: Path, parts: tuple[str, ...]) -> Path:
    target = dest.joinpath(*parts)
    if not target.resolve().is_relative_to(dest.resolve()):
        # Unreachable after _normalise; kept because writing is where it matters.
        raise UploadError(f"archive entry {'/'.join(parts)!r} leaves the bot's folder (a path inside the archive is expected)")
    return target


def _make_dirs(dest: Path, parts: tuple[str, ...]) -> None:
    path = dest
    for part in parts:
        path = path / part
        try:
            path.mkdir(mode=0o755)
        except FileExistsError:
            if not stat.S_ISDIR(path.lstat().st_mode):
                raise
            continue
        path.chmod(0o755)  # mkdir's mode is filtered by the umask


def _write_archive(kind: str, data: bytes, dest: Path, scan: _Scan, strip: int, limits: UploadLimits) -> list[str]:
    wanted = iter(scan.entries)
    written: list[str] = []
    total = 0
    for member in _members(kind, data, limits):
        # The second pass sees the same bytes, so the same entries, minus the
        # ones the scan skipped (root folders).
        if not _normalise(member.raw, limits):
            continue
        entry = next(wanted)
        parts = entry.parts[strip:]
        if not parts or _skipped(entry.parts):
            continue
        if entry.is_dir:
            _make_dirs(dest, parts)
            continue
        _make_dirs(dest, parts[:-1])
        target = _inside(dest, parts)
        got = 0
        assert member.open is not None
        with open(target, "xb") as out:
            os.fchmod(out.fileno(), 0o755 if entry.executable else 0o644)
            for chunk in member.open():
                got += len(chunk)
                total += len(chunk)
                if got > entry.size or total > limits.max_total_bytes:
                    raise UploadError(
                        f"archive entry {entry.raw!r} holds more than the {_size(entry.size)} its header declares; "
                        "an archive whose headers match its contents is expected"
                    )
                out.write(chunk)
        if got != entry.size:
            raise UploadError(
                f"archive entry {entry.raw!r} holds {_size(got)}, not the {_size(entry.size)} its header declares; "
                "an archive whose headers match its contents is expected"
            )
        written.append("/".join(parts))
    return sorted(written)


def unpack(data: bytes, filename: str, dest: Path, limits: UploadLimits = UploadLimits()) -> Unpacked:
    """Check everything, then write the files under dest (which must not exist yet; created 0o700). On any error raise UploadError and leave NOTHING behind (dest removed).

    A dest that already exists raises FileExistsError and is left as it is. With
    ``limits.keep_free``, an upload that would leave less free on dest's disk
    raises NoRoomForUpload before anything is written.
    """
    dest = Path(dest)
    if os.path.lexists(dest):
        # The caller's mistake, not the author's: never remove what we did not make.
        raise FileExistsError(f"{dest} already exists; unpack needs a new folder")
    kind = inspect_upload(data, filename, limits)
    digest = hashlib.sha256(data).hexdigest()
    if kind == "file":
        name = _file_name(filename, limits)
        manifest = _single_manifest(name, data)
    else:
        scan = _scan(kind, data, limits)
        kept = [e for e in scan.entries if not _skipped(e.parts)]
        strip = _prefix(kept)
        manifest = _manifest(_Scan(kept, scan.manifests), strip)
        _check_run_target(manifest, kept, strip)

    if limits.keep_free:
        sizes = [len(data)] if kind == "file" else [e.size for e in kept if not e.is_dir]
        _check_room(dest.parent, footprint(len(data), sizes), limits.keep_free)
    dest.mkdir(mode=0o700)
    try:
        dest.chmod(0o700)
        if kind == "file":
            with open(_inside(dest, (name,)), "xb") as out:
                os.fchmod(out.fileno(), 0o755)
                out.write(data)
            files = [name]
        else:
            files = _write_archive(kind, data, dest, scan, strip, limits)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    return Unpacked(kind=kind, sha256=digest, files=files, manifest=manifest)


#: what a file costs its filesystem beyond its bytes, at most: the rest of its last block
_BLOCK = 4096


def footprint(upload: int, files: list[int]) -> int:
    """Bytes of disk an upload of ``upload`` bytes takes once stored: its ``files``
    unpacked and the upload kept as sent, each rounded up to whole blocks."""
    return sum(-(-n // _BLOCK) * _BLOCK + _BLOCK for n in [upload, *files])


def _check_room(folder: Path, need: int, keep_free: int) -> None:
    """Raise NoRoomForUpload when writing ``need`` bytes under ``folder`` would leave less than ``keep_free``."""
    try:
        st = os.statvfs(folder)
    except OSError:
        return  # the write itself will say what is wrong
    free = st.f_bavail * st.f_frsize
    if free - need >= keep_free:
        return
    spare = max(0, free - keep_free)
    raise NoRoomForUpload(
        f"this upload needs about {_size(need)} of the league's disk (its files unpacked and the upload kept "
        f"as sent), and only {_size(spare)} are free above the {_size(keep_free)} the league keeps free; "
        "nothing of it was kept, and the league goes on: a smaller bot fits, or send it again once the "
        "organiser has made room")


# -- running -----------------------------------------------------------------


def run_argv(manifest: BotManifest, folder: Path) -> list[str]:
    """The run command as an argv: each word that names a file or folder of the
    bot's `folder` made absolute (these are all the bot's own files the sandbox
    shows it: the league passes it the folder), every other word kept as text
    for the bot, never looked up anywhere else. The first word is a file in the
    folder (./bot, build/bot) or a program name without '/' (python3, node, sh,
    mono). Raises UploadError for a word that is an absolute path, contains
    '..', names something outside `folder` (a link a build made), or looks
    like a path (has a '/') but names nothing in the folder."""
    what = f"run command {manifest.run!r}:"
    if _CONTROL.search(manifest.run):
        raise UploadError(f"{what} contains a control character; one line of plain text is expected")
    words = _split(manifest.run, "run")
    _check_words(words, what)
    root = Path(folder).resolve()
    argv: list[str] = []
    for i, word in enumerate(words):
        if i == 0 and word and "/" not in word:
            argv.append(word)  # a program on PATH
            continue
        path = root / word
        if not word or word.startswith("-") or not os.path.lexists(path):
            if i == 0:
                raise UploadError(f"{what} {word!r} is not a file in the bot's folder; a program there or a name on PATH is expected")
            if "/" in word and not word.startswith("-"):
                raise UploadError(_not_in_archive(what, word))
            argv.append(word)  # text for the bot, not a file
            continue
        # resolve() follows links a build step may have made.
        real = path.resolve()
        if not real.is_relative_to(root):
            raise UploadError(f"{what} word {word!r} names {str(real)!r}, outside the bot's folder; a path inside it is expected")
        if i == 0 and not real.is_file():
            raise UploadError(f"{what} {word!r} is not a file in the bot's folder; a program there or a name on PATH is expected")
        argv.append(str(real))
    return argv


def _not_in_archive(what: str, word: str) -> str:
    return (f"{what} word {word!r} names no file or folder of the bot's archive, and the bot is shown "
            "nothing else; a path inside the archive, or plain text (an argument without '/'), is expected")


# -- storage -----------------------------------------------------------------


class BlobStore:
    """Content-addressed storage of uploads: root/ab/abcdef... (sha256 hex), dirs 0o700, files 0o600, written atomically (temp file + rename); put() of the same bytes twice stores one copy."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        _private_dir(self.root, parents=True)

    def put(self, data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        final = self.path(digest)
        if final.is_file():
            return digest
        _private_dir(final.parent)
        # mkstemp makes the file 0o600; a reader never sees it half written.
        fd, tmp = tempfile.mkstemp(dir=final.parent, prefix=".incoming-")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, final)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        return digest

    def path(self, sha256: str) -> Path:
        if not isinstance(sha256, str) or not _HEX64.fullmatch(sha256):
            raise UploadError(f"blob id {sha256!r} is not a sha256; 64 lowercase hex digits are expected")
        return self.root / sha256[:2] / sha256

    def get(self, sha256: str) -> bytes:
        return self.path(sha256).read_bytes()


def _private_dir(path: Path, parents: bool = False) -> None:
    try:
        path.mkdir(mode=0o700, parents=parents)
    except FileExistsError:
        return
    path.chmod(0o700)  # mkdir's mode is filtered by the umask

