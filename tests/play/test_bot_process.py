"""A bot process, beyond the fault kinds: what the arena keeps of its
stderr, the processes it leaves behind, and its time budget (kuhn3, through
the real CLI; the fault kinds of every game are tests/play/test_misbehaving_bots.py).
"""

from __future__ import annotations

import re
import time

import pytest

from arena.play._bot import DEFAULT_STDERR_CAP, PAST_CAP_RATE

from ..conftest import processes_with, python_bot, replay_key, run_json


def test_crash_report_carries_the_stderr_tail(tag):
    bad = python_bot("misbehave.py", "crash", tag)
    good = python_bot("misbehave.py", "none", tag)
    proc, result = run_json("kuhn3", good, bad, good, "--seed", replay_key("1"), "--hands", "2")
    assert proc.returncode == 1
    assert "something went wrong in my bot" in result["faults"][0]["stderr_tail"]
    assert "something went wrong in my bot" in proc.stderr
    assert processes_with(tag) == []


def test_stderr_flood_is_capped_and_the_round_completes(tag, tmp_path):
    flood = python_bot("misbehave.py", "stderr_flood", tag)
    good = python_bot("misbehave.py", "none", tag)
    proc, result = run_json(
        "kuhn3", flood, good, good, "--seed", replay_key("2"), "--hands", "20", "--log-dir", str(tmp_path)
    )
    assert proc.returncode == 0, proc.stderr
    assert result["completed"] is True and result["faults"] == []
    log = tmp_path / "seat0.stderr.log"
    size = log.stat().st_size
    assert 1024 * 1024 <= size < 1024 * 1024 + 200  # the cap plus the closing note
    assert log.read_bytes().endswith(b"more bytes dropped]\n")
    assert processes_with(tag) == []


def test_a_bot_that_floods_stderr_is_read_at_a_bounded_rate_past_the_cap(tag, tmp_path):
    """Drained as fast as it was written, a flood cost the arena more CPU than the
    match itself (1.6 s in 1.9 s); past the cap it is taken at PAST_CAP_RATE, and
    the bot, whose writes then wait on the pipe, pays for the rest."""
    flood = python_bot("misbehave.py", "stderr_flood_forever", tag)
    good = python_bot("misbehave.py", "none", tag)
    started = time.monotonic()
    proc, result = run_json("kuhn3", flood, good, good, "--hands", "300", "--log-dir", str(tmp_path))
    elapsed = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    note = re.search(rb"stderr capped at (\d+) bytes; (\d+) more bytes dropped", (tmp_path / "seat0.stderr.log").read_bytes())
    assert note, "the flood did not pass the cap"
    taken = int(note[1]) + int(note[2])
    # At most the cap, the rate over the whole run (an upper bound), and one read.
    assert taken <= DEFAULT_STDERR_CAP + PAST_CAP_RATE * elapsed + 65536, (taken, elapsed)
    assert processes_with(tag) == []


@pytest.mark.parametrize("then", ["none", "silent"])
def test_grandchild_ignoring_sigterm_is_killed(then, tag):
    # The grandchild carries the tag too: it must be gone when the arena exits,
    # both after a normal end and after a fault.
    parent = python_bot("misbehave.py", "grandchild", tag)
    other = python_bot("misbehave.py", then, tag)
    good = python_bot("misbehave.py", "none", tag)
    proc, result = run_json("kuhn3", parent, other, good, "--seed", replay_key("3"), "--hands", "2", "--timeout", "0.5")
    assert proc.returncode == (0 if then == "none" else 1), proc.stderr
    assert processes_with(tag) == []


def test_budget_is_the_total_time_a_bot_may_think(tag):
    sluggish = python_bot("misbehave.py", "sluggish", tag)
    good = python_bot("misbehave.py", "none", tag)
    proc, result = run_json(
        "kuhn3", good, sluggish, good, "--seed", replay_key("8"), "--hands", "50", "--timeout", "1", "--budget", "0.5"
    )
    assert proc.returncode == 1, proc.stderr
    (fault,) = result["faults"]
    assert fault["seat"] == 1 and fault["kind"] == "timeout"
    assert "used up its time budget of 0.5 s" in fault["detail"]
    # Each reply takes at least 0.2 s after its message, and a seat's clock
    # starts before its message is written (on both paths), so two of them
    # were charged in full before the budget ran out. No upper bound: on a busy
    # machine the arena may wake late, and a reply it then finds waiting is
    # taken and charged as it stands.
    assert result["seats"][1]["time_used"] >= 0.4
    assert processes_with(tag) == []
