"""Each entrant's data folder (``arena tournament --data-mb``): kept from one of its
matches to the next, its own alone, capped in size, copied out with
``--keep-data`` and unmounted at the end; refused in words where it cannot be
given."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ..conftest import PY, ROOT, run_arena

pytestmark = pytest.mark.slow

DATA_BOT = ROOT / "tests" / "bots" / "data_bot.py"
CHECK_FOLD = ROOT / "sample_bots" / "kuhn3" / "check_fold_bot.py"
#: compiled: a start costs a millisecond, not a Python's 0.1 s
NAIVE = ROOT / "sample_bots" / "vonneumann" / "build" / "naive"


def _mounts_under(folder: Path) -> list[str]:
    return [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()
            if line.split()[4].startswith(str(folder))]


@pytest.mark.parametrize("level", ["basic", "strict", "gvisor"])
def test_each_entrant_keeps_its_own_capped_folder_from_match_to_match(level, tmp_path):
    if os.geteuid() != 0:
        pytest.fail("--data-mb needs root, which make test has")
    kept = tmp_path / "kept"
    # Two rounds of a two-seat game, a process a match (vonneumann keeps one a tournament unless told).
    out = run_arena("tournament", "vonneumann", f"a={PY} {DATA_BOT} {NAIVE}", f"b={PY} {DATA_BOT} {NAIVE}",
                    "-p", "sessions=1", "--rounds", "2", "--lifetime", "match", "--seed", "4", "--sandbox", level,
                    "--data-mb", "2", "--keep-data", str(kept), "--db", str(tmp_path / "t.db"))
    assert out.returncode == 0, out.stderr
    # Four matches, four processes each: the count went on from one to the next.
    for entrant in ("a", "b"):
        assert (kept / entrant / "count").read_text() == "4", entrant
        n, filled, listed = (kept / entrant / "said").read_text().strip().split(" | ")
        assert n == "4" and filled == "No space left on device", (entrant, filled)
        assert listed == "['count', 'said']", listed  # its own files only, never another entrant's
    assert _mounts_under(tmp_path) == []  # every folder unmounted at the end


@pytest.mark.parametrize("options, words", [
    (["--jobs", "2"], "--data-mb plays one match at a time"),
    (["--sandbox", "none"], "--sandbox none has none"),
    (["--duplicate"], "cannot go with --duplicate"),
    (["--data-mb", "0"], "1 to 4096, not 0"),
])
def test_data_folders_are_refused_where_they_cannot_be_given(options, words, tmp_path):
    given = options if "--data-mb" in options else ["--data-mb", "2", *options]
    given += [] if "--sandbox" in options else ["--sandbox", "strict"]
    out = run_arena("tournament", "kuhn3", str(CHECK_FOLD), str(CHECK_FOLD), str(CHECK_FOLD), *given,
                    "--db", str(tmp_path / "t.db"))
    assert out.returncode == 2 and words in out.stderr, out.stderr
    assert not (tmp_path / "t.db").exists()  # refused before anything is stored


def test_keep_data_without_data_folders_is_refused(tmp_path):
    out = run_arena("tournament", "kuhn3", str(CHECK_FOLD), str(CHECK_FOLD), str(CHECK_FOLD), "--keep-data",
                    str(tmp_path / "k"), "--db", str(tmp_path / "t.db"))
    assert out.returncode == 2 and "give --data-mb too" in out.stderr, out.stderr
