"""Bot uploads are hostile: real archives, built here (by hand where zipfile
and tarfile refuse), unpacked for real; every rejection leaves nothing behind
and names what it refused."""

from __future__ import annotations

import hashlib
import io
import os
import stat
import struct
import tarfile
import tempfile
import tracemalloc
import warnings
import zipfile
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.league._uploads import (
    BlobStore,
    BotManifest,
    UploadError,
    UploadLimits,
    inspect_upload,
    run_argv,
    unpack,
)

MB = 2**20
DEFAULTS = UploadLimits()
TOML = b'name = "rule-bot"\ngame = "kuhn3"\nrun = "./build/bot --fast"\nbuild = "gcc -O2 -o build/bot bot.c"\n'
SCRIPT_TOML = b'run = "./bot.sh"\n'


# -- building archives ---------------------------------------------------------


def make_zip(entries, *, method=zipfile.ZIP_DEFLATED) -> bytes:
    """entries: (name, bytes or None for a folder, unix mode or None)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns on the duplicates we mean
        for name, content, mode in entries:
            info = zipfile.ZipInfo(name)
            info.compress_type = method
            if mode is not None:
                info.external_attr = mode << 16
            if content is None and not name.endswith("/"):
                content = b""
            zf.writestr(info, content or b"")
    return buf.getvalue()


def tar_info(name, size=0, kind=tarfile.REGTYPE, mode=0o644, link="") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size, info.type, info.mode, info.linkname = size, kind, mode, link
    return info


def make_tgz(entries) -> bytes:
    """entries: (name, bytes or None for a folder, mode) or a TarInfo (no data)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for entry in entries:
            if isinstance(entry, tarfile.TarInfo):
                tf.addfile(entry)
                continue
            name, content, mode = entry
            if content is None:
                tf.addfile(tar_info(name, kind=tarfile.DIRTYPE, mode=mode or 0o755))
            else:
                tf.addfile(tar_info(name, len(content), mode=mode or 0o644), io.BytesIO(content))
    return buf.getvalue()


def gzip_stream(head: bytes, zeros: int, tail: bytes = b"") -> bytes:
    """head + `zeros` zero bytes + tail, gzipped a megabyte at a time so the
    test never holds the inflated size."""
    z = zlib.compressobj(1, zlib.DEFLATED, 31)
    out = [z.compress(head)]
    chunk = bytes(MB)
    left = zeros
    while left:
        step = min(left, MB)
        out.append(z.compress(chunk[:step]))
        left -= step
    out.append(z.compress(tail))
    out.append(z.flush())
    return b"".join(out)


def make(kind, entries) -> bytes:
    if kind == "zip":
        return make_zip([(n, c, m) for n, c, m in entries])
    return make_tgz(entries)


def tree(root: Path) -> dict[str, int]:
    """Every path under root with its permission bits."""
    return {
        str(p.relative_to(root)): stat.S_IMODE(p.lstat().st_mode) for p in sorted(root.rglob("*"))
    }


def rejected(data, dest, *needles, filename="bot.zip", limits=DEFAULTS) -> str:
    with pytest.raises(UploadError) as info:
        unpack(data, filename, dest, limits)
    message = str(info.value)
    assert not os.path.lexists(dest), f"{dest} left behind after: {message}"
    for needle in needles:
        assert needle in message, f"{needle!r} not in {message!r}"
    return message


@pytest.fixture
def dest(tmp_path) -> Path:
    return tmp_path / "bot"


# -- single files --------------------------------------------------------------


def test_single_python_file(dest):
    data = b"print('fold')\n"
    got = unpack(data, "C:\\Users\\me\\my_bot.py", dest)
    assert got.kind == "file"
    assert got.sha256 == hashlib.sha256(data).hexdigest()
    assert got.files == ["my_bot.py"]
    assert got.manifest == BotManifest(name="my_bot", game=None, run="python3 my_bot.py", build=None)
    assert tree(dest) == {"my_bot.py": 0o755}
    assert stat.S_IMODE(dest.stat().st_mode) == 0o700
    assert (dest / "my_bot.py").read_bytes() == data


@pytest.mark.parametrize(
    "filename, data, run, name",
    [
        ("bot", b"#!/bin/sh\necho fold\n", "./bot", "bot"),
        ("rule_bot", b"\x7fELF\x02\x01\x01" + bytes(64), "./rule_bot", "rule_bot"),
        ("uploads/rule.js", b"console.log('x')", "node rule.js", "rule"),
        ("go.sh", b"echo fold", "sh go.sh", "go"),
        ("Bot.exe", b"MZ\x90\x00", "mono Bot.exe", "Bot"),
        ("_+x.py", b"pass\n", "python3 _+x.py", "x"),  # the name loses what it may not hold
    ],
)
def test_single_programs_and_scripts(dest, filename, data, run, name):
    got = unpack(data, filename, dest)
    base = filename.rsplit("/", 1)[-1]
    assert got.manifest.run == run
    assert got.manifest.name == name
    assert tree(dest) == {base: 0o755}


def test_single_file_name_that_sanitises_to_nothing(dest):
    assert unpack(b"pass\n", "_.py", dest).manifest.name is None


def test_single_file_that_is_no_program(dest):
    rejected(b"just some notes\n", dest, "'notes.txt'", "neither a program nor a known script type", filename="notes.txt")


def test_uncompressed_tar_is_named(dest):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tf:
        tf.addfile(tar_info("x", 1), io.BytesIO(b"x"))
    rejected(raw.getvalue(), dest, "'bot.tar'", "uncompressed .tar", filename="bot.tar")


@pytest.mark.parametrize("filename", ["my bot.py", "..", ".hidden", "", "dir/", "bot\x00.py", "bøt.py", "x" * 201])
def test_single_file_bad_names(dest, filename):
    rejected(b"#!/bin/sh\n", dest, repr(filename), "plain file name", filename=filename)
    with pytest.raises(UploadError):
        inspect_upload(b"#!/bin/sh\n", filename)


def test_empty_upload(dest):
    rejected(b"", dest, "'bot.py'", "empty", filename="bot.py")


def test_oversized_upload(dest):
    data = b"#!" + bytes(int(9.1 * MB) - 2)
    msg = rejected(data, dest, filename="bot")
    assert msg == "upload is 9.1 MB; the limit is 8 MB"
    with pytest.raises(UploadError, match="9.1 MB"):
        inspect_upload(data, "bot")


def test_inspect_goes_by_magic_not_name():
    assert inspect_upload(make_zip([("a", b"a", None)]), "bot.tar.gz") == "zip"
    assert inspect_upload(b"PK\x05\x06" + bytes(18), "x") == "zip"
    assert inspect_upload(make_tgz([("a", b"a", None)]), "bot.zip") == "tar.gz"
    assert inspect_upload(b"#!/bin/sh\n", "bot.zip") == "file"


def test_dest_that_exists_is_never_touched(tmp_path):
    dest = tmp_path / "taken"
    dest.mkdir()
    (dest / "keep").write_text("mine")
    with pytest.raises(FileExistsError):
        unpack(b"#!/bin/sh\n", "bot", dest)
    assert (dest / "keep").read_text() == "mine"


# -- good archives -------------------------------------------------------------


C_BOT = [
    ("arena.toml", TOML, None),
    ("bot.c", b"int main(void) { return 0; }\n", None),
    ("lib/", None, None),
    ("lib/cards.h", b"#define N 3\n", None),
    ("tools/gen.py", b"#!/usr/bin/env python3\n", 0o100755),
]


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_good_archive_with_manifest_and_build(dest, kind):
    data = make(kind, C_BOT)
    got = unpack(data, "whatever.bin", dest)
    assert got.kind == kind
    assert got.sha256 == hashlib.sha256(data).hexdigest()
    assert got.files == ["arena.toml", "bot.c", "lib/cards.h", "tools/gen.py"]
    assert got.manifest == BotManifest(
        name="rule-bot", game="kuhn3", run="./build/bot --fast", build="gcc -O2 -o build/bot bot.c"
    )
    # executable bits kept; folders, explicit or implied, 0o755; dest private
    assert tree(dest) == {
        "arena.toml": 0o644,
        "bot.c": 0o644,
        "lib": 0o755,
        "lib/cards.h": 0o644,
        "tools": 0o755,
        "tools/gen.py": 0o755,
    }
    assert stat.S_IMODE(dest.stat().st_mode) == 0o700
    assert (dest / "lib" / "cards.h").read_bytes() == b"#define N 3\n"


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_wrapping_folder_is_stripped(dest, kind):
    data = make(
        kind,
        [
            ("mybot/", None, None),
            ("mybot/arena.toml", SCRIPT_TOML, None),
            ("mybot/bot.sh", b"#!/bin/sh\n", 0o100755),
            ("mybot/data/w.txt", b"1 2 3", None),
        ],
    )
    got = unpack(data, "mybot.zip", dest)
    assert got.files == ["arena.toml", "bot.sh", "data/w.txt"]
    assert tree(dest) == {"arena.toml": 0o644, "bot.sh": 0o755, "data": 0o755, "data/w.txt": 0o644}
    assert got.manifest.run == "./bot.sh"
    assert run_argv(got.manifest, dest) == [str((dest / "bot.sh").resolve())]


def test_tar_of_dot_and_macos_forks(dest):
    # `tar -C bot -czf bot.tgz .` names entries ./x; Finder adds __MACOSX/.
    data = make_tgz([("./", None, None), ("./arena.toml", b'run = "python3 bot.py"', None), ("./bot.py", b"pass", None)])
    assert unpack(data, "bot.tgz", dest).files == ["arena.toml", "bot.py"]
    zipped = make_zip(
        [
            ("mybot/arena.toml", b'run = "python3 bot.py"', None),
            ("mybot/bot.py", b"pass", None),
            ("__MACOSX/mybot/._bot.py", b"\x00\x05\x16\x07", None),
        ]
    )
    other = dest.parent / "other"
    assert unpack(zipped, "bot.zip", other).files == ["arena.toml", "bot.py"]
    assert not (other / "__MACOSX").exists()


def test_two_top_folders_are_kept(dest):
    data = make_zip([("arena.toml", b'run = "python3 src/bot.py"', None), ("src/bot.py", b"pass", None)])
    assert unpack(data, "b.zip", dest).files == ["arena.toml", "src/bot.py"]


def test_empty_zip_needs_a_manifest(dest):
    rejected(b"PK\x05\x06" + bytes(18), dest, "arena.toml", "it is empty", 'run = "..."')


# -- hostile names -------------------------------------------------------------


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
@pytest.mark.parametrize(
    "name, why",
    [
        ("../x", "leaves the bot's folder"),
        ("a/../../x", "leaves the bot's folder"),
        ("ok/../x", "leaves the bot's folder"),
        ("/etc/passwd", "absolute path"),
        ("..\\..\\x", "backslash"),
        ("a\\b", "backslash"),
        ("a\x01b", "control character"),
        ("a\nb", "control character"),
        ("my file.py", "character other than"),
        ("bøt.py", "character other than"),
        ("d/" * 100 + "x", "characters long"),
    ],
)
def test_bad_entry_names(dest, kind, name, why):
    data = make(kind, [("arena.toml", b'run = "sh x"', None), (name, b"evil", None)])
    msg = rejected(data, dest, repr(name), why)
    assert msg.startswith(f"archive entry {name!r} ")


def test_zip_name_with_nul(dest):
    # zipfile cuts a name at NUL when writing, so patch the bytes in.
    data = make_zip([("arena.toml", b'run = "sh x"', None), ("xAy.sh", b"evil", None)])
    data = data.replace(b"xAy.sh", b"x\x00y.sh")
    rejected(data, dest, repr("x\x00y.sh"), "control character")


def test_traversal_message_reads_well(dest):
    data = make_zip([("arena.toml", b'run = "sh x"', None), ("../evil", b"x", None)])
    msg = rejected(data, dest)
    assert msg == "archive entry '../evil' leaves the bot's folder (a path inside the archive is expected)"


# -- hostile entry types -------------------------------------------------------


@pytest.mark.parametrize(
    "info, what",
    [
        (tar_info("link", kind=tarfile.SYMTYPE, link="/etc/passwd"), "symbolic link"),
        (tar_info("hard", kind=tarfile.LNKTYPE, link="arena.toml"), "hard link"),
        (tar_info("null", kind=tarfile.CHRTYPE), "device"),
        (tar_info("disk", kind=tarfile.BLKTYPE), "device"),
        (tar_info("pipe", kind=tarfile.FIFOTYPE), "fifo"),
    ],
)
def test_tar_links_and_devices(dest, info, what):
    data = make_tgz([("arena.toml", b'run = "sh x"', None), info])
    rejected(data, dest, repr(info.name), what, "only regular files and folders")


def test_zip_symlink_entry(dest):
    data = make_zip([("arena.toml", b'run = "sh x"', None), ("link", b"/etc/passwd", stat.S_IFLNK | 0o777)])
    rejected(data, dest, "'link'", "symbolic link")


def test_zip_fifo_entry(dest):
    data = make_zip([("arena.toml", b'run = "sh x"', None), ("pipe", b"", stat.S_IFIFO | 0o644)])
    rejected(data, dest, "'pipe'", "special file")


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_duplicate_entries(dest, kind):
    data = make(kind, [("arena.toml", b'run = "sh bot.sh"', None), ("bot.sh", b"a", None), ("./bot.sh", b"b", None)])
    rejected(data, dest, "'./bot.sh'", "appears twice", "'bot.sh'")


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_file_where_a_folder_is_needed(dest, kind):
    data = make(kind, [("arena.toml", b'run = "sh a"', None), ("a", b"a", None), ("a/b", b"b", None)])
    rejected(data, dest, "'a/b'", "which is a file")


def test_encrypted_and_bzip2_zip_entries(dest):
    data = make_zip([("arena.toml", b'run = "sh x"', None), ("x", b"x" * 100, None)], method=zipfile.ZIP_BZIP2)
    rejected(data, dest, "'arena.toml'", "compression method 12")
    plain = bytearray(make_zip([("arena.toml", b'run = "sh x"', None)], method=zipfile.ZIP_STORED))
    # set the "encrypted" flag in the local and central headers
    for sig, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = plain.index(sig) + offset
        plain[at] |= 1
    rejected(bytes(plain), dest, "'arena.toml'", "encrypted")


# -- sizes, counts, bombs ------------------------------------------------------


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_too_many_files(dest, kind):
    entries = [("arena.toml", b'run = "sh f0"', None)] + [(f"f{i}", b"", None) for i in range(1000)]
    rejected(make(kind, entries), dest, "more than 1000 entries", "'f999' is entry 1001")


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_total_too_big(dest, kind):
    noise = os.urandom(6000)  # incompressible: the total trips, not the ratio
    data = make(kind, [("arena.toml", b'run = "sh a"', None), ("a", noise, None), ("b", noise, None)])
    limits = UploadLimits(max_total_bytes=10_000)
    rejected(data, dest, "'b'", "11.7 KB", "at most 9.8 KB", limits=limits)
    assert unpack(data, "ok.zip", dest, UploadLimits(max_total_bytes=20_000)).files == ["a", "arena.toml", "b"]


def test_gzip_bomb_by_declared_size(dest):
    # 200 MB of zeros in one tar entry: ~0.9 MB gzipped, refused on its header.
    head = tar_info("zeros.bin", 200 * MB).tobuf(format=tarfile.GNU_FORMAT)
    data = gzip_stream(head, 200 * MB, bytes(1024))
    assert len(data) < 1.5 * MB
    tracemalloc.start()
    try:
        rejected(data, dest, "'zeros.bin'", "200 MB", "at most 64 MB", filename="bot.tgz")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * MB  # refused on the header: the zeros are never inflated


def test_gzip_bomb_in_a_header_is_cut_off_by_the_stream_bound(dest):
    # A 200 MB pax header: tarfile would read it whole; the bounded reader
    # stops it a little past the files' limit and never holds the rest.
    first = tar_info("arena.toml", 12)
    head = first.tobuf(format=tarfile.GNU_FORMAT) + b'run = "sh x"'.ljust(512, b"\0")
    head += tar_info("././@PaxHeader", 200 * MB, kind=tarfile.XHDTYPE).tobuf(format=tarfile.USTAR_FORMAT)
    data = gzip_stream(head, 200 * MB)
    limits = UploadLimits(max_total_bytes=4 * MB, max_files=10)
    tracemalloc.start()
    try:
        rejected(data, dest, "inflates to more than 4", "after entry 'arena.toml'", filename="bot.tgz", limits=limits)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * MB


def test_zip_bomb_by_ratio(dest):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        zf.writestr("arena.toml", b'run = "sh x"')
        with zf.open("zeros.bin", "w") as out:
            chunk = bytes(MB)
            for _ in range(50):
                out.write(chunk)
    data = buf.getvalue()
    assert len(data) < MB  # 50 MB inflated: under the total, far over the ratio
    rejected(data, dest, "'zeros.bin'", "ratio of", "at most 100 is expected")


def test_small_text_archives_may_compress_well(dest):
    text = b"x = 1\n" * 100_000  # 600 KB compressing ~300x: under the 1 MB floor
    data = make_zip([("arena.toml", b'run = "python3 a.py"', None), ("a.py", text, None)])
    assert len(text) / len(data) > 100
    assert unpack(data, "a.zip", dest).files == ["a.py", "arena.toml"]


def test_zip_header_that_lies_about_size(dest):
    # The central directory says 10 bytes; the entry holds 4000.
    big = b"A" * 4000
    data = bytearray(make_zip([("arena.toml", b'run = "sh x"', None), ("x", big, None)], method=zipfile.ZIP_STORED))
    central = data.index(b"PK\x01\x02", data.index(b"PK\x01\x02") + 1)
    assert data[central + 46 : central + 47] == b"x"
    data[central + 24 : central + 28] = struct.pack("<I", 10)
    rejected(bytes(data), dest, "'x'", "cannot be read")


def test_zip_header_that_lies_larger(dest):
    data = bytearray(make_zip([("arena.toml", b'run = "sh x"', None), ("x", b"A" * 100, None)], method=zipfile.ZIP_STORED))
    central = data.index(b"PK\x01\x02", data.index(b"PK\x01\x02") + 1)
    data[central + 24 : central + 28] = struct.pack("<I", 200)
    data[central + 20 : central + 24] = struct.pack("<I", 200)
    rejected(bytes(data), dest, "'x'")


def test_truncated_and_garbled_archives(dest):
    good = make_tgz(C_BOT)
    rejected(good[: len(good) // 2], dest, "cannot be read", ".tar.gz")
    rejected(b"\x1f\x8b" + os.urandom(200), dest, "cannot be read", ".tar.gz")
    zipped = make_zip(C_BOT)
    rejected(zipped[:-30], dest, "cannot be read", ".zip")


# -- the manifest ----------------------------------------------------------------


def test_missing_manifest(dest):
    data = make_zip([("bot.py", b"pass", None), ("lib/x.py", b"", None)])
    msg = rejected(data, dest, "arena.toml", "'bot.py'", "'lib/'", 'run = "..."')
    assert 'e.g. run = "python3 bot.py"' in msg


def test_manifest_in_a_subfolder_does_not_count(dest):
    data = make_zip([("bot.py", b"pass", None), ("sub/arena.toml", b'run = "x"', None)])
    rejected(data, dest, "no arena.toml at its top")


@pytest.mark.parametrize(
    "toml, needles",
    [
        (b'run = "sh x"\nlanguage = "c"\nzz = 1', ["'language'", "'zz'", "unknown key"]),
        (b"run = 5", ["'run'", "an integer", "a string is expected"]),
        (b'run = ["sh", "x"]', ["'run'", "an array"]),
        (b'run = "sh x"\nname = true', ["'name'", "a boolean"]),
        (b'run = "sh x"\nbuild = {cmd = "make"}', ["'build'", "a table"]),
        (b'run = "sh x"\ngame = 1979-05-27', ["'game'", "a date"]),
        (b'name = "x"', ["no 'run' key"]),
        (b'run = ""', ["'run'", "empty"]),
        (b'run = "sh \'x"', ["'run'", "cannot be split"]),
        (b'run = "/bin/sh x"', ["'run'", "'/bin/sh'", "absolute path"]),
        (b'run = "python3 ../x.py"', ["'run'", "'../x.py'", "'..'"]),
        (b'run = "sh x\\u0000"', ["'run'", "control character"]),
        (b'run = "sh x"\nname = "-x"', ["'name'", "'-x'"]),
        (b'run = "sh x"\ngame = "Kuhn 3"', ["'game'", "'Kuhn 3'"]),
        (b"run = 'sh x", ["not valid TOML"]),
        (b'run = "\xff"', ["not UTF-8"]),
        (b'# x\n' * 5000 + b'run = "sh x"', ["arena.toml", "19.5 KB", "at most 16 KB"]),
    ],
)
@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_bad_manifests(dest, kind, toml, needles):
    data = make(kind, [("arena.toml", toml, None), ("x", b"echo", None)])
    rejected(data, dest, *needles)


def test_run_target_must_be_in_the_archive_and_executable(dest):
    data = make_zip([("arena.toml", b'run = "./bot"', None), ("bot.c", b"", None)])
    rejected(data, dest, "'./bot'", "not a file in the archive")
    data = make_zip([("arena.toml", b'run = "./bot"', None), ("bot", b"#!/bin/sh\n", 0o100644)])
    rejected(data, dest, "'./bot'", "does not mark executable")


# -- run_argv --------------------------------------------------------------------


def test_run_argv_makes_files_absolute(tmp_path):
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "bot").write_bytes(b"")
    (tmp_path / "bot.py").write_bytes(b"")
    (tmp_path / "weights.bin").write_bytes(b"")
    root = tmp_path.resolve()

    def argv(run):
        return run_argv(BotManifest(name=None, game=None, run=run, build=None), tmp_path)

    assert argv("python3 bot.py --seed 5 weights.bin") == ["python3", f"{root}/bot.py", "--seed", "5", f"{root}/weights.bin"]
    assert argv("./build/bot --fast") == [f"{root}/build/bot", "--fast"]
    assert argv("build/bot") == [f"{root}/build/bot"]
    assert argv("node") == ["node"]
    assert argv("mono missing.exe") == ["mono", "missing.exe"]  # not a file: an argument


@pytest.mark.parametrize(
    "run, needle",
    [
        ("../x", "'../x'"),
        ("python3 ../bot.py", "'../bot.py'"),
        ("python3 x/../../bot.py", "'x/../../bot.py'"),
        ("/bin/sh bot.sh", "'/bin/sh'"),
        ("sh /etc/passwd", "'/etc/passwd'"),
        ("./missing", "'./missing'"),
        ("./build", "'./build'"),  # a folder, not a program
        ("./out", "'./out'"),  # a link a build made, pointing outside
        ("python3 out", "'out'"),
        ("", "empty"),
        ("'' x", "''"),
    ],
)
def test_run_argv_rejects(tmp_path, run, needle):
    folder = tmp_path / "bot"
    (folder / "build").mkdir(parents=True)
    (folder / "out").symlink_to("/bin/sh")
    with pytest.raises(UploadError) as info:
        run_argv(BotManifest(name=None, game=None, run=run, build=None), folder)
    assert needle in str(info.value)


# -- BlobStore -------------------------------------------------------------------


def test_blob_store(tmp_path):
    store = BlobStore(tmp_path / "blobs")
    data = b"#!/bin/sh\necho fold\n"
    first = store.put(data)
    assert first == hashlib.sha256(data).hexdigest()
    assert store.put(data) == first
    path = store.path(first)
    assert path == tmp_path / "blobs" / first[:2] / first
    assert store.get(first) == data
    files = [p for p in (tmp_path / "blobs").rglob("*") if p.is_file()]
    assert files == [path]  # one copy, no temp files left
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "blobs").stat().st_mode) == 0o700
    other = store.put(b"other")
    assert other != first and store.get(other) == b"other"


@pytest.mark.parametrize("bad", ["", "ab", "A" * 64, "g" * 64, "../" + "a" * 61, "a" * 64 + "\n", "a" * 65, None])
def test_blob_store_rejects_bad_ids(tmp_path, bad):
    store = BlobStore(tmp_path)
    with pytest.raises(UploadError):
        store.path(bad)
    with pytest.raises(UploadError):
        store.get(bad)


# -- fuzz ------------------------------------------------------------------------

_SEEDS = [make_zip(C_BOT), make_tgz(C_BOT), make_zip(C_BOT, method=zipfile.ZIP_STORED)]


@st.composite
def uploads(draw) -> bytes:
    how = draw(st.sampled_from(["raw", "magic", "mutated", "cut"]))
    if how == "raw":
        return draw(st.binary(max_size=600))
    if how == "magic":
        magic = draw(st.sampled_from([b"PK\x03\x04", b"PK\x05\x06", b"\x1f\x8b", b"\x1f\x8b\x08\x00", b"#!", b"\x7fELF"]))
        return magic + draw(st.binary(max_size=600))
    seed = bytearray(draw(st.sampled_from(_SEEDS)))
    if how == "cut":
        return bytes(seed[: draw(st.integers(0, len(seed)))])
    for _ in range(draw(st.integers(1, 8))):
        at = draw(st.integers(0, len(seed) - 1))
        seed[at] = draw(st.integers(0, 255))
    return bytes(seed)


@settings(max_examples=200, deadline=None)
@given(data=uploads(), filename=st.sampled_from(["bot.zip", "bot.py", "bot", "x y"]))
def test_fuzz_uploads_unpack_or_upload_error(data, filename):
    with tempfile.TemporaryDirectory() as tmp:
        dest = Path(tmp) / "bot"
        try:
            got = unpack(data, filename, dest)
        except UploadError as exc:
            assert str(exc)
            assert not os.path.lexists(dest)
        else:
            assert sorted(got.files) == got.files
            for name in got.files:
                assert (dest / name).resolve().is_relative_to(dest.resolve())
