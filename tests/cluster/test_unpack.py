"""Unpacking an artifact where tarfile has no "data" filter (Python before
3.11.4, such as Debian 12's 3.11.2): the same refusals, made by the arena."""

from __future__ import annotations

import io
import stat
import tarfile

import pytest

from arena.cluster._artifacts import ArtifactError, _extract


def _tar(*members: tuple[tarfile.TarInfo, bytes]) -> tarfile.TarFile:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        for info, data in members:
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    raw.seek(0)
    return tarfile.open(fileobj=raw, mode="r:gz")


def _entry(name: str, kind: bytes = tarfile.REGTYPE, link: str = "", mode: int = 0o644):
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, link, mode
    return info


@pytest.fixture
def no_filter(monkeypatch):
    monkeypatch.delattr(tarfile, "data_filter", raising=False)


@pytest.mark.parametrize(("entry", "words"), [
    (_entry("../escape"), "points outside its folder"),
    (_entry("/etc/cron.d/x"), "points outside its folder"),
    (_entry("bot/link", tarfile.SYMTYPE, "/etc/passwd"), "leads outside its folder"),
    (_entry("bot/link", tarfile.SYMTYPE, "../../x"), "leads outside its folder"),
    (_entry("bot/hard", tarfile.LNKTYPE, "../x"), "leads outside its folder"),
    (_entry("bot/fifo", tarfile.FIFOTYPE), "is not a file, folder or link"),
    (_entry("bot/dev", tarfile.CHRTYPE), "is not a file, folder or link"),
])
def test_what_the_data_filter_refuses_is_refused_without_it(no_filter, tmp_path, entry, words):
    with pytest.raises(ArtifactError, match=words):
        _extract(_tar((entry, b"x")), tmp_path)
    assert list(tmp_path.iterdir()) == []  # refused before anything is written


def test_files_links_inside_and_modes_come_out_as_the_filter_leaves_them(no_filter, tmp_path):
    tar = _tar((_entry("bot", tarfile.DIRTYPE, mode=0o755), b""),
               (_entry("bot/run", mode=0o6777), b"#!/bin/sh\n"),
               (_entry("bot/data", mode=0o666), b"1"),
               (_entry("bot/same", tarfile.SYMTYPE, "data"), b""))
    _extract(tar, tmp_path)
    run, data = tmp_path / "bot" / "run", tmp_path / "bot" / "data"
    assert stat.S_IMODE(run.stat().st_mode) == 0o755  # no set-id bits, no group or other write
    assert stat.S_IMODE(data.stat().st_mode) == 0o644
    assert (tmp_path / "bot" / "same").resolve() == data.resolve()
