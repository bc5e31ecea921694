"""A corpus of misbehaving bots, each played through the real CLI.

For each: the right fault kind, naming the right seat and bot, exit code 1
(or 0 where the misbehaviour is not a protocol fault), and afterwards no
process started by the test is left alive.
"""

from __future__ import annotations

import pytest

from .conftest import processes_with, python_bot, run_json

# mode -> (fault kind, words the detail or the received line must contain)
CASES = {
    "garbage": ("malformed_reply", "lol what is this"),
    "unknown_verb": ("malformed_reply", "unknown verb 'CALL'"),
    "illegal_amount": ("illegal_action", "above the maximum bet of 2"),
    "wrong_money": ("illegal_action", "wrong totals"),
    "wrong_closing": ("malformed_reply", "Thanks, bye"),
    "silent": ("timeout", "no reply within 0.5 s"),
    "slow": ("timeout", "no reply within 0.5 s"),
    "exit_mid": ("disconnected", "exited (code 0)"),
    "crash": ("crashed", "exited with code 3"),
    "signal": ("crashed", "killed by SIGSEGV"),
    "close_stdout": ("disconnected", "closed its stdout"),
    "huge_line": ("malformed_reply", "without a newline"),
    "bad_utf8": ("malformed_reply", "not valid UTF-8"),
}


def fault_text(fault: dict) -> str:
    return f"{fault['detail']} {fault['received']}"


@pytest.mark.parametrize("mode", sorted(CASES))
def test_fault_is_typed_and_names_the_seat(mode, tag):
    kind, words = CASES[mode]
    seat = sorted(CASES).index(mode) % 3  # every seat gets some of the corpus
    good = python_bot("misbehave.py", "none", tag)
    bad = python_bot("misbehave.py", mode, tag)
    bots = [good, good, good]
    bots[seat] = bad
    proc, result = run_json("kuhn3", *bots, "--seed", "5", "--hands", "3", "--timeout", "0.5")

    assert proc.returncode == 1, proc.stderr
    assert result["completed"] is False
    assert len(result["faults"]) == 1
    fault = result["faults"][0]
    assert fault["kind"] == kind
    assert fault["seat"] == seat
    assert fault["bot"] == bad
    assert words in fault_text(fault)
    assert fault["expected"]
    # The human report names the seat and the kind too.
    assert f"seat {seat}" in proc.stderr and kind in proc.stderr
    assert processes_with(tag) == []


def test_crash_report_carries_the_stderr_tail(tag):
    bad = python_bot("misbehave.py", "crash", tag)
    good = python_bot("misbehave.py", "none", tag)
    proc, result = run_json("kuhn3", good, bad, good, "--seed", "1", "--hands", "2")
    assert proc.returncode == 1
    assert "something went wrong in my bot" in result["faults"][0]["stderr_tail"]
    assert "something went wrong in my bot" in proc.stderr
    assert processes_with(tag) == []


def test_stderr_flood_is_capped_and_the_round_completes(tag, tmp_path):
    flood = python_bot("misbehave.py", "stderr_flood", tag)
    good = python_bot("misbehave.py", "none", tag)
    proc, result = run_json(
        "kuhn3", flood, good, good, "--seed", "2", "--hands", "20", "--log-dir", str(tmp_path)
    )
    assert proc.returncode == 0, proc.stderr
    assert result["completed"] is True and result["faults"] == []
    log = tmp_path / "seat0.stderr.log"
    size = log.stat().st_size
    assert 1024 * 1024 <= size < 1024 * 1024 + 200  # the cap plus the closing note
    assert log.read_bytes().endswith(b"more bytes dropped]\n")
    assert processes_with(tag) == []


@pytest.mark.parametrize("then", ["none", "silent"])
def test_grandchild_ignoring_sigterm_is_killed(then, tag):
    # The grandchild carries the tag too: it must be gone when the arena exits,
    # both after a normal end and after a fault.
    parent = python_bot("misbehave.py", "grandchild", tag)
    other = python_bot("misbehave.py", then, tag)
    good = python_bot("misbehave.py", "none", tag)
    proc, result = run_json("kuhn3", parent, other, good, "--seed", "3", "--hands", "2", "--timeout", "0.5")
    assert proc.returncode == (0 if then == "none" else 1), proc.stderr
    assert processes_with(tag) == []


def test_budget_is_the_total_time_a_bot_may_think(tag):
    sluggish = python_bot("misbehave.py", "sluggish", tag)
    good = python_bot("misbehave.py", "none", tag)
    proc, result = run_json(
        "kuhn3", good, sluggish, good, "--seed", "8", "--hands", "50", "--timeout", "1", "--budget", "0.5"
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
