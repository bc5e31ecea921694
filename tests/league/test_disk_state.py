"""The pieces of a league that heals itself, each on real things: a tournament's
lock on a real SQLite store, an upload checked against the room of a real
filesystem, errors as the arena's tasks raise them, said in one line."""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

import pytest

from arena.league._disk import DiskWatch, blocked_write, in_words, no_room
from arena.league._uploads import NoRoomForUpload, UploadLimits, footprint, unpack
from arena.results._store import StoreError, open_store

from .league_server import sample


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_tournament_lock_is_let_go_and_taken_again_without_a_descriptor_left(tmp_path):
    db = tmp_path / "league.db"
    with open_store(db) as store, open_store(db) as other:
        baseline = open_descriptors()
        for _ in range(5):  # as the league: played, stopped, played on, in one process
            store.lock_tournament(7)
            with pytest.raises(StoreError, match="another arena process"):
                other.lock_tournament(7)  # a second holder is still refused while it plays
            store.unlock_tournament(7)
        assert open_descriptors() == baseline
        other.lock_tournament(7)  # let go: another process may take it
        store.unlock_tournament(7)  # not held here: nothing to do
        other.unlock_tournament(7)
        assert open_descriptors() == baseline


def test_an_upload_that_would_take_the_disk_below_its_reserve_is_refused_before_anything_is_written(tmp_path):
    data = sample("random_bot.py")
    free = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize
    with pytest.raises(NoRoomForUpload) as refused:
        # (a reserve a gigabyte above what is free: other tests write and delete files meanwhile)
        unpack(data, "random_bot.py", tmp_path / "bot", UploadLimits(keep_free=free + 2**30))
    assert not (tmp_path / "bot").exists()
    sentence = str(refused.value)
    assert sentence.startswith("this upload needs about ") and "the league goes on" in sentence, sentence
    assert "\n" not in sentence
    # A write that failed for lack of room, to the league; the same upload fits a smaller reserve.
    assert no_room(refused.value) and refused.value.errno == errno.ENOSPC
    assert footprint(len(data), [len(data)]) >= 2 * len(data)
    unpacked = unpack(data, "random_bot.py", tmp_path / "bot", UploadLimits(keep_free=2**20))
    assert unpacked.files == ["random_bot.py"]


def test_a_full_or_read_only_disk_is_known_inside_the_groups_tasks_raise_and_said_in_one_line(tmp_path):
    full = OSError(errno.ENOSPC, "No space left on device")
    group = ExceptionGroup("Exceptions from Trio nursery", [RuntimeError("worker died"), full])
    assert no_room(group) and blocked_write(group) == "no room"
    db = sqlite3.connect(tmp_path / "x.db")
    db.execute("CREATE TABLE t (x)")
    db.close()
    ro = sqlite3.connect(f"file:{tmp_path / 'x.db'}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError) as refused:
        ro.execute("INSERT INTO t VALUES (1)")
    assert blocked_write(refused.value) == "a read-only disk" and not no_room(refused.value)
    assert blocked_write(RuntimeError("a bug")) is None
    line = in_words(ExceptionGroup("g", [ValueError("first\nsecond")]))
    assert line == "ValueError: first second"


def test_the_disk_state_says_one_sentence_per_change(tmp_path):
    said: list[str] = []
    watch = DiskWatch([tmp_path], min_free=1, log=said.append)
    assert watch.check() is None and said == []
    watch.failed(OSError(errno.ENOSPC, "No space left on device"), "tournament 3")
    assert watch.problem and "tournament 3 found no room" in watch.problem
    assert watch.check() is None  # twice one byte is free here: it resumes
    assert len(said) == 2 and all("\n" not in s for s in said), said
    assert watch.refusal("a submission") is None and watch.problem is None


def test_a_watch_whose_folder_cannot_be_written_names_it_and_resumes_once_it_can(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    watch = DiskWatch([folder], min_free=1, log=lambda _: None)
    watch.failed(sqlite3.OperationalError("attempt to write a readonly database"), "a write to the database")
    assert watch.problem and "cannot be written" in watch.problem
    assert watch.check() is None  # the folder takes a write: the state is over
    assert not list(Path(folder).iterdir())  # the probe left nothing
